/* GPU memory plans (gpu/plan/plan.c) on the CPU, no device needed: figures
 * worked out by hand for a few cases, the SM count entering the plan,
 * monotonicity in the size and the budget, the streamed fallback, NOMEM
 * when nothing fits, argument errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cuzk/gpu.h"
#include "gpu/plan/plan.h"

static const struct {
    cuzk_curve curve;
    cuzk_gpu_group group;
    size_t aff;
} GROUPS[4] = {
    {CUZK_CURVE_BN254, CUZK_GPU_G1, 64},
    {CUZK_CURVE_BN254, CUZK_GPU_G2, 128},
    {CUZK_CURVE_BLS12_381, CUZK_GPU_G1, 96},
    {CUZK_CURVE_BLS12_381, CUZK_GPU_G2, 192},
};

/* cuzk_gpu_msm_plan_make with a fresh error (cuzk_err keeps the first one). */
static cuzk_status plan(cuzk_curve cv, cuzk_gpu_group gr, size_t n, const cuzk_gpu_msm_config *cfg, int sms,
                        size_t budget, cuzk_gpu_msm_plan *out)
{
    cuzk_error e = {0};
    const cuzk_status st = cuzk_gpu_msm_plan_make(cv, gr, n, cfg, sms, budget, out, &e);
    assert_true((st == CUZK_OK) == (e.msg[0] == 0));
    return st;
}

/* NTT tables: per direction inner (512) + lo (2^L) + hi (2^(T-L)) entries
 * of 32 + 80 bytes (Montgomery and Shoup form), and per direction the direct
 * (2^D) and staged (1024) tables of 80 bytes; T = min(max_lg + 1, S) but at
 * least 10, L = ceil(T / 2), D = min(T, 18). */
static void test_ntt_bytes(void **state)
{
    (void)state;
    /* BN254 (S = 28), max_lg 20: T 21, L 11, D 18:
     * 2 (512 + 2048 + 1024) 112 + 2 (262144 + 1024) 80 */
    assert_int_equal(cuzk_gpu_ntt_device_bytes(CUZK_CURVE_BN254, 20), 802816 + 42106880);
    /* max_lg 8: T 10, L 5, D 10: 2 (512 + 32 + 32) 112 + 2 (1024 + 1024) 80 */
    assert_int_equal(cuzk_gpu_ntt_device_bytes(CUZK_CURVE_BN254, 8), 129024 + 327680);
    /* BN254 max_lg 28: T = S = 28, L 14: 2 (512 + 16384 + 16384) 112 + the D = 18 tables */
    assert_int_equal(cuzk_gpu_ntt_device_bytes(CUZK_CURVE_BN254, 28), 7454720 + 42106880);
    /* BLS12-381 (S = 32) max_lg 28: T 29, L 15: 2 (512 + 32768 + 16384) 112 + the D = 18 tables */
    assert_int_equal(cuzk_gpu_ntt_device_bytes(CUZK_CURVE_BLS12_381, 28), 11124736 + 42106880);
    assert_int_equal(cuzk_gpu_ntt_device_bytes(CUZK_CURVE_BN254, 29), 0);
    assert_int_equal(cuzk_gpu_ntt_device_bytes(CUZK_CURVE_NONE, 20), 0);
    for (int c = 1; c <= 2; c++) {
        size_t prev = 0;
        for (unsigned lg = 0; lg <= NTT_MAX_LG; lg++) {
            const size_t b = cuzk_gpu_ntt_device_bytes((cuzk_curve)c, lg);
            assert_true(b >= prev);
            prev = b;
        }
    }
}

