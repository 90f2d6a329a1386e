/* Host check of the CUZK_GPU_FP2_MODE variants (gpu_field.cuh / gpu_ec.cuh):
 * the modes only move code in and out of line, so every mode must print the
 * same digest of Fp2 products, squares and XYZZ mixed additions, including
 * the doubling branch (P == Q, the by-value xyzz_dbl_affine of modes 1-3),
 * the P == -Q branch and infinity. The device side of each mode is covered by
 * test_gpu_msm built per mode (tools/gpu_g2_dist.sh).
 * build and run:
 *   for m in 0 1 2 3; do g++ -O1 -std=c++17 -Iinclude -Isrc -DCUZK_GPU_FP2_MODE=$m \
 *     tools/fp2_mode_check.cpp -o /tmp/fp2m$m && /tmp/fp2m$m; done   (4 equal lines) */
#include <stdio.h>

#include "gpu/gpu_ec.cuh"

using namespace cuzk_gpu;

static uint64_t g_state = 0x243f6a8885a308d3ULL, g_digest = 1469598103934665603ULL;

static uint32_t rnd()
{
    g_state = g_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(g_state >> 32);
}

template <class P> static fp<P> rnd_fp()
{
    fp<P> a;
    for (int i = 0; i < P::N; i++) a.v[i] = rnd();
    a.v[P::N - 1] &= P::mod(P::N - 1) >> 1; /* below p */
    return a;
}

template <class P> static void eat(const fp<P> &a)
{
    for (int i = 0; i < P::N; i++) g_digest = (g_digest ^ a.v[i]) * 1099511628211ULL;
}
template <class P> static void eat(const fp2<P> &a) { eat(a.c0), eat(a.c1); }
template <class P> static void eat(const xyzz<fp2<P>> &p) { eat(p.x), eat(p.y), eat(p.zz), eat(p.zzz); }

template <class P> static void run(int iters)
{
    typedef fp2<P> F;
    for (int it = 0; it < iters; it++) {
        F a = {rnd_fp<P>(), rnd_fp<P>()}, b = {rnd_fp<P>(), rnd_fp<P>()};
        eat(a * b);
        eat(f_sqr(a));
        affine<F> q = {a, b};
        xyzz<F> acc = {b, a, f_sqr(b), b * f_sqr(b)}; /* generic accumulator */
        xyzz_add_affine(acc, q, it & 1);
        eat(acc);
        xyzz<F> same = {q.x, q.y, f_traits<F>::one(), f_traits<F>::one()};
        xyzz_add_affine(same, q, false); /* P == Q: doubling */
        eat(same);
        xyzz<F> opp = {q.x, q.y, f_traits<F>::one(), f_traits<F>::one()};
        xyzz_add_affine(opp, q, true); /* P == -Q: infinity */
        eat(opp);
        xyzz_add(acc, same);
        eat(acc);
    }
}

int main()
{
    run<bn254_fp_p>(2000);
    run<bls12_381_fp_p>(2000);
    printf("fp2 mode %d digest %016llx\n", CUZK_GPU_FP2_MODE, (unsigned long long)g_digest);
    return 0;
}
