/* G2 against G1 with and without precomputed copies, in one process: at
 * 2^LG points of CURVE, the G1 MSM with the default configuration, then the
 * G2 MSM once per copy count T given (0: the automatic choice, 1: none,
 * t >= 2: t copies, the window the plan picks for t), the same scalars
 * (device resident) for all: uniform, and witness-like (50 % 0, 40 % 1,
 * 10 % uniform). Bases: 2^16 distinct points repeated (the convention of
 * cuzk bench kernels).
 *
 * Per handle: the plan (copies, device bytes), the create time (the copies
 * are made there), per scalar set the window of the run, the median and
 * minimum wall ms of cuzk_gpu_msm_run over REPS runs after a warm-up, the
 * ratio to the G1 run, and a hash of the affine result: every G2 row must
 * give the same point (exit 3 when not). A row whose plan does not fit the
 * device is reported and skipped.
 *
 * Build (after a CUDA build in BUILD), run on the device machine:
 *   cc -O2 -std=c11 -D_GNU_SOURCE -DCUZK_HAVE_CUDA=1 -Iinclude -Isrc -isystem /usr/local/cuda/include \
 *      tools/gpu_msm_copies.c BUILD/src/libcuzk.a /usr/local/cuda/lib64/libcudart_static.a \
 *      -lcjson -lstdc++ -lm -lrt -lpthread -ldl -o gpu_msm_copies
 * usage: gpu_msm_copies bn254|bls12_381 LG REPS g1|nog1 T [T ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "curve/curve_ops.h"
#include "diag/diag.h"
#include "gpu/device/gpu_mem.h"
#include "util/common.h"
#include "util/rng.h"

#define DL 16

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void rand_scalar(uint64_t s[4], const uint64_t r[4], uint64_t *seed)
{
    for (;;) {
        for (int i = 0; i < 4; i++)
            s[i] = cuzk_splitmix64(seed);
        s[3] &= (1ULL << 63) - 1;
        for (int i = 3; i >= 0; i--)
            if (s[i] != r[i]) {
                if (s[i] < r[i])
                    return;
                break;
            }
    }
}

static int fail(const char *what, const cuzk_error *e)
{
    fprintf(stderr, "gpu_msm_copies: %s: %s\n", what, e->msg);
    return 1;
}

static int timed(cuzk_gpu_msm *h, const void *ds, size_t n, unsigned reps, double *t, uint8_t *res,
                 double *med)
{
    cuzk_error e = {0};
    if (cuzk_gpu_msm_run(h, res, ds, n, 1, NULL, &e))
        return fail("run", &e);
    for (unsigned r = 0; r < reps; r++) {
        const double t0 = cuzk_now();
        if (cuzk_gpu_msm_run(h, res, ds, n, 1, NULL, &e))
            return fail("run", &e);
        t[r] = (cuzk_now() - t0) * 1e3;
    }
    qsort(t, reps, sizeof *t, cmp_d);
    *med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    return 0;
}

static const char *SET[2] = {"uniform", "witness"};

/* One handle: create with cfg, time REPS runs of each scalar set ds[k];
 * ms[k] the medians, hash[k] of the affine results (g1ms: the G1 medians
 * for the ratio, NULL for G1 itself). 2: does not fit (reported), 1: error. */
static int one(const cuzk_diag_group *g, const uint8_t *bases, size_t n, void *const ds[2],
               unsigned reps, cuzk_gpu_msm_config cfg, unsigned asked, const double *g1ms,
               double ms[2], uint64_t hash[2])
{
    cuzk_error e = {0};
    cuzk_gpu_msm_plan pl;
    const unsigned lg = (unsigned)__builtin_ctzll(n);
    if (cuzk_gpu_msm_plan_for(g->curve, g->group, n, &cfg, 0, &pl, &e) != CUZK_OK) {
        printf("%-12s 2^%-2u asked t=%-2u: no plan (%s)\n", g->name, lg, asked, e.msg);
        return 2;
    }
    cuzk_gpu_msm *h = NULL;
    const double t0 = cuzk_now();
    if (cuzk_gpu_msm_create(&h, g->curve, g->group, bases, n, 0, 0, &cfg, &e))
        return fail("create", &e);
    const double tc = (cuzk_now() - t0) * 1e3;
    cuzk_gpu_msm_get_plan(h, &pl);
    double *t = calloc(reps, sizeof *t);
    if (!t)
        return 1;
    for (int k = 0; k < 2; k++) {
        uint8_t res[1024], aff[512];
        if (timed(h, ds[k], n, reps, t, res, &ms[k]))
            return 1;
        g->to_affine(aff, res);
        uint64_t hh = 1469598103934665603ULL;
        for (size_t i = 0; i < g->aff; i++)
            hh = (hh ^ aff[i]) * 1099511628211ULL;
        hash[k] = hh;
        char ratio[32] = "";
        if (g1ms)
            snprintf(ratio, sizeof ratio, " G2/G1 %.3f", ms[k] / g1ms[k]);
        printf("%-12s 2^%-2u %-7s asked t=%-2u t=%-2u c=%-2u median %10.3f min %10.3f ms (reps %u) "
               "dev=%.2fGB "
               "create %8.0f ms hash %016llx%s\n",
               g->name, lg, SET[k], asked, pl.precompute, cuzk_gpu_msm_last_window(h), ms[k], t[0],
               reps, pl.device_bytes / 1e9, tc, (unsigned long long)hh, ratio);
        fflush(stdout);
    }
    cuzk_gpu_msm_destroy(h);
    free(t);
    return 0;
}

