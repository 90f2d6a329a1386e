/* Definition "template" for the Fp6/Fp12 tower declared by tower_decl.h.
 *
 * Instantiate once per curve in a .c file, after the curve's declarations,
 * the inline cores of its Fp (fp_inline.h) and Fp2 (fp2_inline.h), the
 * variable-time Fp2 inversion (fp_inv_vt.h, fp2_inv_vt.h) and the
 * Frobenius table named by c_fp12_P_FROB:
 *   #define TW_CURVE bn254       (a tower listed in field/instances.h)
 *   #include "field/tower_impl.h"
 * Reads xi = c_fp12_P_XI_C0 + u and the Frobenius coefficients c_fp12_P_FROB
 * (field/instances.h). Defines, for TW_CURVE c: every c_fp6_* and c_fp12_* of
 * tower_decl.h, plus static helpers the pairing (included next) uses:
 * c_fp2_tw_mul_xi_inl, c_fp2_tw_conj_inl, c_fp6_add_inl, c_fp6_sub_inl,
 * c_fp6_neg_inl, c_fp6_mul_by_v_inl, c_fp6_mul_impl, c_fp6_sqr_impl,
 * c_fp6_mul_by_01, c_fp6_mul_by_1, c_fp6_mul_fp2, c_fp12_mul_impl,
 * c_fp12_sqr_impl, c_fp12_cyclotomic_sqr_impl and smaller c_*_tw_* helpers. TW_CURVE is #undef'd at
 * the end.
 *
 * Formulas: Karatsuba for Fp6 (6 Fp2 mul) and Fp12 (3 Fp6 mul), "complex"
 * squaring for Fp12, Chung–Hasan SQR2 for Fp6, Granger–Scott squaring in the
 * cyclotomic subgroup. Everything works on public data (pairings in a
 * verifier), so nothing here is constant-time. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define TW_FP_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp), n)
#define TW_FP2_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp2), n)
#define TW_FP6_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp6), n)
#define TW_FP12_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp12), n)
#define TW_P_(n) TW_FP12_(CUZK_CAT2(P_, n))
#if !TW_P_(XI_C0)
#error "tower_impl.h: TW_CURVE must name a tower listed in field/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TOWER_IMPL, TW_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* ---- Fp2 helpers --------------------------------------------------------- */

/* r = a·xi, xi = c_fp12_P_XI_C0 + u: (k·a0 - a1) + (k·a1 + a0)u with k = 1 or 9. */
CUZK_INLINE void TW_FP2_(tw_mul_xi_inl)(TW_FP2_(t) *r, const TW_FP2_(t) *a)
{
    TW_FP_(t) k0, k1, c0;
#if TW_P_(XI_C0) == 1
    k0 = a->c0;
    k1 = a->c1;
#elif TW_P_(XI_C0) == 9
    TW_FP_(dbl_inl)(&k0, &a->c0);
    TW_FP_(dbl_inl)(&k0, &k0);
    TW_FP_(dbl_inl)(&k0, &k0);
    TW_FP_(add_inl)(&k0, &k0, &a->c0);
    TW_FP_(dbl_inl)(&k1, &a->c1);
    TW_FP_(dbl_inl)(&k1, &k1);
    TW_FP_(dbl_inl)(&k1, &k1);
    TW_FP_(add_inl)(&k1, &k1, &a->c1);
#else
#error "tower_impl.h: c_fp12_P_XI_C0 must be 1 or 9"
#endif
    TW_FP_(sub_inl)(&c0, &k0, &a->c1);
    TW_FP_(add_inl)(&r->c1, &k1, &a->c0);
    r->c0 = c0;
}

CUZK_INLINE void TW_FP2_(tw_conj_inl)(TW_FP2_(t) *r, const TW_FP2_(t) *a)
{
    r->c0 = a->c0;
    TW_FP_(neg_inl)(&r->c1, &a->c1);
}

/* ---- Fp6 ----------------------------------------------------------------- */

CUZK_INLINE void TW_FP6_(add_inl)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b)
{
    TW_FP2_(add_inl)(&r->c0, &a->c0, &b->c0);
    TW_FP2_(add_inl)(&r->c1, &a->c1, &b->c1);
    TW_FP2_(add_inl)(&r->c2, &a->c2, &b->c2);
}

CUZK_INLINE void TW_FP6_(sub_inl)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b)
{
    TW_FP2_(sub_inl)(&r->c0, &a->c0, &b->c0);
    TW_FP2_(sub_inl)(&r->c1, &a->c1, &b->c1);
    TW_FP2_(sub_inl)(&r->c2, &a->c2, &b->c2);
}

CUZK_INLINE void TW_FP6_(neg_inl)(TW_FP6_(t) *r, const TW_FP6_(t) *a)
{
    TW_FP2_(neg_inl)(&r->c0, &a->c0);
    TW_FP2_(neg_inl)(&r->c1, &a->c1);
    TW_FP2_(neg_inl)(&r->c2, &a->c2);
}

