/* DESIGN: the device-memory plans of the GPU NTT and MSM, in plain C.
 *
 * Everything the GPU code allocates is sized here, before any allocation:
 * the NTT twiddle tables, and for an MSM handle the layout of its workspaces
 * (window range, buckets, sort and reduction buffers: gpu_msm_layout) and
 * the memory plan over a budget (resident or streamed, chunk size, resident
 * prefix: gpu_msm_plan_full). It is compiled in every build, also without
 * CUDA, so CPU-only unit tests check it (tests/unit/test_gpu_plan.c), and the
 * CUDA sources call these functions rather than repeat the arithmetic. The
 * device enters only through its SM count (the ones-sum grid) and the budget,
 * so a plan can be made for a card that is not in the machine.
 *
 * Internal header (not installed); the public figures are
 * cuzk_gpu_msm_plan_make, cuzk_gpu_msm_device_bytes and
 * cuzk_gpu_ntt_device_bytes in include/cuzk/gpu.h. */
#ifndef CUZK_GPU_PLAN_H
#define CUZK_GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Constants shared by the plan and the kernels (unsigned, as the kernels
 * use them). */
#define MSM_C_MIN 4u            /* smallest window */
#define MSM_C_MAX 20u           /* largest window the automatic choice takes */
#define MSM_C_FIXED_MAX 22u     /* largest window a configuration may fix (window_bits, precompute) */
#define MSM_PRE_T_MAX 64u       /* most precomputed copies (more than any window count) */
#define MSM_SEG 64u             /* sorted entries per accumulate thread (partial sums: one per segment) */
#define MSM_RED_SEG 32u         /* buckets per reduction thread on level 0 (see gpu_msm_red_l0) */
#define MSM_RED_UP 4u           /* inputs per thread on the reduction levels above 0 */
#define MSM_RED_LEVELS 24       /* most reduction levels of one window */
#define SCAN_TILE 2048u         /* bucket offsets per scan block (256 threads x 8) */
#define EC_THREADS 128u         /* threads per block of the point-arithmetic kernels */
#define SORT_LO 9u              /* a coarse sort bin is 2^9 buckets when c - 1 >= 9 ... */
#define SORT_HI_MAX 10u         /* ... and there are at most 2^10 bins per window */
#define SORT_CAP 24576u         /* pairs a fine-pass block stages (96 KiB) */
#define NTT_INNER 512u          /* inner twiddles w_1024^j, j < 512 */
#define NTT_STAGED 1024u        /* inner twiddles per direction, staged per stage */
#define NTT_SHOUP_BYTES 80u     /* a twiddle with its Shoup constant (8 + 9 words, padded to 16 bytes) */
#define NTT_MAX_LG 28u          /* largest NTT size */

/* Bits of the scalar field (254 / 255), affine point bytes of a group (two
 * coordinates; G2: over Fp2), 2-adicity of r (28 / 32). 0 for an unknown
 * curve or group. */
unsigned gpu_scalar_bits(cuzk_curve curve);
size_t gpu_affine_bytes(cuzk_curve curve, cuzk_gpu_group group);
unsigned gpu_fr_two_adicity(cuzk_curve curve);

/* ---- NTT ---------------------------------------------------------------- */

/* Twiddle tables for sizes up to 2^max_lg over a field of 2-adicity S:
 * windowed tables of the 2^T-th roots (lo: 2^L entries, hi: 2^(T-L)) and a
 * direct table of the 2^D-th roots for the inter-pass twiddles of passes
 * ending at stage <= D. */
typedef struct gpu_ntt_tables {
    unsigned T, L, D;
} gpu_ntt_tables;
gpu_ntt_tables gpu_ntt_tables_for(unsigned S, unsigned max_lg);

/* ---- MSM ---------------------------------------------------------------- */

static inline unsigned gpu_msm_windows(unsigned bits, unsigned c) { return (bits + 1 + c - 1) / c; }

/* Window size c in [MSM_C_MIN, cmax] minimising the cost
 * gpu_msm_cost(m, bits, c, Wg) for m significant scalars, Wg = ceil(W / t)
 * bucket sets (t precomputed copies of the bases; t = 1: none). */
unsigned gpu_msm_choose_window(size_t m, unsigned bits, unsigned t, unsigned cmax);
/* The cost model: m W(c) bucket additions + 4 per bucket of the Wg sets of
 * 2^(c-1) (the reduction: two XYZZ additions at half the rate). */
