/* Building the A/B evaluation plan of a key (cuzk_abc_plan, groth16/curve_ops.h). */
#ifndef CUZK_GROTH16_ABC_PLAN_H
#define CUZK_GROTH16_ABC_PLAN_H

#include "groth16/curve_ops.h"
#include "formats/formats.h"

/* Plans the evaluation of a = A·w, b = B·w over a domain of domain_size rows
 * from the coefficient records (borrowed: they must outlive the plan).
 * Records sorted by constraint (as snarkjs and cuzk write them, the normal
 * case) are cut into chunks at constraint boundaries, so each chunk writes
 * its own rows and nothing is copied; any other order gets a CSR. The two
 * give the same a, b (the sums are exact), which the unit tests check. */
cuzk_status cuzk_abc_plan_build(cuzk_abc_plan *plan, const cuzk_coefs *co, size_t domain_size, cuzk_pool *pool,
                                cuzk_error *err);
void cuzk_abc_plan_free(cuzk_abc_plan *plan);
/* Host bytes the plan holds (not counting the records). */
uint64_t cuzk_abc_plan_bytes(const cuzk_abc_plan *plan);
/* The bulk of them, known before the build: the per-row CSR of n_coefs
 * records over the domain. */
uint64_t cuzk_abc_plan_csr_bytes(size_t n_coefs, size_t domain_size);
/* What the plan of n_coefs records will hold, known before the build:
 * records sorted by constraint (cuzk_zkey.coefs_sorted) only the chunk
 * tables, others the CSR as well. */
uint64_t cuzk_abc_plan_held_bytes(size_t n_coefs, size_t domain_size, bool sorted);

/* The records of a zkey's section 4: in the file mapping or decoded. */
void cuzk_coefs_of_zkey(cuzk_coefs *co, const cuzk_zkey *zk);

#endif
