/* The bellperson-mode backends (bp.h): the pipeline's job steps over a
 * bellperson key, on the CPU (the curve's CPU kernels) and on a GPU (the
 * tiered GPU backend, gpu/g16/g16_backend.h, in its bellperson mode; without
 * CUDA its attach returns CUZK_ERR_UNSUPPORTED). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

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

/* The first j < m with src[j] not below r, SIZE_MAX when none. */
static size_t first_bad(const uint8_t *src, size_t m)
{
    for (size_t j = 0; j < m; j++) {
        uint64_t v[4];
        memcpy(v, src + j * 32, 32);
        if (!cuzk_bp_below_r(v))
            return j;
    }
    return SIZE_MAX;
}

/* A block of values checked in the source (a value whose top limb is below
 * r's is below r; the rest are compared whole), then copied: with
 * non-temporal stores where the destination is 16-byte aligned (the GPU's
 * page-locked staging chunks, which the device reads next: no read for
 * ownership, nothing left in the cache), else memcpy. A value at a time,
 * checked and copied, ran at half memcpy's rate, and the GPU's staging of
 * a, b, c is this copy. */
#define COPY_BLOCK 128 /* values: 4 KiB, in L1 between check and copy */

static void copy_block(uint8_t *out, const uint8_t *in, size_t k)
{
#if defined(__x86_64__)
    if (((uintptr_t)out & 15) == 0) {
        for (size_t i = 0; i < 2 * k; i++) {
            __m128i x;
            memcpy(&x, in + 16 * i, 16);
            _mm_stream_si128((__m128i *)(void *)(out + 16 * i), x);
        }
        return;
    }
#endif
    memcpy(out, in, k * 32);
}

size_t cuzk_bp_copy_range(void *dst, const void *src, size_t m, size_t b, size_t end)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    const size_t e = end < m ? end : m;
    const uint64_t rtop = bls12_381_fr_MODULUS.l[3];
    for (size_t j = b; j < e; j += COPY_BLOCK) {
        const size_t k = e - j < COPY_BLOCK ? e - j : COPY_BLOCK;
        const uint8_t *in = s + j * 32;
        uint64_t hi = 0;
        for (size_t i = 0; i < k; i++) {
            uint64_t t;
            memcpy(&t, in + i * 32 + 24, 8);
            hi |= (uint64_t)(t >= rtop);
        }
        for (size_t i = 0; hi && i < k; i++) {
            uint64_t v[4];
            memcpy(v, in + i * 32, 32);
            if (!cuzk_bp_below_r(v)) /* the error names the first bad value, whatever the range */
                return first_bad(s, m);
        }
        copy_block(d + (j - b) * 32, in, k);
    }
#if defined(__x86_64__)
    _mm_sfence(); /* the streamed stores ordered before the caller's next step (the DMA's start) */
#endif
    if (end > e)
        memset(d + (e > b ? e - b : 0) * 32, 0, (end - (e > b ? e : b)) * 32);
    return SIZE_MAX;
}

/* Value i of inp ++ aux. */
static const uint64_t *wire(const cuzk_bp_assignment *as, size_t i)
{
    return i < as->inp_size ? as->inp[i].l : as->aux[i - as->inp_size].l;
}

size_t cuzk_bp_witness_range(const cuzk_bp_assignment *as, size_t b, size_t e, void *dst)
{
    static const uint64_t one_raw[4] = {1, 0, 0, 0};
    uint64_t(*d)[4] = dst;
    for (size_t i = b; i < e; i++) {
        const uint64_t *x = wire(as, i);
        if ((x[0] | x[1] | x[2] | x[3]) == 0) {
            memset(d[i - b], 0, 32);
        } else if (!memcmp(x, &bls12_381_fr_ONE, 32)) {
            memcpy(d[i - b], one_raw, 32);
        } else if (cuzk_bp_below_r(x)) {
            bls12_381_fr_from_mont((bls12_381_fr_t *)d[i - b], (const bls12_381_fr_t *)x);
        } else { /* the first of all, for the one message */
            const size_t n = as->inp_size + as->aux_size;
            for (size_t j = 0; j < n; j++)
                if (!cuzk_bp_below_r(wire(as, j)))
                    return j;
            return i;
        }
    }
    return SIZE_MAX;
}

