/* GPU kernel benchmark (cuzk bench kernels, bench/bench_gpu): MSM (G1/G2,
 * both curves; uniform and witness-like scalars) and Fr NTT over a range of
 * sizes. Bases are resident on the device (uploaded once per size); scalars
 * are device-resident ("uniform", "witness") or in pinned host memory
 * ("unif/host"). Each figure is the median of `reps` timed runs after one
 * warm-up: MSM by wall time of cuzk_gpu_msm_run (it returns with the result
 * on the host), NTT by CUDA events.
 *
 * Bases: 2^16 distinct random multiples of the generator, repeated up to n
 * (the convention of the published GPU MSM figures it is compared with;
 * L2 hits may flatter gathers slightly).
 * Witness-like scalars: 50 % zero, 40 % one, 10 % uniform. */
#include <cuda_runtime_api.h>
#include <stdarg.h>
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
#include "util/threadpool.h"

typedef struct {
    const cuzk_gpu_bench_opts *o;
    char (*rows)[160];
    int nrows, cap;
    int sms; /* SM count of the device (memory plans) */
} bench_ctx;

static void say(const cuzk_gpu_bench_opts *o, const char *fmt, ...) CUZK_PRINTF(2, 3);
static void say(const cuzk_gpu_bench_opts *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cuzk_diag_vsay(o->log, o->log_arg, fmt, ap);
    va_end(ap);
}

