/* Public inputs of Filecoin's Groth16 circuits (PoRep C2 "interactive"
 * StackedDrg, Window PoSt and Winning PoSt), derived from the chain-level
 * values exactly as storage-proofs does, so that a bellperson proof can be
 * verified from its raw inputs (`cuzk filecoin inputs`, then `cuzk verify
 * --format bellperson`).
 *
 * Byte inputs (ids, tickets, seeds, commitments, randomness) are the 32
 * bytes Filecoin uses; commitments, randomness and prover id are field
 * elements as 32-byte little-endian integers < r (storage-proofs'
 * as_safe_commitment), and an all-zero commitment is refused. Outputs are raw
 * Fr values (4 little-endian 64-bit limbs), one array per partition.
 * Supported: the sector sizes of filecoin-proofs (2 KiB .. 64 GiB) and API
 * versions 1.0.0, 1.1.0, 1.2.0 without features (synthetic and
 * non-interactive PoRep are not). */
#ifndef CUZK_FILECOIN_FILECOIN_H
#define CUZK_FILECOIN_FILECOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/common.h"

typedef enum { CUZK_FIL_API_1_0 = 0, CUZK_FIL_API_1_1 = 1, CUZK_FIL_API_1_2 = 2 } cuzk_fil_api;

/* "1.0.0" / "1.0" / "1.1.0" ... -> *api; false if unknown. */
bool cuzk_fil_api_parse(const char *s, cuzk_fil_api *api);
/* Sector size: one of 2KiB 4KiB 16KiB 32KiB 8MiB 16MiB 512MiB 1GiB 32GiB
 * 64GiB (also as a byte count, or with KB/K units meaning KiB); false if not
 * a Filecoin sector size. */
bool cuzk_fil_sector_size_parse(const char *s, uint64_t *bytes);

/* 32-byte values as hex (64 digits, optional 0x): false on a bad length or
 * digit. */
bool cuzk_fil_hex32(uint8_t out[32], const char *hex);

typedef struct cuzk_fil_porep {
    uint64_t sector_size;
    cuzk_fil_api api;
    uint8_t porep_id[32];
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32];
    uint8_t seed[32];
    uint8_t comm_r[32];
    uint8_t comm_d[32];
} cuzk_fil_porep;

/* The inputs of every partition of a PoRep (seal commit) proof: per
 * partition, replica_id, comm_d, comm_r, then per challenge c: c, its 6 DRG
 * parents, its 8 expander parents, c, c, c. *values = n_parts · n_each raw
 * values (cuzk_alloc'd; cuzk_free). CUZK_ERR_USAGE with one line for a bad
 * input (size, zero or >= r commitment). */
cuzk_status cuzk_fil_porep_inputs(const cuzk_fil_porep *in, uint64_t (**values)[4], size_t *n_parts,
                                  size_t *n_each, cuzk_error *err);

/* The replica id (32-byte little-endian field element). */
void cuzk_fil_replica_id(uint8_t out[32], const cuzk_fil_porep *in);

typedef struct cuzk_fil_post {
    uint64_t sector_size;
    cuzk_fil_api api;
    bool winning;               /* Winning PoSt (1 sector, 66 challenges), else Window PoSt */
    uint8_t randomness[32];
    size_t n_sectors;
    const uint64_t *sector_ids; /* n_sectors */
    const uint8_t (*comm_r)[32];/* n_sectors */
} cuzk_fil_post;

/* The inputs of every partition of a PoSt proof: sectors sorted by number
 * (the BTreeMap order of filecoin-proofs' verify_window_post; duplicates
 * refused), chunked by the sector count of a partition (2 up to 1 GiB, 2349
 * for 32 GiB, 2300 for 64 GiB; Winning: exactly 1); per sector comm_r then
 * one leaf challenge per challenge (10 Window, 66 Winning); a short last
 * chunk repeats its last sector. */
cuzk_status cuzk_fil_post_inputs(const cuzk_fil_post *in, uint64_t (**values)[4], size_t *n_parts, size_t *n_each,
                                 cuzk_error *err);

/* Internals, exposed for the unit tests. */
/* ChaCha8 keystream as rand_chacha's ChaCha8Rng::from_seed(key): words
 * [w, w + n) (block counter from 0, stream 0). */
void cuzk_fil_chacha8_words(const uint8_t key[32], uint64_t first_word, uint32_t *out, size_t n);
/* The 6 DRG parents of `node` (BucketGraph::parents) and the 8 expander
 * parents (StackedGraph::expanded_parents) for a graph of `nodes` nodes. */
cuzk_status cuzk_fil_drg_parents(uint32_t out[6], uint64_t nodes, const uint8_t porep_id[32], cuzk_fil_api api,
                                 uint64_t node, cuzk_error *err);
cuzk_status cuzk_fil_exp_parents(uint32_t out[8], uint64_t nodes, const uint8_t porep_id[32], cuzk_fil_api api,
                                 uint64_t node, cuzk_error *err);

#endif
