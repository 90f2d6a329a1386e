/* The bellperson-mode backends (bp.h): the pipeline's job steps over a
 * bellperson key, on the CPU (the curve's CPU kernels) and on a GPU (the
 * NTT, pointwise and MSM kernels of src/gpu through their C API, so this
 * file is plain C in every build; without CUDA the GPU calls return
 * CUZK_ERR_UNSUPPORTED). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu.h"
#include "gpu/gpu_mem.h"
#include "gpu/g16.h"
#include "groth16/bp.h"
#include "groth16/ctx.h"

void cuzk_bp_h_factor(uint64_t raw[4])
{
    /* -1/2 = (r - 1) / 2 (r is odd) */
    const uint64_t *r = bls12_381_fr_MODULUS.l;
    uint64_t t[4];
    memcpy(t, r, sizeof t);
    t[0] -= 1; /* r is odd: no borrow */
    for (int i = 0; i < 4; i++)
        raw[i] = (t[i] >> 1) | (i < 3 ? t[i + 1] << 63 : 0);
}

/* The H MSM's result times -1/2 (bp.h). */
static void h_scale(const cuzk_curve_ops *ops, void *jac)
{
    uint64_t f[4];
    cuzk_bp_h_factor(f);
    ops->g1_mul_jac(jac, jac, f, 4);
}

bool cuzk_bp_below_r(const uint64_t *x)
{
    const uint64_t *r = bls12_381_fr_MODULUS.l;
    for (int i = 3; i >= 0; i--)
        if (x[i] != r[i])
            return x[i] < r[i];
    return false;
}

typedef struct {
    uint8_t *dst;
    const uint8_t *src;
    uint64_t e, mask;
    _Atomic size_t bad;
} scatter_job;

static void scatter_range(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    scatter_job *s = arg;
    for (size_t j = b; j < e; j++) {
        uint64_t v[4];
        memcpy(v, s->src + j * 32, 32);
        if (!cuzk_bp_below_r(v)) {
            size_t cur = atomic_load(&s->bad);
            while (j < cur && !atomic_compare_exchange_weak(&s->bad, &cur, j))
                ;
            return;
        }
        memcpy(s->dst + ((s->e * j) & s->mask) * 32, v, 32);
    }
}

size_t cuzk_bp_scatter(void *dst, const void *src, size_t m, size_t n, uint64_t e, cuzk_pool *pool)
{
    memset(dst, 0, n * 32);
    scatter_job s = {.dst = dst, .src = src, .e = e, .mask = n - 1};
    atomic_init(&s.bad, SIZE_MAX);
    if (m)
        cuzk_parallel_for(pool, m, 1 << 14, scatter_range, &s);
    return atomic_load(&s.bad);
}

/* The one message of a value of a, b or c that is not below r. */
static cuzk_status abc_range_err(cuzk_error *err, const cuzk_bp_job_in *in, int which, size_t j)
{
    return cuzk_err(err, CUZK_ERR_USAGE, "circuit %zu: %c[%zu] is not below the scalar field order", in->index,
                    "abc"[which], j);
}

/* ---- CPU ---------------------------------------------------------------- */

typedef struct {
    const cuzk_bpk *k;
    const cuzk_curve_ops *ops;
    void *dom;
    uint64_t e; /* cuzk_bp_domain_e */
} bp_cpu_key;

typedef struct {
    const bp_cpu_key *k;
    cuzk_ctx *ctx;
    cuzk_bp_job_in in;
    uint8_t *a, *b, *c; /* n values each; a holds h's coefficients (raw) after ntt_quotient */
} bp_cpu_job;

static cuzk_status bp_cpu_attach(cuzk_ctx *ctx, const cuzk_bpk *k, void **state, uint64_t *host_bytes,
                                 cuzk_error *err)
{
    bp_cpu_key *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory preparing the parameters");
    s->k = k;
    s->ops = cuzk_curve_ops_get(CUZK_CURVE_BLS12_381);
    s->e = cuzk_bp_domain_e(k->log_n);
    cuzk_status st = s->ops->ntt_domain_create(&s->dom, k->log_n, ctx ? ctx->pool : NULL, err);
    if (st) {
        free(s);
        return st;
    }
    *host_bytes = sizeof *s + s->ops->ntt_domain_bytes(s->dom);
    *state = s;
    return CUZK_OK;
}

