/* Definition "template" for a short-Weierstrass group y^2 = x^3 + b (a = 0):
 * defines everything ec_decl.h declares.
 *
 * Instantiate in a .c file after the declarations and after the inline core
 * of the coordinate field (fp_inline.h / fp2_inline.h):
 *   #define EC_PREFIX bn254_g1    (a group listed in curve/instances.h)
 *   #include "curve/ec_impl.h"
 * Reads the coordinate field g_C_F, the scalar field g_C_FR (its modulus is
 * the group order r), g_C_COFACTOR_ONE, and the constants g_C_B, g_C_GEN
 * (curve/curve_params.h). Defines, for EC_PREFIX g: everything ec_decl.h
 * declares, and the static helper g_xyzz_dbl_affine_. EC_PREFIX is #undef'd
 * at the end.
 *
 * Formulas (EFD, a = 0): Jacobian dbl-2009-l, add-2007-bl, madd-2007-bl;
 * XYZZ add-2008-s, madd-2008-s, dbl-2008-s-1, mdbl-2008-s-1. Each addition
 * detects the exceptional cases (an input at infinity, P == Q, P == -Q) so all
 * entry points are complete. Not constant time: nothing here handles secrets
 * except the prover's blinding scalars in jac_mul, where the timing leak is
 * accepted (as in snarkjs/rapidsnark). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "curve/instances.h"
#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define EC_(name) CUZK_NAME(EC_PREFIX, name)
#define EC_P_(name) CUZK_NAME(EC_PREFIX, CUZK_CAT2(C_, name))
#define EC_F_(name) CUZK_NAME(EC_P_(F), name)
#define EC_FR_(name) CUZK_NAME(EC_P_(FR), name)
#if !EC_FR_(P_LIMBS)
#error "ec_impl.h: EC_PREFIX must name a group listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_EC_IMPL, EC_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

const EC_(affine_t) EC_(GENERATOR) = EC_P_(GEN);
const EC_F_(t) EC_(B) = EC_P_(B);

/* ---- affine ------------------------------------------------------------- */

void EC_(affine_set_inf)(EC_(affine_t) *p) { memset(p, 0, sizeof *p); }

bool EC_(affine_is_inf)(const EC_(affine_t) *p)
{
    return EC_F_(is_zero_inl)(&p->x) && EC_F_(is_zero_inl)(&p->y);
}

bool EC_(affine_is_on_curve)(const EC_(affine_t) *p)
{
    if (EC_(affine_is_inf)(p))
        return true;
    EC_F_(t) l, r;
    EC_F_(sqr_inl)(&l, &p->y);
    EC_F_(sqr_inl)(&r, &p->x);
    EC_F_(mul_inl)(&r, &r, &p->x);
    EC_F_(add_inl)(&r, &r, &EC_(B));
    return EC_F_(eq_inl)(&l, &r);
}

bool EC_(affine_eq)(const EC_(affine_t) *a, const EC_(affine_t) *b)
{
    return EC_F_(eq_inl)(&a->x, &b->x) && EC_F_(eq_inl)(&a->y, &b->y);
}

void EC_(affine_neg)(EC_(affine_t) *r, const EC_(affine_t) *a)
{
    r->x = a->x;
    EC_F_(neg_inl)(&r->y, &a->y); /* -(0,0) stays (0,0) */
}

/* ---- Jacobian ----------------------------------------------------------- */

void EC_(jac_set_inf)(EC_(jac_t) *p)
{
    EC_F_(set_one)(&p->x);
    EC_F_(set_one)(&p->y);
    EC_F_(set_zero)(&p->z);
}

bool EC_(jac_is_inf)(const EC_(jac_t) *p) { return EC_F_(is_zero_inl)(&p->z); }

