/* MSM stage 3d, batch-affine variant (CUZK_GPU_MSM_ACC=affine): a drop-in
 * for msm_accumulate_batch with the same inputs (sorted entries = point
 * index | sign << 31, bucket offsets, resident affine bases) and the same
 * effect (the batch is added into the persistent XYZZ buckets).
 *
 * Why: an affine addition sharing its inversion with many others (Montgomery
 * batch inversion) costs ~6-7 multiplications instead of the 10 of an XYZZ
 * mixed addition.
 *
 * How (per group of windows, so the scratch stays bounded):
 *   round r: bucket i holds L_i affine points (round 0: its sorted entries);
 *     count:  L == 1: the point is mixed-added into the XYZZ bucket (once per
 *             bucket and batch); L >= 2: ceil(L/2) outputs; exclusive scan of
 *             the output counts -> output offsets;
 *     prod:   thread t takes outputs o = j * nthr + t (j < K; consecutive
 *             threads read consecutive pairs), output i of a bucket is pair
 *             (2i, 2i+1) (a lone last point is copied), and stores the
 *             running products of the K denominators;
 *     inv:    one thread per AFF_INV_GROUP thread products: their product,
 *             one Fermat inversion, and back-propagation to the inverse of
 *             each thread product (every lane inverts: the inversion is
 *             latency-, not issue-bound);
 *     apply:  back-propagation inside the thread (1/den_j), the affine sums.
 *   The rounds stop when every bucket holds <= 1 point (ceil(log2(max L))
 *   rounds, the maximum read once per batch): a skewed bucket takes more
 *   rounds, not a serial fix-up.
 * Exceptional pairs are exact: infinity (0, 0) passes the other point, equal
 * points double (den 2y, num 3x^2), opposite points give infinity; their
 * denominator in the product chain is 1 unless they double.
 *
 * Scratch (aff_layout): two ping-pong point arrays (round outputs shrink to
 * <= 2/3 of the inputs: ceil(L/2) <= 2L/3 for L >= 2), the running products
 * (one field element per pair), the inversion products, two offset arrays and
 * scan tiles, sized from the plan (aff_plan_of). */
#ifndef CUZK_GPU_MSM_AFFINE_CUH
#define CUZK_GPU_MSM_AFFINE_CUH

#include "cuzk/gpu.h"
#include "gpu/msm_defs.cuh"
#include "gpu/msm_sort.cuh" /* scan kernels */

