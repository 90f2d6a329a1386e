/* INSECURE development trusted setup, written once and instantiated per curve.
 *
 * !!! The toxic waste (tau, alpha, beta, delta) exists in this process's
 * !!! memory while the setup runs. Anyone who learns it can forge proofs for
 * !!! the circuit. Keys made here are for tests and benchmarks only; real
 * !!! deployments need an MPC ceremony (snarkjs powersoftau + zkey contribute).
 *
 * Include from setup.c with `#define SETUP_CURVE bn254` (a curve listed in
 * curve/instances.h) after the curve, NTT, MSM and formats headers and
 * setup.c's helpers; SETUP_CURVE is #undef'd at the end. Defines, for c:
 *   <c>_setup_toxic_t    tau, alpha, beta, delta (Montgomery)
 *   <c>_setup_build      r1cs -> in-memory zkey (cuzk_zkey, allocated here); the point
 *                        sections on the CPU pool or, device >= 0, on that GPU
 *   helpers the PoRep-shaped key (porep_impl.h) shares: <c>_setup_lagrange,
 *   <c>_setup_k_range, <c>_setup_bmf_g1/_g2, <c>_setup_g1_point/_g2_point,
 *   <c>_setup_random_toxic, <c>_setup_tau_ok
 *
 * Formulas (snarkjs-formats.md §4; gamma = 1, as snarkjs):
 *   rows 0..m-1 are the r1cs constraints; rows m..m+nPublic are the public
 *   input rows A[m+s] = w_s (s = 0..nPublic), which snarkjs appends;
 *   L_i = Lagrange basis of the size-n domain <w[log n]> at tau;
 *   u_j = Σ_i a_ij L_i, v_j = Σ_i b_ij L_i, w_j = Σ_i c_ij L_i;
 *   A[j] = u_j G1, B1[j] = v_j G1, B2[j] = v_j G2,
 *   IC[j] = (β u_j + α v_j + w_j) G1 (j <= nPublic), C[j] = the same / δ,
 *   H[i] = L^(2n)_{2i+1}(tau) / δ G1, the odd Lagrange bases of the doubled
 *   domain: with them the prover's Σ h_i H[i] is h(tau)Z(tau)/δ directly. */

#include <string.h>

#include "curve/instances.h"
#include "groth16/ctx.h"
#include "util/common.h"
#include "util/templates.h"

#define SETUP_(name) CUZK_NAME(SETUP_CURVE, name)
#if !CUZK_NAME(SETUP_CURVE, C_X_ABS)
#error "setup_impl.h: SETUP_CURVE must name a curve listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_SETUP_IMPL, CUZK_NAME(SETUP_CURVE, C_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct {
    SETUP_(fr_t) tau, alpha, beta, delta;
} SETUP_(setup_toxic_t);

/* ---- Lagrange bases: out[i] = scale · x_i / (tau − x_i), x_i = shift·step^i.
 * With scale = (tau^N − 1)/N, shift = 1, step = w[log N] this is L_i(tau) on
 * the size-N domain (Z'(w^i) = N / w^i). One batch inversion per chunk. */
typedef struct {
    SETUP_(fr_t) tau, scale, shift, step;
    SETUP_(fr_t) *out, *scratch;
} SETUP_(setup_lag_job);

static void SETUP_(setup_lag_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const SETUP_(setup_lag_job) *j = p;
    SETUP_(fr_t) x, x0;
    uint64_t e = lo;
    SETUP_(fr_pow)(&x0, &j->step, &e, 1);
    SETUP_(fr_mul)(&x0, &x0, &j->shift);
    x = x0;
    for (size_t i = lo; i < hi; i++) {
        SETUP_(fr_sub)(&j->out[i], &j->tau, &x);
        SETUP_(fr_mul)(&x, &x, &j->step);
    }
    SETUP_(fr_batch_inv)(j->out + lo, j->out + lo, hi - lo, j->scratch + lo);
    x = x0;
    for (size_t i = lo; i < hi; i++) {
        SETUP_(fr_t) t;
        SETUP_(fr_mul)(&t, &x, &j->scale);
        SETUP_(fr_mul)(&j->out[i], &j->out[i], &t);
        SETUP_(fr_mul)(&x, &x, &j->step);
    }
}

