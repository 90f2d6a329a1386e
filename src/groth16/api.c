/* Groth16 API (include/cuzk/cuzk.h): the key, witness and proof handles,
 * cuzk_prove, and the file-level calls built on them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/formats.h"
#include "groth16/ctx.h"
#include "groth16/handles.h"
#include "groth16/prove.h"

/* ---- handles ---------------------------------------------------------------- */

struct cuzk_key {
    char *name;           /* path or caller's name, for messages */
    cuzk_zkey zk;
    cuzk_vk vk;           /* for the verification of each proof */
    const cuzk_curve_ops *ops;
    const cuzk_g16_backend *be;
    void *state;          /* the backend's state for the key (NULL until attached) */
    cuzk_key_info info;
};

struct cuzk_witness {
    char *name;
    cuzk_wtns wt;
};

struct cuzk_proof {
    cuzk_proof_points pts;
    uint32_t n_public;
    void *pub;            /* n_public raw Fr values */
};

/* Host bytes of the zkey's arrays that are not in its file mapping, plus the mapping. */
static uint64_t zkey_host_bytes(const cuzk_zkey *zk)
{
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(zk->curve);
    const uint8_t *m = zk->map;
    uint64_t total = zk->map_size;
    const struct {
        const void *p;
        uint64_t n;
    } arr[] = {
        {zk->ic.ptr, ((uint64_t)zk->n_public + 1) * cp->g1_affine},
        {zk->a.ptr, (uint64_t)zk->n_vars * cp->g1_affine},
        {zk->b1.ptr, (uint64_t)zk->n_vars * cp->g1_affine},
        {zk->b2.ptr, (uint64_t)zk->n_vars * cp->g2_affine},
        {zk->c.ptr, ((uint64_t)zk->n_vars - zk->n_public - 1) * cp->g1_affine},
        {zk->h.ptr, (uint64_t)zk->domain_size * cp->g1_affine},
        {zk->coef_matrix, zk->n_coefs * 4},
        {zk->coef_constraint, zk->n_coefs * 4},
        {zk->coef_signal, zk->n_coefs * 4},
        {zk->coef_value.ptr, zk->n_coefs * cp->n8r},
    };
    for (size_t i = 0; i < CUZK_ARRAY_LEN(arr); i++) {
        const uint8_t *p = arr[i].p;
        if (p && !(m && p >= m && p < m + zk->map_size))
            total += arr[i].n;
    }
    return total;
}

/* A key whose file was truncated under its mapping (formats/map_guard.h). */
static cuzk_status map_lost(const cuzk_key *key, cuzk_error *err)
{
    return cuzk_err_force(err, CUZK_ERR_IO,
                          "%s: the key file was truncated while the key was loaded (its mapping lost pages); "
                          "load the key again",
                          key->name);
}

static const cuzk_progress_step KEY_PLAN[] = {
    {CUZK_PHASE_LOAD_KEY, 0.00, 0.80}, {CUZK_PHASE_PREPARE, 0.80, 1.00}, {0, 0, 0}};

/* Share of a typical proof's time per phase (CPU, BN254, 2^16..2^20). */
static const cuzk_progress_step PROVE_PLAN[] = {
    {CUZK_PHASE_ABC, 0.00, 0.04},    {CUZK_PHASE_NTT, 0.04, 0.27},       {CUZK_PHASE_MSM_H, 0.27, 0.57},
    {CUZK_PHASE_MSM_A, 0.57, 0.65},  {CUZK_PHASE_MSM_B1, 0.65, 0.73},    {CUZK_PHASE_MSM_C, 0.73, 0.82},
    {CUZK_PHASE_MSM_B2, 0.82, 0.97}, {CUZK_PHASE_ASSEMBLE, 0.97, 0.98}, {CUZK_PHASE_VERIFY, 0.98, 1.00},
    {0, 0, 0}};

