/* MSM stage 4 (see msm_impl.cuh): bucket reduction by levels of running
 * sums (reduce_level_kernel), the sum kernels and the reduction plan. */
#ifndef CUZK_GPU_MSM_REDUCE_CUH
#define CUZK_GPU_MSM_REDUCE_CUH

#include "gpu/ec/host_ec.cuh"
#include "gpu/msm/msm_defs.cuh"

namespace {

/* Bucket reduction, S = sum_{j<M} (j+1) X_j per row (window), without
 * double-and-add: thread (w, g) takes X_{gL..gL+L-1} and writes
 *   T_g = sum_i (i+1) X_{gL+i}  and  R_g = sum_i X_{gL+i}  (running sums),
 * so S = sum_g T_g + L * sum_g g R_g, and sum_g g R_g = sum_{h} (h+1) R_{h+1}
 * is the same problem on the row R_1..R_{G-1}: the next level. Levels stop
 * at G = 1; the host combines S = sum T_0 + L (sum T_1 + L (...)).
 * reduce_level_thread is thread t's part, window w's inputs gL .. min(gL +
 * L, M) - 1 at in + w * stride + off; host and device, so the host check
 * (tests/unit/host_cuda_msm_reduce.cu) runs the kernel's own code. */
template <class F, bool INL>
CUZK_HD void reduce_level_thread(uint32_t t, const xyzz<F> *in, uint32_t stride, uint32_t off, uint32_t M, uint32_t L,
                                 uint32_t G, xyzz<F> *T, xyzz<F> *R)
{
    const uint32_t w = t / G, g = t % G;
    const xyzz<F> *b = in + (size_t)w * stride + off + (size_t)g * L;
    const uint32_t cnt = L < M - g * L ? L : M - g * L;
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

template <class F, bool INL>
__global__ void __launch_bounds__(EC_THREADS) reduce_level_kernel(const xyzz<F> *in, uint32_t stride, uint32_t off,
                                                                  uint32_t M, uint32_t L, uint32_t G, uint32_t W,
                                                                  xyzz<F> *T, xyzz<F> *R)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= W * G) return;
    reduce_level_thread<F, INL>(t, in, stride, off, M, L, G, T, R);
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

/* Thread 0's acc += every other thread's, by a binary tree in shared memory
 * (sh: EC_THREADS / 2 points): log2 of the span additions in series, where
 * the threads from `active` on hold infinity. Every thread of the block (of
 * EC_THREADS) calls it with the same `active`. */
template <class F> __device__ __forceinline__ void block_sum(xyzz<F> &acc, xyzz<F> *sh, uint32_t active)
{
    static_assert((EC_THREADS & (EC_THREADS - 1)) == 0, "EC_THREADS a power of two");
    uint32_t span = 1;
    while (span < active && span < EC_THREADS) span *= 2;
    for (uint32_t h = span / 2; h > 0; h /= 2) {
        if (threadIdx.x >= h && threadIdx.x < 2 * h) sh[threadIdx.x - h] = acc;
        __syncthreads();
        if (threadIdx.x < h) {
            /* through a copy, so acc's address never reaches the
             * out-of-line addition (that keeps a variable in local memory
             * for the whole kernel: gpu_ec.cuh) */
            xyzz<F> t = acc;
            xyzz_add(t, sh[threadIdx.x]);
            acc = t;
        }
        __syncthreads();
    }
}

/* Rows to sum by sum_rows_kernel: for r < the row count, W rows at
 * row[r] + w * stride[r], of len[r] points, all of them (bit[r] = SUM_ALL)
 * or those whose index has bit bit[r] set. */
constexpr uint32_t SUM_ALL = 0xffffffffu;
struct sum_rows_args {
    const void *row[MSM_RED_LEVELS];
    uint32_t len[MSM_RED_LEVELS];
    uint32_t stride[MSM_RED_LEVELS];
    uint32_t bit[MSM_RED_LEVELS];
    uint32_t W;
};

/* One block (EC_THREADS) a row: out[r * W + w] = the sum of row (r, w),
 * strided over the threads, then block_sum. All the rows in one launch:
 * the 8-to-1 sum launches this replaces each waited on a few threads adding
 * 8 points in series (docs/PERFORMANCE.md). */
template <class F> __global__ void __launch_bounds__(EC_THREADS) sum_rows_kernel(sum_rows_args a, xyzz<F> *out)
{
    __shared__ xyzz<F> sh[EC_THREADS / 2];
    const uint32_t r = blockIdx.x / a.W, w = blockIdx.x % a.W, m = a.len[r], b = a.bit[r];
    const xyzz<F> *in = (const xyzz<F> *)a.row[r] + (size_t)w * a.stride[r];
    xyzz<F> acc;
    xyzz_set_inf(acc);
    if (b == SUM_ALL) {
        for (uint32_t i = threadIdx.x; i < m; i += EC_THREADS) xyzz_add(acc, in[i]);
    } else {
        /* the i-th index with bit b set: i's bits below b, then b, then the rest */
        const uint32_t lo = (1u << b) - 1;
        for (uint32_t i = threadIdx.x;; i += EC_THREADS) {
            const uint32_t g = ((i & ~lo) << 1) | (1u << b) | (i & lo);
            if (g >= m) break;
            xyzz_add(acc, in[g]);
        }
    }
    block_sum(acc, sh, m);
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

/* Longest row sum_rows_kernel takes: 8 points a thread in series at most
 * (longer rows are cut into pieces or shortened by sum_kernel passes first:
 * red_rows_for). */
constexpr uint32_t SUM_ROW_MAX = EC_THREADS * MSM_RED_FAN;

/* The levels of the reduction (gpu_red_levels: segments of L[k] inputs per
 * thread on level k) are planned by gpu_msm_red_plan / gpu_msm_red_l0
 * (gpu/plan/plan.h): level 0 takes L0 buckets a thread; the levels above are
 * small, so their serial chains are kept short with L = MSM_RED_UP. A
 * larger L0 gives fewer outputs, so buffers sized with red_l0's choice cover
 * the larger ones. */
typedef gpu_red_levels red_levels;

/* What runs of a plan: levels 0 .. K-1, level K-1 the first whose G is at
 * most SUM_ROW_MAX; the levels above it are replaced by nb bit sums of its R
 * row: the next level's S = sum_g g R_g = sum_(b < nb) 2^b Q_b, Q_b = the
 * sum of the R_g whose g has bit b set (g < G[K-1] <= 2^nb). One
 * sum_rows_kernel launch makes every Q_b and every level's T sum, where each
 * level above K-1 was a launch of short serial chains. A T row longer than
 * SUM_ROW_MAX is cut into pieces[k] rows of that launch (the host adds them
 * up) while the rows fit (at most MSM_RED_LEVELS and B a window), else
 * first shortened by passes[k] 8-to-1 sum_kernel launches: a piece costs
 * blocks beside the others, a pass a launch of 8 additions in series. Rows
 * read back per window: the pieces of levels 0 .. K-1 in order, then the nb
 * Q rows (rows in all). */
struct red_rows {
    unsigned K, nb, rows;
    unsigned passes[MSM_RED_LEVELS], pieces[MSM_RED_LEVELS];
};
inline red_rows red_rows_for(const red_levels &rl, uint32_t B)
{
    red_rows r;
    memset(&r, 0, sizeof r);
    r.K = rl.n;
    for (unsigned k = 0; k < rl.n; k++)
        if (rl.G[k] <= SUM_ROW_MAX) {
            r.K = k + 1;
            break;
        }
    while ((1u << r.nb) < rl.G[r.K - 1]) r.nb++;
    const unsigned cap = B < MSM_RED_LEVELS ? B : MSM_RED_LEVELS;
    r.rows = r.K + r.nb;
    for (unsigned k = 0; k < r.K; k++) {
        uint32_t cnt = rl.G[k];
        while (cnt > SUM_ROW_MAX && r.rows + (cnt - 1) / SUM_ROW_MAX > cap) {
            cnt = (cnt + MSM_RED_FAN - 1) / MSM_RED_FAN;
            r.passes[k]++;
        }
        r.pieces[k] = (cnt + SUM_ROW_MAX - 1) / SUM_ROW_MAX;
        r.rows += r.pieces[k] - 1;
    }
    return r;
}
inline unsigned red_rows_count(const red_levels &rl, uint32_t B) { return red_rows_for(rl, B).rows; }

/* Reduces the W rows of B buckets by the plan `rl` (red_rows_for); wins
 * (host, W * rows points) receives wins[r * W + w] = row r's sum of window
 * w. The buckets are free once level 0 has read them: they hold those sums
 * (rows <= B) for one read-back. Synchronises the stream unless sync is
 * false (wins is then pinned and the caller waits for an event). red_a /
 * red_b: scratch of rl.total points each. */
template <class F>
cuzk_status msm_reduce_windows(cudaStream_t st, xyzz<F> *buckets, unsigned W, uint32_t B, const red_levels &rl,
                               xyzz<F> *red_a, xyzz<F> *red_b, xyzz<F> *wins, cuzk_error *e, bool sync = true)
{
    typedef xyzz<F> X;
    const red_rows rr = red_rows_for(rl, B);
    if (rr.rows > MSM_RED_LEVELS || rr.rows > B)
        return cuzk_err(e, CUZK_ERR_INTERNAL, "gpu msm: %u reduction rows for %u buckets", rr.rows, B);
    /* the inlined addition for G1, the out-of-line one for G2 (the faster
     * of the two for each on the H200; docs/PERFORMANCE.md) */
    constexpr bool red_inl = !is_fp2<F>::value;
    for (unsigned k = 0; k < rr.K; k++) {
        const X *in = k ? red_b + rl.off[k - 1] : buckets;
        const uint32_t stride = k ? rl.G[k - 1] : B;
        if constexpr (red_inl)
            reduce_level_kernel<F, true><<<ceil_div_u((size_t)W * rl.G[k], EC_THREADS), EC_THREADS, 0, st>>>(
                in, stride, k ? 1u : 0u, rl.M[k], rl.L[k], rl.G[k], W, red_a + rl.off[k], red_b + rl.off[k]);
        else
            reduce_level_kernel<F, false><<<ceil_div_u((size_t)W * rl.G[k], EC_THREADS), EC_THREADS, 0, st>>>(
                in, stride, k ? 1u : 0u, rl.M[k], rl.L[k], rl.G[k], W, red_a + rl.off[k], red_b + rl.off[k]);
        CUZK_LAUNCHED("reduce_level");
    }
    /* the passes ping-pong inside the level's own regions of the two
     * buffers (its R row was read by the level above; level K-1's, whose R
     * row stays, has none: G[K-1] <= SUM_ROW_MAX) */
    sum_rows_args a;
    memset(&a, 0, sizeof a);
    a.W = W;
    unsigned r = 0;
    for (unsigned k = 0; k < rr.K; k++) {
        uint32_t cnt = rl.G[k];
        X *src = red_a + rl.off[k], *dst = red_b + rl.off[k];
        for (unsigned p = 0; p < rr.passes[k]; p++) {
            uint32_t mo = (cnt + MSM_RED_FAN - 1) / MSM_RED_FAN;
            sum_kernel<F><<<ceil_div_u((size_t)W * mo, EC_THREADS), EC_THREADS, 0, st>>>(src, W, cnt, dst);
            CUZK_LAUNCHED("sum");
            X *tmp = src;
            src = dst;
            dst = tmp;
            cnt = mo;
        }
        for (unsigned p = 0; p < rr.pieces[k]; p++, r++) {
            a.row[r] = src + (size_t)p * SUM_ROW_MAX;
            a.len[r] = cnt - p * SUM_ROW_MAX < SUM_ROW_MAX ? cnt - p * SUM_ROW_MAX : SUM_ROW_MAX;
            a.stride[r] = cnt;
            a.bit[r] = SUM_ALL;
        }
    }
    for (unsigned b = 0; b < rr.nb; b++, r++) {
        a.row[r] = red_b + rl.off[rr.K - 1];
        a.len[r] = a.stride[r] = rl.G[rr.K - 1];
        a.bit[r] = b;
    }
    sum_rows_kernel<F><<<W * rr.rows, EC_THREADS, 0, st>>>(a, buckets);
    CUZK_LAUNCHED("sum_rows");
    CUZK_CU(cudaMemcpyAsync(wins, buckets, (size_t)W * rr.rows * sizeof(X), cudaMemcpyDeviceToHost, st));
    if (sync) CUZK_CU(cudaStreamSynchronize(st));
    return CUZK_OK;
}

/* On the host: per window S = T_0 + L_0 (T_1 + ... + L_(K-1) (T_(K-1) +
 * L_(K-1) sum_b 2^b Q_b)) from the row sums of msm_reduce_windows (T_k the
 * sum of level k's pieces), then Horner over the windows (c doublings
 * each) into total, by the CPU's formulas (host_ec.cuh). */
template <class F>
void msm_combine_windows(xyzz<F> &total, const xyzz<F> *wins, unsigned W, unsigned c, const red_levels &rl, uint32_t B)
{
    typedef host_ec<F> H;
    const red_rows rr = red_rows_for(rl, B);
    typename H::T acc = host_of(total), sw;
    for (int w = (int)W - 1; w >= 0; w--) {
        for (unsigned i = 0; i < c; i++) H::dbl(acc);
        H::set_inf(sw);
        for (int b = (int)rr.nb - 1; b >= 0; b--) {
            H::dbl(sw);
            H::add(sw, host_of(wins[(size_t)(rr.rows - rr.nb + b) * W + w]));
        }
        unsigned r = rr.rows - rr.nb; /* one past level k's last piece */
        for (int k = (int)rr.K - 1; k >= 0; k--) {
            for (unsigned i = 0; i < rl.lg[k]; i++) H::dbl(sw);
            for (unsigned p = 0; p < rr.pieces[k]; p++) H::add(sw, host_of(wins[(size_t)--r * W + w]));
        }
        H::add(acc, sw);
    }
    total = device_of<F>(acc);
}

} /* namespace */

#endif
