/* Multi-scalar multiplication on the GPU: G1 and G2 of BN254 and BLS12-381.
 *
 * Pipeline of one run (all on the caller's stream):
 *  1. classify: zero scalars are skipped; with the 0/1 split, indices of
 *     scalars equal to 1 are compacted into a list (warp-aggregated atomics)
 *     and the remaining "significant" scalars are counted. One host read of
 *     that count picks the window size c for the significant scalars only.
 *  2. ones: the listed points are summed by a grid of threads (mixed XYZZ
 *     additions), then tree-reduced.
 *  3. per batch of points (bounded so the sort buffer stays small):
 *     a. signed digits (Booth-style recoding, digits in [-2^(c-1), 2^(c-1)],
 *        W = ceil((bits+1)/c) windows so the top window never carries);
 *        histogram of (window, |digit|-1) by atomics;
 *     b. exclusive scan -> bucket offsets;
 *     c. placement (counting sort): entries[pos] = point index | sign << 31,
 *        by coarse bins then a shared-memory pass per bin (msm_sort.cuh);
 *     d. accumulate: the sorted entries are cut into equal segments of K
 *        entries, one thread each, so work is balanced whatever the bucket
 *        sizes; buckets wholly inside a segment are updated directly, the
 *        pieces of buckets crossing segment borders are written as partials
 *        and merged by a tree (fixup_tree_kernel, O(log) depth even when one
 *        bucket holds most points) and a fix-up kernel. Buckets persist
 *        across batches.
 *  4. reduce: per window, segments of L buckets compute sum (i+1)*B_i and
 *     sum B_i by running sums; the segment totals are reduced the same way
 *     (levels, no double-and-add), the level results summed by 8-to-1
 *     reduction kernels.
 *  5. host: levels combined (log2 L doublings each), window sums by Horner
 *     (c doublings per window) + ones.
 *
 * This header holds the kernels and the templated driver; msm_<curve>_<g>.cu
 * instantiate it once per group (separate translation units compile in
 * parallel), msm.cu holds the C API. */
#ifndef CUZK_GPU_MSM_IMPL_CUH
#define CUZK_GPU_MSM_IMPL_CUH

#include "gpu/msm_accumulate.cuh"
#include "gpu/msm_affine.cuh"
#include "gpu/msm_defs.cuh"
#include "gpu/msm_reduce.cuh"
#include "gpu/msm_sort.cuh"

