/* Definition "template" for the optimal-ate pairing (pairing_decl.h).
 *
 * Instantiate in the curve's .c file right after tower_impl.h (it uses the
 * tower's inline helpers and its Frobenius table c_fp12_P_FROB):
 *   #define PAIRING_CURVE bn254    (a pairing listed in curve/instances.h)
 *   #include "curve/pairing_impl.h"
 * Reads c_C_FAMILY_BN, c_C_TWIST_D, c_C_X_ABS, c_C_X_NEG (curve/instances.h).
 * Defines, for PAIRING_CURVE c: everything pairing_decl.h declares, plus the
 * static helpers c_g2proj_t, c_ml_g1_t, c_ml_pair_t, c_ml_prep_t, c_ml_g1_set,
 * c_mul_line, c_dbl_line, c_add_line, c_dbl_step, c_add_step, c_loop_naf,
 * c_bn_frob_points (BN), c_miller_chunk, c_exp_by_x. PAIRING_CURVE is #undef'd at the
 * end.
 *
 * Miller loop: G2 point in homogeneous projective coordinates on the twist,
 * with the doubling/addition-and-line formulas of Costello–Lange–Naehrig
 * (PKC 2010) / Aranha et al. (Eurocrypt 2011), lines multiplied in sparsely.
 * BN: loop over NAF(6x+2) then the two Frobenius lines with pi(Q), -pi^2(Q).
 * BLS12: loop over |x| (binary: fewer steps than its NAF), then conjugate because x < 0.
 * Each step's line is computed as three Fp2 coefficients (g2_line_t) and
 * then multiplied by the G1 point's terms into f, so that a fixed G2 point's
 * lines can be computed once (g2_prepare) and every later loop with it
 * (miller_loop_prep) only puts in its G1 point: the same lines, the same
 * products, the same f.
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

#include "curve/instances.h"
#include "field/instances.h"
#include "field/limb.h"
#include "util/common.h"
#include "util/templates.h"

#define PR_(n) CUZK_NAME(PAIRING_CURVE, n)
#define PR_P_(n) CUZK_NAME(PAIRING_CURVE, CUZK_CAT2(C_, n))
#define PR_FP_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _fp), n)
#define PR_FP2_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _fp2), n)
#define PR_FP6_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _fp6), n)
#define PR_FP12_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _fp12), n)
#define PR_G1_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _g1), n)
#define PR_G2_(n) CUZK_NAME(CUZK_CAT2(PAIRING_CURVE, _g2), n)
#if !PR_P_(X_ABS)
#error "pairing_impl.h: PAIRING_CURVE must name a pairing listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_PAIRING_IMPL, PR_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

#if PR_P_(FAMILY_BN) && PR_P_(X_NEG)
#error "pairing_impl.h: the BN Miller loop here assumes x > 0"
#endif

/* Pairs handled together by one multi-Miller loop (state on the stack);
 * longer products are split into chunks of this size. */
#define PR_CHUNK 8

/* Homogeneous projective point on the twist: x = X/Z, y = Y/Z. */
typedef struct {
    PR_FP2_(t) x, y, z;
} PR_(g2proj_t);

/* Per pair: the G1 values the lines are multiplied by. */
typedef struct {
    PR_FP_(t) xp3; /* 3·xP */
    PR_FP_(t) nxp; /* -xP  */
    PR_FP_(t) yp; /* yP   */
    PR_FP_(t) nyp; /* -yP  */
} PR_(ml_g1_t);

/* An unprepared pair: P's values, Q (and -Q for NAF digits) and T. */
typedef struct {
    PR_(ml_g1_t) g;
    PR_FP2_(t) qx, qy, nqy;
    PR_(g2proj_t) t;
} PR_(ml_pair_t);

/* A prepared pair: P's values and Q's lines (g2_prepare). */
typedef struct {
    PR_(ml_g1_t) g;
    const PR_(g2_line_t) *l;
} PR_(ml_prep_t);