void EC_(jac_from_affine)(EC_(jac_t) *r, const EC_(affine_t) *a)
{
    if (EC_(affine_is_inf)(a)) {
        EC_(jac_set_inf)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    EC_F_(set_one)(&r->z);
}

void EC_(jac_to_affine)(EC_(affine_t) *r, const EC_(jac_t) *a)
{
    if (EC_(jac_is_inf)(a)) {
        EC_(affine_set_inf)(r);
        return;
    }
    EC_F_(t) zi, zi2;
    EC_F_(inv)(&zi, &a->z);
    EC_F_(sqr_inl)(&zi2, &zi);
    EC_F_(mul_inl)(&zi, &zi, &zi2);
    EC_F_(mul_inl)(&r->x, &a->x, &zi2);
    EC_F_(mul_inl)(&r->y, &a->y, &zi);
}

void EC_(jac_batch_to_affine)(EC_(affine_t) *out, const EC_(jac_t) *in, size_t n)
{
    /* Montgomery's trick over the Z coordinates, keeping the prefix products
     * in out[i].x so no scratch memory is needed (out must not alias in). */
    EC_F_(t) acc;
    EC_F_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!EC_F_(is_zero_inl)(&in[i].z))
            EC_F_(mul_inl)(&acc, &acc, &in[i].z);
    }
    EC_F_(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (EC_F_(is_zero_inl)(&in[i].z)) {
            EC_(affine_set_inf)(&out[i]);
            continue;
        }
        EC_F_(t) zi, zi2;
        EC_F_(mul_inl)(&zi, &acc, &out[i].x);
        EC_F_(mul_inl)(&acc, &acc, &in[i].z);
        EC_F_(sqr_inl)(&zi2, &zi);
        EC_F_(mul_inl)(&zi, &zi, &zi2);
        EC_F_(mul_inl)(&out[i].x, &in[i].x, &zi2);
        EC_F_(mul_inl)(&out[i].y, &in[i].y, &zi);
    }
}

bool EC_(jac_eq)(const EC_(jac_t) *a, const EC_(jac_t) *b)
{
    bool ia = EC_(jac_is_inf)(a), ib = EC_(jac_is_inf)(b);
    if (ia || ib)
        return ia && ib;
    /* X1·Z2^2 == X2·Z1^2 and Y1·Z2^3 == Y2·Z1^3 */
    EC_F_(t) z1z1, z2z2, u1, u2, s1, s2;
    EC_F_(sqr_inl)(&z1z1, &a->z);
    EC_F_(sqr_inl)(&z2z2, &b->z);
    EC_F_(mul_inl)(&u1, &a->x, &z2z2);
    EC_F_(mul_inl)(&u2, &b->x, &z1z1);
    if (!EC_F_(eq_inl)(&u1, &u2))
        return false;
    EC_F_(mul_inl)(&s1, &a->y, &z2z2);
    EC_F_(mul_inl)(&s1, &s1, &b->z);
    EC_F_(mul_inl)(&s2, &b->y, &z1z1);
    EC_F_(mul_inl)(&s2, &s2, &a->z);
    return EC_F_(eq_inl)(&s1, &s2);
}

void EC_(jac_neg)(EC_(jac_t) *r, const EC_(jac_t) *a)
{
    r->x = a->x;
    EC_F_(neg_inl)(&r->y, &a->y);
    r->z = a->z;
}

/* dbl-2009-l (a = 0): 2M + 5S. Complete as is: infinity (Z = 0) gives
 * Z3 = 2·Y·Z = 0, and no point has y = 0 (x^3 = -b has no root on these
 * curves: the group orders are odd). */
void EC_(jac_dbl)(EC_(jac_t) *r, const EC_(jac_t) *p)
{
    EC_F_(t) A, B, C, D, E, F, t;
    EC_F_(sqr_inl)(&A, &p->x);
    EC_F_(sqr_inl)(&B, &p->y);
    EC_F_(sqr_inl)(&C, &B);
    EC_F_(add_inl)(&D, &p->x, &B);
    EC_F_(sqr_inl)(&D, &D);
    EC_F_(sub_inl)(&D, &D, &A);
    EC_F_(sub_inl)(&D, &D, &C);
    EC_F_(dbl_inl)(&D, &D);
    EC_F_(dbl_inl)(&E, &A);
    EC_F_(add_inl)(&E, &E, &A);
    EC_F_(sqr_inl)(&F, &E);
    /* Z3 first: it reads Y1, Z1 which r may alias */
    EC_F_(mul_inl)(&t, &p->y, &p->z);
    EC_F_(dbl_inl)(&r->z, &t);
    EC_F_(dbl_inl)(&t, &D);
    EC_F_(sub_inl)(&r->x, &F, &t);
    EC_F_(sub_inl)(&t, &D, &r->x);
    EC_F_(mul_inl)(&t, &E, &t);
    EC_F_(dbl_inl)(&C, &C);
    EC_F_(dbl_inl)(&C, &C);
    EC_F_(dbl_inl)(&C, &C);
    EC_F_(sub_inl)(&r->y, &t, &C);
}

