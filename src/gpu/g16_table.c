/* The GPU backend's entry in the proving pipeline's backend table
 * (src/groth16/backend.h): a thin adapter over src/gpu/g16_backend.h, which
 * holds the device work. CUDA builds define CUZK_HAVE_GPU_PROVER
 * (src/CMakeLists.txt): then this file provides cuzk_g16_backend_gpu and
 * backend.c does not; without CUDA it is empty. */
#ifdef CUZK_HAVE_GPU_PROVER
#include <string.h>

#include "cuzk/gpu.h"
#include "gpu/g16_backend.h"
#include "groth16/backend.h"

/* The key's host data for the device: the zkey sections, borrowed. */
static void key_src(const cuzk_zkey *zk, cuzk_gpu_g16_key_src *s)
{
    memset(s, 0, sizeof *s);
    s->shape.curve = zk->curve;
    s->shape.n_vars = zk->n_vars;
    s->shape.n_public = zk->n_public;
    s->shape.log_domain = zk->log_domain;
    s->shape.n_coefs = zk->n_coefs;
    cuzk_gpu_g16_coefs *co = &s->coefs;
    co->n = zk->n_coefs;
    if (zk->coef_raw) { /* section 4 in place: u32 matrix, constraint, signal, then the value */
        co->matrix = zk->coef_raw;
        co->constraint = zk->coef_raw + 4;
        co->signal = zk->coef_raw + 8;
        co->value = zk->coef_raw + 12;
        co->stride = co->vstride = 12 + (size_t)zk->n8r;
    } else {
        co->matrix = (const uint8_t *)zk->coef_matrix;
        co->constraint = (const uint8_t *)zk->coef_constraint;
        co->signal = (const uint8_t *)zk->coef_signal;
        co->value = (const uint8_t *)zk->coef_value.ptr;
        co->stride = sizeof(uint32_t);
        co->vstride = zk->n8r;
    }
    s->bases[0] = zk->h.ptr;
    s->bases[1] = zk->a.ptr;
    s->bases[2] = zk->b1.ptr;
    s->bases[3] = zk->c.ptr;
    s->bases[4] = zk->b2.ptr;
}

static cuzk_status gpu_key_attach(const cuzk_g16_backend *be, cuzk_ctx *ctx, const cuzk_zkey *zk,
                                  const cuzk_curve_ops *ops, const cuzk_key_opts *opts, void **key_state,
                                  uint64_t *host_bytes, uint64_t *device_bytes, cuzk_error *err)
{
    (void)be, (void)ctx, (void)ops;
    cuzk_gpu_g16_key_src src;
    key_src(zk, &src);
    cuzk_gpu_plan_opts po = {0};
    if (opts) {
        po.device = opts->device;
        po.budget = (size_t)opts->device_budget;
        po.workers = opts->gpu_workers;
    }
    cuzk_gpu_g16_key *k = NULL;
    cuzk_status st = cuzk_gpu_g16_key_attach(&k, &src, &po, err);
    if (st)
        return st;
    cuzk_gpu_plan plan;
    cuzk_gpu_g16_key_plan(k, &plan, NULL);
    *key_state = k;
    if (host_bytes) /* pinned witness buffers, streamed coefficients */
        *host_bytes = (uint64_t)plan.workers * plan.witness_bytes +
                      (plan.item[CUZK_GPU_ITEM_COEFS].streamed ? plan.item[CUZK_GPU_ITEM_COEFS].data_bytes : 0);
    if (device_bytes)
        *device_bytes = plan.peak;
    return CUZK_OK;
}

static void gpu_key_detach(void *key_state) { cuzk_gpu_g16_key_detach(key_state); }

static cuzk_status gpu_job_begin(const void *key_state, cuzk_ctx *ctx, const void *w, void **job, cuzk_error *err)
{
    (void)ctx;
    cuzk_gpu_g16_job *j = NULL;
    cuzk_status st = cuzk_gpu_g16_job_begin(&j, (cuzk_gpu_g16_key *)key_state, w, err);
    *job = j;
    return st;
}

static void gpu_job_end(void *job) { cuzk_gpu_g16_job_end(job); }

static cuzk_status gpu_abc(void *job, cuzk_error *err) { return cuzk_gpu_g16_job_abc(job, err); }

static cuzk_status gpu_ntt_quotient(void *job, cuzk_error *err) { return cuzk_gpu_g16_job_ntt(job, err); }

static cuzk_status gpu_msm(void *job, cuzk_g16_msm which, void *out, cuzk_error *err)
{
    return cuzk_gpu_g16_job_msm(job, (cuzk_gpu_plan_item_id)(CUZK_GPU_ITEM_MSM_H + (int)which), out, err);
}

static const cuzk_g16_backend GPU_BACKEND = {
    .name = "gpu",
    .kind = CUZK_BACKEND_GPU,
    .key_attach = gpu_key_attach,
    .key_detach = gpu_key_detach,
    .job_begin = gpu_job_begin,
    .job_end = gpu_job_end,
    .abc = gpu_abc,
    .ntt_quotient = gpu_ntt_quotient,
    .msm = gpu_msm,
};

const cuzk_g16_backend *cuzk_g16_backend_gpu(void) { return &GPU_BACKEND; }

#endif /* CUZK_HAVE_GPU_PROVER */
