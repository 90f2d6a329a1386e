/* The GPU Groth16 backend (src/gpu/g16/g16_backend.h): a key's device data per
 * its memory plan and the device steps of a proof. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <atomic>

#include "gpu/ec/curve_ops.cuh"
#include "gpu/g16/g16_backend.h"
#include "gpu/g16/g16_shape.h"
#include "gpu/device/gpu_common.cuh"
#include "gpu/msm/msm_async.h"
#include "gpu/plan/plan.h"
#include "gpu/g16/wpack.h"
#include "util/bitsel.h"
#include "util/common.h"

#define NMSM 5
#define MAX_WORKERS 64

/* A worker slot's streams and events, made once at attach and reused by the
 * slot's jobs: the driver's own allocations for them are made before any
 * proof, so a proof refused for want of device memory cannot be the one that
 * leaves them behind. */
struct slot_res {
    cudaStream_t cs, up;     /* compute, copies */
    cudaEvent_t ev_w;        /* witness on the device */
    cudaEvent_t ev_ref;      /* a job's event clock origin */
    cudaEvent_t t0[CUZK_GPU_PHASE_COUNT], t1[CUZK_GPU_PHASE_COUNT];
    void *stage[2];          /* bellperson mode: a, b, c's page-locked staging chunks */
    cudaEvent_t ev_stage[2]; /* ... each one's last copy to the device */
};

struct cuzk_gpu_g16_key {
    cuzk_gpu_g16_key_src src;
    cuzk_gpu_plan plan;
    int device;
    cuzk_gpu_g16_csr *csr;   /* coefficients: resident, or streamed (device part acquired per job) */
    cuzk_gpu_ntt *ntt;
    cuzk_gpu_msm *msm[NMSM]; /* resident handles, NULL for streamed items */
    bool pinned_bases[NMSM]; /* streamed item's host bases are page-locked */
    bool registered[NMSM];   /* ... by this key (unregistered at free) */
    cuzk_gpu_msm_stager *stager; /* plan.bases_staged: the staging chunks of every streamed handle */
    void *pinned[MAX_WORKERS];     /* witness slots: raw (tier 7) or packed (gpu/g16/wpack.h: the whole values) */
    void *pinned_index[MAX_WORKERS]; /* tiers 1-6: the packed witness's codes and tile offsets */
    void *dev_full[MAX_WORKERS], *dev_index[MAX_WORKERS]; /* their device-visible addresses */
    void *pinned_abc[MAX_WORKERS]; /* tier 7: a, b, c of each worker slot (bellperson mode: one domain
                                      vector, mapped; tiers 1-6: slot_res.stage); h in its first */
    void *dev_abc[MAX_WORKERS];    /* bellperson mode, tier 7: its device-visible address */
    void *pinned_b[MAX_WORKERS];   /* tier 7, B wires dropped: the kept B wires' scalars of each slot */
    void *d_bindex;                /* B wires dropped, tiers 1-6: their indices on the device */
    slot_res res[MAX_WORKERS];     /* streams and events of each worker slot */
    bool slot_busy[MAX_WORKERS];
    pthread_mutex_t mu;      /* slots, measured peak */
    pthread_cond_t cv;
    pthread_mutex_t alloc_mu; /* every device allocation and free of the key and its jobs */
    pthread_mutex_t gpu_lock; /* a job's device phases, abc to the last MSM */
    pthread_mutex_t stage_mu; /* pre-staging tiers: one job stages its witness (and bellperson's a, b,
                                 c) at a time (DESIGN: two at once share the host's memory bandwidth and
                                 both finish late, the first proof of a call waiting for both) */
    size_t base_free;        /* free device memory at attach, before anything of the key */
    size_t peak_used;
    bool sync_made;
};

/* A host call made for a job's device work: waiting for the GPU lock, an
 * allocation or a free, an MSM handle made or destroyed, a wait for the
 * stream, an MSM's sums combined. Recorded always (a clock read on each
 * side), handed out by job_spans: the device's idle gaps between phases are
 * the host's time under the lock, and these say what it was spent on. */
#define HOST_CALLS 64 /* a job's recorded calls; more are not recorded */
struct host_call_rec {
    const char *name;
    int phase;
    double start, end;
};

struct cuzk_gpu_g16_job {
    cuzk_gpu_g16_key *k;
    int slot;
    bool locked;
    /* the slot's (slot_res): */
    cudaStream_t cs, up;     /* compute, copies */
    cudaEvent_t ev_w;        /* witness on the device */
    cudaEvent_t ev_ref;      /* recorded and waited for at begin: the event clock's origin */
    double t_ref;            /* host clock (cuzk_now) when ev_ref completed */
    cudaEvent_t *t0, *t1;    /* per phase */
    bool recorded[CUZK_GPU_PHASE_COUNT]; /* the phase's end event is recorded */
    bool reported[CUZK_GPU_PHASE_COUNT]; /* handed out by job_spans */
    void *d_w, *d_a, *d_b, *d_c;
    void *d_sel;             /* bellperson mode: A's, then B's selected scalars (d_a, or its own buffer) */
    const void *witness;     /* the caller's raw witness, or NULL: host.witness_range gives it */
    uint64_t *host_bits[2];  /* bellperson mode, tier 7: the wires of A and B (those that are
                                selections), selected into the pinned vector at their MSMs */
    bool w_issued;
    bool host_abc, host_h;   /* tier 7: a, b, c in the pinned slot (bellperson mode: staged at ntt); h there */
    void *host_user;
    bool csr_held;           /* streamed coefficients acquired for this job's abc/ntt */
    cuzk_gpu_g16_hooks hooks; /* the job's (zero when none): the parallel hook stages a, b, c */
    bool abc_read;           /* bellperson mode: the caller's a, b, c read for the last time */
    bool pipelined;          /* all MSMs resident: issue the next before finishing one */
    int order[NMSM];         /* the MSMs (0 H .. 4 B2) in the order they run (job_msm_order) */
    int next_msm;            /* 0..5: MSMs done (order[next_msm] is the next) */
    cuzk_gpu_msm_ticket tk[NMSM];
    cuzk_gpu_msm *pre[NMSM]; /* per-proof handles made ahead of their phase (plan: prefetch_from) */
    cuzk_gpu_g16_cancel_fn cancelled;
    void *user;
    /* the host's calls for the job's device work (job_spans, stream 2) */
    int cur_phase;           /* the phase its steps serve now */
    host_call_rec hc[HOST_CALLS];
    unsigned nhc, hc_reported;
};

/* Witness upload step: its tiles are packed into the pinned slot by the
 * host (in parallel ranges of W_GRAIN tiles), then expanded on the device
 * while the host packs the next step. */
#define W_STEP_TILES 1024u
#define W_GRAIN_TILES 16u

namespace {

/* Records the enclosing scope as a host call of job j (none when j is NULL). */
struct host_call {
    cuzk_gpu_g16_job *j;
    const char *name;
    double t0;
    host_call(cuzk_gpu_g16_job *job, const char *n) : j(job), name(n), t0(cuzk_now()) {}
    ~host_call()
    {
        if (j && j->nhc < HOST_CALLS) j->hc[j->nhc++] = {name, j->cur_phase, t0, cuzk_now()};
    }
    host_call(const host_call &) = delete;
    host_call &operator=(const host_call &) = delete;
};

/* The GPU lock, its wait recorded. */
void gpu_lock(cuzk_gpu_g16_job *j)
{
    host_call hc(j, "wait_gpu");
    pthread_mutex_lock(&j->k->gpu_lock);
    j->locked = true;
}

/* Bytes of MSM `msm`'s result (a key's curve is known: its plan was made). */
size_t jac_bytes(cuzk_curve c, int msm)
{
    const cuzk_curve_desc *d = cuzk_gpu_curve_ops_get(c)->desc;
    return msm == NMSM - 1 ? d->g2_jac : d->g1_jac;
}

/* Whether the key keeps only the wires with a B point (groth16/b_density.h)
 * and their scalars are gathered on the device (bellperson mode: on the
 * host, with the witness). */
bool b_dropped(const cuzk_gpu_key_shape *s) { return !s->bellperson && g16_shape_b_dropped(s); }

size_t msm_points(const cuzk_gpu_key_shape *s, int i)
{
    switch (i) {
    case 0: return g16_shape_h_points(s);
    case 1: return g16_shape_a_points(s);
    case 2:
    case 4: return g16_shape_b_points(s);
    default: return s->n_vars - s->n_public - 1;
    }
}

/* Device memory in use over the free memory at attach; keeps the maximum. */
void sample(cuzk_gpu_g16_key *k)
{
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) {
        cudaGetLastError();
        return;
    }
    size_t used = k->base_free > f ? k->base_free - f : 0;
    pthread_mutex_lock(&k->mu);
    if (used > k->peak_used) k->peak_used = used;
    pthread_mutex_unlock(&k->mu);
}

