/* The MSM template (msm/msm_impl.h) instantiated for bls12_381 G1 and G2. */
#include "msm/msm.h"

#define MSM_G bls12_381_g1
#define MSM_FR bls12_381_fr
#include "msm/msm_impl.h"

#define MSM_G bls12_381_g2
#define MSM_FR bls12_381_fr
#include "msm/msm_impl.h"
