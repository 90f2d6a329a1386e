/* GPU arithmetic micro-benchmark (tuning aid, not part of the library):
 * field multiplication rate (split even/odd accumulators, portable 64-bit),
 * checked against each other,
 * and the XYZZ mixed-addition rate with the build's default multiplication,
 * squaring (fp_sqr_eo) against the product a * a,
 * against the IMAD ceiling of performance-anchors.md §5 (H200: 61.5 G/s for
 * 8 limbs, 27.9 G/s for 12).
 *
 * build: nvcc -O3 -std=c++17 -arch=sm_90 --expt-relaxed-constexpr -Iinclude -Isrc tools/gpu_micro.cu -o gpu_micro */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/ec/gpu_ec.cuh"

using namespace cuzk_gpu;

#define CK(x)                                                                                       \
    do {                                                                                            \
        cudaError_t r_ = (x);                                                                       \
        if (r_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(r_));                                \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

enum { V_EO = 1, V_PORT = 2, V_SQR = 3, V_SQRMUL = 4 };

template <class P, int V> __device__ __forceinline__ fp<P> mulv(const fp<P> &a, const fp<P> &b)
{
    fp<P> r;
    if (V == V_EO) fp_mul_eo<P>(r.v, a.v, b.v);
    else if (V == V_SQR) fp_sqr_eo<P>(r.v, a.v); /* squaring: x <- x^2 (b unused) */
    else if (V == V_SQRMUL) fp_mul_eo<P>(r.v, a.v, a.v);
    else fp_mul_portable<P>(r.v, a.v, b.v);
    return r;
}

template <class P, int V> __global__ void mul_kernel(fp<P> *io, int iters)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    fp<P> x1 = io[3 * t], x2 = io[3 * t + 1], y = io[3 * t + 2];
    for (int i = 0; i < iters; i++) {
        x1 = mulv<P, V>(x1, y);
        x2 = mulv<P, V>(x2, y);
    }
    io[3 * t] = x1;
    io[3 * t + 1] = x2;
}

template <class F> __global__ void madd_kernel(xyzz<F> *acc_io, const affine<F> *pts, int iters)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    xyzz<F> acc = acc_io[t];
    for (int i = 0; i < iters; i++) {
        unsigned k = (unsigned)(t * 13 + i * 7) & 1023;
        affine<F> q = pts[k];
        xyzz_add_affine(acc, q, i & 1);
    }
    acc_io[t] = acc;
}

static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Random reduced elements (top limb masked below p). */
template <class P> static void fill(fp<P> *v, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < P::N; j++) v[i].v[j] = (uint32_t)sm64(&seed);
        v[i].v[P::N - 1] &= (P::mod(P::N - 1) >> 1);
    }
}

static int g_sms;

template <class P, int V> static double run_mul(const char *name, const char *vname, fp<P> *out_check)
{
    const int threads = 256, blocks = g_sms * 8, iters = 512;
    const size_t nt = (size_t)threads * blocks;
    fp<P> *h = (fp<P> *)malloc(3 * nt * sizeof(fp<P>)), *d;
    fill(h, 3 * nt, 11);
    CK(cudaMalloc(&d, 3 * nt * sizeof(fp<P>)));
    CK(cudaMemcpy(d, h, 3 * nt * sizeof(fp<P>), cudaMemcpyHostToDevice));
    mul_kernel<P, V><<<blocks, threads>>>(d, 4); /* warm-up */
    CK(cudaGetLastError());
    CK(cudaMemcpy(d, h, 3 * nt * sizeof(fp<P>), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    mul_kernel<P, V><<<blocks, threads>>>(d, iters);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    CK(cudaMemcpy(h, d, 3 * nt * sizeof(fp<P>), cudaMemcpyDeviceToHost));
    memcpy(out_check, h, 64 * sizeof(fp<P>));
    double rate = 2.0 * iters * nt / (ms * 1e-3) / 1e9;
    printf("mul  %-10s %-9s %8.3f ms  %6.1f G mul/s\n", name, vname, ms, rate);
    cudaFree(d);
    free(h);
    return rate;
}

template <class P> static void mul_suite(const char *name)
{
    fp<P> c0[64], c1[64];
    run_mul<P, V_EO>(name, "eo", c0);
    run_mul<P, V_PORT>(name, "portable", c1);
    bool same = !memcmp(c0, c1, sizeof c0);
    printf("mul  %-10s variants agree: %s\n", name, same ? "yes" : "NO (BUG)");
    /* squaring chains x <- x^2: fp_sqr_eo against the product a * a */
    run_mul<P, V_SQR>(name, "sqr-eo", c0);
    run_mul<P, V_SQRMUL>(name, "sqr-as-mul", c1);
    printf("sqr  %-10s variants agree: %s\n", name, !memcmp(c0, c1, sizeof c0) ? "yes" : "NO (BUG)");
}

template <class F> static void madd_suite(const char *name, int threads)
{
    const int blocks = g_sms * 16, iters = 256;
    const size_t nt = (size_t)threads * blocks;
    const size_t fsz = sizeof(F) / 4;
    uint32_t *h = (uint32_t *)malloc(nt * sizeof(xyzz<F>));
    uint64_t seed = 5;
    /* accumulators: random X, Y, ZZ = ZZZ = 1-ish (any non-zero values) */
    for (size_t i = 0; i < nt * 4 * fsz; i++) h[i] = (uint32_t)sm64(&seed) & 0x0fffffff;
    affine<F> *hp = (affine<F> *)malloc(1024 * sizeof(affine<F>));
    uint32_t *w = (uint32_t *)hp;
    for (size_t i = 0; i < 1024 * 2 * fsz; i++) w[i] = (uint32_t)sm64(&seed) & 0x0fffffff;
    xyzz<F> *d;
    affine<F> *dp;
    CK(cudaMalloc(&d, nt * sizeof(xyzz<F>)));
    CK(cudaMalloc(&dp, 1024 * sizeof(affine<F>)));
    CK(cudaMemcpy(d, h, nt * sizeof(xyzz<F>), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dp, hp, 1024 * sizeof(affine<F>), cudaMemcpyHostToDevice));
    madd_kernel<F><<<blocks, threads>>>(d, dp, 2);
    CK(cudaGetLastError());
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaEventRecord(e0));
    madd_kernel<F><<<blocks, threads>>>(d, dp, iters);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    double rate = (double)iters * nt / (ms * 1e-3) / 1e9;
    printf("madd %-10s %4d thr/blk %8.3f ms  %6.2f G madd/s\n", name, threads, ms, rate);
    cudaFree(d);
    cudaFree(dp);
    free(h);
    free(hp);
}

int main(void)
{
    CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
    mul_suite<bn254_fr_p>("fr256");
    mul_suite<bls12_381_fp_p>("fp381");
    for (int th = 64; th <= 256; th *= 2) {
        madd_suite<bn254_fp>("bn254 G1", th);
        madd_suite<bls12_381_fp>("bls G1", th);
    }
    madd_suite<bn254_fp2>("bn254 G2", 128);
    madd_suite<bls12_381_fp2>("bls G2", 128);
    return 0;
}
