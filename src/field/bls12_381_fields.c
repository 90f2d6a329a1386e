/* Instantiates the bls12_381 prime fields (and Fp2) from the generic templates. */
#include "curve/bls12_381.h"

#define FP_PREFIX bls12_381_fp
#define FP_LIMBS 6
#include "field/fp_impl.h"

#define FP_PREFIX bls12_381_fr
#define FP_LIMBS 4
#include "field/fp_impl.h"
