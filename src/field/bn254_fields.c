/* Instantiates the bn254 prime fields (and Fp2) from the generic templates. */

/* GCC's SLP vectoriser spends most of the compile time on the unrolled
 * multiprecision code and finds nothing to vectorise in it. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
#include "curve/bn254.h"

#define FP_PREFIX bn254_fp
#define FP_LIMBS 4
#include "field/fp_impl.h"

#define FP_PREFIX bn254_fr
#define FP_LIMBS 4
#include "field/fp_impl.h"

/* Fp2 after Fp: it uses the base field's inline core defined above. */
#define FP2_PREFIX bn254_fp2
#define FP2_BASE bn254_fp
#include "field/fp2_impl.h"