static void bp_cpu_detach(void *state)
{
    bp_cpu_key *s = state;
    if (!s)
        return;
    if (s->dom)
        s->ops->ntt_domain_free(s->dom);
    free(s);
}

static cuzk_status bp_cpu_job_begin(const void *key_state, cuzk_ctx *ctx, const void *w, void **job,
                                    cuzk_error *err)
{
    *job = NULL;
    bp_cpu_job *j = calloc(1, sizeof *j);
    if (!j)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory starting a proof");
    j->k = key_state;
    j->ctx = ctx;
    j->in = *(const cuzk_bp_job_in *)w;
    *job = j;
    return CUZK_OK;
}

static void bp_cpu_job_end(void *job)
{
    bp_cpu_job *j = job;
    if (!j)
        return;
    cuzk_free(j->a);
    cuzk_free(j->b);
    cuzk_free(j->c);
    free(j);
}

static cuzk_status bp_cpu_abc(void *job, cuzk_error *err)
{
    bp_cpu_job *j = job;
    const size_t n = j->k->k->n, m = j->in.as->abc_size;
    j->a = cuzk_alloc(n, 32);
    j->b = cuzk_alloc(n, 32);
    j->c = cuzk_alloc(n, 32);
    if (!j->a || !j->b || !j->c)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the a, b, c vectors (3 x %zu elements)", n);
    uint8_t *dst[3] = {j->a, j->b, j->c};
    const void *src[3] = {j->in.as->a, j->in.as->b, j->in.as->c};
    for (int i = 0; i < 3; i++) {
        size_t bad = cuzk_bp_scatter(dst[i], src[i], m, n, j->k->e, j->ctx->pool);
        if (bad != SIZE_MAX)
            return abc_range_err(err, &j->in, i, bad);
    }
    return CUZK_OK;
}

static cuzk_status bp_cpu_ntt_quotient(void *job, cuzk_error *err)
{
    bp_cpu_job *j = job;
    const bp_cpu_key *k = j->k;
    const cuzk_curve_ops *ops = k->ops;
    cuzk_pool *pool = j->ctx->pool;
    uint8_t *v[3] = {j->a, j->b, j->c};
    for (int i = 0; i < 3; i++) {
        cuzk_status st;
        if ((i && (st = cuzk_check_cancel(j->ctx, err))) || (st = ops->ntt_coset_odd(k->dom, v[i], pool, err)))
            return st;
        cuzk_progress(j->ctx, CUZK_PHASE_NTT, (i + 1) / 4.0);
    }
    ops->h_pointwise(j->a, j->b, j->c, k->k->n, pool); /* raw(a.b - c) on the odd coset */
    cuzk_free(j->b);
    cuzk_free(j->c);
    j->b = j->c = NULL;
    /* back to coefficients (a linear map: raw values in, raw values out) */
    ops->ntt(k->dom, j->a, true, true, pool);
    return CUZK_OK;
}

static cuzk_status bp_g1_msm(const cuzk_curve_ops *ops, void *out, const void *bases, const void *sc, size_t n,
                             cuzk_pool *pool, cuzk_error *err)
{
    if (!n) { /* Jacobian infinity: z = 0 */
        memset(out, 0, ops->desc->g1_jac);
        return CUZK_OK;
    }
    return ops->g1_msm(out, bases, sc, n, pool, err);
}

static cuzk_status bp_cpu_msm(void *job, cuzk_g16_msm which, void *out, cuzk_error *err)
{
    bp_cpu_job *j = job;
    const cuzk_bpk *k = j->k->k;
    const cuzk_curve_ops *ops = j->k->ops;
    cuzk_pool *pool = j->ctx->pool;
    cuzk_status st;
    switch (which) {
    case CUZK_G16_MSM_H:
        st = bp_g1_msm(ops, out, k->h, j->a, k->n - 1, pool, err);
        cuzk_free(j->a);
        j->a = NULL;
        if (!st)
            h_scale(ops, out);
        return st;
    case CUZK_G16_MSM_A: return bp_g1_msm(ops, out, k->a, j->in.sc_a, k->n_a, pool, err);
    case CUZK_G16_MSM_B1: return bp_g1_msm(ops, out, k->b1, j->in.sc_b, k->n_b, pool, err);
    case CUZK_G16_MSM_C: return bp_g1_msm(ops, out, k->l, j->in.sc_l, k->n_aux, pool, err);
    case CUZK_G16_MSM_B2:
        if (!k->n_b) {
            memset(out, 0, ops->desc->g2_jac);
            return CUZK_OK;
        }
        return ops->g2_msm(out, k->b2, j->in.sc_b, k->n_b, pool, err);
    default: return cuzk_err(err, CUZK_ERR_INTERNAL, "unknown MSM %d", (int)which);
    }
}

