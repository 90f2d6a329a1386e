/* Internal entry points of the INSECURE development setup (setup.c), for
 * tests: the same setup with caller-chosen toxic waste, and an in-memory
 * variant. Never use fixed toxic waste outside tests. */
#ifndef CUZK_GROTH16_SETUP_H
#define CUZK_GROTH16_SETUP_H

#include <stdint.h>

#include "formats/formats.h"
#include "groth16/insecure.h"

/* Toxic waste as raw (standard form) Fr elements, 4 LE limbs each, in the
 * order tau, alpha, beta, delta. NULL: random from the OS CSPRNG. */
typedef struct cuzk_setup_toxic {
    uint64_t tau[4], alpha[4], beta[4], delta[4];
} cuzk_setup_toxic;

/* r1cs -> in-memory Groth16 key (zk allocated here; cuzk_zkey_free it, also
 * after an error). */
cuzk_status cuzk_setup_build(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_setup_toxic *toxic,
                             cuzk_zkey *zk, cuzk_error *err);

/* The same with the point sections made on GPU `device` (>= 0), or on the
 * CPU (-1); the key is the same either way. */
cuzk_status cuzk_setup_build_on(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_setup_toxic *toxic, int device,
                                cuzk_zkey *zk, cuzk_error *err);

/* cuzk_setup_files with fixed toxic waste (TEST ONLY). */
cuzk_status cuzk_setup_files_with_toxic(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                                        const cuzk_setup_toxic *toxic, cuzk_error *err);

#endif
