/* Bellperson mode, development: the PoRep-shaped circuit of porep_impl.h
 * (the measured shape of a Filecoin 32 GiB PoRep partition, scaled to a
 * domain 2^log_n) as INSECURE bellperson-layout parameters written as a
 * stream, and the assignment bellperson's synthesis would hand over for it
 * (include/cuzk/bellperson.h cuzk_bp_setup_porep, cuzk_bp_circuit_porep).
 *
 * !!! The setup's toxic waste is derived from the seed: anyone who knows the
 * !!! seed can forge proofs. Tests and benchmarks only.
 *
 * The circuit, as bellperson sees it: inputs ONE and the n_pub public
 * signals, aux the private wires in order; the rows of the chunks in order,
 * then one input constraint input_s · 0 = 0 per input (rows m .. m + n_pub).
 * The key is bp_setup.c's (bellperson's formulas, its domain
 * omega = 7^((r-1)/n)):
 *   L_i = Z(tau)/n · omega^i / (tau - omega^i)   (Lagrange basis at tau)
 *   u_j, v_j, w_j = sum_i a_ij L_i, b_ij L_i, c_ij L_i;  u_s += L_{m+s}
 *   A = u_j G1 (inputs, and aux with a density bit), B_G1/B_G2 = v_j G1/G2
 *   (variables with a density bit), IC = (beta u + alpha v + w)/gamma G1
 *   (inputs), L = the same / delta (aux), H_i = tau^i Z(tau)/delta G1.
 * A density bit is set where the variable occurs in a term of A (B) with a
 * non-zero coefficient (as the assignment's densities), so the sections'
 * counts are those the prover checks against the assignment.
 *
 * Streaming. A chunk of rows refers only to its own wires, ONE and the
 * public signals, so a chunk alone gives u, v, w of its wires. A first pass
 * over the chunks counts each chunk's A and B points and sums the inputs'
 * u, v, w (the verifying key's IC comes first in the file); then every
 * section is made in batches of chunks (at most batch_points points): the
 * scalars on the pool, the points by fixed-base multiplication (the GPU's
 * with opts.gpu, else the CPU's), encoded and written through the
 * params writer (a temporary file renamed at the end: no partial output).
 * The chunks are made again for each section (five passes over the circuit);
 * host memory holds one batch, not the key. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/bellperson.h"
#include "cuzk/gpu.h"
#include "curve/bls12_381.h"
#include "formats/bellperson.h"
#include "formats/formats.h"
#include "groth16/bp.h"
#include "groth16/bp_srs.h"
#include "groth16/ctx.h"
#include "groth16/gen_rng.h"
#include "groth16/porep.h"
#include "msm/msm.h"
#include "util/common.h"
#include "groth16/insecure.h"

typedef bls12_381_fr_t fr;

enum { BPP_DEFAULT_BATCH = 1 << 21 };

/* ---- the assignment ----------------------------------------------------------- */

typedef struct {
    cuzk_porep_gen *g;
    uint32_t P;                /* public signals */
    fr one;
    const fr *pub;
    fr *abc[3];                /* rows m + P + 1 each */
    fr *aux;                   /* n_aux */
    _Atomic uint64_t *da, *dbx; /* aux densities (A, B) */
    _Atomic uint64_t *dbi;      /* input density (B) */
    uint64_t ni;               /* 1 + P */
} bpa_job;

static void bpa_range(void *p, size_t lo, size_t hi, int worker)
{
    bpa_job *j = p;
    for (size_t q = lo; q < hi; q++) {
        cuzk_porep_rows_view v;
        cuzk_porep_gen_chunk(j->g, q, worker, &v);
        const fr *val = v.val;
        for (uint32_t k = 0; k < v.nw; k++)
            j->aux[v.wire0 - j->ni + k] = val[k];
        for (int t = 0; t < 3; t++) {
            const fr *coef = v.coef[t];
            for (uint32_t i = 0; i < v.rows; i++) {
                fr acc;
                bls12_381_fr_set_zero(&acc);
                for (uint32_t k = v.off[t][i]; k < v.off[t][i + 1]; k++) {
                    if (bls12_381_fr_is_zero(&coef[k]))
                        continue; /* bellperson counts a term in the density only with a non-zero coefficient */
                    const uint64_t w = v.wire[t][k];
                    const fr *x = w == 0 ? &j->one : w < j->ni ? &j->pub[w - 1] : &val[w - v.wire0];
                    fr y;
                    bls12_381_fr_mul(&y, &coef[k], x);
                    bls12_381_fr_add(&acc, &acc, &y);
                    if (t == 2)
                        continue;
                    if (w >= j->ni) {
                        const uint64_t a = w - j->ni;
                        atomic_fetch_or_explicit(&(t ? j->dbx : j->da)[a / 64], UINT64_C(1) << (a % 64),
                                                 memory_order_relaxed);
                    } else if (t == 1) {
                        atomic_fetch_or_explicit(&j->dbi[w / 64], UINT64_C(1) << (w % 64), memory_order_relaxed);
                    }
                }
                j->abc[t][v.row0 + i] = acc;
            }
        }
    }
}

