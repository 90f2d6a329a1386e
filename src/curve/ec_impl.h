/* Definition "template" for a short-Weierstrass group y^2 = x^3 + b (a = 0):
 * defines everything ec_decl.h declares.
 *
 * Instantiate in a .c file after the declarations and after the inline core
 * of the coordinate field (fp_inline.h / fp2_inline.h):
 *   #define EC_PREFIX       bn254_g1
 *   #define EC_F            bn254_fp
 *   #define EC_ORDER        bn254_fr_MODULUS.l   (group order r, raw limbs)
 *   #define EC_ORDER_LIMBS  4
 *   #define EC_COFACTOR_ONE 1                    (optional: every point is in G)
 *   #define EC_SUBGROUP_FAST fn                  (optional: bool fn(const jac_t *P)
 *                                                 for an on-curve P, replaces r·P == O)
 *   #include "curve/ec_impl.h"
 * Constants come from curve/curve_params.h (<prefix>_C_B, <prefix>_C_GEN).
 * All macros above are #undef'd at the end.
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

#include "curve/curve_params.h"
#include "util/common.h"

#define ECN_(name) CUZK_NAME(EC_PREFIX, name)
#define ECF_(name) CUZK_NAME(EC_F, name)
#define ECC_(name) CUZK_NAME(EC_PREFIX, CUZK_CAT2(C_, name))

const ECN_(affine_t) ECN_(GENERATOR) = ECC_(GEN);
const ECF_(t) ECN_(B) = ECC_(B);

/* ---- affine ------------------------------------------------------------- */

void ECN_(affine_set_inf)(ECN_(affine_t) *p) { memset(p, 0, sizeof *p); }

bool ECN_(affine_is_inf)(const ECN_(affine_t) *p)
{
    return ECF_(is_zero_inl)(&p->x) && ECF_(is_zero_inl)(&p->y);
}

bool ECN_(affine_is_on_curve)(const ECN_(affine_t) *p)
{
    if (ECN_(affine_is_inf)(p))
        return true;
    ECF_(t) l, r;
    ECF_(sqr_inl)(&l, &p->y);
    ECF_(sqr_inl)(&r, &p->x);
    ECF_(mul_inl)(&r, &r, &p->x);
    ECF_(add_inl)(&r, &r, &ECN_(B));
    return ECF_(eq_inl)(&l, &r);
}

bool ECN_(affine_eq)(const ECN_(affine_t) *a, const ECN_(affine_t) *b)
{
    return ECF_(eq_inl)(&a->x, &b->x) && ECF_(eq_inl)(&a->y, &b->y);
}

void ECN_(affine_neg)(ECN_(affine_t) *r, const ECN_(affine_t) *a)
{
    r->x = a->x;
    ECF_(neg_inl)(&r->y, &a->y); /* -(0,0) stays (0,0) */
}

/* ---- Jacobian ----------------------------------------------------------- */

void ECN_(jac_set_inf)(ECN_(jac_t) *p)
{
    ECF_(set_one)(&p->x);
    ECF_(set_one)(&p->y);
    ECF_(set_zero)(&p->z);
}

bool ECN_(jac_is_inf)(const ECN_(jac_t) *p) { return ECF_(is_zero_inl)(&p->z); }

