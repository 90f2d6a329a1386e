/* Definition "template" for Fp2 = Fp[u]/(u^2 + 1): defines every function of
 * fp2_decl.h. Instantiate after the base field's fp_impl.h (or fp_inline.h)
 * in the same translation unit:
 *   #define FP2_PREFIX bn254_fp2
 *   #define FP2_BASE   bn254_fp
 *   #include "field/fp2_impl.h"
 * Requires p = 3 mod 4 (so -1 is a non-residue and u^2 = -1 is irreducible),
 * true for BN254 and BLS12-381. Both macros are #undef'd at the end. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/common.h"

#define FP2_INLINE_KEEP
#include "field/fp2_inline.h"
#undef FP2_INLINE_KEEP

#define F2N_(name) CUZK_NAME(FP2_PREFIX, name)
#define F2B_(name) CUZK_NAME(FP2_BASE, name)

void F2N_(set_zero)(F2N_(t) *r) { memset(r, 0, sizeof *r); }
void F2N_(set_one)(F2N_(t) *r)
{
    F2B_(set_one)(&r->c0);
    F2B_(set_zero)(&r->c1);
}
bool F2N_(is_zero)(const F2N_(t) *a) { return F2N_(is_zero_inl)(a); }
bool F2N_(is_one)(const F2N_(t) *a) { return F2B_(is_one)(&a->c0) && F2B_(is_zero_inl)(&a->c1); }
bool F2N_(eq)(const F2N_(t) *a, const F2N_(t) *b) { return F2N_(eq_inl)(a, b); }
void F2N_(add)(F2N_(t) *r, const F2N_(t) *a, const F2N_(t) *b) { F2N_(add_inl)(r, a, b); }
void F2N_(sub)(F2N_(t) *r, const F2N_(t) *a, const F2N_(t) *b) { F2N_(sub_inl)(r, a, b); }
void F2N_(dbl)(F2N_(t) *r, const F2N_(t) *a) { F2N_(dbl_inl)(r, a); }
void F2N_(neg)(F2N_(t) *r, const F2N_(t) *a) { F2N_(neg_inl)(r, a); }
void F2N_(mul)(F2N_(t) *r, const F2N_(t) *a, const F2N_(t) *b) { F2N_(mul_inl)(r, a, b); }
void F2N_(sqr)(F2N_(t) *r, const F2N_(t) *a) { F2N_(sqr_inl)(r, a); }
void F2N_(mul_fp)(F2N_(t) *r, const F2N_(t) *a, const F2B_(t) *b) { F2N_(mul_fp_inl)(r, a, b); }

void F2N_(conj)(F2N_(t) *r, const F2N_(t) *a)
{
    r->c0 = a->c0;
    F2B_(neg_inl)(&r->c1, &a->c1);
}

void F2N_(inv)(F2N_(t) *r, const F2N_(t) *a)
{
    /* 1/(a0 + a1u) = (a0 - a1u) / (a0^2 + a1^2); norm 0 only for a = 0. */
    F2B_(t) n, t;
    F2B_(sqr_inl)(&n, &a->c0);
    F2B_(sqr_inl)(&t, &a->c1);
    F2B_(add_inl)(&n, &n, &t);
    F2B_(inv)(&n, &n);
    F2B_(mul_inl)(&r->c0, &a->c0, &n);
    F2B_(mul_inl)(&t, &a->c1, &n);
    F2B_(neg_inl)(&r->c1, &t);
}

