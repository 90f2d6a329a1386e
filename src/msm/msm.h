/* Multi-scalar multiplication (Pippenger) over bn254_g1/g2, bls12_381_g1/g2.
 *
 * Per-group functions (see msm_decl.h): <g>_msm, <g>_msm_opts,
 * <g>_batch_mul_fixed, <g>_msm_plan.
 *
 * The cost of an MSM is predictable from (n, scalar bits, threads): the plan
 * below is a pure function of them, and its estimate is what the CPU code
 * executes (the GPU memory planner reuses the same model). */
#ifndef CUZK_MSM_MSM_H
#define CUZK_MSM_MSM_H

#include <stdbool.h>
#include <stddef.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "util/common.h"
#include "util/threadpool.h"

/* Relative costs used by the planner, in field multiplications of the
 * coordinate field (XYZZ madd-2008-s 8M+2S, add-2008-s 12M+2S). */
#define CUZK_MSM_COST_MADD 10.0
#define CUZK_MSM_COST_ADD 14.0
/* Batch-affine bucket addition: 2M + 1S + 3M for the shared inversion, plus
 * bookkeeping. Used from this window size up (enough buckets to batch). */
#define CUZK_MSM_COST_BADD 8.0
/* The same with the 8-lane AVX-512 IFMA field code (src/field/fp_ifma.h):
 * measured ~3.5 scalar multiplications' worth per addition, so smaller
 * windows pay (bn254 G1 2^16: c = 11 121 ms vs c = 13 139 ms). */
#define CUZK_MSM_COST_BADD_VEC 3.5
#define CUZK_MSM_AFFINE_MIN_C 10
/* Upper bound on one worker's bucket array. */
#define CUZK_MSM_MAX_BUCKET_BYTES ((size_t)64 << 20)
#define CUZK_MSM_MAX_WINDOW 22

/* How a Pippenger MSM over n (non-trivial) scalars is carried out:
 * signed c-bit digits, `windows` windows, each window's points split into
 * `splits` contiguous ranges; a task = (window, range) fills its own 2^(c-1)
 * buckets, reduces them with a running sum, and the partial window sums are
 * combined by Horner's rule (c doublings per window). */
typedef struct cuzk_msm_plan {
    size_t n;             /* points that go through the bucket method */
    unsigned scalar_bits; /* bit length of the scalar field order */
    unsigned c;           /* window bits */
    unsigned windows;     /* ceil((scalar_bits + 1) / c): +1 for the signed-digit carry */
    unsigned splits;      /* point ranges per window */
    size_t tasks;         /* windows * splits */
    size_t buckets;       /* 2^(c-1) per task */
    int threads;
    size_t bucket_bytes;  /* bytes of one bucket array (per worker) */
    bool affine;          /* batch-affine bucket kernel (c >= CUZK_MSM_AFFINE_MIN_C) */
    double madds;         /* bucket-accumulation additions (mixed or batch-affine) */
    double adds;          /* running-sum and combination additions */
    double dbls;          /* doublings (Horner over windows) */
    double cost;          /* estimated critical path, in field-mul units */
} cuzk_msm_plan;

/* Options for <g>_msm_opts (tests, benchmarks, tuning). Zero = automatic. */
typedef struct cuzk_msm_opts {
    unsigned c;      /* window bits, 1..CUZK_MSM_MAX_WINDOW (0: planner) */
    unsigned splits; /* point ranges per window (0: planner) */
    bool no_fast01;  /* disable the 0/1-scalar fast path */
    bool no_affine;  /* force XYZZ bucket accumulation (no batch-affine) */
} cuzk_msm_opts;

/* Choose c and splits minimising the estimated critical path
 *   ceil(tasks / threads) * (n/splits * MADD + 2^c * ADD) + combination,
 * subject to threads * 2^(c-1) * xyzz_bytes <= CUZK_MSM_MAX_BUCKET_BYTES per
 * worker. Deterministic in its arguments. */
void cuzk_msm_plan_make(cuzk_msm_plan *p, size_t n, unsigned scalar_bits, int threads,
                        size_t xyzz_bytes);
/* Fill p for a given c and splits (same cost model). */
void cuzk_msm_plan_fixed(cuzk_msm_plan *p, size_t n, unsigned scalar_bits, int threads,
                         size_t xyzz_bytes, unsigned c, unsigned splits);

/* Per-group declarations. */
#define MSM_G bn254_g1
#include "msm/msm_decl.h"

#define MSM_G bn254_g2
#include "msm/msm_decl.h"

#define MSM_G bls12_381_g1
#include "msm/msm_decl.h"

#define MSM_G bls12_381_g2
#include "msm/msm_decl.h"

#endif
