/* The four witness MSMs of a PoRep-shaped Groth16 proof (A, B1, C on G1, B2
 * on G2, BLS12-381) at 2^LG points, as the GPU prover runs them: resident
 * handles without precomputed copies, device scalars; and the witness-like
 * MSM of issue 14 (50 % 0, 40 % 1, 10 % uniform).
 *
 * Wires: 25 % bits in B (the B bases are live there only), 70 % other bits,
 * 5 % uniform values; bits are 0 and 1 half and half (the shape of
 * src/groth16/porep_impl.h). A: 0.3 % of the bases at infinity, C: none,
 * B1 / B2: 75 %. Bases: 2^16 distinct points repeated (the convention of
 * cuzk bench kernels).
 *
 * Build (after a CUDA build in BUILD), run on the device machine:
 *   cc -O2 -std=c11 -D_GNU_SOURCE -DCUZK_HAVE_CUDA=1 -Iinclude -Isrc -isystem /usr/local/cuda/include \
 *      tools/gpu_msm_porep.c BUILD/src/libcuzk.a /usr/local/cuda/lib/libcudart_static.a \
 *      -lcjson -lstdc++ -lm -lrt -lpthread -ldl -o gpu_msm_porep
 * usage: gpu_msm_porep LG REPS porep|wit [A|B1|C|B2]
 *   Prints per MSM the median and minimum wall ms of cuzk_gpu_msm_run over
 *   REPS runs after a warm-up (REPS 0: one untimed run, for ncu) and a hash
 *   of the affine result (equal across builds when the sums are). */
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

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void rand_scalar(uint64_t s[4], const uint64_t r[4], uint64_t *seed)
{
    for (;;) {
        for (int i = 0; i < 4; i++) s[i] = cuzk_splitmix64(seed);
        s[3] &= (1ULL << 63) - 1;
        int lt = 0;
        for (int i = 3; i >= 0; i--)
            if (s[i] != r[i]) {
                lt = s[i] < r[i];
                break;
            }
        if (lt) return;
    }
}

/* wire kind: 0 B-bit, 1 other bit, 2 uniform */
static int kind_of(size_t i)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL ^ (i * 0x2545F4914F6CDD1DULL);
    uint64_t u = cuzk_splitmix64(&s) % 100;
    return u < 25 ? 0 : u < 95 ? 1 : 2;
}
static int bit_of(size_t i)
{
    uint64_t s = 0x1234567ULL ^ (i * 0x9E3779B97F4A7C15ULL);
    return (int)(cuzk_splitmix64(&s) >> 63);
}