/* BN254 G1, 1024 bases, defaults, worked by hand:
 *  window: n W(c) + 4 W 2^(c-1) is 67584, 55488, 49536, 47360, 49152 for
 *  c = 4..8, so c = 7, W = 37; buckets max_c W(c) 2^(c-1) = 37 * 64 = 2368;
 *  coarse bins max W = 64 and the top window's 2^10; reduction outputs (c = 7: L0 = 16, 4 + 1 segments
 *  a window) 37 * 5 = 185; batch 1024, entries 37888, segments 592;
 *  ones partial sums sm_count * 512.
 *  workspaces: 16 + 4737 * 4 + 3 * 4 + 37888 * 12 + 1089 * 4 + 2368 * 128
 *  + 2 * 592 * 132 + 2 * max(185, 512 sm_count) * 128 = 937380 + 131072 sm_count
 *  resident: 1024 * (64 + 32 + 4) + 32 * 4 (live mask) + workspaces. */
static void test_msm_resident_by_hand(void **state)
{
    (void)state;
    const size_t base = 102400 + 128 + 937380;
    assert_int_equal(cuzk_gpu_msm_device_bytes(CUZK_CURVE_BN254, CUZK_GPU_G1, 1024, NULL, 1), base + 131072);
    assert_int_equal(cuzk_gpu_msm_device_bytes(CUZK_CURVE_BN254, CUZK_GPU_G1, 1024, NULL, 78), base + 78 * 131072);
    assert_int_equal(cuzk_gpu_msm_device_bytes(CUZK_CURVE_BN254, CUZK_GPU_G1, 1024, NULL, 132), base + 132 * 131072);
    cuzk_gpu_msm_plan pl;
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 1024, NULL, 132, SIZE_MAX, &pl), CUZK_OK);
    assert_int_equal(pl.streamed, 0);
    assert_int_equal(pl.resident_points, 1024);
    assert_int_equal(pl.chunk_points, 1024);
    assert_int_equal(pl.device_bytes, base + 132 * 131072);
    assert_int_equal(pl.precompute, 1); /* no limit: no copies */
    /* exactly the resident figure still fits; with one byte less nothing
     * does: 1024 points are one smallest chunk, and streaming it costs more
     * (two chunk buffers) than holding it (without copies: with them the
     * fewer bucket sets of so small an MSM can take less) */
    const cuzk_gpu_msm_config none = {.precompute = 1};
    const size_t rb = pl.device_bytes;
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 1024, &none, 132, rb, &pl), CUZK_OK);
    assert_int_equal(pl.streamed, 0);
    assert_int_equal(pl.budget, rb);
    assert_int_equal(pl.device_bytes, rb);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 1024, &none, 132, rb - 1, &pl), CUZK_ERR_NOMEM);
}

/* The layout pieces by hand: windows, the cost model's choice, coarse bins,
 * reduction levels. */
