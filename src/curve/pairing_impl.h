/* Definition "template" for the optimal-ate pairing (pairing_decl.h).
 *
 * Instantiate in the curve's .c file right after tower_impl.h (it uses the
 * tower's inline helpers and its Frobenius table):
 *   #define PAIRING_CURVE   bn254
 *   #define PAIRING_FAMILY_BN 1        (or PAIRING_FAMILY_BLS12 1)
 *   #define PAIRING_TWIST_D 1          (D-type twist E': y^2 = x^3 + b/xi;
 *                                      0: M-type, E': y^2 = x^3 + b·xi)
 *   #define PAIRING_X_ABS   4965661367192848881ULL   (|x|, the curve seed)
 *   #define PAIRING_X_NEG   0          (1 if x < 0)
 *   #include "curve/pairing_impl.h"
 * All PAIRING_* macros are #undef'd at the end.
 *
 * Miller loop: G2 point in homogeneous projective coordinates on the twist,
 * with the doubling/addition-and-line formulas of Costello–Lange–Naehrig
 * (PKC 2010) / Aranha et al. (Eurocrypt 2011), lines multiplied in sparsely.
 * BN: loop over NAF(6x+2) then the two Frobenius lines with pi(Q), -pi^2(Q).
 * BLS12: loop over NAF(|x|), then conjugate because x < 0.
 *
 * Final exponentiation: easy part f^((p^6-1)(p^2+1)), then a hard part in the
 * cyclotomic subgroup. Which hard exponent: snarkjs 0.7.6 (ffjavascript) and
 * @noble/curves 1.9.7 both return, for BN254, e^(2x(6x^2+3x+1)) and, for
 * BLS12-381, e^3, where e is the reduced pairing (Miller value raised to
 * (p^12-1)/r). Checked (Nov 2026) by raising noble's Miller-loop output to
 * (p^12-1)/r with a plain pow: noble == snarkjs's vk_alphabeta_12 on both
 * curves, true^(2x(6x^2+3x+1)) == both on BN254, true^3 == both on
 * BLS12-381. We therefore compute exactly those powers (own addition chains
 * below, derived from identities checked with exact integer arithmetic):
 *   BN254:  2x(6x^2+3x+1)·Φ12(p)/r = l0 + l1·p + l2·p^2 + l3·p^3 with
 *           t = 12x^3 + 6x^2 + 4x, l1 = t, l0 = t + 6x^2 + 2x + 1,
 *           l2 = t + 2x, l3 = t - 1;
 *   BLS12:  3·Φ12(p)/r = (x-1)^2·(x+p)·(x^2+p^2-1) + 3,
 * with Φ12(p) = p^4 - p^2 + 1. The tests compare against vectors from
 * @noble/curves and against snarkjs verification keys. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field/limb.h"
#include "util/common.h"

#define PF_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _fp), n)
#define P2_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _fp2), n)
#define P6_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _fp6), n)
#define P12_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _fp12), n)
#define PG1_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _g1), n)
#define PG2_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _g2), n)
#define PN_(n) CUZK_NAME(PAIRING_CURVE, n)

#if defined(PAIRING_FAMILY_BN) && PAIRING_X_NEG
#error "pairing_impl.h: the BN Miller loop here assumes x > 0"
#endif

/* Pairs handled together by one multi-Miller loop (state on the stack);
 * longer products are split into chunks of this size. */
#define PAIRING_CHUNK 8

/* Homogeneous projective point on the twist: x = X/Z, y = Y/Z. */
typedef struct {
    P2_(t) x, y, z;
} PN_(g2proj_t);

/* Per pair: the G1 values the lines need, and Q (and -Q for NAF digits). */
typedef struct {
    PF_(t) xp3;  /* 3·xP */
    PF_(t) nxp;  /* -xP  */
    PF_(t) yp;   /* yP   */
    PF_(t) nyp;  /* -yP  */
    P2_(t) qx, qy, nqy;
    PN_(g2proj_t) t;
} PN_(ml_pair_t);

/* Multiply f by a line given as (constant, coefficient of xP, coefficient of
 * yP) already scaled by xP, yP, placed per twist type (see tower_decl.h). */
CUZK_INLINE void PN_(mul_line)(P12_(t) *f, const P2_(t) *lc, const P2_(t) *lx, const P2_(t) *ly)
{
#if PAIRING_TWIST_D
    /* D-type: untwist (x', y') -> (x'w^2, y'w^3); the line
     * yP - λ'w·xP + (λ'x' - y')w^3 has its yP term at 1, xP at w, const at w^3. */
    P12_(mul_by_034)(f, ly, lx, lc);
#else
    /* M-type: untwist (x', y') -> (x'/w^2, y'/w^3); times w^3 the line is
     * yP·w^3 - λ'xP·w^2 + (λ'x' - y'): const at 1, xP at w^2, yP at w^3. */
    P12_(mul_by_014)(f, lc, lx, ly);
#endif
}

