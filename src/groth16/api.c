/* Groth16 API (include/cuzk/cuzk.h): the key, witness and proof handles,
 * cuzk_prove, and the file-level calls built on them. */
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

static cuzk_status verify_dispatch(const cuzk_vk *vk, cuzk_fr_vec pub, const cuzk_proof_points *p,
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

/* ---- handles ---------------------------------------------------------------- */

/* The per-curve prover behind a key. */
typedef struct g16_curve_prover {
    cuzk_status (*attach)(const cuzk_zkey *zk, cuzk_pool *pool, void **state, uint64_t *host_bytes,
                          cuzk_error *err);
    void (*detach)(void *state);
    cuzk_status (*prove)(cuzk_ctx *ctx, const void *state, const cuzk_wtns *wt, const uint8_t *r,
                         const uint8_t *s, cuzk_proof_points *out, cuzk_error *err);
} g16_curve_prover;

static const g16_curve_prover *curve_prover(cuzk_curve c)
{
    static const g16_curve_prover bn = {bn254_g16_key_attach, bn254_g16_key_detach, bn254_g16_prove_key};
    static const g16_curve_prover bls = {bls12_381_g16_key_attach, bls12_381_g16_key_detach,
                                         bls12_381_g16_prove_key};
    return c == CUZK_CURVE_BN254 ? &bn : c == CUZK_CURVE_BLS12_381 ? &bls : NULL;
}

struct cuzk_key {
    char *name;           /* path or caller's name, for messages */
    cuzk_zkey zk;
    cuzk_vk vk;           /* for the verification of each proof */
    const g16_curve_prover *prover;
    void *state;          /* the prover's prepared key */
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

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Host bytes of the zkey's arrays that are not in its file mapping, plus the mapping. */
static uint64_t zkey_host_bytes(const cuzk_zkey *zk)
{
    const cuzk_curve_params *cp = cuzk_curve_params_get(zk->curve);
    const uint8_t *m = zk->map;
    uint64_t total = zk->map_size;
    const struct {
        const void *p;
        uint64_t n;
    } arr[] = {
        {zk->ic.ptr, ((uint64_t)zk->n_public + 1) * cp->g1_size},
        {zk->a.ptr, (uint64_t)zk->n_vars * cp->g1_size},
        {zk->b1.ptr, (uint64_t)zk->n_vars * cp->g1_size},
        {zk->b2.ptr, (uint64_t)zk->n_vars * cp->g2_size},
        {zk->c.ptr, ((uint64_t)zk->n_vars - zk->n_public - 1) * cp->g1_size},
        {zk->h.ptr, (uint64_t)zk->domain_size * cp->g1_size},
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
    if (key->prover)
        key->prover->detach(key->state);
    cuzk_vk_free(&key->vk);
    cuzk_zkey_free(&key->zk);
    free(key->name);
    free(key);
}

/* Shared by the two loaders: zk is read (owned by key), now check and prepare. */
static cuzk_status key_finish(cuzk_key *key, cuzk_ctx *ctx, const cuzk_key_opts *o, cuzk_error *err)
{
    cuzk_zkey *zk = &key->zk;
    if (o->backend == CUZK_BACKEND_GPU)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: this libcuzk has no GPU prover", key->name);
    if ((unsigned)o->backend > CUZK_BACKEND_AUTO)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: unknown backend %d", key->name, (int)o->backend);
    if (zk->log_domain >= cuzk_curve_params_get(zk->curve)->fr_two_adicity)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED,
                        "%s: domain size 2^%u equals the 2-adicity of the %s scalar field; "
                        "this domain needs snarkjs's shift-25 coset, which cuzk does not support",
                        key->name, zk->log_domain, cuzk_curve_name(zk->curve));
    cuzk_status st;
    if ((st = cuzk_vk_from_zkey(&key->vk, zk, err)))
        return st;
    if ((st = cuzk_check_cancel(ctx, err)))
        return st;
    key->prover = curve_prover(zk->curve);
    if (!key->prover)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: unsupported curve", key->name);
    uint64_t prepared = 0;
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_PREPARE);
    st = key->prover->attach(zk, ctx->pool, &key->state, &prepared, err);
    cuzk_phase_end(ctx, &ph);
    if (st) {
        key->prover = NULL;
        return st;
    }
    cuzk_key_info *in = &key->info;
    in->curve = zk->curve;
    in->backend = CUZK_BACKEND_CPU;
    in->n_vars = zk->n_vars;
    in->n_public = zk->n_public;
    in->log_domain = zk->log_domain;
    in->n_coefs = zk->n_coefs;
    in->host_bytes = zkey_host_bytes(zk) + prepared + sizeof *key;
    in->device_bytes = 0;
    return CUZK_OK;
}

static cuzk_status key_load(cuzk_key **out, cuzk_ctx *ctx, const char *path, const void *data, size_t size,
                            const char *name, const cuzk_key_opts *opts, cuzk_error *err)
{
    *out = NULL;
    cuzk_key_opts o = {0};
    if (opts)
        o = *opts;
    cuzk_key *key = calloc(1, sizeof *key);
    if (!key || !(key->name = dup_str(path ? path : name ? name : "zkey"))) {
        free(key);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory loading %s", path ? path : "a key");
    }
    bool own = plan_begin(ctx, KEY_PLAN);
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_LOAD_KEY);
    /* The prover reads section 4 straight from the mapping. */
    cuzk_zkey_read_opts ro = {.pool = ctx->pool, .coefs_in_place = true};
    cuzk_status st = path ? cuzk_zkey_read(&key->zk, path, &ro, err)
                          : cuzk_zkey_read_buffer(&key->zk, data, size, key->name, &ro, err);
    cuzk_phase_end(ctx, &ph);
    if (!st)
        st = key_finish(key, ctx, &o, err);
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
    return key_load(out, ctx, zkey_path, NULL, 0, NULL, opts, err);
}

