/* Host check of the precomputed-bases arithmetic (msm_impl.cuh): f_inv for
 * Fp (both curves) and Fp2 (BLS12-381) against a * a^-1 = 1, and pre_copies
 * (copies 2^(j shift) P by a Jacobian doubling chain and one batched
 * inversion) for BN254 G1 against the XYZZ doubling chain. No GPU needed; a
 * perturbed shift fails (checked below).
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
        /* copies j = 1..t-1 of G against the XYZZ doubling chain */
        const unsigned t = shift > 100 ? 2 : 5;
        affine<F> out[5], out1[5];
        F zs[4], pf[4];
        out[0] = G;
        out1[0] = G;
        pre_copies(G, out, 1, t, shift, zs, pf, 1);
        pre_copies(G, out1, 1, t, shift + 1, zs, pf, 1); /* off by one doubling: must differ */
        X r;
        r.x = G.x;
        r.y = G.y;
        r.zz = fp_one<bn254_fp_p>();
        r.zzz = r.zz;
        for (unsigned j = 1; j < t; j++) {
            for (unsigned i = 0; i < shift; i++) {
                X d = r;
                xyzz_dbl(r, d);
            }
            fails += !same(out[j], r);
            fails += same(out1[j], r);
            checks += 2;
        }
        affine<F> z[5] = {{fp_zero<bn254_fp_p>(), fp_zero<bn254_fp_p>()}}; /* infinity stays */
        pre_copies(z[0], z, 1, t, shift, zs, pf, 1);
        for (unsigned j = 1; j < t; j++) fails += !aff_is_inf(z[j]);
        checks++;
    }
    printf("precompute check: %d checks, %d failed\n", checks, fails);
    return fails != 0;
}
