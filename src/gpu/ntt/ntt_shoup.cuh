/* Shoup multiplication by a precomputed constant, for the NTT's twiddles.
 *
 * For a constant w (standard form, w < p) and w' = floor(w * 2^K / p) with
 * K = 32(N+1) (N+1 limbs), and any x < p (here: a Montgomery-form value, so
 * the product stays in Montgomery form: (xR) * w = (xw)R):
 *   q = floor(x w' / 2^K),  r = x w - q p  in [0, p + p^2/2^K).
 * q is computed from the product columns >= N-1 only, and of column N-1
 * only the high halves (the carries into column N); what is dropped adds
 * < (N-1) 2^(32N) (columns < N-1) + N 2^(32N) (low halves of column N-1)
 * << 2^K, so the computed q~ is q or q - 1 and
 *   r~ = x w - q~ p  in [0, 2p + p^2/2^K)  < 2^(32N)    (2p < 2^(32N)),
 * which is computed modulo 2^(32N) as low(x w) + low(q~ (2^(32N) - p)), then
 * brought below p by two conditional subtractions.
 *
 * Cost for N = 8: 44 products for q~ less 8 low halves (80 IMADs) and
 * 2 x 36 low-half products (64 + 64 IMADs), 208 IMADs against 264 for a
 * Montgomery product, which is what the
 * NTT is bound by. Each row of a sum is two carry chains for
 * instruction-level parallelism, and the x*w rows do not depend on q~, so
 * they overlap with it. shoup_mul splits the chains by the parity of the
 * column where each 64-bit partial product starts (shoup_mul_par), so every
 * chain into an accumulator pairs the same registers; splitting them by the
 * parity of the limb would alternate the pairing between rows and cost
 * register moves (docs/PERFORMANCE.md has the measurement).
 *
 * Also here: the NTT's 1/n scale as a division by 2^k (fp_div_pow2).
 *
 * Written with gpu_field.cuh's carry-chain primitives, so the same code runs
 * on the host (emulated carries) and is checked there against the Montgomery
 * product (tests/unit/host_gpu_shoup.cpp). */
#ifndef CUZK_GPU_NTT_SHOUP_CUH
#define CUZK_GPU_NTT_SHOUP_CUH

#include "gpu/field/gpu_field.cuh"