typedef struct {
    uint8_t *dst;
    const uint8_t *src;
    size_t m;
    _Atomic size_t bad;
} copy_job;

static void copy_in_range(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    copy_job *c = arg;
    if (cuzk_bp_copy_range(c->dst + b * 32, c->src, c->m, b, e) != SIZE_MAX)
        atomic_store(&c->bad, 1);
}

size_t cuzk_bp_copy_in(void *dst, const void *src, size_t m, size_t n, cuzk_pool *pool)
{
    copy_job c = {.dst = dst, .src = src, .m = m};
    atomic_init(&c.bad, 0);
    if (n)
        cuzk_parallel_for(pool, n, 1 << 14, copy_in_range, &c);
    return atomic_load(&c.bad) ? first_bad(src, m) : SIZE_MAX;
}

uint64_t *cuzk_bp_wire_bits(const uint64_t *inp, size_t ni, const uint64_t *aux, size_t nx)
{
    const size_t n = ni + nx, words = (n + 63) / 64;
    uint64_t *w = calloc(words ? words : 1, sizeof *w);
    if (!w)
        return NULL;
    for (size_t i = 0; i < ni; i++)
        if (!inp || (inp[i / 64] >> (i % 64)) & 1)
            w[i / 64] |= UINT64_C(1) << (i % 64);
    const size_t q = ni / 64, r = ni % 64;
    for (size_t k = 0; k < (nx + 63) / 64; k++) {
        uint64_t v = aux[k];
        if (k == nx / 64) /* the bits past nx */
            v &= (UINT64_C(1) << (nx % 64)) - 1;
        w[q + k] |= v << r;
        if (r && q + k + 1 < words)
            w[q + k + 1] |= v >> (64 - r);
    }
    return w;
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
    void *dom; /* bellperson's domain (CUZK_BP_GENERATOR): a, b, c in its order */
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
    cuzk_status st = s->ops->ntt_domain_create(&s->dom, k->log_n, CUZK_BP_GENERATOR, ctx ? ctx->pool : NULL, err);
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
        size_t bad = cuzk_bp_copy_in(dst[i], src[i], m, n, j->ctx->pool);
        if (bad != SIZE_MAX)
            return abc_range_err(err, &j->in, i, bad);
    }
    if (j->in.consumed) /* the caller's a, b, c are not read again */
        j->in.consumed(j->in.consumed_user, j->in.index);
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
 * The GPU Groth16 backend of snarkjs keys (gpu/g16/g16_backend.h) in its
 * bellperson mode: the same memory plan (tiers, W worker slots, pre-staged
 * uploads, resident or streamed MSM bases), with a proof's a, b, c staged
 * chunk by chunk through the worker slot's page-locked chunks by abc_range,
 * each a copy in the caller's order (the NTTs take bellperson's roots,
 * CUZK_BP_GENERATOR, as on the CPU) with the check against r, and its
 * witness packed for the bus straight from the assignment's Montgomery
 * values (witness_range: 0 and 1 as they are, the others converted; tier 7
 * raw into its page-locked slot), with the bitmaps of the wires A and B
 * take (from the densities). In every tier the device computes the
 * quotient; tier 7 keeps one page-locked domain vector per worker for the
 * cosets' product and h (DESIGN: it page-locked a, b, c whole, 12 GiB a
 * worker at 2^27, filled by a copy at job begin for the CPU quotient;
 * staged like the other tiers, the copy is the same, the host holds 4 GiB
 * a worker, and the quotient is two pointwise kernels that read the
 * product in place). The H MSM's result is scaled by -1/2 here, as on the
 * CPU. After each step the job's finished device intervals go to the
 * context's spans (gpu_spans.h), as for snarkjs keys. Built with CUDA only
 * (CUZK_HAVE_GPU_PROVER); without it attach fails with
 * CUZK_ERR_UNSUPPORTED. */