/* a·v = xi·a2 + a0·v + a1·v^2 */
CUZK_INLINE void TW_FP6_(mul_by_v_inl)(TW_FP6_(t) *r, const TW_FP6_(t) *a)
{
    TW_FP2_(t) t;
    TW_FP2_(tw_mul_xi_inl)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* Karatsuba, 6 Fp2 multiplications:
 *   c0 = a0b0 + xi((a1+a2)(b1+b2) - a1b1 - a2b2)
 *   c1 = (a0+a1)(b0+b1) - a0b0 - a1b1 + xi·a2b2
 *   c2 = (a0+a2)(b0+b2) - a0b0 - a2b2 + a1b1 */
static void TW_FP6_(mul_impl)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b)
{
    TW_FP2_(t) v0, v1, v2, s, t, c0, c1, c2;
    TW_FP2_(mul)(&v0, &a->c0, &b->c0);
    TW_FP2_(mul)(&v1, &a->c1, &b->c1);
    TW_FP2_(mul)(&v2, &a->c2, &b->c2);

    TW_FP2_(add_inl)(&s, &a->c1, &a->c2);
    TW_FP2_(add_inl)(&t, &b->c1, &b->c2);
    TW_FP2_(mul)(&c0, &s, &t);
    TW_FP2_(sub_inl)(&c0, &c0, &v1);
    TW_FP2_(sub_inl)(&c0, &c0, &v2);
    TW_FP2_(tw_mul_xi_inl)(&c0, &c0);
    TW_FP2_(add_inl)(&c0, &c0, &v0);

    TW_FP2_(add_inl)(&s, &a->c0, &a->c1);
    TW_FP2_(add_inl)(&t, &b->c0, &b->c1);
    TW_FP2_(mul)(&c1, &s, &t);
    TW_FP2_(sub_inl)(&c1, &c1, &v0);
    TW_FP2_(sub_inl)(&c1, &c1, &v1);
    TW_FP2_(tw_mul_xi_inl)(&s, &v2);
    TW_FP2_(add_inl)(&c1, &c1, &s);

    TW_FP2_(add_inl)(&s, &a->c0, &a->c2);
    TW_FP2_(add_inl)(&t, &b->c0, &b->c2);
    TW_FP2_(mul)(&c2, &s, &t);
    TW_FP2_(sub_inl)(&c2, &c2, &v0);
    TW_FP2_(sub_inl)(&c2, &c2, &v2);
    TW_FP2_(add_inl)(&r->c2, &c2, &v1);
    r->c0 = c0;
    r->c1 = c1;
}

/* Chung–Hasan SQR2: s0 = a0^2, s1 = 2a0a1, s2 = (a0-a1+a2)^2, s3 = 2a1a2,
 * s4 = a2^2; c0 = s0 + xi·s3, c1 = s1 + xi·s4, c2 = s1 + s2 + s3 - s0 - s4. */
static void TW_FP6_(sqr_impl)(TW_FP6_(t) *r, const TW_FP6_(t) *a)
{
    TW_FP2_(t) s0, s1, s2, s3, s4, t;
    TW_FP2_(sqr)(&s0, &a->c0);
    TW_FP2_(mul)(&s1, &a->c0, &a->c1);
    TW_FP2_(dbl_inl)(&s1, &s1);
    TW_FP2_(sub_inl)(&t, &a->c0, &a->c1);
    TW_FP2_(add_inl)(&t, &t, &a->c2);
    TW_FP2_(sqr)(&s2, &t);
    TW_FP2_(mul)(&s3, &a->c1, &a->c2);
    TW_FP2_(dbl_inl)(&s3, &s3);
    TW_FP2_(sqr)(&s4, &a->c2);

    TW_FP2_(add_inl)(&t, &s1, &s2);
    TW_FP2_(add_inl)(&t, &t, &s3);
    TW_FP2_(sub_inl)(&t, &t, &s0);
    TW_FP2_(sub_inl)(&r->c2, &t, &s4);
    TW_FP2_(tw_mul_xi_inl)(&t, &s3);
    TW_FP2_(add_inl)(&r->c0, &s0, &t);
    TW_FP2_(tw_mul_xi_inl)(&t, &s4);
    TW_FP2_(add_inl)(&r->c1, &s1, &t);
}

/* a·(b0 + b1·v), 5 Fp2 multiplications:
 * c0 = a0b0 + xi·a2b1, c1 = (a0+a1)(b0+b1) - a0b0 - a1b1, c2 = a1b1 + a2b0 */
static void TW_FP6_(mul_by_01)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP2_(t) *b0,
                               const TW_FP2_(t) *b1)
{
    TW_FP2_(t) t0, t1, s, u, c0, c1, c2;
    TW_FP2_(mul)(&t0, &a->c0, b0);
    TW_FP2_(mul)(&t1, &a->c1, b1);
    TW_FP2_(mul)(&c0, &a->c2, b1);
    TW_FP2_(tw_mul_xi_inl)(&c0, &c0);
    TW_FP2_(add_inl)(&c0, &c0, &t0);
    TW_FP2_(add_inl)(&s, &a->c0, &a->c1);
    TW_FP2_(add_inl)(&u, b0, b1);
    TW_FP2_(mul)(&c1, &s, &u);
    TW_FP2_(sub_inl)(&c1, &c1, &t0);
    TW_FP2_(sub_inl)(&c1, &c1, &t1);
    TW_FP2_(mul)(&c2, &a->c2, b0);
    TW_FP2_(add_inl)(&r->c2, &c2, &t1);
    r->c0 = c0;
    r->c1 = c1;
}

/* a·(b1·v) = xi·a2b1 + a0b1·v + a1b1·v^2 */
static void TW_FP6_(mul_by_1)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP2_(t) *b1)
{
    TW_FP2_(t) c0;
    TW_FP2_(mul)(&c0, &a->c2, b1);
    TW_FP2_(tw_mul_xi_inl)(&c0, &c0);
    TW_FP2_(mul)(&r->c2, &a->c1, b1);
    TW_FP2_(mul)(&r->c1, &a->c0, b1);
    r->c0 = c0;
}