CUZK_INLINE void PR_(ml_g1_set)(PR_(ml_g1_t) *g, const PR_G1_(affine_t) *p)
{
    PR_FP_(dbl_inl)(&g->xp3, &p->x);
    PR_FP_(add_inl)(&g->xp3, &g->xp3, &p->x);
    PR_FP_(neg_inl)(&g->nxp, &p->x);
    g->yp = p->y;
    PR_FP_(neg_inl)(&g->nyp, &p->y);
}

/* Multiply f by a line given as (constant, coefficient of xP, coefficient of
 * yP) already scaled by xP, yP, placed per twist type (see tower_decl.h). */
CUZK_INLINE void PR_(mul_line)(PR_FP12_(t) *f, const PR_FP2_(t) *lc, const PR_FP2_(t) *lx,
                               const PR_FP2_(t) *ly)
{
#if PR_P_(TWIST_D)
    /* D-type: untwist (x', y') -> (x'w^2, y'w^3); the line
     * yP - λ'w·xP + (λ'x' - y')w^3 has its yP term at 1, xP at w, const at w^3. */
    PR_FP12_(mul_by_034)(f, ly, lx, lc);
#else
    /* M-type: untwist (x', y') -> (x'/w^2, y'/w^3); times w^3 the line is
     * yP·w^3 - λ'xP·w^2 + (λ'x' - y'): const at 1, xP at w^2, yP at w^3. */
    PR_FP12_(mul_by_014)(f, lc, lx, ly);
#endif
}

/* f *= a doubling step's line at P: (c) + (x·3xP) + (y·(-yP)). */
CUZK_INLINE void PR_(dbl_line)(PR_FP12_(t) *f, const PR_(g2_line_t) *l, const PR_(ml_g1_t) *g)
{
    PR_FP2_(t) lx, ly;
    PR_FP2_(mul_fp)(&lx, &l->x, &g->xp3);
    PR_FP2_(mul_fp)(&ly, &l->y, &g->nyp);
    PR_(mul_line)(f, &l->c, &lx, &ly);
}

/* f *= an addition step's line at P: (c) + (x·(-xP)) + (y·yP). */
CUZK_INLINE void PR_(add_line)(PR_FP12_(t) *f, const PR_(g2_line_t) *l, const PR_(ml_g1_t) *g)
{
    PR_FP2_(t) lx, ly;
    PR_FP2_(mul_fp)(&lx, &l->x, &g->nxp);
    PR_FP2_(mul_fp)(&ly, &l->y, &g->yp);
    PR_(mul_line)(f, &l->c, &lx, &ly);
}

/* T = 2T and l = the line tangent at T (scaled by -2YZ, an Fp2 factor that
 * the final exponentiation removes), to be multiplied in by dbl_line:
 *   A = XY/2, B = Y^2, C = Z^2, E = 3b'C, F = 3E, G = (B+F)/2, H = (Y+Z)^2 - B - C,
 *   X' = A(B-F), Y' = G^2 - 3E^2, Z' = BH;
 *   line = (E - B) + 3X^2·xP + (-H)·yP, kept as c = E - B, x = X^2, y = H. */