#define DL 16
int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: gpu_msm_porep LG REPS porep|wit [A|B1|C|B2]\n");
        return 2;
    }
    const unsigned lg = (unsigned)atoi(argv[1]);
    const unsigned reps = (unsigned)atoi(argv[2]);
    const int wit = !strcmp(argv[3], "wit");
    const char *only = argc > 4 ? argv[4] : NULL;
    const size_t n = (size_t)1 << lg;
    cuzk_error e = {0};
    cuzk_pool *pool = cuzk_pool_create(0);
    const cuzk_curve_ops *ops = cuzk_curve_ops_get(CUZK_CURVE_BLS12_381);
    cuzk_diag_group g1 = cuzk_diag_group_of(ops, CUZK_GPU_G1), g2 = cuzk_diag_group_of(ops, CUZK_GPU_G2);
    /* scalars */
    uint64_t *hs = malloc(n * 32);
    uint64_t seed = 77;
    size_t cnt[3] = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t *x = hs + 4 * i;
        memset(x, 0, 32);
        if (wit) {
            uint64_t k = cuzk_splitmix64(&seed) % 10;
            if (k < 5) continue;
            if (k < 9) {
                x[0] = 1;
                continue;
            }
            rand_scalar(x, g1.r, &seed);
            continue;
        }
        int k = kind_of(i);
        if (k == 2) {
            rand_scalar(x, g1.r, &seed);
            cnt[2]++;
        } else {
            x[0] = (uint64_t)bit_of(i);
            cnt[x[0]]++;
        }
    }
    if (!wit) printf("scalars: %zu zero, %zu one, %zu uniform\n", cnt[0], cnt[1], cnt[2]);
    void *ds = NULL;
    if (cuzk_gpu_dev_alloc(&ds, n * 32, 0, &e) || cuzk_gpu_copy(ds, hs, n * 32, NULL, &e) || cuzk_gpu_stream_sync(NULL, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    static const char *names[] = {"A", "B1", "C", "B2", "wit"};
    double *t = calloc(reps + 1, sizeof *t);
    for (int mi = 0; mi < 5; mi++) {
        if (wit != (mi == 4)) continue;
        if (only && strcmp(only, names[mi])) continue;
        const cuzk_diag_group *g = mi == 3 ? &g2 : &g1;
        /* distinct bases */
        const size_t m = (size_t)1 << DL;
        uint8_t *dist = malloc(m * g->aff);
        uint64_t(*k)[4] = calloc(m, sizeof *k);
        uint64_t s2 = 42 + mi;
        for (size_t i = 0; i < m; i++) {
            k[i][0] = cuzk_splitmix64(&s2);
            k[i][1] = cuzk_splitmix64(&s2);
        }
        if (g->batch_mul(dist, g->gen, k, m, pool, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        free(k);
        uint8_t *b = malloc(n * g->aff);
        size_t ninf = 0;
        for (size_t i = 0; i < n; i++) {
            int inf = 0;
            if (mi == 0) {
                uint64_t s3 = i * 0xD1B54A32D192ED03ULL;
                inf = cuzk_splitmix64(&s3) % 1000 < 3;
            } else if (mi == 1 || mi == 3) {
                inf = kind_of(i) != 0;
            }
            if (inf) {
                memset(b + i * g->aff, 0, g->aff);
                ninf++;
            } else {
                memcpy(b + i * g->aff, dist + (i % m) * g->aff, g->aff);
            }
        }
        free(dist);
        cuzk_gpu_msm_config cfg = {.precompute = 1};
        cuzk_gpu_msm *h = NULL;
        double t0 = cuzk_now();
        if (cuzk_gpu_msm_create(&h, g->curve, g->group, b, n, 0, 0, &cfg, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        const double tc = (cuzk_now() - t0) * 1e3;
        free(b);
        uint8_t res[1024], aff[512];
        if (cuzk_gpu_msm_run(h, res, ds, n, 1, NULL, &e)) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        for (unsigned r = 0; r < reps; r++) {
            t0 = cuzk_now();
            if (cuzk_gpu_msm_run(h, res, ds, n, 1, NULL, &e)) {
                fprintf(stderr, "%s\n", e.msg);
                return 1;
            }
            t[r] = (cuzk_now() - t0) * 1e3;
        }
        g->to_affine(aff, res);
        uint64_t hh = 1469598103934665603ULL;
        for (size_t i = 0; i < g->aff; i++) hh = (hh ^ aff[i]) * 1099511628211ULL;
        double med = 0, mn = 0;
        if (reps) {
            qsort(t, reps, sizeof *t, cmp_d);
            med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
            mn = t[0];
        }
        cuzk_gpu_msm_plan pl;
        cuzk_gpu_msm_get_plan(h, &pl);
        printf("msm %-3s 2^%u %s inf=%.1f%% median %.3f min %.3f ms (reps %u) c=%u dev=%.2fGB create %.0f ms hash %016llx\n",
               names[mi], lg, g->name, 100.0 * ninf / n, med, mn, reps, cuzk_gpu_msm_last_window(h), pl.device_bytes / 1e9,
               tc, (unsigned long long)hh);
        fflush(stdout);
        cuzk_gpu_msm_destroy(h);
    }
    cuzk_gpu_dev_free(ds, 0);
    free(hs);
    free(t);
    cuzk_pool_destroy(pool);
    return 0;
}
