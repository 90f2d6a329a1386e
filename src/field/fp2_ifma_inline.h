/* 8-lane Fp2 = Fp[u]/(u^2 + 1) arithmetic over the IFMA base field
 * ("template"), mirroring fp2_inline.h operation by operation (same Karatsuba
 * multiplication and complex squaring), so every lane equals the scalar
 * result bit for bit. Same v8 API as fp_ifma_inline.h.
 *
 * Include after fp_ifma_inline.h for the base field:
 *   #define FP2_PREFIX bn254_fp2
 *   #define FP2_BASE   bn254_fp
 *   #include "field/fp2_ifma_inline.h"
 * Both macros are #undef'd at the end (unless FP2_IFMA_KEEP is defined). */

#include <stddef.h>

#include "field/fp_ifma.h"

#if defined(CUZK_IFMA)

#define F2V_(name) CUZK_NAME(FP2_PREFIX, name)
#define F2VB_(name) CUZK_NAME(FP2_BASE, name)

typedef struct {
    F2VB_(v8_t) c0, c1;
} F2V_(v8_t);

CUZK_IFMA_INLINE void F2V_(v8_gather)(F2V_(v8_t) *r, const void *const *ptr, size_t off)
{
    F2VB_(v8_gather)(&r->c0, ptr, off + offsetof(F2V_(t), c0));
    F2VB_(v8_gather)(&r->c1, ptr, off + offsetof(F2V_(t), c1));
}

CUZK_IFMA_INLINE void F2V_(v8_scatter)(void *const *ptr, size_t off, const F2V_(v8_t) *a,
                                      unsigned mask)
{
    F2VB_(v8_scatter)(ptr, off + offsetof(F2V_(t), c0), &a->c0, mask);
    F2VB_(v8_scatter)(ptr, off + offsetof(F2V_(t), c1), &a->c1, mask);
}

CUZK_IFMA_INLINE void F2V_(v8_add)(F2V_(v8_t) *r, const F2V_(v8_t) *a, const F2V_(v8_t) *b)
{
    F2VB_(v8_add)(&r->c0, &a->c0, &b->c0);
    F2VB_(v8_add)(&r->c1, &a->c1, &b->c1);
}

CUZK_IFMA_INLINE void F2V_(v8_sub)(F2V_(v8_t) *r, const F2V_(v8_t) *a, const F2V_(v8_t) *b)
{
    F2VB_(v8_sub)(&r->c0, &a->c0, &b->c0);
    F2VB_(v8_sub)(&r->c1, &a->c1, &b->c1);
}

CUZK_IFMA_INLINE void F2V_(v8_neg)(F2V_(v8_t) *r, const F2V_(v8_t) *a)
{
    F2VB_(v8_neg)(&r->c0, &a->c0);
    F2VB_(v8_neg)(&r->c1, &a->c1);
}

/* Karatsuba, as F2_mul_inl. */
CUZK_IFMA_INLINE void F2V_(v8_mul)(F2V_(v8_t) *r, const F2V_(v8_t) *a, const F2V_(v8_t) *b)
{
    F2VB_(v8_t) v0, v1, sa, sb;
    F2VB_(v8_mul)(&v0, &a->c0, &b->c0);
    F2VB_(v8_mul)(&v1, &a->c1, &b->c1);
    F2VB_(v8_add)(&sa, &a->c0, &a->c1);
    F2VB_(v8_add)(&sb, &b->c0, &b->c1);
    F2VB_(v8_mul)(&sa, &sa, &sb);
    F2VB_(v8_sub)(&sa, &sa, &v0);
    F2VB_(v8_sub)(&r->c1, &sa, &v1);
    F2VB_(v8_sub)(&r->c0, &v0, &v1);
}

/* Complex squaring, as F2_sqr_inl. */
CUZK_IFMA_INLINE void F2V_(v8_sqr)(F2V_(v8_t) *r, const F2V_(v8_t) *a)
{
    F2VB_(v8_t) s, d, m;
    F2VB_(v8_add)(&s, &a->c0, &a->c1);
    F2VB_(v8_sub)(&d, &a->c0, &a->c1);
    F2VB_(v8_mul)(&m, &a->c0, &a->c1);
    F2VB_(v8_mul)(&r->c0, &s, &d);
    F2VB_(v8_add)(&r->c1, &m, &m);
}

CUZK_IFMA_INLINE __mmask8 F2V_(v8_is_zero)(const F2V_(v8_t) *a)
{
    return F2VB_(v8_is_zero)(&a->c0) & F2VB_(v8_is_zero)(&a->c1);
}

CUZK_IFMA_INLINE void F2V_(v8_set_one_mask)(F2V_(v8_t) *a, __mmask8 m)
{
    F2VB_(v8_set_one_mask)(&a->c0, m);
    F2VB_(v8_set_zero_mask)(&a->c1, m);
}

CUZK_IFMA_INLINE void F2V_(v8_blend)(F2V_(v8_t) *a, __mmask8 m, const F2V_(v8_t) *b)
{
    F2VB_(v8_blend)(&a->c0, m, &b->c0);
    F2VB_(v8_blend)(&a->c1, m, &b->c1);
}

CUZK_IFMA_INLINE void F2V_(v8_from_array)(F2V_(v8_t) *r, const F2V_(t) *x)
{
    const void *ptr[8];
    for (int k = 0; k < 8; k++)
        ptr[k] = &x[k];
    F2V_(v8_gather)(r, ptr, 0);
}

CUZK_IFMA_INLINE void F2V_(v8_to_array)(F2V_(t) *x, const F2V_(v8_t) *a)
{
    void *ptr[8];
    for (int k = 0; k < 8; k++)
        ptr[k] = &x[k];
    F2V_(v8_scatter)(ptr, 0, a, 0xff);
}

#undef F2V_
#undef F2VB_

#endif /* CUZK_IFMA */

#ifndef FP2_IFMA_KEEP
#undef FP2_PREFIX
#undef FP2_BASE
#endif