namespace cuzk_gpu {

/* A twiddle with its Shoup constant: w (N limbs, standard form), w' (N+1
 * limbs), padded to 16 bytes so it loads with 128-bit accesses. */
template <class P> struct alignas(16) shoup_tw {
    static constexpr int WORDS = ((2 * P::N + 1) + 3) / 4 * 4;
    uint32_t v[WORDS]; /* w[0..N-1], w'[0..N] */
};

/* 2^(32N) - p, limb i (p is odd: no carry past limb 0). */
template <class P> CUZK_HD constexpr uint32_t shoup_pbar(int i) { return i == 0 ? 0u - P::mod(0) : ~P::mod(i); }

/* Column-parity layout (shoup_mul_par): each row of a product is added as
 * two carry chains, one for the 64-bit partial products that start at an
 * even column (into accumulator EV) and one for those at odd columns (OD).
 * Every chain into an accumulator then pairs the same registers (IMAD.WIDE
 * writes aligned pairs); a row layout (chains of even / odd j) alternates
 * the pairing between rows and costs ~150 register moves per product on
 * sm_90. The chain bounds and carry handling are compile-time
 * (template parameters), so the accumulators stay in registers. */

/* Last column a chain writes: products j in [j0, j1], (c0 + j) of parity
 * par, columns above lim dropped; -1 if empty. */
constexpr int shoup_chain_last(int c0, int j0, int j1, int par, int lim)
{
    int js = ((c0 + j0) & 1) != par ? j0 + 1 : j0, last = -1;
    for (int j = js; j <= j1 && c0 + j <= lim; j += 2) last = c0 + j + 1 <= lim ? c0 + j + 1 : c0 + j;
    return last;
}

/* Highest possibly non-zero column after a chain that ends at `last`: the
 * carry out of a column that was zero before is 0 (hi(a b) + 1 < 2^32);
 * otherwise it is propagated through columns up to top and captured above. */
constexpr int shoup_top_after(int top, int last, int lim)
{
    if (last < 0 || last > top) return last > top ? last : top;
    int k = last + 1;
    if (k > lim) return top;
    while (k <= top && k < lim) k++;
    return k <= top ? top : k;
}

/* Top of the q~ accumulators (columns of x * w', rows 0..i-1). */
template <int N> constexpr int shoup_q_top(int i, int par)
{
    int top = -1;
    for (int r = 0; r < i; r++) {
        const int j0 = N - 1 - r > 0 ? N - 1 - r : 0;
        top = shoup_top_after(top, shoup_chain_last(r, j0, N - 1, par, 2 * N + 2), 2 * N + 2);
    }
    return top;
}

/* One chain: acc[c0 + j .. ] += a[j] * b (AX) or pbar[j] * b. DROP: the
 * low half of the chain's first product, when it lands in that column, is
 * not added (only its high half; q~ drops column N-1, see shoup_mul_par). */
template <class P, int NC, int C0, int J0, int J1, int PAR, int LIM, int TOP, bool AX, int DROP = -1>
CUZK_HD void shoup_chain(uint32_t (&acc)[NC], const uint32_t *a, uint32_t b)
{
    constexpr int JS = ((C0 + J0) & 1) != PAR ? J0 + 1 : J0;
    constexpr int LAST = shoup_chain_last(C0, J0, J1, PAR, LIM);
    if constexpr (LAST >= 0) {
        uint32_t cf = 0;
CUZK_UNROLL
        for (int j = JS; j <= J1 && C0 + j <= LIM; j += 2) {
            const uint32_t aj = AX ? a[j] : shoup_pbar<P>(j);
            if (j == JS && C0 + j == DROP && C0 + j + 1 <= LIM) {
                c_mad_hi_cc(acc[C0 + j + 1], aj, b, acc[C0 + j + 1], cf);
                continue;
            }
            if (j == JS) c_mad_lo_cc(acc[C0 + j], aj, b, acc[C0 + j], cf);
            else c_madc_lo_cc(acc[C0 + j], aj, b, acc[C0 + j], cf);
            if (C0 + j + 1 <= LIM) c_madc_hi_cc(acc[C0 + j + 1], aj, b, acc[C0 + j + 1], cf);
        }
        if constexpr (LAST <= TOP && LAST + 1 <= LIM) {
            constexpr int NEWTOP = shoup_top_after(TOP, LAST, LIM);
CUZK_UNROLL
            for (int k = LAST + 1; k <= TOP && k < LIM; k++) c_addc_cc(acc[k], acc[k], 0, cf);
            if constexpr (NEWTOP == TOP) {
                c_addc(acc[LIM], acc[LIM], 0, cf); /* the top column: carry out dropped */
            } else {
                c_addc(acc[NEWTOP], 0, 0, cf);
            }
        }
    }
}

template <class P, int I> struct shoup_q_rows {
    static constexpr int N = P::N, NC = 2 * N + 3;
    static CUZK_HD void run(uint32_t (&EV)[NC], uint32_t (&OD)[NC], const uint32_t *x, const uint32_t *wp)
    {
        if constexpr (I <= N) {
            constexpr int J0 = N - 1 - I > 0 ? N - 1 - I : 0;
            shoup_chain<P, NC, I, J0, N - 1, 0, NC - 1, shoup_q_top<N>(I, 0), true, N - 1>(EV, x, wp[I]);
            shoup_chain<P, NC, I, J0, N - 1, 1, NC - 1, shoup_q_top<N>(I, 1), true, N - 1>(OD, x, wp[I]);
            shoup_q_rows<P, I + 1>::run(EV, OD, x, wp);
        }
    }
};

/* Low half: columns 0 .. N-1 only (carries out of the top are dropped). */
template <class P, int I, bool AX> struct shoup_lo_rows {
    static constexpr int N = P::N;
    static CUZK_HD void run(uint32_t (&LE)[N], uint32_t (&LO)[N], const uint32_t *a, const uint32_t *b)
    {
        if constexpr (I < N) {
            shoup_chain<P, N, I, 0, N - 1, 0, N - 1, N, AX>(LE, a, b[I]);
            shoup_chain<P, N, I, 0, N - 1, 1, N - 1, N, AX>(LO, a, b[I]);
            shoup_lo_rows<P, I + 1, AX>::run(LE, LO, a, b);
        }
    }
};

/* Shoup product with column-parity accumulators.
 * RED = false skips the two final subtractions: the result is then r~ <
 * 2p + p/2^32 < 2^(32N) (2p < 2^(32N) for both Fr), and that is a valid
 * input of another Shoup product, since the bound above holds for any
 * x < 2^(32N): q >= x w/p - x/2^K - 1, so x w - q p < p + x p/2^K
 * < p (1 + 2^-32), plus p when q~ = q - 1. */
template <class P, bool RED = true>
CUZK_HD void shoup_mul_par(uint32_t *r, const uint32_t *x, const uint32_t *w, const uint32_t *wp)
{
    constexpr int N = P::N;
    constexpr int NC = 2 * N + 3;
    uint32_t cf = 0;
    /* q~: columns N .. 2N of x * w', from the products with column >= N-1,
     * the low halves of column N-1 left out */
    uint32_t EV[NC], OD[NC];
CUZK_UNROLL
    for (int k = 0; k < NC; k++) EV[k] = OD[k] = 0;
    shoup_q_rows<P, 0>::run(EV, OD, x, wp);
    uint32_t q[N], t1;
    c_add_cc(t1, EV[N], OD[N], cf);
CUZK_UNROLL
    for (int k = 0; k < N; k++) c_addc_cc(q[k], EV[N + 1 + k], OD[N + 1 + k], cf);
    (void)t1;

    /* r~ = low(x w) + low(q~ pbar) mod 2^(32N) */
    uint32_t LE[N], LO[N];
CUZK_UNROLL
    for (int k = 0; k < N; k++) LE[k] = LO[k] = 0;
    shoup_lo_rows<P, 0, true>::run(LE, LO, x, w);
    shoup_lo_rows<P, 0, false>::run(LE, LO, nullptr, q);
    c_add_cc(r[0], LE[0], LO[0], cf);
CUZK_UNROLL
    for (int k = 1; k < N; k++) c_addc_cc(r[k], LE[k], LO[k], cf);
    if constexpr (RED) {
        fp_reduce_once<P>(r);
        fp_reduce_once<P>(r);
    }
}

template <class P> CUZK_HD fp<P> shoup_mul(const fp<P> &x, const shoup_tw<P> &t)
{
    fp<P> r;
    shoup_mul_par<P>(r.v, x.v, t.v, t.v + P::N);
    return r;
}

/* x * w unreduced (< 2p + p/2^32, see shoup_mul_par): only to be fed to
 * another shoup_mul, e.g. x * lo * hi for a windowed twiddle. */
template <class P> CUZK_HD fp<P> shoup_mul_lazy(const fp<P> &x, const shoup_tw<P> &t)
{
    fp<P> r;
    shoup_mul_par<P, false>(r.v, x.v, t.v, t.v + P::N);
    return r;
}

/* ---- values below 2p (the NTT's butterflies) ----------------------------
 * Inside a transform the values are kept below 2p rather than p: a sum is
 * brought below 2p by one conditional subtraction of 2p, a difference by one
 * conditional addition of 2p, and a Shoup product (below 2p + p/2^32 when
 * unreduced) needs no subtraction except in the rare case of a result >= 2p,
 * which a test of its top limb finds. That saves the product's two
 * conditional subtractions per butterfly. 2p < 2^(32N) for both Fr; 4p may
 * not be (BLS12-381), so a sum's carry out of the top limb is kept. The
 * transform's outputs are brought below p once, at its end (fp_reduce_once). */

/* Limb i of 2p. */
template <class P> CUZK_HD constexpr uint32_t twop_limb(int i)
{
    return (P::mod(i) << 1) | (i > 0 ? P::mod(i - 1) >> 31 : 0u);
}

/* t + c 2^(32N) < 4p  ->  below 2p, the same modulo p (c: 0 or 1). */
template <class P> CUZK_HD void fp_sub_2p_once(uint32_t *t, uint32_t c)
{
    constexpr int N = P::N;
    uint32_t s[N], keep;
#if CUZK_GPU_USE_PTX
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(twop_limb<P>(0)));
CUZK_UNROLL
    for (int i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(t[i]), "r"(twop_limb<P>(i)));
    asm volatile("subc.u32 %0, %1, 0;" : "=r"(keep) : "r"(c));
#else
    uint64_t borrow = 0;
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        uint64_t d = (uint64_t)t[i] - twop_limb<P>(i) - borrow;
        s[i] = (uint32_t)d;
        borrow = (d >> 32) & 1;
    }
    keep = c - (uint32_t)borrow;
