/* The Groth16 proving pipeline and verifier, written once over a backend
 * (backend.h) and a curve's operations (groth16/curve_ops.h). */
#ifndef CUZK_GROTH16_PROVE_H
#define CUZK_GROTH16_PROVE_H

#include "groth16/backend.h"

/* Proves with witness w (n_vars raw Fr values) on a key attached to `be`
 * (key_state). r, s: raw blinding factors (n8r bytes each), or NULL for fresh
 * random ones (anything else is for tests only). Phases abc .. assemble are
 * timed on ctx and cancellation is checked between them. side(side_arg), if
 * side is not NULL, runs on another thread while the backend's steps run
 * (with the blinding terms), or on this one when no thread can be made; it
 * has run and returned whenever this returns CUZK_OK. */
cuzk_status cuzk_g16_prove(cuzk_ctx *ctx, const cuzk_g16_backend *be, const void *key_state, const cuzk_zkey *zk,
                           const cuzk_curve_ops *ops, const void *w, const uint8_t *r, const uint8_t *s,
                           void (*side)(void *), void *side_arg, cuzk_proof_points *out, cuzk_error *err);

/* vk->prep = γ's and δ's Miller-loop lines and e(α, β)'s Miller value
 * (ops->vk_prepare), for a key that verifies many proofs: each verification
 * then runs three Miller loops instead of four, two of them without their G2
 * steps. CUZK_OK (also when vk->prep was already set) or CUZK_ERR_NOMEM.
 * The vk's points must not change afterwards (cuzk_vk_free releases it). */
cuzk_status cuzk_g16_vk_prepare(const cuzk_curve_ops *ops, cuzk_vk *vk, cuzk_error *err);

/* pub: n_public raw Fr values (< r, checked by the caller). CUZK_OK if
 * e(-A,B)·e(IC(pub),γ)·e(C,δ)·e(α,β) = 1, else CUZK_ERR_INVALID_PROOF.
 * IC(pub) is one MSM on `pool` (NULL: the calling thread), so keys with
 * hundreds of public inputs verify in milliseconds. */
cuzk_status cuzk_g16_verify(const cuzk_curve_ops *ops, const cuzk_vk *vk, const void *pub,
                            const cuzk_proof_points *p, cuzk_pool *pool, cuzk_error *err);

/* The two halves of cuzk_g16_verify, so that the first (it needs only the
 * public inputs) can run while the proof is made: acc (a G1 Jacobian point,
 * CUZK_MAX_G1_JAC bytes) = IC(pub) on `pool`; then the pairing check with
 * that acc, its Miller loops on `pool`. */
cuzk_status cuzk_g16_verify_ic(const cuzk_curve_ops *ops, const cuzk_vk *vk, const void *pub, void *acc,
                               cuzk_pool *pool, cuzk_error *err);
cuzk_status cuzk_g16_verify_with_ic(const cuzk_curve_ops *ops, const cuzk_vk *vk, const void *acc,
                                    const cuzk_proof_points *p, cuzk_pool *pool, cuzk_error *err);

/* The verification of a proof as it is made, for both APIs (api.c, bp_api.c):
 * IC(pub) (one small MSM: a few ms for hundreds of inputs) as the side job
 * of cuzk_g16_prove (its side thread, not the pool, which the prover holds),
 * then cuzk_g16_verify_made. */
typedef struct cuzk_g16_ic_job {
    const cuzk_curve_ops *ops;
    const cuzk_vk *vk;
    const void *pub; /* n_public raw Fr values */
    uint64_t acc[CUZK_MAX_G1_JAC / 8];
    cuzk_status st;
    cuzk_error err;
    /* Set by cuzk_g16_prove when it knew π_A and π_B before H's MSM ended
     * and vk->prep is set: f = the Miller value of e(−a, b)·e(IC, γ)·e(α, β)
     * (ops->verify_begin), computed while H's kernels ran. */
    bool begun;
    cuzk_g1_point a;
    cuzk_g2_point b;
    uint64_t f[CUZK_MAX_FQ12 / 8];
} cuzk_g16_ic_job;
/* The side job: arg is a cuzk_g16_ic_job. With it as side job,
 * cuzk_g16_prove also begins the pairing check (begun, above) where the
 * backend runs H's MSM last. */
void cuzk_g16_ic_run(void *arg);
/* After cuzk_g16_prove returned CUZK_OK with cuzk_g16_ic_run as its side
 * job: the pairing check of pts, timed as CUZK_PHASE_VERIFY (when begun
 * with pts' own a and b: only e(C, δ)'s loop and the final exponentiation;
 * else the whole check). CUZK_OK,
 * CUZK_ERR_INVALID_PROOF with nothing in err (the caller says what failed),
 * or another error in err. */
cuzk_status cuzk_g16_verify_made(cuzk_ctx *ctx, const cuzk_g16_ic_job *ic, const cuzk_proof_points *pts,
                                 cuzk_error *err);

/* vk->alphabeta_12 = e(alpha_1, beta_2), as snarkjs exports it. */
void cuzk_g16_fill_alphabeta(const cuzk_curve_ops *ops, cuzk_vk *vk);

#endif