cuzk_status cuzk_bp_circuit_porep(cuzk_bp_circuit **out, cuzk_ctx *ctx, unsigned log_domain, uint64_t seed,
                                  cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    if (!out || !ctx)
        return cuzk_err(err, CUZK_ERR_USAGE, "porep: missing argument");
    *out = NULL;
    cuzk_porep_shape s;
    cuzk_status st = cuzk_porep_shape_make(&s, CUZK_CURVE_BLS12_381, log_domain ? log_domain : CUZK_POREP_FULL_LOG,
                                           err);
    if (st)
        return st;
    const int T = cuzk_pool_size(ctx->pool);
    cuzk_porep_gen *g = NULL;
    if ((st = cuzk_porep_gen_create(&g, &s, seed, T, err)))
        return st;
    const uint64_t ni = 1 + (uint64_t)s.n_pub, nx = s.n_aux, rows = s.m + ni;
    const uint64_t wa = (nx + 63) / 64, wi = (ni + 63) / 64;
    cuzk_bp_circuit *c = cuzk_bp_circuit_alloc(s.m, ni, nx);
    if (!c) {
        cuzk_porep_gen_free(g);
        return cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory for the assignment (%.1f GiB)",
                        (double)(3 * rows + ni + nx) * 32 / (1u << 30));
    }
    bpa_job j;
    memset(&j, 0, sizeof j);
    j.g = g;
    j.P = s.n_pub;
    j.ni = ni;
    bls12_381_fr_set_one(&j.one);
    j.pub = cuzk_porep_gen_public(g);
    for (int t = 0; t < 3; t++)
        j.abc[t] = (fr *)(c->abc + t * rows);
    fr *vals = (fr *)c->vals;
    j.aux = vals + ni;
    uint64_t *da = c->dens, *dbi = c->dens + wa, *dbx = c->dens + wa + wi;
    j.da = (_Atomic uint64_t *)da;
    j.dbi = (_Atomic uint64_t *)dbi;
    j.dbx = (_Atomic uint64_t *)dbx;
    cuzk_parallel_for(ctx->pool, (size_t)cuzk_porep_gen_chunks(g), 1, bpa_range, &j);
    vals[0] = j.one;
    memcpy(vals + 1, j.pub, (size_t)s.n_pub * 32);
    cuzk_porep_gen_free(g);
    cuzk_bp_circuit_seal(c, s.m, ni, nx);
    *out = c;
    return CUZK_OK;
}

/* ---- the parameters --------------------------------------------------------------- */

/* A uniform non-zero scalar (Montgomery) from g. */
static void bpp_random(fr *mont, gen_rng *g)
{
    fr r;
    do {
        for (int i = 0; i < 4; i++)
            r.l[i] = gen_rng_next(g);
        r.l[3] &= (UINT64_C(1) << 63) - 1;
    } while (!bls12_381_fr_raw_is_canonical(&r) || bls12_381_fr_is_zero(&r));
    bls12_381_fr_to_mont(mont, &r);
}

static void bpp_wipe(void *p, size_t n)
{
    volatile unsigned char *q = p;
    while (n--)
        *q++ = 0;
}

void cuzk_bp_porep_toxic(cuzk_bp_toxic *t, uint64_t seed, unsigned log_n)
{
    gen_rng r;
    gen_rng_seed(&r, seed, UINT64_MAX - 1, 3);
    fr one, tn;
    bls12_381_fr_set_one(&one);
    do { /* tau^n != 1: tau outside the domain */
        bpp_random(&t->tau, &r);
        uint64_t e = UINT64_C(1) << log_n;
        bls12_381_fr_pow(&tn, &t->tau, &e, 1);
    } while (bls12_381_fr_eq(&tn, &one));
    bpp_random(&t->alpha, &r);
    bpp_random(&t->beta, &r);
    bpp_random(&t->gamma, &r);
    bpp_random(&t->delta, &r);
    bpp_wipe(&r, sizeof r);
}