/* The whole of cuzk_prove_files. */
static const cuzk_progress_step PROVE_FILES_PLAN[] = {
    {CUZK_PHASE_LOAD_KEY, 0.00, 0.10}, {CUZK_PHASE_PREPARE, 0.10, 0.12}, {CUZK_PHASE_LOAD_WITNESS, 0.12, 0.13},
    {CUZK_PHASE_ABC, 0.13, 0.16},      {CUZK_PHASE_NTT, 0.16, 0.36},     {CUZK_PHASE_MSM_H, 0.36, 0.62},
    {CUZK_PHASE_MSM_A, 0.62, 0.69},    {CUZK_PHASE_MSM_B1, 0.69, 0.76},  {CUZK_PHASE_MSM_C, 0.76, 0.84},
    {CUZK_PHASE_MSM_B2, 0.84, 0.97},   {CUZK_PHASE_ASSEMBLE, 0.97, 0.98}, {CUZK_PHASE_VERIFY, 0.98, 0.99},
    {CUZK_PHASE_WRITE, 0.99, 1.00},    {0, 0, 0}};

/* Sets plan for an operation unless an enclosing one has set its own;
 * returns whether it did (then the caller clears it at the end). */
static bool plan_begin(cuzk_ctx *ctx, const cuzk_progress_step *plan)
{
    if (ctx->plan)
        return false;
    cuzk_progress_plan(ctx, plan);
    return true;
}

void cuzk_key_free(cuzk_key *key)
{
    if (!key)
        return;
    if (key->state)
        key->be->key_detach(key->state);
    cuzk_vk_free(&key->vk);
    cuzk_zkey_free(&key->zk);
    free(key->name);
    free(key);
}

/* Attaches the key to the backend the options ask for. AUTO takes the GPU
 * when this build has one and it accepts the key, else the CPU. */
static cuzk_status key_attach(cuzk_key *key, cuzk_ctx *ctx, const cuzk_key_opts *o, uint64_t *host_bytes,
                              uint64_t *device_bytes, cuzk_error *err)
{
    const cuzk_g16_backend *gpu = cuzk_g16_backend_gpu();
    if (o->backend == CUZK_BACKEND_GPU && !gpu)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: this libcuzk has no GPU prover", key->name);
    if (o->backend != CUZK_BACKEND_CPU && gpu) {
        cuzk_error gerr = {0};
        key->be = gpu;
        cuzk_status st = gpu->key_attach(gpu, ctx, &key->zk, key->ops, o, &key->state, host_bytes, device_bytes,
                                         o->backend == CUZK_BACKEND_GPU ? err : &gerr);
        if (st == CUZK_OK || o->backend == CUZK_BACKEND_GPU || st == CUZK_ERR_CANCELLED) {
            if (st && err && !err->code)
                *err = gerr;
            return st;
        }
        key->state = NULL;
    }
    key->be = cuzk_g16_backend_cpu();
    return key->be->key_attach(key->be, ctx, &key->zk, key->ops, o, &key->state, host_bytes, device_bytes, err);
}

/* Shared by the ways to a key: zk is read (owned by key), now check and prepare. */
static cuzk_status key_finish(cuzk_key *key, cuzk_ctx *ctx, const cuzk_key_opts *o, cuzk_error *err)
{
    cuzk_zkey *zk = &key->zk;
    if ((unsigned)o->backend > CUZK_BACKEND_AUTO)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: unknown backend %d", key->name, (int)o->backend);
    key->ops = cuzk_curve_ops_get(zk->curve);
    if (!key->ops)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: unsupported curve", key->name);
    const cuzk_curve_desc *d = key->ops->desc;
    if (zk->log_domain >= d->fr_two_adicity)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED,
                        "%s: domain size 2^%u equals the 2-adicity of the %s scalar field; "
                        "this domain needs snarkjs's shift-25 coset, which cuzk does not support",
                        key->name, zk->log_domain, d->snarkjs_name);
    cuzk_status st;
    if ((st = cuzk_vk_from_zkey(&key->vk, zk, err)) || (st = cuzk_g16_vk_prepare(key->ops, &key->vk, err)))
        return st;
    if ((st = cuzk_check_cancel(ctx, err)))
        return st;
    uint64_t host = 0, device = 0;
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_PREPARE);
    st = key_attach(key, ctx, o, &host, &device, err);
    if (st)
        return st;
    cuzk_phase_end(ctx, &ph);
    cuzk_key_info *in = &key->info;
    in->curve = zk->curve;
    in->backend = key->be->kind;
    in->n_vars = zk->n_vars;
    in->n_public = zk->n_public;
    in->log_domain = zk->log_domain;
    in->n_coefs = zk->n_coefs;
    in->host_bytes = zkey_host_bytes(zk) + host + sizeof *key;
    in->device_bytes = device;
    if (key->be->plan_info)
        key->be->plan_info(key->state, &in->gpu_tier, &in->gpu_workers, &in->host_plan);
    return CUZK_OK;
}

