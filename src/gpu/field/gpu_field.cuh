/* Device (and host) prime-field arithmetic for the CUDA kernels.
 *
 * Representation: the same bytes as the CPU code (field/fp_decl.h): Montgomery
 * form with R = 2^(64*N64), little-endian. Here the limbs are 32-bit
 * (N = 2*N64 of them), which on a little-endian machine is the same memory as
 * N64 64-bit limbs, so buffers are copied bit-for-bit between CPU and GPU.
 *
 * Multiplication is CIOS Montgomery on 32-bit limbs. On the device it uses
 * inline PTX carry chains (mad.lo.cc / madc.hi.cc); on the host a portable
 * version with 64-bit accumulators, against which the host tests check the
 * chain code (tests/unit/host_gpu_field.cpp).
 *
 * Every modulus here has at least one spare top bit (p < R/2), so sums of two
 * reduced values never overflow N limbs and CIOS stays < 2p without an extra
 * carry word.
 *
 * Field parameters are small structs (made by CUZK_GPU_FIELD below) exposing
 * the constants through constexpr functions, so after unrolling they fold into
 * instruction immediates. */
#ifndef CUZK_GPU_FIELD_CUH
#define CUZK_GPU_FIELD_CUH

#include <stdint.h>

#include "field/field_params.h"

#if defined(__CUDACC__)
#define CUZK_HD __host__ __device__ __forceinline__
#define CUZK_DEV __device__ __forceinline__
#else
#define CUZK_HD inline
#define CUZK_DEV inline
#endif

/* Unrolling hint for device code; the host compiler ignores loops it need
 * not unroll (and would warn about an unknown pragma). */
#if defined(__CUDA_ARCH__)
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL
#endif

/* Out-of-line device functions: used for the big, rarely hot formulas (Fp2
 * products, full XYZZ additions and doublings) to keep compile time and
 * instruction-cache footprint bounded; the hot mixed addition stays inline. */
#if defined(__CUDACC__)
#define CUZK_HD_NOINLINE __host__ __device__ __noinline__
#else
#define CUZK_HD_NOINLINE inline
#endif

#if defined(__CUDA_ARCH__)
#define CUZK_GPU_USE_PTX 1
#else
#define CUZK_GPU_USE_PTX 0
#endif

/* One parameter struct per field. N = number of 32-bit limbs. */
#define CUZK_GPU_FIELD(NAME, PFX, N64_)                                              \
    struct NAME {                                                                    \
        static constexpr int N = 2 * (N64_);                                         \
        static constexpr int BITS = PFX##_P_BITS;                                    \
        static CUZK_HD constexpr uint32_t mod(int i)                                 \
        {                                                                            \
            constexpr uint64_t m[N64_] = PFX##_P_MODULUS;                            \
            return (uint32_t)(m[i / 2] >> (32 * (i & 1)));                           \
        }                                                                            \
        static CUZK_HD constexpr uint32_t one(int i)                                 \
        {                                                                            \
            constexpr uint64_t m[N64_] = PFX##_P_ONE;                                \
            return (uint32_t)(m[i / 2] >> (32 * (i & 1)));                           \
        }                                                                            \
        static CUZK_HD constexpr uint32_t r2(int i)                                  \
        {                                                                            \
            constexpr uint64_t m[N64_] = PFX##_P_R2;                                 \
            return (uint32_t)(m[i / 2] >> (32 * (i & 1)));                           \
        }                                                                            \
        static CUZK_HD constexpr uint32_t m0() { return (uint32_t)(PFX##_P_INV); }   \
    }

namespace cuzk_gpu {

CUZK_GPU_FIELD(bn254_fp_p, bn254_fp, 4);
CUZK_GPU_FIELD(bn254_fr_p, bn254_fr, 4);
CUZK_GPU_FIELD(bls12_381_fp_p, bls12_381_fp, 6);
CUZK_GPU_FIELD(bls12_381_fr_p, bls12_381_fr, 4);

/* A field element. Alignment 16 so arrays load with 128-bit accesses; all
 * element sizes (32 and 48 bytes) are multiples of 16, so the layout of an
 * array equals the CPU's uint64_t[N64] array. */
template <class P> struct alignas(16) fp {
    static constexpr int N = P::N;
    uint32_t v[P::N];
};

/* ---- small helpers ---------------------------------------------------- */

template <class P> CUZK_HD fp<P> fp_zero()
{
    fp<P> r;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) r.v[i] = 0;
    return r;
}

template <class P> CUZK_HD fp<P> fp_one()
{
    fp<P> r;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) r.v[i] = P::one(i);
    return r;
}

template <class P> CUZK_HD bool fp_is_zero(const fp<P> &a)
{
    uint32_t t = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) t |= a.v[i];
    return t == 0;
}

