/* Declaration "template" for the optimal-ate pairing of one curve.
 *
 * Include with (after the curve's Fp12 and G1/G2 declarations):
 *   #define PAIRING_CURVE bn254    (a pairing listed in curve/instances.h)
 *   #include "curve/pairing_decl.h"
 * Declares, for PAIRING_CURVE c: c_miller_loop, c_final_exp, c_pairing,
 * c_multi_pairing, and the prepared points of a fixed G2 argument:
 * c_g2_line_t, c_g2_prep_lines, c_g2_prepare, c_miller_loop_prep,
 * c_miller_steps, c_miller_loop_prep_part. PAIRING_CURVE is #undef'd at the end.
 *
 * Values agree with snarkjs (ffjavascript) and @noble/curves, which do NOT
 * return the reduced pairing f^((p^12-1)/r) itself but a fixed power of it
 * (checked against both, see curve/pairing_impl.h): BN254 gives
 * e^(2x(6x^2+3x+1)), BLS12-381 gives e^3. Both powers are coprime to r, so
 * the pairing stays bilinear and non-degenerate, and "== 1" checks (Groth16
 * verification) are unaffected.
 *
 * Inputs are affine, infinity = (0,0). Points must be on the curve and in the
 * r-torsion subgroup (check them first: the formulas assume it). A pair with
 * an infinity point contributes 1. */

#include <stddef.h>

#include "curve/instances.h"
#include "field/instances.h"
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
#error "pairing_decl.h: PAIRING_CURVE must name a pairing listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_PAIRING_DECL, PR_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* r = product over i < n of the Miller loop f_{P_i,Q_i} (no final exp). The
 * squarings are shared between the pairs. */
void PR_(miller_loop)(PR_(fp12_t) *r, const PR_(g1_affine_t) *ps, const PR_(g2_affine_t) *qs,
                      size_t n);

/* One line of the Miller loop of a G2 point, before the G1 point is put in:
 * its constant c and the coefficients x, y of the G1 point's two terms. */
typedef struct {
    PR_(fp2_t) c, x, y;
} PR_(g2_line_t);
/* How many lines g2_prepare writes (the same for every point of the curve:
 * one a doubling and one a non-zero digit of the loop scalar, plus BN's two
 * Frobenius lines; 88 for BN254, 68 for BLS12-381). */
size_t PR_(g2_prep_lines)(void);
/* A G2 point fixed across many pairings (a verifying key's γ and δ): the
 * point's doubling and addition steps of the Miller loop done once, lines[]
 * (g2_prep_lines() of them) its lines. false (nothing written) when q is
 * infinity, whose pairings are all 1. q must be on the curve, in G2. */
bool PR_(g2_prepare)(PR_(g2_line_t) *lines, const PR_(g2_affine_t) *q);
/* The prepared Miller loop of one pair in parts, for two threads: the
 * loop's steps (doublings; f squared before each but the first) number
 * miller_steps(); f = the part of steps [from, to) alone (f starting at 1,
 * its first squaring skipped; with to == miller_steps() BN's Frobenius
 * lines; conjugated as the whole loop is for x < 0), so that for any
 * 0 < s < N = miller_steps() the loop's f is part(0, s)^(2^(N - s)) ·
 * part(s, N). f = 1 for lines NULL, p infinity or an empty range. */
size_t PR_(miller_steps)(void);
void PR_(miller_loop_prep_part)(PR_(fp12_t) *f, const PR_(g1_affine_t) *p, const PR_(g2_line_t) *lines,
                                size_t from, size_t to);
/* r = the product of the Miller loops of n pairs (ps[i], qs[i]) and np
 * prepared pairs (pps[j], the point that lines[j] was prepared from): equal
 * to miller_loop over all n + np pairs. A pair with lines[j] NULL (a point at
 * infinity) or pps[j] infinity contributes 1. */
void PR_(miller_loop_prep)(PR_(fp12_t) *r, const PR_(g1_affine_t) *ps, const PR_(g2_affine_t) *qs, size_t n,
                           const PR_(g1_affine_t) *pps, const PR_(g2_line_t) *const *lines, size_t np);
/* r = f^((p^12-1)/r · c) with c as described above. */
void PR_(final_exp)(PR_(fp12_t) *r, const PR_(fp12_t) *f);
/* r = e(p, q). */
void PR_(pairing)(PR_(fp12_t) *r, const PR_(g1_affine_t) *p, const PR_(g2_affine_t) *q);
/* r = prod e(ps[i], qs[i]): n Miller loops, one final exponentiation. */
void PR_(multi_pairing)(PR_(fp12_t) *r, const PR_(g1_affine_t) *ps, const PR_(g2_affine_t) *qs,
                        size_t n);

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