static void PR_(dbl_step)(PR_(g2proj_t) *T, PR_(g2_line_t) *l, const PR_FP2_(t) *b3)
{
    PR_FP2_(t) a, b, c, e, ff, g, h, t0;
    PR_FP2_(mul)(&a, &T->x, &T->y);
    PR_FP_(half)(&a.c0, &a.c0);
    PR_FP_(half)(&a.c1, &a.c1);
    PR_FP2_(sqr)(&b, &T->y);
    PR_FP2_(sqr)(&c, &T->z);
    PR_FP2_(mul)(&e, &c, b3);
    PR_FP2_(dbl_inl)(&ff, &e);
    PR_FP2_(add_inl)(&ff, &ff, &e);
    PR_FP2_(add_inl)(&g, &b, &ff);
    PR_FP_(half)(&g.c0, &g.c0);
    PR_FP_(half)(&g.c1, &g.c1);
    PR_FP2_(add_inl)(&h, &T->y, &T->z);
    PR_FP2_(sqr)(&h, &h);
    PR_FP2_(sub_inl)(&h, &h, &b);
    PR_FP2_(sub_inl)(&h, &h, &c);
    PR_FP2_(sqr)(&l->x, &T->x);

    /* line */
    PR_FP2_(sub_inl)(&l->c, &e, &b);
    l->y = h;

    /* point */
    PR_FP2_(sub_inl)(&t0, &b, &ff);
    PR_FP2_(mul)(&T->x, &a, &t0);
    PR_FP2_(sqr)(&t0, &e);
    PR_FP2_(dbl_inl)(&e, &t0);
    PR_FP2_(add_inl)(&e, &e, &t0); /* 3E^2 */
    PR_FP2_(sqr)(&g, &g);
    PR_FP2_(sub_inl)(&T->y, &g, &e);
    PR_FP2_(mul)(&T->z, &b, &h);
}

/* T = T + (qx, qy) (affine, qx != x(T)) and l = the line through T and Q
 * (scaled by λ = X - qx·Z), to be multiplied in by add_line:
 *   θ = Y - qy·Z, λ = X - qx·Z, C = θ^2, D = λ^2, E = λD, F = ZC, G = XD,
 *   H = E + F - 2G, X' = λH, Y' = θ(G - H) - E·Y, Z' = Z·E;
 *   line = (θ·qx - λ·qy) + (-θ)·xP + λ·yP, kept as c = θ·qx - λ·qy, x = θ, y = λ. */
static void PR_(add_step)(PR_(g2proj_t) *T, PR_(g2_line_t) *l, const PR_FP2_(t) *qx,
                          const PR_FP2_(t) *qy)
{
    PR_FP2_(t) th, la, c, d, e, ff, g, h, t0;
    PR_FP2_(mul)(&t0, qy, &T->z);
    PR_FP2_(sub_inl)(&th, &T->y, &t0);
    PR_FP2_(mul)(&t0, qx, &T->z);
    PR_FP2_(sub_inl)(&la, &T->x, &t0);
    PR_FP2_(sqr)(&c, &th);
    PR_FP2_(sqr)(&d, &la);
    PR_FP2_(mul)(&e, &la, &d);
    PR_FP2_(mul)(&ff, &T->z, &c);
    PR_FP2_(mul)(&g, &T->x, &d);
    PR_FP2_(add_inl)(&h, &e, &ff);
    PR_FP2_(sub_inl)(&h, &h, &g);
    PR_FP2_(sub_inl)(&h, &h, &g);

    /* line */
    PR_FP2_(mul)(&l->c, &th, qx);
    PR_FP2_(mul)(&t0, &la, qy);
    PR_FP2_(sub_inl)(&l->c, &l->c, &t0);
    l->x = th;
    l->y = la;

    /* point */
    PR_FP2_(mul)(&T->x, &la, &h);
    PR_FP2_(sub_inl)(&t0, &g, &h);
    PR_FP2_(mul)(&t0, &th, &t0);
    PR_FP2_(mul)(&h, &e, &T->y);
    PR_FP2_(sub_inl)(&T->y, &t0, &h);
    PR_FP2_(mul)(&T->z, &T->z, &e);
}

/* The loop scalar, 6x + 2 (BN) or |x| (BLS12), as signed digits d[0..n):
 * its NAF or its binary form, whichever has fewer steps (doublings plus
 * additions): NAF for BN254 (65 + 21 against 64 + 36), binary for
 * BLS12-381 (63 + 5 against 64 + 5). */