template <class P> CUZK_HD bool fp_eq(const fp<P> &a, const fp<P> &b)
{
    uint32_t t = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) t |= a.v[i] ^ b.v[i];
    return t == 0;
}

/* t < 2p  ->  t mod p (branch-free select). On the device one sub.cc
 * chain (the 64-bit borrow emulation costs several instructions a limb). */
template <class P> CUZK_HD void fp_reduce_once(uint32_t *t)
{
#if CUZK_GPU_USE_PTX
    uint32_t s[P::N], keep;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(t[0]), "r"(P::mod(0)));
CUZK_UNROLL
    for (int i = 1; i < P::N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(s[i]) : "r"(t[i]), "r"(P::mod(i)));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(keep)); /* all ones: borrow, t < p */
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) t[i] = (t[i] & keep) | (s[i] & ~keep);
#else
    uint32_t s[P::N];
    uint64_t borrow = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) {
        uint64_t d = (uint64_t)t[i] - P::mod(i) - borrow;
        s[i] = (uint32_t)d;
        borrow = (d >> 32) & 1;
    }
    /* borrow = 1: t < p, keep t. */
    uint32_t keep = 0u - (uint32_t)borrow;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) t[i] = (t[i] & keep) | (s[i] & ~keep);
#endif
}

template <class P> CUZK_HD fp<P> operator+(const fp<P> &a, const fp<P> &b)
{
    fp<P> r;
#if CUZK_GPU_USE_PTX
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
CUZK_UNROLL
    for (int i = 1; i < P::N; i++)
        asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
#else
    uint64_t c = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) {
        uint64_t s = (uint64_t)a.v[i] + b.v[i] + c;
        r.v[i] = (uint32_t)s;
        c = s >> 32;
    }
#endif
    fp_reduce_once<P>(r.v);
    return r;
}

template <class P> CUZK_HD fp<P> operator-(const fp<P> &a, const fp<P> &b)
{
    fp<P> r;
    uint32_t mask;
#if CUZK_GPU_USE_PTX
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(a.v[0]), "r"(b.v[0]));
CUZK_UNROLL
    for (int i = 1; i < P::N; i++)
        asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(a.v[i]), "r"(b.v[i]));
    asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));
#else
    uint64_t borrow = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) {
        uint64_t d = (uint64_t)a.v[i] - b.v[i] - borrow;
        r.v[i] = (uint32_t)d;
        borrow = (d >> 32) & 1;
    }
    mask = 0u - (uint32_t)borrow;
#endif
    /* a < b: add p back (mask is all ones). */
#if CUZK_GPU_USE_PTX
    asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(r.v[0]) : "r"(P::mod(0) & mask));
CUZK_UNROLL
    for (int i = 1; i < P::N; i++)
        asm volatile("addc.cc.u32 %0, %0, %1;" : "+r"(r.v[i]) : "r"(P::mod(i) & mask));
#else
    uint64_t c = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) {
        uint64_t s = (uint64_t)r.v[i] + (P::mod(i) & mask) + c;
        r.v[i] = (uint32_t)s;
        c = s >> 32;
    }
#endif
    return r;
}

template <class P> CUZK_HD fp<P> fp_dbl(const fp<P> &a) { return a + a; }

template <class P> CUZK_HD fp<P> fp_neg(const fp<P> &a)
{
    /* p - a, and 0 stays 0. */
    fp<P> r;
#if CUZK_GPU_USE_PTX
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r.v[0]) : "r"(P::mod(0)), "r"(a.v[0]));
CUZK_UNROLL
    for (int i = 1; i < P::N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r.v[i]) : "r"(P::mod(i)), "r"(a.v[i]));
    uint32_t nzp = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) nzp |= a.v[i];
    const uint32_t keepp = nzp ? 0xffffffffu : 0u;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) r.v[i] &= keepp;
#else
    uint64_t borrow = 0;
    uint32_t nz = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) {
        uint64_t d = (uint64_t)P::mod(i) - a.v[i] - borrow;
        r.v[i] = (uint32_t)d;
        borrow = (d >> 32) & 1;
        nz |= a.v[i];
    }
    uint32_t keep = nz ? 0xffffffffu : 0u;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) r.v[i] &= keep;
#endif
    return r;
}