/* Records a table row and prints it as it comes. */
static void row(bench_ctx *b, const char *fmt, ...) CUZK_PRINTF(2, 3);
static void row(bench_ctx *b, const char *fmt, ...)
{
    if (b->nrows >= b->cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->rows[b->nrows], sizeof b->rows[0], fmt, ap);
    va_end(ap);
    say(b->o, "%s", b->rows[b->nrows]);
    b->nrows++;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median; also returns the minimum. */
static double median_min(double *v, unsigned n, double *mn)
{
    qsort(v, n, sizeof *v, cmp_d);
    *mn = v[0];
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Uniform raw scalar < r by rejection. */
static void rand_scalar(uint64_t s[4], const uint64_t r[4], uint64_t *seed)
{
    unsigned top = 0;
    while ((r[3] >> top) > 1) top++;
    uint64_t mask = (top >= 63) ? ~0ULL : ((2ULL << top) - 1);
    for (;;) {
        for (int i = 0; i < 4; i++) s[i] = cuzk_splitmix64(seed);
        s[3] &= mask;
        int lt = 0;
        for (int i = 3; i >= 0; i--) {
            if (s[i] != r[i]) {
                lt = s[i] < r[i];
                break;
            }
        }
        if (lt) return;
    }
}

static void make_scalars(uint64_t *s, size_t n, int witness, const uint64_t r[4], uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t *x = s + 4 * i;
        if (witness) {
            uint64_t k = cuzk_splitmix64(&seed) % 10;
            if (k < 5) {
                memset(x, 0, 32);
                continue;
            }
            if (k < 9) {
                memset(x, 0, 32);
                x[0] = 1;
                continue;
            }
        }
        rand_scalar(x, r, &seed);
    }
}

/* 2^16 distinct base points per group, made once with the CPU. */
#define DISTINCT_LG 16
static cuzk_status distinct_bases(const cuzk_diag_group *g, void **out, cuzk_pool *pool, cuzk_error *e)
{
    const size_t m = (size_t)1 << DISTINCT_LG;
    void *b = cuzk_alloc(m, g->aff);
    uint64_t(*k)[4] = cuzk_calloc(m, sizeof *k);
    if (!b || !k) {
        cuzk_free(b);
        cuzk_free(k);
        return cuzk_err(e, CUZK_ERR_NOMEM, "bench: out of host memory");
    }
    uint64_t seed = 42;
    for (size_t i = 0; i < m; i++) {
        k[i][0] = cuzk_splitmix64(&seed);
        k[i][1] = cuzk_splitmix64(&seed);
    }
    cuzk_status st = g->batch_mul(b, g->gen, k, m, pool, e);
    cuzk_free(k);
    if (st) {
        cuzk_free(b);
        return st;
    }
    *out = b;
    return CUZK_OK;
}

/* Whether the options ask for curve d. */
static bool wanted(const cuzk_gpu_bench_opts *o, const cuzk_curve_desc *d)
{
    return o->curve == CUZK_CURVE_NONE || o->curve == d->curve;
}

#define CU(call, what)                                                                              \
    do {                                                                                            \
        cudaError_t rc_ = (call);                                                                   \
        if (rc_ != cudaSuccess) {                                                                   \
            st = cuzk_err(e, CUZK_ERR_GPU, "bench: %s: %s", what, cudaGetErrorString(rc_));         \
            goto out;                                                                               \
        }                                                                                           \
    } while (0)
#define TRY(call)                                                                                   \
    do {                                                                                            \
        st = (call);                                                                                \
        if (st) goto out;                                                                           \
    } while (0)

static cuzk_status bench_ntt(bench_ctx *b, double *t, cuzk_error *e)
{
    const cuzk_gpu_bench_opts *o = b->o;
    cuzk_status st = CUZK_OK;
    void *stream = NULL, *d = NULL;
    uint64_t *h = NULL;
    cuzk_gpu_ntt *ntt = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    TRY(cuzk_gpu_stream_create(&stream, o->device, e));
    CU(cudaEventCreate(&e0), "event");
    CU(cudaEventCreate(&e1), "event");
    for (const cuzk_curve_desc *const *cd = cuzk_curve_descs(); *cd; cd++) {
        if (!wanted(o, *cd)) continue;
        const cuzk_curve c = (*cd)->curve;
        unsigned mx = o->max_lg > 28 ? 28 : o->max_lg;
        TRY(cuzk_gpu_ntt_create(&ntt, c, mx, o->device, e));
        TRY(cuzk_gpu_dev_alloc(&d, ((size_t)32) << mx, o->device, e));
        /* Bounded random limbs (< 2^248 < r; values do not change the timing). */
        size_t nmax = (size_t)1 << mx;
        h = cuzk_alloc(nmax, 32);
        if (!h) {
            st = cuzk_err(e, CUZK_ERR_NOMEM, "bench: out of host memory");
            goto out;
        }
        uint64_t seed = 7;
        for (size_t i = 0; i < nmax * 4; i++) h[i] = (i % 4 == 3) ? cuzk_splitmix64(&seed) >> 8 : cuzk_splitmix64(&seed);
        TRY(cuzk_gpu_copy(d, h, nmax * 32, stream, e));
        TRY(cuzk_gpu_stream_sync(stream, e));
        cuzk_free(h);
        h = NULL;
        /* NN: natural order in and out (bit reversal included); NR / RN:
         * the non-permuting forward / inverse (bit-reversed out / in). */
        static const cuzk_gpu_ntt_op ops[] = {CUZK_GPU_NTT_FORWARD, CUZK_GPU_NTT_FORWARD_NR, CUZK_GPU_NTT_INVERSE,
                                              CUZK_GPU_NTT_INVERSE_RN, CUZK_GPU_NTT_ODD_COSET};
        static const char *opn[] = {"ntt fwd NN", "ntt fwd NR", "ntt inv NN", "ntt inv RN", "ntt odd-coset"};
        for (unsigned lg = o->min_lg; lg <= mx; lg++) {
            for (int oi = 0; oi < (int)(sizeof ops / sizeof ops[0]); oi++) {
                /* the odd coset needs the 2n-th roots of unity */
                if (ops[oi] == CUZK_GPU_NTT_ODD_COSET && lg >= (*cd)->fr_two_adicity) continue;
                TRY(cuzk_gpu_ntt_run(ntt, d, lg, ops[oi], stream, e));
                TRY(cuzk_gpu_stream_sync(stream, e));
                for (unsigned r = 0; r < o->reps; r++) {
                    CU(cudaEventRecord(e0, (cudaStream_t)stream), "event record");
                    TRY(cuzk_gpu_ntt_run(ntt, d, lg, ops[oi], stream, e));
                    CU(cudaEventRecord(e1, (cudaStream_t)stream), "event record");
                    TRY(cuzk_gpu_stream_sync(stream, e));
                    float ms = 0;
                    CU(cudaEventElapsedTime(&ms, e0, e1), "event time");
                    t[r] = ms;
                }
                double mn, med = median_min(t, o->reps, &mn);
                row(b, "%-14s %-12s %-9s 2^%-3u %10.3f %10.3f", opn[oi], cuzk_curve_name(c), "-", lg, med, mn);
            }
        }
        cuzk_gpu_dev_free(d, o->device);
        d = NULL;
        cuzk_gpu_ntt_destroy(ntt);
        ntt = NULL;
    }
out:
    cuzk_free(h);
    if (d) cuzk_gpu_dev_free(d, o->device);
    cuzk_gpu_ntt_destroy(ntt);
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cuzk_gpu_stream_destroy(stream);
    return st;
}

static double time_run(bench_ctx *b, double *t, cuzk_gpu_msm *m, const uint64_t *sc, size_t n, int on_dev,
                       double *mn, cuzk_error *e, cuzk_status *st)
{
    uint8_t res[1024];
    *st = cuzk_gpu_msm_run(m, res, sc, n, on_dev, NULL, e);
    for (unsigned r = 0; !*st && r < b->o->reps; r++) {
        double t0 = cuzk_now();
        *st = cuzk_gpu_msm_run(m, res, sc, n, on_dev, NULL, e);
        t[r] = (cuzk_now() - t0) * 1e3;
    }
    return *st ? 0 : median_min(t, b->o->reps, mn);
}

/* Largest G1 size only: run_many (4 uniform vectors, device scalars, per
 * MSM) against run; a resident handle with sort batches of n/16; a
 * streamed one whose budget holds 1/4 of the bases (chunks of n/16, the
 * host bases page-locked by create), device and pinned host scalars.
 * hs / ds hold uniform scalars (the last rows left them so). */
static cuzk_status bench_msm_more(bench_ctx *b, double *t, const cuzk_diag_group *g, cuzk_gpu_msm *m,
                                  const uint8_t *bases, size_t n, uint64_t *hs, void *ds, cuzk_error *e)
{
    const cuzk_gpu_bench_opts *o = b->o;
    cuzk_status st = CUZK_OK;
    cuzk_gpu_msm *m2 = NULL;
    unsigned lg = (unsigned)__builtin_ctzll(n);
    double mn, med;
    cuzk_gpu_msm_config cfg = {.window_bits = o->window, .batch_points = n / 16};
    make_scalars(hs, n, 0, g->r, 1000 + lg * 2);
    TRY(cuzk_gpu_copy(ds, hs, n * 32, NULL, e));
    TRY(cuzk_gpu_stream_sync(NULL, e));
    {
        enum { K = 4 };
        const uint64_t *v[K];
        size_t ns[K];
        uint8_t res[K * 1024];
        for (int i = 0; i < K; i++) {
            v[i] = (const uint64_t *)ds;
            ns[i] = n;
        }
        TRY(cuzk_gpu_msm_run_many(m, res, v, ns, K, 1, NULL, e));
        for (unsigned r = 0; r < o->reps; r++) {
            double t0 = cuzk_now();
            TRY(cuzk_gpu_msm_run_many(m, res, v, ns, K, 1, NULL, e));
            t[r] = (cuzk_now() - t0) * 1e3 / K;
        }
        med = median_min(t, o->reps, &mn);
        row(b, "%-14s %-12s %-9s 2^%-3u %10.3f %10.3f   per MSM, 4 vectors", "msm run_many", g->name, "uniform", lg, med,
            mn);
    }
    TRY(cuzk_gpu_msm_create(&m2, g->curve, g->group, bases, n, 0, o->device, &cfg, e));
    med = time_run(b, t, m2, (const uint64_t *)ds, n, 1, &mn, e, &st);
    if (st) goto out;
    row(b, "%-14s %-12s %-9s 2^%-3u %10.3f %10.3f   resident, batch n/16", "msm batch/16", g->name, "uniform", lg, med, mn);
    cuzk_gpu_msm_destroy(m2);
    m2 = NULL;
    /* smallest budget that keeps >= n/4 bases resident */
    cfg.batch_points = n / 16;
    {
        cuzk_gpu_msm_plan pl;
        size_t lo = 1, hi = cuzk_gpu_msm_device_bytes(g->curve, g->group, n, &cfg, b->sms) * 2;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            cfg.device_budget = mid;
            if (cuzk_gpu_msm_plan_for(g->curve, g->group, n, &cfg, o->device, &pl, e) == CUZK_OK &&
                pl.resident_points >= n / 4)
                hi = mid;
            else
                lo = mid;
        }
        cfg.device_budget = hi;
        cfg.pin_host_bases = 1;
        double t0 = cuzk_now();
        TRY(cuzk_gpu_msm_create(&m2, g->curve, g->group, bases, n, 0, o->device, &cfg, e));
        double tc = (cuzk_now() - t0) * 1e3;
        cuzk_gpu_msm_get_plan(m2, &pl);
        for (int src = 0; src < 2; src++) {
            med = time_run(b, t, m2, src ? hs : (const uint64_t *)ds, n, !src, &mn, e, &st);
            if (st) goto out;
            row(b, "%-14s %-12s %-9s 2^%-3u %10.3f %10.3f   res %zu/%zu chunk %zu %.2fGB create %.0fms",
                "msm stream1/4", g->name, src ? "unif/host" : "uniform", lg, med, mn, pl.resident_points, n,
                pl.chunk_points, pl.device_bytes / 1e9, tc);
        }
    }
out:
    cuzk_gpu_msm_destroy(m2);
    return st;
}

