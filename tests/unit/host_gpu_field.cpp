/* Host check of the device Montgomery products (src/gpu/field/gpu_field.cuh): the
 * same carry-chain code as on the device (split-accumulator fp_mul_eo,
 * squaring fp_sqr_eo, a b - c d with one reduction fp_mul_sub_eo), with
 * emulated carries,
 * against the portable 64-bit product, for the four fields (BN254 and
 * BLS12-381, Fp and Fr): random operands below p, and the edge values 0, 1,
 * 2, p-1, p-2, all-ones words below p and single-bit values (for a b - c d: every pair of edge
 * values as (c, d) with a = b = p - 1, the largest sum the bound allows,
 * c = 0 making the negated operand p). The device tests (test_gpu_msm) then
 * check whole MSMs against the CPU library.
 *
 * Built as a host C++ program, so it runs in CI without a GPU: CTest test
 * host_gpu_field. */
#include <stdio.h>

#include "host_gpu_util.h"

using namespace cuzk_gpu;

/* Edge operand k: 0, 1, 2, p-1, p-2, the largest value below p whose words
 * under the top one are all ones (every row multiplier 2^32 - 1: the
 * largest row sums of the chains), then 2^(k-6) for k >= 6. */
template <class P> static fp<P> edge(int k)
{
    fp<P> r = fp_zero<P>();
    if (k < 3) {
        r.v[0] = (uint32_t)k;
    } else if (k < 5) {
        for (int j = 0; j < P::N; j++) r.v[j] = P::mod(j);
        r.v[0] -= (uint32_t)(k - 2); /* the low limb of p is large */
    } else if (k == 5) {
        for (int j = 0; j < P::N - 1; j++) r.v[j] = 0xffffffffu;
        r.v[P::N - 1] = P::mod(P::N - 1) - 1;
    } else {
        const int b = k - 6;
        r.v[b / 32] = 1u << (b % 32);
    }
    return r;
}

template <class P> static long check(const char *name, long iters)
{
    uint64_t s = 4242;
    long bad = 0;
    int nedge = 6;
    while ((nedge - 6) / 32 < P::N - 1) nedge++; /* single bits below the top limb */
    const long total = iters + (long)nedge * nedge;
    for (long it = 0; it < total; it++) {
        fp<P> a, b;
        if (it < (long)nedge * nedge) {
            a = edge<P>((int)(it % nedge));
            b = edge<P>((int)(it / nedge));
        } else {
            a = host_rand_below_p<P>(&s);
            b = host_rand_below_p<P>(&s);
        }
        /* c, d: the edge values in the other order, then random */
        fp<P> c = it < (long)nedge * nedge ? edge<P>((int)(it / nedge)) : host_rand_below_p<P>(&s);
        fp<P> d = it < (long)nedge * nedge ? edge<P>((int)(it % nedge)) : host_rand_below_p<P>(&s);
        fp<P> ref, ref_sq, eo, sq, cd, ref_ms, ms;
        fp_mul_portable<P>(ref.v, a.v, b.v);
        fp_mul_portable<P>(ref_sq.v, a.v, a.v);
        fp_mul_portable<P>(cd.v, c.v, d.v);
        ref_ms = ref - cd;
        fp_mul_eo<P>(eo.v, a.v, b.v);
        if constexpr (fp_sqr_eo_ok<P>()) fp_sqr_eo<P>(sq.v, a.v);
        else sq = ref_sq; /* 3p >= R: the device squares with a product (fp_sqr) */
        if constexpr (fp_mul2_ok<P>()) fp_mul_sub_eo<P>(ms.v, a.v, b.v, c.v, d.v);
        else ms = ref_ms; /* 3p >= R: the device takes two products (fp_mul_sub) */
        if (!fp_eq(eo, ref) || !fp_eq(sq, ref_sq) || !fp_eq(ms, ref_ms)) {
            if (bad < 5)
                printf("%s: mismatch at iteration %ld (eo %d sqr %d mul_sub %d)\n", name, it, fp_eq(eo, ref), fp_eq(sq, ref_sq),
                       fp_eq(ms, ref_ms));
            bad++;
        }
    }
    /* a b - c d at the top of its bound: a = b = p - 1, and a = b = the
     * all-ones value, each with every edge pair (c, d) */
    long nbound = 0;
    if constexpr (fp_mul2_ok<P>()) {
        for (int t = 3; t <= 5; t += 2) {
            const fp<P> top = edge<P>(t);
            fp<P> tt;
            fp_mul_portable<P>(tt.v, top.v, top.v);
            for (long k = 0; k < (long)nedge * nedge; k++, nbound++) {
                const fp<P> c = edge<P>((int)(k % nedge)), d = edge<P>((int)(k / nedge));
                fp<P> cd, ms;
                fp_mul_portable<P>(cd.v, c.v, d.v);
                fp_mul_sub_eo<P>(ms.v, top.v, top.v, c.v, d.v);
                if (!fp_eq(ms, tt - cd)) {
                    if (bad < 5) printf("%s: mul_sub mismatch at edge pair %ld (a = b = edge %d)\n", name, k, t);
                    bad++;
                }
            }
        }
    }
    printf("%s: %ld products, squares and a b - c d, %ld a b - c d at the bound, %ld mismatches%s\n", name, total,
           nbound, bad, fp_mul2_ok<P>() ? "" : " (3p >= R: a b - c d as two products)");
    return bad;
}

/* Row-level check of the chains (fp_sw_prod, fp_sw_addprod, fp_sw_reduce,
 * fp_sqr_sw_prod): the value of the state (X at limbs 0..N-1, Y[j] at limb
 * j - 1 before a product half and at limb j + 1 after it) plus what the
 * row adds must equal the state's value after the row. The states' words
 * are 0, all ones or random, so carries that random operands almost never
 * raise (a fold carry running through a moved word of all ones) are
 * exercised; the state stays below 2p, as between rows. */
