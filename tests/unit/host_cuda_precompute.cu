/* Host check of the precomputed-bases arithmetic (src/gpu/msm/msm_impl.cuh), no
 * GPU needed: f_inv for Fp (both curves) and Fp2 (BLS12-381) against
 * a * a^-1 = 1; pre_copies (copy j of base P = 2^(j shift) P by a Jacobian
 * doubling chain per base, one inversion shared by the copies of K bases)
 * for G1 and G2 of both curves, run as precompute_kernel runs it (threads
 * of K bases at a time, scratch columns at stride nthr), against the CPU
 * library's scalar multiplication by 2^(j shift); bases at infinity among
 * them stay at infinity. A perturbed shift must fail the same comparison.
 *
 * Compiled by nvcc (the header holds kernels) but runs on the host only:
 * CTest test host_cuda_precompute, in CUDA builds (CI has nvcc, no GPU).
 * The device runs are checked against the CPU MSM by test_gpu_msm
 * (test_precompute). */
#include <stdio.h>
#include <string.h>

#include <vector>

#include "gpu/msm/msm_impl.cuh"
extern "C" {
#include "curve/curve_ops.h"
}
#include "util/rng.h"

static uint64_t g_seed = 7;

template <class P> static fp<P> rnd_fp()
{
    fp<P> a;
    for (int i = 0; i < P::N; i++) a.v[i] = (uint32_t)cuzk_splitmix64(&g_seed);
    a.v[P::N - 1] &= 0x0fffffffu; /* below p for both moduli */
    return fp_to_mont(a);
}

/* The CPU side of one group: affine bytes are the GPU's affine<F>. */
struct cpu_group {
    const char *name;
    size_t aff;
    const void *gen;
    void (*mul)(void *j, const void *a, const uint64_t *k, size_t limbs);
    void (*to_affine)(void *a, const void *j);
};

/* Copies of n bases (2 at infinity) for t copies at `shift`, with K bases a
 * thread over nthr threads; returns the number of copies that differ from
 * the CPU's 2^(j shift) P (0 expected), or from infinity for those. */
template <class F>
static int copies_mismatch(const cpu_group &g, size_t n, unsigned t, unsigned shift, unsigned K, size_t nthr,
                           unsigned cpu_shift)
{
    typedef affine<F> A;
    std::vector<A> b(n * t);
    uint8_t jb[1024];
    for (size_t i = 0; i < n; i++) {
        if (i == 2 || i == 5) {
            memset(&b[i], 0, sizeof(A));
            continue;
        }
        const uint64_t k = cuzk_splitmix64(&g_seed) | 1;
        g.mul(jb, g.gen, &k, 1);
        g.to_affine(&b[i], jb);
    }
    const std::vector<A> orig(b.begin(), b.begin() + n);
    std::vector<F> sc(2 * (size_t)K * (t - 1) * nthr);
    for (size_t tid = 0; tid < nthr; tid++) {
        F *zs = sc.data() + tid, *pf = sc.data() + (size_t)K * (t - 1) * nthr + tid;
        for (size_t i0 = tid; i0 < n; i0 += nthr * K) pre_copies(b.data(), n, i0, nthr, K, t, shift, zs, pf, nthr);
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += memcmp(&b[i], &orig[i], sizeof(A)) != 0; /* copy 0 untouched */
        for (unsigned j = 1; j < t; j++) {
            A want;
            if (aff_is_inf(orig[i])) {
                memset(&want, 0, sizeof want);
            } else {
                uint64_t k[4] = {0, 0, 0, 0};
                const unsigned e = j * cpu_shift;
                k[e / 64] = 1ULL << (e % 64);
                g.mul(jb, &orig[i], k, 4);
                g.to_affine(&want, jb);
            }
            bad += memcmp(&b[i + (size_t)j * n], &want, sizeof(A)) != 0;
        }
    }
    return bad;
}

template <class F> static void check_group(const cpu_group &g, int *checks, int *fails)
{
    if (g.aff != sizeof(affine<F>)) {
        printf("%s: affine size %zu, GPU type %zu\n", g.name, g.aff, sizeof(affine<F>));
        (*fails)++;
        return;
    }
    static const unsigned shifts[] = {1, 22, 61};
    static const unsigned ks[] = {1, 3, 16};
    for (unsigned shift : shifts)
        for (unsigned K : ks)
            for (size_t nthr = 1; nthr <= 2; nthr++) {
                const int bad = copies_mismatch<F>(g, 7, 4, shift, K, nthr, shift);
                if (bad) printf("%s: shift %u K %u nthr %zu: %d copies wrong\n", g.name, shift, K, nthr, bad);
                *fails += bad != 0;
                (*checks)++;
            }
    /* off by one doubling: must be caught */
    if (!copies_mismatch<F>(g, 7, 4, 23, 3, 2, 22)) {
        printf("%s: a perturbed shift went unnoticed\n", g.name);
        (*fails)++;
    }
    (*checks)++;
}

int main(void)
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
    const cuzk_curve_ops *bn = cuzk_curve_ops_get(CUZK_CURVE_BN254), *bls = cuzk_curve_ops_get(CUZK_CURVE_BLS12_381);
    const cpu_group groups[4] = {
        {"bn254 G1", bn->desc->g1_affine, bn->desc->g1_generator, bn->g1_mul_affine, bn->g1_to_affine},
        {"bn254 G2", bn->desc->g2_affine, bn->desc->g2_generator, bn->g2_mul_affine, bn->g2_to_affine},
        {"bls12_381 G1", bls->desc->g1_affine, bls->desc->g1_generator, bls->g1_mul_affine, bls->g1_to_affine},
        {"bls12_381 G2", bls->desc->g2_affine, bls->desc->g2_generator, bls->g2_mul_affine, bls->g2_to_affine},
    };
    check_group<bn254_fp>(groups[0], &checks, &fails);
    check_group<bn254_fp2>(groups[1], &checks, &fails);
    check_group<bls12_381_fp>(groups[2], &checks, &fails);
    check_group<bls12_381_fp2>(groups[3], &checks, &fails);
    printf("precompute check: %d checks, %d failed\n", checks, fails);
    return fails != 0;
}