/* a·b for b in Fp2 */
static void TW_FP6_(mul_fp2)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP2_(t) *b)
{
    TW_FP2_(mul)(&r->c0, &a->c0, b);
    TW_FP2_(mul)(&r->c1, &a->c1, b);
    TW_FP2_(mul)(&r->c2, &a->c2, b);
}

void TW_FP6_(set_zero)(TW_FP6_(t) *r) { memset(r, 0, sizeof *r); }
void TW_FP6_(set_one)(TW_FP6_(t) *r)
{
    memset(r, 0, sizeof *r);
    TW_FP2_(set_one)(&r->c0);
}
bool TW_FP6_(is_zero)(const TW_FP6_(t) *a)
{
    return TW_FP2_(is_zero_inl)(&a->c0) && TW_FP2_(is_zero_inl)(&a->c1) &&
           TW_FP2_(is_zero_inl)(&a->c2);
}
bool TW_FP6_(is_one)(const TW_FP6_(t) *a)
{
    return TW_FP2_(is_one)(&a->c0) && TW_FP2_(is_zero_inl)(&a->c1) && TW_FP2_(is_zero_inl)(&a->c2);
}
bool TW_FP6_(eq)(const TW_FP6_(t) *a, const TW_FP6_(t) *b)
{
    return TW_FP2_(eq_inl)(&a->c0, &b->c0) && TW_FP2_(eq_inl)(&a->c1, &b->c1) &&
           TW_FP2_(eq_inl)(&a->c2, &b->c2);
}
void TW_FP6_(add)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b)
{
    TW_FP6_(add_inl)(r, a, b);
}
void TW_FP6_(sub)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b)
{
    TW_FP6_(sub_inl)(r, a, b);
}
void TW_FP6_(neg)(TW_FP6_(t) *r, const TW_FP6_(t) *a) { TW_FP6_(neg_inl)(r, a); }
void TW_FP6_(mul)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b)
{
    TW_FP6_(mul_impl)(r, a, b);
}
void TW_FP6_(sqr)(TW_FP6_(t) *r, const TW_FP6_(t) *a) { TW_FP6_(sqr_impl)(r, a); }
void TW_FP6_(mul_by_v)(TW_FP6_(t) *r, const TW_FP6_(t) *a) { TW_FP6_(mul_by_v_inl)(r, a); }

/* 1/a = (t0 + t1·v + t2·v^2)/d with t0 = a0^2 - xi·a1a2, t1 = xi·a2^2 - a0a1,
 * t2 = a1^2 - a0a2 and d = a0t0 + xi(a2t1 + a1t2) (the norm down to Fp2). */
void TW_FP6_(inv)(TW_FP6_(t) *r, const TW_FP6_(t) *a)
{
    TW_FP2_(t) t0, t1, t2, s, d;
    TW_FP2_(sqr)(&t0, &a->c0);
    TW_FP2_(mul)(&s, &a->c1, &a->c2);
    TW_FP2_(tw_mul_xi_inl)(&s, &s);
    TW_FP2_(sub_inl)(&t0, &t0, &s);

    TW_FP2_(sqr)(&t1, &a->c2);
    TW_FP2_(tw_mul_xi_inl)(&t1, &t1);
    TW_FP2_(mul)(&s, &a->c0, &a->c1);
    TW_FP2_(sub_inl)(&t1, &t1, &s);

    TW_FP2_(sqr)(&t2, &a->c1);
    TW_FP2_(mul)(&s, &a->c0, &a->c2);
    TW_FP2_(sub_inl)(&t2, &t2, &s);

    TW_FP2_(mul)(&d, &a->c2, &t1);
    TW_FP2_(mul)(&s, &a->c1, &t2);
    TW_FP2_(add_inl)(&d, &d, &s);
    TW_FP2_(tw_mul_xi_inl)(&d, &d);
    TW_FP2_(mul)(&s, &a->c0, &t0);
    TW_FP2_(add_inl)(&d, &d, &s);
    TW_FP2_(inv)(&d, &d); /* 0 -> 0, so inv(0) = 0 */

    TW_FP2_(mul)(&r->c0, &t0, &d);
    TW_FP2_(mul)(&r->c1, &t1, &d);
    TW_FP2_(mul)(&r->c2, &t2, &d);
}

/* x·gamma for gamma = xi^(i(p^k-1)/6); for k = 2 gamma lies in Fp. */
CUZK_INLINE void TW_FP2_(tw_mul_gamma_inl)(TW_FP2_(t) *r, const TW_FP2_(t) *x, unsigned k,
                                           unsigned i)
{
    const TW_FP2_(t) *g = &TW_P_(FROB)[k - 1][i - 1];
    if (k == 2)
        TW_FP2_(mul_fp)(r, x, &g->c0);
    else
        TW_FP2_(mul)(r, x, g);
}

/* a^(p^k) for k in 1..3: the Fp2 coefficient of w^i (v^j = w^(2j)) maps to
 * conj^k(coef)·xi^(i(p^k-1)/6), since w^(p^k) = w·(w^6)^((p^k-1)/6). */