/* A key from the zkey file at path, from size bytes at data, or (adopt not
 * NULL) from a zkey already read, which the key takes over (freed on error). */
static cuzk_status key_load(cuzk_key **out, cuzk_ctx *ctx, const char *path, const void *data, size_t size,
                            cuzk_zkey *adopt, const char *name, const cuzk_key_opts *opts, cuzk_error *err)
{
    *out = NULL;
    cuzk_key_opts o = {0};
    if (opts)
        o = *opts;
    cuzk_key *key = calloc(1, sizeof *key);
    if (!key || !(key->name = strdup(path ? path : name ? name : "zkey"))) {
        free(key);
        if (adopt) {
            cuzk_zkey_free(adopt);
            return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory preparing %s", name);
        }
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory loading %s", path ? path : "a key");
    }
    bool own = plan_begin(ctx, KEY_PLAN);
    cuzk_status st = CUZK_OK;
    if (adopt) {
        key->zk = *adopt;
        memset(adopt, 0, sizeof *adopt);
    } else {
        cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_LOAD_KEY);
        /* A copy by default (a daemon keeps keys for hours: a file truncated
         * under a mapping would kill it); in place on request. */
        cuzk_zkey_read_opts ro = {.pool = ctx->pool, .coefs_in_place = o.map_in_place != 0,
                                  .copy_points = !o.map_in_place};
        st = path ? cuzk_zkey_read(&key->zk, path, &ro, err)
                  : cuzk_zkey_read_buffer(&key->zk, data, size, key->name, &ro, err);
        cuzk_phase_end(ctx, &ph);
    }
    if (!st)
        st = key_finish(key, ctx, &o, err);
    if (!st && cuzk_zkey_map_lost(&key->zk))
        st = map_lost(key, err);
    if (own)
        cuzk_progress_plan(ctx, NULL);
    if (st) {
        cuzk_key_free(key);
        return st;
    }
    *out = key;
    return CUZK_OK;
}

cuzk_status cuzk_key_load(cuzk_key **out, cuzk_ctx *ctx, const char *zkey_path, const cuzk_key_opts *opts,
                          cuzk_error *err)
{
    const char *was = cuzk_ctx_set_subject(ctx, zkey_path);
    cuzk_status st = key_load(out, ctx, zkey_path, NULL, 0, NULL, NULL, opts, err);
    cuzk_ctx_set_subject(ctx, was);
    return cuzk_err_name(err, st, zkey_path, NULL);
}

cuzk_status cuzk_key_load_buffer(cuzk_key **out, cuzk_ctx *ctx, const void *data, size_t size,
                                 const char *name, const cuzk_key_opts *opts, cuzk_error *err)
{
    const char *was = cuzk_ctx_set_subject(ctx, name ? name : "zkey");
    cuzk_status st = key_load(out, ctx, NULL, data, size, NULL, name, opts, err);
    cuzk_ctx_set_subject(ctx, was);
    return cuzk_err_name(err, st, name, NULL);
}

void cuzk_key_get_info(const cuzk_key *key, cuzk_key_info *info)
{
    *info = key->info;
    if (key->be->device_peak)
        info->device_peak = key->be->device_peak(key->state);
}

cuzk_status cuzk_key_adopt(cuzk_key **out, cuzk_ctx *ctx, cuzk_zkey *zk, const char *name, const cuzk_key_opts *opts,
                           cuzk_error *err)
{
    return key_load(out, ctx, NULL, NULL, 0, zk, name, opts, err);
}

/* A witness from the wtns file at path, from size bytes at data, or (adopt
 * not NULL) from a wtns already read, which the witness takes over (freed on
 * error). */