/* Conditional negate (flag != 0). */
template <class P> CUZK_HD fp<P> fp_cneg(const fp<P> &a, bool flag)
{
    fp<P> n = fp_neg(a);
    fp<P> r;
    uint32_t m = flag ? 0xffffffffu : 0u;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) r.v[i] = (n.v[i] & m) | (a.v[i] & ~m);
    return r;
}

/* ---- Montgomery multiplication ---------------------------------------- */

/* Carry-chain primitives. On the device they are single PTX instructions that
 * read/write the hardware carry flag; on the host they emulate that flag in
 * `cf`, so the exact same chain code (fp_mul_eo, fp_sqr_eo) is unit-tested on
 * the host against the portable product (tests/unit/host_gpu_field.cpp). On the device `cf` is dead and optimised away.
 * Like sppark, the device chains rely on nothing between consecutive
 * asm volatile statements touching the carry flag (the compiler emits no .cc
 * instructions of its own). */
#if CUZK_GPU_USE_PTX
#define CUZK_PTX2(op, d, a, b) asm volatile(op " %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define CUZK_PTX3(op, d, a, b, c) asm volatile(op " %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
CUZK_HD void c_mad_lo_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &) { CUZK_PTX3("mad.lo.cc.u32", d, a, b, c); }
CUZK_HD void c_madc_lo_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &) { CUZK_PTX3("madc.lo.cc.u32", d, a, b, c); }
CUZK_HD void c_mad_hi_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &) { CUZK_PTX3("mad.hi.cc.u32", d, a, b, c); }
CUZK_HD void c_madc_hi_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &) { CUZK_PTX3("madc.hi.cc.u32", d, a, b, c); }
CUZK_HD void c_madc_hi(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &) { CUZK_PTX3("madc.hi.u32", d, a, b, c); }
CUZK_HD void c_addc_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t &) { CUZK_PTX2("addc.cc.u32", d, a, b); }
CUZK_HD void c_addc(uint32_t &d, uint32_t a, uint32_t b, uint32_t &) { CUZK_PTX2("addc.u32", d, a, b); }
CUZK_HD void c_add_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t &) { CUZK_PTX2("add.cc.u32", d, a, b); }
#else
CUZK_HD void c_mad_lo_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &cf)
{
    uint64_t s = (uint64_t)(uint32_t)(a * b) + c;
    d = (uint32_t)s;
    cf = (uint32_t)(s >> 32);
}
CUZK_HD void c_madc_lo_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &cf)
{
    uint64_t s = (uint64_t)(uint32_t)(a * b) + c + cf;
    d = (uint32_t)s;
    cf = (uint32_t)(s >> 32);
}
CUZK_HD void c_mad_hi_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &cf)
{
    uint64_t s = (((uint64_t)a * b) >> 32) + c;
    d = (uint32_t)s;
    cf = (uint32_t)(s >> 32);
}
CUZK_HD void c_madc_hi_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &cf)
{
    uint64_t s = (((uint64_t)a * b) >> 32) + c + cf;
    d = (uint32_t)s;
    cf = (uint32_t)(s >> 32);
}
CUZK_HD void c_madc_hi(uint32_t &d, uint32_t a, uint32_t b, uint32_t c, uint32_t &cf)
{
    d = (uint32_t)((((uint64_t)a * b) >> 32) + c + cf);
}
CUZK_HD void c_addc_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t &cf)
{
    uint64_t s = (uint64_t)a + b + cf;
    d = (uint32_t)s;
    cf = (uint32_t)(s >> 32);
}
CUZK_HD void c_addc(uint32_t &d, uint32_t a, uint32_t b, uint32_t &cf) { d = a + b + cf; }
CUZK_HD void c_add_cc(uint32_t &d, uint32_t a, uint32_t b, uint32_t &cf)
{
    uint64_t s = (uint64_t)a + b;
    d = (uint32_t)s;
    cf = (uint32_t)(s >> 32);
}
#endif