static int PR_(loop_naf)(int8_t d[130])
{
    uint64_t lo, hi = 0;
#if PR_P_(FAMILY_BN)
    lo = cuzk_mac(PR_P_(X_ABS), 6, 2, 0, &hi);
#else
    lo = PR_P_(X_ABS);
#endif
    int n = PR_FP12_(naf)(d, 130, lo, hi), nz = 0, nb = 0, pb = 0;
    for (int i = 0; i < n; i++)
        nz += d[i] != 0;
    for (uint64_t l = lo, h = hi; l | h; l = (l >> 1) | (h << 63), h >>= 1) {
        nb++;
        pb += (int)(l & 1);
    }
    if (nb + pb < n + nz) {
        for (int i = 0; i < nb; i++)
            d[i] = (int8_t)(i < 64 ? (lo >> i) & 1 : (hi >> (i - 64)) & 1);
        n = nb;
    }
    return n;
}

/* BN only: Q1 = pi(Q) and -Q2 = -pi^2(Q), pi the p-power Frobenius carried
 * to the D-type twist: pi(x', y') = (conj(x')·γ12, conj(y')·γ13),
 * pi^2(x', y') = (x'·γ22, y'·γ23) with γ23 = -1, where γki = xi^(i(p^k-1)/6);
 * -pi^2(Q) = (x'γ22, y'). */
#if PR_P_(FAMILY_BN)
static void PR_(bn_frob_points)(PR_FP2_(t) *x1, PR_FP2_(t) *y1, PR_FP2_(t) *x2, const PR_FP2_(t) *qx,
                                const PR_FP2_(t) *qy)
{
    PR_FP2_(tw_conj_inl)(x1, qx);
    PR_FP2_(mul)(x1, x1, &PR_FP12_(P_FROB)[0][1]);
    PR_FP2_(tw_conj_inl)(y1, qy);
    PR_FP2_(mul)(y1, y1, &PR_FP12_(P_FROB)[0][2]);
    PR_FP2_(mul_fp)(x2, qx, &PR_FP12_(P_FROB)[1][1].c0);
}
#endif

/* Miller loop for at most PR_CHUNK unprepared pairs st[0..m) and at most
 * PR_CHUNK prepared pairs pp[0..mp), all non-infinity. Each step multiplies
 * in the unprepared pairs' lines, then the prepared ones'. */
static void PR_(miller_chunk)(PR_FP12_(t) *f, PR_(ml_pair_t) *st, size_t m, const PR_(ml_prep_t) *pp,
                              size_t mp)
{
    PR_FP2_(t) b3; /* 3b' for the twist E': y^2 = x^3 + b' */
    PR_FP2_(dbl_inl)(&b3, &PR_G2_(B));
    PR_FP2_(add_inl)(&b3, &b3, &PR_G2_(B));
    int8_t d[130];
    int nd = PR_(loop_naf)(d);
    PR_(g2_line_t) l;
    size_t li = 0; /* the prepared pairs' line */

    PR_FP12_(set_one)(f);
    for (int i = nd - 2; i >= 0; i--) {
        if (i != nd - 2)
            PR_FP12_(sqr_impl)(f, f); /* f = 1 on the first pass */
        for (size_t k = 0; k < m; k++) {
            PR_(dbl_step)(&st[k].t, &l, &b3);
            PR_(dbl_line)(f, &l, &st[k].g);
        }
        for (size_t k = 0; k < mp; k++)
            PR_(dbl_line)(f, &pp[k].l[li], &pp[k].g);
        li++;
        if (d[i] != 0) {
            for (size_t k = 0; k < m; k++) {
                PR_(add_step)(&st[k].t, &l, &st[k].qx, d[i] > 0 ? &st[k].qy : &st[k].nqy);
                PR_(add_line)(f, &l, &st[k].g);
            }
            for (size_t k = 0; k < mp; k++)
                PR_(add_line)(f, &pp[k].l[li], &pp[k].g);
            li++;
        }
    }

#if PR_P_(FAMILY_BN)
    /* f *= l_{T,Q1}·l_{T+Q1,-Q2} */
    for (size_t k = 0; k < m; k++) {
        PR_FP2_(t) x1, y1, x2;
        PR_(bn_frob_points)(&x1, &y1, &x2, &st[k].qx, &st[k].qy);
        PR_(add_step)(&st[k].t, &l, &x1, &y1);
        PR_(add_line)(f, &l, &st[k].g);
        PR_(add_step)(&st[k].t, &l, &x2, &st[k].qy);
        PR_(add_line)(f, &l, &st[k].g);
    }
    for (size_t k = 0; k < mp; k++) {
        PR_(add_line)(f, &pp[k].l[li], &pp[k].g);
        PR_(add_line)(f, &pp[k].l[li + 1], &pp[k].g);
    }
#endif
#if PR_P_(X_NEG)
    PR_FP12_(conj)(f, f); /* f_{x} = 1/f_{|x|} up to factors the final exp kills */
#endif
}