static void TW_FP6_(frob_step)(TW_FP6_(t) *r, const TW_FP6_(t) *a, unsigned k)
{
    TW_FP6_(t) t = *a;
    if (k & 1) {
        TW_FP2_(tw_conj_inl)(&t.c0, &t.c0);
        TW_FP2_(tw_conj_inl)(&t.c1, &t.c1);
        TW_FP2_(tw_conj_inl)(&t.c2, &t.c2);
    }
    r->c0 = t.c0;
    TW_FP2_(tw_mul_gamma_inl)(&r->c1, &t.c1, k, 2);
    TW_FP2_(tw_mul_gamma_inl)(&r->c2, &t.c2, k, 4);
}

void TW_FP6_(frobenius)(TW_FP6_(t) *r, const TW_FP6_(t) *a, unsigned k)
{
    k %= 6; /* Fp6 has degree 6 over Fp */
    *r = *a;
    while (k > 0) {
        unsigned s = k >= 3 ? 3 : k;
        TW_FP6_(frob_step)(r, r, s);
        k -= s;
    }
}

/* ---- Fp12 ---------------------------------------------------------------- */

/* Karatsuba over Fp6: (a0 + a1w)(b0 + b1w) = a0b0 + v·a1b1
 *   + ((a0+a1)(b0+b1) - a0b0 - a1b1)w */
static void TW_FP12_(mul_impl)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const TW_FP12_(t) *b)
{
    TW_FP6_(t) v0, v1, s, t;
    TW_FP6_(mul_impl)(&v0, &a->c0, &b->c0);
    TW_FP6_(mul_impl)(&v1, &a->c1, &b->c1);
    TW_FP6_(add_inl)(&s, &a->c0, &a->c1);
    TW_FP6_(add_inl)(&t, &b->c0, &b->c1);
    TW_FP6_(mul_impl)(&s, &s, &t);
    TW_FP6_(sub_inl)(&s, &s, &v0);
    TW_FP6_(sub_inl)(&r->c1, &s, &v1);
    TW_FP6_(mul_by_v_inl)(&v1, &v1);
    TW_FP6_(add_inl)(&r->c0, &v0, &v1);
}

/* Complex squaring: with m = a0a1,
 * c0 = (a0 + a1)(a0 + v·a1) - m - v·m, c1 = 2m (2 Fp6 multiplications). */
static void TW_FP12_(sqr_impl)(TW_FP12_(t) *r, const TW_FP12_(t) *a)
{
    TW_FP6_(t) m, s, t;
    TW_FP6_(mul_impl)(&m, &a->c0, &a->c1);
    TW_FP6_(add_inl)(&s, &a->c0, &a->c1);
    TW_FP6_(mul_by_v_inl)(&t, &a->c1);
    TW_FP6_(add_inl)(&t, &t, &a->c0);
    TW_FP6_(mul_impl)(&s, &s, &t);
    TW_FP6_(sub_inl)(&s, &s, &m);
    TW_FP6_(mul_by_v_inl)(&t, &m);
    TW_FP6_(sub_inl)(&r->c0, &s, &t);
    TW_FP6_(add_inl)(&r->c1, &m, &m);
}

void TW_FP12_(set_zero)(TW_FP12_(t) *r) { memset(r, 0, sizeof *r); }
void TW_FP12_(set_one)(TW_FP12_(t) *r)
{
    memset(r, 0, sizeof *r);
    TW_FP2_(set_one)(&r->c0.c0);
}
bool TW_FP12_(is_zero)(const TW_FP12_(t) *a)
{
    return TW_FP6_(is_zero)(&a->c0) && TW_FP6_(is_zero)(&a->c1);
}
bool TW_FP12_(is_one)(const TW_FP12_(t) *a)
{
    return TW_FP6_(is_one)(&a->c0) && TW_FP6_(is_zero)(&a->c1);
}
bool TW_FP12_(eq)(const TW_FP12_(t) *a, const TW_FP12_(t) *b)
{
    return TW_FP6_(eq)(&a->c0, &b->c0) && TW_FP6_(eq)(&a->c1, &b->c1);
}
void TW_FP12_(add)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const TW_FP12_(t) *b)
{
    TW_FP6_(add_inl)(&r->c0, &a->c0, &b->c0);
    TW_FP6_(add_inl)(&r->c1, &a->c1, &b->c1);
}
void TW_FP12_(sub)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const TW_FP12_(t) *b)
{
    TW_FP6_(sub_inl)(&r->c0, &a->c0, &b->c0);
    TW_FP6_(sub_inl)(&r->c1, &a->c1, &b->c1);
}
void TW_FP12_(mul)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const TW_FP12_(t) *b)
{
    TW_FP12_(mul_impl)(r, a, b);
}
void TW_FP12_(sqr)(TW_FP12_(t) *r, const TW_FP12_(t) *a) { TW_FP12_(sqr_impl)(r, a); }

void TW_FP12_(conj)(TW_FP12_(t) *r, const TW_FP12_(t) *a)
{
    r->c0 = a->c0;
    TW_FP6_(neg_inl)(&r->c1, &a->c1);
}

/* 1/(a0 + a1w) = (a0 - a1w)/(a0^2 - v·a1^2) */
void TW_FP12_(inv)(TW_FP12_(t) *r, const TW_FP12_(t) *a)
{
    TW_FP6_(t) t0, t1;
    TW_FP6_(sqr_impl)(&t0, &a->c0);
    TW_FP6_(sqr_impl)(&t1, &a->c1);
    TW_FP6_(mul_by_v_inl)(&t1, &t1);
    TW_FP6_(sub_inl)(&t0, &t0, &t1);
    TW_FP6_(inv)(&t0, &t0);
    TW_FP6_(mul_impl)(&r->c0, &a->c0, &t0);
    TW_FP6_(mul_impl)(&r->c1, &a->c1, &t0);
    TW_FP6_(neg_inl)(&r->c1, &r->c1);
}

