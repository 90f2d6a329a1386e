/* MSM stages 1 and 3a-c (see msm_impl.cuh): scalar classification (zero /
 * one / significant), signed-digit recoding, and the counting sort of the
 * (window, bucket) entries.
 *
 * The sort (msm_sort_batch): a global histogram of the (window, bucket) keys
 * and its exclusive scan give every bucket's range of `entries`; dense
 * batches (at least half the scalars significant) then place the entries in
 * two passes without per-entry global atomics:
 *  - coarse pass: the histogram kernel also stores the digits window-major
 *    (in `entries`, free until the fine pass); a block takes a tile of one
 *    window's digits, counts them per coarse bin (2^s consecutive buckets,
 *    <= 1024 bins a window) in shared memory, reserves one run per bin with
 *    one global atomic, stages the (key, entry) pairs in shared memory in
 *    bin order and writes them into those runs of `pairs` (whose layout is
 *    the entries' layout at bin granularity) in whole sectors;
 *  - fine pass: one block per bin ranks the bin's pairs with shared-memory
 *    cursors into a shared staging copy of the bin's output range and writes
 *    it back coalesced. A bin larger than the staging buffer (skewed
 *    scalars) is placed by a grid-wide pass with global cursors, warp-
 *    aggregated per key.
 *  - with precomputed copies W / Wg windows share a bucket set, and its
 *    coarse bins hold W / Wg times the pairs the staging takes; a split
 *    pass (the coarse pass's ranking and staged write again, over the
 *    coarse-sorted pairs into a second pairs set) first cuts them into
 *    bins of 2^s2 buckets (gpu_msm_sort_shift2) that fit.
 *  - without copies the top window's digits (bits - (W - 1) c bits) reach
 *    only its first buckets, so bins of 2^s would be few and oversized; it
 *    is binned by 2^st buckets (gpu_msm_sort_shift_top) with its own
 *    cursors and fine blocks.
 * Sparse batches keep the one-pass scatter with global cursors (it skips the
 * zero scalars; the window-major digits do not).
 * Why two passes: the one-pass scatter's cost on dense scalars is its random
 * 4-byte writes over the whole entries array and its value-returning global
 * atomics. The coarse pass takes one window at a time so a block has few
 * open runs, and the fine pass stages its bin so every write is coalesced
 * (bins written in place are larger than the L2 holds over all resident
 * blocks). The timings behind these choices are in docs/PERFORMANCE.md. */
#ifndef CUZK_GPU_MSM_SORT_CUH
#define CUZK_GPU_MSM_SORT_CUH

#include "gpu/msm/msm_defs.cuh"

