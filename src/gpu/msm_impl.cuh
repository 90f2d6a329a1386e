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
 *     c. scatter (counting sort): entries[pos] = point index | sign << 31;
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_common.cuh"
#include "gpu/gpu_ec.cuh"

using namespace cuzk_gpu;

namespace {

constexpr unsigned MSM_SEG = 64;           /* entries per accumulate thread (H200: 64 and 128 beat 32 by 4-6 %; see msm_seg_len) */
constexpr unsigned MSM_RED_SEG = 32;       /* buckets per reduction thread (level 0, see red_l0) */
constexpr unsigned MSM_RED_UP = 4;         /* inputs per thread on the levels above 0 (short serial chains) */
constexpr unsigned MSM_RED_FAN = 8;        /* fan-in of the sum kernels */
constexpr unsigned MSM_C_MAX = 20;
constexpr unsigned MSM_C_MIN = 4;
constexpr uint32_t KEY_NONE = 0xffffffffu;
constexpr unsigned SCAN_TILE = 2048;       /* 256 threads x 8 */
constexpr unsigned EC_THREADS = 128;

/* ---- scalar helpers ----------------------------------------------------- */

struct scalar8 {
    uint32_t w[8];
};

__device__ __forceinline__ scalar8 load_scalar(const uint64_t *s, size_t i)
{
    const uint4 *p = reinterpret_cast<const uint4 *>(s + 4 * i);
    uint4 a = p[0], b = p[1];
    scalar8 r;
    r.w[0] = a.x; r.w[1] = a.y; r.w[2] = a.z; r.w[3] = a.w;
    r.w[4] = b.x; r.w[5] = b.y; r.w[6] = b.z; r.w[7] = b.w;
    return r;
}

__device__ __forceinline__ bool scalar_is_zero(const scalar8 &s)
{
    uint32_t t = 0;
CUZK_UNROLL
    for (int i = 0; i < 8; i++) t |= s.w[i];
    return t == 0;
}

__device__ __forceinline__ bool scalar_is_one(const scalar8 &s)
{
    uint32_t t = s.w[0] ^ 1u;
CUZK_UNROLL
    for (int i = 1; i < 8; i++) t |= s.w[i];
    return t == 0;
}

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

struct hist_fn {
    uint32_t *hist;
    uint32_t B;
    __device__ __forceinline__ void operator()(unsigned w, int d)
    {
        if (d != 0) atomicAdd(&hist[w * B + (unsigned)(d < 0 ? -d : d) - 1], 1u);
    }
};

struct scatter_fn {
    uint32_t *cursor;
    uint32_t *entries;
    uint32_t B;
    uint32_t idx;
    __device__ __forceinline__ void operator()(unsigned w, int d)
    {
        if (d != 0) {
            uint32_t pos = atomicAdd(&cursor[w * B + (unsigned)(d < 0 ? -d : d) - 1], 1u);
            entries[pos] = idx | (d < 0 ? 0x80000000u : 0u);
        }
    }
};

/* ---- kernels: classify, digits ----------------------------------------- */

/* counters[0] = #ones listed, counters[1] = #significant scalars. The loop
 * bound is warp-uniform so the ballots see full warps. */
__global__ void classify_kernel(const uint64_t *scalars, size_t n, int split, uint32_t *ones, uint32_t *counters)
{
    const unsigned lane = threadIdx.x & 31;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t base = (size_t)blockIdx.x * blockDim.x; base < n; base += stride) {
        size_t i = base + threadIdx.x;
        bool one = false, sig = false;
        if (i < n) {
            scalar8 s = load_scalar(scalars, i);
            one = split && scalar_is_one(s);
            sig = !one && !scalar_is_zero(s);
        }
        unsigned m1 = __ballot_sync(0xffffffffu, one);
        unsigned m2 = __ballot_sync(0xffffffffu, sig);
        uint32_t start = 0;
        if (lane == 0) {
            if (m1) start = atomicAdd(&counters[0], (uint32_t)__popc(m1));
            if (m2) atomicAdd(&counters[1], (uint32_t)__popc(m2));
        }
        start = __shfl_sync(0xffffffffu, start, 0);
        if (one) ones[start + __popc(m1 & ((1u << lane) - 1))] = (uint32_t)i;
    }
}

