/* Inline core of the Montgomery prime-field arithmetic ("template").
 *
 * The hot operations as `static inline` functions named <prefix>_<op>_inl, so
 * that hot loops (curve formulas, NTT butterflies, MSM buckets) in any
 * translation unit can have them inlined with the modulus folded into
 * immediates. The extern functions of fp_decl.h wrap these (fp_impl.h).
 *
 * Include after the field's declarations (fp_decl.h or a curve umbrella):
 *   #define FP_PREFIX bn254_fr   (a prime field listed in field/instances.h)
 *   #include "field/fp_inline.h"
 * Defines, for FP_PREFIX f: static inline f_reduce_once_inl, f_add_inl,
 * f_dbl_inl, f_sub_inl, f_is_zero_inl, f_eq_inl, f_neg_inl, f_mul_inl,
 * f_sqr_inl. Constants come from field/field_params.h (f_P_*). FP_PREFIX is
 * #undef'd at the end unless FP_INLINE_KEEP is defined (to include the next
 * template of the same field).
 *
 * Every modulus here has a spare top bit (p < 2^(64N-1)) and a top limb below
 * 2^63 - 1, so a + b never carries out and the carry-free CIOS variant applies
 * (the running value stays < 2p without an extra carry word). */

#include <stdbool.h>
#include <stdint.h>

#include "field/fp_x86_asm.h"
#include "field/instances.h"
#include "field/limb.h"
#include "util/common.h"
#include "util/templates.h"

#if !CUZK_NAME(FP_PREFIX, P_LIMBS)
#error "fp_inline.h: FP_PREFIX must name a prime field listed in field/instances.h"
#endif
#define FP_(name) CUZK_NAME(FP_PREFIX, name)
#define FP_P_(name) CUZK_NAME(FP_PREFIX, CUZK_CAT2(P_, name))

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP_INLINE, FP_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* r = t - p if t >= p else t  (t < 2p; branch-free select). */
CUZK_INLINE void FP_(reduce_once_inl)(uint64_t *r, const uint64_t *t)
{
    static const uint64_t P[FP_P_(LIMBS)] = FP_P_(MODULUS);
    uint64_t s[FP_P_(LIMBS)], borrow = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        s[i] = cuzk_sbb(t[i], P[i], &borrow);
    uint64_t keep = 0 - borrow; /* all ones: t < p, keep t */
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        r[i] = (t[i] & keep) | (s[i] & ~keep);
}

CUZK_INLINE void FP_(add_inl)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b)
{
    uint64_t t[FP_P_(LIMBS)], carry = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        t[i] = cuzk_adc(a->l[i], b->l[i], &carry);
    FP_(reduce_once_inl)(r->l, t);
}

CUZK_INLINE void FP_(dbl_inl)(FP_(t) *r, const FP_(t) *a)
{
    uint64_t t[FP_P_(LIMBS)];
    CUZK_UNROLL
    for (int i = FP_P_(LIMBS) - 1; i > 0; i--)
        t[i] = (a->l[i] << 1) | (a->l[i - 1] >> 63);
    t[0] = a->l[0] << 1;
    FP_(reduce_once_inl)(r->l, t);
}

CUZK_INLINE void FP_(sub_inl)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b)
{
    static const uint64_t P[FP_P_(LIMBS)] = FP_P_(MODULUS);
    uint64_t t[FP_P_(LIMBS)], borrow = 0, carry = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        t[i] = cuzk_sbb(a->l[i], b->l[i], &borrow);
    uint64_t mask = 0 - borrow; /* add p back iff a < b */
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        r->l[i] = cuzk_adc(t[i], P[i] & mask, &carry);
}

CUZK_INLINE bool FP_(is_zero_inl)(const FP_(t) *a)
{
    uint64_t acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        acc |= a->l[i];
    return acc == 0;
}

CUZK_INLINE bool FP_(eq_inl)(const FP_(t) *a, const FP_(t) *b)
{
    uint64_t acc = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}

CUZK_INLINE void FP_(neg_inl)(FP_(t) *r, const FP_(t) *a)
{
    static const uint64_t P[FP_P_(LIMBS)] = FP_P_(MODULUS);
    uint64_t mask = FP_(is_zero_inl)(a) ? 0 : ~(uint64_t)0; /* -0 = 0, not p */
    uint64_t borrow = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        r->l[i] = cuzk_sbb(P[i], a->l[i], &borrow) & mask;
}

/* Montgomery product a·b·R^-1 mod p, CIOS with the multiplication and the
 * reduction interleaved per word of b ("no-carry" variant, see header). */
CUZK_INLINE void FP_(mul_inl)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b)
{
    static const uint64_t P[FP_P_(LIMBS)] = FP_P_(MODULUS);
#if defined(CUZK_FP_ASM) && (FP_P_(LIMBS) == 4 || FP_P_(LIMBS) == 6)
    static const uint64_t inv_m = FP_P_(INV);
    uint64_t t[FP_P_(LIMBS)];
#if FP_P_(LIMBS) == 4
    cuzk_x4_mont_mul(t, a->l, b->l, P, &inv_m);
#else
    cuzk_x6_mont_mul(t, a->l, b->l, P, &inv_m);
#endif
#else
    const uint64_t inv = FP_P_(INV);
    uint64_t t[FP_P_(LIMBS)] = {0};
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++) {
        uint64_t bi = b->l[i], A, C, m;
        t[0] = cuzk_mac(a->l[0], bi, t[0], 0, &A);
        m = t[0] * inv;
        (void)cuzk_mac(m, P[0], t[0], 0, &C);
        CUZK_UNROLL
        for (int j = 1; j < FP_P_(LIMBS); j++) {
            t[j] = cuzk_mac(a->l[j], bi, t[j], A, &A);
            t[j - 1] = cuzk_mac(m, P[j], t[j], C, &C);
        }
        t[FP_P_(LIMBS) - 1] = C + A;
    }
#endif
    FP_(reduce_once_inl)(r->l, t);
}

CUZK_INLINE void FP_(sqr_inl)(FP_(t) *r, const FP_(t) *a) { FP_(mul_inl)(r, a, a); }

#endif /* per-instance guard */

#undef FP_
#undef FP_P_
#ifndef FP_INLINE_KEEP
#undef FP_PREFIX
#endif