/* CIOS with the accumulator split in two, so that each row is two
 * independent carry chains instead of one long one (more instruction-level
 * parallelism for the same number of multiply-adds), and with every
 * lo / hi product pair landing on a pair of words that stays a pair from
 * row to row (ptxas turns each pair into one wide multiply-add on a 64-bit
 * register pair; a pair that straddles two register pairs costs moves).
 *
 * Between rows the value is V = X + Y / 2^32 with X[j] at limb j
 * (j = 0..N-1) and Y[j] at limb j - 1 (j = 1..N-1; Y[0] is free). A row
 * (fp_sw_prod, then fp_sw_reduce) with x = b[i]:
 *   X[0] += Y[1] (limb 0), its carry starting the odd chain, which adds
 *   the odd products a[j+1] x (limbs j+1, j+2) to the old Y moved down
 *   two words: Y[j], Y[j+1] <- a[j+1] x + Y[j+2], Y[j+3], so that Y[j] is
 *   now at limb j + 1;
 *   the even chain adds a[j] x to X[j], X[j+1] in place; its carry (limb
 *   N) goes into Y[N-1], which is limb N;
 *   m = X[0] m0, and the same two chains add m p; X[0] becomes 0.
 * Dividing by 2^32 is then a renaming that swaps the roles: Y (limbs
 * 1..N) is the next row's X (limbs 0..N-1), X (limbs 0..N-1, X[0] = 0) the
 * next row's Y (Y[j] at limb j - 1). The caller swaps the two arrays every
 * row, and a row's pairs (X[j], X[j+1]) and (Y[j], Y[j+1]) with j even are
 * the same pairs in every row.
 *
 * No chain has a carry out of its top word: a chain's words hold part of
 * V_row = V + a x + m p (the most the row holds before the division), and
 * V_row < 2p + 2p (2^32 - 1) = 2p 2^32 <= 2^(32(N+1)) with p < R / 2 (spare
 * modulus bit; V < 2p after every row by induction), so Y (limbs 1..N)
 * stays below 2^(32N). At the end V < 2p < 2^(32N): one addition of the
 * two halves and one conditional subtraction finish. */

/* The product half of a row: X[0] += Y[1], Y <- (Y >> 64 bits) + a_odd x,
 * X += a_even x, the even chain's carry into Y[N-1]. FIRST: X, Y start at
 * 0 (no fold, no old Y). */
template <class P, bool FIRST>
CUZK_HD void fp_sw_prod(uint32_t *X, uint32_t *Y, const uint32_t *a, uint32_t x)
{
    constexpr int N = P::N;
    uint32_t cf = 0;
    if (FIRST) {
        c_mad_lo_cc(Y[0], a[1], x, 0, cf);
    } else {
        c_add_cc(X[0], X[0], Y[1], cf);
        c_madc_lo_cc(Y[0], a[1], x, Y[2], cf);
    }
    c_madc_hi_cc(Y[1], a[1], x, FIRST ? 0 : Y[3], cf);
CUZK_UNROLL
    for (int j = 2; j < N - 2; j += 2) {
        c_madc_lo_cc(Y[j], a[j + 1], x, FIRST ? 0 : Y[j + 2], cf);
        c_madc_hi_cc(Y[j + 1], a[j + 1], x, FIRST ? 0 : Y[j + 3], cf);
    }
    c_madc_lo_cc(Y[N - 2], a[N - 1], x, 0, cf);
    c_madc_hi(Y[N - 1], a[N - 1], x, 0, cf);
    c_mad_lo_cc(X[0], a[0], x, FIRST ? 0 : X[0], cf);
    c_madc_hi_cc(X[1], a[0], x, FIRST ? 0 : X[1], cf);
CUZK_UNROLL
    for (int j = 2; j < N; j += 2) {
        c_madc_lo_cc(X[j], a[j], x, FIRST ? 0 : X[j], cf);
        c_madc_hi_cc(X[j + 1], a[j], x, FIRST ? 0 : X[j + 1], cf);
    }
    c_addc(Y[N - 1], Y[N - 1], 0, cf);
}

/* X, Y += c y in place (a second product in the same row: fp_mul2_eo),
 * the even chain's carry into Y[N-1]. */
template <class P> CUZK_HD void fp_sw_addprod(uint32_t *X, uint32_t *Y, const uint32_t *c, uint32_t y)
{
    constexpr int N = P::N;
    uint32_t cf = 0;
    c_mad_lo_cc(Y[0], c[1], y, Y[0], cf);
    c_madc_hi_cc(Y[1], c[1], y, Y[1], cf);
CUZK_UNROLL
    for (int j = 2; j < N - 2; j += 2) {
        c_madc_lo_cc(Y[j], c[j + 1], y, Y[j], cf);
        c_madc_hi_cc(Y[j + 1], c[j + 1], y, Y[j + 1], cf);
    }
    c_madc_lo_cc(Y[N - 2], c[N - 1], y, Y[N - 2], cf);
    c_madc_hi(Y[N - 1], c[N - 1], y, Y[N - 1], cf);
    c_mad_lo_cc(X[0], c[0], y, X[0], cf);
    c_madc_hi_cc(X[1], c[0], y, X[1], cf);
CUZK_UNROLL
    for (int j = 2; j < N; j += 2) {
        c_madc_lo_cc(X[j], c[j], y, X[j], cf);
        c_madc_hi_cc(X[j + 1], c[j], y, X[j + 1], cf);
    }
    c_addc(Y[N - 1], Y[N - 1], 0, cf);
}