static const cuzk_g16_backend BP_CPU = {
    .name = "cpu",
    .kind = CUZK_BACKEND_CPU,
    .job_begin = bp_cpu_job_begin,
    .job_end = bp_cpu_job_end,
    .abc = bp_cpu_abc,
    .ntt_quotient = bp_cpu_ntt_quotient,
    .msm = bp_cpu_msm,
};

const cuzk_g16_backend *cuzk_bp_backend_cpu(void) { return &BP_CPU; }

/* ---- GPU -----------------------------------------------------------------
 * Key: the NTT tables, three device vectors of the domain (a, b, c; made
 * first, so that a proof never allocates), and one MSM handle per section,
 * made in the order H, L, A, B_G1, B_G2, each with the device memory left
 * (resident when it fits, else streamed from the key's host arrays, which
 * are page-locked for the handle's life). Jobs on one key take its lock in
 * turn (one proof on the device at a time). */

enum { BP_M_H, BP_M_L, BP_M_A, BP_M_B1, BP_M_B2, BP_M_COUNT };

typedef struct {
    const cuzk_bpk *k;
    const cuzk_curve_ops *ops;
    int device;
    void *stream;
    cuzk_gpu_ntt *ntt;
    void *d_v[3];
    void *h_stage; /* pinned, n values: a, b, c permuted into the NTT's order on their way up */
    uint64_t e;
    cuzk_gpu_msm *msm[BP_M_COUNT];
    uint64_t device_bytes;
    pthread_mutex_t lock;
    bool lock_made;
} bp_gpu_key;

typedef struct {
    bp_gpu_key *k;
    cuzk_ctx *ctx;
    cuzk_bp_job_in in;
    bool locked;
} bp_gpu_job;

static void bp_gpu_detach(void *state)
{
    bp_gpu_key *s = state;
    if (!s)
        return;
    for (int i = 0; i < BP_M_COUNT; i++)
        cuzk_gpu_msm_destroy(s->msm[i]);
    for (int i = 0; i < 3; i++)
        if (s->d_v[i])
            cuzk_gpu_dev_free(s->d_v[i], s->device);
    cuzk_gpu_ntt_destroy(s->ntt);
    if (s->h_stage)
        cuzk_gpu_host_free(s->h_stage);
    if (s->stream)
        cuzk_gpu_stream_destroy(s->stream);
    if (s->lock_made)
        pthread_mutex_destroy(&s->lock);
    free(s);
}

