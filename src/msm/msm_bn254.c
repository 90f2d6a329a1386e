/* The MSM template (msm/msm_impl.h) instantiated for bn254 G1 and G2. */
#include "msm/msm.h"

#define MSM_G bn254_g1
#define MSM_FR bn254_fr
#include "msm/msm_impl.h"

#define MSM_G bn254_g2
#define MSM_FR bn254_fr
#include "msm/msm_impl.h"
