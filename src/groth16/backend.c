/* Backend selection helpers shared by the backends. */
#include "groth16/backend.h"

#include "cuzk/gpu.h"

#ifndef CUZK_HAVE_GPU_PROVER
/* Builds without the GPU prover (its file defines CUZK_HAVE_GPU_PROVER for
 * the library and provides this function). */
const cuzk_g16_backend *cuzk_g16_backend_gpu(void) { return NULL; }
#endif

int cuzk_gpu_prover_built(void) { return cuzk_g16_backend_gpu() != NULL; }