cuzk_status dev_alloc(cuzk_gpu_g16_key *k, void **p, size_t bytes, const char *what, cuzk_error *e)
{
    pthread_mutex_lock(&k->alloc_mu);
    cudaError_t rc = cudaMalloc(p, bytes ? bytes : 1);
    pthread_mutex_unlock(&k->alloc_mu);
    if (rc != cudaSuccess) {
        cudaGetLastError();
        *p = NULL;
        if (rc == cudaErrorMemoryAllocation) /* the plan counted on it: something else took it */
            return cuzk_err(e, CUZK_ERR_NOMEM,
                            "gpu prover: device %d ran out of memory allocating the %s (%zu bytes) that the "
                            "memory plan counted on (another process or key took it?)",
                            k->device, what, bytes);
        return cuzk_err(e, CUZK_ERR_GPU, "gpu prover: allocating the %s (%zu bytes) failed: %s", what, bytes,
                        cudaGetErrorString(rc));
    }
    return CUZK_OK;
}

/* Waits for ev, polling the job's cancel callback; without one, returns at
 * once (the stream orders the work; the caller need not wait). */
cuzk_status wait_polled(cuzk_gpu_g16_job *j, cudaEvent_t ev, cuzk_error *e)
{
    if (!j->cancelled) return CUZK_OK;
    cudaError_t q;
    while ((q = cudaEventQuery(ev)) == cudaErrorNotReady) {
        if (j->cancelled(j->user)) return cuzk_err(e, CUZK_ERR_CANCELLED, "cancelled");
        sched_yield();
    }
    CUZK_CU(q);
    return j->cancelled(j->user) ? cuzk_err(e, CUZK_ERR_CANCELLED, "cancelled") : CUZK_OK;
}

/* With a cancel callback: waits for the job's stream so far (ev_w, free for
 * reuse once the witness is consumed), polling it; without one, nothing. */
cuzk_status cancel_point(cuzk_gpu_g16_job *j, cuzk_error *e)
{
    if (!j->cancelled) return CUZK_OK;
    if (cudaEventRecord(j->ev_w, j->cs) != cudaSuccess) {
        cudaGetLastError();
        return cuzk_err(e, CUZK_ERR_GPU, "gpu prover: event");
    }
    return wait_polled(j, j->ev_w, e);
}

void dev_free(cuzk_gpu_g16_key *k, void **p)
{
    if (!*p) return;
    pthread_mutex_lock(&k->alloc_mu);
    cudaFree(*p);
    pthread_mutex_unlock(&k->alloc_mu);
    *p = NULL;
}

/* The same for a job's buffers, recorded as its host calls. */
cuzk_status dev_alloc(cuzk_gpu_g16_job *j, void **p, size_t bytes, const char *what, cuzk_error *e)
{
    host_call hc(j, "alloc");
    return dev_alloc(j->k, p, bytes, what, e);
}

void dev_free(cuzk_gpu_g16_job *j, void **p)
{
    if (!*p) return;
    host_call hc(j, "free");
    dev_free(j->k, p);
}

/* Frees what only abc and ntt use: the b and c vectors and the job's hold on
 * the streamed coefficients. The caller has synchronized the job's streams. */
void abc_release(cuzk_gpu_g16_job *j)
{
    cuzk_gpu_g16_key *k = j->k;
    dev_free(j, &j->d_b);
    dev_free(j, &j->d_c);
    if (j->csr_held) {
        pthread_mutex_lock(&k->alloc_mu);
        cuzk_gpu_g16_csr_release(k->csr);
        pthread_mutex_unlock(&k->alloc_mu);
        j->csr_held = false;
    }
}

cuzk_status phase_begin(cuzk_gpu_g16_job *j, int ph, cudaStream_t st, cuzk_error *e)
{
    CUZK_CU(cudaEventRecord(j->t0[ph], st));
    return CUZK_OK;
}

cuzk_status phase_end(cuzk_gpu_g16_job *j, int ph, cudaStream_t st, cuzk_error *e)
{
    CUZK_CU(cudaEventRecord(j->t1[ph], st));
    j->recorded[ph] = true;
    return CUZK_OK;
}

/* Bellperson mode, tiers 1-6: whether A's and B's selections go into h's
 * buffer (once the H MSM is issued), not one of their own. */
bool sel_in_a(const cuzk_gpu_g16_key *k)
{
    const cuzk_gpu_key_shape *s = &k->src.shape;
    const uint64_t n = g16_shape_select_scalars(s);
    return s->bellperson && !k->plan.host_witness && n && n * 32 <= k->plan.vector_bytes;
}

/* Bellperson mode, tiers 1-6: A's (a) or B's scalars selected from the
 * device witness into j->d_sel, on the compute stream (after the previous
 * MSM's kernels, which read that buffer: h, then A's scalars), by the
 * bitmaps and offsets uploaded beside the witness. */
cuzk_status select_issue(cuzk_gpu_g16_job *j, bool a, cuzk_error *e)
{
    cuzk_gpu_g16_key *k = j->k;
    const cuzk_gpu_key_shape *s = &k->src.shape;
    cuzk_status st;
    if (!j->d_sel) {
        if (sel_in_a(k)) j->d_sel = j->d_a;
        else if ((st = dev_alloc(j, &j->d_sel, g16_shape_select_scalars(s) * 32, "A and B selections", e)))
            return st;
    }
    const size_t words = g16_shape_select_words(s);
    const uint32_t *bits = (const uint32_t *)((const uint8_t *)j->d_w + 32 * s->n_vars);
    if (!a && g16_shape_a_dropped(s)) bits += 2 * words; /* B's follow A's */
    return cuzk_gpu_g16_select(bits, bits + words, j->d_w, j->d_sel, s->n_vars, j->cs, e);
}

/* The selection buffer of its own (larger than the domain), if any. */
void sel_free(cuzk_gpu_g16_job *j)
{
    if (j->d_sel != j->d_a) dev_free(j, &j->d_sel);
    j->d_sel = NULL;
}

/* Handles made ahead of their phase and not used (a job that failed or was
 * cancelled before it). */
void pre_free(cuzk_gpu_g16_job *j)
{
    for (int i = 0; i < NMSM; i++)
        if (j->pre[i]) {
            host_call hc(j, "destroy_handle");
            pthread_mutex_lock(&j->k->alloc_mu);
            cuzk_gpu_msm_destroy(j->pre[i]);
            pthread_mutex_unlock(&j->k->alloc_mu);
            j->pre[i] = NULL;
        }
}

/* MSM i's device work, timed: issued up to the read-back of its sums. */
cuzk_status msm_issue(cuzk_gpu_g16_job *j, int i, cuzk_gpu_msm *m, cuzk_error *e)
{
    const cuzk_gpu_key_shape *s = &j->k->src.shape;
    const int ph = CUZK_GPU_PHASE_MSM_H + i;
    /* tier 7: h in the pinned vector (a's), the witness in the pinned slot */
    const bool host = j->k->plan.host_witness;
    const uint64_t *h = (const uint64_t *)(host ? j->k->pinned_abc[j->slot] : j->d_a);
    const uint64_t *w = (const uint64_t *)(host ? j->k->pinned[j->slot] : j->d_w);
    const uint64_t *sc = i == 0 ? h : w + (i == 3 ? 4 * (s->n_public + 1) : 0);
    if ((i == 2 || i == 4) && b_dropped(s)) /* the kept B wires' scalars, gathered */
        sc = host ? (const uint64_t *)j->k->pinned_b[j->slot] : (const uint64_t *)j->d_w + 4 * s->n_vars;
    cuzk_status st;
    if (s->bellperson && (i == 1 || i == 2 || i == 4)) {
        const bool a = i == 1;
        if (host) { /* tier 7: selected into the pinned vector by job_msm (B's for B1 and B2) */
            if (a ? g16_shape_a_dropped(s) : g16_shape_b_dropped(s)) sc = h;
        } else if (a ? g16_shape_a_dropped(s) : g16_shape_b_dropped(s)) { /* selected here, B's for B1 and B2 */
            if (i != 4 && (st = select_issue(j, a, e))) return st;
            sc = (const uint64_t *)j->d_sel;
        }
    }
    if ((st = phase_begin(j, ph, j->cs, e))) return st;
    if ((st = cuzk_gpu_msm_issue(m, &j->tk[i], sc, msm_points(s, i), !host, j->cs, e))) return st;
    return phase_end(j, ph, j->cs, e);
}

/* Page-locks the host bases of a streamed MSM item for the key's life, so
 * its per-proof chunk uploads are asynchronous DMA at the bus's rate instead
 * of the driver's staging copies of pageable memory. The key may be a
 * read-only mapping of the zkey: the read-only flag where the device has
 * it. Bases page-locked already (the same host key on another device) are
 * used as they are and left to their owner. Failing both (no page-lockable
 * memory left), the uploads stay pageable: slower, never wrong. */