/* The reduction half of a row: X, Y += m p with m = X[0] m0 (X[0] holds V
 * mod 2^32 and becomes 0). The caller then swaps X and Y. */
template <class P> CUZK_HD void fp_sw_reduce(uint32_t *X, uint32_t *Y)
{
    const uint32_t m = X[0] * P::m0();
    uint32_t p[P::N];
CUZK_UNROLL
    for (int j = 0; j < P::N; j++) p[j] = P::mod(j);
    fp_sw_addprod<P>(X, Y, p, m);
}

/* r = X + Y (Y[j] at limb j - 1), then the conditional subtraction. */
template <class P> CUZK_HD void fp_sw_final(uint32_t *r, const uint32_t *X, const uint32_t *Y)
{
    constexpr int N = P::N;
    uint32_t cf = 0;
    c_add_cc(r[0], X[0], Y[1], cf);
CUZK_UNROLL
    for (int j = 1; j < N - 1; j++) c_addc_cc(r[j], X[j], Y[j + 1], cf);
    c_addc(r[N - 1], X[N - 1], 0, cf);
    fp_reduce_once<P>(r);
}

template <class P> CUZK_HD void fp_mul_eo(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    constexpr int N = P::N;
    uint32_t A[N], B[N];
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        uint32_t *X = (i & 1) ? B : A, *Y = (i & 1) ? A : B;
        if (i == 0) fp_sw_prod<P, true>(X, Y, a, b[0]);
        else fp_sw_prod<P, false>(X, Y, a, b[i]);
        fp_sw_reduce<P>(X, Y);
    }
    /* N is even: after the last row's swap X is A again */
    fp_sw_final<P>(r, A, B);
}

/* r = (a b + c d) / R mod p with ONE Montgomery reduction (the lazy
 * reduction reduce(a b + c d) of the ZPrize MSMs): each CIOS row adds
 * a b_i and c d_i, then m p once, so the m p products (N^2 multiply-adds
 * and N m words) of the second product are not done. a, b, d < p and
 * c <= p (c = p - x for a difference a b - x d: fp_mul_sub). Bounds: after
 * row i, V = (the sums over the first i words + M_i p) / 2^(32 i) <
 * b + d + p <= 3p, and within a row V_row < 3p + (a + c + p)(2^32 - 1) <=
 * 3p 2^32, which needs 3p < R (fp_mul2_ok: both base fields, p < R/5, and
 * BN254's r; not BLS12-381's r, 0.45 R) for no chain to carry out of its
 * top word; at the end V = (a b + c d + M p) / R < 2 p^2 / R + p < 2p, and
 * one conditional subtraction finishes. */
template <class P> CUZK_HD constexpr bool fp_mul2_ok() { return P::mod(P::N - 1) < 0x55555555u; }

template <class P>
CUZK_HD void fp_mul2_eo(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *c, const uint32_t *d)
{
    static_assert(fp_mul2_ok<P>(), "fp_mul2_eo needs 3p < R");
    constexpr int N = P::N;
    uint32_t A[N], B[N];
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        uint32_t *X = (i & 1) ? B : A, *Y = (i & 1) ? A : B;
        if (i == 0) fp_sw_prod<P, true>(X, Y, a, b[0]);
        else fp_sw_prod<P, false>(X, Y, a, b[i]);
        fp_sw_addprod<P>(X, Y, c, d[i]);
        fp_sw_reduce<P>(X, Y);
    }
    fp_sw_final<P>(r, A, B);
}

/* p - x for 0 <= x < p, in (0, p]: no zero test (fp_mul2_eo takes c = p). */
template <class P> CUZK_HD void fp_p_minus(uint32_t *r, const uint32_t *x)
{
#if CUZK_GPU_USE_PTX
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(P::mod(0)), "r"(x[0]));
CUZK_UNROLL
    for (int i = 1; i < P::N; i++) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r[i]) : "r"(P::mod(i)), "r"(x[i]));
#else
    uint64_t borrow = 0;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) {
        uint64_t t = (uint64_t)P::mod(i) - x[i] - borrow;
        r[i] = (uint32_t)t;
        borrow = (t >> 32) & 1;
    }
#endif
}

/* a b - c d (Montgomery) with one reduction: a b + (p - c) d. */
template <class P> CUZK_HD void fp_mul_sub_eo(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *c, const uint32_t *d)
{
    uint32_t nc[P::N];
    fp_p_minus<P>(nc, c);
    fp_mul2_eo<P>(r, a, b, nc, d);
}

