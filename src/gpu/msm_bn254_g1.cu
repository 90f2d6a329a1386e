/* GPU MSM driver instantiated for bn254 G1. */
#include "gpu/msm_impl.cuh"

CUZK_GPU_MSM_INSTANTIATE(cuzk_gpu_msm_run_bn254_g1, bn254_fp)