#ifdef CUZK_HAVE_GPU_PROVER
#include "gpu/g16/g16_backend.h"
#include "groth16/gpu_spans.h"

typedef struct {
    cuzk_gpu_g16_key *k;
    const cuzk_bpk *bk;
    const cuzk_curve_ops *ops;
} bp_gpu_key;

typedef struct {
    bp_gpu_key *k;
    cuzk_ctx *ctx;
    cuzk_bp_job_in in;
    cuzk_gpu_g16_job *j;
    int device;
} bp_gpu_job;

/* The job's completed device intervals to the context's spans (wait: all
 * of them, once its work is done), as the snarkjs keys' GPU backend does. */
static void bp_gpu_spans(bp_gpu_job *j, int wait) { cuzk_g16_gpu_report_spans(j->ctx, j->j, j->device, wait); }

/* Values [b, e) (the domain's order) of a, b or c into a staging chunk;
 * called on several threads at once for disjoint ranges. */
static cuzk_status bp_gpu_abc_range(void *key_user, void *job_user, int i, size_t b, size_t e, void *dst,
                                    cuzk_error *err)
{
    (void)key_user;
    const bp_gpu_job *j = job_user;
    const void *src = i == 0 ? j->in.as->a : i == 1 ? j->in.as->b : j->in.as->c;
    size_t bad = cuzk_bp_copy_range(dst, src, j->in.as->abc_size, b, e);
    return bad == SIZE_MAX ? CUZK_OK : abc_range_err(err, &j->in, i, bad);
}

/* Values [b, e) of the witness, raw, into dst (a tile, or tier 7's slot). */
static cuzk_status bp_gpu_witness_range(void *key_user, void *job_user, size_t b, size_t e, void *dst,
                                        cuzk_error *err)
{
    (void)key_user;
    const bp_gpu_job *j = job_user;
    const cuzk_bp_assignment *as = j->in.as;
    const size_t bad = cuzk_bp_witness_range(as, b, e, dst);
    if (bad == SIZE_MAX)
        return CUZK_OK;
    return cuzk_err(err, CUZK_ERR_USAGE, "circuit %zu: %s[%zu] is not below the scalar field order", j->in.index,
                    bad < as->inp_size ? "inp" : "aux", bad < as->inp_size ? bad : bad - as->inp_size);
}

/* The caller's a, b, c are read no more (the caller may free them). */
static void bp_gpu_abc_done(void *key_user, void *job_user)
{
    (void)key_user;
    const bp_gpu_job *j = job_user;
    if (j->in.consumed)
        j->in.consumed(j->in.consumed_user, j->in.index);
}

static void bp_gpu_detach(void *state)
{
    bp_gpu_key *s = state;
    if (!s)
        return;
    cuzk_gpu_g16_key_detach(s->k);
    free(s);
}

