/* GPU MSM (G1 and G2, BN254 and BLS12-381) against the CPU MSM (msm/msm.h),
 * compared as group elements (jac_eq): uniform and witness-like scalars,
 * edge scalars (0, 1, r-1, small), infinity bases, repeated bases (bucket
 * doublings), forced window sizes, tiny sort batches (multi-batch bucket
 * accumulation and the segment fix-up), host and device scalars; all of it
 * with both bucket accumulations (XYZZ and batch affine).
 * Exits 77 ("skipped") when there is no CUDA device. */
#include "util/rng.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "gpu/device/gpu_mem.h"
#include "msm/msm.h"
#include "util/threadpool.h"

static cuzk_pool *g_pool;

enum dist { D_UNIFORM, D_WITNESS, D_EDGE, D_SMALL };

/* Per-group glue, instantiated by macro. */
#define MSM_GLUE(G, FR)                                                                             \
    static void G##_scalars(void *v, size_t n, enum dist d, uint64_t seed)                          \
    {                                                                                               \
        FR##_t *s = v;                                                                              \
        for (size_t i = 0; i < n; i++) {                                                            \
            uint64_t x = cuzk_splitmix64(&seed);                                                           \
            memset(&s[i], 0, sizeof s[i]);                                                          \
            int kind = 2; /* 0: zero, 1: one, 2: uniform, 3: r-1, 4: small */                       \
            if (d == D_WITNESS) kind = x % 10 < 5 ? 0 : (x % 10 < 9 ? 1 : 2);                       \
            if (d == D_EDGE) kind = (int)(x % 5);                                                   \
            if (d == D_SMALL) kind = 4;                                                             \
            if (kind == 1) s[i].l[0] = 1;                                                           \
            if (kind == 2) {                                                                        \
                FR##_t m;                                                                           \
                assert_true(FR##_random(&m));                                                       \
                FR##_from_mont(&s[i], &m);                                                          \
            }                                                                                       \
            if (kind == 3) {                                                                        \
                s[i] = FR##_MODULUS;                                                                \
                s[i].l[0] -= 1;                                                                     \
            }                                                                                       \
            if (kind == 4) s[i].l[0] = cuzk_splitmix64(&seed) % 40;                                        \
        }                                                                                           \
    }                                                                                               \
    /* Random multiples of the generator; some infinities and repeats. */                           \
    static void G##_bases(void *v, size_t n, uint64_t seed)                                         \
    {                                                                                               \
        G##_affine_t *b = v;                                                                        \
        FR##_t *k = malloc(n * sizeof *k);                                                          \
        assert_non_null(k);                                                                         \
        for (size_t i = 0; i < n; i++) {                                                            \
            memset(&k[i], 0, sizeof k[i]);                                                          \
            k[i].l[0] = cuzk_splitmix64(&seed);                                                            \
            k[i].l[1] = cuzk_splitmix64(&seed);                                                            \
        }                                                                                           \
        cuzk_error e = {0};                                                                         \
        assert_int_equal(G##_batch_mul_fixed(b, &G##_GENERATOR, k, n, g_pool, &e), CUZK_OK);        \
        free(k);                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                            \
            uint64_t x = cuzk_splitmix64(&seed) % 64;                                                      \
            if (x == 0) G##_affine_set_inf(&b[i]);                                                  \
            if (x == 1 && i > 0) b[i] = b[i - 1];                                                   \
        }                                                                                           \
    }                                                                                               \
    static void G##_cpu(void *out, const void *bases, const void *sc, size_t n)                     \
    {                                                                                               \
        cuzk_error e = {0};                                                                         \
        assert_int_equal(G##_msm(out, bases, sc, n, g_pool, &e), CUZK_OK);                          \
    }                                                                                               \
    static bool G##_eq(const void *a, const void *b) { return G##_jac_eq(a, b); }

MSM_GLUE(bn254_g1, bn254_fr)
MSM_GLUE(bn254_g2, bn254_fr)
MSM_GLUE(bls12_381_g1, bls12_381_fr)
MSM_GLUE(bls12_381_g2, bls12_381_fr)

typedef struct {
    const char *name;
    cuzk_curve curve;
    cuzk_gpu_group group;
    size_t aff, jac;
    void (*scalars)(void *, size_t, enum dist, uint64_t);
    void (*bases)(void *, size_t, uint64_t);
    void (*cpu)(void *, const void *, const void *, size_t);
    bool (*eq)(const void *, const void *);
} group_ops;

#define GROUP(G, C, GR)                                                                             \
    {#G, C, GR, sizeof(G##_affine_t), sizeof(G##_jac_t), G##_scalars, G##_bases, G##_cpu, G##_eq}

static const group_ops GROUPS[] = {
    GROUP(bn254_g1, CUZK_CURVE_BN254, CUZK_GPU_G1),
    GROUP(bn254_g2, CUZK_CURVE_BN254, CUZK_GPU_G2),
    GROUP(bls12_381_g1, CUZK_CURVE_BLS12_381, CUZK_GPU_G1),
    GROUP(bls12_381_g2, CUZK_CURVE_BLS12_381, CUZK_GPU_G2),
};

static const char *DIST_NAMES[] = {"uniform", "witness", "edge", "small"};

/* One GPU run against the CPU result. */
/* n random bases of g (seed) and room for n scalars, both freed by the
 * caller. */
static void new_inputs(const group_ops *g, size_t n, uint64_t seed, uint8_t **bases, uint8_t **sc)
{
    *bases = malloc(n * g->aff);
    *sc = malloc(n * 32);
    assert_non_null(*bases);
    assert_non_null(*sc);
    g->bases(*bases, n, seed);
}

static void check_run(const group_ops *g, cuzk_gpu_msm *m, const void *bases, const void *sc, size_t n,
                      int on_device, const char *what)
{
    uint8_t ref[1024], got[1024];
    g->cpu(ref, bases, sc, n);
    memset(got, 0x5a, sizeof got);
    cuzk_error e = {0};
    cuzk_status st;
    if (on_device) {
        void *d = NULL;
        assert_int_equal(cuzk_gpu_dev_alloc(&d, n * 32, 0, &e), CUZK_OK);
        assert_int_equal(cuzk_gpu_copy(d, sc, n * 32, NULL, &e), CUZK_OK);
        assert_int_equal(cuzk_gpu_stream_sync(NULL, &e), CUZK_OK);
        st = cuzk_gpu_msm_run(m, got, d, n, 1, NULL, &e);
        cuzk_gpu_dev_free(d, 0);
    } else {
        st = cuzk_gpu_msm_run(m, got, sc, n, 0, NULL, &e);
    }
    if (st) fprintf(stderr, "%s %s: %s\n", g->name, what, e.msg);
    assert_int_equal(st, CUZK_OK);
    if (!g->eq(got, ref)) fail_msg("%s: GPU MSM differs from CPU (%s, n=%zu, c=%u)", g->name, what, n, cuzk_gpu_msm_last_window(m));
}

static void run_group(const group_ops *g, size_t nmax, uint64_t seed)
{
    uint8_t *bases = malloc(nmax * g->aff), *sc = malloc(nmax * 32);
    assert_non_null(bases);
    assert_non_null(sc);
    g->bases(bases, nmax, seed);
    char what[128];
    cuzk_error e = {0};

    /* Default configuration, all distributions and several sizes. */
    cuzk_gpu_msm *m = NULL;
    cuzk_status st = cuzk_gpu_msm_create(&m, g->curve, g->group, bases, nmax, 0, 0, NULL, &e);
    if (st) fprintf(stderr, "%s\n", e.msg);
    assert_int_equal(st, CUZK_OK);
    static const size_t fr[] = {1, 2, 3, 31, 100, 1000};
    for (int d = 0; d < 4; d++) {
        for (size_t i = 0; i < sizeof fr / sizeof fr[0] + 1; i++) {
            size_t n = i < sizeof fr / sizeof fr[0] ? fr[i] : nmax;
            if (n > nmax) continue;
            g->scalars(sc, n, (enum dist)d, seed + 17 * i + d);
            snprintf(what, sizeof what, "default %s", DIST_NAMES[d]);
            check_run(g, m, bases, sc, n, (int)(i & 1), what);
        }
    }
    /* n = 0 gives infinity (compared with the CPU's n = 0 result). */
    check_run(g, m, bases, sc, 0, 0, "n=0");
    cuzk_gpu_msm_destroy(m);

    /* Forced windows, no 0/1 split, and tiny batches (many segments cross
     * batch and bucket borders). */
    static const unsigned windows[] = {4, 7, 11, 16};
    for (size_t wi = 0; wi < sizeof windows / sizeof windows[0]; wi++) {
        for (int split = 0; split < 2; split++) {
            cuzk_gpu_msm_config cfg = {.window_bits = windows[wi], .batch_points = wi & 1 ? 1000 : 0, .no_split_ones = split};
            m = NULL;
            st = cuzk_gpu_msm_create(&m, g->curve, g->group, bases, nmax, 0, 0, &cfg, &e);
            if (st) fprintf(stderr, "%s\n", e.msg);
            assert_int_equal(st, CUZK_OK);
            for (int d = 0; d < 4; d += 1 + (windows[wi] > 8)) {
                g->scalars(sc, nmax, (enum dist)d, seed * 3 + wi * 7 + d);
                snprintf(what, sizeof what, "c=%u batch=%zu no_split=%d %s", cfg.window_bits, cfg.batch_points, split,
                         DIST_NAMES[d]);
                check_run(g, m, bases, sc, nmax, d & 1, what);
            }
            cuzk_gpu_msm_destroy(m);
        }
    }
    free(bases);
    free(sc);
}

/* CUZK_GPU_TEST_MAX_LG caps the sizes (quick runs under compute-sanitizer). */
static size_t cap(unsigned lg)
{
    const char *v = getenv("CUZK_GPU_TEST_MAX_LG");
    unsigned m = v && atoi(v) > 0 ? (unsigned)atoi(v) : 64;
    return (size_t)1 << (lg < m ? lg : m);
}

static void test_bn254_g1(void **state) { (void)state; run_group(&GROUPS[0], cap(14), 1); }
static void test_bn254_g2(void **state) { (void)state; run_group(&GROUPS[1], cap(11), 2); }
static void test_bls12_381_g1(void **state) { (void)state; run_group(&GROUPS[2], cap(14), 3); }
static void test_bls12_381_g2(void **state) { (void)state; run_group(&GROUPS[3], cap(11), 4); }

/* A larger G1 MSM where the automatic window is a realistic one (and a
 * skewed one). */
static void test_large_g1(void **state)
{
    (void)state;
    for (int gi = 0; gi < 4; gi += 2) {
        const group_ops *g = &GROUPS[gi];
        size_t n = cap(18);
        uint8_t *bases, *sc;
        new_inputs(g, n, 99 + gi, &bases, &sc);
        cuzk_error e = {0};
        cuzk_gpu_msm *m = NULL;
        assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, n, 0, 0, NULL, &e), CUZK_OK);
        g->scalars(sc, n, D_UNIFORM, 5);
        check_run(g, m, bases, sc, n, 0, "large uniform");
        g->scalars(sc, n, D_WITNESS, 6);
        check_run(g, m, bases, sc, n, 1, "large witness");
        /* small scalars: all entries in window 0's first 40 buckets (sort
         * cursor contention, long fix-up runs) */
        g->scalars(sc, n, D_SMALL, 7);
        check_run(g, m, bases, sc, n, 0, "large small");
        cuzk_gpu_msm_destroy(m);
        free(bases);
        free(sc);
    }
}

/* Every placement path of the bucket sort (cuzk_gpu_msm_config.sort:
 * window-major coarse bins then shared-memory staging, all bins through the
 * overflow pass, the one-pass scatter) against the CPU, for the
 * distributions that fill bins evenly, sparsely and all in a few buckets,
 * with one batch and with many. */
static void test_sort_paths(void **state)
{
    (void)state;
    static const cuzk_gpu_msm_sort modes[] = {CUZK_GPU_MSM_SORT_WINDOW, CUZK_GPU_MSM_SORT_OVERFLOW,
                                              CUZK_GPU_MSM_SORT_SCATTER};
    static const char *mode_names[] = {"window", "overflow", "scatter"};
    for (int gi = 0; gi < 4; gi += 2) {
        const group_ops *g = &GROUPS[gi];
        size_t n = cap(16);
        uint8_t *bases, *sc;
        new_inputs(g, n, 41 + gi, &bases, &sc);
        for (int bi = 0; bi < 2; bi++) {
            for (int mi = 0; mi < 3; mi++) {
                cuzk_gpu_msm_config cfg = {.batch_points = bi ? 3000 : 0, .no_split_ones = bi, .sort = modes[mi]};
                cuzk_error e = {0};
                cuzk_gpu_msm *m = NULL;
                assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, n, 0, 0, &cfg, &e), CUZK_OK);
                for (int d = 0; d < 4; d++) {
                    char what[96];
                    g->scalars(sc, n, (enum dist)d, 77 + d);
                    snprintf(what, sizeof what, "sort=%s batch=%zu no_split=%d %s", mode_names[mi], cfg.batch_points,
                             bi, DIST_NAMES[d]);
                    check_run(g, m, bases, sc, n, d & 1, what);
                }
                cuzk_gpu_msm_destroy(m);
            }
        }
        free(bases);
        free(sc);
    }
}

