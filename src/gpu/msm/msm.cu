/* GPU MSM: the C API (handles). The pipeline is in msm_impl.cuh, the memory
 * plan in plan.c. */
#include "gpu/msm/msm_impl.cuh"

namespace {

/* live[i / 32] bit i % 32: base i is not the point at infinity, i.e. not all
 * of its coordinate words are zero (x = y = 0, the zkey convention: the
 * same test as aff_is_inf). One thread a point, a warp's ballot a word. */
__global__ void live_mask_kernel(const uint4 *bases, size_t n, unsigned words, uint32_t *live)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t nz = 0;
    if (i < n)
        for (unsigned k = 0; k < words; k++) {
            const uint4 v = bases[i * words + k];
            nz |= v.x | v.y | v.z | v.w;
        }
    const unsigned word = __ballot_sync(0xffffffffu, nz != 0);
    if ((threadIdx.x & 31) == 0 && i < n) live[i >> 5] = word;
}

/* Free memory minus the margin (gpu_default_budget). */
cuzk_status default_budget(size_t *budget, cuzk_error *e)
{
    size_t fr = 0, tot = 0;
    CUZK_CU(cudaMemGetInfo(&fr, &tot));
    *budget = gpu_default_budget(fr, tot);
    return CUZK_OK;
}

cuzk_status device_sm_count(int device, int *sm_count, cuzk_error *e)
{
    CUZK_CU(cudaDeviceGetAttribute(sm_count, cudaDevAttrMultiProcessorCount, device));
    return CUZK_OK;
}

} /* namespace */

