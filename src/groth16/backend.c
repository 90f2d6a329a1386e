/* Backend selection helpers shared by the backends. */
#include "groth16/backend.h"

#ifndef CUZK_HAVE_GPU_PROVER
/* Builds without the GPU prover (its file defines CUZK_HAVE_GPU_PROVER for
 * the library and provides this function). */
const cuzk_g16_backend *cuzk_g16_backend_gpu(void) { return NULL; }
#endif
