/* Bellperson mode and its files (formats/bellperson.h): loading a `.params`
 * into a key, writing a key as `.params` + `.vk`, the setup's file entry and
 * the 192-byte proof encoding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bellperson.h"
#include "groth16/bp.h"
#include "groth16/bp_srs.h"
#include "groth16/ctx.h"
#include "groth16/insecure.h"

/* The one conversion of the mapped file's points (big-endian canonical,
 * uncompressed) into the prover's form (Montgomery affine): every section of
 * p decoded into k's arrays, on pool, in chunks so that cancellation is
 * polled. This is where a later streaming / on-device decode plugs in. */
static cuzk_status bpk_decode(cuzk_bpk *k, const cuzk_bp_params *p, cuzk_ctx *ctx, cuzk_error *err)
{
    cuzk_pool *pool = ctx ? ctx->pool : NULL;
    void *dst[CUZK_BP_N_SECTIONS] = {k->h, k->l, k->a, k->b1, k->b2};
    uint64_t total = 0, done = 0;
    for (int s = 0; s < CUZK_BP_N_SECTIONS; s++)
        total += p->sec[s].count;
    const uint64_t chunk = (uint64_t)1 << 20;
    for (int s = 0; s < CUZK_BP_N_SECTIONS; s++) {
        const uint64_t n = p->sec[s].count;
        for (uint64_t b = 0; b < n; b += chunk) {
            uint64_t m = n - b < chunk ? n - b : chunk;
            cuzk_status st = cuzk_check_cancel(ctx, err);
            if (!st)
                st = s == CUZK_BP_B_G2 ? cuzk_bp_params_g2(p, (cuzk_bp_section_id)s, b, m,
                                                           (bls12_381_g2_affine_t *)dst[s] + b, pool, err)
                                       : cuzk_bp_params_g1(p, (cuzk_bp_section_id)s, b, m,
                                                           (bls12_381_g1_affine_t *)dst[s] + b, pool, err);
            if (st)
                return st;
            done += m;
            cuzk_progress(ctx, CUZK_PHASE_LOAD_KEY, (double)done / (double)total);
        }
    }
    return CUZK_OK;
}

cuzk_status cuzk_bpk_load(cuzk_bpk *k, const char *path, bool checked, cuzk_ctx *ctx, cuzk_error *err)
{
    memset(k, 0, sizeof *k);
    cuzk_bp_params p;
    memset(&p, 0, sizeof p);
    cuzk_bp_params_opts po = {.checked = checked, .pool = ctx ? ctx->pool : NULL};
    cuzk_status st = cuzk_bp_params_open(&p, path, &po, err);
    if (st)
        return st;
    unsigned log_n = 0;
    uint64_t n = cuzk_bp_params_domain(&p, &log_n);
    if (!n)
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u H points: not a power of two minus one", path,
                      p.sec[CUZK_BP_H].count);
    else if (p.sec[CUZK_BP_B_G1].count != p.sec[CUZK_BP_B_G2].count)
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u B_G1 points but %u B_G2 points", path,
                      p.sec[CUZK_BP_B_G1].count, p.sec[CUZK_BP_B_G2].count);
    else if (p.sec[CUZK_BP_A].count < p.vk.n_ic)
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u A points, fewer than its %u inputs", path,
                      p.sec[CUZK_BP_A].count, p.vk.n_ic);
    if (!st) {
        k->n_inp = p.vk.n_ic;
        k->n_aux = p.sec[CUZK_BP_L].count;
        k->log_n = log_n;
        k->n = n;
        k->n_a = p.sec[CUZK_BP_A].count;
        k->n_b = p.sec[CUZK_BP_B_G1].count;
        st = cuzk_host_mem_check(cuzk_bpk_bytes(k), "the parameters' decoded points would", err);
    }
    if (!st)
        st = cuzk_bpk_alloc(k, err);
    if (!st) {
        k->alpha_g1 = p.vk.alpha_g1;
        k->beta_g1 = p.vk.beta_g1;
        k->delta_g1 = p.vk.delta_g1;
        k->beta_g2 = p.vk.beta_g2;
        k->gamma_g2 = p.vk.gamma_g2;
        k->delta_g2 = p.vk.delta_g2;
        memcpy(k->ic, p.vk.ic, (size_t)k->n_inp * sizeof *k->ic);
        st = bpk_decode(k, &p, ctx, err);
    }
    cuzk_bp_params_close(&p);
    if (st)
        cuzk_bpk_free(k);
    return st;
}

static cuzk_status bpk_to_vk(const cuzk_bpk *k, cuzk_bp_vk *vk, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    cuzk_status st = cuzk_bp_vk_alloc(vk, k->n_inp, err);
    if (st)
        return st;
    vk->alpha_g1 = k->alpha_g1;
    vk->beta_g1 = k->beta_g1;
    vk->delta_g1 = k->delta_g1;
    vk->beta_g2 = k->beta_g2;
    vk->gamma_g2 = k->gamma_g2;
    vk->delta_g2 = k->delta_g2;
    memcpy(vk->ic, k->ic, (size_t)k->n_inp * sizeof *k->ic);
    return CUZK_OK;
}

