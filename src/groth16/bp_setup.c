/* Bellperson mode: the evaluation domain bellperson uses, the INSECURE
 * bellperson-layout setup for circom r1cs files, and the assignment
 * bellperson's synthesis would give for a circom circuit and witness.
 *
 * !!! The setup's toxic waste exists in this process while it runs: its
 * !!! parameters are for tests and benchmarks only.
 *
 * The domain. bellperson (blstrs) takes omega = 7^((r-1)/n) (ROOT_OF_UNITY =
 * GENERATOR^t, GENERATOR = 7, squared down to the domain), where snarkjs
 * takes 5^((r-1)/n). Bellperson mode's NTTs, CPU and GPU, are made with
 * bellperson's roots (CUZK_BP_GENERATOR): its evaluation j of a, b, c (at
 * omega^j) is the domain's value j, and a, b, c are copied in order. */
#include <stdlib.h>
#include <string.h>

#include "groth16/curve_ops.h"
#include "groth16/bp.h"
#include "groth16/bp_srs.h"
#include "groth16/ctx.h"
#include "poly/ntt.h"

void cuzk_bp_omega(bls12_381_fr_t *out, unsigned k)
{
    /* (r - 1) >> k, r - 1 being divisible by 2^32 */
    uint64_t e[4];
    memcpy(e, bls12_381_fr_MODULUS.l, sizeof e);
    e[0] -= 1;
    for (unsigned s = 0; s < k; s++)
        for (int i = 0; i < 4; i++)
            e[i] = (e[i] >> 1) | (i < 3 ? e[i + 1] << 63 : 0);
    bls12_381_fr_t seven;
    bls12_381_fr_from_u64(&seven, CUZK_BP_GENERATOR);
    bls12_381_fr_pow(out, &seven, e, 4);
}

/* ---- the setup ------------------------------------------------------------------ */

typedef struct {
    bls12_381_fr_t tau, scale, step;
    bls12_381_fr_t *out, *scratch;
} lag_job;

/* out[i] = scale · x_i / (tau - x_i), x_i = step^i (the Lagrange basis at tau). */
static void lag_range(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const lag_job *j = p;
    bls12_381_fr_t x0, x;
    uint64_t e = lo;
    bls12_381_fr_pow(&x0, &j->step, &e, 1);
    x = x0;
    for (size_t i = lo; i < hi; i++) {
        bls12_381_fr_sub(&j->out[i], &j->tau, &x);
        bls12_381_fr_mul(&x, &x, &j->step);
    }
    bls12_381_fr_batch_inv(j->out + lo, j->out + lo, hi - lo, j->scratch + lo);
    x = x0;
    for (size_t i = lo; i < hi; i++) {
        bls12_381_fr_t t;
        bls12_381_fr_mul(&t, &x, &j->scale);
        bls12_381_fr_mul(&j->out[i], &j->out[i], &t);
        bls12_381_fr_mul(&x, &x, &j->step);
    }
}

typedef struct {
    bls12_381_fr_t *k; /* in: Montgomery, out: raw */
} raw_job;

static void raw_range(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    bls12_381_fr_t *k = ((raw_job *)p)->k;
    for (size_t i = lo; i < hi; i++)
        bls12_381_fr_from_mont(&k[i], &k[i]);
}

/* out[i] = k[i]·G (k Montgomery, turned raw in place), affine. */
static cuzk_status fixed_g1(const cuzk_curve_ops *ops, bls12_381_g1_affine_t *out, bls12_381_fr_t *k, size_t n,
                            cuzk_pool *pool, cuzk_error *err)
{
    if (!n)
        return CUZK_OK;
    raw_job rj = {k};
    cuzk_parallel_for(pool, n, 1 << 12, raw_range, &rj);
    return ops->g1_batch_mul(out, &bls12_381_g1_GENERATOR, k, n, pool, err);
}

static cuzk_status fixed_g2(const cuzk_curve_ops *ops, bls12_381_g2_affine_t *out, bls12_381_fr_t *k, size_t n,
                            cuzk_pool *pool, cuzk_error *err)
{
    if (!n)
        return CUZK_OK;
    raw_job rj = {k};
    cuzk_parallel_for(pool, n, 1 << 12, raw_range, &rj);
    return ops->g2_batch_mul(out, &bls12_381_g2_GENERATOR, k, n, pool, err);
}