double gpu_msm_cost(size_t m, unsigned bits, unsigned c, unsigned Wg);

/* log2 of the buckets per coarse sort bin for window size c, and the coarse
 * bins of W windows of 2^(c-1) buckets (<= 13312). */
static inline unsigned gpu_msm_sort_shift(unsigned c)
{
    unsigned s = c - 1 < SORT_LO ? c - 1 : SORT_LO;
    if (c - 1 > s + SORT_HI_MAX) s = c - 1 - SORT_HI_MAX;
    return s;
}
static inline size_t gpu_msm_sort_ncoarse(unsigned c, unsigned W)
{
    return ((size_t)W << (c - 1)) >> gpu_msm_sort_shift(c);
}
/* log2 of the buckets per bin of the fine pass for a batch of nb points
 * whose W windows go to Wg sets of 2^(c-1) buckets: the coarse shift when
 * a coarse bin's expected pairs fill at most 3/4 of the fine pass's staging;
 * else (precomputed copies: W / Wg windows share a set, so the coarse bins
 * of the set hold W / Wg times as many pairs) the largest shift below whose
 * bins do, and the coarse bins are split again into bins of that size. */
static inline unsigned gpu_msm_sort_shift2(unsigned c, unsigned W, unsigned Wg, size_t nb)
{
    unsigned s = gpu_msm_sort_shift(c);
    /* expected pairs of a bin of 2^s buckets: nb W 2^s / (Wg 2^(c-1)) */
    while (s > 0 && (uint64_t)nb * W * 4 > (uint64_t)3 * SORT_CAP * Wg << (c - 1 - s)) s--;
    return s;
}
/* The top window's digits have bits - (W - 1) c <= c - 1 bits, so they
 * reach only its first 2^that buckets, and its coarse bins of 2^s would be
 * few and oversized. Without copies (its own bucket set) it is binned at
 * this shift instead: at most 2^SORT_HI_MAX bins over those buckets. It
 * equals gpu_msm_sort_shift(c) when the top window is not narrower. */
static inline unsigned gpu_msm_top_bits(unsigned bits, unsigned c) { return bits - (gpu_msm_windows(bits, c) - 1) * c; }
static inline unsigned gpu_msm_sort_shift_top(unsigned bits, unsigned c)
{
    const unsigned tb = gpu_msm_top_bits(bits, c), s = gpu_msm_sort_shift(c);
    const unsigned st = tb > SORT_HI_MAX ? tb - SORT_HI_MAX : 0;
    return st < s ? st : s;
}
/* Bin cursors of a batch's sort: the coarse bins, the fine bins when the
 * coarse ones are split (gpu_msm_sort_shift2), and without copies (W ==
 * Wg) the top window's own bins (gpu_msm_sort_shift_top). */
static inline size_t gpu_msm_sort_counters(unsigned c, unsigned W, unsigned Wg, size_t nb)
{
    const unsigned s = gpu_msm_sort_shift(c), s2 = gpu_msm_sort_shift2(c, W, Wg, nb);
    const size_t NB = (size_t)Wg << (c - 1);
    return (NB >> s) + (s2 < s ? NB >> s2 : 0) + (W == Wg ? (size_t)1 << SORT_HI_MAX : 0);
}

/* Levels of the bucket reduction: level k has G[k] segments of L[k] (=
 * 2^lg[k]) per window over M[k] inputs; its outputs (W * G[k] each, two
 * rows) lie at off[k] in the two reduction buffers, total in all. */
typedef struct gpu_red_levels {
    unsigned n;
    uint32_t M[MSM_RED_LEVELS], G[MSM_RED_LEVELS], L[MSM_RED_LEVELS], lg[MSM_RED_LEVELS];
    size_t off[MSM_RED_LEVELS];
    size_t total;
} gpu_red_levels;
gpu_red_levels gpu_msm_red_plan(unsigned W, uint32_t B, uint32_t L0);
/* Level-0 segment for W windows of B buckets: MSM_RED_SEG, halved when that
 * leaves fewer than 2^17 threads; `want` (a power of two, 0 = none) may ask
 * for more. */
uint32_t gpu_msm_red_l0(unsigned W, uint32_t B, uint32_t want);

