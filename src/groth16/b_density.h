/* DESIGN: the B bases without the points at infinity.
 *
 * A wire that occurs in no B term of any constraint has B1 and B2 at
 * infinity (a zkey stores all n_vars of each, infinity as zero bytes): it
 * adds nothing to the B MSMs. In a Filecoin PoRep partition that is 75 % of
 * the wires, 26 of the 35 GiB of B bases at 2^27. The GPU prover keeps only
 * the wires with a B point, by index: it holds or streams their bases alone
 * (a quarter of the device memory or of the bus traffic) and gathers their
 * scalars from the witness on the device before the B MSMs, which then run
 * over a quarter of the points. Same sums, so the same proofs. */
#ifndef CUZK_GROTH16_B_DENSITY_H
#define CUZK_GROTH16_B_DENSITY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

typedef struct cuzk_b_density {
    uint64_t n;      /* wires kept */
    uint32_t *index; /* their witness indices, ascending; NULL: none dropped */
    void *b1, *b2;   /* their B1 (g1 bytes each) and B2 (g2 bytes each) bases, in index order */
} cuzk_b_density;

/* Scans the n_vars affine B1 (g1 bytes each) and B2 (g2 bytes each) bases
 * on `pool` (NULL: this thread) and keeps the wires where either is not at
 * infinity. When that drops at least 1/8 of the wires, *out holds the kept
 * wires' indices and bases (host memory checked first: CUZK_ERR_NOMEM when
 * the machine cannot hold them); otherwise *out is left empty (index NULL,
 * n = n_vars): the bases are used as they are. */
cuzk_status cuzk_b_density_make(cuzk_b_density *out, const void *b1, const void *b2, size_t n_vars, size_t g1,
                                size_t g2, cuzk_pool *pool, cuzk_error *err);

/* Frees the kept bases (their copies on the device suffice), keeps the index. */
void cuzk_b_density_drop_bases(cuzk_b_density *d);

/* Frees everything; *d is left empty. NULL is a no-op. */
void cuzk_b_density_free(cuzk_b_density *d);

#endif