static cuzk_status bp_gpu_attach(const cuzk_bpk *k, const cuzk_bp_attach_opts *o, void **state,
                                 uint64_t *host_bytes, uint64_t *device_bytes, cuzk_error *err)
{
    bp_gpu_key *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_err(err, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    s->bk = k;
    s->ops = cuzk_curve_ops_get(CUZK_CURVE_BLS12_381);
    cuzk_gpu_g16_key_src src;
    memset(&src, 0, sizeof src);
    src.ntt_generator = CUZK_BP_GENERATOR;
    cuzk_bpk_shape(k, &src.shape);
    const bool mapped = cuzk_bpk_mapped(k);
    if (mapped) { /* the file's sections, converted on the device after each upload */
        src.bases[0] = k->enc[0]; /* H */
        src.bases[1] = k->enc[2]; /* A */
        src.bases[2] = k->enc[3]; /* B_G1 */
        src.bases[3] = k->enc[1]; /* L */
        src.bases[4] = k->enc[4]; /* B_G2 */
        src.bases_be = 1;
    } else {
        src.bases[0] = k->h;
        src.bases[1] = k->a;
        src.bases[2] = k->b1;
        src.bases[3] = k->l;
        src.bases[4] = k->b2;
    }
    src.host.abc_range = bp_gpu_abc_range;
    src.host.abc_done = bp_gpu_abc_done;
    src.host.witness_range = bp_gpu_witness_range;
    src.host.user = s;
    cuzk_gpu_plan_opts po = {0};
    if (o) {
        po.device = o->device;
        po.budget = (size_t)o->device_budget;
        po.workers = o->workers;
        po.stage_bases = o->stage_bases;
        po.host.budget = o->host_budget == UINT64_MAX ? SIZE_MAX : (size_t)o->host_budget;
    }
    /* a decoded key is held already: the host plan counts it as available;
     * a mapped one is page cache (page-locked where streamed) */
    po.host.key_mapped = mapped;
    po.host.held = mapped ? 0 : (size_t)cuzk_bpk_bytes(k);
    cuzk_status st = cuzk_gpu_g16_key_attach(&s->k, &src, &po, err);
    if (st) {
        bp_gpu_detach(s);
        return st;
    }
    cuzk_gpu_plan plan;
    cuzk_gpu_g16_key_plan(s->k, &plan, NULL);
    *host_bytes = sizeof *s + (uint64_t)plan.workers * plan.host_pinned + plan.host.bases_stage;
    *device_bytes = plan.peak;
    *state = s;
    return CUZK_OK;
}

static int bp_gpu_cancelled(void *user) { return cuzk_ctx_cancelled(user); }

static void bp_gpu_parallel(void *user, size_t n, size_t grain, cuzk_gpu_g16_range_fn fn, void *arg)
{
    cuzk_parallel_for(((cuzk_ctx *)user)->pool, n, grain, fn, arg);
}

static void bp_gpu_job_end(void *job)
{
    bp_gpu_job *j = job;
    if (!j)
        return;
    bp_gpu_spans(j, 1);
    cuzk_gpu_g16_job_end(j->j);
    free(j);
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
    j->device = cuzk_gpu_g16_key_device(j->k->k);
    cuzk_gpu_g16_hooks h = {.host_user = j};
    if (ctx->opts.cancelled) {
        h.cancelled = bp_gpu_cancelled;
        h.cancel_user = ctx;
    }
    if (ctx->pool && cuzk_pool_size(ctx->pool) > 1) {
        h.parallel = bp_gpu_parallel;
        h.parallel_user = ctx;
    }
    /* the wires A's and B's MSMs take, for their selection (on the device;
     * tier 7 on the host; the g16 job reads only those that are selections) */
    const cuzk_bp_assignment *as = j->in.as;
    uint64_t *sel[2] = {NULL, NULL};
    cuzk_status st = CUZK_OK;
    sel[0] = cuzk_bp_wire_bits(NULL, as->inp_size, as->a_aux_density, as->aux_size);
    sel[1] = cuzk_bp_wire_bits(as->b_inp_density, as->inp_size, as->b_aux_density, as->aux_size);
    if (!sel[0] || !sel[1])
        st = cuzk_err(err, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    /* waits for a worker slot and packs the witness into it from the
     * assignment (bp_gpu_witness_range; a, b, c are read at the step that
     * uploads them; bp_gpu_abc_done says when) */
    if (!st)
        st = cuzk_gpu_g16_job_begin(&j->j, j->k->k, NULL, (const uint64_t *const *)sel, &h, err);
    free(sel[0]);
    free(sel[1]);
    if (st) { /* the pipeline ends only jobs that began: release the slot and buffers now */
        cuzk_gpu_g16_job_end(j->j);
        free(j);
        return st;
    }
    *job = j;
    return CUZK_OK;
}

static cuzk_status bp_gpu_abc(void *job, cuzk_error *err)
{
    bp_gpu_job *j = job;
    cuzk_status st = cuzk_gpu_g16_job_abc(j->j, err);
    bp_gpu_spans(j, 0);
    return st;
}

static cuzk_status bp_gpu_ntt_quotient(void *job, cuzk_error *err)
{
    bp_gpu_job *j = job;
    cuzk_status st = cuzk_gpu_g16_job_ntt(j->j, err);
    bp_gpu_spans(j, 0);
    return st;
}

static cuzk_status bp_gpu_msm(void *job, cuzk_g16_msm which, void *out, cuzk_error *err)
{
    bp_gpu_job *j = job;
    cuzk_status st = cuzk_gpu_g16_job_msm(j->j, (cuzk_gpu_plan_item_id)(CUZK_GPU_ITEM_MSM_H + (int)which), out, err);
    bp_gpu_spans(j, 0);
    if (!st && which == CUZK_G16_MSM_H)
        h_scale(j->k->ops, out);
    return st;
}

static unsigned bp_gpu_workers(const void *state)
{
    cuzk_gpu_plan plan;
    cuzk_gpu_g16_key_plan(((const bp_gpu_key *)state)->k, &plan, NULL);
    return plan.workers;
}

static uint64_t bp_gpu_host_peak(const void *state)
{
    cuzk_gpu_plan plan;
    cuzk_gpu_g16_key_plan(((const bp_gpu_key *)state)->k, &plan, NULL);
    return plan.host.peak;
}

static uint64_t bp_gpu_device_peak(const void *state)
{
    size_t peak = 0;
    cuzk_gpu_g16_key_plan(((const bp_gpu_key *)state)->k, NULL, &peak);
    return peak;
}

#else /* no CUDA */

static void bp_gpu_detach(void *state) { (void)state; }

static cuzk_status bp_gpu_attach(const cuzk_bpk *k, const cuzk_bp_attach_opts *o, void **state,
                                 uint64_t *host_bytes, uint64_t *device_bytes, cuzk_error *err)
{
    (void)k, (void)o, (void)state, (void)host_bytes, (void)device_bytes;
    return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "cuzk GPU: built without CUDA");
}

static cuzk_status bp_gpu_job_begin(const void *key_state, cuzk_ctx *ctx, const void *w, void **job,
                                    cuzk_error *err)
{
    (void)key_state, (void)ctx, (void)w;
    *job = NULL;
    return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "cuzk GPU: built without CUDA");
}