static void SETUP_(setup_lagrange)(cuzk_pool *pool, SETUP_(fr_t) *out, SETUP_(fr_t) *scratch,
                                   size_t count, const SETUP_(fr_t) *tau, const SETUP_(fr_t) *scale,
                                   const SETUP_(fr_t) *shift, const SETUP_(fr_t) *step)
{
    SETUP_(setup_lag_job) j = {*tau, *scale, *shift, *step, out, scratch};
    cuzk_parallel_for(pool, count, 1 << 12, SETUP_(setup_lag_range), &j);
    setup_wipe(&j, sizeof j);
}

/* ---- QAP polynomials at tau, one matrix per task (u, v, w are scattered
 * by wire, so matrices are the natural unit of parallelism). */
typedef struct {
    const cuzk_r1cs *r;
    const SETUP_(fr_t) *lag;
    SETUP_(fr_t) *uvw[3];
} SETUP_(setup_qap_job);

static void SETUP_(setup_qap_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const SETUP_(setup_qap_job) *j = p;
    const cuzk_r1cs *r = j->r;
    for (size_t t = lo; t < hi; t++) {
        const cuzk_r1cs_matrix *mx = &r->m[t];
        const SETUP_(fr_t) *coef = mx->coef.SETUP_CURVE;
        SETUP_(fr_t) *acc = j->uvw[t];
        for (uint32_t i = 0; i < r->n_constraints; i++) {
            for (uint64_t k = mx->row[i]; k < mx->row[i + 1]; k++) {
                SETUP_(fr_t) c;
                SETUP_(fr_to_mont)(&c, &coef[k]);
                SETUP_(fr_mul)(&c, &c, &j->lag[i]);
                SETUP_(fr_add)(&acc[mx->wire[k]], &acc[mx->wire[k]], &c);
            }
        }
        if (t == 0) /* the public-input rows: A[m+s] = w_s */
            for (uint32_t s = 0; s <= cuzk_r1cs_n_public(r); s++)
                SETUP_(fr_add)(&acc[s], &acc[s], &j->lag[r->n_constraints + s]);
    }
}

/* ---- k_j = β u_j + α v_j + w_j (/δ for private wires), then everything to
 * raw form (MSM scalars). */
typedef struct {
    SETUP_(fr_t) *u, *v, *w;
    SETUP_(fr_t) alpha, beta, delta_inv;
    uint32_t n_public;
} SETUP_(setup_k_job);

static void SETUP_(setup_k_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const SETUP_(setup_k_job) *j = p;
    for (size_t i = lo; i < hi; i++) {
        SETUP_(fr_t) t;
        SETUP_(fr_mul)(&t, &j->beta, &j->u[i]);
        SETUP_(fr_add)(&j->w[i], &j->w[i], &t);
        SETUP_(fr_mul)(&t, &j->alpha, &j->v[i]);
        SETUP_(fr_add)(&j->w[i], &j->w[i], &t);
        if (i > j->n_public)
            SETUP_(fr_mul)(&j->w[i], &j->w[i], &j->delta_inv);
        SETUP_(fr_from_mont)(&j->u[i], &j->u[i]);
        SETUP_(fr_from_mont)(&j->v[i], &j->v[i]);
        SETUP_(fr_from_mont)(&j->w[i], &j->w[i]);
    }
}

typedef struct {
    SETUP_(fr_t) *a;
    SETUP_(fr_t) mul;
} SETUP_(setup_scale_job);

