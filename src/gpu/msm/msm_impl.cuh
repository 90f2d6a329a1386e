/* Multi-scalar multiplication on the GPU: G1 and G2 of BN254 and BLS12-381.
 *
 * Pipeline of one run (all on the caller's stream):
 *  1. classify: zero scalars are skipped, and so are scalars whose base is
 *     the point at infinity (resident handles: a mask of the live bases made
 *     at create, n/8 bytes; the B query of a Groth16 key is mostly
 *     infinity); with the 0/1 split, indices of scalars equal to 1 are
 *     compacted into a list (one run reserved a block's tile) and the
 *     remaining "significant" scalars are counted. One host read of that
 *     count picks the window size c for the significant scalars only.
 *  2. ones: the listed points are summed by one wave of threads (mixed XYZZ
 *     additions); their partial sums by trees in blocks, in two launches.
 *     Resident handles run it on the handle's second stream, beside 3 (the
 *     reduction, whose scratch it uses, waits for it), so the host reads
 *     the count right after classify.
 *  3. per batch of points (bounded so the sort buffer stays small; a sparse
 *     run, whose entries are those of its significant scalars only, takes
 *     one batch when they fit):
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
 *     (levels, no double-and-add) until a level has at most 1024 segments,
 *     whose weighted sum is split by the bits of the segment index; one
 *     kernel sums every row (msm_reduce.cuh).
 *  5. host: rows combined (doublings), window sums by Horner (c doublings
 *     per window) + ones.
 *
 * Streamed handles (bases over the memory budget, see msm.cu): no live
 * mask, no global classify; per chunk of points (= sort batch): uploads of the chunk's
 * bases / host scalars on a second stream into one of two buffers (events
 * order them against the compute of the chunk two before), classify + ones
 * of the chunk, sort, accumulate into the persistent buckets; the window is
 * chosen from n. The sums go to a pinned slot marked by an event (issue),
 * the host combines them later (finish): run_many overlaps that with the
 * next MSM.
 *
 * This header holds the kernels and the templated driver; msm_<curve>_<g>.cu
 * instantiate it once per group (separate translation units compile in
 * parallel) as gpu_msm_impl<F> (curve_ops.cuh), msm.cu holds the C API. */
#ifndef CUZK_GPU_MSM_IMPL_CUH
#define CUZK_GPU_MSM_IMPL_CUH

#include <pthread.h>

#include "gpu/ec/curve_ops.cuh"
#include "gpu/msm/msm_accumulate.cuh"
#include "gpu/msm/msm_defs.cuh"
#include "gpu/msm/msm_reduce.cuh"
#include "gpu/msm/msm_sort.cuh"

namespace {

/* ---- host-side planning: gpu/plan/plan.h (plain C, also in CPU-only builds) ---- */

typedef gpu_msm_layout msm_plan;

inline unsigned windows_for(unsigned bits, unsigned c) { return gpu_msm_windows(bits, c); }
inline unsigned choose_window(size_t m, unsigned bits, unsigned cmax) { return gpu_msm_choose_window(m, bits, 1, cmax); }

} /* namespace */

struct cuzk_gpu_msm {
    cuzk_curve curve;
    cuzk_gpu_group group;
    const cuzk_gpu_msm_ops *ops; /* the group's driver (curve_ops.cuh) */
    int device;
    int sm_count;
    size_t npoints;
    unsigned bits;
    cuzk_gpu_msm_config cfg;
    msm_plan plan;
    cuzk_gpu_msm_plan mem;  /* resident or streamed, chunk, resident prefix, bytes */
    size_t nbatch_max;     /* streamed: slots of d_ones_acc */
    size_t aff_size, xyzz_size;
    const void *h_bases;   /* streamed: the caller's bases (host or device) */
    int registered;        /* streamed: h_bases page-locked by create, from point reg_from on */
    size_t reg_from;
    /* streamed from host bases not page-locked: every upload goes through
     * the stager's page-locked chunks (the caller's, or own_stager) */
    cuzk_gpu_msm_stager *stager;
    int own_stager;
    int prefix_pending;    /* streamed from the host: the resident prefix not uploaded yet (the next
                              run uploads it beside its computation) */
    int prefetched;        /* the prefix's upload queued by cuzk_gpu_msm_prefetch: the next run's
                              computation waits for ev_pref */
    void *d_bases;         /* resident: all bases; streamed: the resident prefix (may be NULL) */
    uint32_t *d_live;      /* resident: bit i set when base i is not infinity (gpu_msm_live_words) */
    void *d_chunk;         /* streamed: 2 x chunk bases */
    uint64_t *d_scalars;   /* lazily allocated staging for host scalars (resident: npoints, streamed: 2 x chunk) */
    void *d_ones_acc;      /* streamed: ones partial sum per batch */
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
    /* uploads (streamed), the ones sum (resident) and read-backs (all) */
    cudaStream_t copy_st;
    cudaEvent_t ev_cls, ev_ones; /* resident: classify done; ones sum done (on copy_st) */
    cudaEvent_t ev_up[2], ev_done[2], ev_start, ev_pref;
    cudaEvent_t ev_res[2]; /* window sums of slot i on the host */
    void *h_slot[2];       /* pinned, gpu_msm_slot_points each */
    int events_made;
    unsigned last_c;
};

