/* Host check of the NTT's Shoup multiplication (src/gpu/ntt_shoup.cuh): the
 * same carry-chain code as on the device, with emulated carries, against the
 * portable Montgomery product, for both Fr fields: random operands and the
 * edge values 0, 1, 2, p-1, p-2 (as x and as w); the unreduced product
 * (shoup_mul_lazy) chained into a second one, and inputs x + p, x + 2p;
 * and the NTT handle's scale constants (shoup_scale_consts).
 *
 * Built as a host C++ program (the .cuh headers compile without nvcc), so it
 * runs in CI without a GPU: CTest test host_gpu_shoup. */
#include <stdio.h>
#include <string.h>

#include "gpu/ntt_shoup.cuh"
#include "host_gpu_util.h"

using namespace cuzk_gpu;

template <class P> static fp<P> small(int64_t k)
{
    /* k >= 0: k; k < 0: p + k */
    fp<P> r = fp_zero<P>();
    if (k >= 0) {
        r.v[0] = (uint32_t)k;
        return r;
    }
    for (int j = 0; j < P::N; j++) r.v[j] = P::mod(j);
    r.v[0] -= (uint32_t)(-k); /* the low limb of p is large */
    return r;
}

template <class P> static long check(const char *name, long iters)
{
    uint64_t s = 12345;
    long bad = 0;
    const int64_t edge[] = {0, 1, 2, -1, -2};
    for (long it = 0; it < iters + 25; it++) {
        fp<P> x, w;
        if (it < 25) {
            x = small<P>(edge[it % 5]);
            w = small<P>(edge[it / 5]);
        } else {
            x = host_rand_below_p<P>(&s);
            w = host_rand_below_p<P>(&s);
            if (it % 7 == 0) x = small<P>(-1 - (int64_t)(it % 3));
        }
        /* w is a Montgomery-form twiddle: x * w / R */
        fp<P> ref;
        fp_mul_portable<P>(ref.v, x.v, w.v);
        shoup_tw<P> t = shoup_make<P>(w);
        fp<P> got = shoup_mul<P>(x, t);
        if (!fp_eq(got, ref)) {
            if (bad < 5) printf("%s: mismatch at iteration %ld\n", name, it);
            bad++;
        }
    }
    printf("%s: %ld products, %ld mismatches\n", name, iters + 25, bad);
    return bad;
}

/* x + k p (k = 1, 2, as far as it stays below 2^(32N)); false if it does not. */
template <class P> static bool add_kp(fp<P> &x, int k)
{
    for (int i = 0; i < k; i++) {
        uint64_t c = 0;
        for (int j = 0; j < P::N; j++) {
            uint64_t t = (uint64_t)x.v[j] + P::mod(j) + c;
            x.v[j] = (uint32_t)t;
            c = t >> 32;
        }
        if (c) return false;
    }
    return true;
}

/* The unreduced product (shoup_mul_lazy) fed to a second product, and
 * unreduced inputs x + k p and 2^(32N) - 1-ish values: results must be the
 * canonical x w1 w2 / R^2 and x w / R. */
template <class P> static long check_lazy(const char *name, long iters)
{
    uint64_t s = 777;
    long bad = 0;
    for (long it = 0; it < iters; it++) {
        fp<P> x = it < 5 ? small<P>(-1 - it) : host_rand_below_p<P>(&s), w1 = host_rand_below_p<P>(&s), w2 = host_rand_below_p<P>(&s);
        if (it % 11 == 0) w1 = small<P>(-1);
        fp<P> ref, ref2;
        fp_mul_portable<P>(ref.v, x.v, w1.v);
        fp_mul_portable<P>(ref2.v, ref.v, w2.v);
        shoup_tw<P> t1 = shoup_make<P>(w1), t2 = shoup_make<P>(w2);
        fp<P> got2 = shoup_mul<P>(shoup_mul_lazy<P>(x, t1), t2);
        if (!fp_eq(got2, ref2)) {
            if (bad < 5) printf("%s: lazy chain mismatch at iteration %ld\n", name, it);
            bad++;
        }
        for (int k = 1; k <= 2; k++) {
            fp<P> xk = x;
            if (!add_kp(xk, k)) break;
            if (!fp_eq(shoup_mul<P>(xk, t1), ref)) {
                if (bad < 5) printf("%s: x + %dp mismatch at iteration %ld\n", name, k, it);
                bad++;
            }
        }
    }
    printf("%s: %ld lazy chains, %ld mismatches\n", name, iters, bad);
    return bad;
}

/* The handle's scale constants (shoup_scale_consts): c[0] x = x, and
 * 2^lg c[1 + lg] = 1, for lg 0..28 (the largest handle), and each constant
 * in range (w < p). */
template <class P> static long check_scale(const char *name)
{
    const unsigned max_lg = 28;
    shoup_tw<P> c[max_lg + 2];
    shoup_scale_consts<P>(c, max_lg);
    uint64_t s = 99;
    long bad = 0;
    for (int it = 0; it < 100; it++) {
        fp<P> x = host_rand_below_p<P>(&s);
        if (!fp_eq(shoup_mul<P>(x, c[0]), x)) bad++;
    }
    const fp<P> one = fp_one<P>();
    for (unsigned lg = 0; lg <= max_lg; lg++) {
        fp<P> n = fp_zero<P>(); /* 2^lg, Montgomery form */
        n.v[lg / 32] = 1u << (lg % 32);
        n = fp_to_mont(n);
        fp<P> w; /* the constant's w (standard form) must be below p */
        for (int k = 0; k < P::N; k++) w.v[k] = c[1 + lg].v[k];
        fp<P> wr = w;
        fp_reduce_once<P>(wr.v);
        if (!fp_eq(shoup_mul<P>(n, c[1 + lg]), one) || !fp_eq(wr, w)) {
            if (bad < 5) printf("%s: (2^%u)^-1 wrong\n", name, lg);
            bad++;
        }
    }
    printf("%s: %u scale constants, %ld mismatches\n", name, max_lg + 2, bad);
    return bad;
}

int main(void)
{
    long bad = check<bn254_fr_p>("bn254 fr", 200000) + check<bls12_381_fr_p>("bls12-381 fr", 200000);
    bad += check_lazy<bn254_fr_p>("bn254 fr", 100000) + check_lazy<bls12_381_fr_p>("bls12-381 fr", 100000);
    bad += check_scale<bn254_fr_p>("bn254 fr") + check_scale<bls12_381_fr_p>("bls12-381 fr");
    printf("%s\n", bad ? "FAILED" : "passed");
    return bad ? 1 : 0;
}