namespace {

/* Signed-digit recoding: calls f(window, digit) for every window, digits in
 * [-2^(c-1), 2^(c-1)]. Words are consumed in an unrolled loop so the scalar
 * stays in registers. */
template <class Fn> __device__ __forceinline__ void for_each_digit(const scalar8 &s, unsigned c, unsigned W, Fn &f)
{
    const uint32_t mask = (1u << c) - 1, half = 1u << (c - 1);
    uint64_t buf = 0;
    unsigned nb = 0, w = 0;
    uint32_t carry = 0;
CUZK_UNROLL
    for (int i = 0; i < 8; i++) {
        buf |= (uint64_t)s.w[i] << nb;
        nb += 32;
        while (nb >= c && w < W) {
            uint32_t v = ((uint32_t)buf & mask) + carry;
            buf >>= c;
            nb -= c;
            int d;
            if (v > half) { d = (int)v - (int)(1u << c); carry = 1; }
            else { d = (int)v; carry = 0; }
            f(w, d);
            w++;
        }
    }
    while (w < W) {
        uint32_t v = ((uint32_t)buf & mask) + carry;
        buf >>= c;
        int d;
        if (v > half) { d = (int)v - (int)(1u << c); carry = 1; }
        else { d = (int)v; carry = 0; }
        f(w, d);
        w++;
    }
}

/* Bucket set of window w: w itself, or with precomputed bases (Wg < W
 * bucket sets) w mod Wg, the point then being copy w / Wg (index + copy *
 * stride, stride = the handle's point count). */
__device__ __forceinline__ unsigned bucket_set(unsigned w, unsigned Wg) { return w < Wg ? w : w % Wg; }
__device__ __forceinline__ uint32_t copy_offset(unsigned w, unsigned Wg, size_t stride)
{
    return w < Wg ? 0u : (uint32_t)((w / Wg) * stride);
}

struct hist_fn {
    uint32_t *hist;
    uint32_t B;
    unsigned Wg;
    __device__ __forceinline__ void operator()(unsigned w, int d)
    {
        if (d != 0) atomicAdd(&hist[bucket_set(w, Wg) * B + (unsigned)(d < 0 ? -d : d) - 1], 1u);
    }
};

struct scatter_fn {
    uint32_t *cursor;
    uint32_t *entries;
    uint32_t B;
    unsigned Wg;
    size_t stride;
    uint32_t idx;
    __device__ __forceinline__ void operator()(unsigned w, int d)
    {
        if (d != 0) {
            uint32_t pos = atomicAdd(&cursor[bucket_set(w, Wg) * B + (unsigned)(d < 0 ? -d : d) - 1], 1u);
            entries[pos] = (idx + copy_offset(w, Wg, stride)) | (d < 0 ? 0x80000000u : 0u);
        }
    }
};

/* ---- kernels: classify, digits ----------------------------------------- */

/* Whether base i is not the point at infinity: bit i of the handle's live
 * mask (msm.cu), or unknown (live == NULL) and taken as live. A scalar
 * whose base is infinity adds nothing, so classify, the ones list and the
 * sort treat it as zero. */
__device__ __forceinline__ bool base_live(const uint32_t *live, size_t i)
{
    return !live || ((live[i >> 5] >> (i & 31)) & 1u) != 0;
}

/* counters[0] = #ones listed, counters[1] = #significant scalars (both
 * over live bases). A block takes tiles of CLS_PER scalars a thread (all
 * loaded before any count, so the loads overlap), reserves the tile's run of
 * the ones list with one atomic (ballots and a scan of the warps' counts
 * place each one in it), and adds its significant scalars once at the end.
 * Two atomics a warp on these two counters serialised at the L2 (1.2 ms for
 * 2^24 scalars, 8x the time to read them: docs/PERFORMANCE.md). The order of
 * the ones list is free: it is summed. CLS_THREADS threads a block. */
constexpr unsigned CLS_THREADS = 256, CLS_PER = 8;
__global__ void __launch_bounds__(CLS_THREADS)
    classify_kernel(const uint64_t *scalars, size_t n, int split, const uint32_t *live, uint32_t *ones, uint32_t *counters)
{
    constexpr unsigned NW = CLS_THREADS / 32;
    __shared__ uint32_t wsum[NW], wsig[NW], run0;
    const unsigned lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
    const size_t tile = (size_t)CLS_THREADS * CLS_PER;
    uint32_t nsig = 0;
    /* t0 is block-uniform: every thread reaches the barriers */
    for (size_t t0 = (size_t)blockIdx.x * tile; t0 < n; t0 += (size_t)gridDim.x * tile) {
        uint32_t onem = 0; /* bit u: scalar t0 + u * CLS_THREADS + threadIdx.x is 1 */
CUZK_UNROLL
        for (unsigned u = 0; u < CLS_PER; u++) {
            const size_t i = t0 + (size_t)u * CLS_THREADS + threadIdx.x;
            if (i < n && base_live(live, i)) {
                const scalar8 s = load_scalar(scalars, i);
                if (split && scalar_is_one(s)) onem |= 1u << u;
                else if (!scalar_is_zero(s)) nsig++;
            }
        }
        /* the warp's ones of item u are contiguous in its run, u-major:
         * before u come the ones of the items < u (ballots) */
        uint32_t m[CLS_PER], wtot = 0;
CUZK_UNROLL
        for (unsigned u = 0; u < CLS_PER; u++) {
            m[u] = __ballot_sync(0xffffffffu, (onem >> u) & 1);
            wtot += (uint32_t)__popc(m[u]);
        }
        if (lane == 0) wsum[wid] = wtot;
        __syncthreads();
        if (threadIdx.x == 0) {
            uint32_t tot = 0;
            for (unsigned w = 0; w < NW; w++) {
                const uint32_t c = wsum[w];
                wsum[w] = tot;
                tot += c;
            }
            run0 = tot ? atomicAdd(&counters[0], tot) : 0;
        }
        __syncthreads();
        if (wtot) {
            const uint32_t lt = (1u << lane) - 1;
            uint32_t pos = run0 + wsum[wid];
CUZK_UNROLL
            for (unsigned u = 0; u < CLS_PER; u++) {
                if ((onem >> u) & 1) ones[pos + __popc(m[u] & lt)] = (uint32_t)(t0 + (size_t)u * CLS_THREADS + threadIdx.x);
                pos += (uint32_t)__popc(m[u]);
            }
        }
        __syncthreads(); /* wsum and run0 are rewritten by the next tile */
    }
CUZK_UNROLL
    for (int o = 16; o > 0; o >>= 1) nsig += __shfl_down_sync(0xffffffffu, nsig, o);
    if (lane == 0) wsig[wid] = nsig;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t tot = 0;
        for (unsigned w = 0; w < NW; w++) tot += wsig[w];
        if (tot) atomicAdd(&counters[1], tot);
    }
}

