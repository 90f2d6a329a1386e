/* Declaration "template" for the optimal-ate pairing of one curve.
 *
 * Include with (after the curve's Fp12 and G1/G2 declarations):
 *   #define PAIRING_CURVE bn254
 *   #include "curve/pairing_decl.h"
 * PAIRING_CURVE is #undef'd at the end.
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

#include "util/common.h"

#define PD_(n) CUZK_NAME(PAIRING_CURVE, n)

/* r = product over i < n of the Miller loop f_{P_i,Q_i} (no final exp). The
 * squarings are shared between the pairs. */
void PD_(miller_loop)(PD_(fp12_t) *r, const PD_(g1_affine_t) *ps, const PD_(g2_affine_t) *qs,
                      size_t n);
/* r = f^((p^12-1)/r · c) with c as described above. */
void PD_(final_exp)(PD_(fp12_t) *r, const PD_(fp12_t) *f);
/* r = e(p, q). */
void PD_(pairing)(PD_(fp12_t) *r, const PD_(g1_affine_t) *p, const PD_(g2_affine_t) *q);
/* r = prod e(ps[i], qs[i]): n Miller loops, one final exponentiation. */
void PD_(multi_pairing)(PD_(fp12_t) *r, const PD_(g1_affine_t) *ps, const PD_(g2_affine_t) *qs,
                        size_t n);

#undef PD_
#undef PAIRING_CURVE
