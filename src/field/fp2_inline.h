/* Inline core of Fp2 = Fp[u]/(u^2 + 1) ("template"), mirroring fp_inline.h:
 * the hot operations as static inline <prefix>_<op>_inl with the same names
 * and signatures as the base field's, so curve formulas (ec_impl.h) can be
 * written once for G1 (over Fp) and G2 (over Fp2).
 *
 * Include after the Fp2 declarations and after fp_inline.h for the base:
 *   #define FP2_PREFIX bn254_fp2
 *   #define FP2_BASE   bn254_fp
 *   #include "field/fp2_inline.h"
 * Both macros are #undef'd at the end (unless FP2_INLINE_KEEP is defined).
 *
 * mul/sqr are kept out of line (one static copy per translation unit): each
 * already inlines 2-3 base multiplications, a call costs ~1% of that, and
 * inlining them into every G2 formula made compile times explode. */

#include <stdbool.h>

#include "util/common.h"

#define F2I_(name) CUZK_NAME(FP2_PREFIX, name)
#if defined(__GNUC__)
#define F2I_OUTLINE static __attribute__((noinline, unused))
#else
#define F2I_OUTLINE static
#endif
#define F2IB_(name) CUZK_NAME(FP2_BASE, name)

CUZK_INLINE void F2I_(add_inl)(F2I_(t) *r, const F2I_(t) *a, const F2I_(t) *b)
{
    F2IB_(add_inl)(&r->c0, &a->c0, &b->c0);
    F2IB_(add_inl)(&r->c1, &a->c1, &b->c1);
}

CUZK_INLINE void F2I_(sub_inl)(F2I_(t) *r, const F2I_(t) *a, const F2I_(t) *b)
{
    F2IB_(sub_inl)(&r->c0, &a->c0, &b->c0);
    F2IB_(sub_inl)(&r->c1, &a->c1, &b->c1);
}

CUZK_INLINE void F2I_(dbl_inl)(F2I_(t) *r, const F2I_(t) *a)
{
    F2IB_(dbl_inl)(&r->c0, &a->c0);
    F2IB_(dbl_inl)(&r->c1, &a->c1);
}

CUZK_INLINE void F2I_(neg_inl)(F2I_(t) *r, const F2I_(t) *a)
{
    F2IB_(neg_inl)(&r->c0, &a->c0);
    F2IB_(neg_inl)(&r->c1, &a->c1);
}

CUZK_INLINE bool F2I_(is_zero_inl)(const F2I_(t) *a)
{
    return F2IB_(is_zero_inl)(&a->c0) && F2IB_(is_zero_inl)(&a->c1);
}

CUZK_INLINE bool F2I_(eq_inl)(const F2I_(t) *a, const F2I_(t) *b)
{
    return F2IB_(eq_inl)(&a->c0, &b->c0) && F2IB_(eq_inl)(&a->c1, &b->c1);
}

/* Karatsuba: 3 base multiplications.
 * (a0 + a1u)(b0 + b1u) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1)u */
F2I_OUTLINE void F2I_(mul_inl)(F2I_(t) *r, const F2I_(t) *a, const F2I_(t) *b)
{
    F2IB_(t) v0, v1, sa, sb;
    F2IB_(mul_inl)(&v0, &a->c0, &b->c0);
    F2IB_(mul_inl)(&v1, &a->c1, &b->c1);
    F2IB_(add_inl)(&sa, &a->c0, &a->c1);
    F2IB_(add_inl)(&sb, &b->c0, &b->c1);
    F2IB_(mul_inl)(&sa, &sa, &sb);
    F2IB_(sub_inl)(&sa, &sa, &v0);
    F2IB_(sub_inl)(&r->c1, &sa, &v1);
    F2IB_(sub_inl)(&r->c0, &v0, &v1);
}

/* Complex squaring: (a0 + a1u)^2 = (a0+a1)(a0-a1) + 2a0a1·u, 2 multiplications. */
F2I_OUTLINE void F2I_(sqr_inl)(F2I_(t) *r, const F2I_(t) *a)
{
    F2IB_(t) s, d, m;
    F2IB_(add_inl)(&s, &a->c0, &a->c1);
    F2IB_(sub_inl)(&d, &a->c0, &a->c1);
    F2IB_(mul_inl)(&m, &a->c0, &a->c1);
    F2IB_(mul_inl)(&r->c0, &s, &d);
    F2IB_(dbl_inl)(&r->c1, &m);
}

F2I_OUTLINE void F2I_(mul_fp_inl)(F2I_(t) *r, const F2I_(t) *a, const F2IB_(t) *b)
{
    F2IB_(mul_inl)(&r->c0, &a->c0, b);
    F2IB_(mul_inl)(&r->c1, &a->c1, b);
}

#undef F2I_
#undef F2I_OUTLINE
#undef F2IB_
#ifndef FP2_INLINE_KEEP
#undef FP2_PREFIX
#undef FP2_BASE
#endif