void pin_bases(cuzk_gpu_g16_key *k, int i, size_t bytes)
{
    int ro = 0;
    cudaDeviceGetAttribute(&ro, cudaDevAttrHostRegisterReadOnlySupported, k->device);
    const unsigned flags = cudaHostRegisterPortable | (ro ? cudaHostRegisterReadOnly : 0);
    const char *b = (const char *)k->src.bases[i];
    const cudaError_t rc = cudaHostRegister((void *)b, bytes, flags);
    if (rc != cudaSuccess) cudaGetLastError();
    k->registered[i] = rc == cudaSuccess;
    k->pinned_bases[i] = rc == cudaSuccess;
    if (rc == cudaErrorHostMemoryAlreadyRegistered) { /* all of it, or only a page it shares? */
        cudaPointerAttributes a0, a1;
        k->pinned_bases[i] = cudaPointerGetAttributes(&a0, b) == cudaSuccess && a0.type == cudaMemoryTypeHost &&
                             cudaPointerGetAttributes(&a1, b + bytes - 1) == cudaSuccess &&
                             a1.type == cudaMemoryTypeHost;
        cudaGetLastError();
    }
}

/* The MSM handle of item i (H, A, B1, C, B2) with its planned budget: made
 * once at key_make when resident, per job when streamed (the bases stay on
 * the host, page-locked by pin_bases when that succeeded). */
cuzk_status msm_make(cuzk_gpu_g16_key *k, int i, bool one_run, cuzk_gpu_msm **out, cuzk_error *e)
{
    const cuzk_gpu_key_shape *s = &k->src.shape;
    cuzk_gpu_msm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    const cuzk_gpu_plan_item *it = &k->plan.item[CUZK_GPU_ITEM_MSM_H + i];
    cfg.device_budget = it->msm_budget;
    cfg.precompute = it->precompute > 1 ? it->precompute : 1; /* as planned (gpu_plan.c) */
    cfg.pin_host_bases = k->pinned_bases[i];
    cfg.bases_be = k->src.bases_be;
    /* A handle for one proof's phase uploads its bases chunk by chunk beside
     * its run instead of all before it with the GPU idle (2^27 on an H100:
     * H's 12.9 GB take 0.24 s of bus against 0.77 s of kernels, hidden but
     * for the first chunk; B2's 6.2 GB, -27 ms a proof; B1's at 24G and
     * 16G, where it keeps every base: a 90-100 ms gap before). Handles that
     * already stream part of their bases upload their kept prefix the same
     * way (msm.cu), so the flag changes only those whose bases all fit. */
    cfg.upload_in_run = one_run;
    cfg.stager = k->stager;
    pthread_mutex_lock(&k->alloc_mu);
    cuzk_status st = cuzk_gpu_msm_create(out, s->curve, i == NMSM - 1 ? CUZK_GPU_G2 : CUZK_GPU_G1, k->src.bases[i],
                                         msm_points(s, i), 0, k->device, &cfg, e);
    pthread_mutex_unlock(&k->alloc_mu);
    return st;
}

void key_free(cuzk_gpu_g16_key *k)
{
    for (int i = 0; i < NMSM; i++) cuzk_gpu_msm_destroy(k->msm[i]);
    cuzk_gpu_msm_stager_destroy(k->stager);
    for (int i = 0; i < NMSM; i++)
        if (k->registered[i] && cudaHostUnregister((void *)k->src.bases[i]) != cudaSuccess)
            cudaGetLastError(); /* e.g. a mapped key whose file shrank: its lost pages were replaced */
    cuzk_gpu_ntt_destroy(k->ntt);
    cuzk_gpu_g16_csr_destroy(k->csr);
    if (k->d_bindex) cudaFree(k->d_bindex);
    for (int i = 0; i < MAX_WORKERS; i++) {
        if (k->pinned[i]) cudaFreeHost(k->pinned[i]);
        if (k->pinned_index[i]) cudaFreeHost(k->pinned_index[i]);
        if (k->pinned_abc[i]) cudaFreeHost(k->pinned_abc[i]);
        if (k->pinned_b[i]) cudaFreeHost(k->pinned_b[i]);
        slot_res *r = &k->res[i];
        for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++) {
            if (r->t0[p]) cudaEventDestroy(r->t0[p]);
            if (r->t1[p]) cudaEventDestroy(r->t1[p]);
        }
        if (r->ev_w) cudaEventDestroy(r->ev_w);
        for (int c = 0; c < 2; c++) {
            if (r->stage[c]) cudaFreeHost(r->stage[c]);
            if (r->ev_stage[c]) cudaEventDestroy(r->ev_stage[c]);
        }
        if (r->ev_ref) cudaEventDestroy(r->ev_ref);
        if (r->cs) cudaStreamDestroy(r->cs);
        if (r->up) cudaStreamDestroy(r->up);
    }
    if (k->sync_made) {
        pthread_mutex_destroy(&k->mu);
        pthread_cond_destroy(&k->cv);
        pthread_mutex_destroy(&k->alloc_mu);
        pthread_mutex_destroy(&k->gpu_lock);
        pthread_mutex_destroy(&k->stage_mu);
    }
    cuzk_free(k);
}

cuzk_status key_make(cuzk_gpu_g16_key *k, cuzk_error *e)
{
    const cuzk_gpu_plan *p = &k->plan;
    const cuzk_gpu_key_shape *s = &k->src.shape;
    CUZK_DEVICE_GUARD(k->device);
    cuzk_status st;
    const cuzk_gpu_plan_item *co = &p->item[CUZK_GPU_ITEM_COEFS];
    if (s->bellperson) { /* a, b, c come with each proof: no coefficients */
        if (!k->src.host.abc_range || !k->src.host.witness_range)
            return cuzk_err(e, CUZK_ERR_USAGE,
                            "gpu prover: a bellperson key needs the host steps that fill a, b, c in chunks and the "
                            "witness");
    } else if (p->host_witness) { /* tier 7: the host evaluates a, b, c; no coefficients on the device */
        if (!k->src.host.abc || !k->src.host.quotient)
            return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: the plan is tier 7 (witness on the host) and the "
                                               "caller gave no host steps");
    } else if ((st = cuzk_gpu_g16_csr_create(&k->csr, s->curve, (uint32_t)1 << s->log_domain,
                                             (uint32_t)s->n_vars, &k->src.coefs, co->streamed ? co->chunk : 0,
                                             k->device, e))) {
        return st;
    } else if (co->streamed && co->rows_held && (st = cuzk_gpu_g16_csr_keep_rows(k->csr, e))) {
        return st;
    }
    if ((st = cuzk_gpu_ntt_create_gen(&k->ntt, s->curve, s->log_domain,
                                      k->src.ntt_generator ? k->src.ntt_generator : 5, k->device, e)))
        return st;
    if (b_dropped(s) && !k->src.b_index)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: the key drops B wires and gives no index of the kept ones");
    if (b_dropped(s) && !p->host_witness) {
        const size_t ib = s->n_b * sizeof(uint32_t);
        if ((st = dev_alloc(k, &k->d_bindex, ib, "kept B wires' index", e))) return st;
        CUZK_CU(cudaMemcpy(k->d_bindex, k->src.b_index, ib, cudaMemcpyHostToDevice));
    }
    /* streamed items: bases page-locked, or (planned so, or where the lock
     * failed: the plan counted those pages locked) staged through the key's
     * one stager, sized for the largest streamed item's chunk */
    size_t stage = 0;
    for (int i = 0; i < NMSM; i++) {
        const cuzk_gpu_plan_item *it = &p->item[CUZK_GPU_ITEM_MSM_H + i];
        if (!it->streamed || msm_points(s, i) == 0) continue;
        const size_t aff = i == NMSM - 1 ? cuzk_gpu_curve_ops_get(s->curve)->desc->g2_affine
                                         : cuzk_gpu_curve_ops_get(s->curve)->desc->g1_affine;
        if (!p->bases_staged) pin_bases(k, i, msm_points(s, i) * aff);
        if (!k->pinned_bases[i] && gpu_msm_stage_bytes(it->chunk, aff) / 2 > stage)
            stage = gpu_msm_stage_bytes(it->chunk, aff) / 2;
    }
    if (stage && (st = cuzk_gpu_msm_stager_create(&k->stager, stage, k->device, e))) return st;
    for (int i = 0; i < NMSM; i++) {
        const cuzk_gpu_plan_item *it = &p->item[CUZK_GPU_ITEM_MSM_H + i];
        if (msm_points(s, i) == 0 || it->streamed) continue;
        if ((st = msm_make(k, i, false, &k->msm[i], e))) return st;
    }
    for (unsigned w = 0; w < p->workers; w++) {
        slot_res *r = &k->res[w];
        CUZK_CU(cudaStreamCreateWithFlags(&r->cs, cudaStreamNonBlocking));
        CUZK_CU(cudaStreamCreateWithFlags(&r->up, cudaStreamNonBlocking));
        CUZK_CU(cudaEventCreateWithFlags(&r->ev_w, cudaEventDisableTiming));
        CUZK_CU(cudaEventCreate(&r->ev_ref));
        for (int ph = 0; ph < CUZK_GPU_PHASE_COUNT; ph++) {
            CUZK_CU(cudaEventCreate(&r->t0[ph]));
            CUZK_CU(cudaEventCreate(&r->t1[ph]));
        }
        CUZK_CU(cudaHostAlloc(&k->pinned[w], p->witness_bytes, cudaHostAllocPortable | cudaHostAllocMapped));
        if (p->host_witness && s->bellperson) { /* tier 7: one domain vector, read in place by the kernels */
            const size_t sel = g16_shape_select_scalars(s) * 32; /* then A's and B's selections */
            CUZK_CU(cudaHostAlloc(&k->pinned_abc[w], sel > p->vector_bytes ? sel : p->vector_bytes,
                                  cudaHostAllocPortable | cudaHostAllocMapped));
            CUZK_CU(cudaHostGetDevicePointer(&k->dev_abc[w], k->pinned_abc[w], 0));
        } else if (p->host_witness) { /* tier 7: a, b, c of the slot, evaluated by the host */
            CUZK_CU(cudaHostAlloc(&k->pinned_abc[w], 3 * p->vector_bytes, cudaHostAllocPortable));
        }
        if (s->bellperson) /* a, b, c staged through two chunks */
            for (int c = 0; c < 2; c++) {
                CUZK_CU(cudaHostAlloc(&r->stage[c], p->stage_bytes, cudaHostAllocPortable));
                CUZK_CU(cudaEventCreateWithFlags(&r->ev_stage[c], cudaEventDisableTiming));
            }
        if (p->host_witness) {
            if (p->b_scalar_bytes)
                CUZK_CU(cudaHostAlloc(&k->pinned_b[w], p->b_scalar_bytes, cudaHostAllocPortable));
        } else { /* the packed witness, read by the expand kernel over the bus */
            CUZK_CU(cudaHostAlloc(&k->pinned_index[w], cuzk_wpack_index_bytes(s->n_vars),
                                  cudaHostAllocPortable | cudaHostAllocMapped));
            CUZK_CU(cudaHostGetDevicePointer(&k->dev_full[w], k->pinned[w], 0));
            CUZK_CU(cudaHostGetDevicePointer(&k->dev_index[w], k->pinned_index[w], 0));
        }
    }
    return CUZK_OK;
}

