/* Host check of the MSM bucket reduction (src/gpu/msm/msm_reduce.cuh), no GPU
 * needed: for BN254 G1 buckets X_j = k_j G with small random k_j, the
 * levels that red_rows_for keeps are run by reduce_level_thread (the
 * kernel's own code, both the out-of-line and the inlined-alternating
 * variant), the rows as sum_rows_kernel sums them (each level's T row, cut
 * into pieces after any 8-to-1 passes; the bit rows Q_b of the last level's
 * R row), and msm_combine_windows combines them; each window must equal
 * (sum_j (j+1) k_j) G. The windows cover one level (c = 4, 5), the bit rows
 * alone (c = 9..15), levels kept below them (c = 16), T rows in pieces
 * (c = 18) and shortened by passes first (c = 19), with level-0 segments
 * of the plan's choice and of 64.
 *
 * Compiled by nvcc (the header holds kernels) but runs on the host only:
 * CTest test host_cuda_msm_reduce, in CUDA builds (CI has nvcc, no GPU).
 * The device runs of the same code are checked against the CPU MSM by
 * test_gpu_msm. */
#include <stdio.h>

#include <vector>

#include "gpu/msm/msm_impl.cuh"
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
    for (unsigned c : {4u, 5u, 9u, 12u, 15u, 16u, 18u, 19u})
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
                const red_rows rr = red_rows_for(rl, B);
                if (rr.rows > MSM_RED_LEVELS || rr.rows > B) {
                    printf("FAIL c=%u: %u rows\n", c, rr.rows);
                    fails++;
                    continue;
                }
                /* the shapes this check is meant to reach */
                if ((c == 18 && want == 0 && !(rr.pieces[0] > 1 && rr.passes[0] == 0)) ||
                    (c == 19 && want == 0 && rr.passes[0] == 0)) {
                    printf("FAIL c=%u: level 0 has %u passes, %u pieces\n", c, rr.passes[0], rr.pieces[0]);
                    fails++;
                }
                std::vector<X> T(rl.total), R(rl.total);
                for (unsigned l = 0; l < rr.K; l++) {
                    const X *in = l ? R.data() + rl.off[l - 1] : bk.data();
                    for (uint32_t t = 0; t < W * rl.G[l]; t++) {
                        if (inl)
                            reduce_level_thread<F, true>(t, in, l ? rl.G[l - 1] : B, l ? 1 : 0, rl.M[l], rl.L[l], rl.G[l],
                                                         T.data() + rl.off[l], R.data() + rl.off[l]);
                        else
                            reduce_level_thread<F, false>(t, in, l ? rl.G[l - 1] : B, l ? 1 : 0, rl.M[l], rl.L[l],
                                                          rl.G[l], T.data() + rl.off[l], R.data() + rl.off[l]);
                    }
                }
                const uint32_t G = rl.G[rr.K - 1];
                for (unsigned w = 0; w < W; w++) {
                    /* the window's rows: level l's pieces (piece p of a row
                     * passed np times by 8-to-1 covers the T_s with s in
                     * [p, p + 1) * SUM_ROW_MAX * 8^np), then Q_b */
                    std::vector<X> rows(rr.rows);
                    unsigned r = 0;
                    for (unsigned l = 0; l < rr.K; l++) {
                        uint64_t span = SUM_ROW_MAX;
                        for (unsigned i = 0; i < rr.passes[l]; i++) span *= MSM_RED_FAN;
                        for (unsigned p = 0; p < rr.pieces[l]; p++, r++) {
                            xyzz_set_inf(rows[r]);
                            for (uint64_t s = p * span; s < (p + 1) * span && s < rl.G[l]; s++)
                                xyzz_add(rows[r], T[rl.off[l] + (size_t)w * rl.G[l] + s]);
                        }
                    }
                    for (unsigned b = 0; b < rr.nb; b++, r++) {
                        xyzz_set_inf(rows[r]);
                        for (uint32_t s = 0; s < G; s++)
                            if ((s >> b) & 1) xyzz_add(rows[r], R[rl.off[rr.K - 1] + (size_t)w * G + s]);
                    }
                    X got;
                    xyzz_set_inf(got);
                    msm_combine_windows<F>(got, rows.data(), 1, 1, rl, B);
                    uint64_t s = 0;
                    for (uint32_t j = 0; j < B; j++) s += (uint64_t)(j + 1) * k[(size_t)w * B + j];
                    checks++;
                    if (!same_point(got, mul_small(g, s))) {
                        fails++;
                        printf("FAIL c=%u want=%u inl=%d window %u (levels %u, K %u, nb %u)\n", c, want, inl, w,
                               rl.n, rr.K, rr.nb);
                    }
                }
                if (!inl)
                    printf("c=%2u L0=%2u levels=%u kept K=%u bit rows nb=%u rows=%u (level 0: %u passes, %u pieces)\n", c,
                           rl.L[0], rl.n, rr.K, rr.nb, rr.rows, rr.passes[0], rr.pieces[0]);
            }
    printf("host_cuda_msm_reduce: %d checks, %d failed\n", checks, fails);
    return fails != 0;
}