namespace {

/* Pairs per thread (register pressure: the running products stay in the
 * pre array, the pair is reloaded in apply). */
template <class F> struct aff_k {
    static constexpr int K = 8;
};
template <class P> struct aff_k<fp2<P>> {
    static constexpr int K = 4;
};
constexpr int AFF_KMIN = 4;
constexpr unsigned AFF_THREADS = 128;
constexpr unsigned AFF_MAXW = 64; /* windows at c = 4: ceil(256 / 4) */

/* ---- plan and scratch layout ------------------------------------------- */

struct aff_plan {
    size_t group;   /* windows per group; 0: affine accumulation off */
    size_t entries; /* entries per group, at most */
    size_t nb;      /* buckets per group, at most */
};

struct aff_layout {
    size_t pts_a, pts_b, npre, nqpre, noff; /* element counts */
    size_t o_a, o_b, o_pre, o_qpre, o_off0, o_off1, o_tiles, o_maxl, total; /* byte offsets, size */
};

inline size_t aff_align(size_t x) { return (x + 255) & ~(size_t)255; }

inline aff_layout aff_layout_of(const aff_plan &p, size_t aff)
{
    aff_layout l;
    const size_t fsz = aff / 2;
    l.pts_a = 2 * p.entries / 3 + 1;
    l.pts_b = 2 * l.pts_a / 3 + 1;
    l.npre = l.pts_a + 16; /* K * ceil(out / K) <= out + K - 1 */
    l.nqpre = l.pts_a / AFF_KMIN + 2;
    l.noff = p.nb + 1;
    const size_t ntiles = (p.nb + SCAN_TILE - 1) / SCAN_TILE + 1;
    size_t o = 0;
    l.o_a = o;
    o += aff_align(l.pts_a * aff);
    l.o_b = o;
    o += aff_align(l.pts_b * aff);
    l.o_pre = o;
    o += aff_align(l.npre * fsz);
    l.o_qpre = o;
    o += aff_align(l.nqpre * fsz);
    l.o_off0 = o;
    o += aff_align(l.noff * 4);
    l.o_off1 = o;
    o += aff_align(l.noff * 4);
    l.o_tiles = o;
    o += aff_align(ntiles * 4);
    l.o_maxl = o;
    o += aff_align(AFF_MAXW * 4);
    l.total = o;
    return l;
}

/* Accumulation mode: CUZK_GPU_MSM_ACC=xyzz|affine, else the per-group
 * default: XYZZ for all four groups. H200, 2^24 uniform, median of 5 (ms,
 * XYZZ -> affine with 2 windows per group): BN254 G1 77.5 -> 100.2, BLS G1
 * 170.7 -> 181.7, BN254 G2 201.4 -> 253.9, BLS G2 438.9 -> 468.4; witness-like
 * 4-9x slower (the round grids are sized by bounds, not by the entries). All
 * 13 windows in one group: BLS G1 160.6 ms, but 38 GB of device memory. The
 * rounds re-read every pair (prod and apply) and each round waits for the
 * inversion kernel's serial Fermat chain (perf-logs/h200-gpu-msm-affine-*). */
inline bool msm_acc_affine(cuzk_curve curve, cuzk_gpu_group group)
{
    const char *v = getenv("CUZK_GPU_MSM_ACC");
    if (v && strcmp(v, "affine") == 0) return true;
    if (v && strcmp(v, "xyzz") == 0) return false;
    (void)curve;
    (void)group;
    return false;
}

/* Windows per group: CUZK_GPU_MSM_AFF_GROUP (1..64), default 2. More windows
 * per group: fewer, larger rounds (the inversions' latency is shared), more
 * scratch. */
inline aff_plan aff_plan_of(cuzk_curve curve, cuzk_gpu_group group, unsigned Wmax, unsigned cmax, size_t batch)
{
    aff_plan p = {0, 0, 0};
    if (!msm_acc_affine(curve, group)) return p;
    const char *v = getenv("CUZK_GPU_MSM_AFF_GROUP");
    long g = v ? strtol(v, NULL, 10) : 2;
    if (g < 1) g = 1;
    if (g > (long)AFF_MAXW) g = AFF_MAXW;
    /* group buckets g * 2^(c-1) and entries g * batch are largest at cmax
     * (smaller windows get smaller batches, msm_run_t) */
    p.group = (size_t)g;
    (void)Wmax;
    p.entries = p.group * batch;
    p.nb = p.group << (cmax - 1);
    return p;
}

/* ---- device helpers ----------------------------------------------------- */

/* a^(p-2) (Fermat), a != 0. By value (no address of a live value escapes). */
template <class P> __device__ __noinline__ fp<P> aff_inv_fp(fp<P> a)
{
    fp<P> r = fp_one<P>();
    for (int i = P::N - 1; i >= 0; i--) {
        const uint32_t e = P::mod(i) - (i == 0 ? 2u : 0u); /* p odd, > 2: no borrow */
        for (int b = 31; b >= 0; b--) {
            r = r * r;
            if ((e >> b) & 1) r = r * a;
        }
    }
    return r;
}
template <class P> __device__ __forceinline__ fp<P> aff_inv(const fp<P> &a) { return aff_inv_fp(a); }
/* Fp2 = Fp[u]/(u^2 + 1): 1/(a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2). */
template <class P> __device__ __forceinline__ fp2<P> aff_inv(const fp2<P> &a)
{
    fp<P> ni = aff_inv_fp(a.c0 * a.c0 + a.c1 * a.c1);
    return {a.c0 * ni, fp_neg(a.c1 * ni)};
}

enum { AK_P = 0, AK_Q, AK_INF, AK_ADD, AK_DBL };

/* Kind of the pair (p, q) (q absent: hasq false) and its denominator (1
 * unless it adds or doubles). */
template <class F> __device__ __forceinline__ int aff_kind(const affine<F> &p, const affine<F> &q, bool hasq, F &den)
{
    den = f_traits<F>::one();
    if (!hasq || aff_is_inf(q)) return AK_P;
    if (aff_is_inf(p)) return AK_Q;
    if (!f_eq(p.x, q.x)) {
        den = q.x - p.x;
        return AK_ADD;
    }
    if (f_eq(p.y, q.y)) {
        den = f_dbl(p.y);
        return AK_DBL;
    }
    return AK_INF;
}

/* Point i of a round's input: round 0 reads a sorted entry (sign applied),
 * later rounds the previous round's output. */
template <class F, bool FIRST>
__device__ __forceinline__ affine<F> aff_load(const uint32_t *entries, const affine<F> *src, const affine<F> *bases, uint32_t i)
{
    if (FIRST) {
        const uint32_t ent = entries[i];
        affine<F> p = load_affine(bases + (ent & 0x7fffffffu));
        p.y = f_cneg(p.y, (ent >> 31) != 0);
        return p;
    }
    return load_affine(src + i);
}

/* k with off[k] <= o < off[k + 1] (off[0] = 0 <= o < off[nb]). */
__device__ __forceinline__ uint32_t aff_find(const uint32_t *off, uint32_t nb, uint32_t o)
{
    uint32_t lo = 0, hi = nb;
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) >> 1;
        if (__ldg(off + mid) <= o) lo = mid; else hi = mid;
    }
    return lo;
}