/* The staging chunks (include/cuzk/gpu.h): fill_st runs the fills (host
 * functions), in the order uploads were queued; chunk i is filled once
 * ev_sdma[i] (its last copy to the device) is done, and copied once
 * ev_fill[i] is. */
struct cuzk_gpu_msm_stager {
    void *chunk[2];
    size_t bytes;
    unsigned next;
    int device;
    cudaStream_t fill_st;
    cudaEvent_t ev_fill[2], ev_sdma[2];
    pthread_mutex_t mu;
    int mu_made;
};

/* One issued MSM (msm_issue_t) whose sums are on their way to h_slot[slot]:
 * msm_finish_t waits for ev_res[slot] and combines them on the host. */
struct msm_pending {
    int slot;
    bool pip;         /* Pippenger ran (some significant scalar) */
    unsigned c, W;
    red_levels rl;
    size_t nones;     /* ones partial sums after the W * red_rows_count(rl, B) row sums */
};

namespace {

/* Creates the events and pinned slots on first use (host resources only:
 * no device memory, so device_bytes is unaffected). */
inline cuzk_status msm_ensure_events(cuzk_gpu_msm *m, cuzk_error *e)
{
    if (m->events_made) return CUZK_OK;
    const size_t bytes = gpu_msm_slot_points(m->bits, m->nbatch_max) * m->xyzz_size;
    for (int i = 0; i < 2; i++) {
        CUZK_CU(cudaEventCreateWithFlags(&m->ev_up[i], cudaEventDisableTiming));
        CUZK_CU(cudaEventCreateWithFlags(&m->ev_done[i], cudaEventDisableTiming));
        CUZK_CU(cudaEventCreateWithFlags(&m->ev_res[i], cudaEventDisableTiming));
        CUZK_CU(cudaHostAlloc(&m->h_slot[i], bytes, cudaHostAllocPortable));
    }
    CUZK_CU(cudaEventCreateWithFlags(&m->ev_start, cudaEventDisableTiming));
    CUZK_CU(cudaEventCreateWithFlags(&m->ev_pref, cudaEventDisableTiming));
    CUZK_CU(cudaEventCreateWithFlags(&m->ev_cls, cudaEventDisableTiming));
    CUZK_CU(cudaEventCreateWithFlags(&m->ev_ones, cudaEventDisableTiming));
    /* non-blocking: no implicit ordering with the legacy default stream */
    CUZK_CU(cudaStreamCreateWithFlags(&m->copy_st, cudaStreamNonBlocking));
    m->events_made = 1;
    return CUZK_OK;
}

/* A chunk's fill: its bytes split over STAGE_THREADS threads (one copy
 * thread reads about 10 GB/s; the bus takes about 50). */
#define STAGE_THREADS 8
struct stage_fill {
    char *dst;
    const char *src;
    size_t bytes;
};

inline void *stage_copy_part(void *arg)
{
    const stage_fill *f = (const stage_fill *)arg;
    memcpy(f->dst, f->src, f->bytes);
    return NULL;
}

inline void CUDART_CB stage_fill_fn(void *arg)
{
    stage_fill *f = (stage_fill *)arg;
    stage_fill part[STAGE_THREADS];
    pthread_t th[STAGE_THREADS];
    bool started[STAGE_THREADS] = {false};
    const size_t per = ((f->bytes + STAGE_THREADS - 1) / STAGE_THREADS + 63) & ~(size_t)63;
    for (int t = 0; t < STAGE_THREADS; t++) {
        const size_t b = per * t < f->bytes ? per * t : f->bytes, e = per * (t + 1) < f->bytes ? per * (t + 1) : f->bytes;
        part[t].dst = f->dst + b;
        part[t].src = f->src + b;
        part[t].bytes = e - b;
        if (t > 0 && part[t].bytes) started[t] = pthread_create(&th[t], NULL, stage_copy_part, &part[t]) == 0;
    }
    for (int t = 0; t < STAGE_THREADS; t++)
        if (!started[t]) stage_copy_part(&part[t]); /* this thread's part, and any whose thread did not start */
    for (int t = 1; t < STAGE_THREADS; t++)
        if (started[t]) pthread_join(th[t], NULL);
    free(f);
}

/* bytes from host src to device dst through the stager's chunks, the DMA on
 * copy_st (its caller holds s->mu) */
inline cuzk_status stage_upload(cuzk_gpu_msm_stager *s, char *dst, const char *src, size_t bytes, cudaStream_t copy_st,
                                cuzk_error *e)
{
    for (size_t o = 0; o < bytes; o += s->bytes) {
        const size_t n = bytes - o < s->bytes ? bytes - o : s->bytes;
        const unsigned i = s->next;
        stage_fill *f = (stage_fill *)malloc(sizeof *f);
        if (!f) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu msm: out of host memory");
        f->dst = (char *)s->chunk[i];
        f->src = src + o;
        f->bytes = n;
        cudaError_t rc = cudaStreamWaitEvent(s->fill_st, s->ev_sdma[i], 0);
        if (rc == cudaSuccess) rc = cudaLaunchHostFunc(s->fill_st, stage_fill_fn, f);
        if (rc != cudaSuccess) {
            free(f);
            CUZK_CU(rc);
        }
        s->next ^= 1;
        CUZK_CU(cudaEventRecord(s->ev_fill[i], s->fill_st));
        CUZK_CU(cudaStreamWaitEvent(copy_st, s->ev_fill[i], 0));
        CUZK_CU(cudaMemcpyAsync(dst + o, s->chunk[i], n, cudaMemcpyHostToDevice, copy_st));
        CUZK_CU(cudaEventRecord(s->ev_sdma[i], copy_st));
    }
    return CUZK_OK;
}

/* Host bases [b0, b1) copied to dst on the copy stream; bellperson's
 * encoding converted where they landed (the run's per-batch uploads and
 * cuzk_gpu_msm_prefetch). Bases not page-locked go through the stager. */
inline cuzk_status msm_upload_bases(cuzk_gpu_msm *m, void *dst, size_t b0, size_t b1, cuzk_error *e)
{
    const char *src = (const char *)m->h_bases + b0 * m->aff_size;
    const size_t bytes = (b1 - b0) * m->aff_size;
    if (!m->stager) {
        CUZK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, m->copy_st));
    } else {
        pthread_mutex_lock(&m->stager->mu);
        const cuzk_status st = stage_upload(m->stager, (char *)dst, src, bytes, m->copy_st, e);
        pthread_mutex_unlock(&m->stager->mu);
        if (st != CUZK_OK) return st;
    }
    return m->cfg.bases_be ? m->ops->decode_be(dst, b1 - b0, m->copy_st, e) : CUZK_OK;
}