extern "C" cuzk_status cuzk_gpu_msm_plan_for(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                             const cuzk_gpu_msm_config *cfg, int device, cuzk_gpu_msm_plan *out,
                                             cuzk_error *e)
{
    if (!out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm plan: NULL output");
    if (!cuzk_gpu_msm_ops_get(curve, group) || npoints == 0)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm plan: bad curve, group or size");
    CUZK_DEVICE_GUARD(device);
    size_t budget = cfg ? cfg->device_budget : 0;
    if (!budget) {
        cuzk_status sb = default_budget(&budget, e);
        if (sb != CUZK_OK) return sb;
    }
    int sms = 0;
    cuzk_status st = device_sm_count(device, &sms, e);
    if (st != CUZK_OK) return st;
    return cuzk_gpu_msm_plan_make(curve, group, npoints, cfg, sms, budget, out, e);
}

extern "C" void cuzk_gpu_msm_get_plan(const cuzk_gpu_msm *m, cuzk_gpu_msm_plan *out)
{
    if (!out) return;
    if (m) *out = m->mem;
    else memset(out, 0, sizeof *out);
}

extern "C" void cuzk_gpu_msm_destroy(cuzk_gpu_msm *m)
{
    if (!m) return;
    {
        cuzk_gpu::device_guard g(m->device);
        if (m->copy_st) cudaStreamSynchronize(m->copy_st);
        void *ptrs[] = {m->d_bases, m->d_live, m->d_chunk, m->d_scalars, m->d_ones_acc, m->d_ones, m->d_counters, m->d_offsets,
                        m->d_cursor, m->d_tiles, m->d_entries, m->d_pairs, m->d_gcur, m->d_buckets, m->d_part,
                        m->d_part_key, m->d_red_a, m->d_red_b};
        for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
            if (ptrs[i]) cudaFree(ptrs[i]);
        for (int i = 0; i < 2; i++) {
            if (m->ev_up[i]) cudaEventDestroy(m->ev_up[i]);
            if (m->ev_done[i]) cudaEventDestroy(m->ev_done[i]);
            if (m->ev_res[i]) cudaEventDestroy(m->ev_res[i]);
            if (m->h_slot[i]) cudaFreeHost(m->h_slot[i]);
        }
        if (m->ev_start) cudaEventDestroy(m->ev_start);
        if (m->ev_pref) cudaEventDestroy(m->ev_pref);
        if (m->ev_cls) cudaEventDestroy(m->ev_cls);
        if (m->ev_ones) cudaEventDestroy(m->ev_ones);
        if (m->copy_st) cudaStreamDestroy(m->copy_st);
        if (m->registered) cudaHostUnregister((void *)((const char *)m->h_bases + m->reg_from * m->aff_size));
    }
    if (m->own_stager) cuzk_gpu_msm_stager_destroy(m->stager);
    cuzk_free(m);
}

extern "C" cuzk_status cuzk_gpu_msm_stager_create(cuzk_gpu_msm_stager **out, size_t chunk_bytes, int device,
                                                  cuzk_error *e)
{
    if (!out || !chunk_bytes) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm stager: NULL output or no chunk size");
    *out = NULL;
    CUZK_DEVICE_GUARD(device);
    cuzk_gpu_msm_stager *s = (cuzk_gpu_msm_stager *)cuzk_calloc(1, sizeof *s);
    if (!s) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu msm stager: out of host memory");
    s->bytes = chunk_bytes;
    s->device = device;
    cudaError_t rc = pthread_mutex_init(&s->mu, NULL) ? cudaErrorMemoryAllocation : cudaSuccess;
    s->mu_made = rc == cudaSuccess;
    for (int i = 0; i < 2 && rc == cudaSuccess; i++) {
        rc = cudaHostAlloc(&s->chunk[i], chunk_bytes, cudaHostAllocPortable);
        if (rc == cudaSuccess) rc = cudaEventCreateWithFlags(&s->ev_fill[i], cudaEventDisableTiming);
        if (rc == cudaSuccess) rc = cudaEventCreateWithFlags(&s->ev_sdma[i], cudaEventDisableTiming);
    }
    if (rc == cudaSuccess) rc = cudaStreamCreateWithFlags(&s->fill_st, cudaStreamNonBlocking);
    if (rc != cudaSuccess) {
        (void)cudaGetLastError();
        cuzk_gpu_msm_stager_destroy(s);
        return cuzk_err(e, rc == cudaErrorMemoryAllocation ? CUZK_ERR_NOMEM : CUZK_ERR_GPU,
                        "gpu msm stager: two page-locked chunks of %zu bytes: %s", chunk_bytes,
                        cudaGetErrorString(rc));
    }
    *out = s;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_msm_stager_destroy(cuzk_gpu_msm_stager *s)
{
    if (!s) return;
    {
        cuzk_gpu::device_guard g(s->device);
        if (s->fill_st) {
            cudaStreamSynchronize(s->fill_st);
            cudaStreamDestroy(s->fill_st);
        }
        for (int i = 0; i < 2; i++) {
            if (s->ev_sdma[i]) cudaEventSynchronize(s->ev_sdma[i]); /* a copy out of chunk i still queued */
            if (s->ev_fill[i]) cudaEventDestroy(s->ev_fill[i]);
            if (s->ev_sdma[i]) cudaEventDestroy(s->ev_sdma[i]);
            if (s->chunk[i]) cudaFreeHost(s->chunk[i]);
        }
    }
    if (s->mu_made) pthread_mutex_destroy(&s->mu);
    cuzk_free(s);
}

/* Host bases copied to the device, page-locked for the copy (read-only
 * where the device has it) so that it runs at the bus's rate rather than
 * through the driver's staging of pageable memory (about 3 GB/s: 15 s of a
 * 44 GiB bellperson key's load on an H200); pages that cannot be locked, or
 * are locked already, are copied as they are. The host plan counts the
 * largest resident item's bases as locked at attach (key_upload_locked). */
namespace {
cudaError_t upload_host(void *dst, const void *src, size_t bytes, int device)
{
    int ro = 0;
    if (cudaDeviceGetAttribute(&ro, cudaDevAttrHostRegisterReadOnlySupported, device) != cudaSuccess) {
        cudaGetLastError();
        ro = 0;
    }
    const cudaError_t reg =
        cudaHostRegister((void *)src, bytes, cudaHostRegisterPortable | (ro ? cudaHostRegisterReadOnly : 0));
    if (reg != cudaSuccess) cudaGetLastError();
    const cudaError_t rc = cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice);
    if (reg == cudaSuccess && cudaHostUnregister((void *)src) != cudaSuccess) cudaGetLastError();
    return rc;
}
} /* namespace */

extern "C" cuzk_status cuzk_gpu_msm_create(cuzk_gpu_msm **out, cuzk_curve curve, cuzk_gpu_group group, const void *bases,
                                           size_t npoints, int bases_on_device, int device, const cuzk_gpu_msm_config *cfg,
                                           cuzk_error *e)
{
    if (!out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: NULL output");
    *out = NULL;
    if (!cuzk_gpu_curve_ops_get(curve)) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: unknown curve %d", (int)curve);
    const cuzk_gpu_msm_ops *ops = cuzk_gpu_msm_ops_get(curve, group);
    if (!ops) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: unknown group %d", (int)group);
    if (npoints == 0 || !bases) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: no bases");
    if (cfg && cfg->stager && cfg->stager->device != device)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: a stager of device %d for a handle on device %d",
                        cfg->stager->device, device);
    if (npoints >= ((size_t)1 << 31)) return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu msm: at most 2^31-1 points");
    CUZK_DEVICE_GUARD(device);
    cuzk_gpu_msm_config c0;
    if (cfg) c0 = *cfg;
    else memset(&c0, 0, sizeof c0);
    if (bases_on_device) c0.upload_in_run = 0; /* nothing to upload */
    cfg = &c0;
    size_t budget = cfg->device_budget;
    if (!budget) {
        cuzk_status sb = default_budget(&budget, e);
        if (sb != CUZK_OK) return sb;
    }
    int sm_count = 0;
    gpu_msm_full_plan fp;
    {
        cuzk_status sp = device_sm_count(device, &sm_count, e);
        if (sp == CUZK_OK) sp = gpu_msm_plan_full(&fp, curve, group, npoints, cfg, sm_count, budget, e);
        if (sp != CUZK_OK) return sp;
    }
    cuzk_gpu_msm *m = (cuzk_gpu_msm *)cuzk_calloc(1, sizeof *m);
    if (!m) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu msm: out of host memory");
    cuzk_status st = CUZK_OK;
    m->curve = curve;
    m->group = group;
    m->ops = ops;
    m->device = device;
    m->npoints = npoints;
    m->bits = gpu_scalar_bits(curve);
    if (cfg) m->cfg = *cfg;
    m->sm_count = sm_count;
    m->plan = fp.p;
    m->mem = fp.mp;
    m->nbatch_max = fp.nbatch;
    m->aff_size = gpu_affine_bytes(curve, group);
    m->xyzz_size = 2 * m->aff_size;
    {
        const msm_plan &p = m->plan;
        const size_t xz = m->xyzz_size;
        const size_t ntiles = (p.NBmax + SCAN_TILE - 1) / SCAN_TILE + 1;
        const size_t red = p.red_max > p.ones_threads ? p.red_max : p.ones_threads;
        const size_t res = m->mem.resident_points, chunk = m->mem.chunk_points;
        const cudaMemcpyKind kind = bases_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
        if (res) {
            /* precomputed copies (resident only): copy j at j * npoints */
            CUZK_CU_GOTO(cudaMalloc(&m->d_bases, res * m->aff_size * p.pre_t), fail);
        }
        if (res && m->mem.streamed && !bases_on_device) {
            /* DESIGN: a streamed handle over host bases uploads its resident
             * prefix in its first run, batch by batch on the copy stream
             * beside that run's computation, as it uploads the rest: the
             * prover makes such handles for one phase of one proof, and an
             * upload here, before the run, left the GPU idle (a 2^27
             * partition on an H100 at its full memory: H's 4.8 GB and B2's
             * 4.0 GB a proof, about 0.25 s) */
            m->prefix_pending = 1;
        } else if (res) {
            CUZK_CU_GOTO(bases_on_device ? cudaMemcpy(m->d_bases, bases, res * m->aff_size, kind)
                                         : upload_host(m->d_bases, bases, res * m->aff_size, device),
                         fail);
            /* bellperson's encoding: converted where it landed, before the
             * live mask and the copies read it (the legacy stream orders) */
            if (m->cfg.bases_be && (st = ops->decode_be(m->d_bases, res, 0, e)) != CUZK_OK) goto fail;
            /* cudaMemcpy from pageable host memory returns once the data is
             * staged (device to device: at once), before it is on the
             * device; runs go on the caller's streams, which the legacy
             * stream does not order when they are non-blocking: wait */
            CUZK_CU_GOTO(cudaStreamSynchronize(0), fail);
        }
        if (m->mem.streamed) {
            m->h_bases = bases;
            if (res < npoints) CUZK_CU_GOTO(cudaMalloc(&m->d_chunk, 2 * chunk * m->aff_size), fail);
            if ((res < npoints || m->prefix_pending) && !bases_on_device && cfg->pin_host_bases) {
                m->reg_from = m->prefix_pending ? 0 : res; /* what the runs upload */
                cudaError_t rc = cudaHostRegister((void *)((const char *)bases + m->reg_from * m->aff_size),
                                                  (npoints - m->reg_from) * m->aff_size, cudaHostRegisterPortable);
                if (rc == cudaSuccess) m->registered = 1;
                else if (rc == cudaErrorHostMemoryAlreadyRegistered) (void)cudaGetLastError(); /* pinned already */
                else CUZK_CU_GOTO(rc, fail);
            } else if ((res < npoints || m->prefix_pending) && !bases_on_device) {
                /* staged: the caller's stager, or two page-locked chunks of our own
                 * (gpu_msm_stage_bytes); where those cannot be made either, the
                 * driver's pageable copies (slow, but the run goes on) */
                m->stager = cfg->stager;
                if (!m->stager) {
                    cuzk_error se = {};
                    m->own_stager = cuzk_gpu_msm_stager_create(&m->stager, gpu_msm_stage_points(chunk) * m->aff_size,
                                                               device, &se) == CUZK_OK;
                }
            }
            CUZK_CU_GOTO(cudaMalloc(&m->d_ones_acc, m->nbatch_max * xz), fail);
            CUZK_CU_GOTO(cudaMalloc(&m->d_ones, chunk * 4), fail);
        } else {
            CUZK_CU_GOTO(cudaMalloc(&m->d_ones, npoints * 4), fail);
            /* the live mask (classify skips scalars on infinity), from the
             * bases just copied, on the legacy stream like that copy */
            CUZK_CU_GOTO(cudaMalloc(&m->d_live, gpu_msm_live_words(npoints) * 4), fail);
            live_mask_kernel<<<(unsigned)((npoints + 255) / 256), 256>>>((const uint4 *)m->d_bases, npoints,
                                                                         (unsigned)(m->aff_size / 16), m->d_live);
            CUZK_CU_GOTO(cudaGetLastError(), fail);
            CUZK_CU_GOTO(cudaStreamSynchronize(0), fail);
        }
        CUZK_CU_GOTO(cudaMalloc(&m->d_counters, 16), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_offsets, (p.NBmax + 1) * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_cursor, p.NBmax * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_tiles, ntiles * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_entries, p.cap_entries * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_pairs, gpu_msm_pairs_bytes(&p, xz)), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_gcur, (p.ncoarse_max + 1) * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_buckets, p.NBmax * xz), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_part, 2 * p.nseg_max * xz), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_part_key, 2 * p.nseg_max * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_red_a, red * xz), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_red_b, red * xz), fail);
    }
    if ((st = msm_ensure_events(m, e)) != CUZK_OK) goto fail;
    if (m->plan.pre_t > 1 && (st = ops->precompute(m, e)) != CUZK_OK) goto fail;
    *out = m;
    return CUZK_OK;
