/* Umbrella header for bls12_381: declares every field and group of the curve.
 *   bls12_381_fp   base field (6 limbs)      bls12_381_fr  scalar field (4 limbs)
 *   bls12_381_fp2  Fp[u]/(u^2+1)
 *   bls12_381_g1   G1 over bls12_381_fp          bls12_381_g2  G2 over bls12_381_fp2 (twist)
 * Fp6/Fp12 and the pairing are declared by the pairing header included at
 * the end (when present). */
#ifndef CUZK_CURVE_BLS12_381_H
#define CUZK_CURVE_BLS12_381_H

#define FP_PREFIX bls12_381_fp
#include "field/fp_decl.h"

#define FP_PREFIX bls12_381_fr
#include "field/fp_decl.h"

#define FP2_PREFIX bls12_381_fp2
#include "field/fp2_decl.h"

#define EC_PREFIX bls12_381_g1
#include "curve/ec_decl.h"

#define EC_PREFIX bls12_381_g2
#include "curve/ec_decl.h"

#include "curve/bls12_381_pairing.h"

#endif
