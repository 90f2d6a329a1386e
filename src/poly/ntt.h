/* NTT over Fr for both curves: bn254_ntt*, bls12_381_ntt* (see ntt_decl.h). */
#ifndef CUZK_POLY_NTT_H
#define CUZK_POLY_NTT_H

#include "curve/bls12_381.h"
#include "curve/bn254.h"

#define NTT_CURVE bn254
#include "poly/ntt_decl.h"

#define NTT_CURVE bls12_381
#include "poly/ntt_decl.h"

#endif
