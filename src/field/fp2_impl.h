/* Definition "template" for Fp2 = Fp[u]/(u^2 + 1): defines every function of
 * fp2_decl.h. Instantiate after the base field's fp_impl.h (or fp_inline.h)
 * in the same translation unit:
 *   #define FP2_PREFIX bn254_fp2   (an Fp2 listed in field/instances.h)
 *   #include "field/fp2_impl.h"
 * Requires p = 3 mod 4 (so -1 is a non-residue and u^2 = -1 is irreducible),
 * true for BN254 and BLS12-381. FP2_PREFIX is #undef'd at the end.
 * Defines, for FP2_PREFIX e: every e_* of fp2_decl.h, plus the static inline
 * core e_*_inl of fp2_inline.h (included here).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define FP2_INLINE_KEEP
#include "field/fp2_inline.h"
#undef FP2_INLINE_KEEP

#define FP2_(name) CUZK_NAME(FP2_PREFIX, name)
#define FP2_P_(name) CUZK_NAME(FP2_PREFIX, CUZK_CAT2(P_, name))
#define FP2_B_(name) CUZK_NAME(FP2_P_(BASE), name)
#if !FP2_B_(P_LIMBS)
#error "fp2_impl.h: FP2_PREFIX must name an Fp2 listed in field/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP2_IMPL, FP2_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

void FP2_(set_zero)(FP2_(t) *r) { memset(r, 0, sizeof *r); }
void FP2_(set_one)(FP2_(t) *r)
{
    FP2_B_(set_one)(&r->c0);
    FP2_B_(set_zero)(&r->c1);
}
bool FP2_(is_zero)(const FP2_(t) *a) { return FP2_(is_zero_inl)(a); }
bool FP2_(is_one)(const FP2_(t) *a)
{
    return FP2_B_(is_one)(&a->c0) && FP2_B_(is_zero_inl)(&a->c1);
}
bool FP2_(eq)(const FP2_(t) *a, const FP2_(t) *b) { return FP2_(eq_inl)(a, b); }
void FP2_(add)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b) { FP2_(add_inl)(r, a, b); }
void FP2_(sub)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b) { FP2_(sub_inl)(r, a, b); }
void FP2_(dbl)(FP2_(t) *r, const FP2_(t) *a) { FP2_(dbl_inl)(r, a); }
void FP2_(neg)(FP2_(t) *r, const FP2_(t) *a) { FP2_(neg_inl)(r, a); }
void FP2_(mul)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b) { FP2_(mul_inl)(r, a, b); }
void FP2_(sqr)(FP2_(t) *r, const FP2_(t) *a) { FP2_(sqr_inl)(r, a); }
void FP2_(mul_fp)(FP2_(t) *r, const FP2_(t) *a, const FP2_B_(t) *b) { FP2_(mul_fp_inl)(r, a, b); }

void FP2_(conj)(FP2_(t) *r, const FP2_(t) *a)
{
    r->c0 = a->c0;
    FP2_B_(neg_inl)(&r->c1, &a->c1);
}

void FP2_(inv)(FP2_(t) *r, const FP2_(t) *a)
{
    /* 1/(a0 + a1u) = (a0 - a1u) / (a0^2 + a1^2); norm 0 only for a = 0. */
    FP2_B_(t) n, t;
    FP2_B_(sqr_inl)(&n, &a->c0);
    FP2_B_(sqr_inl)(&t, &a->c1);
    FP2_B_(add_inl)(&n, &n, &t);
    FP2_B_(inv)(&n, &n);
    FP2_B_(mul_inl)(&r->c0, &a->c0, &n);
    FP2_B_(mul_inl)(&t, &a->c1, &n);
    FP2_B_(neg_inl)(&r->c1, &t);
}