static cuzk_status witness_load(cuzk_witness **out, const char *path, const void *data, size_t size,
                                cuzk_wtns *adopt, const char *name, cuzk_error *err)
{
    *out = NULL;
    cuzk_witness *w = calloc(1, sizeof *w);
    if (!w || !(w->name = strdup(path ? path : name ? name : "witness"))) {
        free(w);
        if (adopt) {
            cuzk_wtns_free(adopt);
            return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for %s", name);
        }
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory loading %s", path ? path : "a witness");
    }
    cuzk_status st = CUZK_OK;
    if (adopt) {
        w->wt = *adopt;
        memset(adopt, 0, sizeof *adopt);
    } else {
        st = path ? cuzk_wtns_read(&w->wt, path, err) : cuzk_wtns_read_buffer(&w->wt, data, size, w->name, err);
    }
    if (st) {
        cuzk_witness_free(w);
        return st;
    }
    *out = w;
    return CUZK_OK;
}

cuzk_status cuzk_witness_load(cuzk_witness **out, const char *wtns_path, cuzk_error *err)
{
    return witness_load(out, wtns_path, NULL, 0, NULL, NULL, err);
}

cuzk_status cuzk_witness_load_buffer(cuzk_witness **out, const void *data, size_t size, const char *name,
                                     cuzk_error *err)
{
    return witness_load(out, NULL, data, size, NULL, name, err);
}

cuzk_status cuzk_witness_adopt(cuzk_witness **out, cuzk_wtns *wt, const char *name, cuzk_error *err)
{
    return witness_load(out, NULL, NULL, 0, wt, name, err);
}

void cuzk_witness_free(cuzk_witness *w)
{
    if (!w)
        return;
    cuzk_wtns_free(&w->wt);
    free(w->name);
    free(w);
}

uint32_t cuzk_witness_count(const cuzk_witness *w) { return w->wt.n_witness; }
cuzk_curve cuzk_witness_curve(const cuzk_witness *w) { return w->wt.curve; }

/* A raw scalar given as n8 little-endian bytes is < r. */
static bool scalar_below_r(const uint8_t *le, const cuzk_curve_desc *cp)
{
    for (size_t i = cp->n8r; i-- > 0;) {
        uint8_t m = (uint8_t)(cp->r[i / 8] >> (8 * (i % 8)));
        if (le[i] != m)
            return le[i] < m;
    }
    return false;
}

static cuzk_status prove_run(cuzk_ctx *ctx, const cuzk_key *key, const cuzk_witness *w, const cuzk_prove_opts *opts,
                             cuzk_proof **out, cuzk_error *err);

cuzk_status cuzk_prove(cuzk_ctx *ctx, const cuzk_key *key, const cuzk_witness *w, const cuzk_prove_opts *opts,
                       cuzk_proof **out, cuzk_error *err)
{
    const char *was = cuzk_ctx_set_subject(ctx, w->name);
    cuzk_status st = prove_run(ctx, key, w, opts, out, err);
    cuzk_ctx_set_subject(ctx, was);
    return cuzk_err_name(err, st, w->name, key->name);
}

static cuzk_status prove_run(cuzk_ctx *ctx, const cuzk_key *key, const cuzk_witness *w, const cuzk_prove_opts *opts,
                             cuzk_proof **out, cuzk_error *err)
{
    *out = NULL;
    cuzk_prove_opts o = {0};
    if (opts)
        o = *opts;
    const cuzk_zkey *zk = &key->zk;
    const cuzk_curve_desc *cp = key->ops->desc;
    cuzk_status st = cuzk_zkey_check_wtns(zk, &w->wt, w->name, err);
    if (st)
        return st;
    if (cuzk_zkey_map_lost(zk))
        return map_lost(key, err);
    if (!o.insecure_r != !o.insecure_s)
        return cuzk_err(err, CUZK_ERR_USAGE, "insecure_r and insecure_s must be given together");
    if (o.insecure_r && (!scalar_below_r(o.insecure_r, cp) || !scalar_below_r(o.insecure_s, cp)))
        return cuzk_err(err, CUZK_ERR_USAGE, "insecure_r / insecure_s must be below the %s scalar field order",
                        cp->snarkjs_name);
    static const uint8_t zero[64];
    const uint8_t *r = o.insecure_r, *s = o.insecure_s;
    if (o.insecure_zero_rs)
        r = s = zero;
    if ((st = cuzk_check_cancel(ctx, err)))
        return st;

    cuzk_proof *p = calloc(1, sizeof *p);
    if (!p || !(p->pub = malloc((size_t)zk->n_public * cp->n8r + 1))) {
        free(p);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for a proof");
    }
    /* Public signals are w[1..nPublic]. */
    p->n_public = zk->n_public;
    memcpy(p->pub, (const uint8_t *)w->wt.values.ptr + cp->n8r, (size_t)zk->n_public * cp->n8r);

    bool own = plan_begin(ctx, PROVE_PLAN);
    cuzk_g16_ic_job ic = {.ops = key->ops, .vk = &key->vk, .pub = p->pub};
    st = cuzk_g16_prove(ctx, key->be, key->state, zk, key->ops, w->wt.values.ptr, r, s,
                        o.no_verify ? NULL : cuzk_g16_ic_run, &ic, &p->pts, err);
    if (cuzk_zkey_map_lost(zk)) /* the file shrank under the mapping: what was read is zeros */
        st = map_lost(key, err);
    if (!st && !o.no_verify && (st = cuzk_g16_verify_made(ctx, &ic, &p->pts, err)) == CUZK_ERR_INVALID_PROOF)
        st = cuzk_err(err, CUZK_ERR_MISMATCH,
                      "%s: the proof fails verification: the witness does not satisfy the circuit "
                      "of %s, or the key's proving sections are corrupt (its points are all on the "
                      "curve, which is all a key can be checked for)",
                      w->name, key->name);
    if (own)
        cuzk_progress_plan(ctx, NULL);
    if (st) {
        cuzk_proof_free(p);
        return st;
    }
    *out = p;
    return CUZK_OK;
}

