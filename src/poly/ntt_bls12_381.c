/* The NTT template (poly/ntt_impl.h) instantiated for bls12_381 Fr. */
#include "poly/ntt.h"

#define FP_INLINE_KEEP
#define FP_PREFIX bls12_381_fr
#include "field/fp_inline.h"
#undef FP_INLINE_KEEP
#include "field/fp_ifma_inline.h" /* 8-lane butterflies (run-time CPU check) */

#define NTT_CURVE bls12_381
#include "poly/ntt_impl.h"
