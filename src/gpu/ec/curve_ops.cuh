/* The GPU operations of one curve behind a table, as src/curve/curve_ops.h is
 * for the CPU (model: sppark's msm_t): the C API of the kernels (msm.cu,
 * ntt.cu, g16_kernels.cu) and the GPU prover (g16_backend.cu) are written
 * once over cuzk_gpu_curve_ops, and no file but curve_ops.cu names a curve.
 *
 * DESIGN. The kernels are templates over the device field types: Fr's
 * parameters (gpu_field.cuh: bn254_fr_p, ...) for the NTT and the prover's
 * steps, a group's coordinate field (gpu_ec.cuh: bn254_fp for G1, bn254_fp2
 * for G2, ...) for the MSM. Each kernel file defines the entry points of one
 * curve as the static members of a class template below and instantiates it
 * explicitly once per curve (as blst does):
 *   gpu_ntt_impl<Fr>  defined and instantiated in ntt.cu,
 *   gpu_g16_impl<Fr>  in g16_kernels.cu,
 *   gpu_msm_impl<F>   defined in msm_impl.cuh, instantiated in one
 *                     translation unit per curve and group
 *                     (msm_<curve>_<g1|g2>.cu, compiled in parallel);
 *   gpu_fixed_impl<F> in fixed_base.cu (for the groups it offers);
 * curve_ops.cu puts those members into one table per curve beside the
 * curve's description (sizes, bits, two-adicity: src/curve/curve_desc.h),
 * and cuzk_gpu_curve_ops_get is the one function that picks a table.
 *
 * Internal to libcuzk (CUDA builds only). */
#ifndef CUZK_GPU_CURVE_OPS_CUH
#define CUZK_GPU_CURVE_OPS_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/gpu.h"
#include "curve/curve_desc.h"
#include "gpu/g16/g16.h"

struct msm_pending; /* msm_impl.cuh */

/* MSM driver of one group (msm_impl.cuh): issue queues a run on the stream
 * up to the read-back of its window sums into pinned slot `slot`, finish
 * waits for them and combines them on the host into a Jacobian point,
 * precompute makes the precomputed copies of the resident bases. */
template <class F> struct gpu_msm_impl {
    static cuzk_status issue(cuzk_gpu_msm *m, const uint64_t *scalars, size_t n, int on_dev, cudaStream_t st,
                             int slot, msm_pending *pd, cuzk_error *e);
    static cuzk_status finish(cuzk_gpu_msm *m, const msm_pending *pd, void *result, cuzk_error *e);
    static cuzk_status precompute(cuzk_gpu_msm *m, cuzk_error *e);
    static cuzk_status decode_be(void *d_bases, size_t n, cudaStream_t st, cuzk_error *e);
};

/* NTT (ntt.cu): the twiddle tables of a handle, and one transform. */
template <class Fr> struct gpu_ntt_impl {
    static cuzk_status tables(cuzk_gpu_ntt *t, cuzk_error *e);
    static cuzk_status run(cuzk_gpu_ntt *t, void *d_data, unsigned lg, cuzk_gpu_ntt_op op, cudaStream_t st,
                           cuzk_error *e);
};

/* Groth16 prover steps (g16_kernels.cu, contracts in g16.h). */
template <class Fr> struct gpu_g16_impl {
    static cuzk_status abc(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c, cudaStream_t st,
                           int (*cancelled)(void *), void *user, cuzk_error *e);
    static cuzk_status pointwise(void *d_a, const void *d_b, const void *d_c, size_t n, cuzk_gpu_g16_pw_op op,
                                 cudaStream_t st, cuzk_error *e);
};

/* Fixed-base batch multiplication of one group (fixed_base.cu): the base's
 * window table, the kernels of a chunk, and the host check of one point. */
template <class F> struct gpu_fixed_impl {
    static cuzk_status table(void *d_table, const void *base, cuzk_error *e);
    static cuzk_status launch(void *d_acc, void *d_out, const void *d_sc, size_t n, const void *d_table, cudaStream_t st,
                              cuzk_error *e);
    static bool check(const void *base, const void *scalar, const void *point);
};

typedef struct cuzk_gpu_fixed_ops {
    size_t aff, acc; /* bytes of an affine / XYZZ point; 0: the group is not offered */
    cuzk_status (*table)(void *, const void *, cuzk_error *);
    cuzk_status (*launch)(void *, void *, const void *, size_t, const void *, cudaStream_t, cuzk_error *);
    bool (*check)(const void *, const void *, const void *);
} cuzk_gpu_fixed_ops;

typedef struct cuzk_gpu_msm_ops {
    cuzk_status (*issue)(cuzk_gpu_msm *, const uint64_t *, size_t, int, cudaStream_t, int, msm_pending *,
                         cuzk_error *);
    cuzk_status (*finish)(cuzk_gpu_msm *, const msm_pending *, void *, cuzk_error *);
    cuzk_status (*precompute)(cuzk_gpu_msm *, cuzk_error *);
    /* n bases in bellperson's uncompressed encoding -> affine, in place, on st */
    cuzk_status (*decode_be)(void *d_bases, size_t n, cudaStream_t st, cuzk_error *e);
} cuzk_gpu_msm_ops;

typedef struct cuzk_gpu_curve_ops {
    const cuzk_curve_desc *desc; /* sizes, bits, two-adicity, names */
    cuzk_gpu_msm_ops g1, g2;
    cuzk_gpu_fixed_ops fixed_g1, fixed_g2;
    cuzk_status (*ntt_tables)(cuzk_gpu_ntt *t, cuzk_error *e);
    cuzk_status (*ntt_run)(cuzk_gpu_ntt *t, void *d_data, unsigned lg, cuzk_gpu_ntt_op op, cudaStream_t st,
                           cuzk_error *e);
    cuzk_status (*g16_abc)(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c, cudaStream_t st,
                           int (*cancelled)(void *), void *user, cuzk_error *e);
    cuzk_status (*g16_pointwise)(void *d_a, const void *d_b, const void *d_c, size_t n, cuzk_gpu_g16_pw_op op,
                                 cudaStream_t st, cuzk_error *e);
} cuzk_gpu_curve_ops;

/* The GPU operations of a curve; NULL for CUZK_CURVE_NONE or an unknown
 * value. The one function that chooses GPU code by curve. */
const cuzk_gpu_curve_ops *cuzk_gpu_curve_ops_get(cuzk_curve c);

/* The MSM driver of a curve's group; NULL for an unknown curve or group. */
static inline const cuzk_gpu_msm_ops *cuzk_gpu_msm_ops_get(cuzk_curve c, cuzk_gpu_group g)
{
    const cuzk_gpu_curve_ops *ops = cuzk_gpu_curve_ops_get(c);
    if (!ops) return NULL;
    return g == CUZK_GPU_G1 ? &ops->g1 : g == CUZK_GPU_G2 ? &ops->g2 : NULL;
}

#endif