/* Bases mostly at infinity, as in the B query of a Groth16 key (a quarter
 * live) and all of them: the live mask of a resident handle drops the
 * scalars on infinity from the ones list and the sort (a run whose
 * significant scalars all sit on infinity runs no Pippenger at all), for
 * every sort path, with and without the 0/1 split, for sizes that end
 * inside a mask word. */
static void test_infinity_bases(void **state)
{
    (void)state;
    static const cuzk_gpu_msm_sort modes[] = {CUZK_GPU_MSM_SORT_AUTO, CUZK_GPU_MSM_SORT_WINDOW,
                                              CUZK_GPU_MSM_SORT_SCATTER};
    for (int gi = 0; gi < 4; gi++) {
        const group_ops *g = &GROUPS[gi];
        const size_t n = cap(g->group == CUZK_GPU_G1 ? 13 : 11);
        uint8_t *bases, *sc;
        new_inputs(g, n, 51 + gi, &bases, &sc);
        for (int live = 1; live >= 0; live--) {
            /* live = 1: about a quarter of the bases stay, then none */
            uint64_t seed = 1234 + gi;
            for (size_t i = 0; i < n; i++)
                if (!live || cuzk_splitmix64(&seed) % 4 != 0) memset(bases + i * g->aff, 0, g->aff);
            for (int mi = 0; mi < 3; mi++) {
                for (int split = 0; split < 2; split++) {
                    cuzk_gpu_msm_config cfg = {.no_split_ones = split, .sort = modes[mi]};
                    cuzk_error e = {0};
                    cuzk_gpu_msm *m = NULL;
                    assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, n, 0, 0, &cfg, &e), CUZK_OK);
                    /* all, sizes ending inside a mask word, all but 5 */
                    static const size_t ns[] = {0, 33, 1000, 0};
                    for (int d = 0; d < 4; d++) {
                        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
                            const size_t nn = k == 0 ? n : k == 3 ? n - 5 : (ns[k] < n ? ns[k] : n);
                            char what[96];
                            g->scalars(sc, nn, (enum dist)d, 5 + 3 * d + k);
                            snprintf(what, sizeof what, "%s bases live, sort %d, no_split=%d %s n=%zu",
                                     live ? "1/4 of the" : "no", (int)modes[mi], split, DIST_NAMES[d], nn);
                            check_run(g, m, bases, sc, nn, (int)((d + k) & 1), what);
                        }
                    }
                    cuzk_gpu_msm_destroy(m);
                }
            }
        }
        free(bases);
        free(sc);
    }
}