#endif
    /* keep = c - borrow: all ones when t < 2p (no carry, a borrow); 0 when
     * t >= 2p (no carry, no borrow, or a carry and a borrow; a carry
     * without a borrow would need t >= 2^(32N) + 2p > 4p). */
CUZK_UNROLL
    for (int i = 0; i < N; i++) t[i] = (t[i] & keep) | (s[i] & ~keep);
}

/* a + b for a, b < 2p: below 2p. */
template <class P> CUZK_HD fp<P> fp_add_2p(const fp<P> &a, const fp<P> &b)
{
    constexpr int N = P::N;
    fp<P> r;
    uint32_t cf = 0, c;
    c_add_cc(r.v[0], a.v[0], b.v[0], cf);
CUZK_UNROLL
    for (int i = 1; i < N; i++) c_addc_cc(r.v[i], a.v[i], b.v[i], cf);
    c_addc(c, 0, 0, cf);
    fp_sub_2p_once<P>(r.v, c);
    return r;
}

/* a - b for a, b < 2p: below 2p (2p added when a < b). */
template <class P> CUZK_HD fp<P> fp_sub_2p(const fp<P> &a, const fp<P> &b)
{
    constexpr int N = P::N;
    fp<P> r;
    uint32_t mask;
#if CUZK_GPU_USE_PTX
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
CUZK_UNROLL
    for (int i = 1; i < N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(twop_limb<P>(0) & mask));
CUZK_UNROLL
    for (int i = 1; i < N; i++) asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(twop_limb<P>(i) & mask));