static uint8_t *make_bases(const cuzk_diag_group *g, size_t n, uint64_t seed, cuzk_pool *pool)
{
    const size_t m = (size_t)1 << DL < n ? (size_t)1 << DL : n;
    uint8_t *dist = malloc(m * g->aff), *b = malloc(n * g->aff);
    uint64_t(*k)[4] = calloc(m, sizeof *k);
    cuzk_error e = {0};
    if (!dist || !b || !k)
        return NULL;
    for (size_t i = 0; i < m; i++) {
        k[i][0] = cuzk_splitmix64(&seed);
        k[i][1] = cuzk_splitmix64(&seed);
    }
    if (g->batch_mul(dist, g->gen, k, m, pool, &e)) {
        fail("bases", &e);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        memcpy(b + i * g->aff, dist + (i % m) * g->aff, g->aff);
    free(dist);
    free(k);
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: gpu_msm_copies bn254|bls12_381 LG REPS g1|nog1 T [T ...]\n");
        return 2;
    }
    const cuzk_curve cv = cuzk_curve_from_name(argv[1]);
    const unsigned lg = (unsigned)atoi(argv[2]), reps = (unsigned)atoi(argv[3]);
    const int with_g1 = !strcmp(argv[4], "g1");
    if (cv == CUZK_CURVE_NONE || lg < 10 || lg > 28 || reps < 1) {
        fprintf(stderr, "gpu_msm_copies: bad curve, size or reps\n");
        return 2;
    }
    const size_t n = (size_t)1 << lg;
    cuzk_error e = {0};
    cuzk_pool *pool = cuzk_pool_create(0);
    const cuzk_curve_ops *ops = cuzk_curve_ops_get(cv);
    const cuzk_diag_group g1 = cuzk_diag_group_of(ops, CUZK_GPU_G1),
                          g2 = cuzk_diag_group_of(ops, CUZK_GPU_G2);
    uint64_t *hs = malloc(n * 32), seed = 1000 + lg;
    void *ds[2] = {NULL, NULL};
    if (!hs)
        return 1;
    for (int k = 0; k < 2; k++) {
        for (size_t i = 0; i < n; i++) {
            uint64_t *x = hs + 4 * i;
            const uint64_t u = k ? cuzk_splitmix64(&seed) % 10 : 9;
            memset(x, 0, 32);
            if (u == 9)
                rand_scalar(x, g1.r, &seed);
            else if (u >= 5)
                x[0] = 1;
        }
        if (cuzk_gpu_dev_alloc(&ds[k], n * 32, 0, &e) ||
            cuzk_gpu_copy(ds[k], hs, n * 32, NULL, &e) || cuzk_gpu_stream_sync(NULL, &e))
            return fail("scalars", &e);
    }
    free(hs);
    double g1ms[2] = {0, 0}, ms[2];
    uint64_t hash[2], h0[2] = {0, 0};
    int rc = 0;
    if (with_g1) {
        uint8_t *b = make_bases(&g1, n, 42, pool);
        if (!b)
            return 1;
        const cuzk_gpu_msm_config cfg = {0};
        if (one(&g1, b, n, ds, reps, cfg, 0, NULL, g1ms, hash) == 1)
            return 1;
        free(b);
    }
    uint8_t *b = make_bases(&g2, n, 43, pool);
    if (!b)
        return 1;
    for (int ai = 5; ai < argc; ai++) {
        const unsigned t = (unsigned)atoi(argv[ai]);
        const cuzk_gpu_msm_config cfg = {.precompute = t};
        const int r = one(&g2, b, n, ds, reps, cfg, t, with_g1 ? g1ms : NULL, ms, hash);
        if (r == 1)
            return 1;
        if (r == 2)
            continue;
        for (int k = 0; k < 2; k++) {
            if (h0[k] && hash[k] != h0[k]) {
                printf("%s 2^%u t=%u %s: the result differs from the first G2 row\n", g2.name, lg,
                       t, SET[k]);
                rc = 3;
            }
            h0[k] = hash[k];
        }
    }
    free(b);
    cuzk_gpu_dev_free(ds[0], 0);
    cuzk_gpu_dev_free(ds[1], 0);
    cuzk_pool_destroy(pool);
    return rc;
}