__global__ void digits_hist_kernel(const uint64_t *scalars, size_t b0, size_t b1, int split, unsigned c, unsigned W,
                                   uint32_t B, uint32_t *hist)
{
    hist_fn f{hist, B};
    for (size_t i = b0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < b1; i += (size_t)gridDim.x * blockDim.x) {
        scalar8 s = load_scalar(scalars, i);
        if (split && scalar_is_one(s)) continue;
        if (scalar_is_zero(s)) continue;
        for_each_digit(s, c, W, f);
    }
}

__global__ void digits_scatter_kernel(const uint64_t *scalars, size_t b0, size_t b1, int split, unsigned c, unsigned W,
                                      uint32_t B, uint32_t *cursor, uint32_t *entries)
{
    for (size_t i = b0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < b1; i += (size_t)gridDim.x * blockDim.x) {
        scalar8 s = load_scalar(scalars, i);
        if (split && scalar_is_one(s)) continue;
        if (scalar_is_zero(s)) continue;
        scatter_fn f{cursor, entries, B, (uint32_t)i};
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

/* ---- kernels: bucket accumulation --------------------------------------- */

template <class F> __device__ __forceinline__ affine<F> load_affine(const affine<F> *p)
{
    static_assert(sizeof(affine<F>) % 16 == 0, "affine size");
    affine<F> r;
    const uint4 *src = reinterpret_cast<const uint4 *>(p);
    uint4 *dst = reinterpret_cast<uint4 *>(&r);
CUZK_UNROLL
    for (int i = 0; i < (int)(sizeof(affine<F>) / 16); i++) dst[i] = __ldg(src + i);
    return r;
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS) accumulate_kernel(const uint32_t *entries, const uint32_t *offsets, uint32_t NB,
                                                                uint32_t nseg, uint32_t seg, const affine<F> *bases,
                                                                xyzz<F> *buckets, xyzz<F> *head, uint32_t *head_key,
                                                                xyzz<F> *tail, uint32_t *tail_key)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nseg) return;
    const uint32_t total = offsets[NB];
    uint32_t key_head = KEY_NONE, key_tail = KEY_NONE;
    const uint32_t s = t * seg;
    if (s < total) {
        const uint32_t e_end = min(s + seg, total);
        /* largest k with offsets[k] <= s: the non-empty bucket holding s */
        uint32_t lo = 0, hi = NB;
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) >> 1;
            if (offsets[mid] <= s) lo = mid; else hi = mid;
        }
        uint32_t k = lo;
        uint32_t bstart = offsets[k], bend = offsets[k + 1];
        bool excl = bstart >= s && bend <= e_end;
        /* The segment holding a bucket's first entry starts from the stored
         * bucket (also when the bucket runs on: its tail partial then
         * carries it, and the fix-up need not add it back). */
        xyzz<F> acc;
        if (bstart >= s) acc = buckets[k]; else xyzz_set_inf(acc);
        for (uint32_t j = s; j < e_end; j++) {
            uint32_t ent = entries[j];
            affine<F> p = load_affine(bases + (ent & 0x7fffffffu));
            xyzz_add_affine(acc, p, (ent >> 31) != 0);
            if (j + 1 == bend || j + 1 == e_end) {
                if (excl) {
                    buckets[k] = acc;
                } else if (bstart < s) {
                    head[t] = acc;
                    key_head = k;
                } else {
                    tail[t] = acc;
                    key_tail = k;
                }
                if (j + 1 < e_end) {
                    k++;
                    while (offsets[k + 1] <= j + 1) k++;
                    bstart = offsets[k];
                    bend = offsets[k + 1];
                    excl = bend <= e_end; /* bstart == j+1 >= s */
                    acc = buckets[k];
                }
            }
        }
    }
    head_key[t] = key_head;
    tail_key[t] = key_tail;
}

