/* What the GPU prover's allocations cost on the host, per call: the device
 * vectors a proof allocates and frees (cudaMalloc / cudaFree of 1, 4 and 12
 * GiB), the memory sample each phase takes (cudaMemGetInfo) and making and
 * destroying a per-proof streamed MSM handle (BLS12-381 G1 over host bases,
 * its upload left to its run, as the prover's H and B2 handles at 2^27).
 * These run under the GPU lock between two proofs' kernels, so they are the
 * device's idle time there. Then the same calls in a proof's order, proof
 * after proof. Median of --reps (5) after one warm-up.
 *
 * usage: bench_gpu_alloc [--reps R] [--lg L] [--budget GiB]
 *   --lg L       the MSM handle's size, 2^L points (27)
 *   --budget G   its device budget in GiB (24: streamed at 2^27)
 * Exits 77 without a CUDA device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cuzk/dev.h"
#include "cuzk/gpu.h"

#include "bench_stats.h"


static double now_ms(void) { return bench_clock(CLOCK_MONOTONIC) * 1e3; }

#define MAXR 64

/* One table row: the median of v[0..n) and its largest. */
static void row(const char *name, double *v, int n)
{
    double mx = 0;
    for (int r = 0; r < n; r++) mx = v[r] > mx ? v[r] : mx;
    printf("%-44s %10.3f %10.3f\n", name, bench_median(v, n), mx);
}

