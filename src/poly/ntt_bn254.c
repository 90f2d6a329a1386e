/* The NTT template (poly/ntt_impl.h) instantiated for bn254 Fr. */
#include "poly/ntt.h"

#define FP_INLINE_KEEP
#define FP_PREFIX bn254_fr
#include "field/fp_inline.h"
#undef FP_INLINE_KEEP
#include "field/fp_ifma_inline.h" /* 8-lane butterflies (run-time CPU check) */

#define NTT_CURVE bn254
#include "poly/ntt_impl.h"
