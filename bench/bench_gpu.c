/* GPU benchmark: MSM (G1/G2, both curves; uniform and witness-like scalars)
 * and Fr NTT, sizes 2^min..2^max. Bases are resident on the device (uploaded
 * once per size); scalars are device-resident ("dev") or in pinned host
 * memory ("host"). Each figure is the median of --reps timed runs after one
 * warm-up: MSM wall time of cuzk_gpu_msm_run (it returns with the result on
 * the host), NTT time by CUDA events.
 *
 * Bases: 2^16 distinct random multiples of the generator, repeated up to n
 * (as in performance-anchors.md §1; L2 hits may flatter gathers slightly).
 * Witness-like scalars: 50 % zero, 40 % one, 10 % uniform.
 *
 * usage: bench_gpu [--min L] [--max L] [--reps R] [--curve bn254|bls12_381|all]
 *                  [--only msm|ntt|all] [--g2 0|1] [--window c] */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu.h"
#include "field/field_params.h"
#include "msm/msm.h"
#include "util/threadpool.h"

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Uniform raw scalar < r by rejection. */
static void rand_scalar(uint64_t s[4], const uint64_t r[4], uint64_t *seed)
{
    unsigned top = 0;
    while ((r[3] >> top) > 1) top++;
    uint64_t mask = (top >= 63) ? ~0ULL : ((2ULL << top) - 1);
    for (;;) {
        for (int i = 0; i < 4; i++) s[i] = splitmix(seed);
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
            uint64_t k = splitmix(&seed) % 10;
            if (k < 5) { memset(x, 0, 32); continue; }
            if (k < 9) { memset(x, 0, 32); x[0] = 1; continue; }
        }
        rand_scalar(x, r, &seed);
    }
}

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        cuzk_status st_ = (call);                                                                   \
        if (st_) {                                                                                  \
            fprintf(stderr, "error: %s: %s\n", #call, e.msg);                                       \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)
#define CUCHECK(call)                                                                               \
    do {                                                                                            \
        cudaError_t rc_ = (call);                                                                   \
        if (rc_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "cuda error: %s: %s\n", #call, cudaGetErrorString(rc_));                \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

/* Distinct base points per group (2^16), made once with the CPU. */
#define DISTINCT_LG 16
#define BASES_FN(G, FR)                                                                             \
    static void *G##_distinct(cuzk_pool *pool)                                                      \
    {                                                                                               \
        size_t m = (size_t)1 << DISTINCT_LG;                                                        \
        G##_affine_t *b = malloc(m * sizeof *b);                                                    \
        FR##_t *k = calloc(m, sizeof *k);                                                           \
        uint64_t seed = 42;                                                                         \
        for (size_t i = 0; i < m; i++) {                                                            \
            k[i].l[0] = splitmix(&seed);                                                            \
            k[i].l[1] = splitmix(&seed);                                                            \
        }                                                                                           \
        cuzk_error e = {0};                                                                         \
        CHECK(G##_batch_mul_fixed(b, &G##_GENERATOR, k, m, pool, &e));                              \
        free(k);                                                                                    \
        return b;                                                                                   \
    }
BASES_FN(bn254_g1, bn254_fr)
BASES_FN(bn254_g2, bn254_fr)
BASES_FN(bls12_381_g1, bls12_381_fr)
BASES_FN(bls12_381_g2, bls12_381_fr)

typedef struct {
    const char *name;
    cuzk_curve curve;
    cuzk_gpu_group group;
    size_t aff;
    void *(*distinct)(cuzk_pool *);
    uint64_t r[4];
} grp;

int main(int argc, char **argv)
{
    unsigned lo = 20, hi = 27, reps = 5, window = 0;
    int do_msm = 1, do_ntt = 1, do_g2 = 1, curves = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--min")) lo = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--max")) hi = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps")) reps = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--window")) window = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--g2")) do_g2 = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--curve")) curves = !strcmp(argv[i + 1], "bn254") ? 1 : !strcmp(argv[i + 1], "bls12_381") ? 2 : 3;
        else if (!strcmp(argv[i], "--only")) {
            do_msm = strcmp(argv[i + 1], "ntt") != 0;
            do_ntt = strcmp(argv[i + 1], "msm") != 0;
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (cuzk_gpu_device_count() == 0) {
        printf("no CUDA device\n");
        return 77;
    }
    cuzk_error e = {0};
    char dev[256];
    size_t mem = 0;
    int sms = 0;
    CHECK(cuzk_gpu_device_info(0, dev, sizeof dev, &mem, &sms, &e));
    printf("device: %s, %d SMs, %.1f GiB; sizes 2^%u..2^%u, median of %u runs after 1 warm-up\n", dev, sms,
           mem / 1073741824.0, lo, hi, reps);
    cuzk_pool *pool = cuzk_pool_create(0);
    double *t = malloc(reps * sizeof *t);

    static char rows[4096][160];
    int nrows = 0;
#define ROW(...) snprintf(rows[nrows < 4095 ? nrows++ : nrows], sizeof rows[0], __VA_ARGS__)

    if (do_ntt) {
        void *stream = NULL;
        CHECK(cuzk_gpu_stream_create(&stream, 0, &e));
        cudaEvent_t e0, e1;
        CUCHECK(cudaEventCreate(&e0));
        CUCHECK(cudaEventCreate(&e1));
        for (int ci = 0; ci < 2; ci++) {
            if (!(curves & (1 << ci))) continue;
            cuzk_curve c = ci ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
            cuzk_gpu_ntt *ntt = NULL;
            unsigned mx = hi > 28 ? 28 : hi;
            CHECK(cuzk_gpu_ntt_create(&ntt, c, mx, 0, &e));
            void *d = NULL;
            CHECK(cuzk_gpu_dev_alloc(&d, ((size_t)32) << mx, 0, &e));
            /* Fill with bounded random limbs (< 2^252 < r; values do not
             * change the timing). */
            size_t nmax = (size_t)1 << mx;
            uint64_t *h = malloc(nmax * 32), seed = 7;
            for (size_t i = 0; i < nmax * 4; i++) h[i] = (i % 4 == 3) ? splitmix(&seed) >> 8 : splitmix(&seed);
            CHECK(cuzk_gpu_copy(d, h, nmax * 32, stream, &e));
            CHECK(cuzk_gpu_stream_sync(stream, &e));
            free(h);
            static const cuzk_gpu_ntt_op ops[] = {CUZK_GPU_NTT_FORWARD, CUZK_GPU_NTT_INVERSE, CUZK_GPU_NTT_ODD_COSET};
            static const char *opn[] = {"ntt fwd NN", "ntt inv NN", "ntt odd-coset"};
            for (unsigned lg = lo; lg <= mx; lg++) {
                for (int oi = 0; oi < 3; oi++) {
                    if (ops[oi] == CUZK_GPU_NTT_ODD_COSET && c == CUZK_CURVE_BN254 && lg >= 28) continue;
                    CHECK(cuzk_gpu_ntt_run(ntt, d, lg, ops[oi], stream, &e));
                    CHECK(cuzk_gpu_stream_sync(stream, &e));
                    for (unsigned r = 0; r < reps; r++) {
                        CUCHECK(cudaEventRecord(e0, (cudaStream_t)stream));
                        CHECK(cuzk_gpu_ntt_run(ntt, d, lg, ops[oi], stream, &e));
                        CUCHECK(cudaEventRecord(e1, (cudaStream_t)stream));
                        CHECK(cuzk_gpu_stream_sync(stream, &e));
                        float ms = 0;
                        CUCHECK(cudaEventElapsedTime(&ms, e0, e1));
                        t[r] = ms;
                    }
                    double med = median(t, (int)reps);
                    ROW("%-14s %-10s %-8s 2^%-3u %10.3f %10.3f", opn[oi], cuzk_curve_name(c), "-", lg, med, t[0]);
                    printf("%s\n", rows[nrows - 1]);
                    fflush(stdout);
                }
            }
            cuzk_gpu_dev_free(d, 0);
            cuzk_gpu_ntt_destroy(ntt);
        }
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
        cuzk_gpu_stream_destroy(stream);
    }

    if (do_msm) {
        grp groups[4] = {
            {"bn254 G1", CUZK_CURVE_BN254, CUZK_GPU_G1, sizeof(bn254_g1_affine_t), bn254_g1_distinct, bn254_fr_P_MODULUS},
            {"bn254 G2", CUZK_CURVE_BN254, CUZK_GPU_G2, sizeof(bn254_g2_affine_t), bn254_g2_distinct, bn254_fr_P_MODULUS},
            {"bls G1", CUZK_CURVE_BLS12_381, CUZK_GPU_G1, sizeof(bls12_381_g1_affine_t), bls12_381_g1_distinct,
             bls12_381_fr_P_MODULUS},
            {"bls G2", CUZK_CURVE_BLS12_381, CUZK_GPU_G2, sizeof(bls12_381_g2_affine_t), bls12_381_g2_distinct,
             bls12_381_fr_P_MODULUS},
        };
        size_t nmax = (size_t)1 << hi;
        uint64_t *hs = NULL;
        CHECK(cuzk_gpu_host_alloc((void **)&hs, nmax * 32, &e));
        void *ds = NULL;
        CHECK(cuzk_gpu_dev_alloc(&ds, nmax * 32, 0, &e));
        for (int gi = 0; gi < 4; gi++) {
            grp *g = &groups[gi];
            if (!(curves & (1 << (gi / 2)))) continue;
            if (g->group == CUZK_GPU_G2 && !do_g2) continue;
            uint8_t *distinct = g->distinct(pool);
            for (unsigned lg = lo; lg <= hi; lg++) {
                size_t n = (size_t)1 << lg;
                uint8_t *bases = malloc(n * g->aff);
                if (!bases) {
                    fprintf(stderr, "out of host memory for 2^%u bases\n", lg);
                    break;
                }
                for (size_t i = 0; i < n; i += (size_t)1 << DISTINCT_LG) {
                    size_t k = n - i < ((size_t)1 << DISTINCT_LG) ? n - i : ((size_t)1 << DISTINCT_LG);
                    memcpy(bases + i * g->aff, distinct, k * g->aff);
                }
                cuzk_gpu_msm_config cfg = {window, 0, 0};
                cuzk_gpu_msm *m = NULL;
                size_t need = cuzk_gpu_msm_device_bytes(g->curve, g->group, n, &cfg);
                CHECK(cuzk_gpu_msm_create(&m, g->curve, g->group, bases, n, 0, 0, &cfg, &e));
                free(bases);
                for (int dist = 0; dist < 2; dist++) {
                    make_scalars(hs, n, dist, g->r, 1000 + lg * 2 + dist);
                    CHECK(cuzk_gpu_copy(ds, hs, n * 32, NULL, &e));
                    CHECK(cuzk_gpu_stream_sync(NULL, &e));
                    for (int src = 0; src < 2; src++) {
                        if (src == 1 && dist == 1) continue; /* host scalars: uniform only */
                        uint8_t res[1024];
                        CHECK(cuzk_gpu_msm_run(m, res, src ? (uint64_t *)hs : (uint64_t *)ds, n, !src, NULL, &e));
                        for (unsigned r = 0; r < reps; r++) {
                            double t0 = cuzk_now();
                            CHECK(cuzk_gpu_msm_run(m, res, src ? (uint64_t *)hs : (uint64_t *)ds, n, !src, NULL, &e));
                            t[r] = (cuzk_now() - t0) * 1e3;
                        }
                        double med = median(t, (int)reps);
                        ROW("%-14s %-10s %-8s 2^%-3u %10.3f %10.3f   c=%u dev=%.2fGB", "msm", g->name,
                            dist ? "witness" : (src ? "unif/host" : "uniform"), lg, med, t[0],
                            cuzk_gpu_msm_last_window(m), need / 1e9);
                        printf("%s\n", rows[nrows - 1]);
                        fflush(stdout);
                    }
                }
                cuzk_gpu_msm_destroy(m);
            }
            free(distinct);
        }
        cuzk_gpu_host_free(hs);
        cuzk_gpu_dev_free(ds, 0);
    }

    printf("\n%-14s %-10s %-8s %-5s %10s %10s\n", "op", "curve", "scalars", "size", "median ms", "min ms");
    for (int i = 0; i < nrows; i++) printf("%s\n", rows[i]);
    free(t);
    cuzk_pool_destroy(pool);
    return 0;
}