static int device_sms(void)
{
    char name[128];
    size_t mem;
    int sms = 0;
    cuzk_error e = {0};
    if (cuzk_gpu_device_info(0, name, sizeof name, &mem, &sms, &e) != CUZK_OK) return 0;
    return sms;
}

/* Budget that forces a streamed handle with about half the bases resident
 * (the workspaces, fixed cost at small sizes, stay in the budget). */
static size_t half_resident_budget(const group_ops *g, size_t n, const cuzk_gpu_msm_config *cfg)
{
    return cuzk_gpu_msm_device_bytes(g->curve, g->group, n, cfg, device_sms()) - n / 2 * g->aff;
}

/* Streamed handles (bases larger than the budget): chunks of 1024 points,
 * no / some / all bases resident, host (pageable and pinned) and device
 * scalars, run_many against the CPU per vector; a budget below the minimal
 * streaming plan is a clean CUZK_ERR_NOMEM. */
static void run_streamed(const group_ops *g, size_t nmax, uint64_t seed)
{
    uint8_t *bases = malloc(nmax * g->aff), *sc = malloc(nmax * 32);
    assert_non_null(bases);
    assert_non_null(sc);
    g->bases(bases, nmax, seed);
    cuzk_error e = {0};
    char what[160];
    cuzk_gpu_msm_config cfg = {.batch_points = 1024};
    cuzk_gpu_msm_plan pl;
    /* the least resident figure for this batch size (no limit: no
     * precomputed copies; any larger budget below it must stream), then the
     * smallest budget that plans (bisection: plan_for is pure host
     * arithmetic) */
    assert_int_equal(cuzk_gpu_msm_plan_for(g->curve, g->group, nmax, &(cuzk_gpu_msm_config){.batch_points = 1024,
                                                                                      .device_budget = SIZE_MAX},
                                           0, &pl, &e),
                     CUZK_OK);
    assert_int_equal(pl.streamed, 0);
    const size_t resident = pl.device_bytes;
    size_t lo = 1, hi = resident;
    cfg.device_budget = lo;
    assert_int_equal(cuzk_gpu_msm_plan_for(g->curve, g->group, nmax, &cfg, 0, &pl, &e), CUZK_ERR_NOMEM);
    cuzk_gpu_msm *m = NULL;
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, nmax, 0, 0, &cfg, &e), CUZK_ERR_NOMEM);
    assert_null(m);
    assert_non_null(strstr(e.msg, "budget"));
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        cfg.device_budget = mid;
        if (cuzk_gpu_msm_plan_for(g->curve, g->group, nmax, &cfg, 0, &pl, &e) == CUZK_OK) hi = mid;
        else lo = mid;
    }
    const size_t budgets[3] = {hi, hi + (resident - hi) / 2, resident - 1};
    for (int bi = 0; bi < 3; bi++) {
        cfg.device_budget = budgets[bi];
        cfg.pin_host_bases = bi == 1;
        m = NULL;
        cuzk_status st = cuzk_gpu_msm_create(&m, g->curve, g->group, bases, nmax, 0, 0, &cfg, &e);
        if (st) fprintf(stderr, "%s\n", e.msg);
        assert_int_equal(st, CUZK_OK);
        cuzk_gpu_msm_get_plan(m, &pl);
        assert_int_equal(pl.streamed, 1);
        assert_true(pl.device_bytes <= budgets[bi]);
        assert_int_equal(pl.device_bytes, cuzk_gpu_msm_device_bytes(g->curve, g->group, nmax, &cfg, device_sms()));
        assert_true(pl.chunk_points <= 1024);
        if (bi == 0) assert_int_equal(pl.resident_points, 0);
        if (bi == 1) assert_true(pl.resident_points > 0 && pl.resident_points < nmax);
        if (bi == 1) { /* the kept prefix is uploaded by the runs: a first one within it, then all */
            const size_t n = pl.resident_points / 2 ? pl.resident_points / 2 : 1;
            g->scalars(sc, n, D_UNIFORM, seed + 5);
            check_run(g, m, bases, sc, n, 0, "streamed, a first run within the kept prefix");
        }
        const size_t ns[] = {nmax, nmax - 1, 1000, 3000, 1};
        for (int d = 0; d < 4; d++) {
            for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
                size_t n = ns[i] < nmax ? ns[i] : nmax;
                g->scalars(sc, n, (enum dist)d, seed + 31 * i + d + 7 * bi);
                snprintf(what, sizeof what, "streamed chunk=%zu resident=%zu/%zu %s", pl.chunk_points,
                         pl.resident_points, nmax, DIST_NAMES[d]);
                check_run(g, m, bases, sc, n, (int)((i + d) & 1), what);
            }
        }
        /* pinned host scalars */
        void *pinned = NULL;
        assert_int_equal(cuzk_gpu_host_alloc(&pinned, nmax * 32, &e), CUZK_OK);
        g->scalars(pinned, nmax, D_UNIFORM, seed + 99);
        check_run(g, m, bases, pinned, nmax, 0, "streamed pinned scalars");
        cuzk_gpu_host_free(pinned);
        check_run(g, m, bases, sc, 0, 0, "streamed n=0");
        cuzk_gpu_msm_destroy(m);
    }
    /* a fixed window, streamed */
    cfg.window_bits = 7;
    cfg.device_budget = budgets[1];
    cfg.pin_host_bases = 0;
    m = NULL;
    assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, nmax, 0, 0, &cfg, &e), CUZK_OK);
    g->scalars(sc, nmax, D_EDGE, seed + 5);
    check_run(g, m, bases, sc, nmax, 1, "streamed c=7 edge");
    cuzk_gpu_msm_destroy(m);
    /* upload_in_run (no copies: with them the plan stays resident) where the
     * resident plan fits: streamed, every base kept,
     * uploaded batch by batch by the first run (a first run of all the
     * points, of part of them, device or host scalars), then used in place;
     * pageable and page-locked bases; or uploaded by cuzk_gpu_msm_prefetch
     * before the first run (pre 1; a second call has nothing to do) */
    for (int pin = 0; pin < 2; pin++) {
        for (int part = 0; part < 4; part++) {
            const int pre = part >= 2;
            cuzk_gpu_msm_config cu = {.batch_points = 1024, .precompute = 1, .upload_in_run = 1, .pin_host_bases = pin};
            m = NULL;
            assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, nmax, 0, 0, &cu, &e), CUZK_OK);
            for (int k = 0; k < 2 * pre; k++) assert_int_equal(cuzk_gpu_msm_prefetch(m, &e), CUZK_OK);
            cuzk_gpu_msm_get_plan(m, &pl);
            assert_int_equal(pl.streamed, 1);
            assert_int_equal(pl.resident_points, nmax);
            assert_true(pl.device_bytes < resident);
            assert_int_equal(pl.device_bytes, cuzk_gpu_msm_device_bytes(g->curve, g->group, nmax, &cu, device_sms()));
            for (int d = 0; d < 4; d++) {
                const size_t n = (part & 1) && d == 0 ? nmax / 2 + 1 : nmax - (size_t)d;
                g->scalars(sc, n, (enum dist)d, seed + 41 * d + 3 * pin + part);
                snprintf(what, sizeof what, "upload in run (pin %d, prefetch %d), run %d of n=%zu %s", pin, pre, d, n,
                         DIST_NAMES[d]);
                check_run(g, m, bases, sc, n, (d + pin) & 1, what);
            }
            cuzk_gpu_msm_destroy(m);
        }
    }
    /* a budget half a chunk short of every base: the kept prefix (whole
     * chunks, the rest's two chunk buffers beside it; G2 at 2^12: one
     * chunk) prefetched, the rest streamed by each run */
    {
        cuzk_gpu_msm_config cu = {.batch_points = 1024, .precompute = 1, .upload_in_run = 1, .pin_host_bases = 1};
        cu.device_budget = cuzk_gpu_msm_device_bytes(g->curve, g->group, nmax, &cu, device_sms()) - 512 * g->aff;
        m = NULL;
        assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, nmax, 0, 0, &cu, &e), CUZK_OK);
        cuzk_gpu_msm_get_plan(m, &pl);
        assert_int_equal(pl.streamed, 1);
        assert_true(pl.resident_points > 0 && pl.resident_points < nmax);
        assert_int_equal(cuzk_gpu_msm_prefetch(m, &e), CUZK_OK);
        for (int d = 0; d < 2; d++) {
            g->scalars(sc, nmax, (enum dist)d, seed + 91 + d);
            snprintf(what, sizeof what, "prefix prefetched, the rest streamed, run %d", d);
            check_run(g, m, bases, sc, nmax, d, what);
        }
        cuzk_gpu_msm_destroy(m);
    }
    /* staged uploads through one shared stager whose chunks (300 bases) are
     * smaller than a batch (1024), so every upload is split in pieces: two
     * handles made together (a prefix kept and the rest streamed; every
     * base kept, prefetched while the other is queued), runs alternating */
    {
        cuzk_gpu_msm_stager *sg = NULL;
        assert_int_equal(cuzk_gpu_msm_stager_create(&sg, 300 * g->aff, 0, &e), CUZK_OK);
        cuzk_gpu_msm_config c1 = {.batch_points = 1024, .precompute = 1, .upload_in_run = 1, .stager = sg};
        cuzk_gpu_msm_config c2 = c1;
        c1.device_budget = cuzk_gpu_msm_device_bytes(g->curve, g->group, nmax, &c1, device_sms()) - 512 * g->aff;
        cuzk_gpu_msm *m1 = NULL, *m2 = NULL;
        assert_int_equal(cuzk_gpu_msm_create(&m1, g->curve, g->group, bases, nmax, 0, 0, &c1, &e), CUZK_OK);
        assert_int_equal(cuzk_gpu_msm_create(&m2, g->curve, g->group, bases, nmax, 0, 0, &c2, &e), CUZK_OK);
        cuzk_gpu_msm_get_plan(m1, &pl);
        assert_true(pl.streamed && pl.resident_points > 0 && pl.resident_points < nmax);
        assert_int_equal(cuzk_gpu_msm_prefetch(m2, &e), CUZK_OK);
        for (int d = 0; d < 4; d++) {
            g->scalars(sc, nmax - (size_t)d, (enum dist)d, seed + 131 + d);
            snprintf(what, sizeof what, "staged, shared stager, handle %d run %d %s", 1 + (d & 1), d / 2, DIST_NAMES[d]);
            check_run(g, d & 1 ? m2 : m1, bases, sc, nmax - (size_t)d, d & 1, what);
        }
        cuzk_gpu_msm_destroy(m1);
        cuzk_gpu_msm_destroy(m2);
        cuzk_gpu_msm_stager_destroy(sg);
        cuzk_error e0 = {0}; /* e holds this test's expected NOMEM above (errors keep the first) */
        assert_int_equal(cuzk_gpu_msm_stager_create(&sg, 0, 0, &e0), CUZK_ERR_USAGE);
    }
    /* bases on the device: nothing to upload, the resident plan (no copies
     * asked, which would make it resident whatever the flag) */
    void *dbases = NULL;
    assert_int_equal(cuzk_gpu_dev_alloc(&dbases, nmax * g->aff, 0, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_copy(dbases, bases, nmax * g->aff, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_stream_sync(NULL, &e), CUZK_OK);
    m = NULL;
    assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, dbases, nmax, 1, 0,
                                         &(cuzk_gpu_msm_config){.batch_points = 1024, .precompute = 1, .upload_in_run = 1}, &e),
                     CUZK_OK);
    cuzk_gpu_msm_get_plan(m, &pl);
    assert_int_equal(pl.streamed, 0);
    g->scalars(sc, nmax, D_UNIFORM, seed + 77);
    check_run(g, m, bases, sc, nmax, 1, "upload in run, bases on the device");
    cuzk_gpu_msm_destroy(m);
    cuzk_gpu_dev_free(dbases, 0);
    free(bases);
    free(sc);
}

