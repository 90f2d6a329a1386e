/* The NTT template (poly/ntt_impl.h) instantiated for bn254 Fr. */
#include "poly/ntt.h"

#define FP_PREFIX bn254_fr
#define FP_LIMBS 4
#include "field/fp_inline.h"

#define NTT_CURVE bn254
#define NTT_FR bn254_fr
#include "poly/ntt_impl.h"