/* add-2007-bl: 11M + 5S. */
void EC_(jac_add)(EC_(jac_t) *r, const EC_(jac_t) *a, const EC_(jac_t) *b)
{
    if (EC_(jac_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (EC_(jac_is_inf)(b)) {
        *r = *a;
        return;
    }
    EC_F_(t) z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    EC_F_(sqr_inl)(&z1z1, &a->z);
    EC_F_(sqr_inl)(&z2z2, &b->z);
    EC_F_(mul_inl)(&u1, &a->x, &z2z2);
    EC_F_(mul_inl)(&u2, &b->x, &z1z1);
    EC_F_(mul_inl)(&s1, &a->y, &b->z);
    EC_F_(mul_inl)(&s1, &s1, &z2z2);
    EC_F_(mul_inl)(&s2, &b->y, &a->z);
    EC_F_(mul_inl)(&s2, &s2, &z1z1);
    EC_F_(sub_inl)(&h, &u2, &u1);
    EC_F_(sub_inl)(&rr, &s2, &s1);
    if (CUZK_UNLIKELY(EC_F_(is_zero_inl)(&h))) {
        if (EC_F_(is_zero_inl)(&rr))
            EC_(jac_dbl)(r, a); /* a == b */
        else
            EC_(jac_set_inf)(r); /* a == -b */
        return;
    }
    EC_F_(dbl_inl)(&rr, &rr);
    EC_F_(dbl_inl)(&i, &h);
    EC_F_(sqr_inl)(&i, &i);
    EC_F_(mul_inl)(&j, &h, &i);
    EC_F_(mul_inl)(&v, &u1, &i);
    /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2)·H, before r (may alias a/b) is written */
    EC_F_(add_inl)(&t, &a->z, &b->z);
    EC_F_(sqr_inl)(&t, &t);
    EC_F_(sub_inl)(&t, &t, &z1z1);
    EC_F_(sub_inl)(&t, &t, &z2z2);
    EC_F_(mul_inl)(&r->z, &t, &h);
    EC_F_(sqr_inl)(&t, &rr);
    EC_F_(sub_inl)(&t, &t, &j);
    EC_F_(sub_inl)(&t, &t, &v);
    EC_F_(sub_inl)(&r->x, &t, &v);
    EC_F_(sub_inl)(&t, &v, &r->x);
    EC_F_(mul_inl)(&t, &rr, &t);
    EC_F_(mul_inl)(&s1, &s1, &j);
    EC_F_(dbl_inl)(&s1, &s1);
    EC_F_(sub_inl)(&r->y, &t, &s1);
}

/* madd-2007-bl: 7M + 4S. */
void EC_(jac_add_affine)(EC_(jac_t) *r, const EC_(jac_t) *a, const EC_(affine_t) *b)
{
    if (EC_(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (EC_(jac_is_inf)(a)) {
        EC_(jac_from_affine)(r, b);
        return;
    }
    EC_F_(t) z1z1, u2, s2, h, hh, i, j, rr, v, t;
    EC_F_(sqr_inl)(&z1z1, &a->z);
    EC_F_(mul_inl)(&u2, &b->x, &z1z1);
    EC_F_(mul_inl)(&s2, &b->y, &a->z);
    EC_F_(mul_inl)(&s2, &s2, &z1z1);
    EC_F_(sub_inl)(&h, &u2, &a->x);
    EC_F_(sub_inl)(&rr, &s2, &a->y);
    if (CUZK_UNLIKELY(EC_F_(is_zero_inl)(&h))) {
        if (EC_F_(is_zero_inl)(&rr))
            EC_(jac_dbl)(r, a);
        else
            EC_(jac_set_inf)(r);
        return;
    }
    EC_F_(dbl_inl)(&rr, &rr);
    EC_F_(sqr_inl)(&hh, &h);
    EC_F_(dbl_inl)(&i, &hh);
    EC_F_(dbl_inl)(&i, &i);
    EC_F_(mul_inl)(&j, &h, &i);
    EC_F_(mul_inl)(&v, &a->x, &i);
    EC_F_(t) y1 = a->y; /* r may alias a */
    EC_F_(add_inl)(&t, &a->z, &h);
    EC_F_(sqr_inl)(&t, &t);
    EC_F_(sub_inl)(&t, &t, &z1z1);
    EC_F_(sub_inl)(&r->z, &t, &hh);
    EC_F_(sqr_inl)(&t, &rr);
    EC_F_(sub_inl)(&t, &t, &j);
    EC_F_(sub_inl)(&t, &t, &v);
    EC_F_(sub_inl)(&r->x, &t, &v);
    EC_F_(sub_inl)(&t, &v, &r->x);
    EC_F_(mul_inl)(&t, &rr, &t);
    EC_F_(mul_inl)(&y1, &y1, &j);
    EC_F_(dbl_inl)(&y1, &y1);
    EC_F_(sub_inl)(&r->y, &t, &y1);
}

/* Left-to-right fixed 4-bit window; k need not be reduced mod r. */
void EC_(jac_mul)(EC_(jac_t) *r, const EC_(jac_t) *p, const uint64_t *k, size_t k_limbs)
{
    EC_(jac_t) tab[16], acc;
    EC_(jac_set_inf)(&tab[0]);
    tab[1] = *p;
    for (int i = 2; i < 16; i++) {
        if (i & 1)
            EC_(jac_add)(&tab[i], &tab[i - 1], p);
        else
            EC_(jac_dbl)(&tab[i], &tab[i / 2]);
    }
    EC_(jac_set_inf)(&acc);
    bool started = false;
    for (size_t i = k_limbs; i-- > 0;) {
        for (int sh = 60; sh >= 0; sh -= 4) {
            unsigned w = (unsigned)(k[i] >> sh) & 15u;
            if (started)
                for (int d = 0; d < 4; d++)
                    EC_(jac_dbl)(&acc, &acc);
            if (w) {
                EC_(jac_add)(&acc, &acc, &tab[w]);
                started = true;
            }
        }
    }
    *r = acc;
}

void EC_(affine_mul)(EC_(jac_t) *r, const EC_(affine_t) *p, const uint64_t *k, size_t k_limbs)
{
    EC_(jac_t) pj;
    EC_(jac_from_affine)(&pj, p);
    EC_(jac_mul)(r, &pj, k, k_limbs);
}

bool EC_(affine_in_subgroup)(const EC_(affine_t) *p)
{
    /* Points off the curve are never in the subgroup. */
    if (!EC_(affine_is_on_curve)(p))
        return false;
#if EC_P_(COFACTOR_ONE)
    return true;
#else
    if (EC_(affine_is_inf)(p))
        return true;
    EC_(jac_t) q;
    EC_(jac_from_affine)(&q, p);
    EC_(jac_mul)(&q, &q, EC_FR_(MODULUS).l, EC_FR_(P_LIMBS));
    return EC_(jac_is_inf)(&q);
#endif
}

/* ---- XYZZ --------------------------------------------------------------- */

void EC_(xyzz_set_inf)(EC_(xyzz_t) *p)
{
    EC_F_(set_one)(&p->x);
    EC_F_(set_one)(&p->y);
    EC_F_(set_zero)(&p->zz);
    EC_F_(set_zero)(&p->zzz);
}

bool EC_(xyzz_is_inf)(const EC_(xyzz_t) *p) { return EC_F_(is_zero_inl)(&p->zz); }

/* dbl-2008-s-1 (a = 0): 6M + 3S. */
void EC_(xyzz_dbl)(EC_(xyzz_t) *r, const EC_(xyzz_t) *p)
{
    if (EC_(xyzz_is_inf)(p)) {
        *r = *p;
        return;
    }
    EC_F_(t) u, v, w, s, m, t;
    EC_F_(dbl_inl)(&u, &p->y);
    EC_F_(sqr_inl)(&v, &u);
    EC_F_(mul_inl)(&w, &u, &v);
    EC_F_(mul_inl)(&s, &p->x, &v);
    EC_F_(sqr_inl)(&m, &p->x);
    EC_F_(dbl_inl)(&t, &m);
    EC_F_(add_inl)(&m, &m, &t);
    EC_F_(mul_inl)(&r->zz, &v, &p->zz);
    EC_F_(mul_inl)(&r->zzz, &w, &p->zzz);
    EC_F_(mul_inl)(&w, &w, &p->y); /* W·Y1, read before r->y is written */
    EC_F_(sqr_inl)(&t, &m);
    EC_F_(sub_inl)(&t, &t, &s);
    EC_F_(sub_inl)(&r->x, &t, &s);
    EC_F_(sub_inl)(&t, &s, &r->x);
    EC_F_(mul_inl)(&t, &m, &t);
    EC_F_(sub_inl)(&r->y, &t, &w);
}

/* mdbl-2008-s-1: doubling of an affine point into XYZZ (3M + 2S). */
CUZK_INLINE void EC_(xyzz_dbl_affine_)(EC_(xyzz_t) *r, const EC_(affine_t) *p)
{
    EC_F_(t) u, v, w, s, m, t;
    EC_F_(dbl_inl)(&u, &p->y);
    EC_F_(sqr_inl)(&v, &u);
    EC_F_(mul_inl)(&w, &u, &v);
    EC_F_(mul_inl)(&s, &p->x, &v);
    EC_F_(sqr_inl)(&m, &p->x);
    EC_F_(dbl_inl)(&t, &m);
    EC_F_(add_inl)(&m, &m, &t);
    r->zz = v;
    r->zzz = w;
    EC_F_(mul_inl)(&w, &w, &p->y);
    EC_F_(sqr_inl)(&t, &m);
    EC_F_(sub_inl)(&t, &t, &s);
    EC_F_(sub_inl)(&r->x, &t, &s);
    EC_F_(sub_inl)(&t, &s, &r->x);
    EC_F_(mul_inl)(&t, &m, &t);
    EC_F_(sub_inl)(&r->y, &t, &w);
}

/* madd-2008-s: 8M + 2S. */
void EC_(xyzz_add_affine)(EC_(xyzz_t) *r, const EC_(xyzz_t) *a, const EC_(affine_t) *b)
{
    if (EC_(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (EC_(xyzz_is_inf)(a)) {
        r->x = b->x;
        r->y = b->y;
        EC_F_(set_one)(&r->zz);
        EC_F_(set_one)(&r->zzz);
        return;
    }
    EC_F_(t) u2, s2, P, R, pp, ppp, q, t;
    EC_F_(mul_inl)(&u2, &b->x, &a->zz);
    EC_F_(mul_inl)(&s2, &b->y, &a->zzz);
    EC_F_(sub_inl)(&P, &u2, &a->x);
    EC_F_(sub_inl)(&R, &s2, &a->y);
    if (CUZK_UNLIKELY(EC_F_(is_zero_inl)(&P))) {
        if (EC_F_(is_zero_inl)(&R))
            EC_(xyzz_dbl_affine_)(r, b);
        else
            EC_(xyzz_set_inf)(r);
        return;
    }
    EC_F_(t) y1ppp;
    EC_F_(sqr_inl)(&pp, &P);
    EC_F_(mul_inl)(&ppp, &P, &pp);
    EC_F_(mul_inl)(&q, &a->x, &pp);
    EC_F_(mul_inl)(&y1ppp, &a->y, &ppp); /* reads of a done before r is written */
    EC_F_(mul_inl)(&r->zz, &a->zz, &pp);
    EC_F_(mul_inl)(&r->zzz, &a->zzz, &ppp);
    EC_F_(sqr_inl)(&t, &R);
    EC_F_(sub_inl)(&t, &t, &ppp);
    EC_F_(sub_inl)(&t, &t, &q);
    EC_F_(sub_inl)(&r->x, &t, &q);
    EC_F_(sub_inl)(&t, &q, &r->x);
    EC_F_(mul_inl)(&t, &R, &t);
    EC_F_(sub_inl)(&r->y, &t, &y1ppp);
}

void EC_(xyzz_sub_affine)(EC_(xyzz_t) *r, const EC_(xyzz_t) *a, const EC_(affine_t) *b)
{
    EC_(affine_t) nb;
    EC_(affine_neg)(&nb, b);
    EC_(xyzz_add_affine)(r, a, &nb);
}

/* add-2008-s: 12M + 2S. */
void EC_(xyzz_add)(EC_(xyzz_t) *r, const EC_(xyzz_t) *a, const EC_(xyzz_t) *b)
{
    if (EC_(xyzz_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (EC_(xyzz_is_inf)(b)) {
        *r = *a;
        return;
    }
    EC_F_(t) u1, u2, s1, s2, P, R, pp, ppp, q, t;
    EC_F_(mul_inl)(&u1, &a->x, &b->zz);
    EC_F_(mul_inl)(&u2, &b->x, &a->zz);
    EC_F_(mul_inl)(&s1, &a->y, &b->zzz);
    EC_F_(mul_inl)(&s2, &b->y, &a->zzz);
    EC_F_(sub_inl)(&P, &u2, &u1);
    EC_F_(sub_inl)(&R, &s2, &s1);
    if (CUZK_UNLIKELY(EC_F_(is_zero_inl)(&P))) {
        if (EC_F_(is_zero_inl)(&R))
            EC_(xyzz_dbl)(r, a);
        else
            EC_(xyzz_set_inf)(r);
        return;
    }
    EC_F_(sqr_inl)(&pp, &P);
    EC_F_(mul_inl)(&ppp, &P, &pp);
    EC_F_(mul_inl)(&q, &u1, &pp);
    EC_F_(mul_inl)(&t, &a->zz, &b->zz);
    EC_F_(mul_inl)(&r->zz, &t, &pp);
    EC_F_(mul_inl)(&t, &a->zzz, &b->zzz);
    EC_F_(mul_inl)(&r->zzz, &t, &ppp);
    EC_F_(mul_inl)(&s1, &s1, &ppp);
    EC_F_(sqr_inl)(&t, &R);
    EC_F_(sub_inl)(&t, &t, &ppp);
    EC_F_(sub_inl)(&t, &t, &q);
    EC_F_(sub_inl)(&r->x, &t, &q);
    EC_F_(sub_inl)(&t, &q, &r->x);
    EC_F_(mul_inl)(&t, &R, &t);
    EC_F_(sub_inl)(&r->y, &t, &s1);
}

/* x = X/ZZ = X·ZZ^2/ZZZ^2, y = Y/ZZZ = Y·ZZZ^2/ZZZ^3 (ZZ^3 = ZZZ^2), so the
 * Jacobian point is (X·ZZ^2, Y·ZZZ^2, ZZZ) with no inversion. */
void EC_(xyzz_to_jac)(EC_(jac_t) *r, const EC_(xyzz_t) *a)
{
    if (EC_(xyzz_is_inf)(a)) {
        EC_(jac_set_inf)(r);
        return;
    }
    EC_F_(t) t, zzz = a->zzz;
    EC_F_(sqr_inl)(&t, &a->zz);
    EC_F_(mul_inl)(&r->x, &a->x, &t);
    EC_F_(sqr_inl)(&t, &zzz);
    EC_F_(mul_inl)(&r->y, &a->y, &t);
    r->z = zzz;
}

#endif /* per-instance guard */

#undef EC_
#undef EC_P_
#undef EC_F_
#undef EC_FR_
#undef EC_PREFIX