/* Squaring in the shape of fp_mul_eo, whose interleaved chains ptxas turns
 * into wide multiply-adds (separate lo and hi chains compile to about 1.5x
 * the instructions). a^2 = sum_i a_i 2^(32i) U_i with
 *   U_i = a_i 2^(32i) + 2 sum_{j>i} a_j 2^(32j),
 * whose words (sqr_word) are a_i at word i, a_{i+1} << 1 at word i+1 and
 * the words of 2a above (2a < 2^(32N): spare modulus bit). So CIOS row i
 * multiplies x = a_i by that vector and skips the words below i: N(N+1)/2
 * instead of N^2 product pairs (BLS12-381 Fp: 78 of 144); the reduction
 * half of each row is unchanged (fp_sw_reduce). Row i adds x U_i / 2^(32i)
 * < 2^32 2a, so V_row < 2p + 2^32 (2a + p) < 3p 2^32: the chains keep no
 * carry word only where 3p < R (fp_sqr_eo_ok; fp_sqr falls back to a
 * product elsewhere). The result is (a^2 + M p) / R < p (p / R) + p, so
 * the final conditional subtraction suffices. */
template <class P> CUZK_HD constexpr bool fp_sqr_eo_ok() { return fp_mul2_ok<P>(); }

CUZK_HD uint32_t sqr_word(const uint32_t *a, const uint32_t *a2, int i, int j)
{
    return j == i ? a[j] : j == i + 1 ? a[j] << 1 : a2[j];
}

template <class P, bool FIRST>
CUZK_HD void fp_sqr_sw_prod(uint32_t *X, uint32_t *Y, const uint32_t *a, const uint32_t *a2, int i)
{
    constexpr int N = P::N;
    const uint32_t x = a[i];
    uint32_t cf = 0;
    /* odd words k = j + 1: products a_i u_k (k >= i); below i the old Y
     * only moves down two words, carrying the fold of Y[1] into X[0] */
    if (!FIRST) c_add_cc(X[0], X[0], Y[1], cf);
CUZK_UNROLL
    for (int j = 0; j < N; j += 2) {
        const uint32_t lo = (FIRST || j + 2 >= N) ? 0 : Y[j + 2], hi = (FIRST || j + 3 >= N) ? 0 : Y[j + 3];
        if (j + 1 >= i) {
            const uint32_t u = sqr_word(a, a2, i, j + 1);
            if (FIRST && j == 0) c_mad_lo_cc(Y[j], u, x, lo, cf);
            else c_madc_lo_cc(Y[j], u, x, lo, cf);
            if (j + 2 < N) c_madc_hi_cc(Y[j + 1], u, x, hi, cf);
            else c_madc_hi(Y[j + 1], u, x, hi, cf);
        } else {
            c_addc_cc(Y[j], lo, 0, cf);
            c_addc_cc(Y[j + 1], hi, 0, cf);
        }
    }
    /* even words j >= i (none when i = N - 1) */
    const int j0 = (i + 1) & ~1;
    if (j0 < N) {
        const uint32_t u0 = sqr_word(a, a2, i, j0);
        c_mad_lo_cc(X[j0], u0, x, FIRST ? 0 : X[j0], cf);
        c_madc_hi_cc(X[j0 + 1], u0, x, FIRST ? 0 : X[j0 + 1], cf);
CUZK_UNROLL
        for (int j = j0 + 2; j < N; j += 2) {
            c_madc_lo_cc(X[j], sqr_word(a, a2, i, j), x, FIRST ? 0 : X[j], cf);
            c_madc_hi_cc(X[j + 1], sqr_word(a, a2, i, j), x, FIRST ? 0 : X[j + 1], cf);
        }
        c_addc(Y[N - 1], Y[N - 1], 0, cf);
    }
}

template <class P> CUZK_HD void fp_sqr_eo(uint32_t *r, const uint32_t *a)
{
    static_assert(fp_sqr_eo_ok<P>(), "fp_sqr_eo needs 3p < R");
    constexpr int N = P::N;
    uint32_t a2[N], A[N], B[N];
    a2[0] = a[0] << 1;
CUZK_UNROLL
    for (int j = 1; j < N; j++) a2[j] = (a[j] << 1) | (a[j - 1] >> 31);
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        uint32_t *X = (i & 1) ? B : A, *Y = (i & 1) ? A : B;
        if (i == 0) fp_sqr_sw_prod<P, true>(X, Y, a, a2, 0);
        else fp_sqr_sw_prod<P, false>(X, Y, a, a2, i);
        fp_sw_reduce<P>(X, Y);
    }
    fp_sw_final<P>(r, A, B);
}

