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

size_t bytes_of_plan(const msm_plan &p, size_t npoints, size_t aff, bool with_scalars)
{
    size_t xz = 2 * aff;
    size_t ntiles = (p.NBmax + SCAN_TILE - 1) / SCAN_TILE + 1;
    size_t red = p.red_max > p.ones_threads ? p.red_max : p.ones_threads;
    return npoints * aff                              /* bases */
           + (with_scalars ? npoints * 32 : 0)        /* scalar staging */
           + npoints * 4                              /* ones list */
           + 16                                       /* counters */
           + (2 * p.NBmax + 1) * 4 + ntiles * 4       /* offsets, cursor, tiles */
           + p.cap_entries * 4                        /* sorted entries */
           + p.cap_entries * 8                        /* coarse-sorted pairs */
           + (p.ncoarse_max + 1) * 4                  /* bin cursors + flag */
           + p.NBmax * xz                             /* buckets */
           + 2 * p.nseg_max * (xz + 4)                /* partials + keys */
           + 2 * red * xz                             /* reduction ping-pong */
           + (p.aff.group ? aff_layout_of(p.aff, aff).total : 0); /* batch-affine scratch */
}

/* make_plan plus the batch-affine part (it depends on curve and group). */
msm_plan plan_for(cuzk_curve curve, cuzk_gpu_group group, unsigned bits, size_t npoints, const cuzk_gpu_msm_config *cfg,
                  int sm_count)
{
    msm_plan p = make_plan(bits, npoints, cfg, sm_count);
    p.aff = aff_plan_of(curve, group, p.Wmax, p.cmax, p.batch);
    return p;
}

int device_sm_count(int device)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) v = 132;
    return v;
}

} /* namespace */

extern "C" size_t cuzk_gpu_msm_device_bytes(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                            const cuzk_gpu_msm_config *cfg)
{
    msm_plan p = plan_for(curve, group, scalar_bits(curve), npoints, cfg, 132);
    return bytes_of_plan(p, npoints, aff_size_of(curve, group), true);
}

extern "C" void cuzk_gpu_msm_destroy(cuzk_gpu_msm *m)
{
    if (!m) return;
    {
        cuzk_gpu::device_guard g(m->device);
        void *ptrs[] = {m->d_bases, m->d_scalars, m->d_ones, m->d_counters, m->d_offsets, m->d_cursor, m->d_tiles,
                        m->d_entries, m->d_pairs, m->d_gcur, m->d_buckets, m->d_part, m->d_part_key, m->d_red_a,
                        m->d_red_b, m->d_aff};
        for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
            if (ptrs[i]) cudaFree(ptrs[i]);
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
    cuzk_gpu_msm *m = (cuzk_gpu_msm *)cuzk_calloc(1, sizeof *m);
    if (!m) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu msm: out of host memory");
    cuzk_status st = CUZK_OK;
    m->curve = curve;
    m->group = group;
    m->device = device;
    m->npoints = npoints;
    m->bits = scalar_bits(curve);
    if (cfg) m->cfg = *cfg;
    m->sm_count = device_sm_count(device);
    m->plan = plan_for(curve, group, m->bits, npoints, cfg, m->sm_count);
    m->aff_size = aff_size_of(curve, group);
    m->xyzz_size = 2 * m->aff_size;
    {
        const msm_plan &p = m->plan;
        const size_t xz = m->xyzz_size;
        const size_t ntiles = (p.NBmax + SCAN_TILE - 1) / SCAN_TILE + 1;
        const size_t red = p.red_max > p.ones_threads ? p.red_max : p.ones_threads;
        CUZK_CU_GOTO(cudaMalloc(&m->d_bases, npoints * m->aff_size), fail);
        CUZK_CU_GOTO(cudaMemcpy(m->d_bases, bases, npoints * m->aff_size,
                                bases_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice), fail);
        CUZK_CU_GOTO(cudaMalloc(&m->d_ones, npoints * 4), fail);
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
        if (p.aff.group) CUZK_CU_GOTO(cudaMalloc(&m->d_aff, aff_layout_of(p.aff, m->aff_size).total), fail);
    }
    *out = m;
    return CUZK_OK;
fail:
    cuzk_gpu_msm_destroy(m);
    return st;
}

extern "C" cuzk_status cuzk_gpu_msm_run(cuzk_gpu_msm *m, void *result, const uint64_t *scalars, size_t n,
                                        int scalars_on_device, void *stream, cuzk_error *e)
{
    if (!m || !result || (!scalars && n)) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: NULL argument");
    if (n > m->npoints) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: %zu scalars but only %zu bases", n, m->npoints);
    CUZK_DEVICE_GUARD(m->device);
    cudaStream_t st = (cudaStream_t)stream;
    const uint64_t *d_sc = scalars;
    if (n == 0) {
        /* Empty sum: infinity. */
        memset(result, 0, 3 * m->aff_size / 2);
        return CUZK_OK;
    }
    if (scalars_on_device) {
        if (((uintptr_t)scalars & 15) != 0)
            return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: device scalars must be 16-byte aligned");
    } else {
        if (!m->d_scalars) CUZK_CU(cudaMalloc(&m->d_scalars, m->npoints * 32));
        CUZK_CU(cudaMemcpyAsync(m->d_scalars, scalars, n * 32, cudaMemcpyHostToDevice, st));
        d_sc = m->d_scalars;
    }
    if (m->curve == CUZK_CURVE_BN254)
        return m->group == CUZK_GPU_G1 ? cuzk_gpu_msm_run_bn254_g1(m, result, d_sc, n, st, e)
                                       : cuzk_gpu_msm_run_bn254_g2(m, result, d_sc, n, st, e);
    return m->group == CUZK_GPU_G1 ? cuzk_gpu_msm_run_bls12_381_g1(m, result, d_sc, n, st, e)
                                   : cuzk_gpu_msm_run_bls12_381_g2(m, result, d_sc, n, st, e);
}

extern "C" unsigned cuzk_gpu_msm_last_window(const cuzk_gpu_msm *m) { return m ? m->last_c : 0; }
