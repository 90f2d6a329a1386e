/* Instantiates the bn254 prime fields (and Fp2) from the generic templates. */
#include "curve/bn254.h"

#define FP_PREFIX bn254_fp
#define FP_LIMBS 4
#include "field/fp_impl.h"

#define FP_PREFIX bn254_fr
#define FP_LIMBS 4
#include "field/fp_impl.h"
