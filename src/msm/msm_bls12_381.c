/* The MSM template (msm/msm_impl.h) instantiated for bls12_381 G1 and G2. */
#include "msm/msm.h"

/* Inline field cores for the batch-affine bucket kernel. */
#define FP_PREFIX bls12_381_fp
#define FP_LIMBS 6
#include "field/fp_inline.h"

#define FP2_PREFIX bls12_381_fp2
#define FP2_BASE bls12_381_fp
#include "field/fp2_inline.h"

#define MSM_G bls12_381_g1
#define MSM_FR bls12_381_fr
#define MSM_F bls12_381_fp
#include "msm/msm_impl.h"

#define MSM_G bls12_381_g2
#define MSM_FR bls12_381_fr
#define MSM_F bls12_381_fp2
#include "msm/msm_impl.h"