/* T = 2T and f *= line tangent at T (scaled by -2YZ, an Fp2 factor that the
 * final exponentiation removes):
 *   A = XY/2, B = Y^2, C = Z^2, E = 3b'C, F = 3E, G = (B+F)/2, H = (Y+Z)^2 - B - C,
 *   X' = A(B-F), Y' = G^2 - 3E^2, Z' = BH;
 *   line = (E - B) + 3X^2·xP + (-H)·yP. */
static void PN_(dbl_step)(P12_(t) *f, PN_(ml_pair_t) *s, const P2_(t) *b3)
{
    PN_(g2proj_t) *T = &s->t;
    P2_(t) a, b, c, e, ff, g, h, j, t0, lc, lx, ly;
    P2_(mul)(&a, &T->x, &T->y);
    PF_(half)(&a.c0, &a.c0);
    PF_(half)(&a.c1, &a.c1);
    P2_(sqr)(&b, &T->y);
    P2_(sqr)(&c, &T->z);
    P2_(mul)(&e, &c, b3);
    P2_(dbl_inl)(&ff, &e);
    P2_(add_inl)(&ff, &ff, &e);
    P2_(add_inl)(&g, &b, &ff);
    PF_(half)(&g.c0, &g.c0);
    PF_(half)(&g.c1, &g.c1);
    P2_(add_inl)(&h, &T->y, &T->z);
    P2_(sqr)(&h, &h);
    P2_(sub_inl)(&h, &h, &b);
    P2_(sub_inl)(&h, &h, &c);
    P2_(sqr)(&j, &T->x);

    /* line */
    P2_(sub_inl)(&lc, &e, &b);
    P2_(mul_fp)(&lx, &j, &s->xp3);
    P2_(mul_fp)(&ly, &h, &s->nyp);

    /* point */
    P2_(sub_inl)(&t0, &b, &ff);
    P2_(mul)(&T->x, &a, &t0);
    P2_(sqr)(&t0, &e);
    P2_(dbl_inl)(&e, &t0);
    P2_(add_inl)(&e, &e, &t0); /* 3E^2 */
    P2_(sqr)(&g, &g);
    P2_(sub_inl)(&T->y, &g, &e);
    P2_(mul)(&T->z, &b, &h);

    PN_(mul_line)(f, &lc, &lx, &ly);
}

/* T = T + (qx, qy) (affine, qx != x(T)) and f *= line through T and Q
 * (scaled by λ = X - qx·Z):
 *   θ = Y - qy·Z, λ = X - qx·Z, C = θ^2, D = λ^2, E = λD, F = ZC, G = XD,
 *   H = E + F - 2G, X' = λH, Y' = θ(G - H) - E·Y, Z' = Z·E;
 *   line = (θ·qx - λ·qy) + (-θ)·xP + λ·yP. */
static void PN_(add_step)(P12_(t) *f, PN_(ml_pair_t) *s, const P2_(t) *qx, const P2_(t) *qy)
{
    PN_(g2proj_t) *T = &s->t;
    P2_(t) th, la, c, d, e, ff, g, h, t0, lc, lx, ly;
    P2_(mul)(&t0, qy, &T->z);
    P2_(sub_inl)(&th, &T->y, &t0);
    P2_(mul)(&t0, qx, &T->z);
    P2_(sub_inl)(&la, &T->x, &t0);
    P2_(sqr)(&c, &th);
    P2_(sqr)(&d, &la);
    P2_(mul)(&e, &la, &d);
    P2_(mul)(&ff, &T->z, &c);
    P2_(mul)(&g, &T->x, &d);
    P2_(add_inl)(&h, &e, &ff);
    P2_(sub_inl)(&h, &h, &g);
    P2_(sub_inl)(&h, &h, &g);

    /* line */
    P2_(mul)(&lc, &th, qx);
    P2_(mul)(&t0, &la, qy);
    P2_(sub_inl)(&lc, &lc, &t0);
    P2_(mul_fp)(&lx, &th, &s->nxp);
    P2_(mul_fp)(&ly, &la, &s->yp);

    /* point */
    P2_(mul)(&T->x, &la, &h);
    P2_(sub_inl)(&t0, &g, &h);
    P2_(mul)(&t0, &th, &t0);
    P2_(mul)(&h, &e, &T->y);
    P2_(sub_inl)(&T->y, &t0, &h);
    P2_(mul)(&T->z, &T->z, &e);

    PN_(mul_line)(f, &lc, &lx, &ly);
}