template <class P> struct row_state {
    static constexpr int W = P::N + 3;
    uint32_t v[W];
};

/* acc += sum_j w[j] x 2^(32 (j + shift)) over j in [0, n) */
template <class P> static void big_addmul(row_state<P> &acc, const uint32_t *w, int n, uint32_t x, int shift)
{
    for (int j = 0; j < n; j++) {
        uint64_t c = (uint64_t)w[j] * x;
        for (int k = j + shift; k < row_state<P>::W && c; k++) {
            c += acc.v[k];
            acc.v[k] = (uint32_t)c;
            c >>= 32;
        }
    }
}

/* value of X plus Y[j] at limb j + off (j from j0) */
template <class P> static row_state<P> big_value(const uint32_t *X, const uint32_t *Y, int j0, int off)
{
    row_state<P> r = {};
    big_addmul<P>(r, X, P::N, 1, 0);
    big_addmul<P>(r, Y + j0, P::N - j0, 1, j0 + off);
    return r;
}

template <class P> static bool big_eq(const row_state<P> &a, const row_state<P> &b)
{
    for (int k = 0; k < row_state<P>::W; k++)
        if (a.v[k] != b.v[k]) return false;
    return true;
}

static uint32_t pick_word(uint64_t *s)
{
    const uint64_t r = cuzk_splitmix64(s);
    switch (r & 3) {
    case 0: return 0;
    case 1: return 0xffffffffu;
    default: return (uint32_t)(r >> 32);
    }
}

template <class P> static long check_rows(const char *name, long iters)
{
    constexpr int N = P::N;
    uint64_t s = 777;
    long bad = 0, rows = 0;
    for (long it = 0; it < iters; it++) {
        uint32_t X[N], Y[N];
        for (int j = 0; j < N; j++) X[j] = pick_word(&s), Y[j] = pick_word(&s);
        /* below 2p: the top words of X (limb N-1) and Y (limb N-2) under p's */
        X[N - 1] %= P::mod(N - 1);
        Y[N - 1] %= P::mod(N - 1);
        fp<P> a = (it & 1) ? host_rand_below_p<P>(&s) : edge<P>(3 + 2 * (int)((it >> 1) & 1));
        const uint32_t x = pick_word(&s);
        const int i = 1 + (int)(it % (N - 1)); /* the squaring row */
        /* product half: Y moves from limb j - 1 to limb j + 1 */
        {
            uint32_t X1[N], Y1[N];
            for (int j = 0; j < N; j++) X1[j] = X[j], Y1[j] = Y[j];
            row_state<P> want = big_value<P>(X, Y, 1, -1);
            big_addmul<P>(want, a.v, N, x, 0);
            fp_sw_prod<P, false>(X1, Y1, a.v, x);
            bad += !big_eq(want, big_value<P>(X1, Y1, 0, 1));
            rows++;
            /* a second product, then the reduction, on that state */
            fp<P> c = host_rand_below_p<P>(&s);
            const uint32_t y = pick_word(&s);
            if constexpr (fp_mul2_ok<P>()) {
                want = big_value<P>(X1, Y1, 0, 1);
                big_addmul<P>(want, c.v, N, y, 0);
                fp_sw_addprod<P>(X1, Y1, c.v, y);
                bad += !big_eq(want, big_value<P>(X1, Y1, 0, 1));
                rows++;
            }
            uint32_t p[N];
            for (int j = 0; j < N; j++) p[j] = P::mod(j);
            want = big_value<P>(X1, Y1, 0, 1);
            big_addmul<P>(want, p, N, X1[0] * P::m0(), 0);
            fp_sw_reduce<P>(X1, Y1);
            bad += !big_eq(want, big_value<P>(X1, Y1, 0, 1)) || X1[0] != 0;
            rows++;
        }
        /* squaring row i */
        if constexpr (fp_sqr_eo_ok<P>()) {
            uint32_t X1[N], Y1[N], a2[N], u[N];
            a2[0] = a.v[0] << 1;
            for (int j = 1; j < N; j++) a2[j] = (a.v[j] << 1) | (a.v[j - 1] >> 31);
            for (int j = 0; j < N; j++) X1[j] = X[j], Y1[j] = Y[j], u[j] = j < i ? 0 : sqr_word(a.v, a2, i, j);
            row_state<P> want = big_value<P>(X, Y, 1, -1);
            big_addmul<P>(want, u, N, a.v[i], 0);
            fp_sqr_sw_prod<P, false>(X1, Y1, a.v, a2, i);
            bad += !big_eq(want, big_value<P>(X1, Y1, 0, 1));
            rows++;
        }
    }
    printf("%s: %ld row halves on edge states, %ld mismatches\n", name, rows, bad);
    return bad;
}

int main(void)
{
    long bad = check<bn254_fp_p>("bn254 fp", 200000) + check<bn254_fr_p>("bn254 fr", 100000);
    bad += check<bls12_381_fp_p>("bls12-381 fp", 200000) + check<bls12_381_fr_p>("bls12-381 fr", 100000);
    bad += check_rows<bn254_fp_p>("bn254 fp rows", 100000) + check_rows<bn254_fr_p>("bn254 fr rows", 100000);
    bad += check_rows<bls12_381_fp_p>("bls12-381 fp rows", 100000) + check_rows<bls12_381_fr_p>("bls12-381 fr rows", 100000);
    printf("%s\n", bad ? "FAILED" : "passed");
    return bad ? 1 : 0;
}
