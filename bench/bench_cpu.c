/* CPU benchmark: Fr NTT (forward, inverse, Groth16 odd coset) and Pippenger
 * MSM (G1/G2, both curves; uniform and witness-like scalars) for sizes
 * 2^min..2^max, on a thread pool. Each figure is the best of --reps runs
 * after the data is built (no separate warm-up: the first run pays page
 * faults of the output only, which the best-of hides).
 *
 * Bases are distinct points (a random walk P_i+1 = P_i + Q, normalised to
 * affine in one batch). Witness-like scalars: 50 % zero, 40 % one, 10 %
 * uniform.
 *
 * --only field: ns per field multiplication, scalar vs 8-lane AVX-512 IFMA,
 * and per inversion, Fermat vs variable-time (single thread; not in "all").
 * --only bpcopy: bellperson mode's copy of a, b or c with its range check
 * (cuzk_bp_copy_in, what the GPU's staging of a, b, c runs), GB/s of values
 * copied, against a plain memcpy of the same bytes on the same pool, for
 * 2^msm-max values (not in "all").
 * CUZK_NO_IFMA=1 in the environment runs NTT/MSM on the scalar code.
 *
 * usage: bench_cpu [--threads T] [--ntt-min L] [--ntt-max L] [--msm-min L]
 *                  [--msm-max L] [--reps R] [--curve bn254|bls12_381|all]
 *                  [--only ntt|msm|fixed|field|bpcopy|all] [--g2 0|1] [--c C] [--cpu 0|1]
 * --c C fixes the MSM window (both scalar kinds; default: the planner).
 * --cpu 1 reports process CPU time instead of wall time. */
#include "groth16/bp.h"
#include "util/rng.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field/fp_ifma.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/threadpool.h"

/* Wall clock, or with --cpu the process CPU time (all threads): on a loaded
 * machine the latter still compares code versions. */
static int bench_use_cpu;

static double bench_now(void)
{
    if (!bench_use_cpu)
        return cuzk_now();
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    int threads;
    unsigned ntt_min, ntt_max, msm_min, msm_max;
    int reps;
    int bn254, bls;
    int ntt, msm, fixed, field, bpcopy;
    int g2;
    unsigned c; /* MSM window bits (0: planner) */
} bench_opts;

#define BSTR_(x) #x
#define BSTR(x) BSTR_(x)

/* Per-curve NTT bench and per-group MSM bench, written once. */
#define BC bn254
#include "bench_ntt_impl.h"
#define BC bls12_381
#include "bench_ntt_impl.h"

/* Field multiplication: scalar inline core and the 8-lane IFMA code. */
#define FP_INLINE_KEEP
#define FP_IFMA_KEEP
#define FP_PREFIX bn254_fp
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#include "field/fp_inv_vt.h"
#define BFF bn254_fp
#define BFF_LIMBS 4
#include "bench_field_impl.h"
#define FP_PREFIX bn254_fr
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#include "field/fp_inv_vt.h"
#define BFF bn254_fr
#define BFF_LIMBS 4
#include "bench_field_impl.h"
#define FP_PREFIX bls12_381_fp
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#include "field/fp_inv_vt.h"
#define BFF bls12_381_fp
#define BFF_LIMBS 6
#include "bench_field_impl.h"
#define FP_PREFIX bls12_381_fr
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#include "field/fp_inv_vt.h"
#define BFF bls12_381_fr
#define BFF_LIMBS 4
#include "bench_field_impl.h"
#undef FP_INLINE_KEEP
#undef FP_IFMA_KEEP

#define BG bn254_g1
#define BF bn254_fr
#include "bench_msm_impl.h"
#define BG bn254_g2
#define BF bn254_fr
#include "bench_msm_impl.h"
#define BG bls12_381_g1
#define BF bls12_381_fr
#include "bench_msm_impl.h"
#define BG bls12_381_g2
#define BF bls12_381_fr
#include "bench_msm_impl.h"

/* memcpy of [b, e) of 32-byte values, a range a worker */
typedef struct {
    uint8_t *dst;
    const uint8_t *src;
} memcpy_job;

static void memcpy_range(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    const memcpy_job *j = arg;
    memcpy(j->dst + 32 * b, j->src + 32 * b, 32 * (e - b));
}

static int bench_bpcopy(const bench_opts *o, cuzk_pool *pool)
{
    const size_t n = (size_t)1 << o->msm_max;
    uint64_t *src = cuzk_alloc(n, 32), *dst = cuzk_alloc(n, 32), rng = 0x5eed;
    if (!src || !dst) {
        fprintf(stderr, "bpcopy: out of memory for 2 x %zu values\n", n);
        cuzk_free(src);
        cuzk_free(dst);
        return 1;
    }
    for (size_t i = 0; i < 4 * n; i++)
        src[i] = cuzk_splitmix64(&rng);
    for (size_t i = 0; i < n; i++)
        src[4 * i + 3] >>= 2; /* below r */
    memset(dst, 0, 32 * n);
    double best[2] = {1e30, 1e30};
    int rc = 0;
    for (int r = 0; r < o->reps; r++) {
        double t0 = bench_now();
        rc |= cuzk_bp_copy_in(dst, src, n, n, pool) != SIZE_MAX;
        double t1 = bench_now();
        memcpy_job mj = {(uint8_t *)dst, (const uint8_t *)src};
        cuzk_parallel_for(pool, n, (size_t)1 << 16, memcpy_range, &mj);
        double t2 = bench_now();
        best[0] = t1 - t0 < best[0] ? t1 - t0 : best[0];
        best[1] = t2 - t1 < best[1] ? t2 - t1 : best[1];
    }
    const double gb = 32.0 * (double)n / 1e9;
    printf("%-10s %5u %12.2f %12.2f\n", "bp copy", o->msm_max, gb / best[0], gb / best[1]);
    cuzk_free(src);
    cuzk_free(dst);
    return rc;
}