void cuzk_proof_free(cuzk_proof *p)
{
    if (!p)
        return;
    free(p->pub);
    free(p);
}

cuzk_curve cuzk_proof_curve(const cuzk_proof *p) { return p->pts.curve; }

static cuzk_status check_style(cuzk_json_style style, cuzk_error *err)
{
    if (style != CUZK_JSON_SNARKJS && style != CUZK_JSON_RAPIDSNARK)
        return cuzk_err(err, CUZK_ERR_USAGE, "unknown JSON style %d", (int)style);
    return CUZK_OK;
}

cuzk_status cuzk_proof_to_json(const cuzk_proof *p, cuzk_json_style style, char **out, size_t *len,
                               cuzk_error *err)
{
    cuzk_status st = check_style(style, err);
    return st ? st : cuzk_proof_points_to_json(&p->pts, (int)style, out, len, err);
}

cuzk_status cuzk_proof_public_json(const cuzk_proof *p, cuzk_json_style style, char **out, size_t *len,
                                   cuzk_error *err)
{
    cuzk_status st = check_style(style, err);
    return st ? st : cuzk_public_to_json(p->pts.curve, p->pub, p->n_public, (int)style, out, len, err);
}

/* ---- binary proof encodings ------------------------------------------------ */

/* n limbs (raw, little-endian limb order) as 8n big-endian bytes. */
static void limbs_to_be(uint8_t *out, const uint64_t *raw, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned b = 0; b < 8; b++)
            out[8 * i + b] = (uint8_t)(raw[n - 1 - i] >> (56 - 8 * b));
}

/* An Fq element (Montgomery) as big-endian bytes of its value; returns whether
 * the value is the larger of y, q − y (zcash's sign bit; false for 0). */
static bool fq_put_be(uint8_t *out, const cuzk_curve_ops *ops, const void *mont)
{
    const cuzk_curve_desc *d = ops->desc;
    const unsigned n = d->fq_limbs;
    uint64_t y[CUZK_MAX_FQ_LIMBS], ny[CUZK_MAX_FQ_LIMBS];
    ops->fq_from_mont(y, mont);
    limbs_to_be(out, y, n);
    uint64_t borrow = 0, any = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned __int128 t = (unsigned __int128)d->q[i] - y[i] - borrow;
        ny[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 64) & 1;
        any |= y[i];
    }
    for (unsigned i = n; any && i-- > 0;)
        if (y[i] != ny[i])
            return y[i] > ny[i];
    return false;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* zcash compressed point: x (G2: x.c1 then x.c0), flags in the first byte. */
