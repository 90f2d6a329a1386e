/* MSM stages 2 and 3d (see msm_impl.cuh): the sum of the points whose
 * scalar is 1, and bucket accumulation of the sorted entries (XYZZ mixed
 * additions over equal segments; buckets crossing segments merged by a
 * tree and a fix-up). */
#ifndef CUZK_GPU_MSM_ACCUMULATE_CUH
#define CUZK_GPU_MSM_ACCUMULATE_CUH

#include "gpu/msm/msm_defs.cuh"
#include "gpu/msm/msm_reduce.cuh" /* sum_kernel */

namespace {

/* Blocks a SM the accumulation asks of ptxas: 3 on BLS12-381 G1 (168
 * registers and 8 bytes of spill, 12 warps a SM instead of 8; -4 % uniform
 * 2^24, -4 % the witness-like accumulation on the H200:
 * docs/PERFORMANCE.md); the other groups as ptxas chooses. */
template <class F> struct accumulate_min_blocks {
    static constexpr int value = 1;
};
template <> struct accumulate_min_blocks<bls12_381_fp> {
    static constexpr int value = 3;
};

template <class F>
__global__ void __launch_bounds__(EC_THREADS, accumulate_min_blocks<F>::value)
    accumulate_kernel(const uint32_t *entries, const uint32_t *offsets, uint32_t NB, uint32_t nseg, uint32_t seg,
                      const affine<F> *bases, xyzz<F> *buckets, xyzz<F> *head, uint32_t *head_key, xyzz<F> *tail,
                      uint32_t *tail_key)
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

/* out[t] = thread t's share of the listed points (grid stride). No tree
 * here: an out-of-line addition after the loop would keep the accumulator
 * in local memory for the whole kernel (gpu_ec.cuh), and G2's would spill
 * more; the partials are summed by msm_ones_sum's row sums. */
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

/* Entries per accumulate thread: MSM_SEG, doubled for batches of at least
 * 2^27 entries (fewer partial sums to fix up; smaller MSMs need the
 * threads). The partial-sum workspaces are sized for MSM_SEG. */
inline uint32_t msm_seg_len(size_t entries) { return entries >= ((size_t)1 << 27) ? 2 * MSM_SEG : MSM_SEG; }

/* Sum of the points listed in `ones` (count counters[0], read on the
 * device): one partial sum a thread, then two sum_rows_kernel launches
 * (each block's partials by a tree, then those block sums); the result is
 * left in red_b[0]. The grid is one wave: as many blocks as the SMs hold at
 * once, at most max_threads (the plan's ones_threads, 4 blocks a SM). Every
 * thread has the same share, so a second wave would run with most of the
 * SMs idle (BLS12-381 G1: 146 registers, 3 blocks a SM: 4 a SM took 2
 * waves' time for 1.33 waves' work). red_a / red_b: scratch of >=
 * max_threads points each. */
template <class F>
cuzk_status msm_ones_sum(cudaStream_t st, const uint32_t *ones, const uint32_t *counters, const affine<F> *bases,
                         int sm_count, uint32_t max_threads, xyzz<F> *red_a, xyzz<F> *red_b, cuzk_error *e)
{
    int occ = 0;
    CUZK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, ones_kernel<F>, EC_THREADS, 0));
    uint32_t blocks = max_threads / EC_THREADS;
    const uint32_t wave = (uint32_t)(sm_count > 0 ? sm_count : 1) * (uint32_t)(occ > 0 ? occ : 1);
    if (wave < blocks) blocks = wave;
    if (blocks == 0) blocks = 1;
    ones_kernel<F><<<blocks, EC_THREADS, 0, st>>>(ones, counters, bases, red_b);
    CUZK_LAUNCHED("ones");
    sum_rows_args a;
    memset(&a, 0, sizeof a);
    a.row[0] = red_b;
    a.len[0] = a.stride[0] = EC_THREADS;
    a.bit[0] = SUM_ALL;
    a.W = blocks;
    sum_rows_kernel<F><<<blocks, EC_THREADS, 0, st>>>(a, red_a);
    CUZK_LAUNCHED("sum_rows");
    a.row[0] = red_a;
    a.len[0] = a.stride[0] = blocks;
    a.W = 1;
    sum_rows_kernel<F><<<1, EC_THREADS, 0, st>>>(a, red_b);
    CUZK_LAUNCHED("sum_rows");
    return CUZK_OK;
}

/* Adds one sorted batch (msm_sort_batch: at most `nentries` entries for
 * the NB buckets, `sig_entries` of them expected non-empty, which sets the
 * segment length) into `buckets`. part / part_key: the partial-sum workspace, 2 x
 * nseg_max points and keys. */
template <class F>
cuzk_status msm_accumulate_batch(cudaStream_t st, const uint32_t *entries, const uint32_t *offsets, size_t NB,
                                 size_t sig_entries, size_t nentries, const affine<F> *bases, xyzz<F> *buckets, void *part,
                                 uint32_t *part_key, size_t nseg_max, int sm_count, cuzk_error *e)
{
    typedef xyzz<F> X;
    /* Every thread has the same share, so the grid should be whole waves:
     * w = the waves that segments of the base length fill completely, and
     * the segments lengthened to cover the entries in exactly w waves
     * (never shortened: the plan's nseg_max partial sums still hold). */
    uint32_t seg = msm_seg_len(sig_entries);
    int occ = 0;
    CUZK_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, accumulate_kernel<F>, EC_THREADS, 0));
    const size_t resident = (size_t)(occ > 0 ? occ : 1) * (size_t)(sm_count > 0 ? sm_count : 1) * EC_THREADS;
    const size_t waves = sig_entries / ((size_t)seg * resident);
    if (waves >= 1) seg = (uint32_t)((sig_entries + waves * resident - 1) / (waves * resident));
    const uint32_t nseg = (uint32_t)((nentries + seg - 1) / seg);
    X *head = (X *)part, *tail = head + nseg_max;
    uint32_t *head_key = part_key, *tail_key = part_key + nseg_max;
    accumulate_kernel<F><<<ceil_div_u(nseg, EC_THREADS), EC_THREADS, 0, st>>>(entries, offsets, (uint32_t)NB, nseg, seg, bases,
                                                                                buckets, head, head_key, tail, tail_key);
    CUZK_LAUNCHED("accumulate");
    for (size_t d = 1; d < nseg; d *= 2) {
        const size_t nthr = (nseg + 2 * d - 1) / (2 * d);
        fixup_tree_kernel<F><<<ceil_div_u(nthr, EC_THREADS), EC_THREADS, 0, st>>>(nseg, (uint32_t)d, head, head_key);
        CUZK_LAUNCHED("fixup_tree");
    }
    fixup_kernel<F><<<ceil_div_u(nseg, EC_THREADS), EC_THREADS, 0, st>>>(nseg, seg, offsets, buckets, head, tail, tail_key);
    CUZK_LAUNCHED("fixup");
    return CUZK_OK;
}

} /* namespace */

#endif
