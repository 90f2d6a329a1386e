/* bls12_381: Fp6, Fp12 (field/tower_decl.h) and the optimal-ate pairing
 * (curve/pairing_decl.h). Included at the end of curve/bls12_381.h. */
#ifndef CUZK_CURVE_BLS12_381_PAIRING_H
#define CUZK_CURVE_BLS12_381_PAIRING_H

#include "curve/bls12_381.h"

#define TW_CURVE bls12_381
#include "field/tower_decl.h"

#define PAIRING_CURVE bls12_381
#include "curve/pairing_decl.h"

#endif