static void TW_FP12_(frob_step)(TW_FP12_(t) *r, const TW_FP12_(t) *a, unsigned k)
{
    TW_FP6_(t) t = a->c1;
    TW_FP6_(frob_step)(&r->c0, &a->c0, k); /* w^0, w^2, w^4 */
    if (k & 1) {
        TW_FP2_(tw_conj_inl)(&t.c0, &t.c0);
        TW_FP2_(tw_conj_inl)(&t.c1, &t.c1);
        TW_FP2_(tw_conj_inl)(&t.c2, &t.c2);
    }
    TW_FP2_(tw_mul_gamma_inl)(&r->c1.c0, &t.c0, k, 1); /* w^1 */
    TW_FP2_(tw_mul_gamma_inl)(&r->c1.c1, &t.c1, k, 3); /* w^3 */
    TW_FP2_(tw_mul_gamma_inl)(&r->c1.c2, &t.c2, k, 5); /* w^5 */
}

void TW_FP12_(frobenius)(TW_FP12_(t) *r, const TW_FP12_(t) *a, unsigned k)
{
    k %= 12;
    *r = *a;
    while (k > 0) {
        unsigned s = k >= 3 ? 3 : k;
        TW_FP12_(frob_step)(r, r, s);
        k -= s;
    }
}

/* (a + b·s)^2 in Fp4 = Fp2[s]/(s^2 - xi): (a^2 + xi·b^2) + ((a+b)^2 - a^2 - b^2)s */
CUZK_INLINE void TW_FP2_(tw_fp4_sqr_inl)(TW_FP2_(t) *r0, TW_FP2_(t) *r1, const TW_FP2_(t) *a,
                                         const TW_FP2_(t) *b)
{
    TW_FP2_(t) a2, b2, s;
    TW_FP2_(sqr)(&a2, a);
    TW_FP2_(sqr)(&b2, b);
    TW_FP2_(add_inl)(&s, a, b);
    TW_FP2_(sqr)(&s, &s);
    TW_FP2_(sub_inl)(&s, &s, &a2);
    TW_FP2_(sub_inl)(r1, &s, &b2);
    TW_FP2_(tw_mul_xi_inl)(&b2, &b2);
    TW_FP2_(add_inl)(r0, &a2, &b2);
}

/* 3x - 2y and 3x + 2y as 2(x ∓ y) + x */
CUZK_INLINE void TW_FP2_(tw_three_minus_two_inl)(TW_FP2_(t) *r, const TW_FP2_(t) *x,
                                                 const TW_FP2_(t) *y)
{
    TW_FP2_(t) t;
    TW_FP2_(sub_inl)(&t, x, y);
    TW_FP2_(dbl_inl)(&t, &t);
    TW_FP2_(add_inl)(r, &t, x);
}
CUZK_INLINE void TW_FP2_(tw_three_plus_two_inl)(TW_FP2_(t) *r, const TW_FP2_(t) *x,
                                                const TW_FP2_(t) *y)
{
    TW_FP2_(t) t;
    TW_FP2_(add_inl)(&t, x, y);
    TW_FP2_(dbl_inl)(&t, &t);
    TW_FP2_(add_inl)(r, &t, x);
}

/* Granger–Scott. View Fp12 = Fp4[w]/(w^3 - s) with Fp4 = Fp2[s]/(s^2 - xi),
 * s = w^3: a = A0 + A1·w + A2·w^2 with A0 = (c0.c0, c1.c1), A1 = (c1.c0, c0.c2),
 * A2 = (c0.c1, c1.c2) as (Fp2 part, s part). For a in the cyclotomic subgroup
 *   a^2 = (3A0^2 - 2·conj(A0)) + (3s·A2^2 + 2·conj(A1))w + (3A1^2 - 2·conj(A2))w^2
 * where conj(x + y·s) = x - y·s: 9 Fp2 squarings instead of 12 Fp2 mults. */
static void TW_FP12_(cyclotomic_sqr_impl)(TW_FP12_(t) *r, const TW_FP12_(t) *a)
{
    TW_FP2_(t) t0, t1, t2, t3, t4, t5;
    TW_FP2_(tw_fp4_sqr_inl)(&t0, &t1, &a->c0.c0, &a->c1.c1); /* A0^2 */
    TW_FP2_(tw_fp4_sqr_inl)(&t2, &t3, &a->c1.c0, &a->c0.c2); /* A1^2 */
    TW_FP2_(tw_fp4_sqr_inl)(&t4, &t5, &a->c0.c1, &a->c1.c2); /* A2^2 */
    TW_FP2_(tw_mul_xi_inl)(&t5, &t5); /* s·A2^2 = (xi·t5, t4) */

    TW_FP2_(tw_three_minus_two_inl)(&r->c0.c0, &t0, &a->c0.c0);
    TW_FP2_(tw_three_plus_two_inl)(&r->c1.c1, &t1, &a->c1.c1);
    TW_FP2_(tw_three_plus_two_inl)(&r->c1.c0, &t5, &a->c1.c0);
    TW_FP2_(tw_three_minus_two_inl)(&r->c0.c2, &t4, &a->c0.c2);
    TW_FP2_(tw_three_minus_two_inl)(&r->c0.c1, &t2, &a->c0.c1);
    TW_FP2_(tw_three_plus_two_inl)(&r->c1.c2, &t3, &a->c1.c2);
}