void ECN_(jac_from_affine)(ECN_(jac_t) *r, const ECN_(affine_t) *a)
{
    if (ECN_(affine_is_inf)(a)) {
        ECN_(jac_set_inf)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    ECF_(set_one)(&r->z);
}

void ECN_(jac_to_affine)(ECN_(affine_t) *r, const ECN_(jac_t) *a)
{
    if (ECN_(jac_is_inf)(a)) {
        ECN_(affine_set_inf)(r);
        return;
    }
    ECF_(t) zi, zi2;
    ECF_(inv)(&zi, &a->z);
    ECF_(sqr_inl)(&zi2, &zi);
    ECF_(mul_inl)(&zi, &zi, &zi2);
    ECF_(mul_inl)(&r->x, &a->x, &zi2);
    ECF_(mul_inl)(&r->y, &a->y, &zi);
}

void ECN_(jac_batch_to_affine)(ECN_(affine_t) *out, const ECN_(jac_t) *in, size_t n)
{
    /* Montgomery's trick over the Z coordinates, keeping the prefix products
     * in out[i].x so no scratch memory is needed (out must not alias in). */
    ECF_(t) acc;
    ECF_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        out[i].x = acc;
        if (!ECF_(is_zero_inl)(&in[i].z))
            ECF_(mul_inl)(&acc, &acc, &in[i].z);
    }
    ECF_(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (ECF_(is_zero_inl)(&in[i].z)) {
            ECN_(affine_set_inf)(&out[i]);
            continue;
        }
        ECF_(t) zi, zi2;
        ECF_(mul_inl)(&zi, &acc, &out[i].x);
        ECF_(mul_inl)(&acc, &acc, &in[i].z);
        ECF_(sqr_inl)(&zi2, &zi);
        ECF_(mul_inl)(&zi, &zi, &zi2);
        ECF_(mul_inl)(&out[i].x, &in[i].x, &zi2);
        ECF_(mul_inl)(&out[i].y, &in[i].y, &zi);
    }
}

bool ECN_(jac_eq)(const ECN_(jac_t) *a, const ECN_(jac_t) *b)
{
    bool ia = ECN_(jac_is_inf)(a), ib = ECN_(jac_is_inf)(b);
    if (ia || ib)
        return ia && ib;
    /* X1·Z2^2 == X2·Z1^2 and Y1·Z2^3 == Y2·Z1^3 */
    ECF_(t) z1z1, z2z2, u1, u2, s1, s2;
    ECF_(sqr_inl)(&z1z1, &a->z);
    ECF_(sqr_inl)(&z2z2, &b->z);
    ECF_(mul_inl)(&u1, &a->x, &z2z2);
    ECF_(mul_inl)(&u2, &b->x, &z1z1);
    if (!ECF_(eq_inl)(&u1, &u2))
        return false;
    ECF_(mul_inl)(&s1, &a->y, &z2z2);
    ECF_(mul_inl)(&s1, &s1, &b->z);
    ECF_(mul_inl)(&s2, &b->y, &z1z1);
    ECF_(mul_inl)(&s2, &s2, &a->z);
    return ECF_(eq_inl)(&s1, &s2);
}

void ECN_(jac_neg)(ECN_(jac_t) *r, const ECN_(jac_t) *a)
{
    r->x = a->x;
    ECF_(neg_inl)(&r->y, &a->y);
    r->z = a->z;
}

/* dbl-2009-l (a = 0): 2M + 5S. Complete as is: infinity (Z = 0) gives
 * Z3 = 2·Y·Z = 0, and no point has y = 0 (x^3 = -b has no root on these
 * curves: the group orders are odd). */
void ECN_(jac_dbl)(ECN_(jac_t) *r, const ECN_(jac_t) *p)
{
    ECF_(t) A, B, C, D, E, F, t;
    ECF_(sqr_inl)(&A, &p->x);
    ECF_(sqr_inl)(&B, &p->y);
    ECF_(sqr_inl)(&C, &B);
    ECF_(add_inl)(&D, &p->x, &B);
    ECF_(sqr_inl)(&D, &D);
    ECF_(sub_inl)(&D, &D, &A);
    ECF_(sub_inl)(&D, &D, &C);
    ECF_(dbl_inl)(&D, &D);
    ECF_(dbl_inl)(&E, &A);
    ECF_(add_inl)(&E, &E, &A);
    ECF_(sqr_inl)(&F, &E);
    /* Z3 first: it reads Y1, Z1 which r may alias */
    ECF_(mul_inl)(&t, &p->y, &p->z);
    ECF_(dbl_inl)(&r->z, &t);
    ECF_(dbl_inl)(&t, &D);
    ECF_(sub_inl)(&r->x, &F, &t);
    ECF_(sub_inl)(&t, &D, &r->x);
    ECF_(mul_inl)(&t, &E, &t);
    ECF_(dbl_inl)(&C, &C);
    ECF_(dbl_inl)(&C, &C);
    ECF_(dbl_inl)(&C, &C);
    ECF_(sub_inl)(&r->y, &t, &C);
}