typedef struct bpp_job {
    cuzk_ctx *ctx;
    cuzk_porep_gen *g;
    cuzk_porep_shape s;
    uint32_t P;
    uint64_t ni, nch;
    int T;
    /* toxic waste and what is derived from it (Montgomery) */
    fr tau, alpha, beta, gamma, delta, zt, scale, omega, gamma_inv, delta_inv, h0;
    /* per worker: CUZK_POREP_CHUNK_ROWS each of lag, scratch, u, v, w; flags of A / B density */
    fr *work;
    uint8_t *flags;
    fr *sums;                /* per worker: 3 x (P + 1) */
    uint8_t *b_inp;          /* per worker: P + 1 */
    /* per chunk: A and B points before it (aux), from the counting pass */
    uint64_t *pre_l, *pre_a, *pre_b;
    /* the current batch */
    int sec;                 /* CUZK_BP_L, _A, _B_G1 (G2 uses B's scalars) */
    uint64_t c0, base;       /* first chunk, the section's points before it */
    fr *sc;                  /* raw scalars of the batch */
} bpp_job;

static fr *bpp_w(const bpp_job *j, int worker, int k)
{
    return j->work + ((size_t)worker * 5 + (size_t)k) * CUZK_POREP_CHUNK_ROWS;
}

/* Lagrange values of the chunk's rows into lag; u, v, w of its wires (zeroed
 * first) and its ONE / public terms into sums (when not NULL); A and B flags
 * of its wires. */
static void bpp_chunk_uvw(const bpp_job *j, const cuzk_porep_rows_view *v, int worker, fr *sums, uint8_t *b_inp)
{
    fr *lag = bpp_w(j, worker, 0), *scr = bpp_w(j, worker, 1);
    fr *uvw[3] = {bpp_w(j, worker, 2), bpp_w(j, worker, 3), bpp_w(j, worker, 4)};
    uint8_t *fl = j->flags + (size_t)worker * CUZK_POREP_CHUNK_ROWS;
    fr x0, x;
    uint64_t e = v->row0;
    bls12_381_fr_pow(&x0, &j->omega, &e, 1);
    x = x0;
    for (uint32_t i = 0; i < v->rows; i++) {
        bls12_381_fr_sub(&lag[i], &j->tau, &x);
        bls12_381_fr_mul(&x, &x, &j->omega);
    }
    bls12_381_fr_batch_inv(lag, lag, v->rows, scr);
    x = x0;
    for (uint32_t i = 0; i < v->rows; i++) {
        fr t;
        bls12_381_fr_mul(&t, &x, &j->scale);
        bls12_381_fr_mul(&lag[i], &lag[i], &t);
        bls12_381_fr_mul(&x, &x, &j->omega);
    }
    for (int t = 0; t < 3; t++)
        memset(uvw[t], 0, (size_t)v->nw * sizeof(fr));
    memset(fl, 0, v->nw);
    for (int t = 0; t < 3; t++) {
        const fr *coef = v->coef[t];
        for (uint32_t i = 0; i < v->rows; i++)
            for (uint32_t k = v->off[t][i]; k < v->off[t][i + 1]; k++) {
                if (bls12_381_fr_is_zero(&coef[k]))
                    continue;
                const uint64_t w = v->wire[t][k];
                fr c;
                bls12_381_fr_mul(&c, &coef[k], &lag[i]);
                if (w < j->ni) {
                    if (sums)
                        bls12_381_fr_add(&sums[(size_t)t * j->ni + w], &sums[(size_t)t * j->ni + w], &c);
                    if (t == 1 && b_inp)
                        b_inp[w] = 1;
                } else {
                    const uint64_t l = w - v->wire0;
                    bls12_381_fr_add(&uvw[t][l], &uvw[t][l], &c);
                    if (t < 2)
                        fl[l] |= (uint8_t)(1u << t);
                }
            }
    }
}

/* The counting pass: per chunk its A and B points (pre_a / pre_b hold counts
 * until they are summed), input sums and B flags per worker. */