static void test_layout_pieces(void **state)
{
    (void)state;
    assert_int_equal(gpu_msm_windows(254, 7), 37);
    assert_int_equal(gpu_msm_windows(255, 16), 16);
    assert_int_equal(gpu_msm_windows(255, 4), 64);
    assert_int_equal(gpu_msm_choose_window(1024, 254, 1, MSM_C_MAX), 7);
    /* 2^24 points, 255 bits: 2^24 W + 4 W 2^(c-1) falls down to c = 20 (W 13: 245366784;
     * c = 19, W 14: 249561088), the automatic limit; with cmax 16 it is 16 (W 16: 270532608,
     * c = 15, W 18: 303169536) */
    assert_int_equal(gpu_msm_choose_window((size_t)1 << 24, 255, 1, MSM_C_MAX), 20);
    assert_int_equal(gpu_msm_choose_window((size_t)1 << 24, 255, 1, 16), 16);
    /* precomputed copies, t >= W: one bucket set, cost 2^24 W + 4 2^(c-1): c = 22 (W 12):
     * 209715200 against c = 21 (W 13): 222298112; for 1024 points c = 10 (W 26): 28672 */
    assert_int_equal(gpu_msm_choose_window((size_t)1 << 24, 255, 64, MSM_C_FIXED_MAX), 22);
    assert_int_equal(gpu_msm_choose_window(1024, 255, 64, MSM_C_FIXED_MAX), 10);
    /* coarse bins: 2^(c-1) buckets a window in bins of 2^min(c-1, 9), at most 2^10 bins */
    assert_int_equal(gpu_msm_sort_ncoarse(7, 37), 37);
    assert_int_equal(gpu_msm_sort_ncoarse(16, 16), 16 * 64);
    assert_int_equal(gpu_msm_sort_ncoarse(22, 12), 12 * 1024);
    /* fine bins: a batch of 2^24 points, 13 windows of c = 20 in 13 sets: 16384 pairs a
     * coarse bin of 2^9 buckets, at most 3/4 of SORT_CAP (18432): not split; 12 windows of
     * c = 22 into one set (copies): 196608 a bin of 2^11, split to 2^7 (12288; 2^8: 24576) */
    assert_int_equal(gpu_msm_sort_shift2(20, 13, 13, (size_t)1 << 24), gpu_msm_sort_shift(20));
    /* ... and the top window's own 2^10 bins */
    assert_int_equal(gpu_msm_sort_counters(20, 13, 13, (size_t)1 << 24), 13 * 1024 + 1024);
    /* the top window: BN254 (254 bits) c = 20, 13 windows: 14 bits, 2^14 buckets in 2^10 bins of
     * 2^4 (not the 32 bins of 2^9); BLS12-381 (255) c = 16: 15 bits, 2^5; c = 7 (37 windows): 3 bits,
     * one bucket a bin; 255 bits, c = 8: 32 windows, top 7 bits = c - 1, bins of 2^0 < 2^7 */
    assert_int_equal(gpu_msm_top_bits(254, 20), 14);
    assert_int_equal(gpu_msm_sort_shift_top(254, 20), 4);
    assert_int_equal(gpu_msm_sort_shift_top(255, 16), 5);
    assert_int_equal(gpu_msm_top_bits(254, 7), 2);
    assert_int_equal(gpu_msm_sort_shift_top(254, 7), 0);
    assert_int_equal(gpu_msm_top_bits(255, 8), 7);
    /* 255 bits, c = 22: 12 windows, top 13 bits: 2^3 < shift 11 */
    assert_int_equal(gpu_msm_sort_shift_top(255, 22), 3);
    assert_int_equal(gpu_msm_sort_shift(22), 11);
    assert_int_equal(gpu_msm_sort_shift2(22, 12, 1, (size_t)1 << 24), 7);
    assert_int_equal(gpu_msm_sort_counters(22, 12, 1, (size_t)1 << 24), 1024 + 16384);
    /* 1000 points, 37 windows of c = 7 in one set: 37000 a bin of 2^6, 2^4: 9250 */
    assert_int_equal(gpu_msm_sort_shift2(7, 37, 1, 1000), 4);
    assert_int_equal(gpu_msm_sort_shift2(7, 37, 19, 1000), 6);
    /* reduction of 16 windows of 2^15 buckets: W B / 32 = 2^14 < 2^17, L0 = 16:
     * 2048 segments, then 2047 inputs by 4: 512, 511 -> 128, 127 -> 32, 31 -> 8, 7 -> 2, 1 -> 1 */
    const gpu_red_levels rl = gpu_msm_red_plan(16, 1u << 15, gpu_msm_red_l0(16, 1u << 15, 0));
    static const uint32_t G[] = {2048, 512, 128, 32, 8, 2, 1};
    assert_int_equal(rl.n, 7);
    size_t total = 0;
    for (unsigned k = 0; k < rl.n; k++) {
        assert_int_equal(rl.G[k], G[k]);
        assert_int_equal(rl.L[k], k ? 4 : 16);
        assert_int_equal(rl.off[k], total);
        total += 16 * (size_t)G[k];
    }
    assert_int_equal(rl.total, total);
    /* 2^17 threads or more: L0 = 32 */
    assert_int_equal(gpu_msm_red_l0(16, 1u << 18, 0), 32);
    assert_int_equal(gpu_msm_red_l0(3, 8, 0), 8);
}