/* classify_kernel on `st` over n scalars: one wave of blocks (as many as
 * the SMs hold at once), fewer when n has fewer tiles. */
inline cuzk_status msm_classify(cudaStream_t st, const uint64_t *scalars, size_t n, int split, const uint32_t *live,
                                uint32_t *ones, uint32_t *counters, int sm_count, cuzk_error *e)
{
    int occ = 0;
    CUZK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, classify_kernel, CLS_THREADS, 0));
    size_t blocks = (size_t)(sm_count > 0 ? sm_count : 1) * (size_t)(occ > 0 ? occ : 1);
    const size_t tiles = (n + (size_t)CLS_THREADS * CLS_PER - 1) / ((size_t)CLS_THREADS * CLS_PER);
    if (tiles < blocks) blocks = tiles ? tiles : 1;
    classify_kernel<<<(unsigned)blocks, CLS_THREADS, 0, st>>>(scalars, n, split, live, ones, counters);
    CUZK_LAUNCHED("classify");
    return CUZK_OK;
}

__global__ void digits_hist_kernel(const uint64_t *scalars, size_t b0, size_t b1, int split, const uint32_t *live,
                                   unsigned c, unsigned W, unsigned Wg, uint32_t B, uint32_t *hist)
{
    hist_fn f{hist, B, Wg};
    for (size_t i = b0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < b1; i += (size_t)gridDim.x * blockDim.x) {
        if (!base_live(live, i)) continue;
        scalar8 s = load_scalar(scalars, i);
        if (split && scalar_is_one(s)) continue;
        if (scalar_is_zero(s)) continue;
        for_each_digit(s, c, W, f);
    }
}

__global__ void digits_scatter_kernel(const uint64_t *scalars, size_t b0, size_t b1, int split, const uint32_t *live,
                                      unsigned c, unsigned W, unsigned Wg, size_t stride, uint32_t B, uint32_t *cursor,
                                      uint32_t *entries)
{
    for (size_t i = b0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < b1; i += (size_t)gridDim.x * blockDim.x) {
        if (!base_live(live, i)) continue;
        scalar8 s = load_scalar(scalars, i);
        if (split && scalar_is_one(s)) continue;
        if (scalar_is_zero(s)) continue;
        scatter_fn f{cursor, entries, B, Wg, stride, (uint32_t)i};
        for_each_digit(s, c, W, f);
    }
}

/* ---- exclusive scan of NB counters (in place), offsets[NB] = total ------ */

__device__ __forceinline__ uint32_t block_exclusive_scan(uint32_t v, uint32_t *warp_sums, uint32_t *total)
{
    const unsigned lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
    uint32_t x = v;
CUZK_UNROLL
    for (int o = 1; o < 32; o <<= 1) {
        uint32_t y = __shfl_up_sync(0xffffffffu, x, o);
        if (lane >= (unsigned)o) x += y;
    }
    if (lane == 31) warp_sums[wid] = x;
    __syncthreads();
    if (wid == 0) {
        uint32_t ws = lane < nw ? warp_sums[lane] : 0;
CUZK_UNROLL
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t y = __shfl_up_sync(0xffffffffu, ws, o);
            if (lane >= (unsigned)o) ws += y;
        }
        if (lane < nw) warp_sums[lane] = ws; /* inclusive */
    }
    __syncthreads();
    uint32_t before = wid ? warp_sums[wid - 1] : 0;
    *total = warp_sums[nw - 1];
    __syncthreads();
    return before + x - v;
}