/* Output o's pair: input positions a, a + 1 (hasq: a + 1 in the bucket). */
__device__ __forceinline__ uint32_t aff_pair_of(const uint32_t *in_off, const uint32_t *out_off, uint32_t nb, uint32_t o,
                                                bool &hasq)
{
    const uint32_t k = aff_find(out_off, nb, o);
    const uint32_t a = __ldg(in_off + k) + 2 * (o - __ldg(out_off + k));
    hasq = a + 1 < __ldg(in_off + k + 1);
    return a;
}

/* ---- kernels ------------------------------------------------------------ */

/* Per bucket: L == 1 -> mixed addition into the XYZZ bucket; output count. */
template <class F, bool FIRST>
__global__ void __launch_bounds__(EC_THREADS) aff_count_kernel(const uint32_t *in_off, uint32_t nb, const uint32_t *entries,
                                                               const affine<F> *src, const affine<F> *bases, xyzz<F> *buckets,
                                                               uint32_t *cnt)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nb) return;
    const uint32_t s = in_off[i], L = in_off[i + 1] - s;
    if (L == 1) {
        xyzz<F> b = buckets[i];
        xyzz_add_affine(b, aff_load<F, FIRST>(entries, src, bases, s), false);
        buckets[i] = b;
    }
    cnt[i] = L >= 2 ? (L + 1) / 2 : 0;
}

/* Largest bucket per window (> 1 only), warp-reduced before the atomics. */
__global__ void aff_maxl_kernel(const uint32_t *off, uint32_t NB, uint32_t B, uint32_t *maxl)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t w = i < NB ? i / B : 0xffffffffu;
    const uint32_t L = i < NB ? off[i + 1] - off[i] : 0;
    const uint32_t w0 = __shfl_sync(0xffffffffu, w, 0);
    if (__all_sync(0xffffffffu, w == w0 || w == 0xffffffffu)) {
        const uint32_t m = __reduce_max_sync(0xffffffffu, L);
        if ((threadIdx.x & 31) == 0 && m > 1) atomicMax(maxl + w0, m);
    } else if (L > 1) {
        atomicMax(maxl + w, L);
    }
}

template <class F, bool FIRST>
__global__ void __launch_bounds__(AFF_THREADS) aff_prod_kernel(const uint32_t *in_off, const uint32_t *out_off, uint32_t nb,
                                                               const uint32_t *entries, const affine<F> *src,
                                                               const affine<F> *bases, F *pre, uint32_t nthr)
{
    constexpr int K = aff_k<F>::K;
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthr) return;
    const uint32_t total = out_off[nb];
    F acc = f_traits<F>::one();
    bool first = true;
    for (int j = 0; j < K; j++) {
        const uint32_t o = (uint32_t)j * nthr + t;
        if (o < total) {
            bool hasq;
            const uint32_t a = aff_pair_of(in_off, out_off, nb, o, hasq);
            const affine<F> p = aff_load<F, FIRST>(entries, src, bases, a);
            const affine<F> q = hasq ? aff_load<F, FIRST>(entries, src, bases, a + 1) : p;
            F den;
            if (aff_kind(p, q, hasq, den) >= AK_ADD) {
                acc = first ? den : acc * den;
                first = false;
            }
        }
        pre[(size_t)j * nthr + t] = acc;
    }
}

/* Thread s inverts the product of the thread products s + m * S (m < G,
 * S = number of inverting threads) and writes each one's inverse over it
 * (slot K-1 of pre, which apply reads first). */
template <class F>
__global__ void __launch_bounds__(EC_THREADS) aff_inv_kernel(F *pre, uint32_t nthr, F *qpre, uint32_t S, uint32_t G)
{
    constexpr int K = aff_k<F>::K;
    const uint32_t s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= S) return;
    F *q = pre + (size_t)(K - 1) * nthr;
    F acc = f_traits<F>::one();
    uint32_t m = 0;
    for (; m < G && s + m * S < nthr; m++) {
        const uint32_t i = s + m * S;
        acc = m ? acc * q[i] : q[i];
        qpre[i] = acc;
    }
    F inv = aff_inv(acc);
    while (m-- > 0) {
        const uint32_t i = s + m * S;
        const F qi = q[i];
        q[i] = m ? inv * qpre[i - S] : inv;
        if (m) inv = inv * qi;
    }
}

