/* The GPU backend's entry in the proving pipeline's backend table
 * (src/groth16/backend.h): a thin adapter over src/gpu/g16/g16_backend.h, which
 * holds the device work. CUDA builds define CUZK_HAVE_GPU_PROVER
 * (src/CMakeLists.txt): then this file provides cuzk_g16_backend_gpu and
 * backend.c does not; without CUDA it is empty. */
#ifdef CUZK_HAVE_GPU_PROVER
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu.h"
#include "gpu/g16/g16_backend.h"
#include "formats/formats.h"
#include "groth16/abc_plan.h"
#include "groth16/b_density.h"
#include "groth16/backend.h"
#include "groth16/gpu_spans.h"
#include "groth16/host_plan.h"
#include "groth16/ctx.h"
#include "util/threadpool.h"

/* The key state: the device key, the B wires kept (those with a B point,
 * when that drops some: their index, and their bases while streamed items
 * read them), and for tier 7 (witness on the host) the CPU backend's A/B
 * evaluation plan and kernels, which do its host steps. */
typedef struct {
    cuzk_gpu_g16_key *k;
    const cuzk_curve_ops *ops;
    cuzk_b_density bd;
    cuzk_abc_plan plan;
    bool plan_made;
} gpu_key;

static cuzk_pool *job_pool(void *job_user) { return job_user ? ((cuzk_ctx *)job_user)->pool : NULL; }

static void host_abc(void *key_user, void *job_user, const void *w, void *a, void *b, void *c)
{
    gpu_key *gk = key_user;
    gk->ops->abc_eval(&gk->plan, w, a, b, c, job_pool(job_user));
}

static void host_quotient(void *key_user, void *job_user, void *a, const void *b, const void *c, size_t n)
{
    gpu_key *gk = key_user;
    gk->ops->h_pointwise(a, b, c, n, job_pool(job_user));
}

/* The key's host data for the device: the zkey sections, borrowed. */
static void key_src(const cuzk_zkey *zk, cuzk_gpu_g16_key_src *s)
{
    memset(s, 0, sizeof *s);
    cuzk_g16_key_shape(&s->shape, zk);
    cuzk_coefs co;
    cuzk_coefs_of_zkey(&co, zk);
    s->coefs = (cuzk_gpu_g16_coefs){co.n, co.matrix, co.constraint, co.signal, co.value, co.stride, co.vstride};
    s->bases[0] = zk->h.ptr;
    s->bases[1] = zk->a.ptr;
    s->bases[2] = zk->b1.ptr;
    s->bases[3] = zk->c.ptr;
    s->bases[4] = zk->b2.ptr;
}

static void gpu_key_detach(void *key_state)
{
    gpu_key *gk = key_state;
    if (!gk)
        return;
    cuzk_gpu_g16_key_detach(gk->k);
    cuzk_b_density_free(&gk->bd);
    if (gk->plan_made)
        cuzk_abc_plan_free(&gk->plan);
    free(gk);
}