/* 256 threads, 8 consecutive counters each. */
__global__ void scan_tiles_kernel(uint32_t *a, size_t NB, uint32_t *tile_sums)
{
    __shared__ uint32_t ws[32];
    size_t base = (size_t)blockIdx.x * SCAN_TILE + threadIdx.x * 8;
    uint32_t v[8], sum = 0;
CUZK_UNROLL
    for (int j = 0; j < 8; j++) {
        v[j] = base + j < NB ? a[base + j] : 0;
        sum += v[j];
    }
    uint32_t total;
    uint32_t ex = block_exclusive_scan(sum, ws, &total);
CUZK_UNROLL
    for (int j = 0; j < 8; j++) {
        if (base + j < NB) a[base + j] = ex;
        ex += v[j];
    }
    if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
}

/* One block of 1024 threads scans the tile sums (any count). */
__global__ void scan_sums_kernel(uint32_t *sums, size_t ntiles, uint32_t *offsets, size_t NB)
{
    __shared__ uint32_t ws[32];
    size_t per = (ntiles + blockDim.x - 1) / blockDim.x;
    size_t b = threadIdx.x * per;
    uint32_t sum = 0;
    for (size_t j = b; j < b + per && j < ntiles; j++) sum += sums[j];
    uint32_t total;
    uint32_t ex = block_exclusive_scan(sum, ws, &total);
    for (size_t j = b; j < b + per && j < ntiles; j++) {
        uint32_t t = sums[j];
        sums[j] = ex;
        ex += t;
    }
    if (threadIdx.x == 0) offsets[NB] = total;
}

__global__ void scan_add_kernel(uint32_t *a, size_t NB, const uint32_t *tile_sums, uint32_t *cursor)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < NB) {
        uint32_t v = a[i] + tile_sums[i / SCAN_TILE];
        a[i] = v;
        cursor[i] = v;
    }
}

/* ---- two-pass placement (see the header comment) ------------------------- */

/* SORT_LO, SORT_HI_MAX and the bin count (gpu_msm_sort_shift,
 * gpu_msm_sort_ncoarse) are in gpu/plan/plan.h. */
constexpr unsigned SORT_THREADS = 512; /* SORT_CAP (plan.h): 2^24 uniform c = 20: ~16.4 K pairs a bin */

/* One block per bin of 2^s buckets from bucket k0; dynamic shared memory:
 * 2^s cursors + cap staged entries. A bin of more than `cap` pairs is left
 * to sort_rest_kernel (flagged). */
__global__ void __launch_bounds__(SORT_THREADS)
    sort_fine_kernel(const uint2 *pairs, const uint32_t *offsets, size_t k0, unsigned s, uint32_t cap, uint32_t *entries,
                     uint32_t *flag)
{
    extern __shared__ uint32_t sh[];
    const uint32_t nk = 1u << s;
    uint32_t *cur = sh, *stage = sh + nk;
    const size_t kb = k0 + ((size_t)blockIdx.x << s);
    const uint32_t j0 = offsets[kb], j1 = offsets[kb + nk];
    if (j1 - j0 > cap) {
        if (threadIdx.x == 0) *flag = 1;
        return;
    }
    if (j1 == j0) return;
    for (uint32_t l = threadIdx.x; l < nk; l += blockDim.x) cur[l] = offsets[kb + l] - j0;
    __syncthreads();
    for (uint32_t j = j0 + threadIdx.x; j < j1; j += blockDim.x) {
        const uint2 v = pairs[j];
        stage[atomicAdd(&cur[v.x & (nk - 1)], 1u)] = v.y;
    }
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < j1 - j0; j += blockDim.x) entries[j0 + j] = stage[j];
}

/* Pairs of the flagged (over-`cap`) bins, with the global cursors (cursor[k]
 * = offsets[k]); lanes with the same key take one atomic together (skewed
 * scalars put most entries in a few buckets). Bins are of 2^s buckets, of
 * 2^st from bucket ktop on (the top window's: msm_sort_batch). */
__global__ void sort_rest_kernel(const uint2 *pairs, const uint32_t *offsets, size_t NB, unsigned s, uint32_t ktop,
                                 unsigned st, uint32_t cap, uint32_t *cursor, uint32_t *entries, const uint32_t *flag)
{
    if (*flag == 0) return;
    const uint32_t total = offsets[NB];
    const unsigned lane = threadIdx.x & 31;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t base = (size_t)blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < total; base += stride) {
        const size_t j = base + lane;
        uint32_t key = KEY_NONE, val = 0;
        if (j < total) {
            const uint2 v = pairs[j];
            const unsigned sp = v.x >= ktop ? st : s;
            const size_t kb = (size_t)(v.x >> sp) << sp;
            if (offsets[kb + ((size_t)1 << sp)] - offsets[kb] > cap) {
                key = v.x;
                val = v.y;
            }
        }
        const unsigned peers = __match_any_sync(0xffffffffu, key);
        if (key != KEY_NONE) {
            const unsigned leader = __ffs(peers) - 1;
            uint32_t p = 0;
            if (lane == leader) p = atomicAdd(&cursor[key], (uint32_t)__popc(peers));
            p = __shfl_sync(peers, p, leader);
            entries[p + __popc(peers & ((1u << lane) - 1))] = val;
        }
    }
}