size_t PR_(g2_prep_lines)(void)
{
    int8_t d[130];
    int nd = PR_(loop_naf)(d);
    size_t n = 0;
    for (int i = nd - 2; i >= 0; i--)
        n += 1 + (d[i] != 0);
    return n + (PR_P_(FAMILY_BN) ? 2 : 0);
}

size_t PR_(miller_steps)(void)
{
    int8_t d[130];
    return (size_t)PR_(loop_naf)(d) - 1;
}

void PR_(miller_loop_prep_part)(PR_FP12_(t) *f, const PR_G1_(affine_t) *p, const PR_(g2_line_t) *lines,
                                size_t from, size_t to)
{
    int8_t d[130];
    const int nd = PR_(loop_naf)(d);
    const size_t steps = (size_t)nd - 1;
    PR_FP12_(set_one)(f);
    if (!lines || PR_G1_(affine_is_inf)(p) || from >= to || to > steps)
        return;
    PR_(ml_g1_t) g;
    PR_(ml_g1_set)(&g, p);
    size_t li = 0;
    for (size_t j = 0; j < from; j++)
        li += 1 + (d[nd - 2 - (int)j] != 0);
    for (size_t j = from; j < to; j++) {
        if (j != from)
            PR_FP12_(sqr_impl)(f, f);
        PR_(dbl_line)(f, &lines[li++], &g);
        if (d[nd - 2 - (int)j] != 0)
            PR_(add_line)(f, &lines[li++], &g);
    }
#if PR_P_(FAMILY_BN)
    if (to == steps) {
        PR_(add_line)(f, &lines[li], &g);
        PR_(add_line)(f, &lines[li + 1], &g);
    }
#endif
#if PR_P_(X_NEG)
    PR_FP12_(conj)(f, f);
#endif
}

bool PR_(g2_prepare)(PR_(g2_line_t) *lines, const PR_G2_(affine_t) *q)
{
    if (PR_G2_(affine_is_inf)(q))
        return false;
    PR_FP2_(t) b3, nqy;
    PR_FP2_(dbl_inl)(&b3, &PR_G2_(B));
    PR_FP2_(add_inl)(&b3, &b3, &PR_G2_(B));
    PR_FP2_(neg_inl)(&nqy, &q->y);
    int8_t d[130];
    int nd = PR_(loop_naf)(d);
    PR_(g2proj_t) T;
    T.x = q->x;
    T.y = q->y;
    PR_FP2_(set_one)(&T.z);
    size_t li = 0;
    for (int i = nd - 2; i >= 0; i--) {
        PR_(dbl_step)(&T, &lines[li++], &b3);
        if (d[i] != 0)
            PR_(add_step)(&T, &lines[li++], &q->x, d[i] > 0 ? &q->y : &nqy);
    }
#if PR_P_(FAMILY_BN)
    PR_FP2_(t) x1, y1, x2;
    PR_(bn_frob_points)(&x1, &y1, &x2, &q->x, &q->y);
    PR_(add_step)(&T, &lines[li++], &x1, &y1);
    PR_(add_step)(&T, &lines[li++], &x2, &q->y);
#endif
    return true;
}