/* Buckets crossing segment borders. A bucket k spanning segments t0 < t1
 * left a tail partial in t0 and head partials in every segment t0+1..t1 (a
 * contiguous run of head keys equal to k). The run can be as long as the
 * bucket is (a skewed scalar distribution puts most points in one bucket), so
 * it is summed by a tree rather than by one thread:
 *   level d (1, 2, 4, ...): for i a multiple of 2d, if key[i+d] == key[i],
 *   head[i] += head[i+d].
 * After the levels up to D >= nseg, head[i] holds the sum of the run's part
 * inside [i, i + lowbit(i)) (runs are contiguous and start at i or before),
 * so the owner of the tail walks i = t0+1, i += lowbit(i) while i <= t1:
 * O(log) additions per bucket, O(nseg) additions in all. */
template <class F>
__global__ void __launch_bounds__(EC_THREADS) fixup_tree_kernel(uint32_t nseg, uint32_t d, xyzz<F> *head,
                                                                const uint32_t *head_key)
{
    const size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 2 * d;
    if (i + d >= nseg) return;
    const uint32_t k = head_key[i];
    if (k == KEY_NONE || head_key[i + d] != k) return;
    xyzz<F> acc = head[i];
    xyzz_add(acc, head[i + d]);
    head[i] = acc;
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS) fixup_kernel(uint32_t nseg, uint32_t seg, const uint32_t *offsets, xyzz<F> *buckets,
                                                           const xyzz<F> *head, const xyzz<F> *tail, const uint32_t *tail_key)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nseg) return;
    const uint32_t k = tail_key[t];
    if (k == KEY_NONE) return;
    const uint32_t last = (offsets[k + 1] - 1) / seg; /* segment holding the bucket's last entry */
    xyzz<F> acc = tail[t]; /* includes the stored bucket */
    for (uint32_t i = t + 1; i <= last; i += i & (0u - i)) xyzz_add(acc, head[i]);
    buckets[k] = acc;
}

/* ---- kernels: ones, reduction ------------------------------------------- */

template <class F>
__global__ void __launch_bounds__(EC_THREADS) ones_kernel(const uint32_t *ones, const uint32_t *counters, const affine<F> *bases,
                                                          xyzz<F> *out)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x, nt = gridDim.x * blockDim.x;
    const uint32_t cnt = counters[0];
    xyzz<F> acc;
    xyzz_set_inf(acc);
    for (uint32_t j = t; j < cnt; j += nt) xyzz_add_affine(acc, load_affine(bases + ones[j]), false);
    out[t] = acc;
}

/* Bucket reduction, S = sum_{j<M} (j+1) X_j per row (window), without
 * double-and-add: thread (w, g) takes X_{gL..gL+L-1} and writes
 *   T_g = sum_i (i+1) X_{gL+i}  and  R_g = sum_i X_{gL+i}  (running sums),
 * so S = sum_g T_g + L * sum_g g R_g, and sum_g g R_g = sum_{h} (h+1) R_{h+1}
 * is the same problem on the row R_1..R_{G-1}: the next level. Levels stop
 * at G = 1; the host combines S = sum T_0 + L (sum T_1 + L (...)). */
template <class F, bool INL>
__global__ void __launch_bounds__(EC_THREADS) reduce_level_kernel(const xyzz<F> *in, uint32_t stride, uint32_t off,
                                                                  uint32_t M, uint32_t L, uint32_t G, uint32_t W,
                                                                  xyzz<F> *T, xyzz<F> *R)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= W * G) return;
    const uint32_t w = t / G, g = t % G;
    const xyzz<F> *b = in + (size_t)w * stride + off + (size_t)g * L;
    const uint32_t cnt = min(L, M - g * L);
    xyzz<F> run, sum;
    xyzz_set_inf(run);
    xyzz_set_inf(sum);
    if (INL) {
        /* one inlined addition site, alternating run += b[j], sum += run
         * (operands in registers instead of through the call's stack) */
        xyzz<F> a = run, q = b[cnt - 1];
        for (uint32_t s = 0; s < 2 * cnt; s++) {
            xyzz_add_inl(a, q);
            if ((s & 1) == 0) {
                run = a;
                q = a;
                a = sum;
            } else {
                sum = a;
                a = run;
                if (s + 1 < 2 * cnt) q = b[cnt - 2 - s / 2];
            }
        }
    } else {
        for (int j = (int)cnt - 1; j >= 0; j--) {
            xyzz_add(run, b[j]);
            xyzz_add(sum, run);
        }
    }
    T[t] = sum;
    R[t] = run;
}

