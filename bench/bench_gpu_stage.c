/* Where a streamed MSM's staged uploads spend their time. Staged bases
 * (cuzk_gpu_msm_stager) cost 22 % a proof at tiers 4 and 7 on an H100
 * where page-locked ones kept the kernels fed (docs/PERFORMANCE.md); this
 * separates the parts of that path:
 *  1. host copies into page-locked memory, what a stager's fill does, with
 *     T = 1, 2, 4, 8, 16 threads (GB/s);
 *  2. the DMA of page-locked memory to the device, the bus (GB/s);
 *  3. a streamed BLS12-381 G1 MSM of 2^lg host bases (all of them cross the
 *     bus at every run: a budget that keeps none), the bases page-locked
 *     (pin_host_bases) and then staged (the handle's own stager), and the
 *     same MSM over bases on the device (no upload): its ms and the
 *     uploads' GB/s (bases bytes over the run's time).
 * The bases are points at infinity (zero bytes), so the kernels do little
 * and the runs show the upload paths. Median of --reps after a warm-up.
 *
 * usage: bench_gpu_stage [--reps R] [--lg L] [--gib G]
 *   --lg L    the MSM, 2^L bases (24: 1.6 GB)
 *   --gib G   the bytes of steps 1 and 2 (1)
 * Exits 77 without a CUDA device. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "cuzk/gpu.h"

#include "bench_stats.h"

static double now_ms(void) { return bench_clock(CLOCK_MONOTONIC) * 1e3; }

#define MAXR 64
#define MAXT 16

typedef struct {
    char *dst;
    const char *src;
    size_t bytes;
} part;

static void *copy_part(void *arg)
{
    const part *p = arg;
    memcpy(p->dst, p->src, p->bytes);
    return NULL;
}

/* dst <- src, bytes split over t threads (this one included); ms. */
static double copy_threads(char *dst, const char *src, size_t bytes, int t)
{
    part ps[MAXT];
    pthread_t th[MAXT];
    int started[MAXT] = {0};
    const size_t per = (bytes / (size_t)t + 63) & ~(size_t)63;
    const double t0 = now_ms();
    for (int i = 0; i < t; i++) {
        const size_t b = per * (size_t)i < bytes ? per * (size_t)i : bytes;
        const size_t e = per * (size_t)(i + 1) < bytes ? per * (size_t)(i + 1) : bytes;
        ps[i] = (part){dst + b, src + b, e - b};
        if (i > 0) started[i] = pthread_create(&th[i], NULL, copy_part, &ps[i]) == 0;
    }
    for (int i = 0; i < t; i++)
        if (!started[i]) copy_part(&ps[i]);
    for (int i = 1; i < t; i++)
        if (started[i]) pthread_join(th[i], NULL);
    return now_ms() - t0;
}

static void row(const char *name, double ms, double bytes)
{
    printf("%-52s %10.3f %8.1f\n", name, ms, bytes / ms / 1e6);
}

#define CK(x)                                                                       \
    do {                                                                            \
        cudaError_t rc_ = (x);                                                      \
        if (rc_ != cudaSuccess) {                                                   \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(rc_));               \
            return 1;                                                               \
        }                                                                           \
    } while (0)

/* The median ms of reps runs (after a warm-up) of a streamed MSM over
 * bases: page-locked (pin 1) or staged (pin 0), or on the device (dev). */
static int msm_ms(const void *bases, int dev, int pin, size_t n, const uint64_t *d_sc, int reps, double *out)
{
    cuzk_gpu_msm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.precompute = 1;
    cfg.batch_points = (size_t)1 << 22;
    cfg.pin_host_bases = pin;
    cuzk_gpu_msm_plan pl;
    cuzk_error e = {0};
    char name[128];
    size_t mem;
    int sms = 0;
    if (cuzk_gpu_device_info(0, name, sizeof name, &mem, &sms, &e)) {
        fprintf(stderr, "device info: %s\n", e.msg);
        return 1;
    }
    /* the least budget that plans (from 256 MiB up by quarters): streamed,
     * keeping few or no bases, so the runs upload them */
    for (size_t b = (size_t)256 << 20; !cfg.device_budget && b < ((size_t)64 << 30); b += b / 4) {
        memset(&e, 0, sizeof e);
        if (cuzk_gpu_msm_plan_make(CUZK_CURVE_BLS12_381, CUZK_GPU_G1, n, &cfg, sms, b, &pl, &e) == CUZK_OK)
            cfg.device_budget = b;
    }
    memset(&e, 0, sizeof e);
    cuzk_gpu_msm *m = NULL;
    if (!cfg.device_budget || cuzk_gpu_msm_create(&m, CUZK_CURVE_BLS12_381, CUZK_GPU_G1, bases, n, dev, 0, &cfg, &e)) {
        fprintf(stderr, "msm create: %s\n", cfg.device_budget ? e.msg : "no budget plans");
        return 1;
    }
    cuzk_gpu_msm_get_plan(m, &pl);
    double t[MAXR];
    uint8_t res[256];
    for (int r = -1; r < reps; r++) {
        const double t0 = now_ms();
        if (cuzk_gpu_msm_run(m, res, d_sc, n, 1, NULL, &e)) {
            fprintf(stderr, "msm run: %s\n", e.msg);
            cuzk_gpu_msm_destroy(m);
            return 1;
        }
        if (r >= 0) t[r] = now_ms() - t0;
    }
    *out = bench_median(t, reps);
    printf("  (plan: %s, %zu of %zu bases kept, chunks of %zu)\n", pl.streamed ? "streamed" : "resident",
           pl.resident_points, n, pl.chunk_points);
    cuzk_gpu_msm_destroy(m);
    return 0;
}

