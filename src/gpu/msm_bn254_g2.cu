/* GPU MSM driver instantiated for bn254 G2. */
#include "gpu/msm_impl.cuh"

CUZK_GPU_MSM_INSTANTIATE(cuzk_gpu_msm_run_bn254_g2, bn254_fp2)
