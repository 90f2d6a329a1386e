/* Umbrella header for bn254: declares every field and group of the curve.
 *   bn254_fp   base field (4 limbs)      bn254_fr  scalar field (4 limbs)
 *   bn254_fp2  Fp[u]/(u^2+1)
 *   bn254_g1   G1 over bn254_fp          bn254_g2  G2 over bn254_fp2 (twist)
 * Fp6/Fp12 and the pairing are declared by the pairing header included at
 * the end (when present). */
#ifndef CUZK_CURVE_BN254_H
#define CUZK_CURVE_BN254_H

#define FP_PREFIX bn254_fp
#include "field/fp_decl.h"

#define FP_PREFIX bn254_fr
#include "field/fp_decl.h"

#define FP2_PREFIX bn254_fp2
#include "field/fp2_decl.h"

#define EC_PREFIX bn254_g1
#include "curve/ec_decl.h"

#define EC_PREFIX bn254_g2
#include "curve/ec_decl.h"

#include "curve/bn254_pairing.h"

#endif