fail:
    cuzk_gpu_msm_destroy(m);
    return st;
}

namespace {

cuzk_status check_scalars(const cuzk_gpu_msm *m, const uint64_t *scalars, size_t n, int on_dev, cuzk_error *e)
{
    if (!scalars && n) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: NULL argument");
    if (n > m->npoints) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: %zu scalars but only %zu bases", n, m->npoints);
    if (on_dev && n && ((uintptr_t)scalars & 15) != 0)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: device scalars must be 16-byte aligned");
    return CUZK_OK;
}

/* The uploads of a run wait for what the caller queued on st before it. */
cuzk_status order_after_caller(cuzk_gpu_msm *m, cudaStream_t st, cuzk_error *e)
{
    CUZK_CU(cudaEventRecord(m->ev_start, st));
    CUZK_CU(cudaStreamWaitEvent(m->copy_st, m->ev_start, 0));
    return CUZK_OK;
}

} /* namespace */

extern "C" cuzk_status cuzk_gpu_msm_run(cuzk_gpu_msm *m, void *result, const uint64_t *scalars, size_t n,
                                        int scalars_on_device, void *stream, cuzk_error *e)
{
    if (!m || !result) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: NULL argument");
    cuzk_status rc = check_scalars(m, scalars, n, scalars_on_device, e);
    if (rc != CUZK_OK) return rc;
    if (n == 0) {
        /* Empty sum: infinity. */
        memset(result, 0, 3 * m->aff_size / 2);
        return CUZK_OK;
    }
    CUZK_DEVICE_GUARD(m->device);
    cudaStream_t st = (cudaStream_t)stream;
    const cuzk_gpu_msm_ops *ops = m->ops;
    if ((rc = order_after_caller(m, st, e)) != CUZK_OK) return rc;
    msm_pending pd;
    if ((rc = ops->issue(m, scalars, n, scalars_on_device, st, 0, &pd, e)) != CUZK_OK) return rc;
    return ops->finish(m, &pd, result, e);
}