static void put_compressed(uint8_t *out, const cuzk_curve_ops *ops, const uint8_t *pt, bool g2)
{
    const size_t fq = ops->desc->n8q, coords = g2 ? 2 : 1;
    uint8_t scratch[CUZK_MAX_FQ_LIMBS * 8];
    if (all_zero(pt, 2 * coords * fq)) { /* infinity */
        memset(out, 0, coords * fq);
        out[0] = 0xc0;
        return;
    }
    bool larger;
    if (g2) {
        fq_put_be(out, ops, pt + fq);
        fq_put_be(out + fq, ops, pt);
        /* Fp2 order: c1 first, c0 when c1 = 0. */
        bool c1_zero = all_zero(pt + 3 * fq, fq);
        larger = fq_put_be(scratch, ops, pt + (c1_zero ? 2 : 3) * fq);
    } else {
        fq_put_be(out, ops, pt);
        larger = fq_put_be(scratch, ops, pt + fq);
    }
    out[0] |= 0x80 | (larger ? 0x20 : 0);
}

cuzk_status cuzk_proof_to_bytes(const cuzk_proof *p, uint8_t *buf, size_t cap, size_t *len, cuzk_error *err)
{
    const cuzk_curve_ops *ops = cuzk_curve_ops_get(p->pts.curve);
    const size_t fq = ops->desc->n8q;
    const uint8_t *a = (const uint8_t *)&p->pts.a, *b = (const uint8_t *)&p->pts.b, *c = (const uint8_t *)&p->pts.c;
    const bool zcash = ops->desc->proof_encoding == CUZK_PROOF_ENC_ZCASH_COMPRESSED;
    size_t need = (zcash ? 4 : 8) * fq;
    *len = need;
    if (cap < need)
        return cuzk_err(err, CUZK_ERR_USAGE, "a %s proof needs %zu bytes, the buffer has %zu",
                        ops->desc->snarkjs_name, need, cap);
    if (zcash) {
        put_compressed(buf, ops, a, false);
        put_compressed(buf + fq, ops, b, true);
        put_compressed(buf + 3 * fq, ops, c, false);
    } else { /* A.x A.y, B.x.c1 B.x.c0 B.y.c1 B.y.c0, C.x C.y */
        static const unsigned order[8][2] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {1, 3}, {1, 2}, {2, 0}, {2, 1}};
        const uint8_t *pts[3] = {a, b, c};
        for (int i = 0; i < 8; i++)
            fq_put_be(buf + i * fq, ops, pts[order[i][0]] + order[i][1] * fq);
    }
    return CUZK_OK;
}

/* Serialises p into the two outputs of an output set and commits them. */
static cuzk_status proof_commit(const cuzk_proof *p, cuzk_oset *os, cuzk_afile *fp, cuzk_afile *fpub,
                                cuzk_json_style style, cuzk_error *err)
{
    char *proof_json = NULL, *public_json = NULL;
    size_t proof_len = 0, public_len = 0;
    cuzk_status st;
    if (!(st = cuzk_proof_to_json(p, style, &proof_json, &proof_len, err)) &&
        !(st = cuzk_proof_public_json(p, style, &public_json, &public_len, err)) &&
        !(st = cuzk_oset_open(os, err))) {
        cuzk_afile_write(fp, proof_json, proof_len);
        cuzk_afile_write(fpub, public_json, public_len);
        st = cuzk_oset_commit(os, err);
    }
    free(proof_json);
    free(public_json);
    return st;
}

cuzk_status cuzk_proof_write_files(const cuzk_proof *p, const char *proof_path, const char *public_path,
                                   cuzk_json_style style, cuzk_error *err)
{
    cuzk_oset os;
    cuzk_afile *fp = NULL, *fpub = NULL;
    cuzk_oset_init(&os, NULL, NULL);
    cuzk_status st;
    if (!(st = cuzk_oset_output(&os, proof_path, &fp, err)) &&
        !(st = cuzk_oset_output(&os, public_path, &fpub, err)))
        st = proof_commit(p, &os, fp, fpub, style, err);
    cuzk_oset_abort(&os);
    return st;
}