/* run_many against the CPU per vector (empty vectors among them), host and
 * device scalars, resident and streamed handles. */
static void run_many_group(const group_ops *g, size_t nmax, uint64_t seed)
{
    enum { K = 5 };
    uint8_t *bases = malloc(nmax * g->aff), *sc = malloc(K * nmax * 32);
    assert_non_null(bases);
    assert_non_null(sc);
    g->bases(bases, nmax, seed);
    const size_t ns[K] = {nmax, 0, nmax - 3, 1, nmax / 2};
    const uint8_t *vec[K];
    void *dvec[K];
    cuzk_error e = {0};
    for (int i = 0; i < K; i++) {
        g->scalars(sc + i * nmax * 32, ns[i], (enum dist)(i % 4), seed + i);
        vec[i] = sc + i * nmax * 32;
        assert_int_equal(cuzk_gpu_dev_alloc(&dvec[i], nmax * 32, 0, &e), CUZK_OK);
        assert_int_equal(cuzk_gpu_copy(dvec[i], vec[i], ns[i] * 32, NULL, &e), CUZK_OK);
    }
    assert_int_equal(cuzk_gpu_stream_sync(NULL, &e), CUZK_OK);
    uint8_t ref[K][1024];
    for (int i = 0; i < K; i++) g->cpu(ref[i], bases, vec[i], ns[i]);
    for (int mode = 0; mode < 2; mode++) {
        cuzk_gpu_msm_config cfg = {.batch_points = nmax / 8};
        if (mode) cfg.device_budget = half_resident_budget(g, nmax, &cfg);
        cuzk_gpu_msm *m = NULL;
        cuzk_status st = cuzk_gpu_msm_create(&m, g->curve, g->group, bases, nmax, 0, 0, &cfg, &e);
        if (st) fprintf(stderr, "%s\n", e.msg);
        assert_int_equal(st, CUZK_OK);
        cuzk_gpu_msm_plan pl;
        cuzk_gpu_msm_get_plan(m, &pl);
        assert_int_equal(pl.streamed, mode);
        void *stream = NULL;
        assert_int_equal(cuzk_gpu_stream_create(&stream, 0, &e), CUZK_OK);
        for (int on_dev = 0; on_dev < 2; on_dev++) {
            uint8_t *got = malloc(K * g->jac);
            assert_non_null(got);
            memset(got, 0x5a, K * g->jac);
            st = cuzk_gpu_msm_run_many(m, got, on_dev ? (const uint64_t *const *)dvec : (const uint64_t *const *)vec, ns,
                                       K, on_dev, on_dev ? stream : NULL, &e);
            if (st) fprintf(stderr, "%s\n", e.msg);
            assert_int_equal(st, CUZK_OK);
            for (int i = 0; i < K; i++)
                if (!g->eq(got + i * g->jac, ref[i]))
                    fail_msg("%s: run_many result %d differs (streamed=%d, device scalars=%d)", g->name, i, mode, on_dev);
            /* and the same as run() one by one */
            uint8_t one[1024];
            assert_int_equal(cuzk_gpu_msm_run(m, one, (const uint64_t *)vec[2], ns[2], 0, NULL, &e), CUZK_OK);
            assert_true(g->eq(one, got + 2 * g->jac));
            free(got);
        }
        cuzk_gpu_stream_destroy(stream);
        cuzk_gpu_msm_destroy(m);
    }
    for (int i = 0; i < K; i++) cuzk_gpu_dev_free(dvec[i], 0);
    free(bases);
    free(sc);
}