/* a[i] = raw(a[i] · mul). */
static void SETUP_(setup_scale_raw_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const SETUP_(setup_scale_job) *j = p;
    for (size_t i = lo; i < hi; i++) {
        SETUP_(fr_mul)(&j->a[i], &j->a[i], &j->mul);
        SETUP_(fr_from_mont)(&j->a[i], &j->a[i]);
    }
}

/* ---- Section 4: per constraint the A terms then the B terms (as snarkjs's
 * `zkey new`), value v·R² mod r; the public rows last. Constraint i starts at
 * rowA[i] + rowB[i], so constraints are filled in parallel. */
typedef struct {
    const cuzk_r1cs *r;
    cuzk_zkey *zk;
} SETUP_(setup_coef_job);

static void SETUP_(setup_coef_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const SETUP_(setup_coef_job) *j = p;
    const cuzk_r1cs *r = j->r;
    cuzk_zkey *zk = j->zk;
    SETUP_(fr_t) *val = zk->coef_value.SETUP_CURVE;
    for (size_t i = lo; i < hi; i++) {
        uint64_t o = r->m[0].row[i] + r->m[1].row[i];
        for (uint32_t t = 0; t < 2; t++) {
            const cuzk_r1cs_matrix *mx = &r->m[t];
            const SETUP_(fr_t) *coef = mx->coef.SETUP_CURVE;
            for (uint64_t k = mx->row[i]; k < mx->row[i + 1]; k++, o++) {
                zk->coef_matrix[o] = t;
                zk->coef_constraint[o] = (uint32_t)i;
                zk->coef_signal[o] = mx->wire[k];
                SETUP_(fr_to_mont)(&val[o], &coef[k]); /* v·R */
                SETUP_(fr_to_mont)(&val[o], &val[o]); /* v·R² */
            }
        }
    }
}

/* ---- Fixed-base scalar multiplication in blocks, so that progress and
 * cancellation are reported while a large section is computed: defines
 * c_setup_bmf_g1 and c_setup_bmf_g2 (G = g1 / g2, GG = CUZK_GPU_G1 / _G2).
 * device >= 0: on that GPU (cuzk_gpu_fixed, the same points) when it offers
 * the group, else on the CPU pool. */
#define SETUP_BMF_DEF(G, GG)                                                                       \
    static cuzk_status CUZK_NAME(SETUP_CURVE, CUZK_CAT2(setup_bmf_, G))(                           \
        cuzk_ctx * ctx, cuzk_curve curve, int device, cuzk_phase phase,                            \
        CUZK_NAME(SETUP_CURVE, CUZK_CAT2(G, _affine_t)) * out, const SETUP_(fr_t) *scalars,        \
        size_t n, cuzk_error *err)                                                                 \
    {                                                                                              \
        const size_t block = CUZK_MAX((size_t)1 << 16, n / 16 + 1);                                \
        CUZK_NAME(SETUP_CURVE, CUZK_CAT2(G, _affine_t))                                            \
        gen = CUZK_NAME(SETUP_CURVE, CUZK_CAT2(G, _GENERATOR));                                    \
        cuzk_gpu_fixed *fx = NULL;                                                                 \
        cuzk_status st = CUZK_OK;                                                                  \
        if (device >= 0 && n) {                                                                    \
            cuzk_error ge = {0};                                                                   \
            st = cuzk_gpu_fixed_create(&fx, curve, GG, &gen, device, &ge);                         \
            if (st)                                                                                \
                return cuzk_err(err, st, "%s", ge.msg);                                            \
        }                                                                                          \
        for (size_t i = 0; i < n && !st; i += block) {                                             \
            size_t k = CUZK_MIN(block, n - i);                                                     \
            st = fx ? cuzk_gpu_fixed_run(fx, scalars + i, k, out + i, err)                         \
                    : CUZK_NAME(SETUP_CURVE, CUZK_CAT2(G, _batch_mul_fixed))(                      \
                          out + i, &gen, scalars + i, k, ctx->pool, err);                          \
            if (!st) {                                                                             \
                cuzk_progress(ctx, phase, (double)(i + k) / (double)n);                            \
                st = cuzk_check_cancel(ctx, err);                                                  \
            }                                                                                      \
        }                                                                                          \
        cuzk_gpu_fixed_destroy(fx);                                                                \
        return st;                                                                                 \
    }