/* fn over [0, n) in ranges of at least `grain`, through the caller's
 * parallel hook when there is one. */
void run_ranges(const cuzk_gpu_g16_hooks *h, size_t n, size_t grain, cuzk_gpu_g16_range_fn fn, void *arg)
{
    if (h && h->parallel) h->parallel(h->parallel_user, n, grain, fn, arg);
    else fn(arg, 0, n, 0);
}

struct copy_arg {
    uint8_t *dst;
    const uint8_t *src;
};

void copy_bytes(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    const copy_arg *c = (const copy_arg *)arg;
    memcpy(c->dst + b, c->src + b, e - b);
}

struct gather_arg {
    uint8_t *dst;
    const uint8_t *w;
    const uint32_t *index;
};

/* dst[i] = w[index[i]] (32-byte scalars) for i in [b, e). */
void gather_scalars(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    const gather_arg *g = (const gather_arg *)arg;
    for (size_t i = b; i < e; i++) memcpy(g->dst + 32 * i, g->w + 32 * (size_t)g->index[i], 32);
}

struct pack_arg {
    cuzk_gpu_g16_job *j;
    size_t n, tile0;
    void *index, *full;
    std::atomic<int> failed;
    cuzk_error err;
};

/* Keeps the first error of a parallel step. */
void keep_err(std::atomic<int> *failed, cuzk_error *dst, const cuzk_error *err)
{
    int z = 0;
    if (failed->compare_exchange_strong(z, 1)) *dst = *err;
}

void pack_tiles(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    pack_arg *a = (pack_arg *)arg;
    const size_t vb = (a->tile0 + b) * CUZK_WPACK_TILE, ve = (a->tile0 + e) * CUZK_WPACK_TILE;
    if (a->j->witness) {
        cuzk_wpack_range(a->j->witness, a->n, vb, ve < a->n ? ve : a->n, a->index, a->full);
        return;
    }
    /* tile by tile through a buffer of one tile, raw from host.witness_range */
    const cuzk_gpu_g16_host *h = &a->j->k->src.host;
    uint8_t tile[32 * CUZK_WPACK_TILE];
    for (size_t t = vb; t < ve && t < a->n && !a->failed.load(); t += CUZK_WPACK_TILE) {
        const size_t te = t + CUZK_WPACK_TILE < a->n ? t + CUZK_WPACK_TILE : a->n;
        cuzk_error err;
        memset(&err, 0, sizeof err);
        if (h->witness_range(h->user, a->j->host_user, t, te, tile, &err)) {
            keep_err(&a->failed, &a->err, &err);
            return;
        }
        cuzk_wpack_range_at(tile, a->n, t, te, a->index, a->full);
    }
}

/* Packs tiles [tile0, tile0 + ntiles) of the job's witness into the slot. */
cuzk_status pack_witness(cuzk_gpu_g16_job *j, size_t tile0, size_t ntiles, const cuzk_gpu_g16_hooks *h,
                         cuzk_error *e)
{
    pack_arg a;
    a.j = j;
    a.n = (size_t)j->k->src.shape.n_vars;
    a.tile0 = tile0;
    a.index = j->k->pinned_index[j->slot];
    a.full = j->k->pinned[j->slot];
    a.failed.store(0);
    memset(&a.err, 0, sizeof a.err);
    run_ranges(h, ntiles, W_GRAIN_TILES, pack_tiles, &a);
    if (a.failed.load()) return cuzk_err(e, a.err.code ? a.err.code : CUZK_ERR_INTERNAL, "%s", a.err.msg);
    return CUZK_OK;
}

/* Tier 7 with host.witness_range: the raw witness into the slot. */
struct raw_arg {
    cuzk_gpu_g16_job *j;
    uint8_t *dst;
    std::atomic<int> failed;
    cuzk_error err;
};

void raw_range(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    raw_arg *a = (raw_arg *)arg;
    if (a->failed.load()) return;
    const cuzk_gpu_g16_host *h = &a->j->k->src.host;
    cuzk_error err;
    memset(&err, 0, sizeof err);
    if (h->witness_range(h->user, a->j->host_user, b, e, a->dst + 32 * b, &err)) keep_err(&a->failed, &a->err, &err);
}

/* Tier 7, bellperson mode: the wires of bitmap `bits` (n of them), in
 * order, from the slot's raw witness into dst (util/bitsel.h), after
 * checking that `want` are selected; dst NULL: the check alone. */
cuzk_status host_select(cuzk_gpu_g16_job *j, const uint64_t *bits, uint64_t want, uint8_t *dst, const char *what,
                        const cuzk_gpu_g16_hooks *h, cuzk_error *e)
{
    if (!bits) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: no bitmap of the wires %s takes", what);
    cuzk_bitsel g;
    cuzk_status st = cuzk_bitsel_init(&g, dst, j->k->pinned[j->slot], bits, j->k->src.shape.n_vars, 32, e);
    if (st) return st;
    if (g.count != want) {
        cuzk_bitsel_free(&g);
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: %zu wires selected for %s, the key has %llu %s points", g.count,
                        what, (unsigned long long)want, what);
    }
    if (dst) run_ranges(h ? h : &j->hooks, g.nblk, 1, cuzk_bitsel_range, &g);
    cuzk_bitsel_free(&g);
    return CUZK_OK;
}

/* Tier 7: the witness raw into the slot (bellperson mode: the bitmaps of
 * A's and B's wires kept, their counts checked, for the selections at their
 * MSMs: DESIGN: selected into h's pinned vector once h's MSM is done, as
 * tiers 1-6 do on the device, instead of beside the witness at once: at
 * 2^27 that is 4.8 GiB less page-locked memory a worker, 13.1 -> 8.2). */
cuzk_status host_witness_in(cuzk_gpu_g16_job *j, const uint64_t *const *select, const cuzk_gpu_g16_hooks *h,
                            cuzk_error *e)
{
    cuzk_gpu_g16_key *k = j->k;
    const cuzk_gpu_key_shape *s = &k->src.shape;
    uint8_t *slot = (uint8_t *)k->pinned[j->slot];
    if (!j->witness) {
        raw_arg a;
        a.j = j;
        a.dst = slot;
        a.failed.store(0);
        memset(&a.err, 0, sizeof a.err);
        run_ranges(h, s->n_vars, (size_t)1 << 14, raw_range, &a);
        if (a.failed.load()) return cuzk_err(e, a.err.code ? a.err.code : CUZK_ERR_INTERNAL, "%s", a.err.msg);
    } else {
        copy_arg c = {slot, (const uint8_t *)j->witness};
        run_ranges(h, 32 * s->n_vars, (size_t)1 << 20, copy_bytes, &c);
    }
    for (int x = 0; s->bellperson && x < 2; x++) {
        if (!(x ? g16_shape_b_dropped(s) : g16_shape_a_dropped(s))) continue;
        const uint64_t *bits = select ? select[x] : NULL;
        cuzk_status st = host_select(j, bits, x ? s->n_b : s->n_a, NULL, x ? "B" : "A", h, e);
        if (st) return st;
        const size_t bytes = 8 * ((s->n_vars + 63) / 64);
        if (!(j->host_bits[x] = (uint64_t *)malloc(bytes))) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
        memcpy(j->host_bits[x], bits, bytes);
    }
    if (k->plan.b_scalar_bytes) {
        gather_arg g = {(uint8_t *)k->pinned_b[j->slot], slot, k->src.b_index};
        run_ranges(h, k->src.shape.n_b, (size_t)1 << 16, gather_scalars, &g);
    }
    return CUZK_OK;
}

