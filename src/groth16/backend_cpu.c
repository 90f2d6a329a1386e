/* The CPU backend (backend.h): the curve's CPU kernels over host vectors,
 * on the context's thread pool. Key state: the A/B evaluation plan and the
 * NTT twiddles of the domain. Job: the witness and the a, b, c vectors
 * (a becomes h in place). */
#include <stdlib.h>

#include "groth16/abc_plan.h"
#include "groth16/backend.h"

typedef struct cpu_key {
    const cuzk_zkey *zk;
    const cuzk_curve_ops *ops;
    cuzk_abc_plan plan;
    void *dom;
} cpu_key;

typedef struct cpu_job {
    const cpu_key *k;
    cuzk_ctx *ctx;
    const uint8_t *w;  /* raw witness, n_vars values */
    uint8_t *a, *b, *c; /* domain_size values each; a holds h after ntt_quotient */
} cpu_job;

static void cpu_key_detach(void *state)
{
    cpu_key *k = state;
    if (!k)
        return;
    cuzk_abc_plan_free(&k->plan);
    if (k->dom)
        k->ops->ntt_domain_free(k->dom);
    free(k);
}

static cuzk_status cpu_key_attach(const cuzk_g16_backend *be, cuzk_ctx *ctx, const cuzk_zkey *zk,
                                  const cuzk_curve_ops *ops, const cuzk_key_opts *opts, void **key_state,
                                  uint64_t *host_bytes, uint64_t *device_bytes, cuzk_error *err)
{
    (void)be;
    (void)opts;
    *key_state = NULL;
    cpu_key *k = calloc(1, sizeof *k);
    if (!k)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory preparing the key");
    k->zk = zk;
    k->ops = ops;
    cuzk_coefs co;
    cuzk_coefs_of_zkey(&co, zk);
    cuzk_status st = ops->ntt_domain_create(&k->dom, zk->log_domain, 0, ctx->pool, err);
    if (!st)
        st = cuzk_abc_plan_build(&k->plan, &co, zk->domain_size, ctx->pool, err);
    if (st) {
        cpu_key_detach(k);
        return st;
    }
    *host_bytes = sizeof *k + cuzk_abc_plan_bytes(&k->plan) + ops->ntt_domain_bytes(k->dom);
    *device_bytes = 0;
    *key_state = k;
    return CUZK_OK;
}

static void cpu_job_end(void *job)
{
    cpu_job *j = job;
    if (!j)
        return;
    cuzk_free(j->a);
    cuzk_free(j->b);
    cuzk_free(j->c);
    free(j);
}

static cuzk_status cpu_job_begin(const void *key_state, cuzk_ctx *ctx, const void *w, void **job, cuzk_error *err)
{
    *job = NULL;
    cpu_job *j = calloc(1, sizeof *j);
    if (!j)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory starting a proof");
    j->k = key_state;
    j->ctx = ctx;
    j->w = w;
    *job = j;
    return CUZK_OK;
}

static cuzk_status cpu_abc(void *job, cuzk_error *err)
{
    cpu_job *j = job;
    const cpu_key *k = j->k;
    size_t n = k->zk->domain_size, fr = k->ops->desc->n8r;
    j->a = cuzk_alloc(n, fr);
    j->b = cuzk_alloc(n, fr);
    j->c = cuzk_alloc(n, fr);
    if (!j->a || !j->b || !j->c)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the a, b, c vectors (3 x %zu elements)", n);
    k->ops->abc_eval(&k->plan, j->w, j->a, j->b, j->c, j->ctx->pool);
    return CUZK_OK;
}

static cuzk_status cpu_ntt_quotient(void *job, cuzk_error *err)
{
    cpu_job *j = job;
    const cpu_key *k = j->k;
    const cuzk_curve_ops *ops = k->ops;
    cuzk_pool *pool = j->ctx->pool;
    uint8_t *v[3] = {j->a, j->b, j->c};
    for (int i = 0; i < 3; i++) {
        cuzk_status st;
        if ((i && (st = cuzk_check_cancel(j->ctx, err))) || (st = ops->ntt_coset_odd(k->dom, v[i], pool, err)))
            return st;
        cuzk_progress(j->ctx, CUZK_PHASE_NTT, (i + 1) / 3.0);
    }
    ops->h_pointwise(j->a, j->b, j->c, k->zk->domain_size, pool);
    cuzk_free(j->b);
    cuzk_free(j->c);
    j->b = j->c = NULL;
    return CUZK_OK;
}

static cuzk_status cpu_msm(void *job, cuzk_g16_msm which, void *out, cuzk_error *err)
{
    cpu_job *j = job;
    const cuzk_zkey *zk = j->k->zk;
    const cuzk_curve_ops *ops = j->k->ops;
    cuzk_pool *pool = j->ctx->pool;
    size_t fr = ops->desc->n8r;
    cuzk_status st;
    switch (which) {
    case CUZK_G16_MSM_H:
        st = ops->g1_msm(out, zk->h.ptr, j->a, zk->domain_size, pool, err);
        cuzk_free(j->a);
        j->a = NULL;
        return st;
    case CUZK_G16_MSM_A: return ops->g1_msm(out, zk->a.ptr, j->w, zk->n_vars, pool, err);
    case CUZK_G16_MSM_B1: return ops->g1_msm(out, zk->b1.ptr, j->w, zk->n_vars, pool, err);
    case CUZK_G16_MSM_C:
        return ops->g1_msm(out, zk->c.ptr, j->w + ((size_t)zk->n_public + 1) * fr,
                           (size_t)zk->n_vars - zk->n_public - 1, pool, err);
    case CUZK_G16_MSM_B2: return ops->g2_msm(out, zk->b2.ptr, j->w, zk->n_vars, pool, err);
    default: return cuzk_err(err, CUZK_ERR_INTERNAL, "unknown MSM %d", (int)which);
    }
}

static const cuzk_g16_backend CPU_BACKEND = {
    .name = "cpu",
    .kind = CUZK_BACKEND_CPU,
    .key_attach = cpu_key_attach,
    .key_detach = cpu_key_detach,
    .job_begin = cpu_job_begin,
    .job_end = cpu_job_end,
    .abc = cpu_abc,
    .ntt_quotient = cpu_ntt_quotient,
    .msm = cpu_msm,
};

const cuzk_g16_backend *cuzk_g16_backend_cpu(void) { return &CPU_BACKEND; }