cuzk_status cuzk_bpk_write(const cuzk_bpk *k, const char *params_path, const char *vk_path, cuzk_ctx *ctx,
                           cuzk_error *err)
{
    cuzk_bp_vk vk;
    cuzk_status st = bpk_to_vk(k, &vk, err);
    if (st)
        return st;
    cuzk_oset os;
    cuzk_afile *fp = NULL, *fv = NULL;
    cuzk_oset_init(&os, ctx ? ctx->opts.cancelled : NULL, ctx ? ctx->opts.user : NULL);
    cuzk_bp_params_writer w;
    memset(&w, 0, sizeof w);
    if ((st = cuzk_oset_output(&os, params_path, &fp, err)) ||
        (vk_path && (st = cuzk_oset_output(&os, vk_path, &fv, err))) || (st = cuzk_oset_open(&os, err)))
        goto out;
    const uint64_t counts[CUZK_BP_N_SECTIONS] = {k->n - 1, k->n_aux, k->n_a, k->n_b, k->n_b};
    const void *src[CUZK_BP_N_SECTIONS] = {k->h, k->l, k->a, k->b1, k->b2};
    if ((st = cuzk_bp_params_writer_open_to(&w, fp, &vk, ctx ? ctx->pool : NULL, err)))
        goto out;
    for (int s = 0; s < CUZK_BP_N_SECTIONS && !st; s++) {
        if (counts[s] > UINT32_MAX) {
            st = cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: more than 2^32 points in a section", params_path);
            break;
        }
        st = cuzk_bp_params_writer_section(&w, (cuzk_bp_section_id)s, (uint32_t)counts[s], err);
        if (!st && counts[s])
            st = s == CUZK_BP_B_G2 ? cuzk_bp_params_writer_g2(&w, src[s], counts[s], err)
                                   : cuzk_bp_params_writer_g1(&w, src[s], counts[s], err);
    }
    if (!st)
        st = cuzk_bp_params_writer_finish(&w, err);
    if (!st && fv)
        st = cuzk_bp_vk_write_to(&vk, fv, err);
    if (!st)
        st = cuzk_oset_commit(&os, err);
out:
    cuzk_bp_params_writer_abort(&w);
    cuzk_oset_abort(&os);
    cuzk_bp_vk_free(&vk);
    return st;
}

cuzk_status cuzk_bp_setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *params_path, const char *vk_path,
                                cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    cuzk_r1cs r = {0};
    cuzk_bpk k = {0};
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_READ);
    cuzk_status st = cuzk_r1cs_read(&r, r1cs_path, err);
    if (!st) {
        cuzk_phase_end(ctx, &ph);
        st = cuzk_bp_setup_build(ctx, &r, NULL, &k, err);
        if (st && err && st != CUZK_ERR_NOMEM && st != CUZK_ERR_CANCELLED && !strstr(err->msg, r1cs_path)) {
            char m[CUZK_ERROR_MSG_MAX];
            snprintf(m, sizeof m, "%s", err->msg);
            st = cuzk_err_force(err, st, "%s: %s", r1cs_path, m);
        }
    }
    if (!st) {
        ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_WRITE);
        st = cuzk_bpk_write(&k, params_path, vk_path, ctx, err);
        if (!st)
            cuzk_phase_end(ctx, &ph);
    }
    cuzk_bpk_free(&k);
    cuzk_r1cs_free(&r);
    return st;
}

cuzk_status cuzk_bp_proof_to_bytes(const cuzk_bp_proof *proof, uint8_t out[192], cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    cuzk_proof_points pt;
    cuzk_status st = cuzk_bp_proof_points(proof, &pt, err);
    if (st) {
        char m[CUZK_ERROR_MSG_MAX];
        snprintf(m, sizeof m, "%s", err ? err->msg : "invalid proof");
        return cuzk_err_force(err, CUZK_ERR_USAGE, "%s", m);
    }
    cuzk_bp_proof_encode(out, &pt);
    return CUZK_OK;
}

/* bytes: 32 little-endian bytes of an integer < r -> Montgomery scalar. */
static bool le_to_fr(cuzk_bp_fr *out, const uint8_t *le)
{
    bls12_381_fr_t raw;
    bls12_381_fr_from_bytes_le(&raw, le);
    if (!bls12_381_fr_raw_is_canonical(&raw))
        return false;
    bls12_381_fr_to_mont((bls12_381_fr_t *)out->l, &raw);
    return true;
}

/* x + k (Montgomery scalars) */
static void fr_add_small(cuzk_bp_fr *x, unsigned k)
{
    bls12_381_fr_t t;
    bls12_381_fr_from_u64(&t, k);
    bls12_381_fr_add((bls12_381_fr_t *)x->l, (const bls12_381_fr_t *)x->l, &t);
}

