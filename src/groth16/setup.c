/* `cuzk setup`: INSECURE development trusted setup (see setup_impl.h).
 *
 * !!! INSECURE: the toxic waste is drawn and used inside this process; whoever
 * !!! can read its memory (or a core dump) can forge proofs. Tests and
 * !!! benchmarks only.
 *
 * Reads an r1cs of either curve, builds the whole key in memory and writes it
 * through the output writer (temporary file + rename), so a failure leaves no
 * partial file. */
#include <stdio.h>
#include <string.h>

#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "curve/curves.h"
#include "formats/formats.h"
#include "groth16/ctx.h"
#include "groth16/porep.h"
#include "groth16/setup.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/common.h"

/* memset that the optimiser may not drop (the buffers die right after). */
static void setup_wipe(void *p, size_t n)
{
    volatile unsigned char *q = p;
    while (n--)
        *q++ = 0;
}

/* The PoRep-shaped circuit (porep_impl.h): rows per chunk, and the recent
 * bit / field wires a row picks its operands from. */
enum { POREP_CHUNK = CUZK_POREP_CHUNK_ROWS, POREP_RING = 64, POREP_FRING = 16 };
/* Its passes over the chunks: count the terms, make the key, make the r1cs. */
enum { POREP_COUNT, POREP_KEY, POREP_R1CS };

#define SETUP_CURVE bn254
#include "groth16/setup_impl.h"
#define POREP_CURVE bn254
#include "groth16/porep_impl.h"

#define SETUP_CURVE bls12_381
#include "groth16/setup_impl.h"
#define POREP_CURVE bls12_381
#include "groth16/porep_impl.h"
#include "groth16/insecure.h"

/* The chunk generator of porep.h (BLS12-381). */
struct cuzk_porep_gen {
    cuzk_porep_shape s;
    bls12_381_po_shared sh;
    int workers;
    bls12_381_po_rows *rows;
};

void cuzk_porep_gen_free(cuzk_porep_gen *g)
{
    if (!g)
        return;
    for (int i = 0; g->rows && i < g->workers; i++)
        bls12_381_po_rows_free(&g->rows[i]);
    cuzk_free(g->rows);
    cuzk_free(g->sh.pub);
    cuzk_free(g);
}

cuzk_status cuzk_porep_gen_create(cuzk_porep_gen **out, const cuzk_porep_shape *s, uint64_t seed, int workers,
                                  cuzk_error *err)
{
    *out = NULL;
    if (s->curve != CUZK_CURVE_BLS12_381)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "porep: the chunk generator is BLS12-381 only");
    cuzk_porep_gen *g = cuzk_calloc(1, sizeof *g);
    if (!g)
        return cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory");
    g->s = *s;
    g->workers = workers < 1 ? 1 : workers;
    cuzk_status st = bls12_381_po_shared_init(&g->sh, &g->s, seed, err);
    if (!st && !(g->rows = cuzk_calloc((size_t)g->workers, sizeof *g->rows)))
        st = cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory");
    for (int i = 0; !st && i < g->workers; i++)
        if (!bls12_381_po_rows_alloc(&g->rows[i]))
            st = cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory");
    if (st) {
        cuzk_porep_gen_free(g);
        return st;
    }
    *out = g;
    return CUZK_OK;
}

uint64_t cuzk_porep_gen_chunks(const cuzk_porep_gen *g) { return (g->s.m + POREP_CHUNK - 1) / POREP_CHUNK; }

const void *cuzk_porep_gen_public(const cuzk_porep_gen *g) { return g->sh.pub; }

void cuzk_porep_gen_chunk(cuzk_porep_gen *g, uint64_t q, int worker, cuzk_porep_rows_view *v)
{
    bls12_381_po_rows *o = &g->rows[worker];
    bls12_381_po_chunk(&g->sh, q, o);
    v->rows = o->rows;
    v->nw = o->nw;
    v->row0 = o->row0;
    v->wire0 = o->wire0;
    for (int t = 0; t < 3; t++) {
        v->off[t] = o->off[t];
        v->wire[t] = o->wire[t];
        v->coef[t] = o->coef[t];
    }
    v->val = o->val;
}

/* The instantiations above, by curve (curve/curves.h). */
typedef struct setup_curve {
    cuzk_status (*build)(cuzk_ctx *, const cuzk_r1cs *, const cuzk_setup_toxic *, int, cuzk_zkey *, cuzk_error *);
    cuzk_status (*porep)(cuzk_ctx *, const cuzk_porep_shape *, uint64_t, const cuzk_setup_toxic *, int, cuzk_zkey *,
                         cuzk_wtns *, cuzk_porep_info *, cuzk_error *);
    cuzk_status (*porep_r1cs)(cuzk_ctx *, const cuzk_porep_shape *, uint64_t, cuzk_r1cs *, cuzk_wtns *,
                              cuzk_error *);
} setup_curve;

#define SETUP_ENTRY(id, e) \
    static const setup_curve id##_setup_curve = {id##_setup_build_raw, id##_porep_build, id##_porep_r1cs};
CUZK_CURVES(SETUP_ENTRY)
#undef SETUP_ENTRY

/* NULL for an unsupported curve. */
static const setup_curve *setup_curve_get(cuzk_curve curve)
{
    switch (curve) {
#define SETUP_CASE(id, e) \
    case e: return &id##_setup_curve;
        CUZK_CURVES(SETUP_CASE)
#undef SETUP_CASE
    default: return NULL;
    }
}

