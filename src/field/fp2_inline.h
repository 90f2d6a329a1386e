/* Inline core of Fp2 = Fp[u]/(u^2 + 1) ("template"), mirroring fp_inline.h:
 * the hot operations as static inline <prefix>_<op>_inl with the same names
 * and signatures as the base field's, so curve formulas (ec_impl.h) can be
 * written once for G1 (over Fp) and G2 (over Fp2).
 *
 * Include after the Fp2 declarations and after fp_inline.h for the base:
 *   #define FP2_PREFIX bn254_fp2   (an Fp2 listed in field/instances.h)
 *   #include "field/fp2_inline.h"
 * FP2_PREFIX is #undef'd at the end (unless FP2_INLINE_KEEP is defined).
 *
 * mul/sqr are kept out of line (one static copy per translation unit): each
 * already inlines 2-3 base multiplications, a call costs ~1% of that, and
 * inlining them into every G2 formula made compile times explode.
 * Defines, for FP2_PREFIX e: static inline e_add_inl, e_sub_inl, e_dbl_inl,
 * e_neg_inl, e_is_zero_inl, e_eq_inl, and out of line (static) e_mul_inl,
 * e_sqr_inl, e_mul_fp_inl.
 */

#include <stdbool.h>

#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define FP2_(name) CUZK_NAME(FP2_PREFIX, name)
#define FP2_P_(name) CUZK_NAME(FP2_PREFIX, CUZK_CAT2(P_, name))
#define FP2_B_(name) CUZK_NAME(FP2_P_(BASE), name)
#if !FP2_B_(P_LIMBS)
#error "fp2_inline.h: FP2_PREFIX must name an Fp2 listed in field/instances.h"
#endif
#if defined(__GNUC__)
#define FP2_OUTLINE static __attribute__((noinline, unused))
#else
#define FP2_OUTLINE static
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP2_INLINE, FP2_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

CUZK_INLINE void FP2_(add_inl)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b)
{
    FP2_B_(add_inl)(&r->c0, &a->c0, &b->c0);
    FP2_B_(add_inl)(&r->c1, &a->c1, &b->c1);
}

CUZK_INLINE void FP2_(sub_inl)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b)
{
    FP2_B_(sub_inl)(&r->c0, &a->c0, &b->c0);
    FP2_B_(sub_inl)(&r->c1, &a->c1, &b->c1);
}

CUZK_INLINE void FP2_(dbl_inl)(FP2_(t) *r, const FP2_(t) *a)
{
    FP2_B_(dbl_inl)(&r->c0, &a->c0);
    FP2_B_(dbl_inl)(&r->c1, &a->c1);
}

CUZK_INLINE void FP2_(neg_inl)(FP2_(t) *r, const FP2_(t) *a)
{
    FP2_B_(neg_inl)(&r->c0, &a->c0);
    FP2_B_(neg_inl)(&r->c1, &a->c1);
}

CUZK_INLINE bool FP2_(is_zero_inl)(const FP2_(t) *a)
{
    return FP2_B_(is_zero_inl)(&a->c0) && FP2_B_(is_zero_inl)(&a->c1);
}

CUZK_INLINE bool FP2_(eq_inl)(const FP2_(t) *a, const FP2_(t) *b)
{
    return FP2_B_(eq_inl)(&a->c0, &b->c0) && FP2_B_(eq_inl)(&a->c1, &b->c1);
}

/* Karatsuba: 3 base multiplications.
 * (a0 + a1u)(b0 + b1u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1)u */
FP2_OUTLINE void FP2_(mul_inl)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b)
{
    FP2_B_(t) v0, v1, sa, sb;
    FP2_B_(mul_inl)(&v0, &a->c0, &b->c0);
    FP2_B_(mul_inl)(&v1, &a->c1, &b->c1);
    FP2_B_(add_inl)(&sa, &a->c0, &a->c1);
    FP2_B_(add_inl)(&sb, &b->c0, &b->c1);
    FP2_B_(mul_inl)(&sa, &sa, &sb);
    FP2_B_(sub_inl)(&sa, &sa, &v0);
    FP2_B_(sub_inl)(&r->c1, &sa, &v1);
    FP2_B_(sub_inl)(&r->c0, &v0, &v1);
}

/* Complex squaring: (a0 + a1u)^2 = (a0+a1)(a0-a1) + 2a0a1·u, 2 multiplications. */
FP2_OUTLINE void FP2_(sqr_inl)(FP2_(t) *r, const FP2_(t) *a)
{
    FP2_B_(t) s, d, m;
    FP2_B_(add_inl)(&s, &a->c0, &a->c1);
    FP2_B_(sub_inl)(&d, &a->c0, &a->c1);
    FP2_B_(mul_inl)(&m, &a->c0, &a->c1);
    FP2_B_(mul_inl)(&r->c0, &s, &d);
    FP2_B_(dbl_inl)(&r->c1, &m);
}

FP2_OUTLINE void FP2_(mul_fp_inl)(FP2_(t) *r, const FP2_(t) *a, const FP2_B_(t) *b)
{
    FP2_B_(mul_inl)(&r->c0, &a->c0, b);
    FP2_B_(mul_inl)(&r->c1, &a->c1, b);
}

#endif /* per-instance guard */

#undef FP2_
#undef FP2_OUTLINE
#undef FP2_B_
#undef FP2_P_
#ifndef FP2_INLINE_KEEP
#undef FP2_PREFIX
#endif