/* ---- precomputed bases ------------------------------------------------------ */

/* a^-1 = a^(p-2) (p - 2: the modulus limbs, 2 off the lowest; every
 * modulus here has a low limb >= 2). */
template <class P> CUZK_HD fp<P> f_inv(const fp<P> &a)
{
    fp<P> r = fp_one<P>();
    for (int i = P::N * 32 - 1; i >= 0; i--) {
        r = r * r;
        const uint32_t limb = P::mod(i / 32) - (i < 32 ? 2u : 0u);
        if ((limb >> (i % 32)) & 1) r = r * a;
    }
    return r;
}

/* (c0 + c1 u)^-1 = (c0 - c1 u) / (c0^2 + c1^2), u^2 = -1. */
template <class P> CUZK_HD fp2<P> f_inv(const fp2<P> &a)
{
    const fp<P> t = f_inv(a.c0 * a.c0 + a.c1 * a.c1);
    return {a.c0 * t, f_neg(a.c1 * t)};
}

/* 2 (X, Y, Z) in Jacobian coordinates for a = 0 (dbl-2009-l: 2M + 5S, the
 * cheapest doubling; XYZZ's dbl-2008-s-1 is 6M + 3S). Z stays non-zero:
 * the prime-order groups have no point of order 2. */
template <class F> CUZK_HD void jac_dbl_a0(jac<F> &p)
{
    const F a = f_sqr(p.x), b = f_sqr(p.y), c = f_sqr(b);
    const F d = f_dbl(f_sqr(p.x + b) - a - c);
    const F e = f_dbl(a) + a;
    const F x3 = f_sqr(e) - f_dbl(d);
    p.z = f_dbl(p.y * p.z);
    p.y = e * (d - x3) - f_dbl(f_dbl(f_dbl(c)));
    p.x = x3;
}

/* Copies 1..t-1 of the bases i0 + k step (k < K, i < n) of `bases` (copy j
 * of base i at bases[i + j n] = 2^(j shift) bases[i]): per base one
 * doubling chain in Jacobian coordinates, whose X, Y are parked in the
 * output slots; then ONE inversion for the Zs of all K (t - 1) copies
 * (Montgomery's trick: zs[q] = Z of copy q, pf[q] = the product of the Zs
 * before it, both at stride ss, q = k (t - 1) + j - 1), so its ~N * 48
 * products are shared by K (t - 1) copies; then x = X / Z^2, y = Y / Z^3.
 * Infinity stays infinity (its copies are written at once and take no
 * part in the product). */