int main(int argc, char **argv)
{
    int reps = 5;
    unsigned lg = 24;
    double gib = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--reps")) reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--lg")) lg = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--gib")) gib = atof(argv[i + 1]);
        else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1 || reps > MAXR || lg < 16 || lg > 27 || gib <= 0 || gib > 16) {
        fprintf(stderr, "bench_gpu_stage: --reps 1..%d, --lg 16..27, --gib (0, 16]\n", MAXR);
        return 2;
    }
    if (cuzk_gpu_device_count() == 0) {
        printf("no CUDA device\n");
        return 77;
    }
    const size_t bytes = (size_t)(gib * 1073741824.0);
    char *src = malloc(bytes), *pinned = NULL, *dev = NULL;
    if (!src) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    memset(src, 1, bytes); /* faulted in, as a held key's bases */
    CK(cudaHostAlloc((void **)&pinned, bytes, cudaHostAllocPortable));
    CK(cudaMalloc((void **)&dev, bytes));
    printf("%-52s %10s %8s\n", "step", "median ms", "GB/s");
    static const int threads[] = {1, 2, 4, 8, 16};
    for (size_t k = 0; k < sizeof threads / sizeof *threads; k++) {
        double t[MAXR];
        for (int r = -1; r < reps; r++) {
            const double ms = copy_threads(pinned, src, bytes, threads[k]);
            if (r >= 0) t[r] = ms;
        }
        char name[64];
        snprintf(name, sizeof name, "host -> page-locked, %d thread%s", threads[k], threads[k] > 1 ? "s" : "");
        row(name, bench_median(t, reps), (double)bytes);
    }
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    double t[MAXR];
    for (int r = -1; r < reps; r++) {
        const double t0 = now_ms();
        CK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, st));
        CK(cudaStreamSynchronize(st));
        if (r >= 0) t[r] = now_ms() - t0;
    }
    row("page-locked -> device (DMA)", bench_median(t, reps), (double)bytes);
    CK(cudaStreamDestroy(st));
    CK(cudaFree(dev));
    CK(cudaFreeHost(pinned));
    free(src);

    /* the MSM: zero bases (infinity), uniform scalars below 2^252 on the device */
    const size_t n = (size_t)1 << lg, bb = n * 96;
    char *bases = calloc(n, 96);
    uint64_t *sc = malloc(n * 32), *d_sc = NULL;
    void *d_bases = NULL;
    if (!bases || !sc) {
        fprintf(stderr, "out of host memory for 2^%u bases\n", lg);
        return 1;
    }
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < 4 * n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        sc[i] = (i & 3) == 3 ? x >> 4 : x;
    }
    CK(cudaMalloc((void **)&d_sc, n * 32));
    CK(cudaMemcpy(d_sc, sc, n * 32, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d_bases, bb));
    CK(cudaMemcpy(d_bases, bases, bb, cudaMemcpyHostToDevice));
    static const char *const what[3] = {"MSM, bases page-locked (DMA from them)", "MSM, bases staged (the stager)",
                                        "MSM, bases on the device (no upload)"};
    for (int v = 0; v < 3; v++) {
        double ms;
        if (msm_ms(v == 2 ? d_bases : bases, v == 2, v == 0, n, d_sc, reps, &ms)) return 1;
        char name[80];
        snprintf(name, sizeof name, "%s, 2^%u", what[v], lg);
        row(name, ms, (double)bb);
    }
    cudaFree(d_bases);
    cudaFree(d_sc);
    free(sc);
    free(bases);
    return 0;
}
