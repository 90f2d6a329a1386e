/* Instantiates the bls12_381 G1 and G2 groups listed in curve/instances.h from
 * curve/ec_impl.h, with the field cores inlined into the point formulas. */

/* GCC's SLP vectoriser spends most of the compile time on the unrolled
 * multiprecision code and finds nothing to vectorise in it. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
#include "curve/bls12_381.h"

#define FP_PREFIX bls12_381_fp
#include "field/fp_inline.h"

#define FP2_PREFIX bls12_381_fp2
#include "field/fp2_inline.h"

#define EC_PREFIX bls12_381_g1
#include "curve/ec_impl.h"

#define EC_PREFIX bls12_381_g2
#include "curve/ec_impl.h"