/* Streaming needs bases well above the fixed workspaces: at least 2^12
 * (G1 also under CUZK_GPU_TEST_MAX_LG; G2 only when the cap allows). */
static void test_streamed(void **state)
{
    (void)state;
    const size_t k4 = 4096;
    run_streamed(&GROUPS[0], cap(14) > k4 ? cap(14) : k4, 11);
    run_streamed(&GROUPS[2], cap(14) > k4 ? cap(14) : k4, 12);
    if (cap(12) == k4) {
        run_streamed(&GROUPS[1], k4, 13);
        run_streamed(&GROUPS[3], k4, 14);
    }
}

static void test_run_many(void **state)
{
    (void)state;
    for (int gi = 0; gi < 4; gi++) {
        if ((gi & 1) && cap(11) < 2048) continue;
        run_many_group(&GROUPS[gi], gi & 1 ? 2048 : (cap(13) > 4096 ? cap(13) : 4096), 21 + gi);
    }
}

/* cuzk_gpu_msm_device_bytes is what create + run allocate: free device
 * memory before create and after a run with host scalars, resident and
 * streamed, BLS12-381 G1 at 2^20 and G2 at 2^18 (automatic copies on both
 * when resident); tolerance: the allocator's 2 MiB granularity per
 * allocation. */