void TW_FP12_(cyclotomic_sqr)(TW_FP12_(t) *r, const TW_FP12_(t) *a)
{
    TW_FP12_(cyclotomic_sqr_impl)(r, a);
}

/* Compressed squaring (Karabina, eprint 2010/542, in Granger–Scott's
 * terms): new A1 and A2 above depend only on the old A2 and A1, so the four
 * Fp2 coefficients of A1 = (c1.c0, c0.c2) and A2 = (c0.c1, c1.c2) square
 * on their own with 6 Fp2 squarings; A0 (c0.c0, c1.c1) is left stale and
 * recovered by decompression. */
#if defined(__GNUC__)
__attribute__((noinline)) /* inlined into the chain's loop it ran ~2x slower (GCC 12) */
#endif
static void TW_FP12_(cyclo_sqr_compressed)(TW_FP12_(t) *r, const TW_FP12_(t) *a)
{
    TW_FP2_(t) t2, t3, t4, t5;
    TW_FP2_(tw_fp4_sqr_inl)(&t2, &t3, &a->c1.c0, &a->c0.c2); /* A1^2 */
    TW_FP2_(tw_fp4_sqr_inl)(&t4, &t5, &a->c0.c1, &a->c1.c2); /* A2^2 */
    TW_FP2_(tw_mul_xi_inl)(&t5, &t5);
    TW_FP2_(tw_three_plus_two_inl)(&r->c1.c0, &t5, &a->c1.c0);
    TW_FP2_(tw_three_minus_two_inl)(&r->c0.c2, &t4, &a->c0.c2);
    TW_FP2_(tw_three_minus_two_inl)(&r->c0.c1, &t2, &a->c0.c1);
    TW_FP2_(tw_three_plus_two_inl)(&r->c1.c2, &t3, &a->c1.c2);
}

/* Decompression, first half: for g in the cyclotomic subgroup known by its
 * compressed part, c1.c1 = num/den with
 *   num = xi·c1.c2^2 + 3·c0.c1^2 - 2·c0.c2, den = 4·c1.c0   (c1.c0 != 0),
 *   num = 2·c0.c1·c1.c2,                   den = c0.c2     (c1.c0 == 0);
 * den = 0 in both means this element cannot be decompressed this way. */
static void TW_FP12_(cyclo_dec_frac)(TW_FP2_(t) *num, TW_FP2_(t) *den, const TW_FP12_(t) *g)
{
    if (!TW_FP2_(is_zero_inl)(&g->c1.c0)) {
        TW_FP2_(t) t;
        TW_FP2_(sqr)(num, &g->c1.c2);
        TW_FP2_(tw_mul_xi_inl)(num, num);
        TW_FP2_(sqr)(&t, &g->c0.c1);
        TW_FP2_(add_inl)(num, num, &t);
        TW_FP2_(dbl_inl)(&t, &t);
        TW_FP2_(add_inl)(num, num, &t);
        TW_FP2_(dbl_inl)(&t, &g->c0.c2);
        TW_FP2_(sub_inl)(num, num, &t);
        TW_FP2_(dbl_inl)(den, &g->c1.c0);
        TW_FP2_(dbl_inl)(den, den);
    } else {
        TW_FP2_(mul)(num, &g->c0.c1, &g->c1.c2);
        TW_FP2_(dbl_inl)(num, num);
        *den = g->c0.c2;
    }
}

/* Second half, with inv = 1/den: c1.c1 = num·inv, then
 *   c0.c0 = xi·(2·c1.c1^2 + c1.c0·c1.c2 - 3·c0.c2·c0.c1) + 1. */
static void TW_FP12_(cyclo_dec_finish)(TW_FP12_(t) *g, const TW_FP2_(t) *num, const TW_FP2_(t) *inv)
{
    TW_FP2_(t) t, u;
    TW_FP2_(mul)(&g->c1.c1, num, inv);
    TW_FP2_(sqr)(&t, &g->c1.c1);
    TW_FP2_(dbl_inl)(&t, &t);
    TW_FP2_(mul)(&u, &g->c1.c0, &g->c1.c2);
    TW_FP2_(add_inl)(&t, &t, &u);
    TW_FP2_(mul)(&u, &g->c0.c2, &g->c0.c1);
    TW_FP2_(sub_inl)(&t, &t, &u);
    TW_FP2_(dbl_inl)(&u, &u);
    TW_FP2_(sub_inl)(&t, &t, &u);
    TW_FP2_(tw_mul_xi_inl)(&g->c0.c0, &t);
    TW_FP_(t) one;
    TW_FP_(set_one)(&one);
    TW_FP_(add_inl)(&g->c0.c0.c0, &g->c0.c0.c0, &one);
}

/* Most set bits of an exponent taken by the compressed chain. */
#define TW_CMP_MAX 16

/* r = a^e for a sparse e > 0 (at most TW_CMP_MAX set bits): a^(2^k) for
 * every set bit k > 0 along one chain of compressed squarings, decompressed
 * together (one batched Fp2 inversion), then multiplied (and by a when e is
 * odd). false (r not written) when a power cannot be decompressed (a zero
 * denominator) or e has too many set bits. */
