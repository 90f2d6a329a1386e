/* The MSM template (msm/msm_impl.h) instantiated for bn254 G1 and G2. */
#include "msm/msm.h"

/* Inline field cores for the batch-affine bucket kernel: scalar, the 8-lane
 * AVX-512 IFMA versions (used after a run-time CPU check) and the
 * variable-time inversions of its batches. */
#define FP_INLINE_KEEP
#define FP_IFMA_KEEP
#define FP_PREFIX bn254_fp
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#undef FP_INLINE_KEEP
#undef FP_IFMA_KEEP
#include "field/fp_inv_vt.h"

#define FP2_INLINE_KEEP
#define FP2_IFMA_KEEP
#define FP2_PREFIX bn254_fp2
#include "field/fp2_inline.h"
#include "field/fp2_ifma_inline.h"
#undef FP2_INLINE_KEEP
#undef FP2_IFMA_KEEP
#include "field/fp2_inv_vt.h"

#define MSM_G bn254_g1
#include "msm/msm_impl.h"

#define MSM_G bn254_g2
#include "msm/msm_impl.h"
