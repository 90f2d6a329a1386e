/* GPU MSM: the C API (handles, memory planning). The pipeline is in
 * msm_impl.cuh. */
#include "gpu/msm_impl.cuh"

namespace {

size_t aff_size_of(cuzk_curve c, cuzk_gpu_group g)
{
    size_t f = c == CUZK_CURVE_BN254 ? 32 : 48;
    return 2 * f * (g == CUZK_GPU_G2 ? 2 : 1);
}

unsigned scalar_bits(cuzk_curve c) { return c == CUZK_CURVE_BN254 ? 254 : 255; }

/* Workspaces independent of how the bases are held (xz: XYZZ point size). */
size_t ws_bytes(const msm_plan &p, size_t xz)
{
    size_t ntiles = (p.NBmax + SCAN_TILE - 1) / SCAN_TILE + 1;
    size_t red = p.red_max > p.ones_threads ? p.red_max : p.ones_threads;
    return 16                                         /* counters */
           + (2 * p.NBmax + 1) * 4 + ntiles * 4       /* offsets, cursor, tiles */
           + p.cap_entries * 4                        /* sorted entries */
           + p.cap_entries * 8                        /* coarse-sorted pairs */
           + (p.ncoarse_max + 1) * 4                  /* bin cursors + flag */
           + p.NBmax * xz                             /* buckets */
           + 2 * p.nseg_max * (xz + 4)                /* partials + keys */
           + 2 * red * xz;                            /* reduction ping-pong */
}

/* Resident: all bases (and their precomputed copies), the ones list and the
 * staging of host scalars for npoints. */
size_t resident_bytes(const msm_plan &p, size_t npoints, size_t aff)
{
    return npoints * aff * p.pre_t + npoints * 32 + npoints * 4 + ws_bytes(p, 2 * aff);
}

/* Streamed with chunks of `chunk` points and `res` resident bases: two
 * chunk buffers of bases (none when all are resident) and of host scalars,
 * the ones list of a chunk, one ones partial sum per batch. */
size_t streamed_bytes(const msm_plan &p, unsigned bits, size_t npoints, size_t chunk, size_t res, size_t aff)
{
    return res * aff + (res < npoints ? 2 * chunk * aff : 0) + 2 * chunk * 32 + chunk * 4 +
           msm_max_batches(p, bits, npoints, res) * 2 * aff + ws_bytes(p, 2 * aff);
}

struct full_plan {
    msm_plan p;
    cuzk_gpu_msm_plan mp;
    size_t nbatch;
};

/* The memory plan (gpu.h, "Memory plan"): resident if it fits, else the
 * largest chunk (halving from the batch size, down to 1024 points) whose
 * chunk buffers take at most half of what the fixed workspaces leave, then
 * as many whole chunks of resident bases as the rest holds. */
cuzk_status plan_memory(full_plan *fp, cuzk_curve curve, cuzk_gpu_group group, size_t npoints, const cuzk_gpu_msm_config *cfg,
                        int sm_count, size_t budget, cuzk_error *e)
{
    const unsigned bits = scalar_bits(curve);
    const size_t aff = aff_size_of(curve, group);
    memset(&fp->mp, 0, sizeof fp->mp);
    fp->mp.budget = budget;
    fp->p = make_plan(bits, npoints, cfg, sm_count);
    const size_t rb = resident_bytes(fp->p, npoints, aff);
    if (rb <= budget) {
        fp->mp.streamed = 0;
        fp->mp.chunk_points = fp->p.batch;
        fp->mp.resident_points = npoints;
        fp->mp.device_bytes = rb;
        fp->nbatch = 1;
        return CUZK_OK;
    }
    if (fp->p.pre_t > 1)
        return cuzk_err(e, CUZK_ERR_NOMEM,
                        "gpu msm: %zu bases x %u precomputed copies need %zu bytes resident, the budget is %zu (the "
                        "precomputed mode is not streamed)",
                        npoints, fp->p.pre_t, rb, budget);
    cuzk_gpu_msm_config c2;
    if (cfg) c2 = *cfg;
    else memset(&c2, 0, sizeof c2);
    size_t chunk = c2.batch_points ? c2.batch_points : ((size_t)1 << 24);
    if (chunk > npoints) chunk = npoints;
    const size_t minc = npoints < 1024 ? npoints : (chunk < 1024 ? chunk : 1024);
    /* workspaces that do not shrink with the chunk (buckets, reduction):
     * the plan at the smallest chunk */
    c2.batch_points = minc;
    fp->p = make_plan(bits, npoints, &c2, sm_count);
    const size_t fixed0 = streamed_bytes(fp->p, bits, npoints, minc, 0, aff);
    if (fixed0 > budget)
        return cuzk_err(e, CUZK_ERR_NOMEM,
                        "gpu msm: %zu bases of %zu bytes do not fit a device budget of %zu bytes, not even streamed "
                        "in chunks of %zu points with no resident base (needs %zu bytes)",
                        npoints, aff, budget, minc, fixed0);
    /* the largest chunk whose buffers take at most half of the rest (the
     * other half holds resident bases) */
    size_t fixed = fixed0;
    for (;;) {
        c2.batch_points = chunk;
        fp->p = make_plan(bits, npoints, &c2, sm_count);
        fixed = streamed_bytes(fp->p, bits, npoints, chunk, 0, aff);
        if (chunk <= minc || fixed <= fixed0 || (fixed <= budget && fixed - fixed0 <= (budget - fixed0) / 2)) break;
        chunk = chunk / 2 > minc ? chunk / 2 : minc;
    }
    /* resident prefix: whole chunks (one ones slot more at most) */
    size_t res = 0;
    const size_t avail = budget - fixed;
    if (avail > 2 * aff) res = (avail - 2 * aff) / aff / chunk * chunk;
    if (res > npoints) res = npoints;
    while (res > 0 && streamed_bytes(fp->p, bits, npoints, chunk, res, aff) > budget) res -= res >= chunk ? chunk : res;
    fp->mp.streamed = 1;
    fp->mp.chunk_points = chunk;
    fp->mp.resident_points = res;
    fp->mp.device_bytes = streamed_bytes(fp->p, bits, npoints, chunk, res, aff);
    fp->nbatch = msm_max_batches(fp->p, bits, npoints, res);
    return CUZK_OK;
}

/* Free memory minus max(256 MiB, 2 % of the device); 0 if less. */
cuzk_status default_budget(size_t *budget, cuzk_error *e)
{
    size_t fr = 0, tot = 0;
    CUZK_CU(cudaMemGetInfo(&fr, &tot));
    size_t margin = tot / 50 > ((size_t)256 << 20) ? tot / 50 : ((size_t)256 << 20);
    *budget = fr > margin ? fr - margin : 0;
    return CUZK_OK;
}

int device_sm_count(int device)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) v = 132;
    return v;
}