/* Portable CIOS (host, and device fallback). */
template <class P> CUZK_HD void fp_mul_portable(uint32_t *r, const uint32_t *a, const uint32_t *b)
{
    constexpr int N = P::N;
    uint32_t t[N + 1];
CUZK_UNROLL
    for (int i = 0; i < N + 1; i++) t[i] = 0;
CUZK_UNROLL
    for (int i = 0; i < N; i++) {
        uint64_t c = 0;
CUZK_UNROLL
        for (int j = 0; j < N; j++) {
            uint64_t uv = (uint64_t)a[j] * b[i] + t[j] + c;
            t[j] = (uint32_t)uv;
            c = uv >> 32;
        }
        uint64_t top = (uint64_t)t[N] + c; /* < 2^33 */
        uint32_t m = t[0] * P::m0();
        uint64_t uv = (uint64_t)m * P::mod(0) + t[0];
        c = uv >> 32;
CUZK_UNROLL
        for (int j = 1; j < N; j++) {
            uv = (uint64_t)m * P::mod(j) + t[j] + c;
            t[j - 1] = (uint32_t)uv;
            c = uv >> 32;
        }
        top += c;
        t[N - 1] = (uint32_t)top;
        t[N] = (uint32_t)(top >> 32);
    }
CUZK_UNROLL
    for (int i = 0; i < N; i++) r[i] = t[i];
    fp_reduce_once<P>(r);
}

/* Multiplication: the split-accumulator CIOS on the device, the portable
 * 64-bit product on the host (host code: tables, tests). */
template <class P> CUZK_HD fp<P> operator*(const fp<P> &a, const fp<P> &b)
{
    fp<P> r;
#if CUZK_GPU_USE_PTX
    fp_mul_eo<P>(r.v, a.v, b.v);
#else
    fp_mul_portable<P>(r.v, a.v, b.v);
#endif
    return r;
}

/* Squaring: fp_sqr_eo on the device (78 instead of 144 product pairs for
 * BLS12-381 Fp), a * a on the host. */
template <class P> CUZK_HD fp<P> fp_sqr(const fp<P> &a)
{
#if CUZK_GPU_USE_PTX
    if constexpr (fp_sqr_eo_ok<P>()) {
        fp<P> r;
        fp_sqr_eo<P>(r.v, a.v);
        return r;
    }
#endif
    return a * a;
}

/* a b - c d: on the device with one Montgomery reduction for both products
 * (fp_mul_sub_eo, fields with 3p < R), otherwise and on the host as two
 * products and a subtraction. The value
 * is the same canonical element either way. */
template <class P> CUZK_HD fp<P> fp_mul_sub(const fp<P> &a, const fp<P> &b, const fp<P> &c, const fp<P> &d)
{
#if CUZK_GPU_USE_PTX
    if constexpr (fp_mul2_ok<P>()) {
        fp<P> r;
        fp_mul_sub_eo<P>(r.v, a.v, b.v, c.v, d.v);
        return r;
    }
#endif
    return a * b - c * d;
}

/* Montgomery <-> standard form. */
template <class P> CUZK_HD fp<P> fp_to_mont(const fp<P> &raw)
{
    fp<P> r2;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) r2.v[i] = P::r2(i);
    return raw * r2;
}

template <class P> CUZK_HD fp<P> fp_from_mont(const fp<P> &a)
{
    fp<P> one;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) one.v[i] = i == 0 ? 1u : 0u;
    return a * one;
}

/* a^e, e as little-endian 64-bit limbs (host use: twiddle tables). */
template <class P> CUZK_HD fp<P> fp_pow(const fp<P> &a, const uint64_t *e, int e_limbs)
{
    fp<P> r = fp_one<P>();
    for (int i = e_limbs * 64 - 1; i >= 0; i--) {
        r = r * r;
        if ((e[i / 64] >> (i % 64)) & 1) r = r * a;
    }
    return r;
}

/* ---- Fp2 = Fp[u]/(u^2 + 1) ------------------------------------------- */

template <class P> struct fp2 {
    fp<P> c0, c1;
};

/* The Fp2 products are compiled out of line with their operands passed by
 * value, in registers: by reference, each call site would store both
 * operands to local memory, and passing the address of a live value (the
 * accumulator) makes the compiler keep it in local memory for the whole
 * kernel. The curve code's out-of-line doubling does the same (gpu_ec.cuh).
 * The alternatives measured (by reference, inline formulas) are in
 * docs/PERFORMANCE.md. */