cuzk_status cuzk_prove_files(cuzk_ctx *ctx, const char *zkey_path, const char *wtns_path,
                             const char *proof_path, const char *public_path,
                             const cuzk_prove_opts *opts, cuzk_error *err)
{
    cuzk_key *key = NULL;
    cuzk_witness *w = NULL;
    cuzk_proof *p = NULL;
    cuzk_oset os;
    cuzk_afile *fp = NULL, *fpub = NULL;
    cuzk_oset_init(&os, ctx->opts.cancelled, ctx->opts.user);
    bool own = plan_begin(ctx, PROVE_FILES_PLAN);
    /* Outputs are checked before the work (an input or a directory given as
     * an output fails at once). */
    cuzk_status st;
    if ((st = cuzk_oset_input(&os, zkey_path, err)) || (st = cuzk_oset_input(&os, wtns_path, err)) ||
        (st = cuzk_oset_output(&os, proof_path, &fp, err)) ||
        (st = cuzk_oset_output(&os, public_path, &fpub, err)))
        goto out;
    cuzk_key_opts ko = {.map_in_place = opts && opts->map_key_in_place};
    if ((st = cuzk_key_load(&key, ctx, zkey_path, &ko, err)))
        goto out;
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_LOAD_WITNESS);
    st = cuzk_witness_load(&w, wtns_path, err);
    cuzk_phase_end(ctx, &ph);
    if (st || (st = cuzk_prove(ctx, key, w, opts, &p, err)))
        goto out;
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_WRITE);
    st = proof_commit(p, &os, fp, fpub, opts && opts->rapidsnark_json ? CUZK_JSON_RAPIDSNARK : CUZK_JSON_SNARKJS,
                      err);
    if (!st)
        cuzk_phase_end(ctx, &ph);
out:
    cuzk_oset_abort(&os);
    if (own)
        cuzk_progress_plan(ctx, NULL);
    cuzk_proof_free(p);
    cuzk_witness_free(w);
    cuzk_key_free(key);
    return st;
}

cuzk_status cuzk_verify_files(cuzk_ctx *ctx, const char *vk_path, const char *public_path,
                              const char *proof_path, cuzk_error *err)
{
    cuzk_vk vk = {0};
    cuzk_public pub = {0};
    cuzk_proof_points proof = {0};
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_LOAD);
    cuzk_status st = cuzk_vk_read_json(&vk, vk_path, err);
    /* The count first, streamed: too many signals is "inputs disagree" at
     * once, not the memory of reading them all. */
    size_t count = SIZE_MAX;
    if (!st)
        st = cuzk_public_count_json(public_path, &count, err);
    if (!st && count != SIZE_MAX && count != vk.n_public)
        st = cuzk_err(err, CUZK_ERR_MISMATCH, "%s: %zu public signals, but %s expects %u", public_path, count,
                      vk_path, vk.n_public);
    if (!st)
        st = cuzk_public_read_json(&pub, public_path, vk.curve, err);
    if (!st)
        st = cuzk_proof_points_read_json(&proof, proof_path, vk.curve, err);
    cuzk_phase_end(ctx, &ph);
    if (!st && pub.n != vk.n_public)
        st = cuzk_err(err, CUZK_ERR_MISMATCH, "%s: %u public signals, but %s expects %u", public_path,
                      pub.n, vk_path, vk.n_public);
    if (!st) {
        ph = cuzk_phase_begin(ctx, CUZK_PHASE_PAIRING);
        const cuzk_curve_ops *ops = cuzk_curve_ops_get(vk.curve);
        st = ops ? cuzk_g16_verify(ops, &vk, pub.values.ptr, &proof, ctx->pool, err)
                 : cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: unsupported curve", vk_path);
        if (st == CUZK_ERR_INVALID_PROOF) /* the message names the proof */
            st = cuzk_err_force(err, st, "%s: invalid proof: the pairing check failed", proof_path);
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
    cuzk_oset_init(&os, ctx->opts.cancelled, ctx->opts.user);
    cuzk_status st = cuzk_oset_input(&os, zkey_path, err);
    if (!st)
        st = cuzk_oset_output(&os, vk_path, &fo, err);
    if (!st) {
        cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_LOAD_KEY);
        cuzk_zkey_read_opts ro = {.pool = ctx->pool, .header_only = true};
        st = cuzk_zkey_read(&zk, zkey_path, &ro, err);
        cuzk_phase_end(ctx, &ph);
    }
    if (!st)
        st = cuzk_vk_from_zkey(&vk, &zk, err);
    if (!st) {
        cuzk_g16_fill_alphabeta(cuzk_curve_ops_get(vk.curve), &vk);
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