/* Workspace layout of a handle (what create allocates besides the bases). */
typedef struct gpu_msm_layout {
    unsigned cmax, Wmax;
    unsigned pre_t, pre_wg;   /* precomputed copies (1: off) and bucket sets (windows per copy) */
    unsigned cfb;             /* with copies: largest window of a run that does not use them (0: none) */
    size_t NBmax;             /* buckets: max over the windows a run may pick */
    size_t batch;             /* points per sort batch at cmax */
    size_t cap_entries;       /* sorted entries buffer = batch * Wmax */
    size_t nseg_max;          /* accumulate threads (partial sums) */
    size_t ncoarse_max;       /* sort bin cursors (coarse bins, and fine bins where split) */
    int sort_split;           /* with copies, a window's sort splits its coarse bins: the pairs buffer holds two sets */
    size_t red_max;           /* reduction outputs */
    size_t ones_threads;      /* partial sums of the ones sum: sm_count * 4 * EC_THREADS at most (a run takes one wave) */
    size_t pre_threads;       /* threads of the copies' creation (min(npoints, ones_threads)) */
    size_t pre_scratch;       /* their scratch in field elements, 2 (pre_t - 1) a thread (in the pairs buffer) */
} gpu_msm_layout;
gpu_msm_layout gpu_msm_layout_for(unsigned bits, size_t npoints, const cuzk_gpu_msm_config *cfg, int sm_count);

/* Device bytes of the workspaces that do not depend on how the bases are
 * held (xyzz_bytes: one bucket point). */
size_t gpu_msm_workspace_bytes(const gpu_msm_layout *p, size_t xyzz_bytes);
/* Bytes of the pairs buffer: the sort's coarse pairs (and the split ones
 * after them where sort_split), and at create the scratch of the copies'
 * creation (xyzz_bytes / 4 a field element). */
size_t gpu_msm_pairs_bytes(const gpu_msm_layout *p, size_t xyzz_bytes);

/* Window of a resident run over m significant scalars (no fixed window):
 * without copies the cost model's choice up to cmax; with copies the
 * precomputed layout (cmax, pre_wg bucket sets) unless a run without them
 * (c <= cfb, one set a window) costs less, as for few significant scalars.
 * *pre: whether the run uses the copies. */
unsigned gpu_msm_run_window(const gpu_msm_layout *p, unsigned bits, size_t m, int *pre);

/* 32-bit words of a resident handle's live mask (bit i: base i is not the
 * point at infinity; classify skips scalars whose base is). */
static inline size_t gpu_msm_live_words(size_t npoints) { return (npoints + 31) / 32; }

/* Upper bound of the sort batches of one run over npoints with `res`
 * resident bases (streamed runs keep one ones partial sum per batch). */
size_t gpu_msm_max_batches(const gpu_msm_layout *p, unsigned bits, size_t npoints, size_t res);

/* Host slot (points) of one issued MSM: the level sums of every window and
 * the ones partial sums of nbatch batches. */
static inline size_t gpu_msm_slot_points(unsigned bits, size_t nbatch)
{
    return (size_t)gpu_msm_windows(bits, MSM_C_MIN) * MSM_RED_LEVELS + nbatch + 1;
}

/* The memory plan with its layout: see "Memory plan" in gpu.h. */
typedef struct gpu_msm_full_plan {
    gpu_msm_layout p;
    cuzk_gpu_msm_plan mp;
    size_t nbatch;            /* ones partial-sum slots (streamed), 1 when resident */
} gpu_msm_full_plan;
cuzk_status gpu_msm_plan_full(gpu_msm_full_plan *fp, cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                              const cuzk_gpu_msm_config *cfg, int sm_count, size_t budget, cuzk_error *e);

/* A streamed handle over host bases that are not page-locked stages its
 * uploads through two page-locked chunks of at most GPU_MSM_STAGE_POINTS
 * bases each (msm_impl.cuh): their bytes. */
#define GPU_MSM_STAGE_POINTS ((size_t)1 << 22)
size_t gpu_msm_stage_points(size_t chunk_points);
size_t gpu_msm_stage_bytes(size_t chunk_points, size_t affine_bytes);

/* Free memory minus the safety margin max(256 MiB, 2 % of total); 0 if less
 * (cuzk_mem_after_margin, util/common.h). */
size_t gpu_default_budget(size_t free_bytes, size_t total_bytes);

#ifdef __cplusplus
}
#endif

#endif
