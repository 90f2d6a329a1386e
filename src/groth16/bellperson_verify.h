/* Internal helpers behind include/cuzk/bellperson.h, for the CLI and the
 * bellperson-mode prover (which verifies each proof before returning it). */
#ifndef CUZK_GROTH16_BELLPERSON_VERIFY_H
#define CUZK_GROTH16_BELLPERSON_VERIFY_H

#include "formats/bellperson.h"

/* Groth16 check of n_proofs BLS12-381 proofs against vk (see
 * cuzk_bp_vk_to_vk): inputs = n_proofs · vk->n_public raw Fr values (4 LE
 * limbs each, < r), proof i's at inputs + 32·n_public·i. CUZK_ERR_INVALID_PROOF
 * "<proof_name>: invalid proof: partition i of n fails the pairing check". */
cuzk_status cuzk_bp_verify_points(const cuzk_vk *vk, const cuzk_proof_points *proofs, size_t n_proofs,
                                  const void *inputs, const char *proof_name, cuzk_pool *pool, cuzk_error *err);

#endif
