/* Host check of the NTT's Shoup multiplication (src/gpu/ntt_shoup.cuh): the
 * same carry-chain code as on the device, with emulated carries, against the
 * portable Montgomery product (both layouts: shoup_mul, shoup_mul_rows), for both Fr fields: random operands and the
 * edge values 0, 1, 2, p-1, p-2 (as x and as w).
 *
 * build and run: g++ -O2 -std=c++17 -Iinclude -Isrc tools/ntt_shoup_check.cpp -o /tmp/shoup_check && /tmp/shoup_check */
#include <stdio.h>
#include <string.h>

#include "gpu/ntt_shoup.cuh"

using namespace cuzk_gpu;

static uint64_t sm64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform-ish value below p (rejection on the top limb). */
template <class P> static fp<P> rnd(uint64_t *s)
{
    for (;;) {
        fp<P> a;
        for (int j = 0; j < P::N; j++) a.v[j] = (uint32_t)sm64(s);
        a.v[P::N - 1] &= 0x7fffffffu;
        fp<P> t = a;
        fp_reduce_once<P>(t.v);
        if (fp_eq(t, a)) return a; /* a < p */
    }
}

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
            x = rnd<P>(&s);
            w = rnd<P>(&s);
            if (it % 7 == 0) x = small<P>(-1 - (int64_t)(it % 3));
        }
        /* w is a Montgomery-form twiddle: x * w / R */
        fp<P> ref;
        fp_mul_portable<P>(ref.v, x.v, w.v);
        shoup_tw<P> t = shoup_make<P>(w);
        fp<P> got = shoup_mul<P>(x, t), got2 = shoup_mul_rows<P>(x, t);
        if (!fp_eq(got, ref) || !fp_eq(got2, ref)) {
            if (bad < 5) printf("%s: mismatch at iteration %ld\n", name, it);
            bad++;
        }
    }
    printf("%s: %ld products, %ld mismatches\n", name, iters + 25, bad);
    return bad;
}

int main(void)
{
    long bad = check<bn254_fr_p>("bn254 fr", 200000) + check<bls12_381_fr_p>("bls12-381 fr", 200000);
    printf("%s\n", bad ? "FAILED" : "passed");
    return bad ? 1 : 0;
}