/* ---- window-major coarse pass ------------------------------------------- */

/* Digits stored window-major, dig[w * nb + t] = (|d| - 1) | sign << 31 or
 * KEY_NONE for a zero digit (coalesced writes), with the bucket histogram
 * by reductions: the histogram kernel's recoding, done once for both. The
 * top window's buckets are < 2^(its bits) for scalars < r; `kmax` holds
 * them there for any other input (a wrong sum, never a bin out of range). */
struct store_fn {
    uint32_t *hist, *dig;
    uint32_t B, kmax;
    unsigned Wg, wtop;
    size_t nb, t;
    __device__ __forceinline__ void operator()(unsigned w, int d)
    {
        uint32_t v = KEY_NONE;
        if (d != 0) {
            uint32_t k = (unsigned)(d < 0 ? -d : d) - 1;
            if (w == wtop && k > kmax) k = kmax;
            atomicAdd(&hist[bucket_set(w, Wg) * B + k], 1u);
            v = k | (d < 0 ? 0x80000000u : 0u);
        }
        dig[w * nb + t] = v;
    }
};

__global__ void digits_store_kernel(const uint64_t *scalars, size_t b0, size_t b1, int split, const uint32_t *live,
                                    unsigned c, unsigned W, unsigned Wg, uint32_t B, unsigned wtop, uint32_t kmax,
                                    uint32_t *hist, uint32_t *dig)
{
    const size_t nb = b1 - b0;
    for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < nb; t += (size_t)gridDim.x * blockDim.x) {
        scalar8 sc = load_scalar(scalars, b0 + t);
        if (!base_live(live, b0 + t) || (split && scalar_is_one(sc)) || scalar_is_zero(sc)) {
            for (unsigned w = 0; w < W; w++) dig[w * nb + t] = KEY_NONE;
            continue;
        }
        store_fn f{hist, dig, B, kmax, Wg, wtop, nb, t};
        for_each_digit(sc, c, W, f);
    }
}

/* A block's runs in the bins j (j < 2^SORT_HI_MAX) of 2^sh buckets from
 * the bucket whose offset is offsets[0], with bin cursors cursor[j], from
 * its counts cnt[j]: base[j] = the run's place in the block's staging
 * (exclusive scan; *nv its total), gpos[j] = its place in the output,
 * reserved with one atomic on the bin's cursor. Two bins a thread; every
 * thread of the block calls it. */
__device__ __forceinline__ void reserve_runs(const uint32_t *cnt, uint32_t *ws, const uint32_t *offsets, uint32_t *cursor,
                                             unsigned sh, uint32_t *base, uint32_t *gpos, uint32_t *nv)
{
    const uint32_t j = 2 * threadIdx.x, c0 = cnt[j], c1 = cnt[j + 1];
    const uint32_t ex = block_exclusive_scan(c0 + c1, ws, nv);
    base[j] = ex;
    base[j + 1] = ex + c0;
    if (c0) gpos[j] = offsets[(size_t)j << sh] + atomicAdd(&cursor[j], c0);
    if (c1) gpos[j + 1] = offsets[(size_t)(j + 1) << sh] + atomicAdd(&cursor[j + 1], c1);
}

/* Block (tile, window): the tile's digits of one window into the window's
 * <= 2^10 coarse bins. The block ranks its digits per bin in shared memory,
 * reserves one run per bin in the bin's output range (one global atomic a
 * bin), stages the pairs in shared memory in bin order and writes them out
 * in that order: consecutive threads write consecutive addresses of a run,
 * so the sectors are written whole (pairs scattered straight from the
 * ranks are partial-sector writes, ~4x the pair bytes of DRAM traffic).
 * One window at a time keeps the runs few: at most 2^10 a block. Each
 * thread loads all its digits before any atomic, so the loads overlap.
 * Window wtop (the top one without copies; none: wtop >= W) is binned by
 * 2^st buckets with its own cursors gtop (gpu_msm_sort_shift_top). */