static void device_bytes_group(const group_ops *g, size_t n)
{
    uint8_t *bases = malloc(n * g->aff), *sc = malloc(n * 32);
    assert_non_null(bases);
    assert_non_null(sc);
    memset(bases, 0, n * g->aff); /* infinity: the memory, not the sum, is tested */
    g->scalars(sc, n, D_UNIFORM, 3);
    cuzk_error e = {0};
    for (int mode = 0; mode < 2; mode++) {
        cuzk_gpu_msm_config cfg = {.batch_points = n / 8};
        if (mode) cfg.device_budget = half_resident_budget(g, n, &cfg);
        size_t f0, f1, tot;
        assert_int_equal(cuzk_gpu_mem_info(0, &f0, &tot, &e), CUZK_OK);
        cuzk_gpu_msm *m = NULL;
        assert_int_equal(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, n, 0, 0, &cfg, &e), CUZK_OK);
        uint8_t got[1024];
        assert_int_equal(cuzk_gpu_msm_run(m, got, (const uint64_t *)sc, n, 0, NULL, &e), CUZK_OK);
        assert_int_equal(cuzk_gpu_mem_info(0, &f1, &tot, &e), CUZK_OK);
        cuzk_gpu_msm_plan pl;
        cuzk_gpu_msm_get_plan(m, &pl);
        assert_int_equal(pl.streamed, mode);
        /* resident with the default budget: automatic copies (2^20 BLS12-381
         * G1: 1.3 GB of them; 2^18 G2: 0.8 GB), their creation scratch in
         * the plan */
        if (!mode) assert_true(pl.precompute > 1);
        else assert_int_equal(pl.precompute, 1);
        const size_t used = f0 - f1, tol = (size_t)20 * (2u << 20);
        printf("device bytes %s (%s): planned %zu, used %zu\n", g->name, mode ? "streamed" : "resident", pl.device_bytes,
               used);
        if (used + tol < pl.device_bytes || used > pl.device_bytes + tol)
            fail_msg("device bytes %s: planned %zu, allocated %zu (streamed=%d)", g->name, pl.device_bytes, used, mode);
        cuzk_gpu_msm_destroy(m);
    }
    free(bases);
    free(sc);
}