void PR_(miller_loop_prep)(PR_FP12_(t) *r, const PR_G1_(affine_t) *ps, const PR_G2_(affine_t) *qs, size_t n,
                           const PR_G1_(affine_t) *pps, const PR_(g2_line_t) *const *lines, size_t np)
{
    PR_(ml_pair_t) st[PR_CHUNK];
    PR_(ml_prep_t) pp[PR_CHUNK];
    PR_FP12_(t) acc, f;
    bool have = false;
    size_t i = 0, j = 0;
    PR_FP12_(set_one)(&acc);
    while (i < n || j < np) {
        size_t m = 0, mp = 0;
        for (; i < n && m < PR_CHUNK; i++) {
            if (PR_G1_(affine_is_inf)(&ps[i]) || PR_G2_(affine_is_inf)(&qs[i]))
                continue; /* e(O, Q) = e(P, O) = 1 */
            PR_(ml_pair_t) *s = &st[m++];
            PR_(ml_g1_set)(&s->g, &ps[i]);
            s->qx = qs[i].x;
            s->qy = qs[i].y;
            PR_FP2_(neg_inl)(&s->nqy, &qs[i].y);
            s->t.x = qs[i].x;
            s->t.y = qs[i].y;
            PR_FP2_(set_one)(&s->t.z);
        }
        for (; j < np && mp < PR_CHUNK; j++) {
            if (!lines[j] || PR_G1_(affine_is_inf)(&pps[j]))
                continue;
            PR_(ml_g1_set)(&pp[mp].g, &pps[j]);
            pp[mp++].l = lines[j];
        }
        if (m + mp == 0)
            continue;
        PR_(miller_chunk)(&f, st, m, pp, mp);
        if (have)
            PR_FP12_(mul_impl)(&acc, &acc, &f);
        else
            acc = f;
        have = true;
    }
    *r = acc;
}

void PR_(miller_loop)(PR_FP12_(t) *r, const PR_G1_(affine_t) *ps, const PR_G2_(affine_t) *qs,
                      size_t n)
{
    PR_(miller_loop_prep)(r, ps, qs, n, NULL, NULL, 0);
}

/* a^x for a in the cyclotomic subgroup (conj = inverse there). */
static void PR_(exp_by_x)(PR_FP12_(t) *r, const PR_FP12_(t) *a)
{
    PR_FP12_(cyclotomic_exp)(r, a, PR_P_(X_ABS));
#if PR_P_(X_NEG)
    PR_FP12_(conj)(r, r);
#endif
}