extern "C" cuzk_status cuzk_gpu_msm_run_many(cuzk_gpu_msm *m, void *results, const uint64_t *const *scalars,
                                             const size_t *n, size_t count, int scalars_on_device, void *stream,
                                             cuzk_error *e)
{
    if (!m || (count && (!results || !scalars || !n))) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: NULL argument");
    cuzk_status rc;
    for (size_t i = 0; i < count; i++)
        if ((rc = check_scalars(m, scalars[i], n[i], scalars_on_device, e)) != CUZK_OK) return rc;
    CUZK_DEVICE_GUARD(m->device);
    cudaStream_t st = (cudaStream_t)stream;
    const size_t jac_size = 3 * m->aff_size / 2;
    const cuzk_gpu_msm_ops *ops = m->ops;
    if ((rc = order_after_caller(m, st, e)) != CUZK_OK) return rc;
    /* MSM i is queued before MSM i-1's sums are combined on the host */
    msm_pending pd[2];
    size_t prev = 0, issued = 0;
    for (size_t i = 0; i < count; i++) {
        char *res = (char *)results + i * jac_size;
        if (n[i] == 0) {
            memset(res, 0, jac_size);
            continue;
        }
        const int slot = (int)(issued & 1);
        if ((rc = ops->issue(m, scalars[i], n[i], scalars_on_device, st, slot, &pd[slot], e)) != CUZK_OK) return rc;
        if (issued && (rc = ops->finish(m, &pd[slot ^ 1], (char *)results + prev * jac_size, e)) != CUZK_OK) return rc;
        prev = i;
        issued++;
    }
    if (issued) return ops->finish(m, &pd[(issued - 1) & 1], (char *)results + prev * jac_size, e);
    return CUZK_OK;
}