template <class F>
CUZK_HD void pre_copies(affine<F> *bases, size_t n, size_t i0, size_t step, unsigned K, unsigned t, unsigned shift,
                        F *zs, F *pf, size_t ss)
{
    F acc = f_traits<F>::one();
    for (unsigned k = 0; k < K; k++) {
        const size_t i = i0 + (size_t)k * step;
        if (i >= n) break;
        const affine<F> p = bases[i];
        affine<F> *out = bases + i;
        if (aff_is_inf(p)) {
            for (unsigned j = 1; j < t; j++) out[(size_t)j * n] = p;
            continue;
        }
        jac<F> q = {p.x, p.y, f_traits<F>::one()};
        size_t qi = (size_t)k * (t - 1) * ss;
        for (unsigned j = 1; j < t; j++, qi += ss) {
            for (unsigned d = 0; d < shift; d++) jac_dbl_a0(q);
            out[(size_t)j * n] = affine<F>{q.x, q.y};
            zs[qi] = q.z;
            pf[qi] = acc;
            acc = acc * q.z;
        }
    }
    F inv = f_inv(acc); /* 1 / (all Zs); acc = 1 when every base is infinity */
    for (unsigned k = K; k-- > 0;) {
        const size_t i = i0 + (size_t)k * step;
        if (i >= n || aff_is_inf(bases[i])) continue;
        affine<F> *out = bases + i;
        size_t qi = ((size_t)k * (t - 1) + (t - 2)) * ss;
        for (unsigned j = t - 1; j >= 1; j--, qi -= ss) {
            const F zi = inv * pf[qi]; /* 1 / Z of this copy */
            inv = inv * zs[qi];        /* 1 / (the Zs before it) */
            const F zi2 = f_sqr(zi);
            affine<F> r = out[(size_t)j * n];
            r.x = r.x * zi2;
            r.y = r.y * (zi2 * zi);
            out[(size_t)j * n] = r;
        }
    }
}

/* nthr threads, each with its scratch columns (2 K (t - 1) elements at
 * stride nthr), K bases at a time (i0 + k nthr: adjacent threads touch
 * adjacent bases) by grid stride. */
template <class F>
CUZK_DEV void precompute_body(affine<F> *bases, size_t n, unsigned t, unsigned shift, unsigned K, F *scratch,
                              size_t nthr)
{
    const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= nthr) return;
    F *zs = scratch + tid, *pf = scratch + (size_t)K * (t - 1) * nthr + tid;
    for (size_t i0 = tid; i0 < n; i0 += nthr * K) pre_copies(bases, n, i0, nthr, K, t, shift, zs, pf, nthr);
}

template <class F>
__global__ void __launch_bounds__(EC_THREADS)
    precompute_kernel(affine<F> *bases, size_t n, unsigned t, unsigned shift, unsigned K, F *scratch, size_t nthr)
{
    precompute_body(bases, n, t, shift, K, scratch, nthr);
}

/* BLS12-381 G1 bounded to 4 blocks a SM (128 registers): unbounded it
 * needs 134, which fits 3; capped it spills 32 bytes and runs 9.5 %
 * faster. The other groups keep the compiler's choice (BN254 G1 fits 4
 * unbounded; G2, at 222-255 registers, 2). */
template <class F>
__global__ void __launch_bounds__(EC_THREADS, 4)
    precompute_kernel4(affine<F> *bases, size_t n, unsigned t, unsigned shift, unsigned K, F *scratch, size_t nthr)
{
    precompute_body(bases, n, t, shift, K, scratch, nthr);
}

/* The creation kernel of F (only that one is instantiated). */
template <class F> struct pre_bounded {
    static constexpr bool value = false;
};
template <> struct pre_bounded<bls12_381_fp> {
    static constexpr bool value = true;
};
template <class F> auto pre_kernel()
{
    if constexpr (pre_bounded<F>::value) return &precompute_kernel4<F>;
    else return &precompute_kernel<F>;
}

/* Bases a thread shares one inversion among: the inversion costs ~N * 48
 * products against ~7 shift + 7 a copy, so 16 (t - 1) >= 100 copies make it
 * a few per cent; fewer where the scratch buffer holds fewer. */
static const unsigned PRE_K_MAX = 16;

/* Bases in bellperson's uncompressed encoding (zcash's: each coordinate a
 * big-endian standard-form integer, G2's c1 before c0, flags in the top
 * three bits of the first byte: 0x40 the point at infinity) -> our affine
 * form (little-endian Montgomery limbs, c0 before c1, infinity (0, 0)), in
 * place, one point a thread. The sizes match (96 / 192 bytes for
 * BLS12-381), so an uploaded range is converted where it landed. */
template <class P> __device__ fp<P> be_coord(const uint32_t *w, bool flags)
{
    fp<P> r;
CUZK_UNROLL
    for (int i = 0; i < P::N; i++) r.v[i] = __byte_perm(w[P::N - 1 - i], 0, 0x0123);
    if (flags) r.v[P::N - 1] &= 0x1fffffffu; /* the flag bits of the first byte */
    return fp_to_mont(r);
}
template <class P> __device__ void be_field(const uint32_t *w, bool flags, fp<P> &out) { out = be_coord<P>(w, flags); }
template <class P> __device__ void be_field(const uint32_t *w, bool flags, fp2<P> &out)
{
    out.c1 = be_coord<P>(w, flags);
    out.c0 = be_coord<P>(w + P::N, false);
}