constexpr unsigned SORT_WTILE = 8192;                        /* digits a block stages (64 KiB of pairs) */
constexpr unsigned SORT_PER = SORT_WTILE / SORT_THREADS;     /* digits a thread, loaded before any atomic */
static_assert(2 * SORT_THREADS == (1u << SORT_HI_MAX), "two coarse bins a thread in the tile scan");
__global__ void __launch_bounds__(SORT_THREADS)
    sort_win_coarse_kernel(const uint32_t *dig, size_t nb, size_t b0, unsigned Wg, size_t stride, uint32_t B, unsigned s,
                           unsigned wtop, unsigned st, const uint32_t *offsets, uint32_t *gcur, uint32_t *gtop, uint2 *pairs)
{
    extern __shared__ uint2 stage[]; /* SORT_WTILE pairs in bin order */
    __shared__ uint32_t cnt[1u << SORT_HI_MAX], base[1u << SORT_HI_MAX], gpos[1u << SORT_HI_MAX], ws[32];
    const unsigned w = blockIdx.y, bs = bucket_set(w, Wg);
    const uint32_t cofs = copy_offset(w, Wg, stride);
    const unsigned sw = w == wtop ? st : s;
    uint32_t *cur = w == wtop ? gtop : gcur + (size_t)bs * (B >> s);
    const uint32_t *dw = dig + (size_t)w * nb;
    const size_t t0 = (size_t)blockIdx.x * SORT_WTILE;
    for (uint32_t j = threadIdx.x; j < (1u << SORT_HI_MAX); j += blockDim.x) cnt[j] = 0;
    uint32_t v[SORT_PER], rank[SORT_PER];
CUZK_UNROLL
    for (unsigned u = 0; u < SORT_PER; u++) {
        const size_t t = t0 + threadIdx.x + (size_t)u * SORT_THREADS;
        v[u] = t < nb ? dw[t] : KEY_NONE;
    }
    __syncthreads();
CUZK_UNROLL
    for (unsigned u = 0; u < SORT_PER; u++)
        rank[u] = v[u] != KEY_NONE ? atomicAdd(&cnt[(v[u] & 0x7fffffffu) >> sw], 1u) : 0;
    __syncthreads();
    uint32_t nv;
    reserve_runs(cnt, ws, offsets + (size_t)bs * B, cur, sw, base, gpos, &nv);
    __syncthreads();
CUZK_UNROLL
    for (unsigned u = 0; u < SORT_PER; u++) {
        if (v[u] == KEY_NONE) continue;
        const uint32_t k = v[u] & 0x7fffffffu;
        const uint32_t t = (uint32_t)(b0 + t0) + threadIdx.x + u * SORT_THREADS;
        stage[base[k >> sw] + rank[u]] = make_uint2(bs * B + k, (t + cofs) | (v[u] & 0x80000000u));
    }
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < nv; j += blockDim.x) {
        const uint2 p = stage[j];
        const uint32_t bin = (p.x & (B - 1)) >> sw;
        pairs[gpos[bin] + (j - base[bin])] = p;
    }
}

/* Second level, where the coarse bins hold more than the fine pass stages
 * (gpu_msm_sort_shift2: precomputed copies put W / Wg windows into one
 * set). Block = a tile of SORT_WTILE consecutive coarse-sorted pairs; the
 * same ranking, reservation and staged write as sort_win_coarse_kernel,
 * into bins of 2^s2 buckets (`out` has the entries' layout at that
 * granularity). The pairs are sorted by coarse bin, so a tile's bins start
 * at the fine bins of its first pair's coarse bin; a pair whose fine bin is
 * more than 2^SORT_HI_MAX beyond (a tile over many small coarse bins) is
 * placed alone with a global cursor. */