extern "C" unsigned cuzk_gpu_msm_last_window(const cuzk_gpu_msm *m) { return m ? m->last_c : 0; }

/* The resident prefix's upload (as the first run would queue it, batch by
 * batch) queued now on copy_st, which nothing else orders until a run: the
 * copies start at once, beside whatever the device computes. */
extern "C" cuzk_status cuzk_gpu_msm_prefetch(cuzk_gpu_msm *m, cuzk_error *e)
{
    if (!m) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: NULL argument");
    if (!m->prefix_pending) return CUZK_OK;
    CUZK_DEVICE_GUARD(m->device);
    const size_t res = m->mem.resident_points, step = m->mem.chunk_points ? m->mem.chunk_points : res;
    for (size_t b0 = 0; b0 < res; b0 += step) {
        const size_t b1 = b0 + step < res ? b0 + step : res;
        cuzk_status rd = msm_upload_bases(m, (char *)m->d_bases + b0 * m->aff_size, b0, b1, e);
        if (rd != CUZK_OK) return rd;
    }
    CUZK_CU(cudaEventRecord(m->ev_pref, m->copy_st));
    m->prefix_pending = 0;
    m->prefetched = 1;
    return CUZK_OK;
}

/* ---- issue / finish (src/gpu/msm/msm_async.h) ---- */
#include "gpu/msm/msm_async.h"

static_assert(sizeof(msm_pending) <= sizeof(((cuzk_gpu_msm_ticket *)0)->opaque), "msm_pending fits a ticket");

extern "C" cuzk_status cuzk_gpu_msm_issue(cuzk_gpu_msm *m, cuzk_gpu_msm_ticket *t, const uint64_t *scalars, size_t n,
                                          int scalars_on_device, void *stream, cuzk_error *e)
{
    if (!m || !t) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: NULL argument");
    t->issued = t->empty = 0;
    cuzk_status rc = check_scalars(m, scalars, n, scalars_on_device, e);
    if (rc != CUZK_OK) return rc;
    if (n == 0) {
        t->issued = t->empty = 1;
        return CUZK_OK;
    }
    CUZK_DEVICE_GUARD(m->device);
    cudaStream_t st = (cudaStream_t)stream;
    if ((rc = order_after_caller(m, st, e)) != CUZK_OK) return rc;
    if ((rc = m->ops->issue(m, scalars, n, scalars_on_device, st, 0, (msm_pending *)t->opaque, e)) != CUZK_OK)
        return rc;
    t->issued = 1;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_msm_finish(cuzk_gpu_msm *m, cuzk_gpu_msm_ticket *t, void *result, cuzk_error *e)
{
    if (!m || !t || !result || !t->issued) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: finish without issue");
    t->issued = 0;
    if (t->empty) {
        memset(result, 0, 3 * m->aff_size / 2);
        return CUZK_OK;
    }
    CUZK_DEVICE_GUARD(m->device);
    return m->ops->finish(m, (const msm_pending *)t->opaque, result, e);
}