namespace {

/* ---- host-side planning --------------------------------------------------- */

unsigned windows_for(unsigned bits, unsigned c) { return (bits + 1 + c - 1) / c; }

unsigned choose_window(size_t m, unsigned bits, unsigned cmax)
{
    unsigned best = MSM_C_MIN;
    double best_cost = 1e300;
    for (unsigned c = MSM_C_MIN; c <= cmax; c++) {
        double W = windows_for(bits, c);
        double cost = (double)m * W + 4.0 * W * (double)(1u << (c - 1));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

struct msm_plan {
    unsigned cmax, Wmax;
    size_t NBmax;          /* buckets: max over c <= cmax of W(c) * 2^(c-1) */
    size_t batch;          /* points per batch at cmax */
    size_t cap_entries;    /* entries buffer = batch * Wmax */
    size_t nseg_max;       /* accumulate threads */
    size_t ncoarse_max;    /* coarse sort bins: max over c <= cmax */
    size_t red_max;        /* reduction outputs */
    size_t ones_threads;
    aff_plan aff;          /* batch-affine accumulation (msm_affine.cuh); aff.group 0: XYZZ */
};

msm_plan make_plan(unsigned bits, size_t npoints, const cuzk_gpu_msm_config *cfg, int sm_count)
{
    msm_plan p;
    unsigned fixed = cfg ? cfg->window_bits : 0;
    if (fixed) {
        p.cmax = fixed < MSM_C_MIN ? MSM_C_MIN : (fixed > 22 ? 22 : fixed);
    } else {
        p.cmax = choose_window(npoints ? npoints : 1, bits, MSM_C_MAX);
    }
    p.Wmax = windows_for(bits, p.cmax);
    p.NBmax = 0;
    for (unsigned c = MSM_C_MIN; c <= p.cmax; c++) {
        size_t nb = (size_t)windows_for(bits, c) << (c - 1);
        if (nb > p.NBmax) p.NBmax = nb;
    }
    size_t batch = cfg && cfg->batch_points ? cfg->batch_points : ((size_t)1 << 24);
    if (batch > npoints) batch = npoints ? npoints : 1;
    p.batch = batch;
    p.cap_entries = batch * p.Wmax;
    p.nseg_max = (p.cap_entries + MSM_SEG - 1) / MSM_SEG;
    p.ncoarse_max = 0;
    for (unsigned c = MSM_C_MIN; c <= p.cmax; c++) {
        size_t nc = sort_ncoarse(c, windows_for(bits, c));
        if (nc > p.ncoarse_max) p.ncoarse_max = nc;
    }
    p.red_max = 0;
    for (unsigned c = MSM_C_MIN; c <= p.cmax; c++) {
        uint32_t B = 1u << (c - 1);
        const unsigned W = windows_for(bits, c);
        size_t r = red_plan(W, B, red_l0(W, B, 0)).total;
        if (r > p.red_max) p.red_max = r;
    }
    p.ones_threads = (size_t)(sm_count > 0 ? sm_count : 132) * 4 * EC_THREADS;
    p.aff = aff_plan{0, 0, 0}; /* set by msm.cu (needs curve and group) */
    return p;
}

} /* namespace */

struct cuzk_gpu_msm {
    cuzk_curve curve;
    cuzk_gpu_group group;
    int device;
    int sm_count;
    size_t npoints;
    unsigned bits;
    cuzk_gpu_msm_config cfg;
    msm_plan plan;
    size_t aff_size, xyzz_size;
    void *d_bases;
    uint64_t *d_scalars;   /* lazily allocated staging for host scalars */
    uint32_t *d_ones;
    uint32_t *d_counters;  /* [0] ones, [1] significant */
    uint32_t *d_offsets;   /* NBmax + 1 */
    uint32_t *d_cursor;    /* NBmax */
    uint32_t *d_tiles;
    uint32_t *d_entries;
    uint2 *d_pairs;        /* cap_entries coarse-sorted (key, entry) pairs */
    uint32_t *d_gcur;      /* ncoarse_max bin cursors + the over-cap flag */
    void *d_buckets;
    void *d_part;
    uint32_t *d_part_key;
    void *d_red_a, *d_red_b;
    void *d_aff;           /* batch-affine scratch (plan.aff) */
    unsigned last_c;
};

namespace {

template <class F> cuzk_status msm_run_t(cuzk_gpu_msm *m, void *result, const uint64_t *scalars, size_t n, cudaStream_t st,
                                         cuzk_error *e)
{
    typedef xyzz<F> X;
    const msm_plan &pl = m->plan;
    const int split = !m->cfg.no_split_ones;
    const affine<F> *bases = (const affine<F> *)m->d_bases;
    X *buckets = (X *)m->d_buckets;
    X *red_a = (X *)m->d_red_a, *red_b = (X *)m->d_red_b;
    const unsigned grid_sc = (unsigned)(m->sm_count * 8);
    const uint32_t red_seg = msm_red_seg_len();
    msm_prof prof;
    prof.init();
    prof.mark(st, 6);

    /* 1. classify */
    CUZK_CU(cudaMemsetAsync(m->d_counters, 0, 4 * sizeof(uint32_t), st));
    classify_kernel<<<grid_sc, 256, 0, st>>>(scalars, n, split, m->d_ones, m->d_counters);
    CUZK_LAUNCHED("classify");

    /* 2. ones (always launched: it reads the count on the device) */
    {
        cuzk_status ro = msm_ones_sum<F>(st, m->d_ones, m->d_counters, bases, (uint32_t)pl.ones_threads, red_a, red_b, e);
        if (ro != CUZK_OK) return ro;
    }
    X ones_sum;
    uint32_t counts[2];
    CUZK_CU(cudaMemcpyAsync(&ones_sum, red_b, sizeof(X), cudaMemcpyDeviceToHost, st));
    CUZK_CU(cudaMemcpyAsync(counts, m->d_counters, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    prof.mark(st, 7);
    CUZK_CU(cudaStreamSynchronize(st));
    const size_t nsig = counts[1];

    X total;
    xyzz_set_inf(total);
    if (nsig > 0) {
        unsigned c = m->cfg.window_bits ? pl.cmax : choose_window(nsig, m->bits, pl.cmax);
        m->last_c = c;
        const unsigned W = windows_for(m->bits, c);
        const uint32_t B = 1u << (c - 1);
        const size_t NB = (size_t)W * B;
        size_t batch = pl.cap_entries / W;
        if (batch > n) batch = n;
        CUZK_CU(cudaMemsetAsync(buckets, 0, NB * sizeof(X), st)); /* ZZ = 0: infinity */
        for (size_t b0 = 0; b0 < n; b0 += batch) {
            const size_t b1 = b0 + batch < n ? b0 + batch : n;
            prof.mark(st, 0);
            cuzk_status rs = msm_sort_batch(st, scalars, b0, b1, split, c, W, 2 * nsig >= n, grid_sc, m->d_offsets,
                                            m->d_tiles, m->d_cursor, m->d_entries, m->d_pairs, m->d_gcur, prof, e);
            if (rs != CUZK_OK) return rs;
            prof.mark(st, 1);
            if (pl.aff.group)
                rs = msm_accumulate_affine_batch<F>(st, m->d_entries, m->d_offsets, W, B, b1 - b0, bases, buckets, pl.aff,
                                                    m->d_aff, prof, e);
            else
                rs = msm_accumulate_batch<F>(st, m->d_entries, m->d_offsets, NB, (nsig < b1 - b0 ? nsig : b1 - b0) * W,
                                             (b1 - b0) * W, bases, buckets, m->d_part, m->d_part_key, pl.nseg_max, prof, e);
            if (rs != CUZK_OK) return rs;
            prof.mark(st, 3);
        }
        /* 4. reduce (levels, see reduce_level_kernel): per window and level,
         * the level sums on the host */
        prof.mark(st, 4);
        const red_levels rl = red_plan(W, B, red_l0(W, B, red_seg));
        X *wins = (X *)cuzk_alloc((size_t)W * rl.n, sizeof(X));
        if (!wins) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu msm: out of host memory");
        cuzk_status rr = msm_reduce_windows<F>(st, buckets, W, B, rl, red_a, red_b, wins, e);
        if (rr != CUZK_OK) {
            cuzk_free(wins);
            return rr;
        }
        prof.mark(st, 5);
        prof.report(n, nsig, c);
        msm_combine_windows<F>(total, wins, W, c, rl);
        cuzk_free(wins);
    } else {
        m->last_c = 0;
    }
    xyzz_add(total, ones_sum);
    jac<F> out;
    xyzz_to_jac(out, total);
    memcpy(result, &out, sizeof out);
    return CUZK_OK;
}

} /* namespace */

#define CUZK_GPU_MSM_INSTANTIATE(NAME, F)                                                       \
    cuzk_status NAME(cuzk_gpu_msm *m, void *result, const uint64_t *scalars, size_t n, cudaStream_t st, \
                     cuzk_error *e)                                                             \
    {                                                                                           \
        return msm_run_t<F>(m, result, scalars, n, st, e);                                      \
    }

/* Per-group drivers (defined in msm_<curve>_<g>.cu). */
cuzk_status cuzk_gpu_msm_run_bn254_g1(cuzk_gpu_msm *, void *, const uint64_t *, size_t, cudaStream_t, cuzk_error *);
cuzk_status cuzk_gpu_msm_run_bn254_g2(cuzk_gpu_msm *, void *, const uint64_t *, size_t, cudaStream_t, cuzk_error *);
cuzk_status cuzk_gpu_msm_run_bls12_381_g1(cuzk_gpu_msm *, void *, const uint64_t *, size_t, cudaStream_t, cuzk_error *);
cuzk_status cuzk_gpu_msm_run_bls12_381_g2(cuzk_gpu_msm *, void *, const uint64_t *, size_t, cudaStream_t, cuzk_error *);

#endif