#else
    uint64_t borrow = 0;
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        uint64_t d = (uint64_t)a.v[i] - b.v[i] - borrow;
        r.v[i] = (uint32_t)d;
        borrow = (d >> 32) & 1;
    }
    mask = 0u - (uint32_t)borrow;
    uint64_t c = 0;
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        uint64_t t = (uint64_t)r.v[i] + (twop_limb<P>(i) & mask) + c;
        r.v[i] = (uint32_t)t;
        c = t >> 32;
    }
#endif
    return r;
}

/* x * w below 2p, for any x < 2^(32N): the unreduced product is below
 * 2p + p/2^32, and >= 2p only when its top limb is at least 2p's, which
 * almost never happens (the branch is not taken in practice). */
template <class P> CUZK_HD fp<P> shoup_mul_2p(const fp<P> &x, const shoup_tw<P> &t)
{
    fp<P> r;
    shoup_mul_par<P, false>(r.v, x.v, t.v, t.v + P::N);
    if (__builtin_expect(r.v[P::N - 1] >= twop_limb<P>(P::N - 1), 0)) fp_sub_2p_once<P>(r.v, 0);
    return r;
}

/* The Shoup form of a Montgomery-form constant wm (w = wm / R):
 * w' = floor(w 2^(32(N+1)) / p) by binary long division (w < p, so the
 * quotient has 32(N+1) bits). Host and device (large tables are converted
 * on the device). */