/* Resident figures grow with the size and the SM count, and hold the bases
 * (and the precomputed copies). */
static void test_monotone(void **state)
{
    (void)state;
    for (int gi = 0; gi < 4; gi++) {
        size_t prev = 0;
        for (size_t n = 1; n <= ((size_t)1 << 27); n = n * 3 / 2 + 1) {
            const size_t b = cuzk_gpu_msm_device_bytes(GROUPS[gi].curve, GROUPS[gi].group, n, NULL, 132);
            assert_true(b >= prev);
            assert_true(b >= n * (GROUPS[gi].aff + 36));
            assert_true(cuzk_gpu_msm_device_bytes(GROUPS[gi].curve, GROUPS[gi].group, n, NULL, 16) <= b);
            prev = b;
        }
        cuzk_gpu_msm_config pre = {.precompute = 4};
        assert_true(cuzk_gpu_msm_device_bytes(GROUPS[gi].curve, GROUPS[gi].group, (size_t)1 << 20, &pre, 132) >=
                    ((size_t)4 << 20) * GROUPS[gi].aff);
    }
}

/* Below the resident figure the plan streams; every plan fits its budget;
 * a budget that plans keeps planning when it grows; the resident prefix is
 * whole chunks; under the minimal streaming plan: NOMEM naming the budget. */
static void test_streamed(void **state)
{
    (void)state;
    for (int gi = 0; gi < 4; gi++) {
        const cuzk_curve cv = GROUPS[gi].curve;
        const cuzk_gpu_group gr = GROUPS[gi].group;
        const size_t n = (size_t)1 << 22;
        const cuzk_gpu_msm_config cfg = {.batch_points = (size_t)1 << 18};
        cuzk_gpu_msm_plan pl;
        cuzk_error e = {0};
        const size_t resident = cuzk_gpu_msm_device_bytes(cv, gr, n, &cfg, 132);
        assert_true(resident > n * GROUPS[gi].aff);
        /* smallest budget that plans, by bisection */
        size_t lo = 1, hi = resident;
        while (hi - lo > 1) {
            const size_t mid = lo + (hi - lo) / 2;
            if (plan(cv, gr, n, &cfg, 132, mid, &pl) == CUZK_OK) hi = mid;
            else lo = mid;
        }
        assert_int_equal(cuzk_gpu_msm_plan_make(cv, gr, n, &cfg, 132, lo, &pl, &e), CUZK_ERR_NOMEM);
        assert_non_null(strstr(e.msg, "budget"));
        assert_int_equal(pl.device_bytes, 0);
        /* the minimal plan: small chunks, a few resident (a chunk a little
         * larger than 1024 points needs fewer ones partial sums, which
         * leaves room), less than the bases */
        assert_int_equal(plan(cv, gr, n, &cfg, 132, hi, &pl), CUZK_OK);
        assert_int_equal(pl.streamed, 1);
        assert_true(pl.chunk_points >= 1024 && pl.chunk_points <= 8192);
        assert_true(pl.resident_points <= 4 * pl.chunk_points);
        assert_true(pl.device_bytes <= hi);
        assert_true(pl.device_bytes < n * GROUPS[gi].aff);
        /* a sweep of budgets from the minimum to the resident figure */
        for (int k = 0; k <= 16; k++) {
            const size_t budget = hi + (resident - 1 - hi) / 16 * (size_t)k;
            assert_int_equal(plan(cv, gr, n, &cfg, 132, budget, &pl), CUZK_OK);
            assert_int_equal(pl.streamed, 1);
            assert_int_equal(pl.budget, budget);
            assert_true(pl.device_bytes <= budget);
            assert_true(pl.chunk_points >= 1024 && pl.chunk_points <= cfg.batch_points);
            assert_true(pl.resident_points <= n); /* all bases, host scalars streamed: also a streamed plan */
            assert_int_equal(pl.resident_points % pl.chunk_points, 0);
            /* cuzk_gpu_msm_device_bytes with that budget is the plan's figure */
            cuzk_gpu_msm_config c2 = cfg;
            c2.device_budget = budget;
            assert_int_equal(cuzk_gpu_msm_device_bytes(cv, gr, n, &c2, 132), pl.device_bytes);
        }
        /* a budget of three quarters of the resident figure keeps a resident prefix */
        assert_int_equal(plan(cv, gr, n, &cfg, 132, resident / 4 * 3, &pl), CUZK_OK);
        assert_true(pl.resident_points > 0);
        /* precomputed copies are never streamed */
        const cuzk_gpu_msm_config pre = {.precompute = 2};
        const size_t rpre = cuzk_gpu_msm_device_bytes(cv, gr, n, &pre, 132);
        assert_int_equal(plan(cv, gr, n, &pre, 132, rpre, &pl), CUZK_OK);
        assert_int_equal(plan(cv, gr, n, &pre, 132, rpre - 1, &pl), CUZK_ERR_NOMEM);
    }
}