__global__ void __launch_bounds__(SORT_THREADS)
    sort_split_kernel(const uint2 *pairs, const uint32_t *offsets, size_t NB, unsigned s, unsigned s2, uint32_t *gcur2,
                      uint2 *out)
{
    extern __shared__ uint2 stage[]; /* SORT_WTILE pairs in bin order */
    __shared__ uint32_t cnt[1u << SORT_HI_MAX], base[1u << SORT_HI_MAX], gpos[1u << SORT_HI_MAX], ws[32];
    constexpr uint32_t NL = 1u << SORT_HI_MAX, FAR = 0xffffffffu;
    const uint32_t total = offsets[NB];
    const size_t t0 = (size_t)blockIdx.x * SORT_WTILE;
    if (t0 >= total) return; /* block-uniform */
    const uint32_t f0 = (pairs[t0].x >> s) << (s - s2); /* first fine bin of the tile */
    for (uint32_t j = threadIdx.x; j < NL; j += blockDim.x) cnt[j] = 0;
    uint2 v[SORT_PER];
    uint32_t rank[SORT_PER];
CUZK_UNROLL
    for (unsigned u = 0; u < SORT_PER; u++) {
        const size_t t = t0 + threadIdx.x + (size_t)u * SORT_THREADS;
        v[u] = t < total ? pairs[t] : make_uint2(KEY_NONE, 0);
    }
    __syncthreads();
CUZK_UNROLL
    for (unsigned u = 0; u < SORT_PER; u++) {
        rank[u] = FAR;
        if (v[u].x == KEY_NONE) continue;
        const uint32_t f = v[u].x >> s2;
        if (f - f0 < NL) rank[u] = atomicAdd(&cnt[f - f0], 1u);
        else out[offsets[(size_t)f << s2] + atomicAdd(&gcur2[f], 1u)] = v[u];
    }
    __syncthreads();
    uint32_t nv;
    reserve_runs(cnt, ws, offsets + ((size_t)f0 << s2), gcur2 + f0, s2, base, gpos, &nv);
    __syncthreads();
CUZK_UNROLL
    for (unsigned u = 0; u < SORT_PER; u++)
        if (rank[u] != FAR) stage[base[(v[u].x >> s2) - f0] + rank[u]] = v[u];
    __syncthreads();
    for (uint32_t j = threadIdx.x; j < nv; j += blockDim.x) {
        const uint2 p = stage[j];
        const uint32_t bin = (p.x >> s2) - f0;
        out[gpos[bin] + (j - base[bin])] = p;
    }
}

/* Sort of one batch of points [b0, b1): the entries of every (bucket set,
 * bucket) end up contiguous in `entries` (point index | sign << 31), bucket k
 * of the Wg * 2^(c-1) owning entries[offsets[k] .. offsets[k+1]); `cursor`,
 * `tiles`, `pairs` and `gcur` are scratch. Wg = W without precomputed bases;
 * with them window w goes to bucket set w mod Wg as point index + (w / Wg) *
 * stride. Points whose base is not live (base_live) have no entries.
 * Scalars have `bits` bits. */