template <class F, bool FIRST>
__global__ void __launch_bounds__(AFF_THREADS) aff_apply_kernel(const uint32_t *in_off, const uint32_t *out_off, uint32_t nb,
                                                                const uint32_t *entries, const affine<F> *src,
                                                                const affine<F> *bases, const F *pre, uint32_t nthr,
                                                                affine<F> *dst)
{
    constexpr int K = aff_k<F>::K;
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nthr) return;
    const uint32_t total = out_off[nb];
    /* inv = 1 / (den_0 ... den_j) while walking j down */
    F inv = pre[(size_t)(K - 1) * nthr + t];
    for (int j = K - 1; j >= 0; j--) {
        const uint32_t o = (uint32_t)j * nthr + t;
        if (o >= total) continue; /* its denominator was 1 */
        bool hasq;
        const uint32_t a = aff_pair_of(in_off, out_off, nb, o, hasq);
        const affine<F> p = aff_load<F, FIRST>(entries, src, bases, a);
        const affine<F> q = hasq ? aff_load<F, FIRST>(entries, src, bases, a + 1) : p;
        F den;
        const int kind = aff_kind(p, q, hasq, den);
        affine<F> r;
        if (kind >= AK_ADD) {
            /* pre[j-1] = den_0 ... den_(j-1) (1 where none) */
            const F dinv = j > 0 ? inv * pre[(size_t)(j - 1) * nthr + t] : inv;
            inv = inv * den;
            F num;
            if (kind == AK_ADD) {
                num = q.y - p.y;
            } else {
                const F xx = f_sqr(p.x);
                num = f_dbl(xx) + xx;
            }
            const F lam = num * dinv;
            r.x = f_sqr(lam) - p.x - q.x;
            r.y = lam * (p.x - r.x) - p.y;
        } else if (kind == AK_P) {
            r = p;
        } else if (kind == AK_Q) {
            r = q;
        } else {
            r.x = f_traits<F>::zero();
            r.y = f_traits<F>::zero();
        }
        dst[o] = r;
    }
}

/* ---- host driver -------------------------------------------------------- */

inline unsigned aff_ceil_log2(uint32_t x)
{
    unsigned r = 0;
    while (r < 32 && ((uint64_t)1 << r) < x) r++;
    return r;
}

inline uint32_t aff_inv_group()
{
    const char *v = getenv("CUZK_GPU_MSM_AFF_INVG");
    long g = v ? strtol(v, NULL, 10) : 0;
    return g >= 1 && g <= 4096 ? (uint32_t)g : 64;
}

/* Adds one sorted batch (W windows of B buckets, entries at offsets[]; at
 * most batch_pts entries per window) into `buckets`, windows in groups of
 * ap.group. `scratch`: aff_layout_of(ap, sizeof(affine<F>)).total bytes. */
