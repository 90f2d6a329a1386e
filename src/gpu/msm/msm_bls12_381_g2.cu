/* GPU MSM driver instantiated for bls12_381 G2. */
#include "gpu/msm/msm_impl.cuh"

template struct gpu_msm_impl<bls12_381_fp2>;