template <class P> CUZK_HD fp2<P> operator+(const fp2<P> &a, const fp2<P> &b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
template <class P> CUZK_HD fp2<P> operator-(const fp2<P> &a, const fp2<P> &b) { return {a.c0 - b.c0, a.c1 - b.c1}; }

/* The base-field product inside the Fp2 formulas. */
template <class P> CUZK_HD fp<P> fp2_base_mul(const fp<P> &a, const fp<P> &b) { return a * b; }

template <class P> CUZK_HD fp2<P> fp2_mul_body(const fp2<P> &a, const fp2<P> &b)
{
    /* Karatsuba: 3 base multiplications. */
    fp<P> t0 = fp2_base_mul(a.c0, b.c0);
    fp<P> t1 = fp2_base_mul(a.c1, b.c1);
    fp<P> t2 = fp2_base_mul(a.c0 + a.c1, b.c0 + b.c1);
    return {t0 - t1, t2 - t0 - t1};
}
template <class P> CUZK_HD fp2<P> fp2_sqr_body(const fp2<P> &a)
{
    /* (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 multiplications. */
    fp<P> t = fp2_base_mul(a.c0, a.c1);
    return {fp2_base_mul(a.c0 + a.c1, a.c0 - a.c1), t + t};
}

template <class P> CUZK_HD_NOINLINE fp2<P> fp2_mul_call(fp2<P> a, fp2<P> b) { return fp2_mul_body(a, b); }
template <class P> CUZK_HD_NOINLINE fp2<P> fp2_sqr_call(fp2<P> a) { return fp2_sqr_body(a); }

template <class P> CUZK_HD fp2<P> operator*(const fp2<P> &a, const fp2<P> &b) { return fp2_mul_call(a, b); }

/* ---- generic wrappers so curve code works over fp and fp2 ------------- */

template <class P> CUZK_HD bool f_is_zero(const fp<P> &a) { return fp_is_zero(a); }
template <class P> CUZK_HD bool f_is_zero(const fp2<P> &a) { return fp_is_zero(a.c0) && fp_is_zero(a.c1); }
template <class P> CUZK_HD bool f_eq(const fp<P> &a, const fp<P> &b) { return fp_eq(a, b); }
template <class P> CUZK_HD bool f_eq(const fp2<P> &a, const fp2<P> &b) { return fp_eq(a.c0, b.c0) && fp_eq(a.c1, b.c1); }
template <class P> CUZK_HD fp<P> f_sqr(const fp<P> &a) { return fp_sqr(a); }
template <class P> CUZK_HD fp2<P> f_sqr(const fp2<P> &a) { return fp2_sqr_call(a); }
/* a b - c d: one reduction on Fp (fp_mul_sub); Fp2 as two products. */
template <class P> CUZK_HD fp<P> f_mul_sub(const fp<P> &a, const fp<P> &b, const fp<P> &c, const fp<P> &d)
{
    return fp_mul_sub(a, b, c, d);
}
template <class P> CUZK_HD fp2<P> f_mul_sub(const fp2<P> &a, const fp2<P> &b, const fp2<P> &c, const fp2<P> &d)
{
    return a * b - c * d;
}
template <class P> CUZK_HD fp<P> f_dbl(const fp<P> &a) { return a + a; }
template <class P> CUZK_HD fp2<P> f_dbl(const fp2<P> &a) { return a + a; }
template <class P> CUZK_HD fp<P> f_neg(const fp<P> &a) { return fp_neg(a); }
template <class P> CUZK_HD fp2<P> f_neg(const fp2<P> &a) { return {fp_neg(a.c0), fp_neg(a.c1)}; }
template <class P> CUZK_HD fp<P> f_cneg(const fp<P> &a, bool f) { return fp_cneg(a, f); }
template <class P> CUZK_HD fp2<P> f_cneg(const fp2<P> &a, bool f) { return {fp_cneg(a.c0, f), fp_cneg(a.c1, f)}; }
template <class F> CUZK_HD F f_zero();
template <class F> struct f_traits;
template <class P> struct f_traits<fp<P>> {
    static CUZK_HD fp<P> zero() { return fp_zero<P>(); }
    static CUZK_HD fp<P> one() { return fp_one<P>(); }
};
template <class P> struct f_traits<fp2<P>> {
    static CUZK_HD fp2<P> zero() { return {fp_zero<P>(), fp_zero<P>()}; }
    static CUZK_HD fp2<P> one() { return {fp_one<P>(), fp_zero<P>()}; }
};

} /* namespace cuzk_gpu */

#endif