static void bp_gpu_job_end(void *job) { (void)job; }

static cuzk_status bp_gpu_abc(void *job, cuzk_error *err)
{
    (void)job;
    return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "cuzk GPU: built without CUDA");
}

static cuzk_status bp_gpu_ntt_quotient(void *job, cuzk_error *err) { return bp_gpu_abc(job, err); }

static cuzk_status bp_gpu_msm(void *job, cuzk_g16_msm which, void *out, cuzk_error *err)
{
    (void)which, (void)out;
    return bp_gpu_abc(job, err);
}

static unsigned bp_gpu_workers(const void *state)
{
    (void)state;
    return 1;
}

static uint64_t bp_gpu_device_peak(const void *state)
{
    (void)state;
    return 0;
}

static uint64_t bp_gpu_host_peak(const void *state)
{
    (void)state;
    return 0;
}

#endif

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

unsigned cuzk_bp_backend_workers(const cuzk_g16_backend *be, const void *state)
{
    return be == &BP_GPU && state ? bp_gpu_workers(state) : 1;
}

bool cuzk_bp_backend_raw_scalars(const cuzk_g16_backend *be) { return be != &BP_GPU; }

uint64_t cuzk_bp_backend_device_peak(const cuzk_g16_backend *be, const void *state)
{
    return be == &BP_GPU && state ? bp_gpu_device_peak(state) : 0;
}

uint64_t cuzk_bp_backend_host_peak(const cuzk_g16_backend *be, const void *state)
{
    return be == &BP_GPU && state ? bp_gpu_host_peak(state) : 0;
}