static cuzk_status bench_msm(bench_ctx *b, double *t, cuzk_pool *pool, cuzk_error *e)
{
    const cuzk_gpu_bench_opts *o = b->o;
    /* G1 and G2 of every curve asked for */
    cuzk_diag_group groups[16];
    int ng = 0;
    for (const cuzk_curve_desc *const *cd = cuzk_curve_descs(); *cd && ng + 2 <= 16; cd++) {
        if (!wanted(o, *cd)) continue;
        groups[ng++] = cuzk_diag_group_of(cuzk_curve_ops_get((*cd)->curve), CUZK_GPU_G1);
        if (!o->no_g2) groups[ng++] = cuzk_diag_group_of(cuzk_curve_ops_get((*cd)->curve), CUZK_GPU_G2);
    }
    cuzk_status st = CUZK_OK;
    size_t nmax = (size_t)1 << o->max_lg;
    uint64_t *hs = NULL;
    void *ds = NULL, *distinct = NULL;
    uint8_t *bases = NULL;
    cuzk_gpu_msm *m = NULL;
    TRY(cuzk_gpu_host_alloc((void **)&hs, nmax * 32, e));
    TRY(cuzk_gpu_dev_alloc(&ds, nmax * 32, o->device, e));
    for (int gi = 0; gi < ng; gi++) {
        const cuzk_diag_group *g = &groups[gi];
        TRY(distinct_bases(g, &distinct, pool, e));
        for (unsigned lg = o->min_lg; lg <= o->max_lg; lg++) {
            size_t n = (size_t)1 << lg;
            bases = cuzk_alloc(n, g->aff);
            if (!bases) {
                st = cuzk_err(e, CUZK_ERR_NOMEM, "bench: out of host memory for 2^%u bases", lg);
                goto out;
            }
            for (size_t i = 0; i < n; i += (size_t)1 << DISTINCT_LG) {
                size_t k = n - i < ((size_t)1 << DISTINCT_LG) ? n - i : ((size_t)1 << DISTINCT_LG);
                memcpy(bases + i * g->aff, distinct, k * g->aff);
            }
            cuzk_gpu_msm_config cfg = {.window_bits = o->window, .precompute = o->precompute};
            const double tc0 = cuzk_now();
            TRY(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, n, 0, o->device, &cfg, e));
            const double create_ms = (cuzk_now() - tc0) * 1e3;
            cuzk_gpu_msm_plan mp;
            cuzk_gpu_msm_get_plan(m, &mp);
            const size_t need = mp.device_bytes;
            char pre[64] = "";
            if (mp.precompute > 1) snprintf(pre, sizeof pre, " pre=%u create=%.0fms", mp.precompute, create_ms);
            for (int dist = 0; dist < 2; dist++) {
                make_scalars(hs, n, dist, g->r, 1000 + lg * 2 + dist);
                TRY(cuzk_gpu_copy(ds, hs, n * 32, NULL, e));
                TRY(cuzk_gpu_stream_sync(NULL, e));
                for (int src = 0; src < 2; src++) {
                    if (src == 1 && dist == 1) continue; /* host scalars: uniform only */
                    uint8_t res[1024];
                    const uint64_t *sc = src ? hs : (const uint64_t *)ds;
                    TRY(cuzk_gpu_msm_run(m, res, sc, n, !src, NULL, e));
                    for (unsigned r = 0; r < o->reps; r++) {
                        double t0 = cuzk_now();
                        TRY(cuzk_gpu_msm_run(m, res, sc, n, !src, NULL, e));
                        t[r] = (cuzk_now() - t0) * 1e3;
                    }
                    double mn, med = median_min(t, o->reps, &mn);
                    row(b, "%-14s %-12s %-9s 2^%-3u %10.3f %10.3f   c=%u dev=%.2fGB%s", "msm", g->name,
                        dist ? "witness" : (src ? "unif/host" : "uniform"), lg, med, mn, cuzk_gpu_msm_last_window(m),
                        need / 1e9, pre);
                }
            }
            if (g->group == CUZK_GPU_G1 && lg == o->max_lg) TRY(bench_msm_more(b, t, g, m, bases, n, hs, ds, e));
            cuzk_gpu_msm_destroy(m);
            m = NULL;
            cuzk_free(bases);
            bases = NULL;
        }
        cuzk_free(distinct);
        distinct = NULL;
    }