static void test_device_bytes(void **state)
{
    (void)state;
    /* below 2^16 the 2 MiB granularity would hide everything */
    if (cap(20) >= ((size_t)1 << 16)) device_bytes_group(&GROUPS[2], cap(20));
    if (cap(18) >= ((size_t)1 << 16)) device_bytes_group(&GROUPS[3], cap(18));
}

/* Precomputed bases (cfg.precompute = t): t = 2 (two copies, ceil(W/2)
 * bucket sets) and t = 64 (clamped to W: one bucket set), automatic and
 * fixed windows, one batch and many (the copy stride is the handle's point
 * count, not the batch), every distribution and partial n, against the CPU;
 * the device memory estimate holds the copies. */
static void test_precompute(void **state)
{
    (void)state;
    for (int gi = 0; gi < 4; gi++) {
        const group_ops *g = &GROUPS[gi];
        const size_t n = cap(g->group == CUZK_GPU_G1 ? 12 : 10);
        uint8_t *bases, *sc;
        new_inputs(g, n, 61 + gi, &bases, &sc);
        static const unsigned ts[] = {2, 64};
        for (int ti = 0; ti < 2; ti++) {
            for (int k = 0; k < 2; k++) {
                cuzk_gpu_msm_config cfg = {.window_bits = k ? 7 : 0, .batch_points = k ? 1000 : 0, .no_split_ones = k, .precompute = ts[ti]};
                /* the copies are in the estimate (t = 64 is clamped to W >= 12) */
                assert_true(cuzk_gpu_msm_device_bytes(g->curve, g->group, n, &cfg, device_sms()) >= (ti ? 12 : 2) * n * g->aff);
                cuzk_error e = {0};
                cuzk_gpu_msm *m = NULL;
                cuzk_status st = cuzk_gpu_msm_create(&m, g->curve, g->group, bases, n, 0, 0, &cfg, &e);
                if (st) fprintf(stderr, "%s\n", e.msg);
                assert_int_equal(st, CUZK_OK);
                static const size_t sizes[] = {1, 3, 100, 0};
                for (int d = 0; d < 4; d++) {
                    for (int si = 0; si < 4; si++) {
                        /* at most n (CUZK_GPU_TEST_MAX_LG = 6 caps n below 100) */
                        const size_t nn = sizes[si] && sizes[si] < n ? sizes[si] : n;
                        char what[96];
                        g->scalars(sc, nn, (enum dist)d, 91 + 7 * si + d);
                        snprintf(what, sizeof what, "precompute=%u c=%u batch=%zu no_split=%d %s n=%zu", cfg.precompute,
                                 cfg.window_bits, cfg.batch_points, cfg.no_split_ones, DIST_NAMES[d], nn);
                        check_run(g, m, bases, sc, nn, (d + si) & 1, what);
                    }
                }
                cuzk_gpu_msm_destroy(m);
            }
        }
        free(bases);
        free(sc);
    }
}