static void bpp_count_range(void *p, size_t lo, size_t hi, int worker)
{
    bpp_job *j = p;
    for (size_t q = j->c0 + lo; q < j->c0 + hi; q++) {
        cuzk_porep_rows_view v;
        cuzk_porep_gen_chunk(j->g, q, worker, &v);
        j->pre_l[q] = v.wire0 - j->ni;
        bpp_chunk_uvw(j, &v, worker, j->sums + (size_t)worker * 3 * j->ni, j->b_inp + (size_t)worker * j->ni);
        const uint8_t *fl = j->flags + (size_t)worker * CUZK_POREP_CHUNK_ROWS;
        uint64_t na = 0, nb = 0;
        for (uint32_t k = 0; k < v.nw; k++) {
            na += fl[k] & 1;
            nb += fl[k] >> 1;
        }
        j->pre_a[q] = na;
        j->pre_b[q] = nb;
    }
}

/* Raw scalars of the current section for chunks [c0 + lo, c0 + hi). */
static void bpp_scalar_range(void *p, size_t lo, size_t hi, int worker)
{
    bpp_job *j = p;
    for (size_t q = j->c0 + lo; q < j->c0 + hi; q++) {
        cuzk_porep_rows_view v;
        cuzk_porep_gen_chunk(j->g, q, worker, &v);
        bpp_chunk_uvw(j, &v, worker, NULL, NULL);
        const fr *u = bpp_w(j, worker, 2), *vv = bpp_w(j, worker, 3), *w = bpp_w(j, worker, 4);
        const uint8_t *fl = j->flags + (size_t)worker * CUZK_POREP_CHUNK_ROWS;
        uint64_t o;
        switch (j->sec) {
        case CUZK_BP_L:
            o = v.wire0 - j->ni - j->base;
            for (uint32_t k = 0; k < v.nw; k++) {
                fr t1, t2;
                bls12_381_fr_mul(&t1, &j->beta, &u[k]);
                bls12_381_fr_mul(&t2, &j->alpha, &vv[k]);
                bls12_381_fr_add(&t1, &t1, &t2);
                bls12_381_fr_add(&t1, &t1, &w[k]);
                bls12_381_fr_mul(&t1, &t1, &j->delta_inv);
                bls12_381_fr_from_mont(&j->sc[o + k], &t1);
            }
            break;
        case CUZK_BP_A:
            o = j->pre_a[q] - j->base;
            for (uint32_t k = 0; k < v.nw; k++)
                if (fl[k] & 1)
                    bls12_381_fr_from_mont(&j->sc[o++], &u[k]);
            break;
        default:
            o = j->pre_b[q] - j->base;
            for (uint32_t k = 0; k < v.nw; k++)
                if (fl[k] & 2)
                    bls12_381_fr_from_mont(&j->sc[o++], &vv[k]);
        }
    }
}

typedef struct {
    fr *sc;
    fr start, step; /* Montgomery */
    uint64_t i0;
} bpp_h_job;

/* H's raw scalars start · step^(i - i0)... for the batch. */
static void bpp_h_range(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const bpp_h_job *h = p;
    fr x;
    uint64_t e = lo;
    bls12_381_fr_pow(&x, &h->step, &e, 1);
    bls12_381_fr_mul(&x, &x, &h->start);
    for (size_t i = lo; i < hi; i++) {
        bls12_381_fr_from_mont(&h->sc[i], &x);
        bls12_381_fr_mul(&x, &x, &h->step);
    }
}

/* Points of n raw scalars: on fx (the GPU) when given, else the CPU pool. */
static cuzk_status bpp_points(bpp_job *j, cuzk_gpu_fixed *fx, bool g2, void *out, size_t n, cuzk_error *err)
{
    if (fx)
        return cuzk_gpu_fixed_run(fx, j->sc, n, out, err);
    return g2 ? bls12_381_g2_batch_mul_fixed(out, &bls12_381_g2_GENERATOR, j->sc, n, j->ctx->pool, err)
              : bls12_381_g1_batch_mul_fixed(out, &bls12_381_g1_GENERATOR, j->sc, n, j->ctx->pool, err);
}

static cuzk_status bpp_write(cuzk_bp_params_writer *w, bool g2, const void *pts, size_t n, cuzk_error *err)
{
    return g2 ? cuzk_bp_params_writer_g2(w, pts, n, err) : cuzk_bp_params_writer_g1(w, pts, n, err);
}

/* Points a batch holds: the option (0: the default), at least a chunk's, at
 * most a section's (< 2^lg). */
static uint64_t bpp_batch(uint64_t opt, unsigned lg)
{
    uint64_t b = opt ? opt : BPP_DEFAULT_BATCH;
    b = CUZK_MIN(b, UINT64_C(1) << (lg < 10 ? 10 : lg > 27 ? 27 : lg));
    return CUZK_MAX(b, (uint64_t)CUZK_POREP_CHUNK_ROWS);
}