cuzk_status cuzk_bp_prove_files(cuzk_ctx *ctx, const char *params_path, const char *r1cs_path, const char *wtns_path,
                                const char *proof_path, const char *public_path, const cuzk_bp_prove_files_opts *opts,
                                cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    cuzk_bp_prove_files_opts o = {0};
    if (opts)
        o = *opts;
    const size_t np_ = o.partitions > 1 ? o.partitions : 1;
    if (!o.insecure_r != !o.insecure_s)
        return cuzk_err(err, CUZK_ERR_USAGE, "insecure_r and insecure_s must be given together");
    if (o.partitions > 1024)
        return cuzk_err(err, CUZK_ERR_USAGE, "at most 1024 partitions, not %u", o.partitions);
    cuzk_bp_fr r[1024], s[1024];
    cuzk_bp_assignment as[1024];
    for (size_t i = 0; i < np_; i++) {
        if (o.insecure_r) {
            if (!le_to_fr(&r[i], o.insecure_r) || !le_to_fr(&s[i], o.insecure_s))
                return cuzk_err(err, CUZK_ERR_USAGE,
                                "insecure_r / insecure_s must be below the BLS12-381 scalar field order");
            fr_add_small(&r[i], (unsigned)i);
            fr_add_small(&s[i], (unsigned)i);
        } else if (!bls12_381_fr_random((bls12_381_fr_t *)r[i].l) || !bls12_381_fr_random((bls12_381_fr_t *)s[i].l)) {
            return cuzk_err(err, CUZK_ERR_INTERNAL, "the OS random number generator failed");
        }
    }
    cuzk_oset os;
    cuzk_afile *fp = NULL, *fpub = NULL, *fraw = NULL;
    cuzk_oset_init(&os, ctx ? ctx->opts.cancelled : NULL, ctx ? ctx->opts.user : NULL);
    cuzk_bp_srs *srs = NULL;
    cuzk_bp_circuit *c = NULL;
    char *json = NULL;
    size_t json_len = 0;
    uint64_t(*pub)[4] = NULL;
    cuzk_bp_proof *proof = NULL;
    cuzk_status st;
    if (!o.porep_log != (r1cs_path && wtns_path)) {
        st = cuzk_err(err, CUZK_ERR_USAGE, "give either an r1cs and a witness or porep_log");
        goto out;
    }
    if ((st = cuzk_oset_input(&os, params_path, err)) || (r1cs_path && (st = cuzk_oset_input(&os, r1cs_path, err))) ||
        (wtns_path && (st = cuzk_oset_input(&os, wtns_path, err))) || (st = cuzk_oset_output(&os, proof_path, &fp, err)) ||
        (st = cuzk_oset_output(&os, public_path, &fpub, err)) ||
        (o.raw_proof_path && (st = cuzk_oset_output(&os, o.raw_proof_path, &fraw, err))))
        goto out;
    if ((st = cuzk_bp_srs_load(&srs, ctx, params_path, &o.srs, err)))
        goto out;
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_LOAD_WITNESS);
    if ((st = o.porep_log ? cuzk_bp_circuit_porep(&c, ctx, o.porep_log, o.porep_seed, err)
                          : cuzk_bp_circuit_load(&c, ctx, r1cs_path, wtns_path, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(c);
    for (size_t i = 0; i < np_; i++)
        as[i] = *a;
    if (!(proof = calloc(np_, sizeof *proof))) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
        goto out;
    }
    if ((st = cuzk_bp_prove(ctx, srs, as, np_, r, s, proof, &o.prove, err)))
        goto out;
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_WRITE);
    const size_t npub = a->inp_size - 1;
    if (!(pub = cuzk_alloc(npub ? npub : 1, 32))) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < npub; i++)
        bls12_381_fr_from_mont((bls12_381_fr_t *)pub[i], (const bls12_381_fr_t *)a->inp[i + 1].l);
    if ((st = cuzk_public_to_json(CUZK_CURVE_BLS12_381, pub, npub, CUZK_JSON_SNARKJS, &json, &json_len, err)) ||
        (st = cuzk_oset_open(&os, err)))
        goto out;
    for (size_t i = 0; i < np_ && !st; i++) {
        uint8_t bytes[192];
        if (!(st = cuzk_bp_proof_to_bytes(&proof[i], bytes, err)))
            cuzk_afile_write(fp, bytes, sizeof bytes);
    }
    if (st)
        goto out;
    if (np_ == 1) {
        cuzk_afile_write(fpub, json, json_len);
    } else { /* one array a partition */
        cuzk_afile_write(fpub, "[\n", 2);
        for (size_t i = 0; i < np_; i++) {
            cuzk_afile_write(fpub, json, json_len);
            cuzk_afile_write(fpub, i + 1 < np_ ? ",\n" : "\n]", 2);
        }
    }
    if (fraw)
        cuzk_afile_write(fraw, proof, np_ * sizeof *proof);
    if (!(st = cuzk_oset_commit(&os, err)))
        cuzk_phase_end(ctx, &ph);
out:
    cuzk_oset_abort(&os);
    free(json);
    free(proof);
    cuzk_free(pub);
    cuzk_bp_circuit_free(c);
    cuzk_bp_srs_free(srs);
    return st;
}
