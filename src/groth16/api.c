/* File-level Groth16 API (include/cuzk/cuzk.h): reads snarkjs files,
 * dispatches on the curve, writes snarkjs JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/formats.h"
#include "groth16/ctx.h"
#include "msm/msm.h"
#include "poly/ntt.h"

/* 8-lane Fr arithmetic for the h = a·b − c pass (run-time CPU check). */
#define FP_INLINE_KEEP
#define FP_PREFIX bn254_fr
#define FP_LIMBS 4
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#define FP_PREFIX bls12_381_fr
#define FP_LIMBS 4
#include "field/fp_inline.h"
#undef FP_INLINE_KEEP
#include "field/fp_ifma_inline.h"

#define G16_CURVE bn254
#include "groth16/groth16_impl.h"
#define G16_CURVE bn254
#include "groth16/groth16_glue_impl.h"
#define G16_CURVE bls12_381
#include "groth16/groth16_impl.h"
#define G16_CURVE bls12_381
#include "groth16/groth16_glue_impl.h"

static cuzk_status verify_dispatch(const cuzk_vk *vk, cuzk_fr_vec pub, const cuzk_proof *p,
                                   cuzk_error *err)
{
    switch (vk->curve) {
    case CUZK_CURVE_BN254: return bn254_g16_verify_vk(vk, pub, p, err);
    case CUZK_CURVE_BLS12_381: return bls12_381_g16_verify_vk(vk, pub, p, err);
    default: return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "unsupported curve");
    }
}

static void fill_alphabeta(cuzk_vk *vk)
{
    if (vk->curve == CUZK_CURVE_BN254)
        bn254_g16_fill_alphabeta(vk);
    else
        bls12_381_g16_fill_alphabeta(vk);
}

static cuzk_status load_zkey(cuzk_ctx *ctx, const char *path, bool header_only, cuzk_zkey *zk,
                             cuzk_error *err)
{
    cuzk_phase ph = cuzk_phase_begin(ctx, "load_zkey");
    /* The prover reads section 4 straight from the mapping. */
    cuzk_zkey_read_opts ro = {.pool = ctx->pool, .header_only = header_only, .coefs_in_place = true};
    cuzk_status st = cuzk_zkey_read(zk, path, &ro, err);
    cuzk_phase_end(ctx, &ph);
    return st;
}

/* Share of a typical proof's time per phase (CPU, BN254, 2^16..2^20). */
static const cuzk_progress_step PROVE_PLAN[] = {
    {"load_zkey", 0.00, 0.10}, {"load_wtns", 0.10, 0.11}, {"prepare", 0.11, 0.13},
    {"abc", 0.13, 0.16},       {"ntt", 0.16, 0.36},       {"msm_h", 0.36, 0.62},
    {"msm_a", 0.62, 0.69},     {"msm_b1", 0.69, 0.76},    {"msm_c", 0.76, 0.84},
    {"msm_b2", 0.84, 0.97},    {"assemble", 0.97, 0.98},  {"verify", 0.98, 0.99},
    {"write", 0.99, 1.00},     {NULL, 0, 0},
};

