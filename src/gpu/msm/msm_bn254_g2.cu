/* GPU MSM driver instantiated for bn254 G2. */
#include "gpu/msm/msm_impl.cuh"

template struct gpu_msm_impl<bn254_fp2>;