template <class F> __global__ void decode_be_kernel(affine<F> *pts, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    constexpr int W = (int)(sizeof(affine<F>) / 4), H = W / 2;
    uint32_t w[W];
    const uint4 *src = (const uint4 *)(pts + i);
CUZK_UNROLL
    for (int k = 0; k < W / 4; k++) {
        const uint4 v = src[k];
        w[4 * k] = v.x, w[4 * k + 1] = v.y, w[4 * k + 2] = v.z, w[4 * k + 3] = v.w;
    }
    affine<F> out;
    if (w[0] & 0x40u) { /* the point at infinity */
        out.x = f_traits<F>::zero();
        out.y = f_traits<F>::zero();
    } else {
        be_field(w, true, out.x);
        be_field(w + H, false, out.y);
    }
    pts[i] = out;
}

template <class F> cuzk_status msm_decode_be_t(void *d_bases, size_t n, cudaStream_t st, cuzk_error *e)
{
    if (n == 0) return CUZK_OK;
    decode_be_kernel<F><<<(unsigned)((n + 127) / 128), 128, 0, st>>>((affine<F> *)d_bases, n);
    CUZK_CU(cudaGetLastError());
    return CUZK_OK;
}

/* The copies at create; the scratch is the pairs buffer (sized by the plan
 * for 2 (t - 1) elements a thread at pre_threads threads), free until the
 * first run. One wave of threads, as many as are resident at once (with
 * more blocks than fit, a second, partial wave takes as long as the first:
 * every thread has the same work), each K bases at a time, K as large as
 * the buffer holds (up to PRE_K_MAX) and balanced so the last round is not
 * a sliver. */
template <class F> cuzk_status msm_precompute_t(cuzk_gpu_msm *m, cuzk_error *e)
{
    const msm_plan &pl = m->plan;
    if (pl.pre_t < 2) return CUZK_OK;
    const auto kern = pre_kernel<F>();
    int occ = 0;
    CUZK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, EC_THREADS, 0));
    size_t nthr = (size_t)(occ > 0 ? occ : 1) * (size_t)m->sm_count * EC_THREADS;
    if (nthr > pl.pre_threads) nthr = pl.pre_threads;
    const size_t per_k = 2 * (size_t)(pl.pre_t - 1) * nthr * (m->xyzz_size / 4);
    size_t kcap = gpu_msm_pairs_bytes(&pl, m->xyzz_size) / per_k; /* >= 1: the plan holds K = 1 at pre_threads */
    if (kcap > PRE_K_MAX) kcap = PRE_K_MAX;
    if (kcap < 1) kcap = 1;
    const size_t per_thr = (m->npoints + nthr - 1) / nthr, rounds = (per_thr + kcap - 1) / kcap;
    const unsigned K = (unsigned)((per_thr + rounds - 1) / rounds);
    /* legacy stream, after create's synchronous copy of the bases */
    kern<<<ceil_div_u(nthr, EC_THREADS), EC_THREADS>>>(
        (affine<F> *)m->d_bases, m->npoints, pl.pre_t, pl.cmax * pl.pre_wg, K, (F *)m->d_pairs, nthr);
    CUZK_LAUNCHED("precompute");
    CUZK_CU(cudaStreamSynchronize(0));
    return CUZK_OK;
}

/* Queues one MSM on `st` up to the read-back of its window sums into
 * h_slot[slot] (event ev_res[slot]); the host waits only for the count of
 * significant scalars (resident handles, window choice). */