void F2N_(batch_inv)(F2N_(t) *out, const F2N_(t) *in, size_t n, F2N_(t) *scratch)
{
    F2N_(t) *pre = scratch;
    if (!pre && n > 0)
        pre = cuzk_alloc(n, sizeof(F2N_(t)));
    if (!pre) {
        for (size_t i = 0; i < n; i++)
            F2N_(inv)(&out[i], &in[i]);
        return;
    }
    F2N_(t) acc;
    F2N_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (!F2N_(is_zero_inl)(&in[i]))
            F2N_(mul_inl)(&acc, &acc, &in[i]);
    }
    F2N_(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (F2N_(is_zero_inl)(&in[i])) {
            F2N_(set_zero)(&out[i]);
            continue;
        }
        F2N_(t) x = in[i]; /* out may alias in */
        F2N_(mul_inl)(&out[i], &acc, &pre[i]);
        F2N_(mul_inl)(&acc, &acc, &x);
    }
    if (pre != scratch)
        cuzk_free(pre);
}

bool F2N_(sqrt)(F2N_(t) *r, const F2N_(t) *a)
{
    /* Via the norm (p = 3 mod 4): if x0 + x1u squares to a0 + a1u then
     * x0^2 = (a0 ± sqrt(a0^2 + a1^2))/2 and x1 = a1/(2x0). The result is
     * verified by squaring, so any non-square is reported as such. */
    F2N_(t) x;
    if (F2B_(is_zero_inl)(&a->c1)) {
        /* a in Fp: either sqrt(a0), or sqrt(-a0)·u since -1 is a non-residue. */
        F2B_(t) na;
        if (F2B_(sqrt)(&x.c0, &a->c0)) {
            F2B_(set_zero)(&x.c1);
        } else {
            F2B_(neg_inl)(&na, &a->c0);
            if (!F2B_(sqrt)(&x.c1, &na))
                return false;
            F2B_(set_zero)(&x.c0);
        }
        *r = x;
        return true;
    }
    F2B_(t) n, t, alpha, delta;
    F2B_(sqr_inl)(&n, &a->c0);
    F2B_(sqr_inl)(&t, &a->c1);
    F2B_(add_inl)(&n, &n, &t);
    if (!F2B_(sqrt)(&alpha, &n))
        return false; /* the norm of a square is a square */
    F2B_(add_inl)(&delta, &a->c0, &alpha);
    F2B_(half)(&delta, &delta);
    if (!F2B_(sqrt)(&x.c0, &delta)) {
        F2B_(sub_inl)(&delta, &a->c0, &alpha);
        F2B_(half)(&delta, &delta);
        if (!F2B_(sqrt)(&x.c0, &delta))
            return false;
    }
    /* x0 != 0 here: x0 = 0 would force a1 = 0, handled above. */
    F2B_(dbl_inl)(&t, &x.c0);
    F2B_(inv)(&t, &t);
    F2B_(mul_inl)(&x.c1, &a->c1, &t);
    F2N_(t) chk;
    F2N_(sqr_inl)(&chk, &x);
    if (!F2N_(eq_inl)(&chk, a))
        return false;
    *r = x;
    return true;
}

void F2N_(pow)(F2N_(t) *r, const F2N_(t) *a, const uint64_t *e, size_t e_limbs)
{
    F2N_(t) tab[16], acc;
    F2N_(set_one)(&acc);
    F2N_(set_one)(&tab[0]);
    tab[1] = *a;
    for (int i = 2; i < 16; i++)
        F2N_(mul_inl)(&tab[i], &tab[i - 1], a);
    bool started = false;
    for (size_t i = e_limbs; i-- > 0;) {
        for (int sh = 60; sh >= 0; sh -= 4) {
            unsigned w = (unsigned)(e[i] >> sh) & 15u;
            if (started) {
                for (int k = 0; k < 4; k++)
                    F2N_(sqr_inl)(&acc, &acc);
            }
            if (w) {
                F2N_(mul_inl)(&acc, &acc, &tab[w]);
                started = true;
            }
        }
    }
    *r = acc;
}

bool F2N_(random)(F2N_(t) *r)
{
    return F2B_(random)(&r->c0) && F2B_(random)(&r->c1);
}

#undef F2N_
#undef F2B_
#undef FP2_PREFIX
#undef FP2_BASE