void PR_(final_exp)(PR_FP12_(t) *r, const PR_FP12_(t) *f)
{
    /* easy part: m = f^((p^6-1)(p^2+1)), now in the cyclotomic subgroup */
    PR_FP12_(t) m, t;
    PR_FP12_(inv)(&t, f);
    PR_FP12_(conj)(&m, f);
    PR_FP12_(mul_impl)(&m, &m, &t);
    PR_FP12_(frobenius)(&t, &m, 2);
    PR_FP12_(mul_impl)(&m, &m, &t);

#if PR_P_(FAMILY_BN)
    /* m^(l0 + l1 p + l2 p^2 + l3 p^3), see the header comment. */
    PR_FP12_(t) a, b, c, a2, a4, b2, b6, c4, tt, l0, l2, l3;
    PR_(exp_by_x)(&a, &m); /* m^x   */
    PR_(exp_by_x)(&b, &a); /* m^x^2 */
    PR_(exp_by_x)(&c, &b); /* m^x^3 */
    PR_FP12_(cyclotomic_sqr_impl)(&a2, &a);
    PR_FP12_(cyclotomic_sqr_impl)(&a4, &a2);
    PR_FP12_(cyclotomic_sqr_impl)(&b2, &b);
    PR_FP12_(cyclotomic_sqr_impl)(&b6, &b2);
    PR_FP12_(mul_impl)(&b6, &b6, &b2); /* m^(6x^2) */
    PR_FP12_(cyclotomic_sqr_impl)(&c4, &c);
    PR_FP12_(cyclotomic_sqr_impl)(&c4, &c4); /* m^(4x^3) */
    PR_FP12_(cyclotomic_sqr_impl)(&tt, &c4);
    PR_FP12_(mul_impl)(&tt, &tt, &c4); /* m^(12x^3) */
    PR_FP12_(mul_impl)(&tt, &tt, &b6);
    PR_FP12_(mul_impl)(&tt, &tt, &a4); /* t = m^(12x^3 + 6x^2 + 4x) = m^l1 */
    PR_FP12_(mul_impl)(&l0, &tt, &b6);
    PR_FP12_(mul_impl)(&l0, &l0, &a2);
    PR_FP12_(mul_impl)(&l0, &l0, &m); /* m^l0 */
    PR_FP12_(mul_impl)(&l2, &tt, &a2); /* m^l2 */
    PR_FP12_(conj)(&l3, &m);
    PR_FP12_(mul_impl)(&l3, &l3, &tt); /* m^l3 */
    PR_FP12_(frobenius)(&tt, &tt, 1);
    PR_FP12_(frobenius)(&l2, &l2, 2);
    PR_FP12_(frobenius)(&l3, &l3, 3);
    PR_FP12_(mul_impl)(&l0, &l0, &tt);
    PR_FP12_(mul_impl)(&l0, &l0, &l2);
    PR_FP12_(mul_impl)(r, &l0, &l3);
#else
    /* m^((x-1)^2 (x+p) (x^2+p^2-1) + 3) */
    PR_FP12_(t) a, b, c, u;
    PR_(exp_by_x)(&a, &m);
    PR_FP12_(conj)(&t, &m);
    PR_FP12_(mul_impl)(&a, &a, &t); /* m^(x-1) */
    PR_(exp_by_x)(&b, &a);
    PR_FP12_(conj)(&t, &a);
    PR_FP12_(mul_impl)(&a, &b, &t); /* a = m^((x-1)^2) */
    PR_(exp_by_x)(&b, &a);
    PR_FP12_(frobenius)(&t, &a, 1);
    PR_FP12_(mul_impl)(&b, &b, &t); /* b = a^(x+p) */
    PR_(exp_by_x)(&c, &b);
    PR_(exp_by_x)(&c, &c);
    PR_FP12_(frobenius)(&t, &b, 2);
    PR_FP12_(mul_impl)(&c, &c, &t);
    PR_FP12_(conj)(&t, &b);
    PR_FP12_(mul_impl)(&c, &c, &t); /* c = b^(x^2+p^2-1) */
    PR_FP12_(cyclotomic_sqr_impl)(&u, &m);
    PR_FP12_(mul_impl)(&u, &u, &m); /* m^3 */
    PR_FP12_(mul_impl)(r, &c, &u);
#endif
}

void PR_(multi_pairing)(PR_FP12_(t) *r, const PR_G1_(affine_t) *ps, const PR_G2_(affine_t) *qs,
                        size_t n)
{
    PR_FP12_(t) f;
    PR_(miller_loop)(&f, ps, qs, n);
    PR_(final_exp)(r, &f);
}

void PR_(pairing)(PR_FP12_(t) *r, const PR_G1_(affine_t) *p, const PR_G2_(affine_t) *q)
{
    PR_(multi_pairing)(r, p, q, 1);
}

#undef PR_CHUNK

#endif /* per-instance guard */

#undef PR_
#undef PR_P_
#undef PR_FP_
#undef PR_FP2_
#undef PR_FP6_
#undef PR_FP12_
#undef PR_G1_
#undef PR_G2_
#undef PAIRING_CURVE
