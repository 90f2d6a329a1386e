/* 8-lane Fp2 = Fp[u]/(u^2 + 1) arithmetic over the IFMA base field
 * ("template"), mirroring fp2_inline.h operation by operation (same Karatsuba
 * multiplication and complex squaring), so every lane equals the scalar
 * result bit for bit. Same v8 API as fp_ifma_inline.h.
 *
 * Include after fp_ifma_inline.h for the base field:
 *   #define FP2_PREFIX bn254_fp2   (an Fp2 listed in field/instances.h)
 *   #include "field/fp2_ifma_inline.h"
 * FP2_PREFIX is #undef'd at the end (unless FP2_IFMA_KEEP is defined).
 * Defines, for FP2_PREFIX e: the type e_v8_t and static inline e_v8_<op>
 * (same rules as fp_ifma_inline.h).
 */

#include <stddef.h>

#include "field/fp_ifma.h"
#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define FP2_(name) CUZK_NAME(FP2_PREFIX, name)
#define FP2_P_(name) CUZK_NAME(FP2_PREFIX, CUZK_CAT2(P_, name))
#define FP2_B_(name) CUZK_NAME(FP2_P_(BASE), name)
#if !FP2_B_(P_LIMBS)
#error "fp2_ifma_inline.h: FP2_PREFIX must name an Fp2 listed in field/instances.h"
#endif

#if defined(CUZK_IFMA)

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP2_IFMA_INLINE, FP2_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct {
    FP2_B_(v8_t) c0, c1;
} FP2_(v8_t);

CUZK_IFMA_INLINE void FP2_(v8_gather)(FP2_(v8_t) *r, const void *const *ptr, size_t off)
{
    FP2_B_(v8_gather)(&r->c0, ptr, off + offsetof(FP2_(t), c0));
    FP2_B_(v8_gather)(&r->c1, ptr, off + offsetof(FP2_(t), c1));
}

CUZK_IFMA_INLINE void FP2_(v8_scatter)(void *const *ptr, size_t off, const FP2_(v8_t) *a,
                                       unsigned mask)
{
    FP2_B_(v8_scatter)(ptr, off + offsetof(FP2_(t), c0), &a->c0, mask);
    FP2_B_(v8_scatter)(ptr, off + offsetof(FP2_(t), c1), &a->c1, mask);
}

CUZK_IFMA_INLINE void FP2_(v8_add)(FP2_(v8_t) *r, const FP2_(v8_t) *a, const FP2_(v8_t) *b)
{
    FP2_B_(v8_add)(&r->c0, &a->c0, &b->c0);
    FP2_B_(v8_add)(&r->c1, &a->c1, &b->c1);
}

CUZK_IFMA_INLINE void FP2_(v8_sub)(FP2_(v8_t) *r, const FP2_(v8_t) *a, const FP2_(v8_t) *b)
{
    FP2_B_(v8_sub)(&r->c0, &a->c0, &b->c0);
    FP2_B_(v8_sub)(&r->c1, &a->c1, &b->c1);
}

CUZK_IFMA_INLINE void FP2_(v8_neg)(FP2_(v8_t) *r, const FP2_(v8_t) *a)
{
    FP2_B_(v8_neg)(&r->c0, &a->c0);
    FP2_B_(v8_neg)(&r->c1, &a->c1);
}

/* Karatsuba, as F2_mul_inl. */
CUZK_IFMA_INLINE void FP2_(v8_mul)(FP2_(v8_t) *r, const FP2_(v8_t) *a, const FP2_(v8_t) *b)
{
    FP2_B_(v8_t) v0, v1, sa, sb;
    FP2_B_(v8_mul)(&v0, &a->c0, &b->c0);
    FP2_B_(v8_mul)(&v1, &a->c1, &b->c1);
    FP2_B_(v8_add)(&sa, &a->c0, &a->c1);
    FP2_B_(v8_add)(&sb, &b->c0, &b->c1);
    FP2_B_(v8_mul)(&sa, &sa, &sb);
    FP2_B_(v8_sub)(&sa, &sa, &v0);
    FP2_B_(v8_sub)(&r->c1, &sa, &v1);
    FP2_B_(v8_sub)(&r->c0, &v0, &v1);
}

/* Complex squaring, as F2_sqr_inl. */
CUZK_IFMA_INLINE void FP2_(v8_sqr)(FP2_(v8_t) *r, const FP2_(v8_t) *a)
{
    FP2_B_(v8_t) s, d, m;
    FP2_B_(v8_add)(&s, &a->c0, &a->c1);
    FP2_B_(v8_sub)(&d, &a->c0, &a->c1);
    FP2_B_(v8_mul)(&m, &a->c0, &a->c1);
    FP2_B_(v8_mul)(&r->c0, &s, &d);
    FP2_B_(v8_add)(&r->c1, &m, &m);
}

CUZK_IFMA_INLINE __mmask8 FP2_(v8_is_zero)(const FP2_(v8_t) *a)
{
    return FP2_B_(v8_is_zero)(&a->c0) & FP2_B_(v8_is_zero)(&a->c1);
}

CUZK_IFMA_INLINE void FP2_(v8_set_one_mask)(FP2_(v8_t) *a, __mmask8 m)
{
    FP2_B_(v8_set_one_mask)(&a->c0, m);
    FP2_B_(v8_set_zero_mask)(&a->c1, m);
}

CUZK_IFMA_INLINE void FP2_(v8_blend)(FP2_(v8_t) *a, __mmask8 m, const FP2_(v8_t) *b)
{
    FP2_B_(v8_blend)(&a->c0, m, &b->c0);
    FP2_B_(v8_blend)(&a->c1, m, &b->c1);
}

CUZK_IFMA_INLINE void FP2_(v8_from_array)(FP2_(v8_t) *r, const FP2_(t) *x)
{
    const void *ptr[8];
    for (int k = 0; k < 8; k++)
        ptr[k] = &x[k];
    FP2_(v8_gather)(r, ptr, 0);
}

CUZK_IFMA_INLINE void FP2_(v8_to_array)(FP2_(t) *x, const FP2_(v8_t) *a)
{
    void *ptr[8];
    for (int k = 0; k < 8; k++)
        ptr[k] = &x[k];
    FP2_(v8_scatter)(ptr, 0, a, 0xff);
}

#endif /* per-instance guard */
#endif /* CUZK_IFMA */

#undef FP2_
#undef FP2_B_
#undef FP2_P_

#ifndef FP2_IFMA_KEEP
#undef FP2_PREFIX
#endif