template <class F>
cuzk_status msm_issue_t(cuzk_gpu_msm *m, const uint64_t *scalars, size_t n, int on_dev, cudaStream_t st, int slot,
                        msm_pending *pd, cuzk_error *e)
{
    typedef xyzz<F> X;
    const msm_plan &pl = m->plan;
    const int split = !m->cfg.no_split_ones;
    const bool streamed = m->mem.streamed != 0;
    const size_t aff = m->aff_size;
    X *buckets = (X *)m->d_buckets;
    X *red_a = (X *)m->d_red_a, *red_b = (X *)m->d_red_b;
    const unsigned grid_sc = (unsigned)(m->sm_count * 8);
    /* the sort's second pairs set, where the plan has one (sort_split) */
    uint2 *pairs2 = pl.sort_split ? m->d_pairs + pl.cap_entries : nullptr;
    X *hs = (X *)m->h_slot[slot];
    pd->slot = slot;
    pd->pip = false;
    pd->c = pd->W = 0;
    pd->nones = 0;

    if (!streamed) {
        /* ---- resident: all bases on the device, scalars staged whole ---- */
        const affine<F> *bases = (const affine<F> *)m->d_bases;
        if (!on_dev) {
            if (!m->d_scalars) CUZK_CU(cudaMalloc(&m->d_scalars, m->npoints * 32));
            CUZK_CU(cudaMemcpyAsync(m->d_scalars, scalars, n * 32, cudaMemcpyDefault, st));
            scalars = m->d_scalars;
        }
        /* 1. classify */
        CUZK_CU(cudaMemsetAsync(m->d_counters, 0, 4 * sizeof(uint32_t), st));
        cuzk_status rc = msm_classify(st, scalars, n, split, m->d_live, m->d_ones, m->d_counters, m->sm_count, e);
        if (rc != CUZK_OK) return rc;
        /* 2. ones on copy_st after classify (always launched: it reads the
         * count on the device); its sum is left in red_b[0] */
        CUZK_CU(cudaEventRecord(m->ev_cls, st));
        CUZK_CU(cudaStreamWaitEvent(m->copy_st, m->ev_cls, 0));
        cuzk_status ro = msm_ones_sum<F>(m->copy_st, m->d_ones, m->d_counters, bases, m->sm_count,
                                         (uint32_t)pl.ones_threads, red_a, red_b, e);
        if (ro != CUZK_OK) return ro;
        uint32_t counts[2];
        CUZK_CU(cudaMemcpyAsync(counts, m->d_counters, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost, st));
        CUZK_CU(cudaStreamSynchronize(st));
        const size_t nsig = counts[1];
        if (nsig > 0) {
            int use_pre = pl.pre_t > 1;
            const unsigned c = m->cfg.window_bits ? pl.cmax : gpu_msm_run_window(&pl, m->bits, nsig, &use_pre);
            const bool pre = use_pre != 0;
            const unsigned W = windows_for(m->bits, c);
            const unsigned Wg = pre ? pl.pre_wg : W; /* bucket sets */
            const uint32_t B = 1u << (c - 1);
            const size_t NB = (size_t)Wg * B;
            /* Two-pass placement for dense scalars (with precomputed
             * bases the coarse bins are split again: msm_sort_batch) */
            const bool dense = 2 * nsig >= n;
            /* a batch's entries: W a point for the window-major digits of
             * the two-pass sort, W a significant scalar for the scatter */
            const bool scatter = m->cfg.sort == CUZK_GPU_MSM_SORT_SCATTER || (m->cfg.sort == CUZK_GPU_MSM_SORT_AUTO && !dense);
            size_t batch = pl.cap_entries / W;
            if (scatter && nsig * W <= pl.cap_entries) batch = n;
            if (batch > n) batch = n;
            CUZK_CU(cudaMemsetAsync(buckets, 0, NB * sizeof(X), st)); /* ZZ = 0: infinity */
            for (size_t b0 = 0; b0 < n; b0 += batch) {
                const size_t b1 = b0 + batch < n ? b0 + batch : n;
                cuzk_status rs = msm_sort_batch(st, scalars, b0, b1, split, m->d_live, m->bits, c, W, Wg, m->npoints, dense, m->cfg.sort,
                                                grid_sc, m->d_offsets, m->d_tiles, m->d_cursor, m->d_entries, m->d_pairs,
                                                pairs2, m->d_gcur, e);
                if (rs != CUZK_OK) return rs;
                /* at most W entries for each of the batch's significant scalars */
                const size_t ne = (nsig < b1 - b0 ? nsig : b1 - b0) * W;
                rs = msm_accumulate_batch<F>(st, m->d_entries, m->d_offsets, NB, ne, ne, bases, buckets, m->d_part,
                                             m->d_part_key, pl.nseg_max, m->sm_count, e);
                if (rs != CUZK_OK) return rs;
            }
            pd->pip = true;
            pd->c = c;
            pd->W = Wg; /* windows to reduce and combine: the bucket sets */
            pd->rl = gpu_msm_red_plan(Wg, B, gpu_msm_red_l0(Wg, B, 0));
        }
        /* the ones sum follows the row sums in the slot; the reduction and
         * the next run wait for it (they reuse red_a / red_b, d_ones) */
        pd->nones = 1;
        const size_t at = pd->pip ? (size_t)pd->W * red_rows_count(pd->rl, 1u << (pd->c - 1)) : 0;
        CUZK_CU(cudaMemcpyAsync(hs + at, red_b, sizeof(X), cudaMemcpyDeviceToHost, m->copy_st));
        CUZK_CU(cudaEventRecord(m->ev_ones, m->copy_st));
        CUZK_CU(cudaStreamWaitEvent(st, m->ev_ones, 0));
    } else {
        /* ---- streamed: batches = chunks; bases of the resident prefix are
         * used in place, the others and host scalars are uploaded into two
         * chunk buffers on copy_st (chunk k+1 while chunk k is computed) ---- */
        const size_t chunk = m->mem.chunk_points;
        const size_t res = m->mem.resident_points;
        const unsigned c = m->cfg.window_bits ? pl.cmax : choose_window(n, m->bits, pl.cmax);
        const unsigned W = windows_for(m->bits, c);
        const uint32_t B = 1u << (c - 1);
        const size_t NB = (size_t)W * B;
        size_t step = pl.cap_entries / W;
        if (step > chunk) step = chunk;
        if (step == 0) step = 1;
        if (!on_dev && !m->d_scalars) CUZK_CU(cudaMalloc(&m->d_scalars, 2 * chunk * 32));
        if (m->prefetched) { /* the prefix queued by cuzk_gpu_msm_prefetch */
            CUZK_CU(cudaStreamWaitEvent(st, m->ev_pref, 0));
            m->prefetched = 0;
        }
        CUZK_CU(cudaMemsetAsync(buckets, 0, NB * sizeof(X), st));
        /* batch k = [b0, b1): resident range [0, min(res, n)) then [res, n) */
        const size_t rend = res < n ? res : n;
        const size_t nrest = n > rend ? (n - rend + step - 1) / step : 0;
        /* the resident prefix's first run uploads it, batch by batch, into its place */
        const bool pre = m->prefix_pending != 0;
        /* A prefix this run uploads starts with graduated batches, 1/16,
         * 1/8, 1/4 and 1/2 of a step, then whole steps: the computation
         * waits for 1/16 of a step's upload instead of a whole one (2^27 G1
         * on an H100: 1.5 GiB, 41 ms before H's MSM), and each upload stays
         * shorter than the computation of the batch before it (a G1 batch
         * computes about 2.3x as long as it uploads). Only where the planned
         * batch slots hold the extra four. */
        unsigned grad = pre && rend >= 2 * step && step >= 256 ? 4u : 0u;
        auto pstart = [&](size_t k) -> size_t {
            const size_t g0 = step >> grad;
            return k <= grad ? g0 * (((size_t)1 << k) - 1) : g0 * (((size_t)1 << grad) - 1) + (k - grad) * step;
        };
        size_t nres = grad ? grad + (rend - pstart(grad) + step - 1) / step : (rend + step - 1) / step;
        if (grad && nres + nrest > m->nbatch_max) {
            grad = 0;
            nres = (rend + step - 1) / step;
        }
        const size_t nb = nres + nrest;
        if (nb > m->nbatch_max) return cuzk_err(e, CUZK_ERR_GPU, "gpu msm: %zu batches > %zu planned", nb, m->nbatch_max);
        auto range = [&](size_t k, size_t *b0, size_t *b1) {
            if (k < nres) {
                *b0 = pstart(k);
                *b1 = pstart(k + 1) < rend ? pstart(k + 1) : rend;
            } else {
                *b0 = rend + (k - nres) * step;
                *b1 = *b0 + step < n ? *b0 + step : n;
            }
        };
        /* queues the uploads of batch k into buffer k & 1 once batch k - 2
         * (the buffer's last user) is done */
        auto upload = [&](size_t k) -> cuzk_status {
            size_t b0, b1;
            range(k, &b0, &b1);
            const int s = (int)(k & 1);
            const bool up_p = pre && b0 < res, up_b = b0 >= res, up_s = !on_dev;
            if (!up_p && !up_b && !up_s) return CUZK_OK;
            CUZK_CU(cudaStreamWaitEvent(m->copy_st, m->ev_done[s], 0));
            if (up_p || up_b) {
                char *dst = up_p ? (char *)m->d_bases + b0 * aff : (char *)m->d_chunk + (size_t)s * chunk * aff;
                cuzk_status rd = msm_upload_bases(m, dst, b0, b1, e);
                if (rd != CUZK_OK) return rd;
            }
            if (up_s)
                CUZK_CU(cudaMemcpyAsync(m->d_scalars + (size_t)s * chunk * 4, scalars + b0 * 4, (b1 - b0) * 32,
                                        cudaMemcpyDefault, m->copy_st));
            CUZK_CU(cudaEventRecord(m->ev_up[s], m->copy_st));
            return CUZK_OK;
        };
        if (nb > 0) {
            cuzk_status ru = upload(0);
            if (ru != CUZK_OK) return ru;
        }
        for (size_t k = 0; k < nb; k++) {
            if (k + 1 < nb) {
                cuzk_status ru = upload(k + 1);
                if (ru != CUZK_OK) return ru;
            }
            size_t b0, b1;
            range(k, &b0, &b1);
            const int s = (int)(k & 1);
            const bool up_b = b0 >= res, up_s = !on_dev;
            if (up_b || up_s || (pre && b0 < res)) CUZK_CU(cudaStreamWaitEvent(st, m->ev_up[s], 0));
            /* this batch's bases / scalars at their true start, and shifted
             * by -b0 so global indices b0 .. b1 address them (the sort and
             * accumulate kernels use global point indices) */
            const char *bp = up_b ? (const char *)m->d_chunk + (size_t)s * chunk * aff : (const char *)m->d_bases + b0 * aff;
            const uint64_t *sp = up_s ? m->d_scalars + (size_t)s * chunk * 4 : scalars + b0 * 4;
            const affine<F> *bases_g = (const affine<F> *)(uintptr_t)((uintptr_t)bp - b0 * aff);
            const uint64_t *sc_g = (const uint64_t *)(uintptr_t)((uintptr_t)sp - b0 * 32);
            /* classify and ones of this batch (indices relative to b0) */
            CUZK_CU(cudaMemsetAsync(m->d_counters, 0, 4 * sizeof(uint32_t), st));
            cuzk_status rc = msm_classify(st, sp, b1 - b0, split, nullptr, m->d_ones, m->d_counters, m->sm_count, e);
            if (rc != CUZK_OK) return rc;
            cuzk_status ro = msm_ones_sum<F>(st, m->d_ones, m->d_counters, (const affine<F> *)bp, m->sm_count,
                                             (uint32_t)pl.ones_threads, red_a, red_b, e);
            if (ro != CUZK_OK) return ro;
            CUZK_CU(cudaMemcpyAsync((X *)m->d_ones_acc + k, red_b, sizeof(X), cudaMemcpyDeviceToDevice, st));
            /* the dense-scalar sort path (the count of significant
             * scalars is not read back in streamed runs) */
            cuzk_status rs = msm_sort_batch(st, sc_g, b0, b1, split, nullptr, m->bits, c, W, W, 0, true, m->cfg.sort, grid_sc, m->d_offsets,
                                            m->d_tiles, m->d_cursor, m->d_entries, m->d_pairs, nullptr, m->d_gcur, e);
            if (rs != CUZK_OK) return rs;
            rs = msm_accumulate_batch<F>(st, m->d_entries, m->d_offsets, NB, (b1 - b0) * W, (b1 - b0) * W, bases_g, buckets,
                                         m->d_part, m->d_part_key, pl.nseg_max, m->sm_count, e);
            if (rs != CUZK_OK) return rs;
            CUZK_CU(cudaEventRecord(m->ev_done[s], st));
        }
        if (pre && rend == res) m->prefix_pending = 0; /* all of it queued; later runs (after finish) use it */
        pd->pip = true;
        pd->c = c;
        pd->W = W;
        pd->rl = gpu_msm_red_plan(W, B, gpu_msm_red_l0(W, B, 0));
        pd->nones = nb;
        if (nb)
            CUZK_CU(cudaMemcpyAsync(hs + (size_t)W * red_rows_count(pd->rl, B), m->d_ones_acc, nb * sizeof(X), cudaMemcpyDeviceToHost, st));
    }
    if (pd->pip) {
        /* 4. reduce (levels, see reduce_level_kernel): per window and level,
         * the level sums go to the host slot */
        cuzk_status rr = msm_reduce_windows<F>(st, buckets, pd->W, 1u << (pd->c - 1), pd->rl, red_a, red_b, hs, e, false);
        if (rr != CUZK_OK) return rr;
    }
    CUZK_CU(cudaEventRecord(m->ev_res[slot], st));
    m->last_c = pd->c;
    return CUZK_OK;
}

