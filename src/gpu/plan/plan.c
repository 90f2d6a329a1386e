/* Device-memory plans of the GPU NTT and MSM (see the DESIGN comment in
 * gpu/plan/plan.h). Plain C, built with and without CUDA. */
#include "gpu/plan/plan.h"

#include <stdint.h>
#include <string.h>

#include "curve/curve_desc.h"
#include "util/common.h"

/* Sizes come from the curve description (src/curve/curve_desc.h); an
 * unsupported curve gives 0. */
unsigned gpu_scalar_bits(cuzk_curve curve)
{
    const cuzk_curve_desc *d = cuzk_curve_desc_get(curve);
    return d ? d->fr_bits : 0;
}

size_t gpu_affine_bytes(cuzk_curve curve, cuzk_gpu_group group)
{
    const cuzk_curve_desc *d = cuzk_curve_desc_get(curve);
    if (!d || (group != CUZK_GPU_G1 && group != CUZK_GPU_G2)) return 0;
    return group == CUZK_GPU_G2 ? d->g2_affine : d->g1_affine;
}

unsigned gpu_fr_two_adicity(cuzk_curve curve)
{
    const cuzk_curve_desc *d = cuzk_curve_desc_get(curve);
    return d ? d->fr_two_adicity : 0;
}

/* ---- NTT ---------------------------------------------------------------- */

gpu_ntt_tables gpu_ntt_tables_for(unsigned S, unsigned max_lg)
{
    gpu_ntt_tables t;
    /* the coset operations need the 2^(lg+1)-th roots; at least the 1024th
     * (the inner table) */
    t.T = max_lg + 1 < S ? max_lg + 1 : S;
    if (t.T < 10) t.T = 10;
    t.L = (t.T + 1) / 2;
    /* the direct table serves the first pass boundary of 3-pass sizes up to
     * 2^27 (9 + 9 stages: 2^18 entries, 20 MiB per direction) */
    t.D = t.T < 18 ? t.T : 18;
    return t;
}

size_t cuzk_gpu_ntt_device_bytes(cuzk_curve curve, unsigned max_lg)
{
    const unsigned S = gpu_fr_two_adicity(curve);
    if (!S || max_lg > NTT_MAX_LG) return 0;
    const gpu_ntt_tables t = gpu_ntt_tables_for(S, max_lg);
    /* per direction: inner + lo + hi, in Montgomery form (32 bytes) and in
     * Shoup form; the direct and staged tables in Shoup form */
    const size_t elems = 2 * ((size_t)NTT_INNER + ((size_t)1 << t.L) + ((size_t)1 << (t.T - t.L)));
    return elems * (32 + NTT_SHOUP_BYTES) + 2 * (((size_t)1 << t.D) + NTT_STAGED) * NTT_SHOUP_BYTES;
}

/* ---- MSM ---------------------------------------------------------------- */

double gpu_msm_cost(size_t m, unsigned bits, unsigned c, unsigned Wg)
{
    return (double)m * gpu_msm_windows(bits, c) + 4.0 * Wg * (double)(1u << (c - 1));
}

