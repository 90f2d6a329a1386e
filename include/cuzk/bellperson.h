/* cuzk — bellperson (Filecoin) Groth16 files over BLS12-381: verifying keys
 * (`.vk`, or the prefix of a `.params`), 192-byte proofs (several partitions
 * concatenated), public inputs, and the parameters.json digest.
 *
 * Formats: docs/CLI.md "bellperson files". Public inputs are the inputs after
 * the implicit ONE, in the circuit's order; as bytes each is a 32-byte
 * little-endian integer < r (bellperson's Fr::to_repr), and in JSON a
 * decimal string. Errors are values: one-line messages naming the file (or
 * the caller's name for a buffer). */
#ifndef CUZK_BELLPERSON_H
#define CUZK_BELLPERSON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- verifying keys and verification ------------------------------------- */

/* A loaded bellperson verifying key (opaque; immutable, so one key may be
 * used by several threads at once). */
typedef struct cuzk_bellperson_vk cuzk_bellperson_vk;

/* Loads the verifying key of a `.vk` file (exactly the key) or of a
 * `.params` file (the key is its prefix; the whole file's structure is
 * checked, its point sections are not decoded). Every key point is checked
 * (coordinates < p, on the curve, in the subgroup; IC points not the
 * identity), as bellperson's VerifyingKey::read does. Errors: CUZK_ERR_IO,
 * CUZK_ERR_FORMAT (naming the file and the bad part), CUZK_ERR_NOMEM.
 * ctx may be NULL (then the IC points are checked on this thread). */
CUZK_API cuzk_status cuzk_bellperson_vk_load(cuzk_bellperson_vk **out, cuzk_ctx *ctx, const char *path,
                                             cuzk_error *err);
/* The same from the bytes of a `.vk` (exact size); name is used in messages
 * (NULL: "<buffer>"). The buffer is not kept. */
CUZK_API cuzk_status cuzk_bellperson_vk_load_buffer(cuzk_bellperson_vk **out, cuzk_ctx *ctx, const void *data,
                                                    size_t size, const char *name, cuzk_error *err);
/* Public inputs per proof: the key's IC points minus one (the ONE input). */
CUZK_API size_t cuzk_bellperson_vk_n_inputs(const cuzk_bellperson_vk *vk);
/* Frees a key (NULL is fine). */
CUZK_API void cuzk_bellperson_vk_free(cuzk_bellperson_vk *vk);

/* Verifies n_proofs proofs against one key: proofs = n_proofs · 192 bytes
 * (A‖B‖C compressed, bellperson's Proof::write, partitions in order);
 * inputs = n_proofs · n_inputs values of 32 bytes, little-endian, proof i's
 * values at inputs + 32·n_inputs·i. n_inputs must equal
 * cuzk_bellperson_vk_n_inputs(vk) and n_proofs must be ≥ 1.
 * Returns CUZK_OK when every proof is valid; CUZK_ERR_INVALID_PROOF naming
 * the first proof whose pairing check fails or that has a point that is
 * not a valid group element (off the curve or subgroup, the identity, bad
 * flags: as for snarkjs proofs); CUZK_ERR_FORMAT for an input ≥ r; CUZK_ERR_MISMATCH when n_inputs disagrees with the key;
 * CUZK_ERR_USAGE for bad arguments. ctx may be NULL (this thread). */
CUZK_API cuzk_status cuzk_bellperson_verify(cuzk_ctx *ctx, const cuzk_bellperson_vk *vk, const uint8_t *proofs,
                                            size_t n_proofs, const uint8_t *inputs, size_t n_inputs,
                                            cuzk_error *err);
/* `cuzk verify --format bellperson`: key = a `.vk` or `.params`; public =
 * a JSON array of decimal strings (one proof), or an array of such arrays
 * (one per partition, in order); proof = the proof file (192 bytes per
 * partition, as many partitions as public has arrays). Codes as
 * cuzk_bellperson_verify, plus CUZK_ERR_IO and CUZK_ERR_FORMAT naming the
 * file, and CUZK_ERR_MISMATCH when the files disagree (number of inputs or
 * of partitions). ctx may be NULL. */
CUZK_API cuzk_status cuzk_bellperson_verify_files(cuzk_ctx *ctx, const char *key_path, const char *public_path,
                                                  const char *proof_path, cuzk_error *err);

/* ---- parameters.json digest ------------------------------------------------ */

/* The `digest` field filecoin-proofs' parameters.json gives a `.params` or
 * `.vk`: the first 32 lower-case hex characters of the BLAKE2b-512 of the
 * whole file, NUL-terminated in out (33 bytes). Reads the file once. */
CUZK_API cuzk_status cuzk_bellperson_digest(const char *path, char out[33], cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