template <class P> CUZK_HD shoup_tw<P> shoup_make(const fp<P> &wm)
{
    constexpr int N = P::N;
    shoup_tw<P> t;
    for (int k = 0; k < shoup_tw<P>::WORDS; k++) t.v[k] = 0;
    const fp<P> w = fp_from_mont(wm);
    uint32_t rem[N + 1];
    for (int k = 0; k < N; k++) {
        t.v[k] = w.v[k];
        rem[k] = w.v[k];
    }
    rem[N] = 0;
    uint32_t *qp = t.v + N;
    for (int bit = 32 * (N + 1) - 1; bit >= 0; bit--) {
        /* rem = 2 rem (< 2p < 2^(32N+1): one extra word) */
        for (int k = N; k > 0; k--) rem[k] = (rem[k] << 1) | (rem[k - 1] >> 31);
        rem[0] <<= 1;
        /* rem >= p ? */
        int ge = rem[N] != 0;
        if (!ge) {
            ge = 1;
            for (int k = N - 1; k >= 0; k--) {
                if (rem[k] != P::mod(k)) {
                    ge = rem[k] > P::mod(k);
                    break;
                }
            }
        }
        if (ge) {
            uint64_t borrow = 0;
            for (int k = 0; k < N; k++) {
                uint64_t d = (uint64_t)rem[k] - P::mod(k) - borrow;
                rem[k] = (uint32_t)d;
                borrow = (d >> 32) & 1;
            }
            rem[N] -= (uint32_t)borrow;
            qp[bit / 32] |= 1u << (bit % 32);
        }
    }
    return t;
}

/* x 2^-k mod p for 1 <= k <= 31 and x < 2p (Montgomery form is kept:
 * (xR) 2^-k = (x 2^-k) R): the NTT's 1/n scale, one partial Montgomery step
 * instead of a product by the constant n^-1. m = -x p^-1 mod 2^k makes
 * x + m p divisible by 2^k, and (x + m p) / 2^k < (2p + 2^k p) / 2^k <= 2p
 * needs one conditional subtraction: N + 1 multiply-add pairs and a shift
 * instead of a 208-IMAD Shoup product. Host and device. */
template <class P> CUZK_HD fp<P> fp_div_pow2(const fp<P> &x, unsigned k)
{
    constexpr int N = P::N;
    const uint32_t m = (x.v[0] * P::m0()) & ((1u << k) - 1u);
    uint32_t t[N + 1], cf = 0;
    c_mad_lo_cc(t[0], m, P::mod(0), x.v[0], cf);
CUZK_UNROLL
    for (int j = 1; j < N; j++) c_madc_lo_cc(t[j], m, P::mod(j), x.v[j], cf);
    c_addc(t[N], 0, 0, cf);
    c_mad_hi_cc(t[1], m, P::mod(0), t[1], cf);
CUZK_UNROLL
    for (int j = 1; j < N - 1; j++) c_madc_hi_cc(t[j + 1], m, P::mod(j), t[j + 1], cf);
    c_madc_hi_cc(t[N], m, P::mod(N - 1), t[N], cf); /* t < 2^(32N + k): no carry out */
    fp<P> r;
CUZK_UNROLL
    for (int j = 0; j < N; j++) r.v[j] = (t[j] >> k) | (t[j + 1] << (32 - k));
    fp_reduce_once<P>(r.v);
    return r;
}

} /* namespace cuzk_gpu */

#endif