static unsigned arg_u(const char *s)
{
    return (unsigned)strtoul(s, NULL, 10);
}

int main(int argc, char **argv)
{
    bench_opts o = {2, 10, 20, 10, 20, 3, 1, 1, 1, 1, 1, 0, 0, 1, 0};
    const char *no_ifma = getenv("CUZK_NO_IFMA");
    if (no_ifma && *no_ifma && strcmp(no_ifma, "0") != 0)
        cuzk_ifma_set(false);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v && strcmp(a, "--help") != 0) {
            fprintf(stderr, "missing value for %s\n", a);
            return 1;
        }
        if (!strcmp(a, "--threads"))
            o.threads = atoi(v);
        else if (!strcmp(a, "--ntt-min"))
            o.ntt_min = arg_u(v);
        else if (!strcmp(a, "--ntt-max"))
            o.ntt_max = arg_u(v);
        else if (!strcmp(a, "--msm-min"))
            o.msm_min = arg_u(v);
        else if (!strcmp(a, "--msm-max"))
            o.msm_max = arg_u(v);
        else if (!strcmp(a, "--reps"))
            o.reps = atoi(v) > 0 ? atoi(v) : 1;
        else if (!strcmp(a, "--g2"))
            o.g2 = atoi(v);
        else if (!strcmp(a, "--c"))
            o.c = arg_u(v);
        else if (!strcmp(a, "--cpu"))
            bench_use_cpu = atoi(v);
        else if (!strcmp(a, "--curve")) {
            o.bn254 = !strcmp(v, "bn254") || !strcmp(v, "all");
            o.bls = !strcmp(v, "bls12_381") || !strcmp(v, "all");
        } else if (!strcmp(a, "--only")) {
            o.ntt = !strcmp(v, "ntt") || !strcmp(v, "all");
            o.msm = !strcmp(v, "msm") || !strcmp(v, "all");
            o.fixed = !strcmp(v, "fixed") || !strcmp(v, "all");
            o.field = !strcmp(v, "field");
            o.bpcopy = !strcmp(v, "bpcopy");
        } else {
            fprintf(stderr,
                    "usage: bench_cpu [--threads T] [--ntt-min L] [--ntt-max L] [--msm-min L] "
                    "[--msm-max L] [--reps R] [--curve bn254|bls12_381|all] "
                    "[--only ntt|msm|fixed|field|bpcopy|all] [--g2 0|1] [--c C] [--cpu 0|1]\n");
            return strcmp(a, "--help") ? 1 : 0;
        }
        i++;
    }
    cuzk_pool *pool = cuzk_pool_create(o.threads);
    if (!pool) {
        fprintf(stderr, "cannot create a pool of %d threads\n", o.threads);
        return 1;
    }
    printf("# bench_cpu: %d threads, best of %d, IFMA %s, %s\n", cuzk_pool_size(pool), o.reps,
           cuzk_ifma_enabled() ? "on" : "off", bench_use_cpu ? "process CPU time" : "wall time");
    int rc = 0;
    if (o.field) {
        printf("\n%-14s %14s %14s %14s %14s %12s %12s\n", "mul ns/product", "scalar thr",
               "scalar lat", "ifma thr", "ifma 1 chain", "inv ns", "inv_vt ns");
        bn254_fp_bench_field();
        bn254_fr_bench_field();
        bls12_381_fp_bench_field();
        bls12_381_fr_bench_field();
    }
    if (o.ntt) {
        printf("\n%-10s %5s %10s %10s %12s %10s %12s\n", "NTT", "log n", "ntt ms", "intt ms",
               "coset_odd ms", "ns/elem", "domain ms");
        if (o.bn254)
            rc |= bench_ntt_bn254(&o, pool);
        if (o.bls)
            rc |= bench_ntt_bls12_381(&o, pool);
    }
    if (o.msm) {
        printf("\n%-13s %5s %11s %9s %12s %9s %s\n", "MSM", "log n", "uniform ms", "ns/pt",
               "witness ms", "ns/pt", "plan (c x windows x splits)");
        if (o.bn254) {
            rc |= bench_msm_bn254_g1(&o, pool);
            if (o.g2)
                rc |= bench_msm_bn254_g2(&o, pool);
        }
        if (o.bls) {
            rc |= bench_msm_bls12_381_g1(&o, pool);
            if (o.g2)
                rc |= bench_msm_bls12_381_g2(&o, pool);
        }
    }
    if (o.bpcopy) {
        printf("\n%-10s %5s %12s %12s\n", "a/b/c", "log n", "check GB/s", "memcpy GB/s");
        rc |= bench_bpcopy(&o, pool);
    }
    if (o.fixed) {
        printf("\n%-13s %5s %11s %9s\n", "batch_mul", "log n", "ms", "ns/pt");
        if (o.bn254) {
            rc |= bench_fixed_bn254_g1(&o, pool);
            if (o.g2)
                rc |= bench_fixed_bn254_g2(&o, pool);
        }
        if (o.bls) {
            rc |= bench_fixed_bls12_381_g1(&o, pool);
            if (o.g2)
                rc |= bench_fixed_bls12_381_g2(&o, pool);
        }
    }
    cuzk_pool_destroy(pool);
    return rc;
}