SETUP_BMF_DEF(g1, CUZK_GPU_G1)
SETUP_BMF_DEF(g2, CUZK_GPU_G2)
#undef SETUP_BMF_DEF

static void SETUP_(setup_g1_point)(SETUP_(g1_affine_t) *out, const SETUP_(fr_t) *mont)
{
    SETUP_(fr_t) raw;
    SETUP_(g1_jac_t) t;
    SETUP_(fr_from_mont)(&raw, mont);
    SETUP_(g1_affine_mul)(&t, &SETUP_(g1_GENERATOR), raw.l, SETUP_(fr_LIMBS));
    SETUP_(g1_jac_to_affine)(out, &t);
    setup_wipe(&raw, sizeof raw);
}

static void SETUP_(setup_g2_point)(SETUP_(g2_affine_t) *out, const SETUP_(fr_t) *mont)
{
    SETUP_(fr_t) raw;
    SETUP_(g2_jac_t) t;
    SETUP_(fr_from_mont)(&raw, mont);
    SETUP_(g2_affine_mul)(&t, &SETUP_(g2_GENERATOR), raw.l, SETUP_(fr_LIMBS));
    SETUP_(g2_jac_to_affine)(out, &t);
    setup_wipe(&raw, sizeof raw);
}

/* Domain of the key: the smallest power of two strictly greater than
 * m + nPublic, with room for w[log n + 1] (the H points need the doubled
 * domain). */
static cuzk_status SETUP_(setup_domain)(const cuzk_r1cs *r, unsigned *log_n, cuzk_error *err)
{
    uint64_t rows = (uint64_t)r->n_constraints + cuzk_r1cs_n_public(r);
    unsigned k = 0;
    while (((uint64_t)1 << k) <= rows)
        k++;
    unsigned s = SETUP_(ntt_max_log)();
    if (k + 1 > s)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED,
                        "setup: %u constraints + %u public signals need a domain of 2^%u, but %s "
                        "supports at most 2^%u (the H points need roots of unity of order 2^(k+1))",
                        r->n_constraints, cuzk_r1cs_n_public(r), k, cuzk_curve_name(r->curve), s - 1);
    *log_n = k;
    return CUZK_OK;
}

/* The domain's constants at tau, in secret[6] (wiped by the caller):
 * scale_n = (tau^n - 1)/n, scale_2n = (tau^2n - 1)/2n, delta^-1, omega
 * (order n), omega_2n (order 2n), one. */
static void SETUP_(setup_domain_secrets)(SETUP_(fr_t) secret[6], const SETUP_(setup_toxic_t) *tx, unsigned log_n)
{
    SETUP_(fr_t) *scale_n = &secret[0], *scale_2n = &secret[1], *delta_inv = &secret[2];
    SETUP_(fr_t) *omega = &secret[3], *omega_2n = &secret[4], *one = &secret[5];
    SETUP_(ntt_root_of_unity)(omega, log_n);
    SETUP_(ntt_root_of_unity)(omega_2n, log_n + 1);
    SETUP_(fr_set_one)(one);
    SETUP_(fr_t) t = tx->tau, nn;
    for (unsigned i = 0; i < log_n; i++)
        SETUP_(fr_sqr)(&t, &t); /* tau^n */
    SETUP_(fr_from_u64)(&nn, (uint64_t)1 << log_n);
    SETUP_(fr_inv)(&nn, &nn);
    SETUP_(fr_sub)(scale_n, &t, one);
    SETUP_(fr_mul)(scale_n, scale_n, &nn); /* (tau^n − 1)/n */
    SETUP_(fr_sqr)(&t, &t);                /* tau^2n */
    SETUP_(fr_sub)(scale_2n, &t, one);
    SETUP_(fr_mul)(scale_2n, scale_2n, &nn);
    SETUP_(fr_from_u64)(&nn, 2);
    SETUP_(fr_inv)(&nn, &nn);
    SETUP_(fr_mul)(scale_2n, scale_2n, &nn); /* (tau^2n − 1)/2n */
    SETUP_(fr_inv)(delta_inv, &tx->delta);
    setup_wipe(&t, sizeof t);
}