bool valid_group(cuzk_curve curve, cuzk_gpu_group group)
{
    return (curve == CUZK_CURVE_BN254 || curve == CUZK_CURVE_BLS12_381) && (group == CUZK_GPU_G1 || group == CUZK_GPU_G2);
}

typedef cuzk_status (*issue_fn)(cuzk_gpu_msm *, const uint64_t *, size_t, int, cudaStream_t, int, msm_pending *, cuzk_error *);
typedef cuzk_status (*finish_fn)(cuzk_gpu_msm *, const msm_pending *, void *, cuzk_error *);

void drivers(const cuzk_gpu_msm *m, issue_fn *is, finish_fn *fi)
{
    if (m->curve == CUZK_CURVE_BN254) {
        *is = m->group == CUZK_GPU_G1 ? cuzk_gpu_msm_run_bn254_g1_issue : cuzk_gpu_msm_run_bn254_g2_issue;
        *fi = m->group == CUZK_GPU_G1 ? cuzk_gpu_msm_run_bn254_g1_finish : cuzk_gpu_msm_run_bn254_g2_finish;
    } else {
        *is = m->group == CUZK_GPU_G1 ? cuzk_gpu_msm_run_bls12_381_g1_issue : cuzk_gpu_msm_run_bls12_381_g2_issue;
        *fi = m->group == CUZK_GPU_G1 ? cuzk_gpu_msm_run_bls12_381_g1_finish : cuzk_gpu_msm_run_bls12_381_g2_finish;
    }
}

} /* namespace */

