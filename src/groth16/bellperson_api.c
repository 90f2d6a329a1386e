/* Public API of include/cuzk/bellperson.h: bellperson verifying keys, proof
 * verification (one Groth16 check per partition through the verifier of
 * prove.c), public.json of one or several partitions, the digest. The file
 * codecs are in formats/bellperson.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/bellperson.h"
#include "groth16/curve_ops.h"
#include "formats/bellperson.h"
#include "groth16/bellperson_verify.h"
#include "groth16/ctx.h"
#include "groth16/prove.h"

struct cuzk_bp_verifying_key {
    cuzk_bp_vk bv;
    cuzk_vk vk; /* the verifier's view (n_public = n_ic - 1) */
};

static cuzk_pool *ctx_pool(cuzk_ctx *ctx) { return ctx ? ctx->pool : NULL; }

static cuzk_status wrap_vk(cuzk_bp_verifying_key **out, cuzk_bp_vk *bv, cuzk_error *err)
{
    cuzk_bp_verifying_key *k = calloc(1, sizeof *k);
    if (!k) {
        cuzk_bp_vk_free(bv);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    }
    k->bv = *bv;
    cuzk_status st = cuzk_bp_vk_to_vk(&k->bv, &k->vk, err);
    if (!st) /* a key that verifies each partition of each proof */
        st = cuzk_g16_vk_prepare(cuzk_curve_ops_get(CUZK_CURVE_BLS12_381), &k->vk, err);
    if (st) {
        cuzk_bp_verifying_key_free(k);
        return st;
    }
    *out = k;
    return CUZK_OK;
}

cuzk_status cuzk_bp_verifying_key_load(cuzk_bp_verifying_key **out, cuzk_ctx *ctx, const char *path, cuzk_error *err)
{
    cuzk_err_clear(err);
    if (!out || !path)
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_verifying_key_load: NULL argument");
    *out = NULL;
    cuzk_bp_vk bv;
    cuzk_status st = cuzk_bp_vk_read_any(&bv, path, ctx_pool(ctx), NULL, err);
    return st ? st : wrap_vk(out, &bv, err);
}

cuzk_status cuzk_bp_verifying_key_load_buffer(cuzk_bp_verifying_key **out, cuzk_ctx *ctx, const void *data, size_t size,
                                           const char *name, cuzk_error *err)
{
    cuzk_err_clear(err);
    if (!out || (!data && size))
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_verifying_key_load_buffer: NULL argument");
    *out = NULL;
    cuzk_bp_vk bv;
    cuzk_status st = cuzk_bp_vk_parse(&bv, data, size, true, name ? name : "<buffer>", ctx_pool(ctx), NULL, err);
    return st ? st : wrap_vk(out, &bv, err);
}

size_t cuzk_bp_verifying_key_n_inputs(const cuzk_bp_verifying_key *vk) { return vk ? vk->vk.n_public : 0; }

void cuzk_bp_verifying_key_free(cuzk_bp_verifying_key *vk)
{
    if (!vk)
        return;
    cuzk_bp_vk_free(&vk->bv);
    cuzk_vk_free(&vk->vk);
    free(vk);
}

cuzk_status cuzk_bp_verify_points(const cuzk_vk *vk, const cuzk_proof_points *proofs, size_t n_proofs,
                                  const void *inputs, const char *proof_name, cuzk_pool *pool, cuzk_error *err)
{
    const cuzk_curve_ops *ops = cuzk_curve_ops_get(CUZK_CURVE_BLS12_381);
    if (!ops || vk->curve != CUZK_CURVE_BLS12_381)
        return cuzk_err(err, CUZK_ERR_INTERNAL, "bellperson verification: BLS12-381 not available");
    for (size_t i = 0; i < n_proofs; i++) {
        const uint8_t *in = (const uint8_t *)inputs + (size_t)32 * vk->n_public * i;
        cuzk_error e = {0};
        cuzk_status st = cuzk_g16_verify(ops, vk, in, &proofs[i], pool, &e);
        if (st == CUZK_ERR_INVALID_PROOF)
            return n_proofs > 1 ? cuzk_err(err, st, "%s: invalid proof: partition %zu of %zu fails the pairing check",
                                           proof_name, i, n_proofs)
                                : cuzk_err(err, st, "%s: invalid proof: the pairing check failed", proof_name);
        if (st)
            return cuzk_err(err, st, "%s", e.msg);
    }
    return CUZK_OK;
}

/* 32-byte LE values -> raw limbs, each < r. */
static cuzk_status inputs_from_bytes(uint64_t (*dst)[4], const uint8_t *src, size_t n, cuzk_error *err)
{
    for (size_t i = 0; i < n; i++) {
        bls12_381_fr_t v;
        for (int l = 0; l < 4; l++) {
            uint64_t w = 0;
            for (int k = 7; k >= 0; k--)
                w = w << 8 | src[32 * i + 8 * l + k];
            v.l[l] = w;
        }
        if (!bls12_381_fr_raw_is_canonical(&v))
            return cuzk_err(err, CUZK_ERR_USAGE, "public input %zu is not < r", i);
        memcpy(dst[i], v.l, 32);
    }
    return CUZK_OK;
}