/* Miller loop for at most PAIRING_CHUNK pairs, all non-infinity. */
static void PN_(miller_chunk)(P12_(t) *f, PN_(ml_pair_t) *st, size_t m)
{
    P2_(t) b3; /* 3b' for the twist E': y^2 = x^3 + b' */
    P2_(dbl_inl)(&b3, &PG2_(B));
    P2_(add_inl)(&b3, &b3, &PG2_(B));

    /* loop scalar: 6x + 2 (BN) or |x| (BLS12), as NAF */
    uint64_t lo, hi = 0;
#if defined(PAIRING_FAMILY_BN)
    lo = cuzk_mac(PAIRING_X_ABS, 6, 2, 0, &hi);
#else
    lo = PAIRING_X_ABS;
#endif
    int8_t d[130];
    int nd = P12_(naf)(d, 130, lo, hi);

    P12_(set_one)(f);
    for (int i = nd - 2; i >= 0; i--) {
        if (i != nd - 2)
            P12_(sqr_impl)(f, f); /* f = 1 on the first pass */
        for (size_t k = 0; k < m; k++)
            PN_(dbl_step)(f, &st[k], &b3);
        if (d[i] != 0) {
            for (size_t k = 0; k < m; k++)
                PN_(add_step)(f, &st[k], &st[k].qx, d[i] > 0 ? &st[k].qy : &st[k].nqy);
        }
    }

#if defined(PAIRING_FAMILY_BN)
    /* f *= l_{T,Q1}·l_{T+Q1,-Q2}, Q1 = pi(Q), Q2 = pi^2(Q), pi the p-power
     * Frobenius carried to the D-type twist: pi(x', y') = (conj(x')·γ12,
     * conj(y')·γ13), pi^2(x', y') = (x'·γ22, y'·γ23) with γ23 = -1, where
     * γki = xi^(i(p^k-1)/6). */
    for (size_t k = 0; k < m; k++) {
        P2_(t) x1, y1, x2;
        P2_(tw_conj_inl)(&x1, &st[k].qx);
        P2_(mul)(&x1, &x1, &P12_(P_FROB)[0][1]);
        P2_(tw_conj_inl)(&y1, &st[k].qy);
        P2_(mul)(&y1, &y1, &P12_(P_FROB)[0][2]);
        PN_(add_step)(f, &st[k], &x1, &y1);
        P2_(mul_fp)(&x2, &st[k].qx, &P12_(P_FROB)[1][1].c0);
        PN_(add_step)(f, &st[k], &x2, &st[k].qy); /* -pi^2(Q) = (x'γ22, y') */
    }
#endif
#if PAIRING_X_NEG
    P12_(conj)(f, f); /* f_{x} = 1/f_{|x|} up to factors the final exp kills */
#endif
}

void PN_(miller_loop)(P12_(t) *r, const PG1_(affine_t) *ps, const PG2_(affine_t) *qs, size_t n)
{
    PN_(ml_pair_t) st[PAIRING_CHUNK];
    P12_(t) acc, f;
    bool have = false;
    size_t m = 0;
    P12_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        if (PG1_(affine_is_inf)(&ps[i]) || PG2_(affine_is_inf)(&qs[i]))
            continue; /* e(O, Q) = e(P, O) = 1 */
        PN_(ml_pair_t) *s = &st[m++];
        PF_(dbl_inl)(&s->xp3, &ps[i].x);
        PF_(add_inl)(&s->xp3, &s->xp3, &ps[i].x);
        PF_(neg_inl)(&s->nxp, &ps[i].x);
        s->yp = ps[i].y;
        PF_(neg_inl)(&s->nyp, &ps[i].y);
        s->qx = qs[i].x;
        s->qy = qs[i].y;
        P2_(neg_inl)(&s->nqy, &qs[i].y);
        s->t.x = qs[i].x;
        s->t.y = qs[i].y;
        P2_(set_one)(&s->t.z);
        if (m == PAIRING_CHUNK) {
            PN_(miller_chunk)(&f, st, m);
            if (have)
                P12_(mul_impl)(&acc, &acc, &f);
            else
                acc = f;
            have = true;
            m = 0;
        }
    }
    if (m > 0) {
        PN_(miller_chunk)(&f, st, m);
        if (have)
            P12_(mul_impl)(&acc, &acc, &f);
        else
            acc = f;
    }
    *r = acc;
}

/* a^x for a in the cyclotomic subgroup (conj = inverse there). */
static void PN_(exp_by_x)(P12_(t) *r, const P12_(t) *a)
{
    P12_(cyclotomic_exp)(r, a, PAIRING_X_ABS);
#if PAIRING_X_NEG
    P12_(conj)(r, r);
#endif
}