template <class F>
cuzk_status msm_accumulate_affine_batch(cudaStream_t st, const uint32_t *entries, const uint32_t *offsets, unsigned W, uint32_t B,
                                        size_t batch_pts, const affine<F> *bases, xyzz<F> *buckets, const aff_plan &ap,
                                        void *scratch, msm_prof &prof, cuzk_error *e)
{
    typedef affine<F> A;
    constexpr int K = aff_k<F>::K;
    const aff_layout l = aff_layout_of(ap, sizeof(A));
    char *base = (char *)scratch;
    A *pts[2] = {(A *)(base + l.o_a), (A *)(base + l.o_b)};
    F *pre = (F *)(base + l.o_pre), *qpre = (F *)(base + l.o_qpre);
    uint32_t *offb[2] = {(uint32_t *)(base + l.o_off0), (uint32_t *)(base + l.o_off1)};
    uint32_t *tiles = (uint32_t *)(base + l.o_tiles), *d_maxl = (uint32_t *)(base + l.o_maxl);
    const size_t NB = (size_t)W * B;
    if (W > AFF_MAXW) return cuzk_err(e, CUZK_ERR_INTERNAL, "gpu msm affine: %u windows", W);
    if (ap.group == 0 || (size_t)B * (ap.group < W ? ap.group : W) > ap.nb || batch_pts * ap.group > ap.entries)
        return cuzk_err(e, CUZK_ERR_INTERNAL, "gpu msm affine: batch larger than the plan");

    /* rounds per window: ceil(log2(largest bucket)) */
    uint32_t maxl[AFF_MAXW];
    CUZK_CU(cudaMemsetAsync(d_maxl, 0, W * sizeof(uint32_t), st));
    aff_maxl_kernel<<<ceil_div_u(NB, 256), 256, 0, st>>>(offsets, (uint32_t)NB, B, d_maxl);
    CUZK_LAUNCHED("aff_maxl");
    CUZK_CU(cudaMemcpyAsync(maxl, d_maxl, W * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
    CUZK_CU(cudaStreamSynchronize(st));
    const uint32_t G = aff_inv_group();

    for (unsigned w0 = 0; w0 < W; w0 += (unsigned)ap.group) {
        const unsigned w1 = w0 + (unsigned)ap.group < W ? w0 + (unsigned)ap.group : W;
        unsigned R = 0;
        for (unsigned w = w0; w < w1; w++) {
            unsigned r = aff_ceil_log2(maxl[w]);
            if (r > R) R = r;
        }
        const uint32_t nb = (uint32_t)((w1 - w0) * B);
        xyzz<F> *bk = buckets + (size_t)w0 * B;
        const uint32_t *in_off = offsets + (size_t)w0 * B;
        const A *src = NULL;
        size_t in_bound = (w1 - w0) * batch_pts;
        const size_t ntiles = (nb + SCAN_TILE - 1) / SCAN_TILE;
        for (unsigned r = 0;; r++) {
            uint32_t *out_off = offb[r & 1];
            if (r == 0)
                aff_count_kernel<F, true><<<ceil_div_u(nb, EC_THREADS), EC_THREADS, 0, st>>>(in_off, nb, entries, src, bases,
                                                                                              bk, out_off);
            else
                aff_count_kernel<F, false><<<ceil_div_u(nb, EC_THREADS), EC_THREADS, 0, st>>>(in_off, nb, entries, src, bases,
                                                                                               bk, out_off);
            CUZK_LAUNCHED("aff_count");
            if (r == R) break;
            scan_tiles_kernel<<<(unsigned)ntiles, 256, 0, st>>>(out_off, nb, tiles);
            CUZK_LAUNCHED("scan_tiles");
            scan_sums_kernel<<<1, 1024, 0, st>>>(tiles, ntiles, out_off, nb);
            CUZK_LAUNCHED("scan_sums");
            scan_add_kernel<<<ceil_div_u(nb, 256), 256, 0, st>>>(out_off, nb, tiles, out_off);
            CUZK_LAUNCHED("scan_add");
            const size_t out_bound = 2 * in_bound / 3;
            const uint32_t nthr = out_bound >= (size_t)K ? (uint32_t)((out_bound + K - 1) / K) : 1u;
            A *dst = pts[r & 1];
            if ((size_t)nthr * K > l.npre || nthr > l.nqpre || out_bound > (r & 1 ? l.pts_b : l.pts_a))
                return cuzk_err(e, CUZK_ERR_INTERNAL, "gpu msm affine: scratch too small");
            const unsigned gb = ceil_div_u(nthr, AFF_THREADS);
            if (r == 0)
                aff_prod_kernel<F, true><<<gb, AFF_THREADS, 0, st>>>(in_off, out_off, nb, entries, src, bases, pre, nthr);
            else
                aff_prod_kernel<F, false><<<gb, AFF_THREADS, 0, st>>>(in_off, out_off, nb, entries, src, bases, pre, nthr);
            CUZK_LAUNCHED("aff_prod");
            const uint32_t S = (nthr + G - 1) / G;
            aff_inv_kernel<F><<<ceil_div_u(S, EC_THREADS), EC_THREADS, 0, st>>>(pre, nthr, qpre, S, G);
            CUZK_LAUNCHED("aff_inv");
            if (r == 0)
                aff_apply_kernel<F, true><<<gb, AFF_THREADS, 0, st>>>(in_off, out_off, nb, entries, src, bases, pre, nthr, dst);
            else
                aff_apply_kernel<F, false><<<gb, AFF_THREADS, 0, st>>>(in_off, out_off, nb, entries, src, bases, pre, nthr, dst);
            CUZK_LAUNCHED("aff_apply");
            in_off = out_off;
            src = dst;
            in_bound = out_bound;
        }
    }
    prof.mark(st, 2);
    return CUZK_OK;
}

} /* namespace */

#endif
