/* Host check of the MSM bucket-reduction plan (gpu_msm_red_plan, gpu/plan.c) and the
 * level combination of msm_run_t: the reduce_level_kernel loop (both the
 * out-of-line and the inlined-alternating variant) is emulated on the CPU
 * for BN254 G1 buckets k_j G, and each window's result is compared with
 * (sum_j (j+1) k_j) G. No GPU needed (tuning aid for changes to the plan).
 *
 * build: nvcc -O2 -std=c++17 --expt-relaxed-constexpr -arch=sm_90 -Iinclude -Isrc \
 *            tools/gpu_msm_reduce_check.cu src/gpu/plan.c src/util/common.c -o /tmp/reduce_check && /tmp/reduce_check */
#include "gpu/msm_impl.cuh"
#include <vector>
using F = bn254_fp;
typedef xyzz<F> X;
static bool eqp(const X &a, const X &b)
{
    if (xyzz_is_inf(a) || xyzz_is_inf(b)) return xyzz_is_inf(a) && xyzz_is_inf(b);
    return fp_eq(a.x * b.zz, b.x * a.zz) && fp_eq(a.y * b.zzz, b.y * a.zzz);
}
static X mulG(const X &G, uint64_t k)
{
    X r; xyzz_set_inf(r);
    for (int i = 63; i >= 0; i--) { X d = r; xyzz_dbl(r, d); if ((k >> i) & 1) xyzz_add(r, G); }
    return r;
}
static void level(const X *in, uint32_t stride, uint32_t off, uint32_t M, uint32_t L, uint32_t G, uint32_t W, X *T, X *R, bool inl)
{
    for (uint32_t t = 0; t < W * G; t++) {
        const uint32_t w = t / G, g = t % G;
        const X *b = in + (size_t)w * stride + off + (size_t)g * L;
        const uint32_t cnt = std::min(L, M - g * L);
        X run, sum; xyzz_set_inf(run); xyzz_set_inf(sum);
        if (inl) {
            X a = run, q = b[cnt - 1];
            for (uint32_t s = 0; s < 2 * cnt; s++) {
                xyzz_add_inl(a, q);
                if ((s & 1) == 0) { run = a; q = a; a = sum; }
                else { sum = a; a = run; if (s + 1 < 2 * cnt) q = b[cnt - 2 - s / 2]; }
            }
        } else {
            for (int j = (int)cnt - 1; j >= 0; j--) { xyzz_add(run, b[j]); xyzz_add(sum, run); }
        }
        T[t] = sum; R[t] = run;
    }
}
int main()
{
    fp<bn254_fp_p> one, two; for (int i = 0; i < 8; i++) { one.v[i] = i == 0; two.v[i] = i == 0 ? 2 : 0; }
    X G; G.x = fp_to_mont(one); G.y = fp_to_mont(two); G.zz = fp_one<bn254_fp_p>(); G.zzz = G.zz;
    std::vector<X> mult(64); xyzz_set_inf(mult[0]); for (int i = 1; i < 64; i++) { mult[i] = mult[i - 1]; xyzz_add(mult[i], G); }
    uint64_t seed = 1; int fails = 0, checks = 0;
    for (unsigned c : {4u, 5u, 9u, 12u, 15u}) for (uint32_t want : {0u, 64u}) for (int inl = 0; inl < 2; inl++) {
        const uint32_t B = 1u << (c - 1); const unsigned W = 3;
        std::vector<X> bk((size_t)W * B); std::vector<uint64_t> k((size_t)W * B);
        for (size_t i = 0; i < bk.size(); i++) { seed = seed * 6364136223846793005ULL + 1442695040888963407ULL; k[i] = (seed >> 33) % 64; if ((seed >> 20) % 5 == 0) k[i] = 0; bk[i] = mult[k[i]]; }
        const red_levels rl = gpu_msm_red_plan(W, B, gpu_msm_red_l0(W, B, want));
        std::vector<X> A(rl.total), Rb(rl.total);
        for (unsigned l = 0; l < rl.n; l++) {
            const X *in = l ? Rb.data() + rl.off[l - 1] : bk.data();
            level(in, l ? rl.G[l - 1] : B, l ? 1 : 0, rl.M[l], rl.L[l], rl.G[l], W, A.data() + rl.off[l], Rb.data() + rl.off[l], inl);
        }
        for (unsigned w = 0; w < W; w++) {
            std::vector<X> tsum(rl.n);
            for (unsigned l = 0; l < rl.n; l++) { xyzz_set_inf(tsum[l]); for (uint32_t g = 0; g < rl.G[l]; g++) xyzz_add(tsum[l], A[rl.off[l] + (size_t)w * rl.G[l] + g]); }
            X sw = tsum[rl.n - 1];
            for (int l = (int)rl.n - 2; l >= 0; l--) { for (unsigned i = 0; i < rl.lg[l]; i++) { X d = sw; xyzz_dbl(sw, d); } xyzz_add(sw, tsum[l]); }
            uint64_t s = 0; for (uint32_t j = 0; j < B; j++) s += (uint64_t)(j + 1) * k[(size_t)w * B + j];
            checks++;
            if (!eqp(sw, mulG(G, s))) { fails++; printf("FAIL c=%u want=%u inl=%d w=%u levels=%u\n", c, want, inl, w, rl.n); }
        }
        printf("c=%u L0=%u levels=%u:", c, rl.L[0], rl.n); for (unsigned l = 0; l < rl.n; l++) printf(" (M%u L%u G%u)", rl.M[l], rl.L[l], rl.G[l]); printf(" inl=%d\n", inl);
    }
    printf("%d checks, %d failed\n", checks, fails);
    return fails != 0;
}