void FP2_(batch_inv)(FP2_(t) *out, const FP2_(t) *in, size_t n, FP2_(t) *scratch)
{
    FP2_(t) *pre = scratch;
    if (!pre && n > 0)
        pre = cuzk_alloc(n, sizeof(FP2_(t)));
    if (!pre) {
        for (size_t i = 0; i < n; i++)
            FP2_(inv)(&out[i], &in[i]);
        return;
    }
    FP2_(t) acc;
    FP2_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (!FP2_(is_zero_inl)(&in[i]))
            FP2_(mul_inl)(&acc, &acc, &in[i]);
    }
    FP2_(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FP2_(is_zero_inl)(&in[i])) {
            FP2_(set_zero)(&out[i]);
            continue;
        }
        FP2_(t) x = in[i]; /* out may alias in */
        FP2_(mul_inl)(&out[i], &acc, &pre[i]);
        FP2_(mul_inl)(&acc, &acc, &x);
    }
    if (pre != scratch)
        cuzk_free(pre);
}

bool FP2_(sqrt)(FP2_(t) *r, const FP2_(t) *a)
{
    /* Via the norm (p = 3 mod 4): if x0 + x1u squares to a0 + a1u then
     * x0^2 = (a0 ± sqrt(a0^2 + a1^2))/2 and x1 = a1/(2x0). The result is
     * verified by squaring, so any non-square is reported as such. */
    FP2_(t) x;
    if (FP2_B_(is_zero_inl)(&a->c1)) {
        /* a in Fp: either sqrt(a0), or sqrt(-a0)·u since -1 is a non-residue. */
        FP2_B_(t) na;
        if (FP2_B_(sqrt)(&x.c0, &a->c0)) {
            FP2_B_(set_zero)(&x.c1);
        } else {
            FP2_B_(neg_inl)(&na, &a->c0);
            if (!FP2_B_(sqrt)(&x.c1, &na))
                return false;
            FP2_B_(set_zero)(&x.c0);
        }
        *r = x;
        return true;
    }
    FP2_B_(t) n, t, alpha, delta;
    FP2_B_(sqr_inl)(&n, &a->c0);
    FP2_B_(sqr_inl)(&t, &a->c1);
    FP2_B_(add_inl)(&n, &n, &t);
    if (!FP2_B_(sqrt)(&alpha, &n))
        return false; /* the norm of a square is a square */
    FP2_B_(add_inl)(&delta, &a->c0, &alpha);
    FP2_B_(half)(&delta, &delta);
    if (!FP2_B_(sqrt)(&x.c0, &delta)) {
        FP2_B_(sub_inl)(&delta, &a->c0, &alpha);
        FP2_B_(half)(&delta, &delta);
        if (!FP2_B_(sqrt)(&x.c0, &delta))
            return false;
    }
    /* x0 != 0 here: x0 = 0 would force a1 = 0, handled above. */
    FP2_B_(dbl_inl)(&t, &x.c0);
    FP2_B_(inv)(&t, &t);
    FP2_B_(mul_inl)(&x.c1, &a->c1, &t);
    FP2_(t) chk;
    FP2_(sqr_inl)(&chk, &x);
    if (!FP2_(eq_inl)(&chk, a))
        return false;
    *r = x;
    return true;
}

void FP2_(pow)(FP2_(t) *r, const FP2_(t) *a, const uint64_t *e, size_t e_limbs)
{
    FP2_(t) tab[16], acc;
    FP2_(set_one)(&acc);
    FP2_(set_one)(&tab[0]);
    tab[1] = *a;
    for (int i = 2; i < 16; i++)
        FP2_(mul_inl)(&tab[i], &tab[i - 1], a);
    bool started = false;
    for (size_t i = e_limbs; i-- > 0;) {
        for (int sh = 60; sh >= 0; sh -= 4) {
            unsigned w = (unsigned)(e[i] >> sh) & 15u;
            if (started) {
                for (int k = 0; k < 4; k++)
                    FP2_(sqr_inl)(&acc, &acc);
            }
            if (w) {
                FP2_(mul_inl)(&acc, &acc, &tab[w]);
                started = true;
            }
        }
    }
    *r = acc;
}

bool FP2_(random)(FP2_(t) *r) { return FP2_B_(random)(&r->c0) && FP2_B_(random)(&r->c1); }

#endif /* per-instance guard */

#undef FP2_
#undef FP2_B_
#undef FP2_P_
#undef FP2_PREFIX
