/* Internal entry points of the bellperson-mode API (bp_api.c), for the
 * setup, the CLI's development paths and tests. */
#ifndef CUZK_GROTH16_BP_SRS_H
#define CUZK_GROTH16_BP_SRS_H

#include "groth16/bp.h"
#include "groth16/insecure.h"

/* Parameters over a key made in memory (taken over: *k is zeroed, also on
 * error), prepared as cuzk_bp_srs_load prepares a loaded file; name stands
 * for the file in messages. */
cuzk_status cuzk_bp_srs_adopt(cuzk_bp_srs **out, cuzk_ctx *ctx, cuzk_bpk *k, const char *name,
                              const cuzk_bp_srs_opts *opts, cuzk_error *err);
/* cuzk_bp_srs_load on the n CUDA devices listed (opts' device and
 * device_count are not read). A device may repeat: each entry is a
 * preparation of its own, with its own memory plan within opts'
 * device_budget (tests spread a call over several on one GPU). */
cuzk_status cuzk_bp_srs_load_on(cuzk_bp_srs **out, cuzk_ctx *ctx, const char *path, const cuzk_bp_srs_opts *opts,
                                const int *devices, unsigned n, cuzk_error *err);
/* The key behind p. */
const cuzk_bpk *cuzk_bp_srs_key(const cuzk_bp_srs *p);
/* A proof's points, checked: coordinates < q, on the curve, in the subgroup
 * (CUZK_ERR_INVALID_PROOF otherwise). */
cuzk_status cuzk_bp_proof_points(const cuzk_bp_proof *pr, cuzk_proof_points *pt, cuzk_error *err);

/* Toxic waste of the bellperson setup (Montgomery), for tests; NULL: random. */
typedef struct cuzk_bp_toxic {
    bls12_381_fr_t tau, alpha, beta, gamma, delta;
} cuzk_bp_toxic;

/* The toxic waste cuzk_bp_setup_porep derives from a seed for the domain
 * 2^log_n (bp_porep.c; Montgomery; tau outside the domain). Tests compare
 * the streamed file with cuzk_bp_setup_build of the same circuit and toxic
 * waste. */
void cuzk_bp_porep_toxic(cuzk_bp_toxic *t, uint64_t seed, unsigned log_n);

/* r1cs (BLS12-381) -> bellperson key in memory (bp_setup.c). */
cuzk_status cuzk_bp_setup_build(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_bp_toxic *toxic, cuzk_bpk *k,
                                cuzk_error *err);

/* The assignment bellperson's synthesis gives for a circom circuit r and a
 * witness that satisfies it (cuzk_bp_circuit_load over data in memory). */
cuzk_status cuzk_bp_circuit_make(cuzk_bp_circuit **out, cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_wtns *wt,
                                 const char *r1cs_name, const char *wtns_name, cuzk_error *err);

#endif