/* upload_in_run: a streamed plan that keeps every base where the resident
 * one fits (its figure is then smaller: one chunk's workspaces), and the
 * resident plan where it cannot stream (precomputed copies, or one batch
 * of points); below the resident figure, the usual streamed plans. */
static void test_upload_in_run(void **state)
{
    (void)state;
    for (int gi = 0; gi < 4; gi++) {
        const cuzk_curve cv = GROUPS[gi].curve;
        const cuzk_gpu_group gr = GROUPS[gi].group;
        const size_t n = (size_t)1 << 22, batch = (size_t)1 << 18;
        const cuzk_gpu_msm_config res = {.batch_points = batch, .precompute = 1};
        const cuzk_gpu_msm_config run = {.batch_points = batch, .precompute = 1, .upload_in_run = 1};
        const size_t resident = cuzk_gpu_msm_device_bytes(cv, gr, n, &res, 132);
        cuzk_gpu_msm_plan pl;
        const size_t budgets[2] = {SIZE_MAX, resident};
        for (int bi = 0; bi < 2; bi++) {
            assert_int_equal(plan(cv, gr, n, &run, 132, budgets[bi], &pl), CUZK_OK);
            assert_int_equal(pl.streamed, 1);
            assert_int_equal(pl.resident_points, n);
            assert_int_equal(pl.chunk_points, batch);
            assert_true(pl.device_bytes < resident);
        }
        assert_int_equal(cuzk_gpu_msm_device_bytes(cv, gr, n, &run, 132), pl.device_bytes);
        /* a budget that holds only part of the bases: a kept prefix, as without the flag */
        cuzk_gpu_msm_plan p0;
        assert_int_equal(plan(cv, gr, n, &run, 132, resident / 2, &pl), CUZK_OK);
        assert_int_equal(plan(cv, gr, n, &res, 132, resident / 2, &p0), CUZK_OK);
        assert_int_equal(pl.streamed, 1);
        assert_true(pl.resident_points < n);
        assert_int_equal(pl.resident_points, p0.resident_points);
        assert_int_equal(pl.device_bytes, p0.device_bytes);
        /* copies, or no more points than one batch: resident */
        const cuzk_gpu_msm_config pre = {.batch_points = batch, .precompute = 2, .upload_in_run = 1};
        assert_int_equal(plan(cv, gr, n, &pre, 132, SIZE_MAX, &pl), CUZK_OK);
        assert_int_equal(pl.streamed, 0);
        assert_int_equal(plan(cv, gr, batch, &run, 132, SIZE_MAX, &pl), CUZK_OK);
        assert_int_equal(pl.streamed, 0);
        assert_int_equal(pl.resident_points, batch);
    }
}