/* Bellperson mode: values [base, base + n) of vector `vec` filled into a
 * staging chunk through the key's host.abc_range, in parallel ranges; the
 * first error is kept. */
struct fill_arg {
    cuzk_gpu_g16_job *j;
    int vec;
    size_t base;
    uint8_t *dst;
    std::atomic<int> failed;
    cuzk_error err;
};

#define STAGE_GRAIN ((size_t)1 << 14) /* values per range of a chunk's fill */

void fill_range(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    fill_arg *f = (fill_arg *)arg;
    if (f->failed.load()) return;
    const cuzk_gpu_g16_host *h = &f->j->k->src.host;
    cuzk_error err;
    memset(&err, 0, sizeof err);
    if (h->abc_range(h->user, f->j->host_user, f->vec, f->base + b, f->base + e, f->dst + 32 * b, &err))
        keep_err(&f->failed, &f->err, &err);
}

/* Bellperson mode: vector `vec` (0 a, 1 b, 2 c) of the caller's
 * into the device vector dev on stream st, chunk by chunk through the slot's
 * two page-locked chunks: wait for the chunk's last copy (polling the
 * cancel callback), fill it (host.abc_range, over the parallel hook), copy
 * it to its offset, record its event. The host fills one chunk while the
 * other's copy runs. */
cuzk_status stage_vector(cuzk_gpu_g16_job *j, int vec, void *dev, cudaStream_t st, cuzk_error *e)
{
    cuzk_gpu_g16_key *k = j->k;
    slot_res *r = &k->res[j->slot];
    const size_t n = (size_t)1 << k->src.shape.log_domain, chunk = k->plan.stage_bytes / 32;
    cuzk_status rc;
    for (size_t b = 0, c = 0; b < n; b += chunk, c ^= 1) {
        const size_t len = n - b < chunk ? n - b : chunk;
        if (j->cancelled) {
            if ((rc = wait_polled(j, r->ev_stage[c], e))) return rc;
        } else {
            CUZK_CU(cudaEventSynchronize(r->ev_stage[c]));
        }
        fill_arg f;
        f.j = j;
        f.vec = vec;
        f.base = b;
        f.dst = (uint8_t *)r->stage[c];
        f.failed.store(0);
        memset(&f.err, 0, sizeof f.err);
        run_ranges(&j->hooks, len, STAGE_GRAIN, fill_range, &f);
        if (f.failed.load()) return cuzk_err(e, f.err.code ? f.err.code : CUZK_ERR_INTERNAL, "%s", f.err.msg);
        CUZK_CU(cudaMemcpyAsync((uint8_t *)dev + 32 * b, r->stage[c], 32 * len, cudaMemcpyHostToDevice, st));
        CUZK_CU(cudaEventRecord(r->ev_stage[c], st));
    }
    return CUZK_OK;
}

/* Bellperson mode: the caller's a, b, c are read no more. */
void abc_read(cuzk_gpu_g16_job *j)
{
    const cuzk_gpu_g16_host *h = &j->k->src.host;
    if (j->abc_read) return;
    j->abc_read = true;
    if (h->abc_done) h->abc_done(h->user, j->host_user);
}

/* Bellperson mode, tiers 1-6: the bitmaps of A's and B's wires (those
 * that are selections) and their words' offsets into the pinned slot after
 * the packed values, for issue_witness to upload. A bitmap whose count is
 * not the key's is refused: the selection would not fit its MSM. */
cuzk_status select_write(cuzk_gpu_g16_job *j, const uint64_t *const *select, cuzk_error *e)
{
    const cuzk_gpu_key_shape *s = &j->k->src.shape;
    const size_t n = s->n_vars, words = g16_shape_select_words(s);
    uint32_t *dst = (uint32_t *)((uint8_t *)j->k->pinned[j->slot] + 32 * n);
    for (int x = 0; x < 2; x++) {
        if (!(x ? g16_shape_b_dropped(s) : g16_shape_a_dropped(s))) continue;
        const uint64_t *src = select ? select[x] : NULL;
        if (!src) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: no bitmap of the wires %s takes", x ? "B" : "A");
        uint32_t *bits = dst, *off = dst + words;
        uint64_t acc = 0;
        for (size_t w = 0; w < words; w++) {
            uint32_t v = (uint32_t)(src[w / 2] >> (32 * (w & 1)));
            if (w == words - 1 && (n & 31)) v &= (1u << (n & 31)) - 1;
            bits[w] = v;
            off[w] = (uint32_t)acc;
            acc += (uint64_t)__builtin_popcount(v);
        }
        const uint64_t want = x ? s->n_b : s->n_a;
        if (acc != want)
            return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: %llu wires selected for %s, the key has %llu %s points",
                            (unsigned long long)acc, x ? "B" : "A", (unsigned long long)want, x ? "B" : "A");
        dst += 2 * words;
    }
    return CUZK_OK;
}

/* The device witness of the job: allocated, expanded on the copy stream
 * from the packed witness in the pinned slot, marked by ev_w. pack: the
 * job's witness is packed into the slot step by step (the device expands a
 * step while the host packs the next); false: the slot holds it packed
 * already. */
cuzk_status issue_witness(cuzk_gpu_g16_job *j, bool pack, const cuzk_gpu_g16_hooks *h, cuzk_error *e)
{
    cuzk_gpu_g16_key *k = j->k;
    cuzk_status st;
    const size_t n = k->src.shape.n_vars;
    const size_t ntiles = cuzk_wpack_tiles(n);
    if ((st = dev_alloc(j, &j->d_w, k->plan.witness_bytes + k->plan.b_scalar_bytes, "witness", e))) return st;
    if ((st = phase_begin(j, CUZK_GPU_PHASE_STAGE, j->up, e))) return st;
    for (size_t t = 0; t < ntiles; t += W_STEP_TILES) {
        const size_t nt = ntiles - t < W_STEP_TILES ? ntiles - t : W_STEP_TILES;
        if (pack && (st = pack_witness(j, t, nt, h, e))) return st;
        if ((st = cuzk_gpu_g16_witness_expand(k->dev_index[j->slot], k->dev_full[j->slot], j->d_w, n, t, nt, j->up,
                                              e)))
            return st;
    }
    const size_t sb = g16_shape_select_bytes(&k->src.shape);
    if (sb) /* bellperson mode: the selections' bitmaps and offsets, written at begin after the packed values */
        CUZK_CU(cudaMemcpyAsync((uint8_t *)j->d_w + 32 * n, (const uint8_t *)k->pinned[j->slot] + 32 * n, sb,
                                cudaMemcpyHostToDevice, j->up));
    if (k->plan.b_scalar_bytes && /* the kept B wires' scalars, beside the witness */
        (st = cuzk_gpu_g16_gather((const uint32_t *)k->d_bindex, j->d_w, (uint8_t *)j->d_w + k->plan.witness_bytes,
                                  k->src.shape.n_b, j->up, e)))
        return st;
    if (k->src.shape.bellperson) { /* a, b (and c with 3 vectors) staged from the caller's */
        const size_t v = k->plan.vector_bytes;
        void **d[3] = {&j->d_a, &j->d_b, &j->d_c};
        static const char *const what[3] = {"a vector", "b vector", "c vector"};
        for (unsigned i = 0; i < k->plan.abc_vectors; i++) {
            if ((st = dev_alloc(j, d[i], v, what[i], e))) return st;
            if ((st = stage_vector(j, (int)i, *d[i], j->up, e))) return st;
        }
        if (k->plan.abc_vectors == 3) abc_read(j);
    }
    if ((st = phase_end(j, CUZK_GPU_PHASE_STAGE, j->up, e))) return st;
    CUZK_CU(cudaEventRecord(j->ev_w, j->up));
    j->w_issued = true;
    sample(k);
    return CUZK_OK;
}

} /* namespace */

