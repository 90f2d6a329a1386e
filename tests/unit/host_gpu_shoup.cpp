/* Host check of the NTT's Shoup multiplication (src/gpu/ntt/ntt_shoup.cuh): the
 * same carry-chain code as on the device, with emulated carries, against the
 * portable Montgomery product, for both Fr fields: random operands and the
 * edge values 0, 1, 2, p-1, p-2 (as x and as w); the unreduced product
 * (shoup_mul_lazy) chained into a second one, and inputs x + p, x + 2p;
 * the NTT's 1/n scale (fp_div_pow2); and the below-2p sums, differences and
 * products of the butterflies (fp_add_2p, fp_sub_2p, shoup_mul_2p).
 *
 * Built as a host C++ program (the .cuh headers compile without nvcc), so it
 * runs in CI without a GPU: CTest test host_gpu_shoup. */
#include <stdio.h>
#include <string.h>

#include "gpu/ntt/ntt_shoup.cuh"
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

/* The NTT's 1/n scale (fp_div_pow2): y = x 2^-k must satisfy y < p and
 * y 2^k = x (mod p), checked with the portable Montgomery product by 2^k,
 * for k = 1..28 (up to the largest handle) and x < 2p: random values, the
 * edges 0, 1, p - 1, and x + p. */
template <class P> static long check_div_pow2(const char *name)
{
    uint64_t s = 99;
    long bad = 0, n = 0;
    for (unsigned k = 1; k <= 28; k++) {
        fp<P> pk = fp_zero<P>(); /* 2^k, Montgomery form */
        pk.v[k / 32] = 1u << (k % 32);
        pk = fp_to_mont(pk);
        for (int it = 0; it < 2000; it++) {
            fp<P> x = it < 3 ? small<P>(it == 2 ? -1 : it) : host_rand_below_p<P>(&s), xin = x;
            if (it % 5 == 4 && !add_kp(xin, 1)) xin = x;
            fp<P> y = fp_div_pow2<P>(xin, k), yr = y, back;
            fp_reduce_once<P>(yr.v);
            fp_mul_portable<P>(back.v, y.v, pk.v);
            n++;
            if (!fp_eq(back, x) || !fp_eq(yr, y)) {
                if (bad < 5) printf("%s: x 2^-%u wrong at iteration %d\n", name, k, it);
                bad++;
            }
        }
    }
    printf("%s: %ld divisions by 2^k, %ld mismatches\n", name, n, bad);
    return bad;
}

/* x < 2p? */
template <class P> static bool below_2p(const fp<P> &x)
{
    for (int i = P::N - 1; i >= 0; i--)
        if (x.v[i] != twop_limb<P>(i)) return x.v[i] < twop_limb<P>(i);
    return false;
}

/* The lazy (below 2p) arithmetic of the NTT's butterflies: fp_add_2p,
 * fp_sub_2p and shoup_mul_2p on operands below 2p (random, x + p, the edges
 * 0, 1, p - 1, p, 2p - 1) must give results below 2p that are the canonical
 * sum, difference and product once reduced. */
template <class P> static long check_2p(const char *name, long iters)
{
    uint64_t s = 4242;
    long bad = 0;
    fp<P> pm1 = small<P>(-1), p = pm1, tpm1 = pm1;
    p.v[0] += 1;           /* p (the low limb of p - 1 does not wrap) */
    add_kp(tpm1, 1);       /* 2p - 1 */
    const fp<P> edge[] = {small<P>(0), small<P>(1), pm1, p, tpm1};
    for (long it = 0; it < iters; it++) {
        fp<P> a, b, w = host_rand_below_p<P>(&s);
        if (it < 25) {
            a = edge[it % 5];
            b = edge[it / 5];
        } else {
            a = host_rand_below_p<P>(&s);
            b = host_rand_below_p<P>(&s);
            if (it % 2) add_kp(a, 1);
            if (it % 3 == 0) add_kp(b, 1);
        }
        fp<P> ca = a, cb = b; /* canonical */
        fp_reduce_once<P>(ca.v);
        fp_reduce_once<P>(cb.v);
        fp<P> sum = fp_add_2p<P>(a, b), dif = fp_sub_2p<P>(a, b);
        fp<P> prd = shoup_mul_2p<P>(a, shoup_make<P>(w)), ref;
        fp_mul_portable<P>(ref.v, ca.v, w.v);
        bool ok = below_2p(sum) && below_2p(dif) && below_2p(prd);
        fp_reduce_once<P>(sum.v);
        fp_reduce_once<P>(dif.v);
        fp_reduce_once<P>(prd.v);
        ok = ok && fp_eq(sum, ca + cb) && fp_eq(dif, ca - cb) && fp_eq(prd, ref);
        if (!ok) {
            if (bad < 5) printf("%s: below-2p arithmetic wrong at iteration %ld\n", name, it);
            bad++;
        }
    }
    /* what the rare branch of shoup_mul_2p does with an unreduced product
     * just above 2p: 2p + k -> k */
    for (uint32_t k = 0; k < 1000; k++) {
        fp<P> t = tpm1, kk = small<P>(k);
        uint64_t c = 1; /* 2p - 1 + 1 + k */
        for (int j = 0; j < P::N; j++) {
            uint64_t v = (uint64_t)t.v[j] + (j == 0 ? k : 0) + c;
            t.v[j] = (uint32_t)v;
            c = v >> 32;
        }
        fp_sub_2p_once<P>(t.v, 0);
        if (!fp_eq(t, kk)) {
            if (bad < 5) printf("%s: 2p + %u not brought to %u\n", name, k, k);
            bad++;
        }
    }
    printf("%s: %ld below-2p sums, differences, products, %ld mismatches\n", name, iters, bad);
    return bad;
}

int main(void)
{
    long bad = check<bn254_fr_p>("bn254 fr", 200000) + check<bls12_381_fr_p>("bls12-381 fr", 200000);
    bad += check_lazy<bn254_fr_p>("bn254 fr", 100000) + check_lazy<bls12_381_fr_p>("bls12-381 fr", 100000);
    bad += check_div_pow2<bn254_fr_p>("bn254 fr") + check_div_pow2<bls12_381_fr_p>("bls12-381 fr");
    bad += check_2p<bn254_fr_p>("bn254 fr", 100000) + check_2p<bls12_381_fr_p>("bls12-381 fr", 100000);
    printf("%s\n", bad ? "FAILED" : "passed");
    return bad ? 1 : 0;
}