void PN_(final_exp)(P12_(t) *r, const P12_(t) *f)
{
    /* easy part: m = f^((p^6-1)(p^2+1)), now in the cyclotomic subgroup */
    P12_(t) m, t;
    P12_(inv)(&t, f);
    P12_(conj)(&m, f);
    P12_(mul_impl)(&m, &m, &t);
    P12_(frobenius)(&t, &m, 2);
    P12_(mul_impl)(&m, &m, &t);

#if defined(PAIRING_FAMILY_BN)
    /* m^(l0 + l1 p + l2 p^2 + l3 p^3), see the header comment. */
    P12_(t) a, b, c, a2, a4, b2, b6, c4, tt, l0, l2, l3;
    PN_(exp_by_x)(&a, &m); /* m^x   */
    PN_(exp_by_x)(&b, &a); /* m^x^2 */
    PN_(exp_by_x)(&c, &b); /* m^x^3 */
    P12_(cyclotomic_sqr_impl)(&a2, &a);
    P12_(cyclotomic_sqr_impl)(&a4, &a2);
    P12_(cyclotomic_sqr_impl)(&b2, &b);
    P12_(cyclotomic_sqr_impl)(&b6, &b2);
    P12_(mul_impl)(&b6, &b6, &b2);        /* m^(6x^2) */
    P12_(cyclotomic_sqr_impl)(&c4, &c);
    P12_(cyclotomic_sqr_impl)(&c4, &c4);  /* m^(4x^3) */
    P12_(cyclotomic_sqr_impl)(&tt, &c4);
    P12_(mul_impl)(&tt, &tt, &c4);        /* m^(12x^3) */
    P12_(mul_impl)(&tt, &tt, &b6);
    P12_(mul_impl)(&tt, &tt, &a4);        /* t = m^(12x^3 + 6x^2 + 4x) = m^l1 */
    P12_(mul_impl)(&l0, &tt, &b6);
    P12_(mul_impl)(&l0, &l0, &a2);
    P12_(mul_impl)(&l0, &l0, &m);         /* m^l0 */
    P12_(mul_impl)(&l2, &tt, &a2);        /* m^l2 */
    P12_(conj)(&l3, &m);
    P12_(mul_impl)(&l3, &l3, &tt);        /* m^l3 */
    P12_(frobenius)(&tt, &tt, 1);
    P12_(frobenius)(&l2, &l2, 2);
    P12_(frobenius)(&l3, &l3, 3);
    P12_(mul_impl)(&l0, &l0, &tt);
    P12_(mul_impl)(&l0, &l0, &l2);
    P12_(mul_impl)(r, &l0, &l3);
#else
    /* m^((x-1)^2 (x+p) (x^2+p^2-1) + 3) */
    P12_(t) a, b, c, u;
    PN_(exp_by_x)(&a, &m);
    P12_(conj)(&t, &m);
    P12_(mul_impl)(&a, &a, &t);           /* m^(x-1) */
    PN_(exp_by_x)(&b, &a);
    P12_(conj)(&t, &a);
    P12_(mul_impl)(&a, &b, &t);           /* a = m^((x-1)^2) */
    PN_(exp_by_x)(&b, &a);
    P12_(frobenius)(&t, &a, 1);
    P12_(mul_impl)(&b, &b, &t);           /* b = a^(x+p) */
    PN_(exp_by_x)(&c, &b);
    PN_(exp_by_x)(&c, &c);
    P12_(frobenius)(&t, &b, 2);
    P12_(mul_impl)(&c, &c, &t);
    P12_(conj)(&t, &b);
    P12_(mul_impl)(&c, &c, &t);           /* c = b^(x^2+p^2-1) */
    P12_(cyclotomic_sqr_impl)(&u, &m);
    P12_(mul_impl)(&u, &u, &m);           /* m^3 */
    P12_(mul_impl)(r, &c, &u);
#endif
}

void PN_(multi_pairing)(P12_(t) *r, const PG1_(affine_t) *ps, const PG2_(affine_t) *qs, size_t n)
{
    P12_(t) f;
    PN_(miller_loop)(&f, ps, qs, n);
    PN_(final_exp)(r, &f);
}

void PN_(pairing)(P12_(t) *r, const PG1_(affine_t) *p, const PG2_(affine_t) *q)
{
    PN_(multi_pairing)(r, p, q, 1);
}

#undef PAIRING_CHUNK
#undef PF_
#undef P2_
#undef P6_
#undef P12_
#undef PG1_
#undef PG2_
#undef PN_
#undef PAIRING_CURVE
#undef PAIRING_FAMILY_BN
#undef PAIRING_FAMILY_BLS12
#undef PAIRING_TWIST_D
#undef PAIRING_X_ABS
#undef PAIRING_X_NEG