static cuzk_status gpu_key_attach(const cuzk_g16_backend *be, cuzk_ctx *ctx, const cuzk_zkey *zk,
                                  const cuzk_curve_ops *ops, const cuzk_key_opts *opts, void **key_state,
                                  uint64_t *host_bytes, uint64_t *device_bytes, cuzk_error *err)
{
    (void)be;
    *key_state = NULL;
    gpu_key *gk = calloc(1, sizeof *gk);
    if (!gk)
        return cuzk_err(err, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    gk->ops = ops;
    cuzk_gpu_g16_key_src src;
    key_src(zk, &src);
    src.host = (cuzk_gpu_g16_host){.abc = host_abc, .quotient = host_quotient, .user = gk};
    cuzk_status st = cuzk_b_density_make(&gk->bd, zk->b1.ptr, zk->b2.ptr, zk->n_vars, ops->desc->g1_affine,
                                         ops->desc->g2_affine, ctx ? ctx->pool : NULL, err);
    if (st) {
        gpu_key_detach(gk);
        return st;
    }
    /* The key's own zkey (api.c): arrays this backend no longer reads are
     * freed (held keys; a mapped key's arrays stay in the page cache), which
     * is what the host plan counts (host_plan.c). With the GPU asked for
     * explicitly a failed attach fails the load, so the original B bases go
     * before the device key is made; with AUTO (the CPU may take the key
     * instead) only after it is. */
    cuzk_zkey *own = (cuzk_zkey *)(uintptr_t)zk;
    const bool explicit_gpu = opts && opts->backend == CUZK_BACKEND_GPU;
    size_t released = 0;
    if (gk->bd.index) { /* B1 and B2 without their points at infinity */
        src.shape.n_b = gk->bd.n;
        src.b_index = gk->bd.index;
        src.bases[2] = gk->bd.b1;
        src.bases[4] = gk->bd.b2;
        if (explicit_gpu)
            released = cuzk_zkey_release(own, CUZK_ZKEY_REL_B1 | CUZK_ZKEY_REL_B2);
    }
    cuzk_gpu_plan_opts po = {0};
    if (opts) {
        po.device = opts->device;
        po.budget = (size_t)opts->device_budget;
        po.workers = opts->gpu_workers;
        po.msm_copies = opts->gpu_msm_copies;
        po.stage_bases = opts->gpu_stage_bases;
        po.host.budget = opts->host_budget == UINT64_MAX ? SIZE_MAX : (size_t)opts->host_budget;
    }
    /* the host plan counts what is allocated already (the key read into
     * memory, the kept B wires' copies) as available */
    po.host.key_mapped = zk->map != NULL;
    po.host.held = (zk->map ? 0 : host_plan_key_data(&src.shape) - released) +
                   (gk->bd.index ? gk->bd.n * (sizeof(uint32_t) + ops->desc->g1_affine + ops->desc->g2_affine) : 0);
    st = cuzk_gpu_g16_key_attach(&gk->k, &src, &po, err);
    cuzk_gpu_plan plan;
    if (!st) {
        cuzk_gpu_g16_key_plan(gk->k, &plan, NULL);
        if (!plan.item[CUZK_GPU_ITEM_MSM_B1].streamed && !plan.item[CUZK_GPU_ITEM_MSM_B2].streamed)
            cuzk_b_density_drop_bases(&gk->bd); /* on the device now; only streamed items read them again */
        if (plan.host_witness) { /* tier 7: the CPU evaluates a, b, c */
            cuzk_coefs co;
            cuzk_coefs_of_zkey(&co, zk);
            st = cuzk_host_mem_check(cuzk_abc_plan_held_bytes(co.n, zk->domain_size, zk->coefs_sorted),
                                     "gpu prover: tier 7's a/b/c plan on the CPU would", err);
            if (!st)
                st = cuzk_abc_plan_build(&gk->plan, &co, zk->domain_size, ctx ? ctx->pool : NULL, err);
            gk->plan_made = !st;
        }
    }
    if (!st) { /* what the device key holds now (resident items, the CSR's own copy), the zkey need not */
        unsigned rel = gk->bd.index ? CUZK_ZKEY_REL_B1 | CUZK_ZKEY_REL_B2 : 0;
        if (!plan.item[CUZK_GPU_ITEM_MSM_H].streamed)
            rel |= CUZK_ZKEY_REL_H;
        if (!plan.item[CUZK_GPU_ITEM_MSM_A].streamed)
            rel |= CUZK_ZKEY_REL_A;
        if (!plan.item[CUZK_GPU_ITEM_MSM_C].streamed)
            rel |= CUZK_ZKEY_REL_C;
        if (!gk->bd.index && !plan.item[CUZK_GPU_ITEM_MSM_B1].streamed)
            rel |= CUZK_ZKEY_REL_B1;
        if (!gk->bd.index && !plan.item[CUZK_GPU_ITEM_MSM_B2].streamed)
            rel |= CUZK_ZKEY_REL_B2;
        if (!plan.host_witness) /* tier 7's A/B plan reads the records */
            rel |= CUZK_ZKEY_REL_COEFS;
        cuzk_zkey_release(own, rel);
    }
    if (st) {
        gpu_key_detach(gk);
        return st;
    }
    *key_state = gk;
    if (host_bytes) /* pinned witness (and tier 7: a, b, c) buffers, streamed coefficients, the A/B plan,
                       the kept B wires (index, and bases while streamed) */
        *host_bytes = (uint64_t)plan.workers * plan.host_pinned + plan.host.bases_stage +
                      (plan.item[CUZK_GPU_ITEM_COEFS].streamed ? plan.item[CUZK_GPU_ITEM_COEFS].data_bytes : 0) +
                      (gk->plan_made ? cuzk_abc_plan_bytes(&gk->plan) : 0) +
                      (gk->bd.index ? gk->bd.n * sizeof(uint32_t) : 0) +
                      (gk->bd.b1 ? gk->bd.n * (ops->desc->g1_affine + ops->desc->g2_affine) : 0);
    if (device_bytes)
        *device_bytes = plan.peak;
    return CUZK_OK;
}

static void gpu_plan_info(const void *key_state, unsigned *tier, unsigned *workers, uint64_t *host_peak)
{
    cuzk_gpu_plan p;
    cuzk_gpu_g16_key_plan(((const gpu_key *)key_state)->k, &p, NULL);
    *tier = p.tier;
    *workers = p.workers;
    *host_peak = p.host.peak;
}

static uint64_t gpu_device_peak(const void *key_state)
{
    size_t peak = 0;
    cuzk_gpu_g16_key_plan(((const gpu_key *)key_state)->k, NULL, &peak);
    return peak;
}

/* A proof: the device job and the context its spans and cancel poll go to. */
typedef struct {
    cuzk_gpu_g16_job *j;
    cuzk_ctx *ctx;
    int device;
} gpu_job;

/* Hands the job's completed device intervals to the context (wait: all of
 * them, once its work is done). */
static void report_spans(gpu_job *g, int wait) { cuzk_g16_gpu_report_spans(g->ctx, g->j, g->device, wait); }

static int job_cancelled(void *user) { return cuzk_ctx_cancelled(user); }

/* The witness's packing into pinned memory, spread over the context's pool. */
static void pool_parallel(void *user, size_t n, size_t grain, cuzk_gpu_g16_range_fn fn, void *arg)
{
    cuzk_parallel_for(((cuzk_ctx *)user)->pool, n, grain, fn, arg);
}

static cuzk_status gpu_job_begin(const void *key_state, cuzk_ctx *ctx, const void *w, void **job, cuzk_error *err)
{
    *job = NULL;
    gpu_job *g = calloc(1, sizeof *g);
    if (!g)
        return cuzk_err(err, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    g->ctx = ctx;
    const gpu_key *gk = key_state;
    g->device = cuzk_gpu_g16_key_device(gk->k);
    cuzk_gpu_g16_hooks h = {.host_user = ctx};
    if (ctx && ctx->opts.cancelled) {
        h.cancelled = job_cancelled;
        h.cancel_user = ctx;
    }
    if (ctx && ctx->pool && cuzk_pool_size(ctx->pool) > 1) {
        h.parallel = pool_parallel;
        h.parallel_user = ctx;
    }
    cuzk_status st = cuzk_gpu_g16_job_begin(&g->j, gk->k, w, NULL, &h, err);
    if (st) { /* the pipeline ends only jobs that began: release the slot and buffers now */
        cuzk_gpu_g16_job_end(g->j);
        free(g);
        return st;
    }
    *job = g;
    return CUZK_OK;
}

static void gpu_job_end(void *job)
{
    gpu_job *g = job;
    if (!g)
        return;
    report_spans(g, 1);
    cuzk_gpu_g16_job_end(g->j);
    free(g);
}

static cuzk_status gpu_abc(void *job, cuzk_error *err)
{
    gpu_job *g = job;
    cuzk_status st = cuzk_gpu_g16_job_abc(g->j, err);
    report_spans(g, 0);
    return st;
}

static cuzk_status gpu_ntt_quotient(void *job, cuzk_error *err)
{
    gpu_job *g = job;
    cuzk_status st = cuzk_gpu_g16_job_ntt(g->j, err);
    report_spans(g, 0);
    return st;
}

static cuzk_status gpu_msm(void *job, cuzk_g16_msm which, void *out, cuzk_error *err)
{
    gpu_job *g = job;
    cuzk_status st =
        cuzk_gpu_g16_job_msm(g->j, (cuzk_gpu_plan_item_id)(CUZK_GPU_ITEM_MSM_H + (int)which), out, err);
    report_spans(g, 0);
    return st;
}

static void gpu_msm_order(const void *job, cuzk_g16_msm order[CUZK_G16_MSM_COUNT])
{
    cuzk_gpu_plan_item_id o[CUZK_G16_MSM_COUNT];
    cuzk_gpu_g16_job_msm_order(((const gpu_job *)job)->j, o);
    for (int i = 0; i < CUZK_G16_MSM_COUNT; i++)
        order[i] = (cuzk_g16_msm)(o[i] - CUZK_GPU_ITEM_MSM_H);
}

static const cuzk_g16_backend GPU_BACKEND = {
    .name = "gpu",
    .kind = CUZK_BACKEND_GPU,
    .key_attach = gpu_key_attach,
    .key_detach = gpu_key_detach,
    .device_peak = gpu_device_peak,
    .plan_info = gpu_plan_info,
    .job_begin = gpu_job_begin,
    .job_end = gpu_job_end,
    .abc = gpu_abc,
    .ntt_quotient = gpu_ntt_quotient,
    .msm = gpu_msm,
    .msm_order = gpu_msm_order,
};

const cuzk_g16_backend *cuzk_g16_backend_gpu(void) { return &GPU_BACKEND; }

#endif /* CUZK_HAVE_GPU_PROVER */