static bool TW_FP12_(cyclotomic_exp_compressed)(TW_FP12_(t) *r, const TW_FP12_(t) *a, uint64_t e)
{
    TW_FP12_(t) pw[TW_CMP_MAX], c = *a;
    TW_FP2_(t) num[TW_CMP_MAX], den[TW_CMP_MAX], scratch[TW_CMP_MAX];
    size_t np = 0;
    const bool low = e & 1; /* a itself, not compressed */
    memset(den, 0, sizeof den);
    for (int k = 1; k < 64 && (e >> k); k++) {
        TW_FP12_(cyclo_sqr_compressed)(&c, &c);
        if ((e >> k) & 1) {
            if (np == TW_CMP_MAX)
                return false;
            pw[np++] = c;
        }
    }
    for (size_t i = 0; i < np; i++) {
        TW_FP12_(cyclo_dec_frac)(&num[i], &den[i], &pw[i]);
        if (TW_FP2_(is_zero_inl)(&den[i]))
            return false;
    }
    /* one inversion for all (variable time: public data) */
    TW_FP2_(t) acc2;
    TW_FP2_(set_one)(&acc2);
    for (size_t i = 0; i < np; i++) {
        scratch[i] = acc2;
        TW_FP2_(mul)(&acc2, &acc2, &den[i]);
    }
    TW_FP2_(inv_vt)(&acc2, &acc2);
    for (size_t i = np; i-- > 0;) {
        TW_FP2_(t) x = den[i];
        TW_FP2_(mul)(&den[i], &acc2, &scratch[i]);
        TW_FP2_(mul)(&acc2, &acc2, &x);
    }
    TW_FP12_(t) acc = *a;
    for (size_t i = 0; i < np; i++) {
        TW_FP12_(cyclo_dec_finish)(&pw[i], &num[i], &den[i]);
        if (i == 0 && !low)
            acc = pw[0];
        else
            TW_FP12_(mul_impl)(&acc, &acc, &pw[i]);
    }
    if (!low && np == 0)
        return false; /* e == 0: not for this path */
    *r = acc;
    return true;
}

/* Non-adjacent form of the 128-bit integer hi·2^64 + lo, least significant
 * digit first (digits in {-1, 0, 1}, no two adjacent non-zero); returns the
 * number of digits (at most cap; 66 suffice below 2^65). */
static int TW_FP12_(naf)(int8_t *d, int cap, uint64_t lo, uint64_t hi)
{
    int n = 0;
    while ((lo | hi) != 0 && n < cap) {
        int8_t z = 0;
        if (lo & 1) {
            z = (lo & 2) ? -1 : 1; /* k ≡ 3 (mod 4) -> -1, k ≡ 1 -> 1 */
            if (z == 1) {
                lo -= 1; /* lo is odd: no borrow */
            } else {
                lo += 1;
                hi += (lo == 0);
            }
        }
        d[n++] = z;
        lo = (lo >> 1) | (hi << 63);
        hi >>= 1;
    }
    return n;
}

/* Signed digits of e, least significant first, in one of three forms:
 * w = 1 binary (digits 0, 1), w = 2 NAF, w = 4 width-4 NAF (odd digits
 * |d| <= 7, at least 3 zeros after each non-zero one). Returns the count. */
static int TW_FP12_(exp_digits)(int8_t *d, uint64_t e, int w)
{
    int n = 0;
    if (w == 1) {
        for (; e; e >>= 1)
            d[n++] = (int8_t)(e & 1);
        return n;
    }
    if (w == 2)
        return TW_FP12_(naf)(d, 66, e, 0);
    uint64_t lo = e, hi = 0;
    while ((lo | hi) != 0 && n < 66) {
        int z = 0;
        if (lo & 1) {
            z = (int)(lo & 15);
            if (z >= 8)
                z -= 16;
            if (z > 0) {
                lo -= (uint64_t)z; /* low bits are z: no borrow */
            } else {
                uint64_t s = lo + (uint64_t)(-z);
                hi += s < lo;
                lo = s;
            }
        }
        d[n++] = (int8_t)z;
        lo = (lo >> 1) | (hi << 63);
        hi >>= 1;
    }
    return n;
}

/* Square-and-multiply over the digit form of e that costs least (a product
 * counted as two cyclotomic squarings): binary or NAF for sparse exponents
 * such as BLS12-381's |x| (6 set bits), the width-4 NAF with the table
 * a, a^3, a^5, a^7 for dense ones such as BN254's x (24 NAF digits: 23
 * products; 14 width-4 digits: 13 products + 3 for the table). The inverse
 * of a table entry is its conjugate. */