/* Automatic copies (precompute 0): none without a limit; with a budget the
 * most copies that fit, growing with the budget, each plan within its
 * budget; BLS12-381 G1 2^24 by hand: the no-copy plan (c = 20, W = 13)
 * costs 2^24 13 + 4 13 2^19 = 245366784 in the model, all 12 windows of
 * c = 22 on copies 2^24 12 + 4 2^21 = 209715200, plus the copies' entry
 * cost 2^24 12 12/144 = 16777216. The run's choice: the
 * copies for 2^24 significant scalars, a run without them (c <= cfb,
 * whose buckets the plan holds) for 2^16. */
static void test_auto_copies(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 24;
    const cuzk_curve cv = CUZK_CURVE_BLS12_381;
    cuzk_gpu_msm_plan pl;
    const size_t r1 = cuzk_gpu_msm_device_bytes(cv, CUZK_GPU_G1, n, NULL, 132);
    const cuzk_gpu_msm_config none = {.precompute = 1}, all = {.precompute = 64};
    assert_int_equal(cuzk_gpu_msm_device_bytes(cv, CUZK_GPU_G1, n, &none, 132), r1);
    const size_t rall = cuzk_gpu_msm_device_bytes(cv, CUZK_GPU_G1, n, &all, 132);
    assert_true(rall >= 12 * n * 96);
    assert_int_equal(plan(cv, CUZK_GPU_G1, n, NULL, 132, SIZE_MAX, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 1);
    assert_int_equal(pl.device_bytes, r1);
    /* the no-copy figure: no copies; the all-copies figure: 12 */
    assert_int_equal(plan(cv, CUZK_GPU_G1, n, NULL, 132, r1, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 1);
    assert_int_equal(pl.device_bytes, r1);
    assert_int_equal(plan(cv, CUZK_GPU_G1, n, NULL, 132, rall, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 12);
    assert_int_equal(pl.device_bytes, rall);
    cuzk_gpu_msm_config c2 = {.device_budget = rall};
    assert_int_equal(cuzk_gpu_msm_device_bytes(cv, CUZK_GPU_G1, n, &c2, 132), rall);
    unsigned prev = 1;
    for (int k = 0; k <= 32; k++) {
        const size_t budget = r1 + (rall - r1) / 32 * (size_t)k;
        assert_int_equal(plan(cv, CUZK_GPU_G1, n, NULL, 132, budget, &pl), CUZK_OK);
        assert_int_equal(pl.streamed, 0);
        assert_true(pl.device_bytes <= budget);
        assert_true(pl.precompute >= prev);
        assert_true(pl.device_bytes >= pl.precompute * n * 96);
        prev = pl.precompute;
    }
    assert_true(prev >= 6);
    /* the cost model's figures and the layout of all copies */
    assert_true(gpu_msm_cost(n, 255, 20, 13) == 245366784.0);
    assert_true(gpu_msm_cost(n, 255, 22, 1) == 209715200.0);
    const gpu_msm_layout p = gpu_msm_layout_for(255, n, &all, 132);
    assert_int_equal(p.pre_t, 12);
    assert_int_equal(p.pre_wg, 1);
    assert_int_equal(p.cmax, 22);
    /* fallback windows: W(c) 2^(c-1) <= 2^21 up to c = 18 (15 x 2^17) */
    assert_int_equal(p.cfb, 18);
    int pre = -1;
    assert_int_equal(gpu_msm_run_window(&p, 255, n, &pre), 22);
    assert_int_equal(pre, 1);
    const unsigned c = gpu_msm_run_window(&p, 255, (size_t)1 << 16, &pre);
    assert_int_equal(pre, 0);
    assert_true(c >= MSM_C_MIN && c <= p.cfb);
    assert_true(p.NBmax >= ((size_t)gpu_msm_windows(255, c) << (c - 1)));
    /* the copies' scratch: 2 x 11 Fp elements a thread, 132 x 512 threads, in the pairs buffer */
    assert_int_equal(p.pre_threads, 132 * 512);
    assert_int_equal(p.pre_scratch, 2 * 11 * 132 * 512);
    assert_true(gpu_msm_pairs_bytes(&p, 192) >= p.pre_scratch * 48);
    /* 12 windows into one set: the sort splits its coarse bins, two pairs sets; without
     * copies one */
    assert_int_equal(p.sort_split, 1);
    assert_true(gpu_msm_pairs_bytes(&p, 192) >= 2 * 8 * p.cap_entries);
    assert_true(p.ncoarse_max >= 1024 + 16384);
    const gpu_msm_layout p1 = gpu_msm_layout_for(255, n, &none, 132);
    assert_int_equal(p1.sort_split, 0);
    assert_int_equal(gpu_msm_pairs_bytes(&p1, 192), 8 * p1.cap_entries);
    const gpu_msm_layout small = gpu_msm_layout_for(255, 100, &all, 132);
    assert_int_equal(small.pre_threads, 100);
    assert_true(gpu_msm_pairs_bytes(&small, 384) >= small.pre_scratch * 96);
    /* a fixed window has no fallback */
    const cuzk_gpu_msm_config fixed = {.precompute = 64, .window_bits = 16};
    assert_int_equal(gpu_msm_layout_for(255, n, &fixed, 132).cfb, 0);
    /* the copies' entry cost (4 / words^2 of an addition): BN254 G1 takes
     * them at 2^20 (t = 14, c = 19: 2^20 14 (1 + 4/64) + 4 2^18 = 16646144
     * < 18874368 at c = 16 without), 2^22 (t = 13, c = 20: 60030976 <
     * 66846720 at c = 17), 2^24 (all 12 windows of c = 22: 2^24 12 (1 + 4/64)
     * + 4 2^21 = 222298112 < 245366784 at c = 20) and 2^26 */
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, (size_t)1 << 20, NULL, 132, (size_t)1 << 40, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 14);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, (size_t)1 << 21, NULL, 132, (size_t)1 << 40, &pl), CUZK_OK);
    assert_true(pl.precompute > 1);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, (size_t)1 << 22, NULL, 132, (size_t)1 << 40, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 13);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, n, NULL, 132, (size_t)1 << 40, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 12);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, (size_t)1 << 26, NULL, 132, (size_t)1 << 40, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 12);
    assert_int_equal(plan(CUZK_CURVE_BLS12_381, CUZK_GPU_G1, (size_t)1 << 20, NULL, 132, (size_t)1 << 40, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 14);
    /* G2: an entry costs 0.06 of an addition more on the copies' path (both
     * curves): 2^20 takes t = 14, c = 19 (2^20 14 1.06 + 4 2^18 = 16609444
     * < 18874368 at c = 16 without), 2^24 all 12 windows of c = 22; on an
     * H200 (147 GB) BLS12-381 2^26 takes 6 copies (12 do not fit: 2 bucket
     * sets), BN254 2^26 all 12 */
    for (int ci = 1; ci <= 2; ci++) {
        assert_int_equal(plan((cuzk_curve)ci, CUZK_GPU_G2, (size_t)1 << 20, NULL, 132, (size_t)1 << 40, &pl), CUZK_OK);
        assert_int_equal(pl.precompute, 14);
        assert_int_equal(plan((cuzk_curve)ci, CUZK_GPU_G2, n, NULL, 132, (size_t)1 << 40, &pl), CUZK_OK);
        assert_int_equal(pl.precompute, 12);
        assert_true(pl.device_bytes >= 12 * n * (ci == 1 ? 128 : 192));
    }
    const size_t h200 = (size_t)147000000000ull;
    assert_int_equal(plan(cv, CUZK_GPU_G2, (size_t)1 << 26, NULL, 132, h200, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 6);
    assert_true(pl.device_bytes <= h200);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G2, (size_t)1 << 26, NULL, 132, h200, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 12);
    /* without a limit (the least resident figure): none */
    assert_int_equal(plan(cv, CUZK_GPU_G2, n, NULL, 132, SIZE_MAX, &pl), CUZK_OK);
    assert_int_equal(pl.precompute, 1);
    /* an explicit t that does not fit is an error, not a silent fallback */
    assert_int_equal(plan(cv, CUZK_GPU_G1, n, &all, 132, rall - 1, &pl), CUZK_ERR_NOMEM);
}