uint64_t cuzk_bp_setup_porep_plan(const cuzk_bp_porep_opts *opts, int threads)
{
    const unsigned lg = opts && opts->log_domain ? opts->log_domain : CUZK_POREP_FULL_LOG;
    const uint64_t batch = bpp_batch(opts ? opts->batch_points : 0, lg);
    const uint64_t T = threads > 0 ? (uint64_t)threads : 1;
    /* the batch: raw scalars and G2 affine points; the writer's 8 MiB encoding buffer */
    uint64_t b = batch * (32 + 192) + (UINT64_C(8) << 20);
    /* per worker: five scalar vectors and flags of a chunk, its row buffers
     * (porep_impl.h: 8 terms a row of wire + coefficient, offsets, values) */
    b += T * CUZK_POREP_CHUNK_ROWS * (5 * 32 + 1 + 8 * 36 + 3 * 4 + 32);
    /* per chunk counts, the input sums */
    b += 24 * ((UINT64_C(1) << lg) / CUZK_POREP_CHUNK_ROWS + 2) + T * 4 * 328 * 32;
    return b;
}

cuzk_status cuzk_bp_setup_porep(cuzk_ctx *ctx, const cuzk_bp_porep_opts *opts, const char *params_path,
                                const char *vk_path, cuzk_bp_porep_info *info, cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    if (!ctx || !params_path)
        return cuzk_err(err, CUZK_ERR_USAGE, "porep: missing argument");
    cuzk_bp_porep_opts o = {0};
    if (opts)
        o = *opts;
    const int device = o.gpu ? o.device : -1;
    const unsigned lg = o.log_domain ? o.log_domain : CUZK_POREP_FULL_LOG;
    const uint64_t batch = bpp_batch(o.batch_points, lg);
    if (o.gpu && (o.device < 0 || o.device >= cuzk_gpu_device_count()))
        return cuzk_err(err, CUZK_ERR_GPU, "porep: no CUDA device %d for the parameters' points", o.device);
    double t_start = cuzk_now();

    bpp_job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    cuzk_status st = cuzk_porep_shape_make(&j.s, CUZK_CURVE_BLS12_381, lg, err);
    if (st)
        return st;
    j.P = j.s.n_pub;
    j.ni = 1 + (uint64_t)j.P;
    j.T = cuzk_pool_size(ctx->pool);
    const uint64_t n = (uint64_t)1 << lg, nx = j.s.n_aux;

    cuzk_oset os;
    cuzk_afile *fp = NULL, *fv = NULL;
    cuzk_bp_params_writer w;
    cuzk_bp_vk vk;
    memset(&w, 0, sizeof w);
    memset(&vk, 0, sizeof vk);
    cuzk_gpu_fixed *fx1 = NULL, *fx2 = NULL;
    void *pts = NULL;
    cuzk_oset_init(&os, ctx->opts.cancelled, ctx->opts.user);
    if ((st = cuzk_oset_output(&os, params_path, &fp, err)) ||
        (vk_path && (st = cuzk_oset_output(&os, vk_path, &fv, err))))
        goto out;
    if ((st = cuzk_porep_gen_create(&j.g, &j.s, o.seed, j.T, err)))
        goto out;
    j.nch = cuzk_porep_gen_chunks(j.g);
    j.work = cuzk_alloc((size_t)j.T * 5 * CUZK_POREP_CHUNK_ROWS, sizeof(fr));
    j.flags = cuzk_alloc((size_t)j.T, CUZK_POREP_CHUNK_ROWS);
    j.sums = cuzk_calloc((size_t)j.T * 3 * j.ni, sizeof(fr));
    j.b_inp = cuzk_calloc((size_t)j.T, j.ni);
    j.pre_a = cuzk_alloc(j.nch + 1, sizeof(uint64_t));
    j.pre_b = cuzk_alloc(j.nch + 1, sizeof(uint64_t));
    j.pre_l = cuzk_alloc(j.nch + 1, sizeof(uint64_t));
    j.sc = cuzk_alloc(batch, sizeof(fr));
    pts = cuzk_alloc(batch, sizeof(bls12_381_g2_affine_t));
    if (!j.work || !j.flags || !j.sums || !j.b_inp || !j.pre_a || !j.pre_b || !j.pre_l || !j.sc || !pts) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory for the parameters' buffers");
        goto out;
    }

    /* The toxic waste, from the seed (INSECURE by design). */
    {
        cuzk_bp_toxic tx;
        cuzk_bp_porep_toxic(&tx, o.seed, lg);
        j.tau = tx.tau;
        j.alpha = tx.alpha;
        j.beta = tx.beta;
        j.gamma = tx.gamma;
        j.delta = tx.delta;
        bpp_wipe(&tx, sizeof tx);
        fr one, tn;
        bls12_381_fr_set_one(&one);
        cuzk_bp_omega(&j.omega, lg);
        uint64_t e = n;
        bls12_381_fr_pow(&tn, &j.tau, &e, 1);
        bls12_381_fr_sub(&j.zt, &tn, &one); /* Z(tau) = tau^n - 1, not 0 */
        bls12_381_fr_from_u64(&j.scale, n);
        bls12_381_fr_inv(&j.scale, &j.scale);
        bls12_381_fr_mul(&j.scale, &j.scale, &j.zt);
        bls12_381_fr_inv(&j.gamma_inv, &j.gamma);
        bls12_381_fr_inv(&j.delta_inv, &j.delta);
        bls12_381_fr_mul(&j.h0, &j.zt, &j.delta_inv);
    }

    /* 1. Count the chunks' A and B points; the inputs' u, v, w. */
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_GEN_COUNT);
    {
        const uint64_t slice = CUZK_MAX((uint64_t)j.T * 4, j.nch / 32 + 1);
        for (uint64_t c0 = 0; !st && c0 < j.nch; c0 += slice) {
            j.c0 = c0;
            const uint64_t k = CUZK_MIN(slice, j.nch - c0);
            cuzk_parallel_for(ctx->pool, (size_t)k, 1, bpp_count_range, &j);
            cuzk_progress(ctx, CUZK_PHASE_GEN_COUNT, (double)(c0 + k) / (double)j.nch);
            st = cuzk_check_cancel(ctx, err);
        }
    }
    if (st)
        goto out;
    cuzk_phase_end(ctx, &ph);
    uint64_t n_a_aux = 0, n_b_aux = 0;
    for (uint64_t q = 0; q < j.nch; q++) {
        uint64_t a = j.pre_a[q], b = j.pre_b[q];
        j.pre_a[q] = n_a_aux;
        j.pre_b[q] = n_b_aux;
        n_a_aux += a;
        n_b_aux += b;
    }
    j.pre_a[j.nch] = n_a_aux;
    j.pre_b[j.nch] = n_b_aux;
    j.pre_l[j.nch] = nx;

    /* 2. The inputs: sums over the workers, the input rows (u_s += L_{m+s}),
     * the B flags; IC, and the verifying key. */
    fr *in_uvw = j.sums; /* worker 0's sums collect the others' */
    for (int k = 1; k < j.T; k++)
        for (uint64_t i = 0; i < 3 * j.ni; i++)
            bls12_381_fr_add(&in_uvw[i], &in_uvw[i], &j.sums[(size_t)k * 3 * j.ni + i]);
    for (int k = 1; k < j.T; k++)
        for (uint64_t i = 0; i < j.ni; i++)
            j.b_inp[i] |= j.b_inp[(size_t)k * j.ni + i];
    {
        fr x;
        uint64_t e = j.s.m;
        bls12_381_fr_pow(&x, &j.omega, &e, 1);
        for (uint64_t s_ = 0; s_ < j.ni; s_++) {
            fr d, l;
            bls12_381_fr_sub(&d, &j.tau, &x);
            bls12_381_fr_inv(&d, &d);
            bls12_381_fr_mul(&l, &x, &j.scale);
            bls12_381_fr_mul(&l, &l, &d);
            bls12_381_fr_add(&in_uvw[s_], &in_uvw[s_], &l);
            bls12_381_fr_mul(&x, &x, &j.omega);
        }
    }
    uint64_t n_b_inp = 0;
    for (uint64_t i = 0; i < j.ni; i++)
        n_b_inp += j.b_inp[i] != 0;
    const uint64_t n_a = j.ni + n_a_aux, n_b = n_b_inp + n_b_aux;
    if (n_a > UINT32_MAX || n_b > UINT32_MAX || nx > UINT32_MAX) {
        st = cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: more than 2^32 points in a section", params_path);
        goto out;
    }
    if ((st = cuzk_bp_vk_alloc(&vk, (uint32_t)j.ni, err)))
        goto out;
    for (uint64_t s_ = 0; s_ < j.ni; s_++) {
        fr t1, t2;
        bls12_381_fr_mul(&t1, &j.beta, &in_uvw[s_]);
        bls12_381_fr_mul(&t2, &j.alpha, &in_uvw[j.ni + s_]);
        bls12_381_fr_add(&t1, &t1, &t2);
        bls12_381_fr_add(&t1, &t1, &in_uvw[2 * j.ni + s_]);
        bls12_381_fr_mul(&t1, &t1, &j.gamma_inv);
        bls12_381_fr_from_mont(&j.sc[s_], &t1);
    }
    if ((st = bls12_381_g1_batch_mul_fixed(vk.ic, &bls12_381_g1_GENERATOR, j.sc, j.ni, ctx->pool, err)))
        goto out;
    {
        const fr *k1[3] = {&j.alpha, &j.beta, &j.delta}, *k2[3] = {&j.beta, &j.gamma, &j.delta};
        bls12_381_g1_affine_t p1[3];
        bls12_381_g2_affine_t p2[3];
        for (int i = 0; i < 3; i++)
            bls12_381_fr_from_mont(&j.sc[i], k1[i]);
        if ((st = bls12_381_g1_batch_mul_fixed(p1, &bls12_381_g1_GENERATOR, j.sc, 3, NULL, err)))
            goto out;
        for (int i = 0; i < 3; i++)
            bls12_381_fr_from_mont(&j.sc[i], k2[i]);
        if ((st = bls12_381_g2_batch_mul_fixed(p2, &bls12_381_g2_GENERATOR, j.sc, 3, NULL, err)))
            goto out;
        vk.alpha_g1 = p1[0];
        vk.beta_g1 = p1[1];
        vk.delta_g1 = p1[2];
        vk.beta_g2 = p2[0];
        vk.gamma_g2 = p2[1];
        vk.delta_g2 = p2[2];
    }
    if (device >= 0) {
        cuzk_error ge = {0};
        if ((st = cuzk_gpu_fixed_create(&fx1, CUZK_CURVE_BLS12_381, CUZK_GPU_G1, &bls12_381_g1_GENERATOR, device,
                                        &ge)) ||
            (st = cuzk_gpu_fixed_create(&fx2, CUZK_CURVE_BLS12_381, CUZK_GPU_G2, &bls12_381_g2_GENERATOR, device,
                                        &ge))) {
            st = cuzk_err(err, st, "%s", ge.msg);
            goto out;
        }
    }
    if ((st = cuzk_oset_open(&os, err)) ||
        (st = cuzk_bp_params_writer_open_to(&w, fp, &vk, ctx->pool, err)))
        goto out;

    /* 3. H: tau^i Z(tau) / delta, i < n - 1. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_H);
    if ((st = cuzk_bp_params_writer_section(&w, CUZK_BP_H, (uint32_t)(n - 1), err)))
        goto out;
    for (uint64_t i0 = 0; i0 < n - 1 && !st; i0 += batch) {
        const uint64_t k = CUZK_MIN(batch, n - 1 - i0);
        bpp_h_job hj = {j.sc, j.h0, j.tau, i0};
        uint64_t e = i0;
        bls12_381_fr_pow(&hj.start, &j.tau, &e, 1);
        bls12_381_fr_mul(&hj.start, &hj.start, &j.h0);
        cuzk_parallel_for(ctx->pool, (size_t)k, 1 << 12, bpp_h_range, &hj);
        bpp_wipe(&hj, sizeof hj);
        if (!(st = bpp_points(&j, fx1, false, pts, k, err)) && !(st = bpp_write(&w, false, pts, k, err))) {
            cuzk_progress(ctx, CUZK_PHASE_SETUP_H, (double)(i0 + k) / (double)(n - 1));
            st = cuzk_check_cancel(ctx, err);
        }
    }
    if (st)
        goto out;
    cuzk_phase_end(ctx, &ph);

    /* 4. L, A, B_G1, B_G2: the inputs' points (A, B), then the chunks' in batches. */
    static const struct {
        int sec;
        cuzk_phase phase;
    } SECS[4] = {{CUZK_BP_L, CUZK_PHASE_SETUP_IC_C},
                 {CUZK_BP_A, CUZK_PHASE_SETUP_A},
                 {CUZK_BP_B_G1, CUZK_PHASE_SETUP_B1},
                 {CUZK_BP_B_G2, CUZK_PHASE_SETUP_B2}};
    for (int si = 0; si < 4 && !st; si++) {
        const int sec = SECS[si].sec;
        const bool g2 = sec == CUZK_BP_B_G2;
        cuzk_gpu_fixed *fx = g2 ? fx2 : fx1;
        const uint64_t *pre = sec == CUZK_BP_L ? j.pre_l : sec == CUZK_BP_A ? j.pre_a : j.pre_b;
        const uint64_t count = sec == CUZK_BP_L ? nx : sec == CUZK_BP_A ? n_a : n_b;
        ph = cuzk_phase_begin(ctx, SECS[si].phase);
        if ((st = cuzk_bp_params_writer_section(&w, (cuzk_bp_section_id)sec, (uint32_t)count, err)))
            break;
        if (sec != CUZK_BP_L) { /* the inputs: all in A, those with a B flag in B */
            uint64_t k = 0;
            for (uint64_t s_ = 0; s_ < j.ni; s_++)
                if (sec == CUZK_BP_A)
                    bls12_381_fr_from_mont(&j.sc[k++], &in_uvw[s_]);
                else if (j.b_inp[s_])
                    bls12_381_fr_from_mont(&j.sc[k++], &in_uvw[j.ni + s_]);
            if (k && ((st = bpp_points(&j, fx, g2, pts, k, err)) || (st = bpp_write(&w, g2, pts, k, err))))
                break;
        }
        j.sec = g2 ? CUZK_BP_B_G1 : sec;
        for (uint64_t c0 = 0; c0 < j.nch && !st;) {
            uint64_t c1 = c0 + 1;
            while (c1 < j.nch && pre[c1 + 1] - pre[c0] <= batch)
                c1++;
            j.c0 = c0;
            j.base = pre[c0];
            cuzk_parallel_for(ctx->pool, (size_t)(c1 - c0), 1, bpp_scalar_range, &j);
            const uint64_t k = pre[c1] - pre[c0];
            if (k && ((st = bpp_points(&j, fx, g2, pts, k, err)) || (st = bpp_write(&w, g2, pts, k, err))))
                break;
            cuzk_progress(ctx, SECS[si].phase, (double)c1 / (double)j.nch);
            st = cuzk_check_cancel(ctx, err);
            c0 = c1;
        }
        if (!st)
            cuzk_phase_end(ctx, &ph);
    }
    if (st)
        goto out;

    /* 5. The files, both or neither. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_WRITE);
    if ((st = cuzk_bp_params_writer_finish(&w, err)) || (fv && (st = cuzk_bp_vk_write_to(&vk, fv, err))) ||
        (st = cuzk_oset_commit(&os, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    if (info) {
        memset(info, 0, sizeof *info);
        info->n_inputs = (uint32_t)j.ni;
        info->log_domain = lg;
        info->n_h = n - 1;
        info->n_l = nx;
        info->n_a = n_a;
        info->n_b = n_b;
        const uint32_t counts[CUZK_BP_N_SECTIONS] = {(uint32_t)(n - 1), (uint32_t)nx, (uint32_t)n_a, (uint32_t)n_b,
                                                     (uint32_t)n_b};
        info->file_bytes = cuzk_bp_params_size((uint32_t)j.ni, counts);
        info->host_plan_bytes = cuzk_bp_setup_porep_plan(&o, j.T);
        info->seconds = cuzk_now() - t_start;
    }
out:
    cuzk_bp_params_writer_abort(&w);
    cuzk_oset_abort(&os);
    cuzk_bp_vk_free(&vk);
    cuzk_gpu_fixed_destroy(fx1);
    cuzk_gpu_fixed_destroy(fx2);
    {
        fr *sec_[] = {&j.tau, &j.alpha, &j.beta, &j.gamma, &j.delta, &j.zt, &j.scale, &j.gamma_inv, &j.delta_inv,
                      &j.h0};
        for (size_t i = 0; i < sizeof sec_ / sizeof *sec_; i++)
            bpp_wipe(sec_[i], sizeof(fr));
    }
    if (j.work)
        bpp_wipe(j.work, (size_t)j.T * 5 * CUZK_POREP_CHUNK_ROWS * sizeof(fr));
    if (j.sums)
        bpp_wipe(j.sums, (size_t)j.T * 3 * j.ni * sizeof(fr));
    cuzk_free(j.work);
    cuzk_free(j.flags);
    cuzk_free(j.sums);
    cuzk_free(j.b_inp);
    cuzk_free(j.pre_l);
    cuzk_free(j.pre_a);
    cuzk_free(j.pre_b);
    cuzk_free(j.sc);
    cuzk_free(pts);
    cuzk_porep_gen_free(j.g);
    return st;
}
