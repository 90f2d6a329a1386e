/* bls12_381: Fp6, Fp12 (field/tower_decl.h) and the optimal-ate pairing
 * (curve/pairing_decl.h). Included at the end of curve/bls12_381.h. */
#ifndef CUZK_CURVE_BLS12_381_PAIRING_H
#define CUZK_CURVE_BLS12_381_PAIRING_H

/* A part of the umbrella header, which declares the fields and groups this
 * needs first: include "curve/bls12_381.h" (this file does not include it back, so
 * the headers form no circle). */
#ifndef CUZK_CURVE_BLS12_381_H
#error "include curve/bls12_381.h, not curve/bls12_381_pairing.h"
#endif

#define TW_CURVE bls12_381
#include "field/tower_decl.h"

#define PAIRING_CURVE bls12_381
#include "curve/pairing_decl.h"

#endif