static void test_errors(void **state)
{
    (void)state;
    cuzk_gpu_msm_plan pl;
    cuzk_error e = {0};
    assert_int_equal(plan(CUZK_CURVE_NONE, CUZK_GPU_G1, 10, NULL, 132, SIZE_MAX, &pl), CUZK_ERR_USAGE);
    assert_int_equal(plan(CUZK_CURVE_BN254, (cuzk_gpu_group)3, 10, NULL, 132, SIZE_MAX, &pl),
                     CUZK_ERR_USAGE);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 0, NULL, 132, SIZE_MAX, &pl), CUZK_ERR_USAGE);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 10, NULL, 0, SIZE_MAX, &pl), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_gpu_msm_plan_make(CUZK_CURVE_BN254, CUZK_GPU_G1, 10, NULL, 132, SIZE_MAX, NULL, &e), CUZK_ERR_USAGE);
    const cuzk_gpu_msm_config w3 = {.window_bits = 3}, w23 = {.window_bits = 23}, w22 = {.window_bits = 22};
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 10, &w3, 132, SIZE_MAX, &pl), CUZK_ERR_USAGE);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 10, &w23, 132, SIZE_MAX, &pl), CUZK_ERR_USAGE);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 10, &w22, 132, SIZE_MAX, &pl), CUZK_OK);
    const cuzk_gpu_msm_config sort7 = {.sort = (cuzk_gpu_msm_sort)7};
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, 10, &sort7, 132, SIZE_MAX, &pl), CUZK_ERR_USAGE);
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, (size_t)1 << 31, NULL, 132, SIZE_MAX, &pl),
                     CUZK_ERR_UNSUPPORTED);
    const cuzk_gpu_msm_config pre = {.precompute = 4};
    assert_int_equal(plan(CUZK_CURVE_BN254, CUZK_GPU_G1, (size_t)1 << 29, &pre, 132, SIZE_MAX, &pl),
                     CUZK_ERR_UNSUPPORTED);
    assert_true(strlen(e.msg) > 0);
    assert_int_equal(cuzk_gpu_msm_device_bytes(CUZK_CURVE_BN254, CUZK_GPU_G1, 10, NULL, 0), 0);
    assert_int_equal(cuzk_gpu_msm_device_bytes(CUZK_CURVE_BN254, CUZK_GPU_G1, 0, NULL, 132), 0);
    /* the default budget: free memory minus max(256 MiB, 2 % of the device) */
    assert_int_equal(gpu_default_budget((size_t)100 << 30, (size_t)141 << 30), ((size_t)100 << 30) - ((size_t)141 << 30) / 50);
    assert_int_equal(gpu_default_budget((size_t)10 << 30, (size_t)12 << 30), ((size_t)10 << 30) - ((size_t)256 << 20));
    assert_int_equal(gpu_default_budget((size_t)100 << 20, (size_t)12 << 30), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ntt_bytes),     cmocka_unit_test(test_msm_resident_by_hand),
        cmocka_unit_test(test_layout_pieces), cmocka_unit_test(test_monotone),
        cmocka_unit_test(test_streamed),      cmocka_unit_test(test_upload_in_run),
        cmocka_unit_test(test_auto_copies),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("gpu_plan", tests, NULL, NULL);
}