/* True if tau is usable: not a 2n-th root of unity (the Lagrange formulas
 * divide by tau − x for every x of the doubled domain). */
static bool SETUP_(setup_tau_ok)(const SETUP_(fr_t) *tau, unsigned log_n)
{
    SETUP_(fr_t) t = *tau;
    for (unsigned i = 0; i <= log_n; i++)
        SETUP_(fr_sqr)(&t, &t);
    bool ok = !SETUP_(fr_is_one)(&t) && !SETUP_(fr_is_zero)(tau);
    setup_wipe(&t, sizeof t);
    return ok;
}

/* Draws toxic waste from the OS CSPRNG. */
static cuzk_status SETUP_(setup_random_toxic)(SETUP_(setup_toxic_t) *tx, unsigned log_n,
                                              cuzk_error *err)
{
    for (int tries = 0; tries < 64; tries++) {
        if (!SETUP_(fr_random)(&tx->tau) || !SETUP_(fr_random)(&tx->alpha) ||
            !SETUP_(fr_random)(&tx->beta) || !SETUP_(fr_random)(&tx->delta))
            return cuzk_err(err, CUZK_ERR_INTERNAL, "setup: the OS random number generator failed");
        if (SETUP_(setup_tau_ok)(&tx->tau, log_n) && !SETUP_(fr_is_zero)(&tx->alpha) &&
            !SETUP_(fr_is_zero)(&tx->beta) && !SETUP_(fr_is_zero)(&tx->delta))
            return CUZK_OK;
    }
    return cuzk_err(err, CUZK_ERR_INTERNAL, "setup: could not draw usable toxic waste");
}

/* Builds the whole proving key in memory (zk is allocated here and released
 * with cuzk_zkey_free by the caller, also on error). tx == NULL: random toxic
 * waste. Every secret-derived scalar is wiped before it is freed. */