extern "C" cuzk_status cuzk_gpu_g16_key_attach(cuzk_gpu_g16_key **out, const cuzk_gpu_g16_key_src *src,
                                               const cuzk_gpu_plan_opts *po, cuzk_error *e)
{
    if (!out || !src) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: NULL argument");
    *out = NULL;
    cuzk_gpu_plan_opts o;
    memset(&o, 0, sizeof o);
    if (po) o = *po;
    if (o.workers > MAX_WORKERS)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: at most %d workers per device", MAX_WORKERS);
    cuzk_gpu_g16_key *k = (cuzk_gpu_g16_key *)cuzk_calloc(1, sizeof *k);
    if (!k) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    k->src = *src;
    k->device = o.device;
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    pthread_mutex_init(&k->alloc_mu, NULL);
    pthread_mutex_init(&k->gpu_lock, NULL);
    pthread_mutex_init(&k->stage_mu, NULL);
    k->sync_made = true;
    size_t tot = 0;
    cuzk_status st = cuzk_gpu_mem_info(k->device, &k->base_free, &tot, e);
    if (!st) st = cuzk_gpu_plan_proof(&src->shape, &o, &k->plan, e);
    if (!st) { /* page-locked memory cannot be swapped: refuse what the host cannot hold */
        char what[160];
        snprintf(what, sizeof what, "gpu prover: the plan's page-locked buffers (tier %u, %u worker%s x %.2f GiB) would",
                 k->plan.tier, k->plan.workers, k->plan.workers == 1 ? "" : "s", (double)k->plan.host_pinned / (1 << 30));
        st = cuzk_host_mem_check((uint64_t)k->plan.workers * k->plan.host_pinned, what, e);
    }
    if (!st) st = key_make(k, e);
    if (st) {
        key_free(k);
        return st;
    }
    {
        cuzk_gpu::device_guard g(k->device);
        sample(k);
    }
    *out = k;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_g16_key_detach(cuzk_gpu_g16_key *k)
{
    if (!k) return;
    cuzk_gpu::device_guard g(k->device);
    key_free(k);
}

extern "C" void cuzk_gpu_g16_key_plan(const cuzk_gpu_g16_key *k, cuzk_gpu_plan *plan, size_t *measured_peak)
{
    if (plan) *plan = k->plan;
    if (measured_peak) {
        pthread_mutex_lock((pthread_mutex_t *)&k->mu);
        *measured_peak = k->peak_used;
        pthread_mutex_unlock((pthread_mutex_t *)&k->mu);
    }
}

extern "C" int cuzk_gpu_g16_key_device(const cuzk_gpu_g16_key *k) { return k->device; }

extern "C" cuzk_status cuzk_gpu_g16_job_begin(cuzk_gpu_g16_job **out, cuzk_gpu_g16_key *k, const void *witness,
                                              const uint64_t *const *select, const cuzk_gpu_g16_hooks *hooks,
                                              cuzk_error *e)
{
    if (!out || !k || (!witness && !k->src.host.witness_range))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: NULL argument");
    *out = NULL;
    cuzk_gpu_g16_job *j = (cuzk_gpu_g16_job *)cuzk_calloc(1, sizeof *j);
    if (!j) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    j->k = k;
    j->slot = -1;
    j->witness = k->src.host.witness_range ? NULL : witness;
    if (hooks) {
        j->hooks = *hooks;
        j->cancelled = hooks->cancelled;
        j->user = hooks->cancel_user;
        j->host_user = hooks->host_user;
    }
    /* tier 7 takes the GPU lock per MSM: no MSM is issued ahead */
    j->pipelined = !k->plan.host_witness;
    for (int i = 0; i < NMSM; i++)
        if (!k->msm[i] && msm_points(&k->src.shape, i) > 0) j->pipelined = false;
    /* DESIGN: pipelined, H runs last (B1, B2, C, A, H): the host combines
     * each MSM's sums while the next one's kernels run, so the device waits
     * wherever a combination outlasts them. H's kernels are the longest and
     * its combination (few bucket sets with the copies) among the shortest:
     * last, they cover the witness MSMs' last combination and the caller's
     * assembly of everything but H, and little host work follows the last
     * kernel (docs/PERFORMANCE.md, "small proofs, H's MSM last"). B1 (the
     * shortest kernels) first, after the NTT, has no combination to cover;
     * B2's G2 combination runs under C's kernels. Otherwise H first: h is
     * freed after its MSM (the plan counts on it for streamed items), and
     * bellperson mode selects A's and B's scalars into h's buffer. */
    static const int h_last[NMSM] = {2, 4, 3, 1, 0};
    for (int i = 0; i < NMSM; i++) j->order[i] = j->pipelined && !k->src.shape.bellperson ? h_last[i] : i;
    /* a worker slot: at most `workers` jobs hold device memory */
    j->cur_phase = CUZK_GPU_PHASE_STAGE;
    {
        host_call hc(j, "wait_slot");
        pthread_mutex_lock(&k->mu);
        for (;;) {
            for (unsigned w = 0; w < k->plan.workers && j->slot < 0; w++)
                if (!k->slot_busy[w]) {
                    k->slot_busy[w] = true;
                    j->slot = (int)w;
                }
            if (j->slot >= 0) break;
            pthread_cond_wait(&k->cv, &k->mu);
        }
        pthread_mutex_unlock(&k->mu);
    }
    *out = j;
    CUZK_DEVICE_GUARD(k->device);
    slot_res *r = &k->res[j->slot];
    j->cs = r->cs;
    j->up = r->up;
    j->ev_w = r->ev_w;
    j->ev_ref = r->ev_ref;
    j->t0 = r->t0;
    j->t1 = r->t1;
    /* the event clock's origin on the host clock (the slot's streams are idle) */
    CUZK_CU(cudaEventRecord(j->ev_ref, j->cs));
    CUZK_CU(cudaEventSynchronize(j->ev_ref));
    j->t_ref = cuzk_now();
    if (k->src.shape.bellperson && !k->plan.host_witness) {
        cuzk_status st = select_write(j, select, e);
        if (st) return st;
    }
    if (k->plan.prestage) {
        {
            host_call hw(j, "wait_stage");
            pthread_mutex_lock(&k->stage_mu);
        }
        host_call hc(j, "stage_witness");
        cuzk_status st = issue_witness(j, true, hooks, e);
        pthread_mutex_unlock(&k->stage_mu);
        return st;
    }
    host_call hc(j, "stage_witness");
    if (k->plan.host_witness) return host_witness_in(j, select, hooks, e); /* tier 7: the host reads it raw */
    /* packed now, expanded at abc under the GPU lock (the plan has no room for it before) */
    return pack_witness(j, 0, cuzk_wpack_tiles(k->src.shape.n_vars), hooks, e);
}

extern "C" cuzk_status cuzk_gpu_g16_job_abc(cuzk_gpu_g16_job *j, cuzk_error *e)
{
    if (!j) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: NULL job");
    cuzk_gpu_g16_key *k = j->k;
    const cuzk_gpu_plan *p = &k->plan;
    if (p->host_witness) { /* tier 7: on the host, outside the GPU lock (bellperson mode: staged at ntt) */
        uint8_t *abc = (uint8_t *)k->pinned_abc[j->slot];
        const size_t v = p->vector_bytes;
        if (!k->src.shape.bellperson)
            k->src.host.abc(k->src.host.user, j->host_user, k->pinned[j->slot], abc, abc + v, abc + 2 * v);
        j->host_abc = true;
        return CUZK_OK;
    }
    j->cur_phase = CUZK_GPU_PHASE_ABC;
    if (!j->locked) gpu_lock(j);
    CUZK_DEVICE_GUARD(k->device);
    cuzk_status st;
    if (!j->w_issued && (st = issue_witness(j, false, NULL, e))) return st;
    CUZK_CU(cudaStreamWaitEvent(j->cs, j->ev_w, 0));
    if (k->src.shape.bellperson) { /* a, b, c were uploaded with the witness: nothing to evaluate */
        sample(k);
        if ((st = phase_begin(j, CUZK_GPU_PHASE_ABC, j->cs, e)) || (st = phase_end(j, CUZK_GPU_PHASE_ABC, j->cs, e)))
            return st;
        return wait_polled(j, j->t1[CUZK_GPU_PHASE_ABC], e);
    }
    const size_t v = p->vector_bytes;
    if ((st = dev_alloc(j, &j->d_a, v, "a vector", e)) || (st = dev_alloc(j, &j->d_b, v, "b vector", e)))
        return st;
    if (p->abc_vectors == 3 && (st = dev_alloc(j, &j->d_c, v, "c vector", e))) return st;
    if (p->item[CUZK_GPU_ITEM_COEFS].streamed) {
        /* streamed coefficients: device part for this job's abc and ntt */
        host_call hc(j, "coefficients");
        pthread_mutex_lock(&k->alloc_mu);
        st = cuzk_gpu_g16_csr_acquire(k->csr, e);
        pthread_mutex_unlock(&k->alloc_mu);
        if (st) return st;
        j->csr_held = true;
    }
    sample(k);
    if ((st = phase_begin(j, CUZK_GPU_PHASE_ABC, j->cs, e))) return st;
    if ((st = cuzk_gpu_g16_abc_poll(k->csr, j->d_w, j->d_a, j->d_b, j->d_c, j->cs, j->cancelled, j->user, e)))
        return st;
    if ((st = phase_end(j, CUZK_GPU_PHASE_ABC, j->cs, e))) return st;
    /* the step returns with its work done (errors surface here), polling
     * the cancel callback while it waits */
    if (j->cancelled) return wait_polled(j, j->t1[CUZK_GPU_PHASE_ABC], e);
    CUZK_CU(cudaStreamSynchronize(j->cs));
    return CUZK_OK;
}

namespace {

/* Tier 7: a, b, c (pinned, host) one at a time through one device vector
 * (upload, odd-coset NTT, download) under the GPU lock, then the quotient on
 * the host into a. */
cuzk_status ntt_host(cuzk_gpu_g16_job *j, cuzk_error *e)
{
    cuzk_gpu_g16_key *k = j->k;
    const cuzk_gpu_plan *p = &k->plan;
    const unsigned lg = k->src.shape.log_domain;
    const size_t v = p->vector_bytes;
    uint8_t *abc = (uint8_t *)k->pinned_abc[j->slot];
    CUZK_DEVICE_GUARD(k->device);
    j->cur_phase = CUZK_GPU_PHASE_NTT;
    gpu_lock(j);
    cuzk_status st = dev_alloc(j, &j->d_a, v, "domain vector", e);
    if (!st) {
        sample(k);
        st = phase_begin(j, CUZK_GPU_PHASE_NTT, j->cs, e);
    }
    for (int i = 0; i < 3 && !st; i++) {
        cudaError_t rc = cudaMemcpyAsync(j->d_a, abc + i * v, v, cudaMemcpyHostToDevice, j->cs);
        if (rc == cudaSuccess && !(st = cuzk_gpu_ntt_run(k->ntt, j->d_a, lg, CUZK_GPU_NTT_ODD_COSET, j->cs, e)))
            rc = cudaMemcpyAsync(abc + i * v, j->d_a, v, cudaMemcpyDeviceToHost, j->cs);
        if (rc != cudaSuccess) {
            cudaGetLastError();
            st = cuzk_err(e, CUZK_ERR_GPU, "gpu prover: the NTT of vector %d: %s", i, cudaGetErrorString(rc));
        }
        if (!st) st = cancel_point(j, e);
    }
    if (!st) st = phase_end(j, CUZK_GPU_PHASE_NTT, j->cs, e);
    if (!st) {
        cudaError_t rc = cudaStreamSynchronize(j->cs);
        if (rc != cudaSuccess) {
            cudaGetLastError();
            st = cuzk_err(e, CUZK_ERR_GPU, "gpu prover: the NTTs: %s", cudaGetErrorString(rc));
        }
    }
    if (st) return st; /* end waits for the stream, frees the vector and unlocks */
    dev_free(j, &j->d_a);
    j->locked = false;
    pthread_mutex_unlock(&k->gpu_lock);
    k->src.host.quotient(k->src.host.user, j->host_user, abc, abc + v, abc + 2 * v, (size_t)1 << lg);
    j->host_h = true;
    return CUZK_OK;
}

/* Bellperson mode, tier 7: under the GPU lock, one device vector d and the
 * slot's page-locked vector P (mapped: the kernels read it in place over
 * the bus), each of a, b, c staged from the caller's through the slot's
 * chunks (stage_vector):
 *   a: odd coset, P = d;
 *   b: odd coset, d = d.P (MUL), P = d;
 *   c (the caller's a, b, c are then read no more): odd coset,
 *      d = from_mont(P - d) (RSUB: h, raw, on the coset);
 *   h: inverse odd coset (its coefficients), P = d, for the H MSM.
 * The same products and differences as the 2-vector tiers
 * (cuzk_gpu_g16_job_ntt), so the same h. The cancel callback is polled
 * at each chunk staged (stage_vector; the host fills b's and c's chunks
 * while the device transforms the vector before) and before the inverse
 * transform, which waits for the device. */
cuzk_status ntt_host_bp(cuzk_gpu_g16_job *j, cuzk_error *e)
{
    cuzk_gpu_g16_key *k = j->k;
    const cuzk_curve curve = k->src.shape.curve;
    const unsigned lg = k->src.shape.log_domain;
    const size_t n = (size_t)1 << lg, v = k->plan.vector_bytes;
    void *hp = k->pinned_abc[j->slot], *dp = k->dev_abc[j->slot];
    CUZK_DEVICE_GUARD(k->device);
    j->cur_phase = CUZK_GPU_PHASE_NTT;
    gpu_lock(j);
    /* on an error, end waits for the stream, frees the vector and unlocks */
    cuzk_status st;
    if ((st = dev_alloc(j, &j->d_a, v, "domain vector", e))) return st;
    sample(k);
    if ((st = phase_begin(j, CUZK_GPU_PHASE_NTT, j->cs, e))) return st;
    for (int i = 0; i < 3; i++) {
        if ((st = stage_vector(j, i, j->d_a, j->cs, e))) return st;
        if (i == 2) abc_read(j);
        if ((st = cuzk_gpu_ntt_run(k->ntt, j->d_a, lg, CUZK_GPU_NTT_ODD_COSET, j->cs, e))) return st;
        if (i == 1 && (st = cuzk_gpu_g16_pointwise(curve, j->d_a, dp, NULL, n, CUZK_GPU_G16_MUL, j->cs, e)))
            return st;
        if (i == 2 && (st = cuzk_gpu_g16_pointwise(curve, dp, NULL, j->d_a, n, CUZK_GPU_G16_RSUB, j->cs, e)))
            return st;
        if (i < 2) CUZK_CU(cudaMemcpyAsync(hp, j->d_a, v, cudaMemcpyDeviceToHost, j->cs));
    }
    if ((st = cancel_point(j, e))) return st;
    if ((st = cuzk_gpu_ntt_run(k->ntt, j->d_a, lg, CUZK_GPU_NTT_COSET_INVERSE, j->cs, e))) return st;
    CUZK_CU(cudaMemcpyAsync(hp, j->d_a, v, cudaMemcpyDeviceToHost, j->cs));
    if ((st = phase_end(j, CUZK_GPU_PHASE_NTT, j->cs, e))) return st;
    if ((st = wait_polled(j, j->t1[CUZK_GPU_PHASE_NTT], e))) return st;
    CUZK_CU(cudaStreamSynchronize(j->cs));
    dev_free(j, &j->d_a);
    j->locked = false;
    pthread_mutex_unlock(&k->gpu_lock);
    j->host_h = true;
    return CUZK_OK;
}

} /* namespace */

extern "C" cuzk_status cuzk_gpu_g16_job_ntt(cuzk_gpu_g16_job *j, cuzk_error *e)
{
    if (j && j->host_abc) return j->k->src.shape.bellperson ? ntt_host_bp(j, e) : ntt_host(j, e);
    if (!j || !j->d_a) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: ntt before abc");
    cuzk_gpu_g16_key *k = j->k;
    const cuzk_curve curve = k->src.shape.curve;
    const unsigned lg = k->src.shape.log_domain;
    const size_t n = (size_t)1 << lg;
    CUZK_DEVICE_GUARD(k->device);
    j->cur_phase = CUZK_GPU_PHASE_NTT;
    cuzk_status st;
    if ((st = phase_begin(j, CUZK_GPU_PHASE_NTT, j->cs, e))) return st;
    /* a cancel poll after each transform */
    if ((st = cuzk_gpu_ntt_run(k->ntt, j->d_a, lg, CUZK_GPU_NTT_ODD_COSET, j->cs, e))) return st;
    if ((st = cancel_point(j, e))) return st;
    if ((st = cuzk_gpu_ntt_run(k->ntt, j->d_b, lg, CUZK_GPU_NTT_ODD_COSET, j->cs, e))) return st;
    if ((st = cancel_point(j, e))) return st;
    if (j->d_c) {
        if ((st = cuzk_gpu_ntt_run(k->ntt, j->d_c, lg, CUZK_GPU_NTT_ODD_COSET, j->cs, e)) ||
            (st = cuzk_gpu_g16_pointwise(curve, j->d_a, j->d_b, j->d_c, n, CUZK_GPU_G16_QUOTIENT, j->cs, e)))
            return st;
    } else if (k->src.shape.bellperson) {
        /* 2 vectors: a = a.b, then c staged from the caller's into b's buffer (after the product, on the
         * compute stream) */
        if ((st = cuzk_gpu_g16_pointwise(curve, j->d_a, j->d_b, NULL, n, CUZK_GPU_G16_MUL, j->cs, e)) ||
            (st = stage_vector(j, 2, j->d_b, j->cs, e)))
            return st;
        abc_read(j);
        if ((st = cuzk_gpu_ntt_run(k->ntt, j->d_b, lg, CUZK_GPU_NTT_ODD_COSET, j->cs, e)) ||
            (st = cuzk_gpu_g16_pointwise(curve, j->d_a, NULL, j->d_b, n, CUZK_GPU_G16_SUB, j->cs, e)))
            return st;
    } else {
        /* 2 vectors: a = a.b, then c = (A.w)(B.w) again into b's buffer */
        if ((st = cuzk_gpu_g16_pointwise(curve, j->d_a, j->d_b, NULL, n, CUZK_GPU_G16_MUL, j->cs, e)) ||
            (st = cuzk_gpu_g16_abc(k->csr, j->d_w, NULL, NULL, j->d_b, j->cs, e)) ||
            (st = cuzk_gpu_ntt_run(k->ntt, j->d_b, lg, CUZK_GPU_NTT_ODD_COSET, j->cs, e)) ||
            (st = cuzk_gpu_g16_pointwise(curve, j->d_a, NULL, j->d_b, n, CUZK_GPU_G16_SUB, j->cs, e)))
            return st;
    }
    /* bellperson mode: h (raw) back to coefficients, a linear map (raw in, raw out) */
    if (k->src.shape.bellperson && (st = cuzk_gpu_ntt_run(k->ntt, j->d_a, lg, CUZK_GPU_NTT_COSET_INVERSE, j->cs, e)))
        return st;
    if ((st = phase_end(j, CUZK_GPU_PHASE_NTT, j->cs, e))) return st;
    /* b, c (and streamed coefficients) are done with once h exists */
    if ((st = wait_polled(j, j->t1[CUZK_GPU_PHASE_NTT], e))) return st;
    {
        host_call hc(j, "wait_device");
        CUZK_CU(cudaStreamSynchronize(j->cs));
    }
    abc_release(j);
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g16_job_msm(cuzk_gpu_g16_job *j, cuzk_gpu_plan_item_id id, void *result,
                                            cuzk_error *e)
{
    if (!j || !result) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: NULL argument");
    const int i = (int)id - CUZK_GPU_ITEM_MSM_H;
    cuzk_gpu_g16_key *k = j->k;
    const bool host = k->plan.host_witness;
    if (j->next_msm >= NMSM || i != j->order[j->next_msm] || (host ? !j->host_h : (i == 0 && !j->d_a) || !j->locked))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: MSMs run after ntt in the job's order, %s first (got %s)",
                        cuzk_gpu_plan_item_name((cuzk_gpu_plan_item_id)(CUZK_GPU_ITEM_MSM_H + j->order[0])),
                        cuzk_gpu_plan_item_name(id));
    const cuzk_gpu_key_shape *s = &k->src.shape;
    /* tier 7, bellperson mode: A's (B's) scalars into the pinned vector, whose last reader (the H (A)
     * MSM) is done, before the lock */
    if (host && s->bellperson && (i == 1 || i == 2) && j->host_bits[i - 1]) {
        cuzk_status st = host_select(j, j->host_bits[i - 1], i == 1 ? s->n_a : s->n_b,
                                     (uint8_t *)k->pinned_abc[j->slot], i == 1 ? "A" : "B", NULL, e);
        if (st) return st;
    }
    const int ph = CUZK_GPU_PHASE_MSM_H + i;
    j->cur_phase = ph;
    if (host && !j->locked) gpu_lock(j); /* tier 7: the lock per MSM */
    CUZK_DEVICE_GUARD(k->device);
    cuzk_status st;
    const size_t np = msm_points(s, i);
    if (np == 0) {
        memset(result, 0, jac_bytes(s->curve, i)); /* infinity (Z = 0) */
    } else {
        cuzk_gpu_msm *m = k->msm[i], *tmp = NULL;
        if (!m) {
            if (j->pre[i]) tmp = j->pre[i]; /* made by an earlier phase, its bases uploaded or on their way */
            else {
                host_call hc(j, "make_handle");
                if ((st = msm_make(k, i, true, &tmp, e))) return st;
            }
            j->pre[i] = NULL;
            m = tmp;
        }
        sample(k);
        st = CUZK_OK;
        if (!j->tk[i].issued) st = msm_issue(j, i, m, e);
        /* later phases' handles the plan makes now: their uploads run
         * beside this phase's kernels */
        for (int x = 0; !st && !host && x < NMSM; x++)
            if (!k->msm[x] && !j->pre[x] && k->plan.item[CUZK_GPU_ITEM_MSM_H + x].prefetch_from == ph &&
                msm_points(s, x) > 0) {
                host_call hc(j, "make_next_handle");
                if (!(st = msm_make(k, x, true, &j->pre[x], e))) st = cuzk_gpu_msm_prefetch(j->pre[x], e);
            }
        /* the next MSM's device work is queued before this one's sums are
         * combined on the host */
        const int nx = j->next_msm + 1 < NMSM ? j->order[j->next_msm + 1] : -1;
        if (!st && j->pipelined && nx >= 0 && msm_points(s, nx) > 0 && !j->tk[nx].issued)
            st = msm_issue(j, nx, k->msm[nx], e);
        if (!st) st = wait_polled(j, j->t1[ph], e);
        if (!st) {
            host_call hc(j, "sums");
            st = cuzk_gpu_msm_finish(m, &j->tk[i], result, e);
        }
        if (tmp) {
            host_call hc(j, "destroy_handle");
            pthread_mutex_lock(&k->alloc_mu);
            cuzk_gpu_msm_destroy(tmp);
            pthread_mutex_unlock(&k->alloc_mu);
        }
        if (st) return st;
    }
    j->next_msm++;
    /* h is freed after its MSM unless the MSMs are pipelined (a free would
     * wait for the next MSM's kernels) */
    if (i == 0 && !j->pipelined && !sel_in_a(k)) dev_free(j, &j->d_a);
    if (host) {
        {
            host_call hc(j, "wait_device");
            CUZK_CU(cudaStreamSynchronize(j->cs));
        }
        j->locked = false;
        pthread_mutex_unlock(&k->gpu_lock);
    } else if (j->next_msm == NMSM) {
        {
            host_call hc(j, "wait_device");
            CUZK_CU(cudaStreamSynchronize(j->cs));
        }
        sel_free(j);
        dev_free(j, &j->d_w);
        dev_free(j, &j->d_a);
        j->locked = false;
        pthread_mutex_unlock(&k->gpu_lock);
    }
    return CUZK_OK;
}

extern "C" void cuzk_gpu_g16_job_msm_order(const cuzk_gpu_g16_job *j, cuzk_gpu_plan_item_id order[NMSM])
{
    for (int i = 0; i < NMSM; i++) order[i] = (cuzk_gpu_plan_item_id)(CUZK_GPU_ITEM_MSM_H + (j ? j->order[i] : i));
}

extern "C" void cuzk_gpu_g16_job_times(const cuzk_gpu_g16_job *j, double ms[CUZK_GPU_PHASE_COUNT])
{
    for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++) {
        float t = 0;
        ms[p] = 0;
        if (j->recorded[p] && cudaEventElapsedTime(&t, j->t0[p], j->t1[p]) == cudaSuccess) ms[p] = t;
        else cudaGetLastError();
    }
}

