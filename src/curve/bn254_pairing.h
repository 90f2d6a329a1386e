/* bn254: Fp6, Fp12 (field/tower_decl.h) and the optimal-ate pairing
 * (curve/pairing_decl.h). Included at the end of curve/bn254.h. */
#ifndef CUZK_CURVE_BN254_PAIRING_H
#define CUZK_CURVE_BN254_PAIRING_H

/* A part of the umbrella header, which declares the fields and groups this
 * needs first: include "curve/bn254.h" (this file does not include it back, so
 * the headers form no circle). */
#ifndef CUZK_CURVE_BN254_H
#error "include curve/bn254.h, not curve/bn254_pairing.h"
#endif

#define TW_CURVE bn254
#include "field/tower_decl.h"

#define PAIRING_CURVE bn254
#include "curve/pairing_decl.h"

#endif