static cuzk_status SETUP_(setup_build)(cuzk_ctx *ctx, const cuzk_r1cs *r,
                                       const SETUP_(setup_toxic_t) *tx_in, int device, cuzk_zkey *zk,
                                       cuzk_error *err)
{
    cuzk_status st;
    cuzk_pool *pool = ctx->pool;
    unsigned log_n = 0;
    if ((st = SETUP_(setup_domain)(r, &log_n, err)))
        return st;
    const size_t n = (size_t)1 << log_n;
    const uint32_t m = r->n_constraints, np = cuzk_r1cs_n_public(r), nv = r->n_wires;
    if (np + 1 > nv)
        return cuzk_err(err, CUZK_ERR_FORMAT, "setup: r1cs has %u public signals but only %u wires", np, nv);
    const size_t rows = (size_t)m + np + 1;

    SETUP_(setup_toxic_t) tx;
    if (tx_in) {
        tx = *tx_in;
        if (!SETUP_(setup_tau_ok)(&tx.tau, log_n) || SETUP_(fr_is_zero)(&tx.alpha) ||
            SETUP_(fr_is_zero)(&tx.beta) || SETUP_(fr_is_zero)(&tx.delta)) {
            setup_wipe(&tx, sizeof tx);
            return cuzk_err(err, CUZK_ERR_USAGE, "setup: unusable toxic waste (zero, or tau in the domain)");
        }
    } else if ((st = SETUP_(setup_random_toxic)(&tx, log_n, err))) {
        return st;
    }

    SETUP_(fr_t) *lag = NULL, *scratch = NULL, *u = NULL, *v = NULL, *w = NULL;
    SETUP_(fr_t) secret[6]; /* scale_n, scale_2n, delta_inv, omega, omega_2n, one */
    memset(zk, 0, sizeof *zk);
    zk->curve = r->curve;
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(r->curve);
    zk->n8q = cp->n8q;
    zk->n8r = cp->n8r;
    zk->n_vars = nv;
    zk->n_public = np;
    zk->domain_size = (uint32_t)n;
    zk->log_domain = log_n;
    zk->n_coefs = r->m[0].nnz + r->m[1].nnz + np + 1;
    if ((st = cuzk_zkey_alloc(zk, err)))
        goto out;

    lag = cuzk_alloc(n, sizeof *lag);
    scratch = cuzk_alloc(n, sizeof *scratch);
    u = cuzk_calloc(nv, sizeof *u);
    v = cuzk_calloc(nv, sizeof *v);
    w = cuzk_calloc(nv, sizeof *w);
    if (!lag || !scratch || !u || !v || !w) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "setup: out of memory for %zu-element scalar vectors", n);
        goto out;
    }

    /* 1. Lagrange bases L_i(tau), i < m + nPublic + 1. */
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_LAGRANGE);
    SETUP_(setup_domain_secrets)(secret, &tx, log_n);
    SETUP_(fr_t) *scale_n = &secret[0], *scale_2n = &secret[1], *delta_inv = &secret[2];
    SETUP_(fr_t) *omega = &secret[3], *omega_2n = &secret[4], *one = &secret[5];
    SETUP_(setup_lagrange)(pool, lag, scratch, rows, &tx.tau, scale_n, one, omega);
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;

    /* 2. u, v, w at tau. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_QAP);
    {
        SETUP_(setup_qap_job) qj = {r, lag, {u, v, w}};
        cuzk_parallel_for(pool, 3, 1, SETUP_(setup_qap_range), &qj);
    }
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;

    /* 3. IC/C scalars; u, v, w to raw. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_SCALARS);
    {
        SETUP_(setup_k_job) kj = {u, v, w, tx.alpha, tx.beta, *delta_inv, np};
        cuzk_parallel_for(pool, nv, 1 << 12, SETUP_(setup_k_range), &kj);
        setup_wipe(&kj, sizeof kj);
    }
    cuzk_phase_end(ctx, &ph);

    /* 4. Section 4 and the header points. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_COEFS);
    {
        SETUP_(setup_coef_job) cj = {r, zk};
        cuzk_parallel_for(pool, m, 1 << 12, SETUP_(setup_coef_range), &cj);
        SETUP_(fr_t) *val = zk->coef_value.SETUP_CURVE;
        for (uint32_t s = 0; s <= np; s++) {
            uint64_t o = r->m[0].nnz + r->m[1].nnz + s;
            zk->coef_matrix[o] = 0;
            zk->coef_constraint[o] = m + s;
            zk->coef_signal[o] = s;
            val[o] = SETUP_(fr_R2); /* 1·R² */
        }
    }
    SETUP_(setup_g1_point)(&zk->alpha_1.SETUP_CURVE, &tx.alpha);
    SETUP_(setup_g1_point)(&zk->beta_1.SETUP_CURVE, &tx.beta);
    SETUP_(setup_g2_point)(&zk->beta_2.SETUP_CURVE, &tx.beta);
    zk->gamma_2.SETUP_CURVE = SETUP_(g2_GENERATOR);
    SETUP_(setup_g1_point)(&zk->delta_1.SETUP_CURVE, &tx.delta);
    SETUP_(setup_g2_point)(&zk->delta_2.SETUP_CURVE, &tx.delta);
    cuzk_phase_end(ctx, &ph);

    /* 5. The point sections. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_A);
    if ((st = SETUP_(setup_bmf_g1)(ctx, r->curve, device, CUZK_PHASE_SETUP_A, zk->a.SETUP_CURVE, u, nv, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_B1);
    if ((st = SETUP_(setup_bmf_g1)(ctx, r->curve, device, CUZK_PHASE_SETUP_B1, zk->b1.SETUP_CURVE, v, nv, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_B2);
    if ((st = SETUP_(setup_bmf_g2)(ctx, r->curve, device, CUZK_PHASE_SETUP_B2, zk->b2.SETUP_CURVE, v, nv, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_IC_C);
    if ((st = SETUP_(setup_bmf_g1)(ctx, r->curve, device, CUZK_PHASE_SETUP_IC_C, zk->ic.SETUP_CURVE, w,
                                   (size_t)np + 1, err)))
        goto out;
    if ((st = SETUP_(setup_bmf_g1)(ctx, r->curve, device, CUZK_PHASE_SETUP_IC_C, zk->c.SETUP_CURVE, w + np + 1,
                                   (size_t)nv - np - 1, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);

    /* 6. H: odd Lagrange bases of the doubled domain, / delta. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_H);
    SETUP_(fr_mul)(scale_2n, scale_2n, delta_inv);
    SETUP_(setup_lagrange)(pool, lag, scratch, n, &tx.tau, scale_2n, omega_2n, omega);
    {
        SETUP_(setup_scale_job) sj = {lag, *one};
        cuzk_parallel_for(pool, n, 1 << 12, SETUP_(setup_scale_raw_range), &sj);
    }
    if ((st = SETUP_(setup_bmf_g1)(ctx, r->curve, device, CUZK_PHASE_SETUP_H, zk->h.SETUP_CURVE, lag, n, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);

out:
    /* Toxic waste and everything derived from it: wiped before release. */
    setup_wipe(&tx, sizeof tx);
    setup_wipe(secret, sizeof secret);
    if (lag)
        setup_wipe(lag, n * sizeof *lag);
    if (scratch)
        setup_wipe(scratch, n * sizeof *scratch);
    if (u)
        setup_wipe(u, (size_t)nv * sizeof *u);
    if (v)
        setup_wipe(v, (size_t)nv * sizeof *v);
    if (w)
        setup_wipe(w, (size_t)nv * sizeof *w);
    cuzk_free(lag);
    cuzk_free(scratch);
    cuzk_free(u);
    cuzk_free(v);
    cuzk_free(w);
    return st;
}