/* Waits for the sums of an issued MSM and combines them on the host:
 * level sums per window, Horner over the windows (c doublings each), the
 * ones partial sums (the CPU's formulas, host_ec.cuh). */
template <class F> cuzk_status msm_finish_t(cuzk_gpu_msm *m, const msm_pending *pd, void *result, cuzk_error *e)
{
    typedef xyzz<F> X;
    CUZK_CU(cudaEventSynchronize(m->ev_res[pd->slot]));
    const X *hs = (const X *)m->h_slot[pd->slot];
    X total;
    xyzz_set_inf(total);
    size_t at = 0;
    if (pd->pip) {
        msm_combine_windows<F>(total, hs, pd->W, pd->c, pd->rl, 1u << (pd->c - 1));
        at = (size_t)pd->W * red_rows_count(pd->rl, 1u << (pd->c - 1));
    }
    if (pd->nones) {
        typedef host_ec<F> H;
        typename H::T acc = host_of(total);
        for (size_t i = 0; i < pd->nones; i++) H::add(acc, host_of(hs[at + i]));
        total = device_of<F>(acc);
    }
    jac<F> out;
    xyzz_to_jac(out, total);
    memcpy(result, &out, sizeof out);
    return CUZK_OK;
}

} /* namespace */

/* The per-group entry points (curve_ops.cuh), instantiated once per curve and
 * group in msm_<curve>_<g1|g2>.cu. */
template <class F>
cuzk_status gpu_msm_impl<F>::issue(cuzk_gpu_msm *m, const uint64_t *scalars, size_t n, int on_dev, cudaStream_t st,
                                   int slot, msm_pending *pd, cuzk_error *e)
{
    return msm_issue_t<F>(m, scalars, n, on_dev, st, slot, pd, e);
}

template <class F> cuzk_status gpu_msm_impl<F>::finish(cuzk_gpu_msm *m, const msm_pending *pd, void *result, cuzk_error *e)
{
    return msm_finish_t<F>(m, pd, result, e);
}

template <class F> cuzk_status gpu_msm_impl<F>::precompute(cuzk_gpu_msm *m, cuzk_error *e)
{
    return msm_precompute_t<F>(m, e);
}

template <class F> cuzk_status gpu_msm_impl<F>::decode_be(void *d_bases, size_t n, cudaStream_t st, cuzk_error *e)
{
    return msm_decode_be_t<F>(d_bases, n, st, e);
}

#endif