/* out[g][j] = sum of in[g][j*FAN .. (j+1)*FAN) (groups of m inputs). */
template <class F>
__global__ void __launch_bounds__(EC_THREADS) sum_kernel(const xyzz<F> *in, uint32_t groups, uint32_t m, xyzz<F> *out)
{
    const uint32_t mo = (m + MSM_RED_FAN - 1) / MSM_RED_FAN;
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= groups * mo) return;
    const uint32_t g = t / mo, j = t % mo;
    xyzz<F> acc;
    xyzz_set_inf(acc);
    for (uint32_t i = j * MSM_RED_FAN; i < (j + 1) * MSM_RED_FAN && i < m; i++) xyzz_add(acc, in[(size_t)g * m + i]);
    out[t] = acc;
}

template <class F> struct is_fp2 {
    static constexpr bool value = false;
};
template <class P> struct is_fp2<fp2<P>> {
    static constexpr bool value = true;
};

/* ---- host-side planning --------------------------------------------------- */

unsigned windows_for(unsigned bits, unsigned c) { return (bits + 1 + c - 1) / c; }

/* Levels of the bucket reduction (reduce_level_kernel): level k has G[k]
 * segments of L[k] (= 2^lg[k]) per row over M[k] inputs; its T and R
 * outputs (W * G[k] each) lie at off[k] in the two reduction buffers.
 * Level 0 takes L0 buckets a thread; the levels above are small, so their
 * serial chains (2 L additions a thread, on few threads) are kept short
 * with L = MSM_RED_UP. A larger L0 gives fewer outputs, so buffers sized
 * with red_l0's choice cover the larger ones. */
struct red_levels {
    unsigned n;
    uint32_t M[24], G[24], L[24], lg[24];
    size_t off[24];
    size_t total;
};

red_levels red_plan(unsigned W, uint32_t B, uint32_t L0)
{
    red_levels r;
    r.n = 0;
    r.total = 0;
    uint32_t M = B, L = L0;
    for (;;) { /* L >= 2 on levels >= 1 and G[0] <= 2^18: at most ~10 levels */
        uint32_t G = (M + L - 1) / L, lg = 0;
        while ((1u << lg) < L) lg++;
        r.M[r.n] = M;
        r.G[r.n] = G;
        r.L[r.n] = L;
        r.lg[r.n] = lg;
        r.off[r.n] = r.total;
        r.total += (size_t)W * G;
        r.n++;
        if (G <= 1) break;
        M = G - 1;
        L = MSM_RED_UP;
    }
    return r;
}

/* Level-0 segment: MSM_RED_SEG buckets, halved when that leaves fewer than
 * 2^17 threads (c <= 19: the chains of 2 L additions set the time, e.g.
 * G2 witness-like MSMs at c = 16); `want` (a power of two, 0 = none) may
 * ask for more. */
uint32_t red_l0(unsigned W, uint32_t B, uint32_t want)
{
    uint32_t L = (size_t)W * B / MSM_RED_SEG >= ((size_t)1 << 17) ? MSM_RED_SEG : MSM_RED_SEG / 2;
    if (want > L) L = want;
    return B < L ? B : L;
}

/* Cost in mixed-addition units: accumulation + bucket reduction. */
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
    size_t red_max;        /* reduction outputs */
    size_t ones_threads;
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
    p.red_max = 0;
    for (unsigned c = MSM_C_MIN; c <= p.cmax; c++) {
        uint32_t B = 1u << (c - 1);
        const unsigned W = windows_for(bits, c);
        size_t r = red_plan(W, B, red_l0(W, B, 0)).total;
        if (r > p.red_max) p.red_max = r;
    }
    p.ones_threads = (size_t)(sm_count > 0 ? sm_count : 132) * 4 * EC_THREADS;
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
    void *d_buckets;
    void *d_part;
    uint32_t *d_part_key;
    void *d_red_a, *d_red_b;
    unsigned last_c;
};