cuzk_status cuzk_prove_files(cuzk_ctx *ctx, const char *zkey_path, const char *wtns_path,
                             const char *proof_path, const char *public_path,
                             const cuzk_prove_opts *opts, cuzk_error *err)
{
    cuzk_prove_opts o = {0};
    if (opts)
        o = *opts;
    cuzk_zkey zk = {0};
    cuzk_wtns wt = {0};
    cuzk_vk vk = {0};
    char *proof_json = NULL, *public_json = NULL;
    size_t proof_len = 0, public_len = 0;
    cuzk_oset os;
    cuzk_afile *fp = NULL, *fpub = NULL;
    cuzk_oset_init(&os, ctx->opts.cancel);
    cuzk_progress_plan(ctx, PROVE_PLAN);

    /* Outputs are checked before the work (an input or a directory given as
     * an output fails at once). */
    cuzk_status st;
    if ((st = cuzk_oset_input(&os, zkey_path, err)) || (st = cuzk_oset_input(&os, wtns_path, err)) ||
        (st = cuzk_oset_output(&os, proof_path, &fp, err)) ||
        (st = cuzk_oset_output(&os, public_path, &fpub, err)))
        goto out;
    if ((st = load_zkey(ctx, zkey_path, false, &zk, err)))
        goto out;
    cuzk_phase ph = cuzk_phase_begin(ctx, "load_wtns");
    st = cuzk_wtns_read(&wt, wtns_path, err);
    cuzk_phase_end(ctx, &ph);
    if (st)
        goto out;
    if ((st = cuzk_zkey_check_wtns(&zk, &wt, wtns_path, err)))
        goto out;
    if (zk.log_domain >= cuzk_curve_params_get(zk.curve)->fr_two_adicity) {
        st = cuzk_err(err, CUZK_ERR_UNSUPPORTED,
                      "%s: domain size 2^%u equals the 2-adicity of the %s scalar field; "
                      "this domain needs snarkjs's shift-25 coset, which cuzk does not support",
                      zkey_path, zk.log_domain, cuzk_curve_name(zk.curve));
        goto out;
    }
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;

    cuzk_proof proof;
    st = zk.curve == CUZK_CURVE_BN254
             ? bn254_g16_prove_zkey(ctx, &zk, &wt, o.insecure_zero_rs, &proof, err)
             : bls12_381_g16_prove_zkey(ctx, &zk, &wt, o.insecure_zero_rs, &proof, err);
    if (st)
        goto out;

    /* Public signals are w[1..nPublic]. */
    const cuzk_curve_params *cp = cuzk_curve_params_get(zk.curve);
    const uint8_t *pub_vals = (const uint8_t *)wt.values.ptr + cp->n8r;

    if (o.verify) {
        ph = cuzk_phase_begin(ctx, "verify");
        if ((st = cuzk_vk_from_zkey(&vk, &zk, err)))
            goto out;
        cuzk_fr_vec pub = {.ptr = (void *)pub_vals};
        cuzk_error verr = {0};
        st = verify_dispatch(&vk, pub, &proof, &verr);
        cuzk_phase_end(ctx, &ph);
        if (st == CUZK_ERR_INVALID_PROOF) {
            st = cuzk_err(err, CUZK_ERR_MISMATCH,
                          "%s: the witness does not satisfy the circuit of %s (the proof fails verification)",
                          wtns_path, zkey_path);
            goto out;
        } else if (st) {
            cuzk_err(err, verr.code, "%s", verr.msg);
            goto out;
        }
    }

    /* Output: serialise both, then commit both (all or nothing). */
    ph = cuzk_phase_begin(ctx, "write");
    int style = o.rapidsnark_json ? CUZK_JSON_RAPIDSNARK : CUZK_JSON_SNARKJS;
    if ((st = cuzk_proof_to_json(&proof, style, &proof_json, &proof_len, err)))
        goto out;
    if ((st = cuzk_public_to_json(zk.curve, pub_vals, zk.n_public, style, &public_json, &public_len, err)))
        goto out;
    if ((st = cuzk_oset_open(&os, err)))
        goto out;
    cuzk_afile_write(fp, proof_json, proof_len);
    cuzk_afile_write(fpub, public_json, public_len);
    if ((st = cuzk_oset_commit(&os, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);

out:
    cuzk_oset_abort(&os);
    free(proof_json);
    free(public_json);
    cuzk_vk_free(&vk);
    cuzk_wtns_free(&wt);
    cuzk_zkey_free(&zk);
    cuzk_progress_plan(ctx, NULL);
    return st;
}

cuzk_status cuzk_verify_files(cuzk_ctx *ctx, const char *vk_path, const char *public_path,
                              const char *proof_path, cuzk_error *err)
{
    cuzk_vk vk = {0};
    cuzk_public pub = {0};
    cuzk_proof proof = {0};
    cuzk_phase ph = cuzk_phase_begin(ctx, "load");
    cuzk_status st = cuzk_vk_read_json(&vk, vk_path, err);
    if (!st)
        st = cuzk_public_read_json(&pub, public_path, vk.curve, err);
    if (!st)
        st = cuzk_proof_read_json(&proof, proof_path, vk.curve, err);
    cuzk_phase_end(ctx, &ph);
    if (!st && pub.n != vk.n_public)
        st = cuzk_err(err, CUZK_ERR_MISMATCH, "%s: %u public signals, but %s expects %u", public_path,
                      pub.n, vk_path, vk.n_public);
    if (!st) {
        ph = cuzk_phase_begin(ctx, "pairing");
        st = verify_dispatch(&vk, pub.values, &proof, err);
        cuzk_phase_end(ctx, &ph);
    }
    cuzk_public_free(&pub);
    cuzk_vk_free(&vk);
    return st;
}

cuzk_status cuzk_export_vk_files(cuzk_ctx *ctx, const char *zkey_path, const char *vk_path,
                                 cuzk_error *err)
{
    cuzk_zkey zk = {0};
    cuzk_vk vk = {0};
    cuzk_oset os;
    cuzk_afile *fo = NULL;
    char *json = NULL;
    size_t len = 0;
    cuzk_oset_init(&os, ctx->opts.cancel);
    cuzk_status st = cuzk_oset_input(&os, zkey_path, err);
    if (!st)
        st = cuzk_oset_output(&os, vk_path, &fo, err);
    if (!st)
        st = load_zkey(ctx, zkey_path, true, &zk, err);
    if (!st)
        st = cuzk_vk_from_zkey(&vk, &zk, err);
    if (!st) {
        fill_alphabeta(&vk);
        st = cuzk_vk_to_json(&vk, &json, &len, err);
    }
    if (!st && !(st = cuzk_oset_open(&os, err))) {
        cuzk_afile_write(fo, json, len);
        st = cuzk_oset_commit(&os, err);
    }
    cuzk_oset_abort(&os);
    free(json);
    cuzk_vk_free(&vk);
    cuzk_zkey_free(&zk);
    return st;
}