cuzk_status msm_sort_batch(cudaStream_t st, const uint64_t *scalars, size_t b0, size_t b1, int split, const uint32_t *live,
                           unsigned bits, unsigned c, unsigned W, unsigned Wg, size_t stride, bool dense, cuzk_gpu_msm_sort mode, unsigned grid, uint32_t *offsets, uint32_t *tiles, uint32_t *cursor, uint32_t *entries,
                           uint2 *pairs, uint2 *pairs2, uint32_t *gcur, cuzk_error *e)
{
    const uint32_t B = 1u << (c - 1);
    const size_t NB = (size_t)Wg * B;
    const size_t ntiles = (NB + SCAN_TILE - 1) / SCAN_TILE;
    /* automatic: window-major two-pass placement for dense scalars; for
     * sparse ones the one pass skips the zero scalars, the window-major
     * digits do not */
    if (mode == CUZK_GPU_MSM_SORT_AUTO) mode = dense ? CUZK_GPU_MSM_SORT_WINDOW : CUZK_GPU_MSM_SORT_SCATTER;
    const size_t nb = b1 - b0;
    const unsigned s = gpu_msm_sort_shift(c);
    /* fine bins of 2^s2 buckets: the coarse ones, or a split of them (the
     * plan gave the second pairs set to every window that splits) */
    const unsigned s2 = pairs2 ? gpu_msm_sort_shift2(c, W, Wg, nb) : s;
    /* Without copies and unsplit, the top window (the last bucket set, its
     * first 2^tb buckets) is binned by 2^stop buckets: 2^(tb - stop) <=
     * 2^10 bins of one fine block each instead of few bins over the
     * staging, which the global-cursor pass would place. */
    const unsigned tb = gpu_msm_top_bits(bits, c), stop = gpu_msm_sort_shift_top(bits, c);
    const bool top = Wg == W && s2 == s && stop < s;
    CUZK_CU(cudaMemsetAsync(offsets, 0, (NB + 1) * sizeof(uint32_t), st));
    if (mode != CUZK_GPU_MSM_SORT_SCATTER) {
        /* the digits live in `entries` until the fine pass writes it */
        digits_store_kernel<<<grid, 256, 0, st>>>(scalars, b0, b1, split, live, c, W, Wg, B, top ? W - 1 : W,
                                                  (1u << tb) - 1, offsets, entries);
        CUZK_LAUNCHED("digits_store");
    } else {
        digits_hist_kernel<<<grid, 256, 0, st>>>(scalars, b0, b1, split, live, c, W, Wg, B, offsets);
        CUZK_LAUNCHED("digits_hist");
    }
    scan_tiles_kernel<<<(unsigned)ntiles, 256, 0, st>>>(offsets, NB, tiles);
    CUZK_LAUNCHED("scan_tiles");
    scan_sums_kernel<<<1, 1024, 0, st>>>(tiles, ntiles, offsets, NB);
    CUZK_LAUNCHED("scan_sums");
    scan_add_kernel<<<ceil_div_u(NB, 256), 256, 0, st>>>(offsets, NB, tiles, cursor);
    CUZK_LAUNCHED("scan_add");
    if (mode == CUZK_GPU_MSM_SORT_SCATTER) {
        /* One pass with global cursors (reference path). */
        digits_scatter_kernel<<<grid, 256, 0, st>>>(scalars, b0, b1, split, live, c, W, Wg, stride, B, cursor, entries);
        CUZK_LAUNCHED("digits_scatter");
        return CUZK_OK;
    }
    /* cursors (gpu_msm_sort_counters): coarse, split, the top window's */
    const uint32_t nc = (uint32_t)gpu_msm_sort_ncoarse(c, Wg), nc2 = s2 < s ? (uint32_t)(NB >> s2) : 0;
    const uint32_t ntop = Wg == W ? 1u << SORT_HI_MAX : 0;
    uint32_t *gtop = gcur + nc + nc2, *flag = gtop + ntop;
    const uint32_t cap = mode == CUZK_GPU_MSM_SORT_OVERFLOW ? 0 : SORT_CAP;
    CUZK_CU(cudaMemsetAsync(gcur, 0, ((size_t)nc + nc2 + ntop + 1) * sizeof(uint32_t), st));
    /* one block per (tile of SORT_WTILE digits, window): runs of ~8 pairs
     * a block and bin at 2^24 (c = 20), 26624 blocks x <= 1024 reservation
     * atomics */
    const size_t sh1 = (size_t)SORT_WTILE * sizeof(uint2);
    CUZK_CU(cudaFuncSetAttribute(sort_win_coarse_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh1));
    sort_win_coarse_kernel<<<dim3((unsigned)((nb + SORT_WTILE - 1) / SORT_WTILE), W), SORT_THREADS, sh1, st>>>(
        entries, nb, b0, Wg, stride, B, s, top ? W - 1 : W, stop, offsets, gcur, gtop, pairs);
    CUZK_LAUNCHED("sort_win_coarse");
    const uint2 *fine_in = pairs;
    if (s2 < s) {
        /* at most W entries a point */
        CUZK_CU(cudaFuncSetAttribute(sort_split_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh1));
        sort_split_kernel<<<(unsigned)((nb * W + SORT_WTILE - 1) / SORT_WTILE), SORT_THREADS, sh1, st>>>(
            pairs, offsets, NB, s, s2, gcur + nc, pairs2);
        CUZK_LAUNCHED("sort_split");
        fine_in = pairs2;
    }
    const size_t sh2 = (((size_t)1 << s2) + SORT_CAP) * sizeof(uint32_t);
    CUZK_CU(cudaFuncSetAttribute(sort_fine_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh2));
    const size_t ktop = top ? NB - B : NB; /* the top window's first bucket */
    sort_fine_kernel<<<(unsigned)(ktop >> s2), SORT_THREADS, sh2, st>>>(fine_in, offsets, 0, s2, cap, entries, flag);
    CUZK_LAUNCHED("sort_fine");
    if (top) { /* stop < s2: its staging fits the regular one's */
        sort_fine_kernel<<<1u << (tb - stop), SORT_THREADS, sh2, st>>>(fine_in, offsets, ktop, stop, cap, entries, flag);
        CUZK_LAUNCHED("sort_fine");
    }
    sort_rest_kernel<<<grid, 256, 0, st>>>(fine_in, offsets, NB, s2, (uint32_t)ktop, stop, cap, cursor, entries, flag);
    CUZK_LAUNCHED("sort_rest");
    return CUZK_OK;
}

} /* namespace */

#endif