unsigned gpu_msm_choose_window(size_t m, unsigned bits, unsigned t, unsigned cmax)
{
    unsigned best = MSM_C_MIN;
    double best_cost = 1e300;
    if (t < 1) t = 1;
    for (unsigned c = MSM_C_MIN; c <= cmax; c++) {
        const unsigned W = gpu_msm_windows(bits, c), Wg = (W + t - 1) / t;
        const double cost = gpu_msm_cost(m, bits, c, Wg);
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

unsigned gpu_msm_run_window(const gpu_msm_layout *p, unsigned bits, size_t m, int *pre)
{
    if (p->pre_t < 2) {
        *pre = 0;
        return gpu_msm_choose_window(m, bits, 1, p->cmax);
    }
    *pre = 1;
    if (p->cfb < MSM_C_MIN) return p->cmax;
    const unsigned c = gpu_msm_choose_window(m, bits, 1, p->cfb);
    if (gpu_msm_cost(m, bits, c, gpu_msm_windows(bits, c)) < gpu_msm_cost(m, bits, p->cmax, p->pre_wg)) {
        *pre = 0;
        return c;
    }
    return p->cmax;
}

gpu_red_levels gpu_msm_red_plan(unsigned W, uint32_t B, uint32_t L0)
{
    gpu_red_levels r;
    memset(&r, 0, sizeof r);
    uint32_t M = B, L = L0;
    for (;;) { /* L >= 2 on levels >= 1 and G[0] <= 2^18: at most ~10 levels */
        const uint32_t G = (M + L - 1) / L;
        uint32_t lg = 0;
        while ((1u << lg) < L) lg++;
        r.M[r.n] = M;
        r.G[r.n] = G;
        r.L[r.n] = L;
        r.lg[r.n] = lg;
        r.off[r.n] = r.total;
        r.total += (size_t)W * G;
        r.n++;
        if (G <= 1 || r.n == MSM_RED_LEVELS) break;
        M = G - 1;
        L = MSM_RED_UP;
    }
    return r;
}

uint32_t gpu_msm_red_l0(unsigned W, uint32_t B, uint32_t want)
{
    uint32_t L = (size_t)W * B / MSM_RED_SEG >= ((size_t)1 << 17) ? MSM_RED_SEG : MSM_RED_SEG / 2;
    if (want > L) L = want;
    return B < L ? B : L;
}

gpu_msm_layout gpu_msm_layout_for(unsigned bits, size_t npoints, const cuzk_gpu_msm_config *cfg, int sm_count)
{
    gpu_msm_layout p;
    const unsigned fixed = cfg ? cfg->window_bits : 0;
    const unsigned tq = cfg && cfg->precompute > 1 ? cfg->precompute : 1;
    if (fixed)
        p.cmax = fixed < MSM_C_MIN ? MSM_C_MIN : (fixed > MSM_C_FIXED_MAX ? MSM_C_FIXED_MAX : fixed);
    else if (tq > 1)
        p.cmax = gpu_msm_choose_window(npoints ? npoints : 1, bits, tq, MSM_C_FIXED_MAX);
    else
        p.cmax = gpu_msm_choose_window(npoints ? npoints : 1, bits, 1, MSM_C_MAX);
    p.Wmax = gpu_msm_windows(bits, p.cmax);
    p.pre_t = 1;
    p.pre_wg = p.Wmax;
    if (tq > 1) {
        /* c is fixed: the copies are shifted by c Wg bits */
        p.pre_wg = (p.Wmax + tq - 1) / tq;
        p.pre_t = (p.Wmax + p.pre_wg - 1) / p.pre_wg;
    }
    /* With copies a run uses them (c = cmax, pre_wg bucket sets) or, when
     * that costs less (few significant scalars), runs without them on
     * windows up to cfb: the largest c <= MSM_C_MAX whose W(c) sets of
     * buckets are no more than the copies' (so the fallback adds no bucket
     * memory). A fixed window has no fallback. */
    p.cfb = 0;
    if (p.pre_t > 1 && !fixed) {
        const size_t nbpre = (size_t)p.pre_wg << (p.cmax - 1);
        for (unsigned c = MSM_C_MIN; c <= MSM_C_MAX; c++)
            if (((size_t)gpu_msm_windows(bits, c) << (c - 1)) <= nbpre) p.cfb = c;
    }
    /* the windows whose buckets are planned: c <= cmax without copies (a
     * run picks one); cmax with copies, and the fallback's c <= cfb */
    const unsigned cmin = p.pre_t > 1 && !p.cfb ? p.cmax : MSM_C_MIN;
    p.NBmax = 0;
    p.ncoarse_max = 0;
    p.red_max = 0;
    size_t batch = cfg && cfg->batch_points ? cfg->batch_points : ((size_t)1 << 24);
    if (batch > npoints) batch = npoints ? npoints : 1;
    p.batch = batch;
    p.sort_split = 0;
    const unsigned ctop = p.cmax > p.cfb ? p.cmax : p.cfb;
    for (unsigned c = cmin; c <= ctop; c++) {
        if (p.pre_t > 1 && c != p.cmax && c > p.cfb) continue;
        const unsigned Wc = gpu_msm_windows(bits, c);
        const unsigned W = p.pre_t > 1 && c == p.cmax ? p.pre_wg : Wc;
        const uint32_t B = 1u << (c - 1);
        const size_t nb = (size_t)W * B;
        /* With copies a window's sort may split its coarse bins (for a full
         * batch: the split shift only grows for fewer points); without them
         * the bins are those of one window and never split, and the top
         * window has its own. */
        const size_t nc = p.pre_t > 1 ? gpu_msm_sort_counters(c, Wc, W, batch)
                                      : gpu_msm_sort_ncoarse(c, W) + ((size_t)1 << SORT_HI_MAX);
        const size_t r = gpu_msm_red_plan(W, B, gpu_msm_red_l0(W, B, 0)).total;
        if (p.pre_t > 1 && gpu_msm_sort_shift2(c, Wc, W, batch) < gpu_msm_sort_shift(c)) p.sort_split = 1;
        if (nb > p.NBmax) p.NBmax = nb;
        if (nc > p.ncoarse_max) p.ncoarse_max = nc;
        if (r > p.red_max) p.red_max = r;
    }
    p.cap_entries = batch * p.Wmax;
    p.nseg_max = (p.cap_entries + MSM_SEG - 1) / MSM_SEG;
    p.ones_threads = (size_t)(sm_count > 0 ? sm_count : 1) * 4 * EC_THREADS;
    p.pre_threads = p.pre_t > 1 ? (npoints < p.ones_threads ? (npoints ? npoints : 1) : p.ones_threads) : 0;
    p.pre_scratch = p.pre_t > 1 ? 2 * (size_t)(p.pre_t - 1) * p.pre_threads : 0;
    return p;
}

size_t gpu_msm_pairs_bytes(const gpu_msm_layout *p, size_t xz)
{
    const size_t pairs = p->cap_entries * 8 * (p->sort_split ? 2 : 1), scratch = p->pre_scratch * (xz / 4);
    return pairs > scratch ? pairs : scratch;
}

size_t gpu_msm_workspace_bytes(const gpu_msm_layout *p, size_t xz)
{
    const size_t ntiles = (p->NBmax + SCAN_TILE - 1) / SCAN_TILE + 1;
    const size_t red = p->red_max > p->ones_threads ? p->red_max : p->ones_threads;
    return 16                                         /* counters */
           + (2 * p->NBmax + 1) * 4 + ntiles * 4      /* offsets, cursor, tiles */
           + p->cap_entries * 4                       /* sorted entries */
           + gpu_msm_pairs_bytes(p, xz)               /* coarse-sorted pairs / copies' scratch */
           + (p->ncoarse_max + 1) * 4                 /* bin cursors + flag */
           + p->NBmax * xz                            /* buckets */
           + 2 * p->nseg_max * (xz + 4)               /* partials + keys */
           + 2 * red * xz;                            /* reduction ping-pong */
}

size_t gpu_msm_max_batches(const gpu_msm_layout *p, unsigned bits, size_t npoints, size_t res)
{
    /* the smallest batch is cap_entries over the most windows (c = MSM_C_MIN);
     * the resident prefix and the streamed rest are cut separately */
    size_t step = p->cap_entries / gpu_msm_windows(bits, p->cmax > MSM_C_MIN ? MSM_C_MIN : p->cmax);
    if (step == 0) step = 1;
    const size_t rest = npoints - res;
    return (res + step - 1) / step + (rest + step - 1) / step + 1;
}

/* Resident: all bases (and their precomputed copies), the ones list, the
 * live mask and the staging of host scalars for npoints. */
static size_t resident_bytes(const gpu_msm_layout *p, size_t npoints, size_t aff)
{
    return npoints * aff * p->pre_t + npoints * 32 + npoints * 4 + gpu_msm_live_words(npoints) * 4 +
           gpu_msm_workspace_bytes(p, 2 * aff);
}

/* Streamed with chunks of `chunk` points and `res` resident bases: two
 * chunk buffers of bases (none when all are resident) and of host scalars,
 * the ones list of a chunk, one ones partial sum per batch. */
static size_t streamed_bytes(const gpu_msm_layout *p, unsigned bits, size_t npoints, size_t chunk, size_t res,
                             size_t aff)
{
    return res * aff + (res < npoints ? 2 * chunk * aff : 0) + 2 * chunk * 32 + chunk * 4 +
           gpu_msm_max_batches(p, bits, npoints, res) * 2 * aff + gpu_msm_workspace_bytes(p, 2 * aff);
}

/* What an entry costs more on the copies' path, in bucket additions: its
 * bases are gathered from t times the memory and its sort splits the
 * coarse bins once more, a fixed cost per entry, so relative to an
 * addition it is larger on the smaller field. G1: MSM_PRE_ENTRY / (words
 * of a G1 point)^2. On the H200 (2026-12-02, docs/PERFORMANCE.md), with the
 * split sort, BN254 G1 with copies against none: 2^22 16.12 / 19.34 ms,
 * 2^23 30.39 / 37.01, 2^24 56.75 / 62.80; the 2^24 ratio puts it at 3.85
 * (2^22 and 2^23 below 0); BLS12-381 G1 takes copies at every size. (With
 * the one-pass scatter sort it was 12: the copies then lost on BN254 G1 at
 * 2^24 and 2^26.) G2: MSM_PRE_ENTRY_G2 of an addition on both
 * curves (its addition is ~3x G1's, so the same per-entry time weighs
 * less): on the H200 (2026-12-02) the copies won on G2 at every size
 * measured, 2^16..2^24 on both curves and BN254 2^26 (-52 % .. -4.8 %),
 * and 2^24 / 2^26 imply 0.053 .. 0.067. */
#define MSM_PRE_ENTRY 4.0
#define MSM_PRE_ENTRY_G2 0.06

/* Automatic copies: the most copies (fewest bucket sets) whose resident
 * plan fits the budget, among those the cost model, with the copies' entry
 * cost, prefers to none at npoints significant scalars; 1 when none does. */
static unsigned auto_copies(unsigned bits, size_t npoints, const cuzk_gpu_msm_config *cfg, int sm_count,
                            cuzk_gpu_group group, size_t aff, size_t budget)
{
    const double words = (double)aff / 8;
    const double entry = 1.0 + (group == CUZK_GPU_G2 ? MSM_PRE_ENTRY_G2 : MSM_PRE_ENTRY / (words * words));
    cuzk_gpu_msm_config c2;
    if (cfg) c2 = *cfg;
    else memset(&c2, 0, sizeof c2);
    c2.precompute = 1;
    const gpu_msm_layout p1 = gpu_msm_layout_for(bits, npoints, &c2, sm_count);
    const double cost1 = gpu_msm_cost(npoints, bits, p1.cmax, p1.Wmax);
    for (unsigned t = MSM_PRE_T_MAX; t >= 2; t--) {
        c2.precompute = t;
        const gpu_msm_layout p = gpu_msm_layout_for(bits, npoints, &c2, sm_count);
        if (p.pre_t < 2 || npoints * p.pre_t >= ((size_t)1 << 31)) continue;
        const double cost = gpu_msm_cost(npoints, bits, p.cmax, p.pre_wg) +
                            (entry - 1.0) * (double)npoints * gpu_msm_windows(bits, p.cmax);
        if (cost >= cost1) continue;
        if (resident_bytes(&p, npoints, aff) <= budget) return p.pre_t;
    }
    return 1;
}

/* Resident if it fits (and upload_in_run does not ask for the streamed
 * layout), else the largest chunk (halving from the batch size,
 * down to 1024 points) whose chunk buffers take at most half of what the
 * fixed workspaces leave, then as many whole chunks of resident bases as the
 * rest holds. */
cuzk_status gpu_msm_plan_full(gpu_msm_full_plan *fp, cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                              const cuzk_gpu_msm_config *cfg, int sm_count, size_t budget, cuzk_error *e)
{
    const unsigned bits = gpu_scalar_bits(curve);
    const size_t aff = gpu_affine_bytes(curve, group);
    memset(fp, 0, sizeof *fp);
    if (!bits || !aff) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm plan: unknown curve %d or group %d", (int)curve, (int)group);
    if (npoints == 0) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm plan: no bases");
    if (npoints >= ((size_t)1 << 31)) return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu msm: at most 2^31-1 points");
    if (sm_count < 1) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm plan: SM count %d", sm_count);
    if (cfg && cfg->window_bits && (cfg->window_bits < MSM_C_MIN || cfg->window_bits > MSM_C_FIXED_MAX))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: window_bits %u outside [%u, %u]", cfg->window_bits, MSM_C_MIN,
                        MSM_C_FIXED_MAX);
    if (cfg && ((int)cfg->sort < CUZK_GPU_MSM_SORT_AUTO || cfg->sort > CUZK_GPU_MSM_SORT_OVERFLOW))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm: unknown sort path %d", (int)cfg->sort);
    fp->mp.budget = budget;
    cuzk_gpu_msm_config c1;
    if (cfg) c1 = *cfg;
    else memset(&c1, 0, sizeof c1);
    if (c1.precompute == 0 && budget != SIZE_MAX) c1.precompute = auto_copies(bits, npoints, cfg, sm_count, group, aff, budget);
    fp->p = gpu_msm_layout_for(bits, npoints, &c1, sm_count);
    fp->mp.precompute = fp->p.pre_t;
    if (npoints * fp->p.pre_t >= ((size_t)1 << 31))
        return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu msm: %zu points x %u precomputed copies: at most 2^31-1 in all",
                        npoints, fp->p.pre_t);
    const size_t rb = resident_bytes(&fp->p, npoints, aff);
    /* upload_in_run: a streamed plan (chunks uploaded beside the run) even
     * where the resident one fits, keeping as many bases as that allows */
    const size_t batch0 = c1.batch_points ? c1.batch_points : ((size_t)1 << 24);
    const int in_run = c1.upload_in_run && fp->p.pre_t == 1 && npoints > batch0;
    if (rb <= budget && !in_run) {
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
    fp->p = gpu_msm_layout_for(bits, npoints, &c2, sm_count);
    const size_t fixed0 = streamed_bytes(&fp->p, bits, npoints, minc, 0, aff);
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
        fp->p = gpu_msm_layout_for(bits, npoints, &c2, sm_count);
        fixed = streamed_bytes(&fp->p, bits, npoints, chunk, 0, aff);
        if (chunk <= minc || fixed <= fixed0 || (fixed <= budget && fixed - fixed0 <= (budget - fixed0) / 2)) break;
        chunk = chunk / 2 > minc ? chunk / 2 : minc;
    }
    /* resident prefix: whole chunks (one ones slot more at most) */
    size_t res = 0;
    const size_t avail = budget - fixed;
    if (avail > 2 * aff) res = (avail - 2 * aff) / aff / chunk * chunk;
    if (res > npoints) res = npoints;
    while (res > 0 && streamed_bytes(&fp->p, bits, npoints, chunk, res, aff) > budget) res -= res >= chunk ? chunk : res;
    fp->mp.streamed = 1;
    fp->mp.precompute = 1;
    fp->mp.chunk_points = chunk;
    fp->mp.resident_points = res;
    fp->mp.device_bytes = streamed_bytes(&fp->p, bits, npoints, chunk, res, aff);
    fp->nbatch = gpu_msm_max_batches(&fp->p, bits, npoints, res);
    return CUZK_OK;
}