cuzk_status cuzk_porep_shape_make(cuzk_porep_shape *s, cuzk_curve curve, unsigned log_domain, cuzk_error *err)
{
    memset(s, 0, sizeof *s);
    if (!setup_curve_get(curve))
        return cuzk_err(err, CUZK_ERR_USAGE, "porep: unsupported curve %d", (int)curve);
    if (log_domain < CUZK_POREP_MIN_LOG || log_domain > CUZK_POREP_FULL_LOG)
        return cuzk_err(err, CUZK_ERR_USAGE, "porep: the domain must be 2^%d..2^%d, got 2^%u", CUZK_POREP_MIN_LOG,
                        CUZK_POREP_FULL_LOG, log_domain);
    const unsigned sh = CUZK_POREP_FULL_LOG - log_domain;
    const uint64_t full_m = CUZK_POREP_FULL_ROWS - CUZK_POREP_FULL_PUBLIC - 1, half = ((uint64_t)1 << sh) >> 1;
    s->curve = curve;
    s->log_domain = log_domain;
    s->m = (full_m + half) >> sh;
    s->n_aux = (CUZK_POREP_FULL_AUX + half) >> sh;
    /* rows m + n_pub + 1 within the domain: fewer public signals when it is small */
    const uint64_t room = ((uint64_t)1 << log_domain) - 1 - s->m;
    s->n_pub = (uint32_t)CUZK_MIN((uint64_t)CUZK_POREP_FULL_PUBLIC, room);
    s->n_vars = 1 + (uint64_t)s->n_pub + s->n_aux;
    return CUZK_OK;
}

cuzk_status cuzk_porep_build(cuzk_ctx *ctx, const cuzk_porep_shape *s, uint64_t seed,
                             const cuzk_setup_toxic *toxic, int device, cuzk_zkey *zk, cuzk_wtns *wt,
                             cuzk_porep_info *info, cuzk_error *err)
{
    memset(zk, 0, sizeof *zk);
    memset(wt, 0, sizeof *wt);
    cuzk_porep_info tmp;
    const setup_curve *sc = setup_curve_get(s->curve);
    if (!sc)
        return cuzk_err(err, CUZK_ERR_USAGE, "porep: unsupported curve %d", (int)s->curve);
    return sc->porep(ctx, s, seed, toxic, device, zk, wt, info ? info : &tmp, err);
}

cuzk_status cuzk_porep_r1cs(cuzk_ctx *ctx, const cuzk_porep_shape *s, uint64_t seed, cuzk_r1cs *r,
                            cuzk_wtns *wt, cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    memset(wt, 0, sizeof *wt);
    const setup_curve *sc = setup_curve_get(s->curve);
    if (!sc)
        return cuzk_err(err, CUZK_ERR_USAGE, "porep: unsupported curve %d", (int)s->curve);
    return sc->porep_r1cs(ctx, s, seed, r, wt, err);
}

cuzk_status cuzk_setup_build_on(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_setup_toxic *toxic, int device,
                                cuzk_zkey *zk, cuzk_error *err)
{
    memset(zk, 0, sizeof *zk);
    const setup_curve *sc = setup_curve_get(r->curve);
    if (sc)
        return sc->build(ctx, r, toxic, device, zk, err);
    return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "setup: unsupported curve %d", (int)r->curve);
}

cuzk_status cuzk_setup_build(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_setup_toxic *toxic,
                             cuzk_zkey *zk, cuzk_error *err)
{
    return cuzk_setup_build_on(ctx, r, toxic, -1, zk, err);
}

static cuzk_status setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                               const cuzk_setup_toxic *toxic, int device, cuzk_error *err)
{
    if (!ctx || !r1cs_path || !zkey_path)
        return cuzk_err(err, CUZK_ERR_USAGE, "setup: missing argument");
    cuzk_r1cs r;
    cuzk_zkey zk;
    cuzk_oset os;
    cuzk_afile *fo = NULL;
    memset(&r, 0, sizeof r);
    memset(&zk, 0, sizeof zk);
    cuzk_oset_init(&os, ctx->opts.cancelled, ctx->opts.user);
    cuzk_status st = cuzk_oset_input(&os, r1cs_path, err);
    if (st || (st = cuzk_oset_output(&os, zkey_path, &fo, err)))
        goto out;
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_READ);
    if ((st = cuzk_r1cs_read(&r, r1cs_path, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_setup_build_on(ctx, &r, toxic, device, &zk, err))) {
        /* Messages from the build name no file: say which circuit. */
        if (err && strncmp(err->msg, r1cs_path, strlen(r1cs_path)) != 0) {
            char msg[CUZK_ERROR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            cuzk_err_force(err, st, "%s: %s", r1cs_path, msg);
        }
        goto out;
    }
    cuzk_r1cs_free(&r);
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_WRITE);
    if ((st = cuzk_oset_open(&os, err)) || (st = cuzk_zkey_write_to(&zk, fo, err)) ||
        (st = cuzk_oset_commit(&os, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
out:
    cuzk_oset_abort(&os);
    cuzk_r1cs_free(&r);
    cuzk_zkey_free(&zk);
    return st;
}

cuzk_status cuzk_setup_files_with_toxic(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                                        const cuzk_setup_toxic *toxic, cuzk_error *err)
{
    return setup_files(ctx, r1cs_path, zkey_path, toxic, -1, err);
}

cuzk_status cuzk_setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path, cuzk_error *err)
{
    return setup_files(ctx, r1cs_path, zkey_path, NULL, -1, err);
}

cuzk_status cuzk_setup_files_ex(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                                const cuzk_setup_opts *opts, cuzk_error *err)
{
    int device = opts && opts->gpu ? opts->device : -1;
    if (opts && opts->gpu && (device < 0 || device >= cuzk_gpu_device_count()))
        return cuzk_err(err, CUZK_ERR_GPU, "setup: no CUDA device %d for the key's points", opts->device);
    return setup_files(ctx, r1cs_path, zkey_path, NULL, device, err);
}