extern "C" size_t cuzk_gpu_g16_job_spans(cuzk_gpu_g16_job *j, int wait, cuzk_gpu_g16_span *out, size_t cap)
{
    if (!j || !j->ev_ref) return 0;
    cuzk_gpu::device_guard g(j->k->device);
    if (wait) {
        if (j->cs) cudaStreamSynchronize(j->cs);
        if (j->up) cudaStreamSynchronize(j->up);
    }
    size_t n = 0;
    for (int p = 0; p < CUZK_GPU_PHASE_COUNT && n < cap; p++) {
        if (!j->recorded[p] || j->reported[p]) continue;
        if (cudaEventQuery(j->t1[p]) != cudaSuccess) { /* not done yet (or failed: reported by the step) */
            cudaGetLastError();
            continue;
        }
        float a = 0, b = 0;
        if (cudaEventElapsedTime(&a, j->ev_ref, j->t0[p]) != cudaSuccess ||
            cudaEventElapsedTime(&b, j->ev_ref, j->t1[p]) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        j->reported[p] = true;
        out[n].phase = (cuzk_gpu_plan_phase)p;
        out[n].name = NULL;
        out[n].slot = j->slot;
        out[n].stream = p == CUZK_GPU_PHASE_STAGE ? 1 : 0;
        out[n].start = j->t_ref + a * 1e-3;
        out[n].end = j->t_ref + b * 1e-3;
        n++;
    }
    for (; j->hc_reported < j->nhc && n < cap; j->hc_reported++, n++) {
        const host_call_rec *c = &j->hc[j->hc_reported];
        out[n].phase = (cuzk_gpu_plan_phase)c->phase;
        out[n].name = c->name;
        out[n].slot = j->slot;
        out[n].stream = 2;
        out[n].start = c->start;
        out[n].end = c->end;
    }
    return n;
}

extern "C" void cuzk_gpu_g16_job_end(cuzk_gpu_g16_job *j)
{
    if (!j) return;
    cuzk_gpu_g16_key *k = j->k;
    {
        cuzk_gpu::device_guard g(k->device);
        if (j->cs) cudaStreamSynchronize(j->cs);
        if (j->up) cudaStreamSynchronize(j->up);
        cudaGetLastError();
        sel_free(j);
        dev_free(k, &j->d_w);
        dev_free(k, &j->d_a);
        abc_release(j);
        pre_free(j);
    }
    if (j->locked) pthread_mutex_unlock(&k->gpu_lock);
    free(j->host_bits[0]);
    free(j->host_bits[1]);
    if (j->slot >= 0) {
        pthread_mutex_lock(&k->mu);
        k->slot_busy[j->slot] = false;
        pthread_cond_broadcast(&k->cv);
        pthread_mutex_unlock(&k->mu);
    }
    cuzk_free(j);
}