size_t gpu_msm_stage_points(size_t chunk_points)
{
    return chunk_points < GPU_MSM_STAGE_POINTS ? chunk_points : GPU_MSM_STAGE_POINTS;
}

size_t gpu_msm_stage_bytes(size_t chunk_points, size_t affine_bytes)
{
    return 2 * gpu_msm_stage_points(chunk_points) * affine_bytes;
}

size_t gpu_default_budget(size_t free_bytes, size_t total_bytes)
{
    return (size_t)cuzk_mem_after_margin(free_bytes, total_bytes, CUZK_MARGIN_MSM_MIN);
}

cuzk_status cuzk_gpu_msm_plan_make(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                   const cuzk_gpu_msm_config *cfg, int sm_count, size_t budget,
                                   cuzk_gpu_msm_plan *out, cuzk_error *e)
{
    if (!out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu msm plan: NULL output");
    gpu_msm_full_plan fp;
    const cuzk_status st = gpu_msm_plan_full(&fp, curve, group, npoints, cfg, sm_count, budget, e);
    if (st != CUZK_OK) {
        memset(out, 0, sizeof *out);
        return st;
    }
    *out = fp.mp;
    return CUZK_OK;
}

size_t cuzk_gpu_msm_device_bytes(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                 const cuzk_gpu_msm_config *cfg, int sm_count)
{
    const size_t budget = cfg && cfg->device_budget ? cfg->device_budget : SIZE_MAX;
    gpu_msm_full_plan fp;
    cuzk_error e = {0};
    if (gpu_msm_plan_full(&fp, curve, group, npoints, cfg, sm_count, budget, &e) != CUZK_OK) return 0;
    return fp.mp.device_bytes;
}