cuzk_status cuzk_bp_setup_build(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_bp_toxic *toxic, cuzk_bpk *k,
                                cuzk_error *err)
{
    memset(k, 0, sizeof *k);
    if (r->curve != CUZK_CURVE_BLS12_381)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "bellperson parameters are BLS12-381 only; the r1cs is %s",
                        cuzk_curve_name(r->curve));
    cuzk_pool *pool = ctx ? ctx->pool : NULL;
    const cuzk_curve_ops *ops = cuzk_curve_ops_get(CUZK_CURVE_BLS12_381);
    const uint32_t n_inp = cuzk_r1cs_n_public(r) + 1;
    if (n_inp > r->n_wires)
        return cuzk_err(err, CUZK_ERR_FORMAT, "r1cs: %u public signals but %u wires", n_inp - 1, r->n_wires);
    const uint64_t n_vars = r->n_wires, m = r->n_constraints, rows = m + n_inp;
    unsigned log_n = 0;
    while (((uint64_t)1 << log_n) < rows)
        log_n++;
    if (log_n >= 32)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "r1cs: %llu rows need a domain beyond 2^31",
                        (unsigned long long)rows);
    const uint64_t n = (uint64_t)1 << log_n;

    cuzk_bp_toxic tw;
    if (toxic) {
        tw = *toxic;
    } else if (!bls12_381_fr_random(&tw.tau) || !bls12_381_fr_random(&tw.alpha) ||
               !bls12_381_fr_random(&tw.beta) || !bls12_381_fr_random(&tw.gamma) ||
               !bls12_381_fr_random(&tw.delta)) {
        return cuzk_err(err, CUZK_ERR_INTERNAL, "the OS random number generator failed");
    }
    bls12_381_fr_t omega, tn, zt, ninv, one;
    bls12_381_fr_set_one(&one);
    cuzk_bp_omega(&omega, log_n);
    uint64_t ne = n;
    bls12_381_fr_pow(&tn, &tw.tau, &ne, 1);
    bls12_381_fr_sub(&zt, &tn, &one); /* Z(tau) = tau^n - 1 */
    if (bls12_381_fr_is_zero(&zt) || bls12_381_fr_is_zero(&tw.gamma) || bls12_381_fr_is_zero(&tw.delta))
        return cuzk_err(err, CUZK_ERR_USAGE, "setup: degenerate toxic waste");
    bls12_381_fr_from_u64(&ninv, n);
    bls12_381_fr_inv(&ninv, &ninv);

    cuzk_status st = CUZK_OK;
    bls12_381_fr_t *lag = cuzk_alloc(rows, 32), *scr = cuzk_alloc(rows, 32);
    bls12_381_fr_t *u = calloc(n_vars, 32), *v = calloc(n_vars, 32), *w = calloc(n_vars, 32);
    bls12_381_fr_t *sc = NULL;
    if (!lag || !scr || !u || !v || !w) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the setup");
        goto out;
    }
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_LAGRANGE);
    lag_job lj = {.tau = tw.tau, .step = omega, .out = lag, .scratch = scr};
    bls12_381_fr_mul(&lj.scale, &zt, &ninv);
    cuzk_parallel_for(pool, rows, 1 << 12, lag_range, &lj);
    cuzk_phase_end(ctx, &ph);

    /* u, v, w: the circuit's rows, then the input rows A = input_i */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_QAP);
    bls12_381_fr_t *uvw[3] = {u, v, w};
    for (int t = 0; t < 3; t++) {
        const cuzk_r1cs_matrix *mx = &r->m[t];
        for (uint64_t i = 0; i < m; i++)
            for (uint64_t q = mx->row[i]; q < mx->row[i + 1]; q++) {
                bls12_381_fr_t c;
                bls12_381_fr_to_mont(&c, &mx->coef.bls12_381[q]);
                bls12_381_fr_mul(&c, &c, &lag[i]);
                bls12_381_fr_add(&uvw[t][mx->wire[q]], &uvw[t][mx->wire[q]], &c);
            }
    }
    for (uint32_t s = 0; s < n_inp; s++)
        bls12_381_fr_add(&u[s], &u[s], &lag[m + s]);
    cuzk_phase_end(ctx, &ph);

    /* counts, then the key */
    k->n_inp = n_inp;
    k->n_aux = n_vars - n_inp;
    k->log_n = log_n;
    k->n = n;
    for (uint64_t j = 0; j < n_vars; j++) {
        k->n_a += !bls12_381_fr_is_zero(&u[j]);
        k->n_b += !bls12_381_fr_is_zero(&v[j]);
    }
    if ((st = cuzk_bpk_alloc(k, err)))
        goto out;
    size_t most = n_vars > n ? n_vars : n;
    if (!(sc = cuzk_alloc(most, 32))) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the setup");
        goto out;
    }
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_A);
    size_t o = 0;
    for (uint64_t j = 0; j < n_vars; j++)
        if (!bls12_381_fr_is_zero(&u[j]))
            sc[o++] = u[j];
    if ((st = fixed_g1(ops, k->a, sc, o, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_B1);
    o = 0;
    for (uint64_t j = 0; j < n_vars; j++)
        if (!bls12_381_fr_is_zero(&v[j]))
            sc[o++] = v[j];
    if ((st = fixed_g1(ops, k->b1, sc, o, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_B2);
    o = 0;
    for (uint64_t j = 0; j < n_vars; j++)
        if (!bls12_381_fr_is_zero(&v[j]))
            sc[o++] = v[j];
    if ((st = fixed_g2(ops, k->b2, sc, o, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);

    /* IC = (beta u + alpha v + w) / gamma (inputs), L = the same / delta (aux) */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_IC_C);
    bls12_381_fr_t gi, di;
    bls12_381_fr_inv(&gi, &tw.gamma);
    bls12_381_fr_inv(&di, &tw.delta);
    for (uint64_t j = 0; j < n_vars; j++) {
        bls12_381_fr_t t1, t2;
        bls12_381_fr_mul(&t1, &tw.beta, &u[j]);
        bls12_381_fr_mul(&t2, &tw.alpha, &v[j]);
        bls12_381_fr_add(&t1, &t1, &t2);
        bls12_381_fr_add(&t1, &t1, &w[j]);
        if (bls12_381_fr_is_zero(&t1)) {
            st = cuzk_err(err, CUZK_ERR_UNSUPPORTED,
                          "r1cs: wire %llu is in no constraint (bellperson refuses unconstrained variables)",
                          (unsigned long long)j);
            goto out;
        }
        bls12_381_fr_mul(&sc[j], &t1, j < n_inp ? &gi : &di);
    }
    if ((st = fixed_g1(ops, k->ic, sc, n_inp, pool, err)) ||
        (st = fixed_g1(ops, k->l, sc + n_inp, k->n_aux, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);

    /* H[i] = tau^i Z(tau) / delta, i < n - 1 */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_H);
    bls12_381_fr_t hc;
    bls12_381_fr_mul(&hc, &zt, &di);
    for (uint64_t i = 0; i + 1 < n; i++) {
        sc[i] = hc;
        bls12_381_fr_mul(&hc, &hc, &tw.tau);
    }
    if ((st = fixed_g1(ops, k->h, sc, n - 1, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);

    /* the verifying key */
    bls12_381_fr_t vs[4] = {tw.alpha, tw.beta, tw.delta};
    bls12_381_g1_affine_t g1s[3];
    if ((st = fixed_g1(ops, g1s, vs, 3, pool, err)))
        goto out;
    k->alpha_g1 = g1s[0];
    k->beta_g1 = g1s[1];
    k->delta_g1 = g1s[2];
    bls12_381_fr_t ws[3] = {tw.beta, tw.gamma, tw.delta};
    bls12_381_g2_affine_t g2s[3];
    if ((st = fixed_g2(ops, g2s, ws, 3, pool, err)))
        goto out;
    k->beta_g2 = g2s[0];
    k->gamma_g2 = g2s[1];
    k->delta_g2 = g2s[2];
out:
    if (lag)
        memset(lag, 0, rows * 32);
    memset(&tw, 0, sizeof tw);
    cuzk_free(lag);
    cuzk_free(scr);
    free(u);
    free(v);
    free(w);
    cuzk_free(sc);
    if (st)
        cuzk_bpk_free(k);
    return st;
}

/* ---- assignments from circom files ---------------------------------------------- */

void cuzk_bp_circuit_free(cuzk_bp_circuit *c)
{
    if (!c)
        return;
    cuzk_free(c->abc);
    cuzk_free(c->vals);
    free(c->dens);
    free(c);
}

const cuzk_bp_assignment *cuzk_bp_circuit_assignment(const cuzk_bp_circuit *c) { return &c->a; }

cuzk_bp_circuit *cuzk_bp_circuit_alloc(uint64_t m, uint64_t ni, uint64_t nx)
{
    const uint64_t rows = m + ni, wa = (nx + 63) / 64, wi = (ni + 63) / 64;
    cuzk_bp_circuit *c = calloc(1, sizeof *c);
    if (!c || !(c->abc = cuzk_alloc(3 * rows, 32)) || !(c->vals = cuzk_alloc(ni + nx, 32)) ||
        !(c->dens = calloc(2 * wa + wi + 1, 8))) {
        cuzk_bp_circuit_free(c);
        return NULL;
    }
    return c;
}

void cuzk_bp_circuit_seal(cuzk_bp_circuit *c, uint64_t m, uint64_t ni, uint64_t nx)
{
    const uint64_t rows = m + ni, wa = (nx + 63) / 64, wi = (ni + 63) / 64;
    bls12_381_fr_t *abc = (bls12_381_fr_t *)c->abc;
    for (uint64_t q = 0; q < ni; q++) { /* input rows: input_q · 0 = 0 */
        memcpy(&abc[m + q], &c->vals[q], 32);
        bls12_381_fr_set_zero(&abc[rows + m + q]);
        bls12_381_fr_set_zero(&abc[2 * rows + m + q]);
    }
    uint64_t *da = c->dens, *dbi = c->dens + wa, *dbx = c->dens + wa + wi;
    cuzk_bp_assignment *a = &c->a;
    a->a_aux_density = da;
    a->a_aux_bit_len = nx;
    a->b_inp_density = dbi;
    a->b_inp_bit_len = ni;
    a->b_aux_density = dbx;
    a->b_aux_bit_len = nx;
    a->a_aux_popcount = a->b_aux_popcount = a->b_inp_popcount = 0;
    for (uint64_t i = 0; i < wa; i++) {
        a->a_aux_popcount += (size_t)__builtin_popcountll(da[i]);
        a->b_aux_popcount += (size_t)__builtin_popcountll(dbx[i]);
    }
    for (uint64_t i = 0; i < wi; i++)
        a->b_inp_popcount += (size_t)__builtin_popcountll(dbi[i]);
    a->a = c->abc;
    a->b = c->abc + rows;
    a->c = c->abc + 2 * rows;
    a->abc_size = rows;
    a->inp = c->vals;
    a->inp_size = ni;
    a->aux = c->vals + ni;
    a->aux_size = nx;
}

cuzk_status cuzk_bp_circuit_make(cuzk_bp_circuit **out, cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_wtns *wt,
                                 const char *r1cs_name, const char *wtns_name, cuzk_error *err)
{
    *out = NULL;
    if (r->curve != CUZK_CURVE_BLS12_381)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: bellperson circuits are BLS12-381 only", r1cs_name);
    cuzk_status st = cuzk_r1cs_check_witness(r, wt, ctx ? ctx->pool : NULL, r1cs_name, wtns_name, err);
    if (st)
        return st;
    const uint64_t nv = r->n_wires, ni = cuzk_r1cs_n_public(r) + 1, nx = nv - ni, m = r->n_constraints;
    const uint64_t rows = m + ni, wa = (nx + 63) / 64, wi = (ni + 63) / 64;
    cuzk_bp_circuit *c = cuzk_bp_circuit_alloc(m, ni, nx);
    if (!c)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the assignment of %s", wtns_name);
    const bls12_381_fr_t *w = wt->values.bls12_381;
    for (uint64_t i = 0; i < nv; i++)
        bls12_381_fr_to_mont((bls12_381_fr_t *)&c->vals[i], &w[i]);
    uint64_t *da = c->dens, *dbi = c->dens + wa, *dbx = c->dens + wa + wi;
    cuzk_bp_fr *abc[3] = {c->abc, c->abc + rows, c->abc + 2 * rows};
    for (int t = 0; t < 3; t++) {
        const cuzk_r1cs_matrix *mx = &r->m[t];
        bls12_381_fr_t *dst = (bls12_381_fr_t *)abc[t];
        for (uint64_t i = 0; i < m; i++) {
            bls12_381_fr_set_zero(&dst[i]);
            for (uint64_t q = mx->row[i]; q < mx->row[i + 1]; q++) {
                uint32_t wi_ = mx->wire[q];
                bls12_381_fr_t cf, x;
                if (bls12_381_fr_is_zero(&mx->coef.bls12_381[q]))
                    continue; /* bellperson counts a term in the density only with a non-zero coefficient */
                bls12_381_fr_to_mont(&cf, &mx->coef.bls12_381[q]);
                bls12_381_fr_mul(&x, &cf, (const bls12_381_fr_t *)&c->vals[wi_]);
                bls12_381_fr_add(&dst[i], &dst[i], &x);
                if (t == 0 && wi_ >= ni)
                    da[(wi_ - ni) / 64] |= UINT64_C(1) << ((wi_ - ni) % 64);
                if (t == 1) {
                    if (wi_ < ni)
                        dbi[wi_ / 64] |= UINT64_C(1) << (wi_ % 64);
                    else
                        dbx[(wi_ - ni) / 64] |= UINT64_C(1) << ((wi_ - ni) % 64);
                }
            }
        }
    }
    cuzk_bp_circuit_seal(c, m, ni, nx);
    *out = c;
    return CUZK_OK;
}

cuzk_status cuzk_bp_circuit_load(cuzk_bp_circuit **out, cuzk_ctx *ctx, const char *r1cs_path, const char *wtns_path,
                                 cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    *out = NULL;
    cuzk_r1cs r = {0};
    cuzk_wtns w = {0};
    cuzk_status st = cuzk_r1cs_read(&r, r1cs_path, err);
    if (!st)
        st = cuzk_wtns_read(&w, wtns_path, err);
    if (!st)
        st = cuzk_bp_circuit_make(out, ctx, &r, &w, r1cs_path, wtns_path, err);
    cuzk_wtns_free(&w);
    cuzk_r1cs_free(&r);
    return st;
}
