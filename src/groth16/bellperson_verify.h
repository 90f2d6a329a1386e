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

/* public.json of bellperson proofs: an array of decimal strings (one
 * partition) or an array of such arrays (one per partition, all of the same
 * length). *values = n_parts · n_each raw values (cuzk_alloc'd, cuzk_free). */
cuzk_status cuzk_bp_public_read(uint64_t (**values)[4], size_t *n_parts, size_t *n_each, const char *text,
                                size_t len, const char *name, cuzk_error *err);

#endif