static cuzk_status bp_gpu_attach(const cuzk_bpk *k, const cuzk_bp_attach_opts *o, void **state,
                                 uint64_t *host_bytes, uint64_t *device_bytes, cuzk_error *err)
{
    bp_gpu_key *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_err(err, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    s->k = k;
    s->ops = cuzk_curve_ops_get(CUZK_CURVE_BLS12_381);
    s->device = o ? o->device : 0;
    s->e = cuzk_bp_domain_e(k->log_n);
    const cuzk_curve c = CUZK_CURVE_BLS12_381;
    size_t free0 = 0, total = 0;
    cuzk_status st = pthread_mutex_init(&s->lock, NULL) ? cuzk_err(err, CUZK_ERR_INTERNAL, "gpu prover: mutex")
                                                        : CUZK_OK;
    s->lock_made = !st;
    if (!st)
        st = cuzk_gpu_mem_info(s->device, &free0, &total, err);
    if (!st)
        st = cuzk_gpu_stream_create(&s->stream, s->device, err);
    if (!st)
        st = cuzk_gpu_ntt_create(&s->ntt, c, k->log_n, s->device, err);
    for (int i = 0; i < 3 && !st; i++)
        st = cuzk_gpu_dev_alloc(&s->d_v[i], k->n * 32, s->device, err);
    if (!st)
        st = cuzk_gpu_host_alloc(&s->h_stage, k->n * 32, err);
    /* MSM handles: each gets what is left of the budget */
    const struct {
        const void *bases;
        size_t n;
        cuzk_gpu_group g;
    } m[BP_M_COUNT] = {
        [BP_M_H] = {k->h, k->n - 1, CUZK_GPU_G1}, [BP_M_L] = {k->l, k->n_aux, CUZK_GPU_G1},
        [BP_M_A] = {k->a, k->n_a, CUZK_GPU_G1},   [BP_M_B1] = {k->b1, k->n_b, CUZK_GPU_G1},
        [BP_M_B2] = {k->b2, k->n_b, CUZK_GPU_G2},
    };
    /* What the NTT and the vectors leave of the budget (or of the free
     * memory, less max(512 MiB, 2 %)) is shared by the five handles in
     * proportion to their bases' bytes: each plans within its share
     * (resident, with copies where they fit, or streamed), so the first
     * handle cannot take the memory the others need. */
    uint64_t avail = 0, weight[BP_M_COUNT] = {0}, wsum = 0;
    if (!st) {
        size_t fr = 0, tot = 0;
        st = cuzk_gpu_mem_info(s->device, &fr, &tot, err);
        uint64_t used = free0 > fr ? free0 - fr : 0;
        uint64_t margin = tot / 50 > (512ull << 20) ? tot / 50 : 512ull << 20;
        if (!st && o && o->device_budget)
            avail = o->device_budget > used ? o->device_budget - used : 0;
        else if (!st)
            avail = fr > margin ? fr - margin : 0;
        for (int i = 0; i < BP_M_COUNT; i++) {
            weight[i] = (uint64_t)m[i].n * (m[i].g == CUZK_GPU_G2 ? 192 : 96);
            wsum += weight[i];
        }
    }
    for (int i = 0; i < BP_M_COUNT && !st; i++) {
        if (!m[i].n)
            continue;
        cuzk_gpu_msm_config cfg = {.pin_host_bases = 1};
        cfg.device_budget = (size_t)((double)avail * (double)weight[i] / (double)(wsum ? wsum : 1));
        if (!cfg.device_budget) {
            st = cuzk_err(err, CUZK_ERR_NOMEM, "gpu prover: the device budget is used up before the %s MSM",
                          i == BP_M_H ? "H" : i == BP_M_L ? "L" : i == BP_M_A ? "A" : i == BP_M_B1 ? "B_G1" : "B_G2");
            break;
        }
        st = cuzk_gpu_msm_create(&s->msm[i], c, m[i].g, m[i].bases, m[i].n, 0, s->device, &cfg, err);
    }
    if (!st) {
        size_t fr = 0, tot = 0;
        if (!(st = cuzk_gpu_mem_info(s->device, &fr, &tot, err)))
            s->device_bytes = free0 > fr ? free0 - fr : 0;
    }
    if (st) {
        bp_gpu_detach(s);
        return st;
    }
    *host_bytes = sizeof *s + k->n * 32;
    *device_bytes = s->device_bytes;
    *state = s;
    return CUZK_OK;
}

static cuzk_status bp_gpu_job_begin(const void *key_state, cuzk_ctx *ctx, const void *w, void **job,
                                    cuzk_error *err)
{
    *job = NULL;
    bp_gpu_job *j = calloc(1, sizeof *j);
    if (!j)
        return cuzk_err(err, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    j->k = (bp_gpu_key *)key_state;
    j->ctx = ctx;
    j->in = *(const cuzk_bp_job_in *)w;
    pthread_mutex_lock(&j->k->lock);
    j->locked = true;
    *job = j;
    return CUZK_OK;
}

static void bp_gpu_job_end(void *job)
{
    bp_gpu_job *j = job;
    if (!j)
        return;
    if (j->locked) {
        cuzk_error e = {0};
        cuzk_gpu_stream_sync(j->k->stream, &e); /* nothing of this job may still run */
        pthread_mutex_unlock(&j->k->lock);
    }
    free(j);
}

static cuzk_status bp_gpu_abc(void *job, cuzk_error *err)
{
    bp_gpu_job *j = job;
    bp_gpu_key *k = j->k;
    const size_t n = k->k->n, m = j->in.as->abc_size;
    const void *src[3] = {j->in.as->a, j->in.as->b, j->in.as->c};
    cuzk_status st = CUZK_OK;
    for (int i = 0; i < 3 && !st; i++) { /* one staging buffer: each upload ends before the next scatter */
        size_t bad = cuzk_bp_scatter(k->h_stage, src[i], m, n, k->e, j->ctx->pool);
        if (bad != SIZE_MAX)
            return abc_range_err(err, &j->in, i, bad);
        st = cuzk_gpu_copy(k->d_v[i], k->h_stage, n * 32, k->stream, err);
        if (!st)
            st = cuzk_gpu_stream_sync(k->stream, err);
    }
    return st;
}

static cuzk_status bp_gpu_ntt_quotient(void *job, cuzk_error *err)
{
    bp_gpu_job *j = job;
    bp_gpu_key *k = j->k;
    const unsigned lg = k->k->log_n;
    cuzk_status st = CUZK_OK;
    for (int i = 0; i < 3 && !st; i++)
        st = cuzk_gpu_ntt_run(k->ntt, k->d_v[i], lg, CUZK_GPU_NTT_ODD_COSET, k->stream, err);
    if (!st)
        st = cuzk_gpu_g16_pointwise(CUZK_CURVE_BLS12_381, k->d_v[0], k->d_v[1], k->d_v[2], k->k->n,
                                    CUZK_GPU_G16_QUOTIENT, k->stream, err);
    /* back to coefficients: raw in, raw out (a linear map) */
    if (!st)
        st = cuzk_gpu_ntt_run(k->ntt, k->d_v[0], lg, CUZK_GPU_NTT_COSET_INVERSE, k->stream, err);
    if (!st)
        st = cuzk_gpu_stream_sync(k->stream, err);
    return st;
}

static cuzk_status bp_gpu_msm(void *job, cuzk_g16_msm which, void *out, cuzk_error *err)
{
    bp_gpu_job *j = job;
    bp_gpu_key *k = j->k;
    const cuzk_bpk *bk = k->k;
    const cuzk_curve_ops *ops = k->ops;
    int id;
    const void *sc;
    size_t n;
    int on_dev = 0;
    switch (which) {
    case CUZK_G16_MSM_H: id = BP_M_H, sc = k->d_v[0], n = bk->n - 1, on_dev = 1; break;
    case CUZK_G16_MSM_A: id = BP_M_A, sc = j->in.sc_a, n = bk->n_a; break;
    case CUZK_G16_MSM_B1: id = BP_M_B1, sc = j->in.sc_b, n = bk->n_b; break;
    case CUZK_G16_MSM_C: id = BP_M_L, sc = j->in.sc_l, n = bk->n_aux; break;
    case CUZK_G16_MSM_B2: id = BP_M_B2, sc = j->in.sc_b, n = bk->n_b; break;
    default: return cuzk_err(err, CUZK_ERR_INTERNAL, "unknown MSM %d", (int)which);
    }
    if (!n) {
        memset(out, 0, which == CUZK_G16_MSM_B2 ? ops->desc->g2_jac : ops->desc->g1_jac);
        return CUZK_OK;
    }
    cuzk_status st = cuzk_gpu_msm_run(k->msm[id], out, sc, n, on_dev, k->stream, err);
    if (!st && which == CUZK_G16_MSM_H)
        h_scale(ops, out);
    return st;
}

static const cuzk_g16_backend BP_GPU = {
    .name = "gpu",
    .kind = CUZK_BACKEND_GPU,
    .job_begin = bp_gpu_job_begin,
    .job_end = bp_gpu_job_end,
    .abc = bp_gpu_abc,
    .ntt_quotient = bp_gpu_ntt_quotient,
    .msm = bp_gpu_msm,
};

const cuzk_g16_backend *cuzk_bp_backend_gpu(void) { return &BP_GPU; }

cuzk_status cuzk_bp_backend_attach(const cuzk_g16_backend *be, cuzk_ctx *ctx, const cuzk_bpk *k,
                                   const cuzk_bp_attach_opts *o, void **state, uint64_t *host_bytes,
                                   uint64_t *device_bytes, cuzk_error *err)
{
    *state = NULL;
    *host_bytes = *device_bytes = 0;
    if (be == &BP_CPU)
        return bp_cpu_attach(ctx, k, state, host_bytes, err);
    if (be == &BP_GPU)
        return bp_gpu_attach(k, o, state, host_bytes, device_bytes, err);
    return cuzk_err(err, CUZK_ERR_INTERNAL, "not a bellperson backend");
}

void cuzk_bp_backend_detach(const cuzk_g16_backend *be, void *state)
{
    if (be == &BP_CPU)
        bp_cpu_detach(state);
    else if (be == &BP_GPU)
        bp_gpu_detach(state);
}
