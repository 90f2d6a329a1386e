/* Host check of the MSM bucket reduction (src/gpu/msm_reduce.cuh), no GPU
 * needed: for BN254 G1 buckets X_j = k_j G with small random k_j, the
 * levels that red_rows_for keeps are run as reduce_level_kernel runs them
 * (its loop, both the out-of-line and the inlined-alternating variant),
 * the row sums as sum_rows_kernel makes them (each level's T row; the bit
 * rows Q_b of the last level's R row), and msm_combine_windows combines
 * them; each window must equal (sum_j (j+1) k_j) G. The windows cover one
 * level (c = 4, 5), the bit rows alone (c = 9..15) and levels kept below
 * them (c = 16, 18), with level-0 segments of the plan's choice and of 64.
 *
 * Compiled by nvcc (the header holds kernels) but runs on the host only:
 * CTest test host_cuda_msm_reduce, in CUDA builds (CI has nvcc, no GPU).
 * The device runs of the same code are checked against the CPU MSM by
 * test_gpu_msm. */
#include <stdio.h>

#include <vector>

#include "gpu/msm_impl.cuh"
#include "util/rng.h"

typedef bn254_fp F;
typedef xyzz<F> X;

static bool same_point(const X &a, const X &b)
{
    if (xyzz_is_inf(a) || xyzz_is_inf(b)) return xyzz_is_inf(a) && xyzz_is_inf(b);
    return fp_eq(a.x * b.zz, b.x * a.zz) && fp_eq(a.y * b.zzz, b.y * a.zzz);
}

static X mul_small(const X &g, uint64_t k)
{
    X r;
    xyzz_set_inf(r);
    for (int i = 63; i >= 0; i--) {
        X d = r;
        xyzz_dbl(r, d);
        if ((k >> i) & 1) xyzz_add(r, g);
    }
    return r;
}

/* reduce_level_kernel's loop for every thread t < W * G */
static void level(const X *in, uint32_t stride, uint32_t off, uint32_t M, uint32_t L, uint32_t G, uint32_t W, X *T,
                  X *R, bool inl)
{
    for (uint32_t t = 0; t < W * G; t++) {
        const uint32_t w = t / G, g = t % G;
        const X *b = in + (size_t)w * stride + off + (size_t)g * L;
        const uint32_t cnt = L < M - g * L ? L : M - g * L;
        X run, sum;
        xyzz_set_inf(run);
        xyzz_set_inf(sum);
        if (inl) {
            X a = run, q = b[cnt - 1];
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
}

int main(void)
{
    fp<bn254_fp_p> one = fp_zero<bn254_fp_p>(), two = fp_zero<bn254_fp_p>();
    one.v[0] = 1;
    two.v[0] = 2;
    X g; /* (1, 2), the BN254 G1 generator */
    g.x = fp_to_mont(one);
    g.y = fp_to_mont(two);
    g.zz = fp_one<bn254_fp_p>();
    g.zzz = g.zz;
    std::vector<X> mult(64);
    xyzz_set_inf(mult[0]);
    for (int i = 1; i < 64; i++) {
        mult[i] = mult[i - 1];
        xyzz_add(mult[i], g);
    }
    uint64_t seed = 1;
    int fails = 0, checks = 0;
    const unsigned W = 2;
    for (unsigned c : {4u, 5u, 9u, 12u, 15u, 16u, 18u})
        for (uint32_t want : {0u, 64u})
            for (int inl = 0; inl < 2; inl++) {
                const uint32_t B = 1u << (c - 1);
                std::vector<X> bk((size_t)W * B);
                std::vector<uint64_t> k((size_t)W * B);
                for (size_t i = 0; i < bk.size(); i++) {
                    k[i] = cuzk_splitmix64(&seed) % 64;
                    if (cuzk_splitmix64(&seed) % 5 == 0) k[i] = 0;
                    bk[i] = mult[k[i]];
                }
                const red_levels rl = gpu_msm_red_plan(W, B, gpu_msm_red_l0(W, B, want));
                const red_rows rr = red_rows_for(rl);
                if (rr.K + rr.nb > MSM_RED_LEVELS) {
                    printf("FAIL c=%u: %u rows\n", c, rr.K + rr.nb);
                    fails++;
                    continue;
                }
                std::vector<X> T(rl.total), R(rl.total);
                for (unsigned l = 0; l < rr.K; l++) {
                    const X *in = l ? R.data() + rl.off[l - 1] : bk.data();
                    level(in, l ? rl.G[l - 1] : B, l ? 1 : 0, rl.M[l], rl.L[l], rl.G[l], W, T.data() + rl.off[l],
                          R.data() + rl.off[l], inl);
                }
                const uint32_t G = rl.G[rr.K - 1];
                for (unsigned w = 0; w < W; w++) {
                    /* the window's rows: T sums of levels < K, then Q_b */
                    std::vector<X> rows(rr.K + rr.nb);
                    for (unsigned l = 0; l < rr.K; l++) {
                        xyzz_set_inf(rows[l]);
                        for (uint32_t s = 0; s < rl.G[l]; s++) xyzz_add(rows[l], T[rl.off[l] + (size_t)w * rl.G[l] + s]);
                    }
                    for (unsigned b = 0; b < rr.nb; b++) {
                        xyzz_set_inf(rows[rr.K + b]);
                        for (uint32_t s = 0; s < G; s++)
                            if ((s >> b) & 1) xyzz_add(rows[rr.K + b], R[rl.off[rr.K - 1] + (size_t)w * G + s]);
                    }
                    X got;
                    xyzz_set_inf(got);
                    msm_combine_windows<F>(got, rows.data(), 1, 1, rl);
                    uint64_t s = 0;
                    for (uint32_t j = 0; j < B; j++) s += (uint64_t)(j + 1) * k[(size_t)w * B + j];
                    checks++;
                    if (!same_point(got, mul_small(g, s))) {
                        fails++;
                        printf("FAIL c=%u want=%u inl=%d window %u (levels %u, K %u, nb %u)\n", c, want, inl, w,
                               rl.n, rr.K, rr.nb);
                    }
                }
                if (!inl) printf("c=%2u L0=%2u levels=%u kept K=%u bit rows nb=%u\n", c, rl.L[0], rl.n, rr.K, rr.nb);
            }
    printf("host_cuda_msm_reduce: %d checks, %d failed\n", checks, fails);
    return fails != 0;
}
