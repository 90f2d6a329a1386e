/* Host check of the precomputed-bases arithmetic (msm_impl.cuh): f_inv for
 * Fp (both curves) and Fp2 (BLS12-381) against a * a^-1 = 1, and aff_shift
 * (2^shift P in XYZZ, then affine by one inversion) for BN254 G1 against the
 * XYZZ doubling chain, including two shifts = one double shift. No GPU
 * needed; a perturbed shift fails (checked below).
 *
 * build: nvcc -O2 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Iinclude -Isrc \
 *            tools/gpu_msm_precompute_check.cu -o /tmp/pre_check && /tmp/pre_check */
#include "gpu/msm_impl.cuh"
#include <stdio.h>
/* the library's error helper (the driver code is compiled in, not run) */
extern "C" cuzk_status cuzk_err(cuzk_error *e, cuzk_status code, const char *fmt, ...)
{
    (void)e;
    (void)fmt;
    return code;
}
using F = bn254_fp;
typedef xyzz<F> X;
static uint64_t g_seed = 7;
static uint32_t rnd32()
{
    g_seed = g_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(g_seed >> 32);
}
template <class P> static fp<P> rnd_fp()
{
    fp<P> a;
    for (int i = 0; i < P::N; i++) a.v[i] = rnd32();
    a.v[P::N - 1] &= 0x0fffffffu; /* below p for both moduli */
    return fp_to_mont(a);
}
/* affine p == xyzz r */
static bool same(const affine<F> &p, const X &r) { return fp_eq(r.x, p.x * r.zz) && fp_eq(r.y, p.y * r.zzz); }
int main()
{
    int checks = 0, fails = 0;
    for (int k = 0; k < 20; k++) {
        const bn254_fp a = rnd_fp<bn254_fp_p>();
        const bls12_381_fp b = rnd_fp<bls12_381_fp_p>();
        const bls12_381_fp2 c = {rnd_fp<bls12_381_fp_p>(), rnd_fp<bls12_381_fp_p>()};
        fails += !fp_eq(a * f_inv(a), fp_one<bn254_fp_p>());
        fails += !fp_eq(b * f_inv(b), fp_one<bls12_381_fp_p>());
        fails += !f_eq(c * f_inv(c), f_traits<bls12_381_fp2>::one());
        checks += 3;
    }
    fp<bn254_fp_p> one, two;
    for (int i = 0; i < 8; i++) {
        one.v[i] = i == 0;
        two.v[i] = i == 0 ? 2 : 0;
    }
    affine<F> G = {fp_to_mont(one), fp_to_mont(two)};
    for (unsigned shift : {1u, 4u, 22u, 140u, 231u}) {
        X r;
        r.x = G.x;
        r.y = G.y;
        r.zz = fp_one<bn254_fp_p>();
        r.zzz = r.zz;
        for (unsigned i = 0; i < shift; i++) {
            X d = r;
            xyzz_dbl(r, d);
        }
        affine<F> p = G;
        aff_shift(p, shift);
        fails += !same(p, r);
        affine<F> q = G; /* off by one doubling: must differ */
        aff_shift(q, shift + 1);
        fails += same(q, r);
        affine<F> h = G; /* two half shifts */
        aff_shift(h, shift);
        aff_shift(h, shift);
        X r2 = r;
        for (unsigned i = 0; i < shift; i++) {
            X d = r2;
            xyzz_dbl(r2, d);
        }
        fails += !same(h, r2);
        affine<F> z = {fp_zero<bn254_fp_p>(), fp_zero<bn254_fp_p>()}; /* infinity stays */
        aff_shift(z, shift);
        fails += !aff_is_inf(z);
        checks += 4;
    }
    printf("precompute check: %d checks, %d failed\n", checks, fails);
    return fails != 0;
}