namespace {

/* Entries per accumulate thread: MSM_SEG, doubled for batches of at least
 * 2^27 entries (H200, 2^24 uniform: 1 % faster, half the fix-up; smaller
 * MSMs need the threads), or CUZK_GPU_MSM_SEG (>= MSM_SEG, for tuning
 * experiments; the partial-sum workspaces are sized for MSM_SEG). */
inline uint32_t msm_seg_len(size_t entries)
{
    const char *v = getenv("CUZK_GPU_MSM_SEG");
    long x = v ? strtol(v, NULL, 10) : 0;
    if (x >= (long)MSM_SEG && x <= 4096) return (uint32_t)x;
    return entries >= ((size_t)1 << 27) ? 2 * MSM_SEG : MSM_SEG;
}

/* Level-0 buckets per reduction thread asked for by CUZK_GPU_MSM_RED_SEG (a
 * power of two up to 4096; only values above red_l0's choice take effect,
 * fewer outputs than the buffers hold), 0 if unset. */
inline uint32_t msm_red_seg_len()
{
    const char *v = getenv("CUZK_GPU_MSM_RED_SEG");
    long x = v ? strtol(v, NULL, 10) : 0;
    return x > 0 && x <= 4096 && (x & (x - 1)) == 0 ? (uint32_t)x : 0;
}

/* Phase timing for tuning (CUZK_GPU_MSM_PROFILE=1): CUDA events between the
 * pipeline stages, summed over batches, printed on stderr. Off by default:
 * no events are created. */
enum { PROF_SLOTS = 10 };
struct msm_prof {
    bool on;
    cudaEvent_t ev[PROF_SLOTS][64];
    unsigned cnt[PROF_SLOTS];
    void init()
    {
        on = getenv("CUZK_GPU_MSM_PROFILE") != NULL;
        for (int i = 0; i < PROF_SLOTS; i++) cnt[i] = 0;
    }
    void mark(cudaStream_t st, int slot)
    {
        if (!on || cnt[slot] >= 64) return;
        cudaEvent_t e;
        if (cudaEventCreate(&e) != cudaSuccess) return;
        cudaEventRecord(e, st);
        ev[slot][cnt[slot]++] = e;
    }
    float span(int a, int b, unsigned i)
    {
        float ms = 0;
        if (i < cnt[a] && i < cnt[b]) cudaEventElapsedTime(&ms, ev[a][i], ev[b][i]);
        return ms;
    }
    void destroy()
    {
        for (int s = 0; s < PROF_SLOTS; s++)
            for (unsigned i = 0; i < cnt[s]; i++) cudaEventDestroy(ev[s][i]);
        on = false;
    }
    /* slots: 6..7 classify+ones; per batch 0 sort start, 8 histogram done,
     * 9 scan done, 1 scatter done, 2 accumulate done, 3 fix-up done; 4..5
     * reduction. */
    void report(size_t n, size_t nsig, unsigned c)
    {
        if (!on) return;
        cudaEventSynchronize(ev[5][0]);
        float sort = 0, hist = 0, scan = 0, acc = 0, fix = 0;
        for (unsigned i = 0; i < cnt[0]; i++) {
            sort += span(0, 1, i);
            hist += span(0, 8, i);
            scan += span(8, 9, i);
            acc += span(1, 2, i);
            fix += span(2, 3, i);
        }
        fprintf(stderr,
                "msm-prof n=%zu sig=%zu c=%u batches=%u: classify+ones %.3f | sort %.3f (hist %.3f scan %.3f scatter %.3f) | "
                "accumulate %.3f | fixup %.3f | reduce %.3f ms\n",
                n, nsig, c, cnt[0], span(6, 7, 0), sort, hist, scan, sort - hist - scan, acc, fix, span(4, 5, 0));
        destroy();
    }
    ~msm_prof()
    {
        if (on) destroy();
    }
};

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
    const uint32_t nto = (uint32_t)pl.ones_threads;
    ones_kernel<F><<<nto / EC_THREADS, EC_THREADS, 0, st>>>(m->d_ones, m->d_counters, bases, red_b);
    CUZK_LAUNCHED("ones");
    {
        uint32_t cnt = nto;
        X *src = red_b, *dst = red_a;
        while (cnt > 1) {
            uint32_t mo = (cnt + MSM_RED_FAN - 1) / MSM_RED_FAN;
            sum_kernel<F><<<ceil_div_u(mo, EC_THREADS), EC_THREADS, 0, st>>>(src, 1, cnt, dst);
            CUZK_LAUNCHED("sum");
            X *tmp = src; src = dst; dst = tmp;
            cnt = mo;
        }
        /* src[0] = ones sum; park it in the last reduction slot of red_b?
         * Simplest: copy it to host now (tiny) after the final sync. */
        if (src != red_b) CUZK_CU(cudaMemcpyAsync(red_b, src, sizeof(X), cudaMemcpyDeviceToDevice, st));
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
        const size_t ntiles = (NB + SCAN_TILE - 1) / SCAN_TILE;
        for (size_t b0 = 0; b0 < n; b0 += batch) {
            const size_t b1 = b0 + batch < n ? b0 + batch : n;
            prof.mark(st, 0);
            CUZK_CU(cudaMemsetAsync(m->d_offsets, 0, (NB + 1) * sizeof(uint32_t), st));
            digits_hist_kernel<<<grid_sc, 256, 0, st>>>(scalars, b0, b1, split, c, W, B, m->d_offsets);
            CUZK_LAUNCHED("digits_hist");
            prof.mark(st, 8);
            scan_tiles_kernel<<<(unsigned)ntiles, 256, 0, st>>>(m->d_offsets, NB, m->d_tiles);
            CUZK_LAUNCHED("scan_tiles");
            scan_sums_kernel<<<1, 1024, 0, st>>>(m->d_tiles, ntiles, m->d_offsets, NB);
            CUZK_LAUNCHED("scan_sums");
            scan_add_kernel<<<ceil_div_u(NB, 256), 256, 0, st>>>(m->d_offsets, NB, m->d_tiles, m->d_cursor);
            CUZK_LAUNCHED("scan_add");
            prof.mark(st, 9);
            /* One pass with global cursors. Measured on an H200 (2^24, 13
             * windows): 17 ms of the 19 ms sort; two-pass variants (coarse
             * bins by block, then a fine pass with global or shared-memory
             * cursors) were 17.0 and 21.6 ms, so the cost is not the write
             * locality (commit 46c4308 has those variants). */
            digits_scatter_kernel<<<grid_sc, 256, 0, st>>>(scalars, b0, b1, split, c, W, B, m->d_cursor, m->d_entries);
            CUZK_LAUNCHED("digits_scatter");
            prof.mark(st, 1);
            const uint32_t seg = msm_seg_len((nsig < b1 - b0 ? nsig : b1 - b0) * W);
            const uint32_t nseg = (uint32_t)(((b1 - b0) * W + seg - 1) / seg);
            X *head = (X *)m->d_part, *tail = head + pl.nseg_max;
            uint32_t *head_key = m->d_part_key, *tail_key = m->d_part_key + pl.nseg_max;
            accumulate_kernel<F><<<ceil_div_u(nseg, EC_THREADS), EC_THREADS, 0, st>>>(
                m->d_entries, m->d_offsets, (uint32_t)NB, nseg, seg, bases, buckets, head, head_key, tail, tail_key);
            CUZK_LAUNCHED("accumulate");
            prof.mark(st, 2);
            for (size_t d = 1; d < nseg; d *= 2) {
                const size_t nthr = (nseg + 2 * d - 1) / (2 * d);
                fixup_tree_kernel<F><<<ceil_div_u(nthr, EC_THREADS), EC_THREADS, 0, st>>>(nseg, (uint32_t)d, head, head_key);
                CUZK_LAUNCHED("fixup_tree");
            }
            fixup_kernel<F><<<ceil_div_u(nseg, EC_THREADS), EC_THREADS, 0, st>>>(nseg, seg, m->d_offsets, buckets, head, tail,
                                                                                 tail_key);
            CUZK_LAUNCHED("fixup");
            prof.mark(st, 3);
        }
        /* 4. reduce (levels, see reduce_level_kernel) */
        prof.mark(st, 4);
        const red_levels rl = red_plan(W, B, red_l0(W, B, red_seg));
        const char *red_env = getenv("CUZK_GPU_MSM_RED_INLINE"); /* tuning: 1 / 0 forces the choice */
        /* default: the inlined addition for G1 (H200 2^24: BN254 reduce 6.7 ->
         * 5.8 ms, BLS12-381 G1 -3 ms), the out-of-line one for G2 (inlining
         * it there was 2-3 % slower overall) */
        const bool red_inl = red_env ? red_env[0] == '1' : !is_fp2<F>::value;
        for (unsigned k = 0; k < rl.n; k++) {
            const X *in = k ? red_b + rl.off[k - 1] : buckets;
            const uint32_t stride = k ? rl.G[k - 1] : B;
            if (red_inl)
                reduce_level_kernel<F, true><<<ceil_div_u((size_t)W * rl.G[k], EC_THREADS), EC_THREADS, 0, st>>>(
                    in, stride, k ? 1u : 0u, rl.M[k], rl.L[k], rl.G[k], W, red_a + rl.off[k], red_b + rl.off[k]);
            else
                reduce_level_kernel<F, false><<<ceil_div_u((size_t)W * rl.G[k], EC_THREADS), EC_THREADS, 0, st>>>(
                    in, stride, k ? 1u : 0u, rl.M[k], rl.L[k], rl.G[k], W, red_a + rl.off[k], red_b + rl.off[k]);
            CUZK_LAUNCHED("reduce_level");
        }
        /* per level, the W rows of T summed (ping-pong inside the level's
         * own regions of the two buffers; the R rows are no longer needed) */
        X *lvl[24];
        for (unsigned k = 0; k < rl.n; k++) {
            uint32_t cnt = rl.G[k];
            X *src = red_a + rl.off[k], *dst = red_b + rl.off[k];
            while (cnt > 1) {
                uint32_t mo = (cnt + MSM_RED_FAN - 1) / MSM_RED_FAN;
                sum_kernel<F><<<ceil_div_u((size_t)W * mo, EC_THREADS), EC_THREADS, 0, st>>>(src, W, cnt, dst);
                CUZK_LAUNCHED("sum");
                X *tmp = src; src = dst; dst = tmp;
                cnt = mo;
            }
            lvl[k] = src;
        }
        X *wins = (X *)cuzk_alloc((size_t)W * rl.n, sizeof(X));
        if (!wins) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu msm: out of host memory");
        cudaError_t rc = cudaSuccess;
        for (unsigned k = 0; k < rl.n && rc == cudaSuccess; k++)
            rc = cudaMemcpyAsync(wins + (size_t)k * W, lvl[k], W * sizeof(X), cudaMemcpyDeviceToHost, st);
        if (rc == cudaSuccess) rc = cudaStreamSynchronize(st);
        if (rc != cudaSuccess) {
            cuzk_free(wins);
            return cuzk_err(e, CUZK_ERR_GPU, "gpu msm: %s", cudaGetErrorString(rc));
        }
        prof.mark(st, 5);
        prof.report(n, nsig, c);
        /* 5. on the host: per window S = T_0 + L_0 (T_1 + L_1 (...)), then
         * Horner over windows. */
        for (int w = (int)W - 1; w >= 0; w--) {
            for (unsigned i = 0; i < c; i++) {
                X d = total;
                xyzz_dbl(total, d);
            }
            X sw = wins[(size_t)(rl.n - 1) * W + w];
            for (int k = (int)rl.n - 2; k >= 0; k--) {
                for (unsigned i = 0; i < rl.lg[k]; i++) {
                    X d = sw;
                    xyzz_dbl(sw, d);
                }
                xyzz_add(sw, wins[(size_t)k * W + w]);
            }
            xyzz_add(total, sw);
        }
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
