/* The MSM template (msm/msm_impl.h) instantiated for bn254 G1 and G2. */
#include "msm/msm.h"

/* Inline field cores for the batch-affine bucket kernel. */
#define FP_PREFIX bn254_fp
#define FP_LIMBS 4
#include "field/fp_inline.h"

#define FP2_PREFIX bn254_fp2
#define FP2_BASE bn254_fp
#include "field/fp2_inline.h"

#define MSM_G bn254_g1
#define MSM_FR bn254_fr
#define MSM_F bn254_fp
#include "msm/msm_impl.h"

#define MSM_G bn254_g2
#define MSM_FR bn254_fr
#define MSM_F bn254_fp2
#include "msm/msm_impl.h"