cuzk_status cuzk_bp_verify_bytes(cuzk_ctx *ctx, const cuzk_bp_verifying_key *vk, const uint8_t *proofs,
                                   size_t n_proofs, const uint8_t *inputs, size_t n_inputs, cuzk_error *err)
{
    cuzk_err_clear(err);
    if (!vk || !proofs || (!inputs && n_inputs) || !n_proofs)
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_verify_bytes: NULL argument or no proofs");
    if (n_inputs != vk->vk.n_public)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "%zu public inputs per proof, but the verifying key expects %u",
                        n_inputs, vk->vk.n_public);
    if (n_proofs > SIZE_MAX / CUZK_BP_PROOF_SIZE || (n_inputs && n_proofs > SIZE_MAX / 32 / n_inputs))
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_verify_bytes: too many proofs");
    cuzk_proof_points *pp = NULL;
    size_t got = 0;
    cuzk_status st =
        cuzk_bp_proofs_read_buffer(&pp, &got, proofs, n_proofs * CUZK_BP_PROOF_SIZE, "proof", n_proofs, err);
    if (st)
        return st;
    uint64_t(*in)[4] = cuzk_alloc(n_proofs * n_inputs + 1, 32);
    if (!in) {
        cuzk_free(pp);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    }
    st = inputs_from_bytes(in, inputs, n_proofs * n_inputs, err);
    if (!st)
        st = cuzk_bp_verify_points(&vk->vk, pp, n_proofs, in, "proof", ctx_pool(ctx), err);
    cuzk_free(in);
    cuzk_free(pp);
    return st;
}

/* ---- public.json ------------------------------------------------------------- */

static cuzk_status read_text(const char *path, char **out, size_t *len, cuzk_error *err)
{
    int fd;
    uint64_t size;
    cuzk_status st = cuzk_open_input(path, &fd, &size, err);
    if (st)
        return st;
    if (size > (256u << 20)) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: too large for a public inputs file (%llu bytes)", path,
                        (unsigned long long)size);
    }
    char *b = malloc((size_t)size + 1);
    if (!b) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t r = read(fd, b + got, (size_t)size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            free(b);
            close(fd);
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot read: %s", path, r < 0 ? strerror(errno) : "file shrank");
        }
        got += (size_t)r;
    }
    close(fd);
    b[got] = 0;
    *out = b;
    *len = got;
    return CUZK_OK;
}

cuzk_status cuzk_bp_verify_files(cuzk_ctx *ctx, const char *key_path, const char *public_path,
                                         const char *proof_path, cuzk_error *err)
{
    cuzk_err_clear(err);
    if (!key_path || !public_path || !proof_path)
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_verify_files: NULL path");
    cuzk_bp_verifying_key *vk = NULL;
    char *text = NULL;
    size_t len = 0, parts = 0, each = 0, n_proofs = 0;
    uint64_t(*in)[4] = NULL;
    cuzk_proof_points *pp = NULL;
    cuzk_phase_timer ph = {0};
    if (ctx)
        ph = cuzk_phase_begin(ctx, CUZK_PHASE_LOAD);
    cuzk_status st = cuzk_bp_verifying_key_load(&vk, ctx, key_path, err);
    if (!st)
        st = read_text(public_path, &text, &len, err);
    if (!st)
        st = cuzk_bp_public_read(&in, &parts, &each, text, len, public_path, err);
    if (!st)
        st = cuzk_bp_proofs_read(&pp, &n_proofs, proof_path, 0, err);
    if (ctx)
        cuzk_phase_end(ctx, &ph);
    if (!st && each != vk->vk.n_public)
        st = cuzk_err(err, CUZK_ERR_MISMATCH, "%s: %zu public inputs%s, but %s expects %u", public_path, each,
                      parts > 1 ? " per partition" : "", key_path, vk->vk.n_public);
    if (!st && parts != n_proofs)
        st = cuzk_err(err, CUZK_ERR_MISMATCH, "%s: %zu partition%s of public inputs, but %s holds %zu proof%s",
                      public_path, parts, parts == 1 ? "" : "s", proof_path, n_proofs, n_proofs == 1 ? "" : "s");
    if (!st) {
        if (ctx)
            ph = cuzk_phase_begin(ctx, CUZK_PHASE_PAIRING);
        st = cuzk_bp_verify_points(&vk->vk, pp, n_proofs, in, proof_path, ctx_pool(ctx), err);
        if (ctx)
            cuzk_phase_end(ctx, &ph);
    }
    cuzk_free(pp);
    cuzk_free(in);
    free(text);
    cuzk_bp_verifying_key_free(vk);
    return st;
}

cuzk_status cuzk_bp_params_digest(const char *path, char out[33], cuzk_error *err)
{
    cuzk_err_clear(err);
    if (!path || !out)
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_params_digest: NULL argument");
    return cuzk_bp_digest_file(path, out, err);
}