out:
    cuzk_gpu_msm_destroy(m);
    cuzk_free(bases);
    cuzk_free(distinct);
    cuzk_gpu_host_free(hs);
    if (ds) cuzk_gpu_dev_free(ds, o->device);
    return st;
}

cuzk_status cuzk_gpu_bench(const cuzk_gpu_bench_opts *opts, cuzk_error *e)
{
    if (!opts) return cuzk_err(e, CUZK_ERR_USAGE, "bench: NULL options");
    cuzk_gpu_bench_opts o = *opts;
    if (!o.max_lg) o.max_lg = 26;
    if (!o.min_lg) o.min_lg = o.max_lg < 20 ? o.max_lg : 20;
    if (o.min_lg > o.max_lg || o.max_lg > 30)
        return cuzk_err(e, CUZK_ERR_USAGE, "bench: sizes 2^%u..2^%u out of range", o.min_lg, o.max_lg);
    if (o.reps < 1) o.reps = 5;
    if (!o.do_msm && !o.do_ntt) o.do_msm = o.do_ntt = 1;
    if (cuzk_gpu_device_count() <= o.device) return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "no CUDA device");
    char dev[256];
    size_t mem = 0;
    int sms = 0;
    cuzk_status st = cuzk_gpu_device_info(o.device, dev, sizeof dev, &mem, &sms, e);
    if (st) return st;
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    say(&o, "device: %s, %d SMs, %.1f GiB, driver API %d.%d, runtime %d.%d; sizes 2^%u..2^%u, median of %u runs after 1 warm-up",
        dev, sms, mem / 1073741824.0, drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, o.min_lg, o.max_lg, o.reps);
    bench_ctx b = {&o, NULL, 0, 4096, sms};
    b.rows = cuzk_alloc((size_t)b.cap, sizeof *b.rows);
    double *t = cuzk_alloc(o.reps, sizeof *t);
    cuzk_pool *pool = cuzk_pool_create(0);
    if (!b.rows || !t || !pool) {
        st = cuzk_err(e, CUZK_ERR_NOMEM, "bench: out of host memory");
        goto done;
    }
    if (o.do_ntt) st = bench_ntt(&b, t, e);
    if (!st && o.do_msm) st = bench_msm(&b, t, pool, e);
    if (!st) {
        say(&o, "%s", "");
        say(&o, "%-14s %-12s %-9s %-5s %10s %10s", "op", "curve", "scalars", "size", "median ms", "min ms");
        for (int i = 0; i < b.nrows; i++) say(&o, "%s", b.rows[i]);
    }
done:
    if (pool) cuzk_pool_destroy(pool);
    cuzk_free(t);
    cuzk_free(b.rows);
    return st;
}
