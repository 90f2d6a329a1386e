/* GPU MSM driver instantiated for bls12_381 G1. */
#include "gpu/msm_impl.cuh"

CUZK_GPU_MSM_INSTANTIATE(cuzk_gpu_msm_run_bls12_381_g1, bls12_381_fp)
