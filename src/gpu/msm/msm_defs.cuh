/* MSM building blocks shared by the stage headers (msm_sort.cuh,
 * msm_accumulate.cuh, msm_reduce.cuh) and the driver (msm_impl.cuh):
 * constants, scalar and affine loads. */
#ifndef CUZK_GPU_MSM_DEFS_CUH
#define CUZK_GPU_MSM_DEFS_CUH

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/device/gpu_common.cuh"
#include "gpu/ec/gpu_ec.cuh"
#include "gpu/plan/plan.h"

using namespace cuzk_gpu;

namespace {

/* The constants the memory plan also needs (MSM_SEG, SCAN_TILE, EC_THREADS,
 * ...) are in gpu/plan/plan.h. */
constexpr unsigned MSM_RED_FAN = 8;        /* fan-in of the sum kernels */
constexpr uint32_t KEY_NONE = 0xffffffffu;

/* ---- scalar helpers ----------------------------------------------------- */

struct scalar8 {
    uint32_t w[8];
};

__device__ __forceinline__ scalar8 load_scalar(const uint64_t *s, size_t i)
{
    const uint4 *p = reinterpret_cast<const uint4 *>(s + 4 * i);
    uint4 a = p[0], b = p[1];
    scalar8 r;
    r.w[0] = a.x; r.w[1] = a.y; r.w[2] = a.z; r.w[3] = a.w;
    r.w[4] = b.x; r.w[5] = b.y; r.w[6] = b.z; r.w[7] = b.w;
    return r;
}

__device__ __forceinline__ bool scalar_is_zero(const scalar8 &s)
{
    uint32_t t = 0;
CUZK_UNROLL
    for (int i = 0; i < 8; i++) t |= s.w[i];
    return t == 0;
}

__device__ __forceinline__ bool scalar_is_one(const scalar8 &s)
{
    uint32_t t = s.w[0] ^ 1u;
CUZK_UNROLL
    for (int i = 1; i < 8; i++) t |= s.w[i];
    return t == 0;
}

template <class F> __device__ __forceinline__ affine<F> load_affine(const affine<F> *p)
{
    static_assert(sizeof(affine<F>) % 16 == 0, "affine size");
    affine<F> r;
    const uint4 *src = reinterpret_cast<const uint4 *>(p);
    uint4 *dst = reinterpret_cast<uint4 *>(&r);
CUZK_UNROLL
    for (int i = 0; i < (int)(sizeof(affine<F>) / 16); i++) dst[i] = __ldg(src + i);
    return r;
}

template <class F> struct is_fp2 {
    static constexpr bool value = false;
};
template <class P> struct is_fp2<fp2<P>> {
    static constexpr bool value = true;
};

} /* namespace */

#endif