/* setup_build with toxic waste given as raw limbs (NULL: random). */
static cuzk_status SETUP_(setup_build_raw)(cuzk_ctx *ctx, const cuzk_r1cs *r,
                                           const cuzk_setup_toxic *toxic, int device,
                                           cuzk_zkey *zk, cuzk_error *err)
{
    if (!toxic)
        return SETUP_(setup_build)(ctx, r, NULL, device, zk, err);
    SETUP_(setup_toxic_t) tx;
    const uint64_t *src[4] = {toxic->tau, toxic->alpha, toxic->beta, toxic->delta};
    SETUP_(fr_t) *dst[4] = {&tx.tau, &tx.alpha, &tx.beta, &tx.delta};
    bool canonical = true;
    for (int i = 0; i < 4; i++) {
        SETUP_(fr_t) raw;
        memcpy(raw.l, src[i], sizeof raw.l);
        canonical = canonical && SETUP_(fr_raw_is_canonical)(&raw);
        SETUP_(fr_to_mont)(dst[i], &raw);
        setup_wipe(&raw, sizeof raw);
    }
    cuzk_status st = canonical ? SETUP_(setup_build)(ctx, r, &tx, device, zk, err)
                               : cuzk_err(err, CUZK_ERR_USAGE, "setup: toxic waste not below r");
    setup_wipe(&tx, sizeof tx);
    return st;
}

#endif /* per-instance guard */

#undef SETUP_
#undef SETUP_CURVE