/* The library self-test (cuzk selftest --gpu) at small sizes: NTT and MSM
 * edge cases against the CPU, including its independent (sum s_i k_i) G
 * reference. */
static void test_selftest(void **state)
{
    (void)state;
    cuzk_gpu_selftest_opts o = {0};
    o.max_lg = (unsigned)__builtin_ctzll(cap(12));
    o.seed = 12345;
    cuzk_gpu_selftest_result r;
    cuzk_error e = {0};
    cuzk_status st = cuzk_gpu_selftest(&o, &r, &e);
    if (st) fprintf(stderr, "%s\n", e.msg);
    assert_int_equal(st, CUZK_OK);
    assert_true(r.checks > 100);
    assert_int_equal(r.failures, 0);
}

static void test_errors(void **state)
{
    (void)state;
    cuzk_error e = {0};
    cuzk_gpu_msm *m = NULL;
    bn254_g1_affine_t b[4];
    for (int i = 0; i < 4; i++) b[i] = bn254_g1_GENERATOR;
    assert_int_equal(cuzk_gpu_msm_create(&m, CUZK_CURVE_NONE, CUZK_GPU_G1, b, 4, 0, 0, NULL, &e), CUZK_ERR_USAGE);
    assert_null(m);
    memset(&e, 0, sizeof e);
    cuzk_gpu_msm_config bad = {.window_bits = 30};
    assert_int_equal(cuzk_gpu_msm_create(&m, CUZK_CURVE_BN254, CUZK_GPU_G1, b, 4, 0, 0, &bad, &e), CUZK_ERR_USAGE);
    memset(&e, 0, sizeof e);
    cuzk_gpu_msm_config bad_sort = {.sort = (cuzk_gpu_msm_sort)7};
    assert_int_equal(cuzk_gpu_msm_create(&m, CUZK_CURVE_BN254, CUZK_GPU_G1, b, 4, 0, 0, &bad_sort, &e), CUZK_ERR_USAGE);
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gpu_msm_create(&m, CUZK_CURVE_BN254, CUZK_GPU_G1, b, 4, 0, 0, NULL, &e), CUZK_OK);
    uint64_t sc[5 * 4] = {0};
    bn254_g1_jac_t r;
    assert_int_equal(cuzk_gpu_msm_run(m, &r, sc, 5, 0, NULL, &e), CUZK_ERR_USAGE); /* n > npoints */
    assert_true(strlen(e.msg) > 0);
    cuzk_gpu_msm_destroy(m);
    assert_true(cuzk_gpu_msm_device_bytes(CUZK_CURVE_BLS12_381, CUZK_GPU_G1, (size_t)1 << 24, NULL, device_sms()) > ((size_t)1 << 24) * 96);
}

int main(void)
{
    if (cuzk_gpu_device_count() == 0) {
        printf("no CUDA device: skipping GPU MSM tests\n");
        return 77;
    }
    g_pool = cuzk_pool_create(0);
    /* CUZK_GPU_TEST_FILTER: run only the tests matching the pattern (quick
     * compute-sanitizer runs of one part) */
    const char *filter = getenv("CUZK_GPU_TEST_FILTER");
    if (filter && *filter) cmocka_set_test_filter(filter);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bn254_g1),
        cmocka_unit_test(test_bls12_381_g1),
        cmocka_unit_test(test_bn254_g2),
        cmocka_unit_test(test_bls12_381_g2),
        cmocka_unit_test(test_large_g1),
        cmocka_unit_test(test_sort_paths),
        cmocka_unit_test(test_infinity_bases),
        cmocka_unit_test(test_precompute),
        cmocka_unit_test(test_selftest),
        cmocka_unit_test(test_streamed),
        cmocka_unit_test(test_run_many),
        cmocka_unit_test(test_device_bytes),
    };
    int rc = cmocka_run_group_tests_name("gpu_msm", tests, NULL, NULL);
    cuzk_pool_destroy(g_pool);
    return rc;
}