void TW_FP12_(cyclotomic_exp)(TW_FP12_(t) *r, const TW_FP12_(t) *a, uint64_t e)
{
    int8_t d[3][66];
    int n[3], best = 0, cost[3];
    static const int W[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++) {
        n[k] = TW_FP12_(exp_digits)(d[k], e, W[k]);
        int nz = 0;
        for (int i = 0; i < n[k]; i++)
            nz += d[k][i] != 0;
        cost[k] = 3 * (n[k] - 1 + 2 * (nz - 1) + (W[k] == 4 ? 1 + 2 * 3 : 0));
        if (cost[k] < cost[best])
            best = k;
    }
    if (e == 0) {
        TW_FP12_(set_one)(r);
        return;
    }
    /* compressed: 2/3 of a squaring each, an inversion (~10 squarings) and
     * a decompression (~1) for each set bit (in thirds of a squaring) */
    const int nb = n[0], pop = __builtin_popcountll(e);
    if (pop <= TW_CMP_MAX && 2 * (nb - 1) + 6 * (pop - 1) + 30 + 3 * pop < cost[best] &&
        TW_FP12_(cyclotomic_exp_compressed)(r, a, e))
        return;
    const int8_t *dg = d[best];
    TW_FP12_(t) tab[4], inv[4], acc; /* tab[j] = a^(2j+1), inv[j] its inverse */
    int nt = W[best] == 4 ? 4 : 1;
    tab[0] = *a;
    if (nt > 1) {
        TW_FP12_(t) a2;
        TW_FP12_(cyclotomic_sqr_impl)(&a2, a);
        for (int j = 1; j < nt; j++)
            TW_FP12_(mul_impl)(&tab[j], &tab[j - 1], &a2);
    }
    for (int j = 0; j < nt; j++)
        TW_FP12_(conj)(&inv[j], &tab[j]);
    acc = tab[dg[n[best] - 1] / 2]; /* the top digit is positive */
    for (int i = n[best] - 2; i >= 0; i--) {
        TW_FP12_(cyclotomic_sqr_impl)(&acc, &acc);
        const int z = dg[i];
        if (z > 0)
            TW_FP12_(mul_impl)(&acc, &acc, &tab[z / 2]);
        else if (z < 0)
            TW_FP12_(mul_impl)(&acc, &acc, &inv[-z / 2]);
    }
    *r = acc;
}

void TW_FP12_(pow)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const uint64_t *e, size_t e_limbs)
{
    TW_FP12_(t) acc, base = *a;
    TW_FP12_(set_one)(&acc);
    for (size_t i = e_limbs; i-- > 0;) {
        for (int b = 63; b >= 0; b--) {
            TW_FP12_(sqr_impl)(&acc, &acc);
            if ((e[i] >> b) & 1)
                TW_FP12_(mul_impl)(&acc, &acc, &base);
        }
    }
    *r = acc;
}

/* f·(d0 + d3·w + d4·w^3) = f·(L0 + L1·w) with L0 = d0 (in Fp2), L1 = d3 + d4·v:
 * Karatsuba with a = f0·L0 (3 mults), b = f1·L1 (5), (f0+f1)(L0+L1) (5). */
void TW_FP12_(mul_by_034)(TW_FP12_(t) *f, const TW_FP2_(t) *d0, const TW_FP2_(t) *d3,
                          const TW_FP2_(t) *d4)
{
    TW_FP6_(t) a, b, s;
    TW_FP2_(t) e0;
    TW_FP6_(mul_fp2)(&a, &f->c0, d0);
    TW_FP6_(mul_by_01)(&b, &f->c1, d3, d4);
    TW_FP6_(add_inl)(&s, &f->c0, &f->c1);
    TW_FP2_(add_inl)(&e0, d0, d3);
    TW_FP6_(mul_by_01)(&s, &s, &e0, d4);
    TW_FP6_(sub_inl)(&s, &s, &a);
    TW_FP6_(sub_inl)(&f->c1, &s, &b);
    TW_FP6_(mul_by_v_inl)(&b, &b);
    TW_FP6_(add_inl)(&f->c0, &a, &b);
}

/* f·(d0 + d1·w^2 + d4·w^3) = f·(L0 + L1·w) with L0 = d0 + d1·v, L1 = d4·v. */
void TW_FP12_(mul_by_014)(TW_FP12_(t) *f, const TW_FP2_(t) *d0, const TW_FP2_(t) *d1,
                          const TW_FP2_(t) *d4)
{
    TW_FP6_(t) a, b, s;
    TW_FP2_(t) e1;
    TW_FP6_(mul_by_01)(&a, &f->c0, d0, d1);
    TW_FP6_(mul_by_1)(&b, &f->c1, d4);
    TW_FP6_(add_inl)(&s, &f->c0, &f->c1);
    TW_FP2_(add_inl)(&e1, d1, d4);
    TW_FP6_(mul_by_01)(&s, &s, d0, &e1);
    TW_FP6_(sub_inl)(&s, &s, &a);
    TW_FP6_(sub_inl)(&f->c1, &s, &b);
    TW_FP6_(mul_by_v_inl)(&b, &b);
    TW_FP6_(add_inl)(&f->c0, &a, &b);
}

/* Coefficient k = 6i + 2j + l of the snarkjs flattening. */
static TW_FP_(t) *TW_FP12_(coef)(TW_FP12_(t) *a, int k)
{
    TW_FP6_(t) *h = (k / 6) ? &a->c1 : &a->c0;
    int j = (k % 6) / 2;
    TW_FP2_(t) *c = j == 0 ? &h->c0 : j == 1 ? &h->c1 : &h->c2;
    return (k & 1) ? &c->c1 : &c->c0;
}

void TW_FP12_(to_dec_array)(char out[12][128], const TW_FP12_(t) *a)
{
    TW_FP12_(t) t = *a;
    for (int k = 0; k < 12; k++) {
        if (TW_FP_(to_dec)(out[k], 128, TW_FP12_(coef)(&t, k)) < 0)
            out[k][0] = '\0'; /* cannot happen: 128 >= 120 */
    }
}

bool TW_FP12_(from_dec_array)(TW_FP12_(t) *r, const char *const in[12])
{
    TW_FP12_(t) t;
    for (int k = 0; k < 12; k++) {
        if (!in[k] || !TW_FP_(from_dec)(TW_FP12_(coef)(&t, k), in[k]))
            return false;
    }
    *r = t;
    return true;
}

#endif /* per-instance guard */

#undef TW_FP_
#undef TW_FP2_
#undef TW_FP6_
#undef TW_FP12_
#undef TW_P_
#undef TW_CURVE