extern "C" size_t cuzk_gpu_msm_device_bytes(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                            const cuzk_gpu_msm_config *cfg)
{
    if (!valid_group(curve, group) || npoints == 0) return 0;
    if (cfg && cfg->device_budget) {
        full_plan fp;
        cuzk_error e = {};
        if (plan_memory(&fp, curve, group, npoints, cfg, 132, cfg->device_budget, &e) != CUZK_OK) return 0;
        return fp.mp.device_bytes;
    }
    msm_plan p = make_plan(scalar_bits(curve), npoints, cfg, 132);
    return resident_bytes(p, npoints, aff_size_of(curve, group));
}

extern "C" cuzk_status cuzk_gpu_msm_plan_for(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                             const cuzk_gpu_msm_config *cfg, int device, cuzk_gpu_msm_plan *out,
                                             cuzk_error *e)
{
    if (!out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm plan: NULL output");
    if (!valid_group(curve, group) || npoints == 0) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm plan: bad curve, group or size");
    CUZK_DEVICE_GUARD(device);
    size_t budget = cfg ? cfg->device_budget : 0;
    if (!budget) {
        cuzk_status sb = default_budget(&budget, e);
        if (sb != CUZK_OK) return sb;
    }
    full_plan fp;
    cuzk_status st = plan_memory(&fp, curve, group, npoints, cfg, device_sm_count(device), budget, e);
    if (st != CUZK_OK) return st;
    *out = fp.mp;
    return CUZK_OK;
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
        void *ptrs[] = {m->d_bases, m->d_chunk, m->d_scalars, m->d_ones_acc, m->d_ones, m->d_counters, m->d_offsets,
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
        if (m->copy_st) cudaStreamDestroy(m->copy_st);
        if (m->registered) cudaHostUnregister((void *)((const char *)m->h_bases + m->mem.resident_points * m->aff_size));
    }
    cuzk_free(m);
}

extern "C" cuzk_status cuzk_gpu_msm_create(cuzk_gpu_msm **out, cuzk_curve curve, cuzk_gpu_group group, const void *bases,
                                           size_t npoints, int bases_on_device, int device, const cuzk_gpu_msm_config *cfg,
                                           cuzk_error *e)
{
    if (!out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: NULL output");
    *out = NULL;
    if (curve != CUZK_CURVE_BN254 && curve != CUZK_CURVE_BLS12_381)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: unknown curve %d", (int)curve);
    if (group != CUZK_GPU_G1 && group != CUZK_GPU_G2)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: unknown group %d", (int)group);
    if (npoints == 0 || !bases) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: no bases");
    if (npoints >= ((size_t)1 << 31)) return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu msm: at most 2^31-1 points");
    if (cfg && cfg->window_bits && (cfg->window_bits < MSM_C_MIN || cfg->window_bits > 22))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: window_bits %u outside [%u, 22]", cfg->window_bits, MSM_C_MIN);
    CUZK_DEVICE_GUARD(device);
    size_t budget = cfg ? cfg->device_budget : 0;
    if (!budget) {
        cuzk_status sb = default_budget(&budget, e);
        if (sb != CUZK_OK) return sb;
    }
    const int sm_count = device_sm_count(device);
    full_plan fp;
    {
        cuzk_status sp = plan_memory(&fp, curve, group, npoints, cfg, sm_count, budget, e);
        if (sp != CUZK_OK) return sp;
    }
    if (npoints * fp.p.pre_t >= ((size_t)1 << 31))
        return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu msm: %zu points x %u precomputed copies: at most 2^31-1 in all", npoints,
                        fp.p.pre_t);
    cuzk_gpu_msm *m = (cuzk_gpu_msm *)cuzk_calloc(1, sizeof *m);
    if (!m) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu msm: out of host memory");
    cuzk_status st = CUZK_OK;
    m->curve = curve;
    m->group = group;
    m->device = device;
    m->npoints = npoints;
    m->bits = scalar_bits(curve);
    if (cfg) m->cfg = *cfg;
    m->sm_count = sm_count;
    m->plan = fp.p;
    m->mem = fp.mp;
    m->nbatch_max = fp.nbatch;
    m->aff_size = aff_size_of(curve, group);
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
            CUZK_CU_GOTO(cudaMemcpy(m->d_bases, bases, res * m->aff_size, kind), fail);
        }
        if (m->mem.streamed) {
            m->h_bases = bases;
            if (res < npoints) {
                CUZK_CU_GOTO(cudaMalloc(&m->d_chunk, 2 * chunk * m->aff_size), fail);
                if (cfg && cfg->pin_host_bases && !bases_on_device) {
                    cudaError_t rc = cudaHostRegister((void *)((const char *)bases + res * m->aff_size),
                                                      (npoints - res) * m->aff_size, cudaHostRegisterPortable);
                    if (rc == cudaSuccess) m->registered = 1;
                    else if (rc == cudaErrorHostMemoryAlreadyRegistered) (void)cudaGetLastError(); /* pinned already */
                    else CUZK_CU_GOTO(rc, fail);
                }
            }
            CUZK_CU_GOTO(cudaMalloc(&m->d_ones_acc, m->nbatch_max * xz), fail);
            CUZK_CU_GOTO(cudaMalloc(&m->d_ones, chunk * 4), fail);
        } else {
            CUZK_CU_GOTO(cudaMalloc(&m->d_ones, npoints * 4), fail);
        }
        CUZK_CU_GOTO(cudaMalloc(&m->d_counters, 16), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_offsets, (p.NBmax + 1) * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_cursor, p.NBmax * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_tiles, ntiles * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_entries, p.cap_entries * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_pairs, p.cap_entries * 8), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_gcur, (p.ncoarse_max + 1) * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_buckets, p.NBmax * xz), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_part, 2 * p.nseg_max * xz), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_part_key, 2 * p.nseg_max * 4), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_red_a, red * xz), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_red_b, red * xz), fail);
    }
    if ((st = msm_ensure_events(m, e)) != CUZK_OK) goto fail;
    if (m->plan.pre_t > 1) {
        if (curve == CUZK_CURVE_BN254)
            st = group == CUZK_GPU_G1 ? cuzk_gpu_msm_run_bn254_g1_precompute(m, e) : cuzk_gpu_msm_run_bn254_g2_precompute(m, e);
        else
            st = group == CUZK_GPU_G1 ? cuzk_gpu_msm_run_bls12_381_g1_precompute(m, e)
                                      : cuzk_gpu_msm_run_bls12_381_g2_precompute(m, e);
        if (st != CUZK_OK) goto fail;
    }
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
    issue_fn is;
    finish_fn fi;
    drivers(m, &is, &fi);
    if ((rc = order_after_caller(m, st, e)) != CUZK_OK) return rc;
    msm_pending pd;
    if ((rc = is(m, scalars, n, scalars_on_device, st, 0, &pd, e)) != CUZK_OK) return rc;
    return fi(m, &pd, result, e);
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
    issue_fn is;
    finish_fn fi;
    drivers(m, &is, &fi);
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
        if ((rc = is(m, scalars[i], n[i], scalars_on_device, st, slot, &pd[slot], e)) != CUZK_OK) return rc;
        if (issued && (rc = fi(m, &pd[slot ^ 1], (char *)results + prev * jac_size, e)) != CUZK_OK) return rc;
        prev = i;
        issued++;
    }
    if (issued) return fi(m, &pd[(issued - 1) & 1], (char *)results + prev * jac_size, e);
    return CUZK_OK;
}

extern "C" unsigned cuzk_gpu_msm_last_window(const cuzk_gpu_msm *m) { return m ? m->last_c : 0; }
