/* The PoRep-shaped development circuit, key and witness, built in memory
 * (include/cuzk/dev.h cuzk_porep_make; the circuit is described in
 * porep_impl.h). Internal entry points, also for tests: the same build with
 * fixed toxic waste, and the circuit as an r1cs (small sizes), so the key can
 * be checked against cuzk setup of that r1cs. */
#ifndef CUZK_GROTH16_POREP_H
#define CUZK_GROTH16_POREP_H

#include <stdint.h>

#include "cuzk/dev.h"
#include "formats/formats.h"
#include "groth16/setup.h"
#include "groth16/insecure.h"

/* A Filecoin PoRep partition (32 GiB sector), as bellperson counts it:
 * 130,278,869 constraints with one per input, 328 inputs (ONE and 327 public
 * signals), 130,169,893 auxiliary wires; domain 2^27. */
#define CUZK_POREP_FULL_LOG 27
#define CUZK_POREP_FULL_ROWS 130278869ull
#define CUZK_POREP_FULL_PUBLIC 327u
#define CUZK_POREP_FULL_AUX 130169893ull
#define CUZK_POREP_MIN_LOG 10
/* Rows per chunk of the circuit (porep_impl.h). */
#define CUZK_POREP_CHUNK_ROWS (1u << 14)

typedef struct cuzk_porep_shape {
    cuzk_curve curve;
    unsigned log_domain;
    uint64_t m;          /* r1cs constraints (the input rows excluded) */
    uint32_t n_pub;      /* public signals (ONE not counted) */
    uint64_t n_aux;      /* private wires */
    uint64_t n_vars;     /* 1 + n_pub + n_aux */
} cuzk_porep_shape;

/* The shape scaled to domain 2^log_domain (CUZK_POREP_MIN_LOG..27):
 * constraints and private wires x 2^(log_domain - 27), 327 public signals
 * unless the domain is too small for them (then as many as fit).
 * CUZK_ERR_USAGE for another size or curve. */
cuzk_status cuzk_porep_shape_make(cuzk_porep_shape *s, cuzk_curve curve, unsigned log_domain, cuzk_error *err);

/* Key (zk) and witness (wt) of the circuit of `seed`, both allocated here
 * (free them also after an error). toxic: NULL = random; device >= 0: the
 * point sections on that GPU. info (may be NULL) gets the counts. */
cuzk_status cuzk_porep_build(cuzk_ctx *ctx, const cuzk_porep_shape *s, uint64_t seed,
                             const cuzk_setup_toxic *toxic, int device, cuzk_zkey *zk, cuzk_wtns *wt,
                             cuzk_porep_info *info, cuzk_error *err);

/* The same circuit as an r1cs, and its witness (tests; memory ~ 80 bytes a
 * constraint). */
cuzk_status cuzk_porep_r1cs(cuzk_ctx *ctx, const cuzk_porep_shape *s, uint64_t seed, cuzk_r1cs *r,
                            cuzk_wtns *wt, cuzk_error *err);

/* The circuit's rows chunk by chunk, for passes of other modules (the
 * bellperson-layout parameters and assignment of bp_porep.c). BLS12-381
 * only. A generator holds the shared values and one row buffer per worker;
 * chunk q (0..cuzk_porep_gen_chunks - 1) made into worker w's buffer is
 * viewed through cuzk_porep_rows_view until that worker's next chunk.
 * Chunks refer only to their own wires (wire0 .. wire0 + nw - 1), ONE
 * (wire 0) and the public signals (1..n_pub). */
typedef struct cuzk_porep_gen cuzk_porep_gen;
typedef struct cuzk_porep_rows_view {
    uint32_t rows;           /* rows of the chunk: row0 .. row0 + rows - 1 */
    uint32_t nw;             /* wires it creates: wire0 .. wire0 + nw - 1 */
    uint64_t row0, wire0;
    const uint32_t *off[3];  /* A, B, C: row i's terms are off[t][i] .. off[t][i + 1] - 1 */
    const uint32_t *wire[3];
    const void *coef[3];     /* Montgomery scalars (bls12_381_fr_t) */
    const void *val;         /* nw Montgomery values of the created wires */
} cuzk_porep_rows_view;
cuzk_status cuzk_porep_gen_create(cuzk_porep_gen **out, const cuzk_porep_shape *s, uint64_t seed, int workers,
                                  cuzk_error *err);
void cuzk_porep_gen_free(cuzk_porep_gen *g);
uint64_t cuzk_porep_gen_chunks(const cuzk_porep_gen *g);
/* n_pub Montgomery values of the public signals (wires 1..n_pub). */
const void *cuzk_porep_gen_public(const cuzk_porep_gen *g);
void cuzk_porep_gen_chunk(cuzk_porep_gen *g, uint64_t q, int worker, cuzk_porep_rows_view *v);

#endif
