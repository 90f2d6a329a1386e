/* Inline core of the Montgomery prime-field arithmetic ("template").
 *
 * The hot operations as `static inline` functions named <prefix>_<op>_inl, so
 * that hot loops (curve formulas, NTT butterflies, MSM buckets) in any
 * translation unit can have them inlined with the modulus folded into
 * immediates. The extern functions of fp_decl.h wrap these (fp_impl.h).
 *
 * Include after the field's declarations (fp_decl.h or a curve umbrella):
 *   #define FP_PREFIX bn254_fr
 *   #define FP_LIMBS  4
 *   #include "field/fp_inline.h"
 * Both macros are #undef'd at the end (unless FP_INLINE_KEEP is defined).
 * Constants come from field/field_params.h (<prefix>_P_*).
 *
 * Every modulus here has a spare top bit (p < 2^(64N-1)) and a top limb below
 * 2^63 - 1, so a + b never carries out and the carry-free CIOS variant applies
 * (the running value stays < 2p without an extra carry word). */

#include <stdbool.h>
#include <stdint.h>

#include "field/field_params.h"
#include "field/fp_x86_asm.h"
#include "field/limb.h"

#define FPI_(name) CUZK_NAME(FP_PREFIX, name)
#define FPI_P_(name) CUZK_NAME(FP_PREFIX, CUZK_CAT2(P_, name))

/* r = t - p if t >= p else t  (t < 2p; branch-free select). */
CUZK_INLINE void FPI_(reduce_once_inl)(uint64_t *r, const uint64_t *t)
{
    static const uint64_t P[FP_LIMBS] = FPI_P_(MODULUS);
    uint64_t s[FP_LIMBS], borrow = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++)
        s[i] = cuzk_sbb(t[i], P[i], &borrow);
    uint64_t keep = 0 - borrow; /* all ones: t < p, keep t */
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++)
        r[i] = (t[i] & keep) | (s[i] & ~keep);
}

CUZK_INLINE void FPI_(add_inl)(FPI_(t) *r, const FPI_(t) *a, const FPI_(t) *b)
{
    uint64_t t[FP_LIMBS], carry = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++)
        t[i] = cuzk_adc(a->l[i], b->l[i], &carry);
    FPI_(reduce_once_inl)(r->l, t);
}

CUZK_INLINE void FPI_(dbl_inl)(FPI_(t) *r, const FPI_(t) *a)
{
    uint64_t t[FP_LIMBS];
    CUZK_UNROLL
    for (int i = FP_LIMBS - 1; i > 0; i--)
        t[i] = (a->l[i] << 1) | (a->l[i - 1] >> 63);
    t[0] = a->l[0] << 1;
    FPI_(reduce_once_inl)(r->l, t);
}

CUZK_INLINE void FPI_(sub_inl)(FPI_(t) *r, const FPI_(t) *a, const FPI_(t) *b)
{
    static const uint64_t P[FP_LIMBS] = FPI_P_(MODULUS);
    uint64_t t[FP_LIMBS], borrow = 0, carry = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++)
        t[i] = cuzk_sbb(a->l[i], b->l[i], &borrow);
    uint64_t mask = 0 - borrow; /* add p back iff a < b */
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++)
        r->l[i] = cuzk_adc(t[i], P[i] & mask, &carry);
}

CUZK_INLINE bool FPI_(is_zero_inl)(const FPI_(t) *a)
{
    uint64_t acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++)
        acc |= a->l[i];
    return acc == 0;
}

CUZK_INLINE bool FPI_(eq_inl)(const FPI_(t) *a, const FPI_(t) *b)
{
    uint64_t acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++)
        acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}

CUZK_INLINE void FPI_(neg_inl)(FPI_(t) *r, const FPI_(t) *a)
{
    static const uint64_t P[FP_LIMBS] = FPI_P_(MODULUS);
    uint64_t mask = FPI_(is_zero_inl)(a) ? 0 : ~(uint64_t)0; /* -0 = 0, not p */
    uint64_t borrow = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++)
        r->l[i] = cuzk_sbb(P[i], a->l[i], &borrow) & mask;
}

/* Montgomery product a·b·R^-1 mod p, CIOS with the multiplication and the
 * reduction interleaved per word of b ("no-carry" variant, see header). */
CUZK_INLINE void FPI_(mul_inl)(FPI_(t) *r, const FPI_(t) *a, const FPI_(t) *b)
{
    static const uint64_t P[FP_LIMBS] = FPI_P_(MODULUS);
#if defined(CUZK_FP_ASM) && (FP_LIMBS == 4 || FP_LIMBS == 6)
    static const uint64_t inv_m = FPI_P_(INV);
    uint64_t t[FP_LIMBS];
#if FP_LIMBS == 4
    cuzk_x4_mont_mul(t, a->l, b->l, P, &inv_m);
#else
    cuzk_x6_mont_mul(t, a->l, b->l, P, &inv_m);
#endif
#else
    const uint64_t inv = FPI_P_(INV);
    uint64_t t[FP_LIMBS] = {0};
    CUZK_UNROLL
    for (int i = 0; i < FP_LIMBS; i++) {
        uint64_t bi = b->l[i], A, C, m;
        t[0] = cuzk_mac(a->l[0], bi, t[0], 0, &A);
        m = t[0] * inv;
        (void)cuzk_mac(m, P[0], t[0], 0, &C);
        CUZK_UNROLL
        for (int j = 1; j < FP_LIMBS; j++) {
            t[j] = cuzk_mac(a->l[j], bi, t[j], A, &A);
            t[j - 1] = cuzk_mac(m, P[j], t[j], C, &C);
        }
        t[FP_LIMBS - 1] = C + A;
    }
#endif
    FPI_(reduce_once_inl)(r->l, t);
}

CUZK_INLINE void FPI_(sqr_inl)(FPI_(t) *r, const FPI_(t) *a)
{
    FPI_(mul_inl)(r, a, a);
}

#undef FPI_
#undef FPI_P_
#ifndef FP_INLINE_KEEP
#undef FP_PREFIX
#undef FP_LIMBS
#endif
