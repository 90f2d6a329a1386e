/* MSM stage 4 (see msm_impl.cuh): bucket reduction by levels of running
 * sums (reduce_level_kernel), the sum kernels and the reduction plan. */
#ifndef CUZK_GPU_MSM_REDUCE_CUH
#define CUZK_GPU_MSM_REDUCE_CUH

#include "gpu/msm_defs.cuh"

namespace {

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


/* The levels of the reduction (gpu_red_levels: segments of L[k] inputs per
 * thread on level k) are planned by gpu_msm_red_plan / gpu_msm_red_l0
 * (gpu/plan.h): level 0 takes L0 buckets a thread; the levels above are
 * small, so their serial chains are kept short with L = MSM_RED_UP. A
 * larger L0 gives fewer outputs, so buffers sized with red_l0's choice cover
 * the larger ones. */
typedef gpu_red_levels red_levels;

/* Reduces the W rows of B buckets by the levels of `rl`; wins (host, W *
 * rl.n points) receives, per level k and window w, wins[k * W + w] = the
 * sum of that level's T row. Synchronises the stream unless sync is
 * false (wins is then pinned and the caller waits for an event). red_a / red_b:
 * scratch of rl.total points each. */
template <class F>
cuzk_status msm_reduce_windows(cudaStream_t st, const xyzz<F> *buckets, unsigned W, uint32_t B, const red_levels &rl,
                               xyzz<F> *red_a, xyzz<F> *red_b, xyzz<F> *wins, cuzk_error *e, bool sync = true)
{
    typedef xyzz<F> X;
    /* the inlined addition for G1, the out-of-line one for G2 (the faster
     * of the two for each on the H200; docs/PERFORMANCE.md) */
    constexpr bool red_inl = !is_fp2<F>::value;
    for (unsigned k = 0; k < rl.n; k++) {
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
            X *tmp = src;
            src = dst;
            dst = tmp;
            cnt = mo;
        }
        lvl[k] = src;
    }
    for (unsigned k = 0; k < rl.n; k++)
        CUZK_CU(cudaMemcpyAsync(wins + (size_t)k * W, lvl[k], W * sizeof(X), cudaMemcpyDeviceToHost, st));
    if (sync) CUZK_CU(cudaStreamSynchronize(st));
    return CUZK_OK;
}

/* On the host: per window S = T_0 + L_0 (T_1 + L_1 (...)) from the level
 * sums of msm_reduce_windows, then Horner over the windows (c doublings
 * each) into total. */
template <class F>
void msm_combine_windows(xyzz<F> &total, const xyzz<F> *wins, unsigned W, unsigned c, const red_levels &rl)
{
    typedef xyzz<F> X;
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
}

} /* namespace */

#endif