cuzk_status cuzk_key_load_buffer(cuzk_key **out, cuzk_ctx *ctx, const void *data, size_t size,
                                 const char *name, const cuzk_key_opts *opts, cuzk_error *err)
{
    return key_load(out, ctx, NULL, data, size, name, opts, err);
}

void cuzk_key_get_info(const cuzk_key *key, cuzk_key_info *info) { *info = key->info; }

static cuzk_status witness_load(cuzk_witness **out, const char *path, const void *data, size_t size,
                                const char *name, cuzk_error *err)
{
    *out = NULL;
    cuzk_witness *w = calloc(1, sizeof *w);
    if (!w || !(w->name = dup_str(path ? path : name ? name : "witness"))) {
        free(w);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory loading %s", path ? path : "a witness");
    }
    cuzk_status st = path ? cuzk_wtns_read(&w->wt, path, err)
                          : cuzk_wtns_read_buffer(&w->wt, data, size, w->name, err);
    if (st) {
        cuzk_witness_free(w);
        return st;
    }
    *out = w;
    return CUZK_OK;
}

cuzk_status cuzk_witness_load(cuzk_witness **out, const char *wtns_path, cuzk_error *err)
{
    return witness_load(out, wtns_path, NULL, 0, NULL, err);
}

cuzk_status cuzk_witness_load_buffer(cuzk_witness **out, const void *data, size_t size, const char *name,
                                     cuzk_error *err)
{
    return witness_load(out, NULL, data, size, name, err);
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
static bool scalar_below_r(const uint8_t *le, const cuzk_curve_params *cp)
{
    for (size_t i = cp->n8r; i-- > 0;) {
        uint8_t m = (uint8_t)(cp->r[i / 8] >> (8 * (i % 8)));
        if (le[i] != m)
            return le[i] < m;
    }
    return false;
}

cuzk_status cuzk_prove(cuzk_ctx *ctx, const cuzk_key *key, const cuzk_witness *w, const cuzk_prove_opts *opts,
                       cuzk_proof **out, cuzk_error *err)
{
    *out = NULL;
    cuzk_prove_opts o = {0};
    if (opts)
        o = *opts;
    const cuzk_zkey *zk = &key->zk;
    const cuzk_curve_params *cp = cuzk_curve_params_get(zk->curve);
    cuzk_status st = cuzk_zkey_check_wtns(zk, &w->wt, w->name, err);
    if (st)
        return st;
    if (!o.insecure_r != !o.insecure_s)
        return cuzk_err(err, CUZK_ERR_USAGE, "insecure_r and insecure_s must be given together");
    if (o.insecure_r && (!scalar_below_r(o.insecure_r, cp) || !scalar_below_r(o.insecure_s, cp)))
        return cuzk_err(err, CUZK_ERR_USAGE, "insecure_r / insecure_s must be below the %s scalar field order",
                        cp->name);
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
    st = key->prover->prove(ctx, key->state, &w->wt, r, s, &p->pts, err);
    if (!st && !o.no_verify) {
        cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_VERIFY);
        cuzk_fr_vec pub = {.ptr = p->pub};
        cuzk_error verr = {0};
        st = verify_dispatch(&key->vk, pub, &p->pts, &verr);
        cuzk_phase_end(ctx, &ph);
        if (st == CUZK_ERR_INVALID_PROOF)
            st = cuzk_err(err, CUZK_ERR_MISMATCH,
                          "%s: the witness does not satisfy the circuit of %s (the proof fails verification)",
                          w->name, key->name);
        else if (st)
            cuzk_err(err, verr.code, "%s", verr.msg);
    }
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

static int limbs_cmp(const uint64_t *a, const uint64_t *b, unsigned n)
{
    for (unsigned i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* y is the larger of y, -y (as integers): zcash's sign bit. */
static bool bls_fp_larger(const bls12_381_fp_t *y)
{
    bls12_381_fp_t ny, a, b;
    bls12_381_fp_neg(&ny, y);
    bls12_381_fp_from_mont(&a, y);
    bls12_381_fp_from_mont(&b, &ny);
    return limbs_cmp(a.l, b.l, 6) > 0;
}

static void bls_g1_compress(uint8_t out[48], const bls12_381_g1_affine_t *p)
{
    memset(out, 0, 48);
    if (bls12_381_fp_is_zero(&p->x) && bls12_381_fp_is_zero(&p->y)) {
        out[0] = 0xc0;
        return;
    }
    bls12_381_fp_t x;
    bls12_381_fp_from_mont(&x, &p->x);
    limbs_to_be(out, x.l, 6);
    out[0] |= 0x80 | (bls_fp_larger(&p->y) ? 0x20 : 0);
}

static void bls_g2_compress(uint8_t out[96], const bls12_381_g2_affine_t *p)
{
    memset(out, 0, 96);
    if (bls12_381_fp2_is_zero(&p->x) && bls12_381_fp2_is_zero(&p->y)) {
        out[0] = 0xc0;
        return;
    }
    bls12_381_fp_t x0, x1;
    bls12_381_fp_from_mont(&x0, &p->x.c0);
    bls12_381_fp_from_mont(&x1, &p->x.c1);
    limbs_to_be(out, x1.l, 6);
    limbs_to_be(out + 48, x0.l, 6);
    /* Fp2 order: c1 first, c0 when c1 = 0. */
    bool larger = bls12_381_fp_is_zero(&p->y.c1) ? bls_fp_larger(&p->y.c0) : bls_fp_larger(&p->y.c1);
    out[0] |= 0x80 | (larger ? 0x20 : 0);
}

static void bn_fp_be(uint8_t out[32], const bn254_fp_t *a)
{
    bn254_fp_t r;
    bn254_fp_from_mont(&r, a);
    limbs_to_be(out, r.l, 4);
}

cuzk_status cuzk_proof_to_bytes(const cuzk_proof *p, uint8_t *buf, size_t cap, size_t *len, cuzk_error *err)
{
    const cuzk_proof_points *pp = &p->pts;
    size_t need = pp->curve == CUZK_CURVE_BLS12_381 ? 192 : 256;
    *len = need;
    if (cap < need)
        return cuzk_err(err, CUZK_ERR_USAGE, "a %s proof needs %zu bytes, the buffer has %zu",
                        cuzk_curve_name(pp->curve), need, cap);
    if (pp->curve == CUZK_CURVE_BLS12_381) {
        bls_g1_compress(buf, &pp->a.bls12_381);
        bls_g2_compress(buf + 48, &pp->b.bls12_381);
        bls_g1_compress(buf + 144, &pp->c.bls12_381);
    } else {
        const bn254_g2_affine_t *b = &pp->b.bn254;
        bn_fp_be(buf, &pp->a.bn254.x);
        bn_fp_be(buf + 32, &pp->a.bn254.y);
        bn_fp_be(buf + 64, &b->x.c1);
        bn_fp_be(buf + 96, &b->x.c0);
        bn_fp_be(buf + 128, &b->y.c1);
        bn_fp_be(buf + 160, &b->y.c0);
        bn_fp_be(buf + 192, &pp->c.bn254.x);
        bn_fp_be(buf + 224, &pp->c.bn254.y);
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
    if ((st = cuzk_key_load(&key, ctx, zkey_path, NULL, err)))
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
