/* Instantiates the bn254 prime fields and Fp2 listed in field/instances.h from
 * the generic templates (field/fp_impl.h, field/fp2_impl.h). */

/* GCC's SLP vectoriser spends most of the compile time on the unrolled
 * multiprecision code and finds nothing to vectorise in it. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
/* The field declarations only (curve/bn254.h, above this layer, declares the
 * groups too). */
#define FP_PREFIX bn254_fp
#include "field/fp_decl.h"
#define FP_PREFIX bn254_fr
#include "field/fp_decl.h"
#define FP2_PREFIX bn254_fp2
#include "field/fp2_decl.h"

#define FP_PREFIX bn254_fp
#include "field/fp_impl.h"

#define FP_PREFIX bn254_fr
#include "field/fp_impl.h"

/* Fp2 after Fp: it uses the base field's inline core defined above. */
#define FP2_PREFIX bn254_fp2
#include "field/fp2_impl.h"