/* add-2007-bl: 11M + 5S. */
void ECN_(jac_add)(ECN_(jac_t) *r, const ECN_(jac_t) *a, const ECN_(jac_t) *b)
{
    if (ECN_(jac_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (ECN_(jac_is_inf)(b)) {
        *r = *a;
        return;
    }
    ECF_(t) z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    ECF_(sqr_inl)(&z1z1, &a->z);
    ECF_(sqr_inl)(&z2z2, &b->z);
    ECF_(mul_inl)(&u1, &a->x, &z2z2);
    ECF_(mul_inl)(&u2, &b->x, &z1z1);
    ECF_(mul_inl)(&s1, &a->y, &b->z);
    ECF_(mul_inl)(&s1, &s1, &z2z2);
    ECF_(mul_inl)(&s2, &b->y, &a->z);
    ECF_(mul_inl)(&s2, &s2, &z1z1);
    ECF_(sub_inl)(&h, &u2, &u1);
    ECF_(sub_inl)(&rr, &s2, &s1);
    if (CUZK_UNLIKELY(ECF_(is_zero_inl)(&h))) {
        if (ECF_(is_zero_inl)(&rr))
            ECN_(jac_dbl)(r, a);   /* a == b */
        else
            ECN_(jac_set_inf)(r);  /* a == -b */
        return;
    }
    ECF_(dbl_inl)(&rr, &rr);
    ECF_(dbl_inl)(&i, &h);
    ECF_(sqr_inl)(&i, &i);
    ECF_(mul_inl)(&j, &h, &i);
    ECF_(mul_inl)(&v, &u1, &i);
    /* Z3 = ((Z1+Z2)^2 - Z1Z1 - Z2Z2)·H, before r (may alias a/b) is written */
    ECF_(add_inl)(&t, &a->z, &b->z);
    ECF_(sqr_inl)(&t, &t);
    ECF_(sub_inl)(&t, &t, &z1z1);
    ECF_(sub_inl)(&t, &t, &z2z2);
    ECF_(mul_inl)(&r->z, &t, &h);
    ECF_(sqr_inl)(&t, &rr);
    ECF_(sub_inl)(&t, &t, &j);
    ECF_(sub_inl)(&t, &t, &v);
    ECF_(sub_inl)(&r->x, &t, &v);
    ECF_(sub_inl)(&t, &v, &r->x);
    ECF_(mul_inl)(&t, &rr, &t);
    ECF_(mul_inl)(&s1, &s1, &j);
    ECF_(dbl_inl)(&s1, &s1);
    ECF_(sub_inl)(&r->y, &t, &s1);
}

/* madd-2007-bl: 7M + 4S. */
void ECN_(jac_add_affine)(ECN_(jac_t) *r, const ECN_(jac_t) *a, const ECN_(affine_t) *b)
{
    if (ECN_(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (ECN_(jac_is_inf)(a)) {
        ECN_(jac_from_affine)(r, b);
        return;
    }
    ECF_(t) z1z1, u2, s2, h, hh, i, j, rr, v, t;
    ECF_(sqr_inl)(&z1z1, &a->z);
    ECF_(mul_inl)(&u2, &b->x, &z1z1);
    ECF_(mul_inl)(&s2, &b->y, &a->z);
    ECF_(mul_inl)(&s2, &s2, &z1z1);
    ECF_(sub_inl)(&h, &u2, &a->x);
    ECF_(sub_inl)(&rr, &s2, &a->y);
    if (CUZK_UNLIKELY(ECF_(is_zero_inl)(&h))) {
        if (ECF_(is_zero_inl)(&rr))
            ECN_(jac_dbl)(r, a);
        else
            ECN_(jac_set_inf)(r);
        return;
    }
    ECF_(dbl_inl)(&rr, &rr);
    ECF_(sqr_inl)(&hh, &h);
    ECF_(dbl_inl)(&i, &hh);
    ECF_(dbl_inl)(&i, &i);
    ECF_(mul_inl)(&j, &h, &i);
    ECF_(mul_inl)(&v, &a->x, &i);
    ECF_(t) y1 = a->y; /* r may alias a */
    ECF_(add_inl)(&t, &a->z, &h);
    ECF_(sqr_inl)(&t, &t);
    ECF_(sub_inl)(&t, &t, &z1z1);
    ECF_(sub_inl)(&r->z, &t, &hh);
    ECF_(sqr_inl)(&t, &rr);
    ECF_(sub_inl)(&t, &t, &j);
    ECF_(sub_inl)(&t, &t, &v);
    ECF_(sub_inl)(&r->x, &t, &v);
    ECF_(sub_inl)(&t, &v, &r->x);
    ECF_(mul_inl)(&t, &rr, &t);
    ECF_(mul_inl)(&y1, &y1, &j);
    ECF_(dbl_inl)(&y1, &y1);
    ECF_(sub_inl)(&r->y, &t, &y1);
}

/* Left-to-right fixed 4-bit window; k need not be reduced mod r. */
void ECN_(jac_mul)(ECN_(jac_t) *r, const ECN_(jac_t) *p, const uint64_t *k, size_t k_limbs)
{
    ECN_(jac_t) tab[16], acc;
    ECN_(jac_set_inf)(&tab[0]);
    tab[1] = *p;
    for (int i = 2; i < 16; i++) {
        if (i & 1)
            ECN_(jac_add)(&tab[i], &tab[i - 1], p);
        else
            ECN_(jac_dbl)(&tab[i], &tab[i / 2]);
    }
    ECN_(jac_set_inf)(&acc);
    bool started = false;
    for (size_t i = k_limbs; i-- > 0;) {
        for (int sh = 60; sh >= 0; sh -= 4) {
            unsigned w = (unsigned)(k[i] >> sh) & 15u;
            if (started)
                for (int d = 0; d < 4; d++)
                    ECN_(jac_dbl)(&acc, &acc);
            if (w) {
                ECN_(jac_add)(&acc, &acc, &tab[w]);
                started = true;
            }
        }
    }
    *r = acc;
}

void ECN_(affine_mul)(ECN_(jac_t) *r, const ECN_(affine_t) *p, const uint64_t *k, size_t k_limbs)
{
    ECN_(jac_t) pj;
    ECN_(jac_from_affine)(&pj, p);
    ECN_(jac_mul)(r, &pj, k, k_limbs);
}

bool ECN_(affine_in_subgroup)(const ECN_(affine_t) *p)
{
    /* Points off the curve are never in the subgroup. */
    if (!ECN_(affine_is_on_curve)(p))
        return false;
#if defined(EC_COFACTOR_ONE)
    return true;
#else
    if (ECN_(affine_is_inf)(p))
        return true;
    ECN_(jac_t) q;
    ECN_(jac_from_affine)(&q, p);
#if defined(EC_SUBGROUP_FAST)
    return EC_SUBGROUP_FAST(&q);
#else
    ECN_(jac_mul)(&q, &q, EC_ORDER, EC_ORDER_LIMBS);
    return ECN_(jac_is_inf)(&q);
#endif
#endif
}

/* ---- XYZZ --------------------------------------------------------------- */

void ECN_(xyzz_set_inf)(ECN_(xyzz_t) *p)
{
    ECF_(set_one)(&p->x);
    ECF_(set_one)(&p->y);
    ECF_(set_zero)(&p->zz);
    ECF_(set_zero)(&p->zzz);
}

bool ECN_(xyzz_is_inf)(const ECN_(xyzz_t) *p) { return ECF_(is_zero_inl)(&p->zz); }

/* dbl-2008-s-1 (a = 0): 6M + 3S. */
void ECN_(xyzz_dbl)(ECN_(xyzz_t) *r, const ECN_(xyzz_t) *p)
{
    if (ECN_(xyzz_is_inf)(p)) {
        *r = *p;
        return;
    }
    ECF_(t) u, v, w, s, m, t;
    ECF_(dbl_inl)(&u, &p->y);
    ECF_(sqr_inl)(&v, &u);
    ECF_(mul_inl)(&w, &u, &v);
    ECF_(mul_inl)(&s, &p->x, &v);
    ECF_(sqr_inl)(&m, &p->x);
    ECF_(dbl_inl)(&t, &m);
    ECF_(add_inl)(&m, &m, &t);
    ECF_(mul_inl)(&r->zz, &v, &p->zz);
    ECF_(mul_inl)(&r->zzz, &w, &p->zzz);
    ECF_(mul_inl)(&w, &w, &p->y);         /* W·Y1, read before r->y is written */
    ECF_(sqr_inl)(&t, &m);
    ECF_(sub_inl)(&t, &t, &s);
    ECF_(sub_inl)(&r->x, &t, &s);
    ECF_(sub_inl)(&t, &s, &r->x);
    ECF_(mul_inl)(&t, &m, &t);
    ECF_(sub_inl)(&r->y, &t, &w);
}

/* mdbl-2008-s-1: doubling of an affine point into XYZZ (3M + 2S). */
CUZK_INLINE void ECN_(xyzz_dbl_affine_)(ECN_(xyzz_t) *r, const ECN_(affine_t) *p)
{
    ECF_(t) u, v, w, s, m, t;
    ECF_(dbl_inl)(&u, &p->y);
    ECF_(sqr_inl)(&v, &u);
    ECF_(mul_inl)(&w, &u, &v);
    ECF_(mul_inl)(&s, &p->x, &v);
    ECF_(sqr_inl)(&m, &p->x);
    ECF_(dbl_inl)(&t, &m);
    ECF_(add_inl)(&m, &m, &t);
    r->zz = v;
    r->zzz = w;
    ECF_(mul_inl)(&w, &w, &p->y);
    ECF_(sqr_inl)(&t, &m);
    ECF_(sub_inl)(&t, &t, &s);
    ECF_(sub_inl)(&r->x, &t, &s);
    ECF_(sub_inl)(&t, &s, &r->x);
    ECF_(mul_inl)(&t, &m, &t);
    ECF_(sub_inl)(&r->y, &t, &w);
}

/* madd-2008-s: 8M + 2S. */
void ECN_(xyzz_add_affine)(ECN_(xyzz_t) *r, const ECN_(xyzz_t) *a, const ECN_(affine_t) *b)
{
    if (ECN_(affine_is_inf)(b)) {
        *r = *a;
        return;
    }
    if (ECN_(xyzz_is_inf)(a)) {
        r->x = b->x;
        r->y = b->y;
        ECF_(set_one)(&r->zz);
        ECF_(set_one)(&r->zzz);
        return;
    }
    ECF_(t) u2, s2, P, R, pp, ppp, q, t;
    ECF_(mul_inl)(&u2, &b->x, &a->zz);
    ECF_(mul_inl)(&s2, &b->y, &a->zzz);
    ECF_(sub_inl)(&P, &u2, &a->x);
    ECF_(sub_inl)(&R, &s2, &a->y);
    if (CUZK_UNLIKELY(ECF_(is_zero_inl)(&P))) {
        if (ECF_(is_zero_inl)(&R))
            ECN_(xyzz_dbl_affine_)(r, b);
        else
            ECN_(xyzz_set_inf)(r);
        return;
    }
    ECF_(t) y1ppp;
    ECF_(sqr_inl)(&pp, &P);
    ECF_(mul_inl)(&ppp, &P, &pp);
    ECF_(mul_inl)(&q, &a->x, &pp);
    ECF_(mul_inl)(&y1ppp, &a->y, &ppp);   /* reads of a done before r is written */
    ECF_(mul_inl)(&r->zz, &a->zz, &pp);
    ECF_(mul_inl)(&r->zzz, &a->zzz, &ppp);
    ECF_(sqr_inl)(&t, &R);
    ECF_(sub_inl)(&t, &t, &ppp);
    ECF_(sub_inl)(&t, &t, &q);
    ECF_(sub_inl)(&r->x, &t, &q);
    ECF_(sub_inl)(&t, &q, &r->x);
    ECF_(mul_inl)(&t, &R, &t);
    ECF_(sub_inl)(&r->y, &t, &y1ppp);
}

void ECN_(xyzz_sub_affine)(ECN_(xyzz_t) *r, const ECN_(xyzz_t) *a, const ECN_(affine_t) *b)
{
    ECN_(affine_t) nb;
    ECN_(affine_neg)(&nb, b);
    ECN_(xyzz_add_affine)(r, a, &nb);
}

/* add-2008-s: 12M + 2S. */
void ECN_(xyzz_add)(ECN_(xyzz_t) *r, const ECN_(xyzz_t) *a, const ECN_(xyzz_t) *b)
{
    if (ECN_(xyzz_is_inf)(a)) {
        *r = *b;
        return;
    }
    if (ECN_(xyzz_is_inf)(b)) {
        *r = *a;
        return;
    }
    ECF_(t) u1, u2, s1, s2, P, R, pp, ppp, q, t;
    ECF_(mul_inl)(&u1, &a->x, &b->zz);
    ECF_(mul_inl)(&u2, &b->x, &a->zz);
    ECF_(mul_inl)(&s1, &a->y, &b->zzz);
    ECF_(mul_inl)(&s2, &b->y, &a->zzz);
    ECF_(sub_inl)(&P, &u2, &u1);
    ECF_(sub_inl)(&R, &s2, &s1);
    if (CUZK_UNLIKELY(ECF_(is_zero_inl)(&P))) {
        if (ECF_(is_zero_inl)(&R))
            ECN_(xyzz_dbl)(r, a);
        else
            ECN_(xyzz_set_inf)(r);
        return;
    }
    ECF_(sqr_inl)(&pp, &P);
    ECF_(mul_inl)(&ppp, &P, &pp);
    ECF_(mul_inl)(&q, &u1, &pp);
    ECF_(mul_inl)(&t, &a->zz, &b->zz);
    ECF_(mul_inl)(&r->zz, &t, &pp);
    ECF_(mul_inl)(&t, &a->zzz, &b->zzz);
    ECF_(mul_inl)(&r->zzz, &t, &ppp);
    ECF_(mul_inl)(&s1, &s1, &ppp);
    ECF_(sqr_inl)(&t, &R);
    ECF_(sub_inl)(&t, &t, &ppp);
    ECF_(sub_inl)(&t, &t, &q);
    ECF_(sub_inl)(&r->x, &t, &q);
    ECF_(sub_inl)(&t, &q, &r->x);
    ECF_(mul_inl)(&t, &R, &t);
    ECF_(sub_inl)(&r->y, &t, &s1);
}

/* x = X/ZZ = X·ZZ^2/ZZZ^2, y = Y/ZZZ = Y·ZZZ^2/ZZZ^3 (ZZ^3 = ZZZ^2), so the
 * Jacobian point is (X·ZZ^2, Y·ZZZ^2, ZZZ) with no inversion. */
void ECN_(xyzz_to_jac)(ECN_(jac_t) *r, const ECN_(xyzz_t) *a)
{
    if (ECN_(xyzz_is_inf)(a)) {
        ECN_(jac_set_inf)(r);
        return;
    }
    ECF_(t) t, zzz = a->zzz;
    ECF_(sqr_inl)(&t, &a->zz);
    ECF_(mul_inl)(&r->x, &a->x, &t);
    ECF_(sqr_inl)(&t, &zzz);
    ECF_(mul_inl)(&r->y, &a->y, &t);
    r->z = zzz;
}

#undef ECN_
#undef ECF_
#undef ECC_
#undef EC_PREFIX
#undef EC_F
#undef EC_ORDER
#undef EC_ORDER_LIMBS
#undef EC_COFACTOR_ONE
#undef EC_SUBGROUP_FAST