int main(int argc, char **argv)
{
    int reps = 5;
    unsigned lg = 27;
    double budget_gib = 24;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--lg")) lg = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--budget")) budget_gib = atof(argv[i + 1]);
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAXR || lg < 10 || lg > 28 || budget_gib <= 0) {
        fprintf(stderr, "bench_gpu_alloc: --reps 1..%d, --lg 10..28, --budget > 0\n", MAXR);
        return 2;
    }
    if (cuzk_gpu_device_count() == 0) {
        printf("no CUDA device\n");
        return 77;
    }
    double t[MAXR];
    printf("%-44s %10s %10s\n", "step", "median ms", "max ms");
    static const double gib[] = {1, 4, 12};
    for (size_t s = 0; s < sizeof gib / sizeof gib[0]; s++) {
        const size_t bytes = (size_t)(gib[s] * 1073741824.0);
        double tm[MAXR], tf[MAXR];
        for (int r = -1; r < reps; r++) {
            void *p = NULL;
            double t0 = now_ms();
            if (cudaMalloc(&p, bytes) != cudaSuccess) {
                fprintf(stderr, "cudaMalloc of %.0f GiB failed\n", gib[s]);
                return 1;
            }
            double t1 = now_ms();
            cudaFree(p);
            double t2 = now_ms();
            if (r >= 0) {
                tm[r] = t1 - t0;
                tf[r] = t2 - t1;
            }
        }
        char name[64];
        snprintf(name, sizeof name, "cudaMalloc %.0f GiB", gib[s]);
        row(name, tm, reps);
        snprintf(name, sizeof name, "cudaFree %.0f GiB", gib[s]);
        row(name, tf, reps);
    }
    for (int r = 0; r < reps; r++) {
        size_t f, tot;
        double t0 = now_ms();
        for (int i = 0; i < 100; i++) cudaMemGetInfo(&f, &tot);
        t[r] = (now_ms() - t0) / 100;
    }
    printf("%-44s %10.4f\n", "cudaMemGetInfo", bench_median(t, reps));

    const size_t n = (size_t)1 << lg;
    void *bases = malloc(n * 96); /* never read: the handle uploads in its run */
    if (!bases) {
        fprintf(stderr, "out of host memory for 2^%u bases\n", lg);
        return 1;
    }
    cuzk_gpu_msm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.device_budget = (size_t)(budget_gib * 1073741824.0);
    cfg.precompute = 1;
    cfg.upload_in_run = 1;
    double tc[MAXR], td[MAXR];
    for (int r = -1; r < reps; r++) {
        cuzk_gpu_msm *m = NULL;
        cuzk_error e = {0};
        double t0 = now_ms();
        if (cuzk_gpu_msm_create(&m, CUZK_CURVE_BLS12_381, CUZK_GPU_G1, bases, n, 0, 0, &cfg, &e)) {
            fprintf(stderr, "msm create: %s\n", e.msg);
            return 1;
        }
        double t1 = now_ms();
        cuzk_gpu_msm_destroy(m);
        double t2 = now_ms();
        if (r >= 0) {
            tc[r] = t1 - t0;
            td[r] = t2 - t1;
        }
    }
    char name[80];
    snprintf(name, sizeof name, "msm create, G1 2^%u, budget %.0f GiB", lg, budget_gib);
    row(name, tc, reps);
    snprintf(name, sizeof name, "msm destroy, G1 2^%u", lg);
    row(name, td, reps);

    /* The device allocations of one proof in the prover's order (2^27 at an
     * H100's full memory, tier 4: a, b, c and the coefficients' two chunk
     * buffers; after the NTT b, c and the chunks freed, H's handle made;
     * after H its handle destroyed, B2's (G2, a quarter of the points)
     * made; a and B2's handle freed at the end), reps proofs in a row: what
     * each step costs when the blocks before it had other sizes. */
    if (lg >= 12) {
        const size_t v = (size_t)4 << (lg - 5), chunks = v * 9 / 32; /* 2^27: 4 GiB; 1.125 GiB */
        cuzk_gpu_msm_config c2 = cfg;
        c2.device_budget = (size_t)(budget_gib * 0.77 * 1073741824.0);
        enum { S_ABC, S_FREE_BC, S_H, S_H_FREE, S_B2, S_END, S_COUNT };
        static const char *const SN[S_COUNT] = {"proof: a, b, c and chunks allocated", "proof: b, c, chunks freed",
                                                "proof: H's handle made", "proof: H's handle destroyed",
                                                "proof: B2's handle made (G2, n/4)", "proof: B2's handle, a freed"};
        double ts[S_COUNT][MAXR];
        for (int r = -1; r < reps; r++) {
            void *a = NULL, *b = NULL, *c = NULL, *ch = NULL;
            cuzk_gpu_msm *h = NULL, *b2 = NULL;
            cuzk_error e = {0};
            double q[S_COUNT + 1];
            q[0] = now_ms();
            if (cudaMalloc(&a, v) || cudaMalloc(&b, v) || cudaMalloc(&c, v) || cudaMalloc(&ch, chunks)) {
                fprintf(stderr, "proof sequence: cudaMalloc failed\n");
                return 1;
            }
            q[1] = now_ms();
            cudaFree(b);
            cudaFree(c);
            cudaFree(ch);
            q[2] = now_ms();
            if (cuzk_gpu_msm_create(&h, CUZK_CURVE_BLS12_381, CUZK_GPU_G1, bases, n, 0, 0, &cfg, &e)) {
                fprintf(stderr, "proof sequence: H: %s\n", e.msg);
                return 1;
            }
            q[3] = now_ms();
            cuzk_gpu_msm_destroy(h);
            q[4] = now_ms();
            if (cuzk_gpu_msm_create(&b2, CUZK_CURVE_BLS12_381, CUZK_GPU_G2, bases, n / 4, 0, 0, &c2, &e)) {
                fprintf(stderr, "proof sequence: B2: %s\n", e.msg);
                return 1;
            }
            q[5] = now_ms();
            cuzk_gpu_msm_destroy(b2);
            cudaFree(a);
            q[6] = now_ms();
            for (int k = 0; r >= 0 && k < S_COUNT; k++) ts[k][r] = q[k + 1] - q[k];
        }
        for (int k = 0; k < S_COUNT; k++) row(SN[k], ts[k], reps);
    }
    free(bases);
    return 0;
}
