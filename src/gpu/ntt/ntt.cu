/* NTT over Fr on the GPU (both curves), bit-exact with the CPU NTT.
 *
 * Algorithm: radix-2 Cooley-Tukey split into passes of s <= 10 stages
 * (lg 27 = 9+9+9). A DIT pass over stages h..h+s-1 sees the array as
 * x[hi][m][lo] (m: s bits, lo: h bits) and is
 *   x[hi][m][lo] *= w_{2^(h+s)}^(lo * bitrev_s(m))      (skipped when h = 0)
 *   then an s-stage DIT (bit-reversed in, natural out) over m, in shared memory,
 * using only the 1024th roots of unity (a 512-entry table). The DIF pass is
 * its transpose (DIF stages first, then the same diagonal twiddle), and the
 * passes run in reverse order, so
 *   DIT chain: bit-reversed in  -> natural out   ("RN")
 *   DIF chain: natural in       -> bit-reversed out ("NR").
 * Natural-order transforms add one bit-reversal pass in front of the DIT chain
 * (it also applies coset powers when needed); the Groth16 odd-coset step is a
 * DIF inverse followed by a DIT forward, with no bit reversal at all: the
 * DIF's last pass and the DIT's first (both h = 0, the same blocks) are one
 * fused pass that applies n^-1 g^i between them, so the array is read and
 * written once less. FORWARD_NR is the DIF chain alone, INVERSE_RN the DIT
 * chain alone (its last pass applies n^-1).
 *
 * Every multiplication in a pass is by a table constant, so it uses Shoup's
 * method (ntt_shoup.cuh: 208 instead of 264 IMADs per product), and the
 * values stay below 2p inside a transform (sums and differences by one
 * conditional subtraction or addition of 2p, products with no final
 * subtraction; ntt_shoup.cuh), brought below p by its last pass. The
 * inter-pass twiddle w_{2^(h+s)}^e is one product from a direct table of the
 * 2^D-th roots when the pass ends at stage h + s <= D = 18 (the first
 * boundary up to 2^27) or when every lane of the warp has an exponent that
 * is a multiple of 2^(h+s-D) (half the warps at 2^20), else x * lo * hi from
 * two windowed tables (lo = e mod 2^L, hi = e >> L). The passes are
 * launched as programmatic dependents on sm_90 (each may be placed while the
 * previous one drains; it waits for it before touching memory), which hides
 * the launch gaps that dominate 2^16..2^18 (a single cooperative launch
 * with grid barriers lost to separate passes). Each pass's stages 0 and 1
 * are one radix-4 step in registers: stage 0 has twiddle 1 and so does one
 * butterfly in two of stage 1, so the step does one product per 4 elements
 * instead of two, with one shared-memory round trip and barrier instead of
 * two. The inner twiddles are read per stage as 16-byte planes (few L1
 * wavefronts per warp) and the shared memory holds 16-byte planes. The 1/n scale is a division
 * by 2^lg (fp_div_pow2: one partial Montgomery step), not a product. The
 * bit reversal of the natural-order transforms moves 256-byte runs
 * (lg >= 6): a warp loads the 8x8 tiles of a middle index and of its reverse
 * (coalesced) and writes them back transposed, 3-bit-reversed inside;
 * smaller sizes swap pairs. A call does no field arithmetic on the host.
 * Passes with fewer blocks of 1024 elements than twice the multiprocessors
 * take narrower blocks (fewer columns).
 * What each of these choices gained on the H200 is in docs/PERFORMANCE.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/ec/curve_ops.cuh"
#include "gpu/device/gpu_common.cuh"
#include "gpu/field/gpu_field.cuh"
#include "gpu/ntt/ntt_shoup.cuh"
#include "gpu/plan/plan.h"

using namespace cuzk_gpu;

namespace {

/* NTT_INNER, NTT_STAGED and the table sizes (gpu_ntt_tables_for) are in
 * gpu/plan/plan.h. */
constexpr unsigned NTT_MAX_STAGES = 10;       /* stages per pass */

/* Launch geometry of the pass kernel: blocks of NTT_PASS_ELEMS elements,
 * NTT_PASS_THREADS threads, NTT_PASS_MINB blocks per SM (32 warps at 64
 * registers), and the first product of each x * lo * hi left unreduced
 * (NTT_LAZY): the fastest of the geometries measured on the H200
 * (docs/PERFORMANCE.md). */
constexpr unsigned NTT_PASS_ELEMS = 1024;
constexpr int NTT_PASS_THREADS = 256;
constexpr int NTT_PASS_MINB = 4;
constexpr bool NTT_LAZY = true;

/* Every scale includes n^-1 = 2^-lg (fp_div_pow2: no product). */
enum scale_mode : int {
    SCALE_NONE = 0,
    SCALE_INV_N = 1,          /* x *= n^-1 */
    SCALE_POW_FWD_REV = 2,    /* x *= n^-1 g^(bitrev_lg(pos))   (odd coset) */
    SCALE_POW_INV_NAT = 3,    /* x *= n^-1 g^(-pos)             (coset inverse) */
};

/* Montgomery-form windowed tables (the pairwise bit reversal's coset
 * powers; the source of the Shoup tables). */
template <class F> struct tw_tables {
    const F *lo;      /* 2^L */
    const F *hi;      /* 2^(T-L) */
};

/* The Shoup twiddle type of a field element type. */
template <class F> struct shoup_of;
template <class P> struct shoup_of<fp<P>> {
    typedef shoup_tw<P> type;
};
template <class F> using shoup_t = typename shoup_of<F>::type;

/* The windowed tables in Shoup form, and the inner twiddles per stage
 * (stage t, k < 2^t at index 2^t + k) as planes of 16 bytes (plane c at
 * c * 1024), so the lanes of a warp that read consecutive k read consecutive
 * 16-byte words (4 L1 wavefronts per plane instead of 20 for 80-byte
 * records). */
template <class F> struct sh_tables {
    const uint4 *staged;
    const shoup_t<F> *lo;
    const shoup_t<F> *hi;
};

template <class F> struct ntt_args {
    F *data;
    sh_tables<F> tws;         /* forward or inverse roots */
    sh_tables<F> scale_tws;   /* tables used by the scale modes */
    const shoup_t<F> *direct; /* w_{2^D}^j, j < 2^D */
    unsigned D;
    unsigned lg, h, s, lgcols, T, L;
    int scale;
    int fused;                /* host only: the DIF chain's last pass is the fused one (PASS_ODD) */
    unsigned min_blocks;      /* host only: blocks a pass should have (launch_pass) */
    int pdl;                  /* host only: launch as a programmatic dependent */
};

template <class F> __device__ __forceinline__ F ld_global(const F *p)
{
    static_assert(sizeof(F) % 16 == 0, "field element must be a multiple of 16 bytes");
    F r;
    const uint4 *src = reinterpret_cast<const uint4 *>(p);
    uint4 *dst = reinterpret_cast<uint4 *>(r.v);
CUZK_UNROLL
    for (int i = 0; i < (int)(sizeof(F) / 16); i++) dst[i] = __ldg(src + i);
    return r;
}

template <class F> __device__ __forceinline__ F ld_plain(const F *p)
{
    F r;
    const uint4 *src = reinterpret_cast<const uint4 *>(p);
    uint4 *dst = reinterpret_cast<uint4 *>(r.v);
CUZK_UNROLL
    for (int i = 0; i < (int)(sizeof(F) / 16); i++) dst[i] = src[i];
    return r;
}

template <class F> __device__ __forceinline__ void st_plain(F *p, const F &x)
{
    uint4 *dst = reinterpret_cast<uint4 *>(p);
    const uint4 *src = reinterpret_cast<const uint4 *>(x.v);
CUZK_UNROLL
    for (int i = 0; i < (int)(sizeof(F) / 16); i++) dst[i] = src[i];
}

/* w_{2^T}^e from the windowed tables. */
template <class F> __device__ __forceinline__ F pow_T(const tw_tables<F> &t, unsigned L, uint32_t e)
{
    F a = ld_global(t.lo + (e & ((1u << L) - 1)));
    F b = ld_global(t.hi + (e >> L));
    return a * b;
}

__device__ __forceinline__ uint32_t brev_bits(uint32_t x, unsigned bits)
{
    return bits == 0 ? 0 : (__brev(x) >> (32 - bits));
}

/* Shared memory holds planes of 16 bytes (plane c of element e at
 * sm4[c*E + e]): a quarter warp reads 8 consecutive elements' planes from 8
 * distinct bank groups, with a quarter of the instructions of 32-bit words. */
template <class F> __device__ __forceinline__ F sm4_ld(const uint32_t *sm, unsigned E, unsigned e)
{
    F r;
    const uint4 *s4 = reinterpret_cast<const uint4 *>(sm);
    uint4 *d = reinterpret_cast<uint4 *>(r.v);
CUZK_UNROLL
    for (int c = 0; c < F::N / 4; c++) d[c] = s4[c * E + e];
    return r;
}
template <class F> __device__ __forceinline__ void sm4_st(uint32_t *sm, unsigned E, unsigned e, const F &x)
{
    uint4 *s4 = reinterpret_cast<uint4 *>(sm);
    const uint4 *v = reinterpret_cast<const uint4 *>(x.v);
CUZK_UNROLL
    for (int c = 0; c < F::N / 4; c++) s4[c * E + e] = v[c];
}

template <class F> __device__ __forceinline__ shoup_t<F> ld_shoup(const shoup_t<F> *p)
{
    shoup_t<F> r;
    const uint4 *src = reinterpret_cast<const uint4 *>(p);
    uint4 *dst = reinterpret_cast<uint4 *>(r.v);
CUZK_UNROLL
    for (int i = 0; i < (int)(sizeof(r) / 16); i++) dst[i] = __ldg(src + i);
    return r;
}

/* Inner twiddle of stage t (w_{2^(t+1)}^k) from a staged table. */
template <class F>
__device__ __forceinline__ shoup_t<F> ld_stage_tw(const uint4 *staged, unsigned t, unsigned k)
{
    shoup_t<F> r;
    uint4 *dst = reinterpret_cast<uint4 *>(r.v);
    const uint4 *src = staged + (1u << t) + k;
CUZK_UNROLL
    for (int c = 0; c < (int)(sizeof(r) / 16); c++) dst[c] = __ldg(src + c * NTT_STAGED);
    return r;
}

/* x < 2p -> x mod p. */
template <class P> __device__ __forceinline__ void below_p(fp<P> &x) { fp_reduce_once<P>(x.v); }

/* A product whose result only feeds another Shoup product: LZ leaves it
 * unreduced (< 2^(32N), ntt_shoup.cuh), saving two
 * conditional subtractions. */
template <bool LZ, class F> __device__ __forceinline__ F smul_in(const F &x, const shoup_t<F> &t)
{
    if constexpr (LZ) return shoup_mul_lazy(x, t);
    else return shoup_mul(x, t);
}

/* x * w_{2^T}^e as x * lo[e mod 2^L] * hi[e >> L]; RED = false: the result
 * is left unreduced too (it feeds another product). */
template <bool LZ = false, bool RED = true, class F>
__device__ __forceinline__ F mul_pow_T(const F &x, const sh_tables<F> &t, unsigned L, uint32_t e)
{
    F y = smul_in<LZ>(x, ld_shoup<F>(t.lo + (e & ((1u << L) - 1))));
    if constexpr (RED) return shoup_mul(y, ld_shoup<F>(t.hi + (e >> L)));
    else return smul_in<LZ>(y, ld_shoup<F>(t.hi + (e >> L)));
}

/* Inter-pass twiddle: x * w_{2^(h+s)}^ex, one product from the direct table
 * when it covers 2^(h+s), else two from the windowed ones, except where
 * w_{2^(h+s)}^ex is a 2^D-th root (2^(h+s-D) divides ex) for every lane of
 * the warp: then it is one product from the direct table. The test is per
 * warp, so the lanes never diverge; ex = lo * bitrev(m), and a warp's lanes
 * share lo and the low bits of bitrev(m) when a block holds one or two
 * columns (2^19, 2^20: one product for half of the elements). */
template <bool LZ, class F>
__device__ __forceinline__ F interpass(const ntt_args<F> &a, const F &x, uint32_t ex, unsigned hs)
{
    if (hs <= a.D) return shoup_mul_2p(x, ld_shoup<F>(a.direct + (ex << (a.D - hs))));
    if (__all_sync(__activemask(), (ex & ((1u << (hs - a.D)) - 1)) == 0))
        return shoup_mul_2p(x, ld_shoup<F>(a.direct + (ex >> (hs - a.D))));
    const uint32_t e = ex << (a.T - hs);
    const F y = smul_in<LZ>(x, ld_shoup<F>(a.tws.lo + (e & ((1u << a.L) - 1))));
    return shoup_mul_2p(y, ld_shoup<F>(a.tws.hi + (e >> a.L)));
}

/* The scale modes; lg >= 1 (a single element is its own transform). A
 * kernel compiles only the modes its pass kind uses (scales_of): the DIF
 * pass none, the DIT pass the inverse's, the fused pass the odd coset's. */
template <bool LZ, int MODES, class F>
__device__ __forceinline__ F apply_scale(const ntt_args<F> &a, const F &x, uint32_t pos)
{
    if ((MODES & (1 << SCALE_INV_N)) && a.scale == SCALE_INV_N) return fp_div_pow2(x, a.lg);
    if ((MODES & (1 << SCALE_POW_FWD_REV)) && a.scale == SCALE_POW_FWD_REV)
        return fp_div_pow2(mul_pow_T<LZ>(x, a.scale_tws, a.L, brev_bits(pos, a.lg) << (a.T - a.lg - 1)), a.lg);
    if ((MODES & (1 << SCALE_POW_INV_NAT)) && a.scale == SCALE_POW_INV_NAT)
        return fp_div_pow2(mul_pow_T<LZ>(x, a.scale_tws, a.L, pos << (a.T - a.lg - 1)), a.lg);
    return x;
}

/* One radix-2 stage t over the block's columns: butterflies (m0, m0 + 2^t),
 * k = m0 mod 2^t, twiddle w_{2^(t+1)}^k = w_1024^(k 2^(9-t)); stage 0 has
 * twiddle 1 (no product; only run as a radix-2 stage when the pass has one
 * stage). */
template <class F, bool DIF>
__device__ __forceinline__ void radix2_stage(const uint4 *staged, uint32_t *sm, unsigned E, unsigned lgc, unsigned t)
{
    const unsigned cols = 1u << lgc;
    if (t == 0) {
        for (unsigned bi = threadIdx.x; bi < (E >> 1); bi += blockDim.x) {
            unsigned l = bi & (cols - 1), m0 = (bi >> lgc) << 1;
            unsigned e0 = (m0 << lgc) | l, e1 = e0 + cols;
            F u = sm4_ld<F>(sm, E, e0), v = sm4_ld<F>(sm, E, e1);
            sm4_st(sm, E, e0, fp_add_2p(u, v));
            sm4_st(sm, E, e1, fp_sub_2p(u, v));
        }
        return;
    }
#pragma unroll 4
    for (unsigned bi = threadIdx.x; bi < (E >> 1); bi += blockDim.x) {
        unsigned l = bi & (cols - 1), pr = bi >> lgc;
        unsigned k = pr & ((1u << t) - 1);
        unsigned m0 = ((pr >> t) << (t + 1)) | k;
        unsigned m1 = m0 + (1u << t);
        unsigned e0 = (m0 << lgc) | l, e1 = (m1 << lgc) | l;
        shoup_t<F> w = ld_stage_tw<F>(staged, t, k);
        F u = sm4_ld<F>(sm, E, e0), v = sm4_ld<F>(sm, E, e1);
        if (!DIF) {
            v = shoup_mul_2p(v, w);
            sm4_st(sm, E, e0, fp_add_2p(u, v));
            sm4_st(sm, E, e1, fp_sub_2p(u, v));
        } else {
            sm4_st(sm, E, e0, fp_add_2p(u, v));
            sm4_st(sm, E, e1, shoup_mul_2p(fp_sub_2p(u, v), w));
        }
    }
}

/* Stages 0 and 1 as one radix-4 step: each thread takes m = 4q .. 4q + 3 of
 * a column. Of stage 1's two butterflies only (4q + 1, 4q + 3) has a twiddle
 * (w_4); the other is by 1: one product per 4 elements instead of two, and
 * one shared-memory round trip and barrier instead of two. DIT: stage 0 then
 * 1; DIF: stage 1 then 0. Needs s >= 2. A quarter warp's 8 lanes hit 2 or 4
 * bank groups here (lanes 4 * 2^lgc elements apart); swizzling the layout to
 * avoid that cost more on every other access than it saved
 * (docs/PERFORMANCE.md). */
template <class F, bool DIF>
__device__ __forceinline__ void radix4_low(const uint4 *staged, uint32_t *sm, unsigned E, unsigned lgc)
{
    const unsigned cols = 1u << lgc;
    for (unsigned gi = threadIdx.x; gi < (E >> 2); gi += blockDim.x) {
        const unsigned l = gi & (cols - 1), q = gi >> lgc;
        const unsigned e0 = ((q << 2) << lgc) | l, e1 = e0 + cols, e2 = e1 + cols, e3 = e2 + cols;
        const F x0 = sm4_ld<F>(sm, E, e0), x1 = sm4_ld<F>(sm, E, e1);
        const F x2 = sm4_ld<F>(sm, E, e2), x3 = sm4_ld<F>(sm, E, e3);
        if (!DIF) {
            const F b0 = fp_add_2p(x0, x1), b2 = fp_add_2p(x2, x3);
            sm4_st(sm, E, e0, fp_add_2p(b0, b2));
            sm4_st(sm, E, e2, fp_sub_2p(b0, b2));
            const F b1 = fp_sub_2p(x0, x1), v = shoup_mul_2p(fp_sub_2p(x2, x3), ld_stage_tw<F>(staged, 1, 1));
            sm4_st(sm, E, e1, fp_add_2p(b1, v));
            sm4_st(sm, E, e3, fp_sub_2p(b1, v));
        } else {
            const F c0 = fp_add_2p(x0, x2), c1 = fp_add_2p(x1, x3);
            sm4_st(sm, E, e0, fp_add_2p(c0, c1));
            sm4_st(sm, E, e1, fp_sub_2p(c0, c1));
            const F c2 = fp_sub_2p(x0, x2), c3 = shoup_mul_2p(fp_sub_2p(x1, x3), ld_stage_tw<F>(staged, 1, 1));
            sm4_st(sm, E, e2, fp_add_2p(c2, c3));
            sm4_st(sm, E, e3, fp_sub_2p(c2, c3));
        }
    }
}

/* The s stages of a pass in shared memory (DIT: 0 .. s-1, DIF: s-1 .. 0),
 * each followed by a barrier. */
template <class F, bool DIF>
__device__ __forceinline__ void pass_stages(const uint4 *staged, uint32_t *sm, unsigned E, unsigned lgc, unsigned s)
{
    if (s == 1) {
        radix2_stage<F, DIF>(staged, sm, E, lgc, 0);
        __syncthreads();
        return;
    }
    if (!DIF) {
        radix4_low<F, false>(staged, sm, E, lgc);
        __syncthreads();
    }
    for (unsigned it = 2; it < s; it++) {
        radix2_stage<F, DIF>(staged, sm, E, lgc, DIF ? (s + 1 - it) : it);
        __syncthreads();
    }
    if (DIF) {
        radix4_low<F, true>(staged, sm, E, lgc);
        __syncthreads();
    }
}

/* One pass (see the top of the file). TPB x MINB sets the register budget,
 * 65536 / (TPB MINB) per thread: 256 x 4 (NTT_PASS_*) gives 32 warps per SM
 * at 64 registers. The fused pass (PASS_ODD, h = 0) runs the DIF stages
 * (a.tws), the scale, and the DIT stages of the next transform (a.scale_tws:
 * the odd coset's forward half) on the block it holds: the odd-coset
 * transform reads and writes the array once less. It is a kernel of its own
 * so that the plain DIF pass keeps its registers. */
enum pass_kind : int { PASS_DIT = 0, PASS_DIF = 1, PASS_ODD = 2 };

/* The scale modes a pass kind applies (ntt_run_t's chains): the DIF chain
 * scales only as the fused odd-coset pass, the DIT chain by n^-1 or the
 * coset inverse's n^-1 g^-i. */
constexpr int scales_of(int kind)
{
    return kind == PASS_DIT ? (1 << SCALE_INV_N) | (1 << SCALE_POW_INV_NAT)
                            : kind == PASS_ODD ? (1 << SCALE_POW_FWD_REV) : 0;
}

template <class F, int KIND, int TPB, int MINB, bool LZ>
__global__ void __launch_bounds__(TPB, MINB) ntt_pass_kernel(ntt_args<F> a)
{
    constexpr bool DIF = KIND != PASS_DIT, FUSED = KIND == PASS_ODD;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    /* Launched as a programmatic dependent (launch_pass): the work before
     * it in the stream is complete and visible after the wait; the next
     * pass may start its blocks as this one's leave. */
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;");
#endif
    extern __shared__ uint32_t sm[];
    const unsigned s = a.s, h = a.h, lgc = a.lgcols;
    const unsigned cols = 1u << lgc;
    const unsigned E = cols << s;
    const unsigned lo_chunks = (1u << h) >> lgc;
    const unsigned blk = blockIdx.x;
    const unsigned lo0 = (blk & (lo_chunks - 1)) << lgc;
    const size_t hi = blk >> (h - lgc);
    const size_t base = hi << (h + s);

    for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
        unsigned l = e & (cols - 1), m = e >> lgc;
        size_t pos = base + ((size_t)m << h) + lo0 + l;
        F x = ld_plain(a.data + pos);
        if (!DIF && h > 0) x = interpass<LZ>(a, x, (lo0 + l) * brev_bits(m, s), h + s);
        sm4_st(sm, E, e, x);
    }
    __syncthreads();

    if (s > 0) pass_stages<F, DIF>(a.tws.staged, sm, E, lgc, s);

    if (FUSED) {
        for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
            unsigned l = e & (cols - 1), m = e >> lgc;
            size_t pos = base + ((size_t)m << h) + lo0 + l;
            sm4_st(sm, E, e, apply_scale<LZ, scales_of(KIND)>(a, sm4_ld<F>(sm, E, e), (uint32_t)pos));
        }
        __syncthreads();
        if (s > 0) pass_stages<F, false>(a.scale_tws.staged, sm, E, lgc, s);
    }

    /* The values are below 2p (ntt_shoup.cuh) until the transform's last
     * pass, which stores them below p (a scale does that too). */
    const bool last = KIND == PASS_DIF ? h == 0 : h + s == a.lg;
    for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
        unsigned l = e & (cols - 1), m = e >> lgc;
        size_t pos = base + ((size_t)m << h) + lo0 + l;
        F x = sm4_ld<F>(sm, E, e);
        if (DIF && h > 0) x = interpass<LZ>(a, x, (lo0 + l) * brev_bits(m, s), h + s);
        if (KIND == PASS_DIT && a.scale != SCALE_NONE) x = apply_scale<LZ, scales_of(KIND)>(a, x, (uint32_t)pos);
        else if (last) below_p(x);
        st_plain(a.data + pos, x);
    }
}

/* Bit reversal by 8x8 tiles (lg >= 6). Index bits (a | mid | b), a and b
 * 3 bits each: rev(a, mid, b) = (rev3 b, rev mid, rev3 a). One warp takes a
 * middle index mid <= rev(mid): it loads the 64 elements (a, mid, b) and the
 * 64 of rev(mid) (eight 256-byte runs each), and writes element (a, mid, b)
 * from (rev3 b, rev(mid), rev3 a). Forward coset: each loaded x[i] is
 * multiplied by g^i (g = w_{2^(lg+1)}). */
constexpr unsigned BR_WARPS = 8;
template <class F>
__global__ void __launch_bounds__(BR_WARPS * 32) ntt_bitrev_tile_kernel(F *data, unsigned lg, int coset, sh_tables<F> tw,
                                                                   unsigned T, unsigned L)
{
    __shared__ F sm[BR_WARPS][128];
    const unsigned lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const unsigned mbits = lg - 6;
    const size_t nmid = (size_t)1 << mbits;
    F *buf = sm[wib];
    for (size_t mid = (size_t)blockIdx.x * BR_WARPS + wib; mid < nmid; mid += (size_t)gridDim.x * BR_WARPS) {
        const size_t rmid = brev_bits((uint32_t)mid, mbits);
        if (rmid < mid) continue;
        const unsigned ng = rmid == mid ? 1 : 2;
        for (unsigned g = 0; g < ng; g++) {
            const size_t m = g ? rmid : mid;
CUZK_UNROLL
            for (unsigned r = 0; r < 2; r++) {
                unsigned k = lane + 32 * r;
                size_t pos = ((size_t)(k >> 3) << (lg - 3)) | (m << 3) | (k & 7);
                F x = ld_plain(data + pos);
                if (coset) x = mul_pow_T(x, tw, L, (uint32_t)pos << (T - lg - 1));
                buf[64 * g + k] = x;
            }
        }
        __syncwarp();
        for (unsigned g = 0; g < ng; g++) {
            const size_t m = g ? rmid : mid;
            const unsigned src = ng == 1 ? 0 : 64 * (1 - g);
CUZK_UNROLL
            for (unsigned r = 0; r < 2; r++) {
                unsigned k = lane + 32 * r;
                unsigned a = k >> 3, b = k & 7;
                size_t pos = ((size_t)a << (lg - 3)) | (m << 3) | b;
                st_plain(data + pos, buf[src + 8 * brev_bits(b, 3) + brev_bits(a, 3)]);
            }
        }
        __syncwarp();
    }
}

/* In-place bit reversal (lg < 6); with coset scaling x'[p] = x[i] * g^i,
 * i = rev(p). */
template <class F> __global__ void ntt_bitrev_kernel(F *data, unsigned lg, int coset, tw_tables<F> tw, unsigned T, unsigned L)
{
    size_t n = (size_t)1 << lg;
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < n; p += (size_t)gridDim.x * blockDim.x) {
        uint32_t i = brev_bits((uint32_t)p, lg);
        if (p > i) continue;
        F xp = ld_plain(data + p);
        F xi = ld_plain(data + i);
        if (coset) {
            xi = xi * pow_T(tw, L, i << (T - lg - 1));
            if (p != i) xp = xp * pow_T(tw, L, (uint32_t)p << (T - lg - 1));
        }
        st_plain(data + p, xi);
        if (p != i) st_plain(data + i, xp);
    }
}

template <class P> __global__ void shoup_convert_kernel(const fp<P> *in, shoup_tw<P> *out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        out[i] = shoup_make<P>(in[i]);
}

/* Staged planes (see sh_tables) from the Shoup inner table, both directions. */
template <class P> __global__ void staged_kernel(const shoup_tw<P> *inner_fwd, const shoup_tw<P> *inner_inv, uint4 *out)
{
    constexpr unsigned PL = sizeof(shoup_tw<P>) / 16;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < 2 * NTT_STAGED; i += gridDim.x * blockDim.x) {
        const unsigned dir = i / NTT_STAGED, idx = i % NTT_STAGED;
        if (idx == 0) continue;
        const unsigned t = 31 - __clz(idx), k = idx - (1u << t);
        const uint4 *src = reinterpret_cast<const uint4 *>((dir ? inner_inv : inner_fwd) + (k << (9 - t)));
        for (unsigned c = 0; c < PL; c++) out[(dir * PL + c) * NTT_STAGED + idx] = src[c];
    }
}

/* ---- host side ---------------------------------------------------------- */

/* r as 4 little-endian u64 limbs. */
template <class P> void fr_modulus(uint64_t m[4])
{
    for (int i = 0; i < 4; i++) m[i] = (uint64_t)P::mod(2 * i) | (uint64_t)P::mod(2 * i + 1) << 32;
}

template <class P> fp<P> fr_from_u64(uint64_t v)
{
    fp<P> raw = fp_zero<P>();
    raw.v[0] = (uint32_t)v;
    raw.v[1] = (uint32_t)(v >> 32);
    return fp_to_mont(raw);
}

/* w[k] = 5^((r-1)/2^k) (the snarkjs root), Montgomery. */
template <class P> fp<P> root_of_unity(unsigned k)
{
    uint64_t e[4];
    fr_modulus<P>(e);
    e[0] -= 1; /* r - 1 (r is odd, no borrow) */
    for (unsigned i = 0; i < k; i++) {
        for (int j = 0; j < 3; j++) e[j] = (e[j] >> 1) | (e[j + 1] << 63);
        e[3] >>= 1;
    }
    return fp_pow(fr_from_u64<P>(5), e, 4);
}

template <class P> fp<P> fr_inv(const fp<P> &a)
{
    uint64_t e[4];
    fr_modulus<P>(e);
    e[0] -= 2;
    return fp_pow(a, e, 4);
}


} /* namespace */

struct cuzk_gpu_ntt {
    cuzk_curve curve;
    const cuzk_gpu_curve_ops *ops;
    int device;
    unsigned max_lg, S, T, L;
    void *d_tables;     /* fwd {inner, lo, hi}, inv {inner, lo, hi} */
    void *d_shoup;      /* the same in Shoup form */
    unsigned D;         /* direct inter-pass table: w_{2^D}^j, j < 2^D */
    void *d_direct;     /* fwd, inv; Shoup form */
    void *d_staged;     /* fwd, inv: staged planes of the inner twiddles */
    unsigned sms;       /* multiprocessors of the device */
    int pdl;            /* passes launched as programmatic dependents (sm_90+) */
};

namespace {

/* The three pass kernels (DIT, DIF, fused odd coset) of one configuration. */
template <class F, int TPB, int MINB, bool LZ> cudaError_t set_smem(int smem)
{
    cudaError_t rc = cudaFuncSetAttribute(ntt_pass_kernel<F, PASS_DIT, TPB, MINB, LZ>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (rc == cudaSuccess)
        rc = cudaFuncSetAttribute(ntt_pass_kernel<F, PASS_DIF, TPB, MINB, LZ>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (rc != cudaSuccess) return rc;
    return cudaFuncSetAttribute(ntt_pass_kernel<F, PASS_ODD, TPB, MINB, LZ>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                smem);
}

template <class P> cuzk_status ntt_build_tables(cuzk_gpu_ntt *t, cuzk_error *e)
{
    typedef fp<P> F;
    const unsigned T = t->T, L = t->L;
    const size_t nlo = (size_t)1 << L, nhi = (size_t)1 << (T - L);
    const size_t per_dir = NTT_INNER + nlo + nhi;
    F *h = (F *)cuzk_alloc(2 * per_dir, sizeof(F));
    if (!h) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu ntt: out of host memory for tables");
    for (int dir = 0; dir < 2; dir++) {
        F *inner = h + dir * per_dir, *lo = inner + NTT_INNER, *hi = lo + nlo;
        F wT = root_of_unity<P>(T);
        F w10 = root_of_unity<P>(10);
        if (dir) {
            wT = fr_inv(wT);
            w10 = fr_inv(w10);
        }
        F acc = fp_one<P>();
        for (unsigned j = 0; j < NTT_INNER; j++) { inner[j] = acc; acc = acc * w10; }
        acc = fp_one<P>();
        for (size_t j = 0; j < nlo; j++) { lo[j] = acc; acc = acc * wT; }
        F step = acc; /* wT^(2^L) */
        acc = fp_one<P>();
        for (size_t j = 0; j < nhi; j++) { hi[j] = acc; acc = acc * step; }
    }
    typedef shoup_tw<P> S;
    /* Direct table, Montgomery form on the host, converted on the device. */
    const unsigned D = t->D;
    const size_t nd = (size_t)1 << D;
    F *hd = (F *)cuzk_alloc(2 * nd, sizeof(F));
    if (!hd) {
        cuzk_free(h);
        return cuzk_err(e, CUZK_ERR_NOMEM, "gpu ntt: out of host memory for tables");
    }
    for (int dir = 0; dir < 2; dir++) {
        F wD = root_of_unity<P>(D);
        if (dir) wD = fr_inv(wD);
        F acc = fp_one<P>();
        for (size_t j = 0; j < nd; j++) {
            hd[dir * nd + j] = acc;
            acc = acc * wD;
        }
    }
    void *tmp = NULL;
    cudaError_t rc = cudaMalloc(&t->d_tables, 2 * per_dir * sizeof(F));
    if (rc == cudaSuccess) rc = cudaMemcpy(t->d_tables, h, 2 * per_dir * sizeof(F), cudaMemcpyHostToDevice);
    if (rc == cudaSuccess) rc = cudaMalloc(&t->d_shoup, 2 * per_dir * sizeof(S));
    if (rc == cudaSuccess) rc = cudaMalloc(&t->d_direct, 2 * nd * sizeof(S));
    if (rc == cudaSuccess) rc = cudaMalloc(&t->d_staged, 2 * NTT_STAGED * sizeof(S));
    if (rc == cudaSuccess) rc = cudaMalloc(&tmp, 2 * nd * sizeof(F));
    if (rc == cudaSuccess) rc = cudaMemcpy(tmp, hd, 2 * nd * sizeof(F), cudaMemcpyHostToDevice);
    if (rc == cudaSuccess) {
        shoup_convert_kernel<P><<<256, 256>>>((const F *)t->d_tables, (S *)t->d_shoup, 2 * per_dir);
        shoup_convert_kernel<P><<<1024, 256>>>((const F *)tmp, (S *)t->d_direct, 2 * nd);
        rc = cudaGetLastError();
    }
    if (rc == cudaSuccess) rc = cudaDeviceSynchronize();
    if (rc == cudaSuccess) {
        staged_kernel<P><<<8, 256>>>((const S *)t->d_shoup, (const S *)t->d_shoup + per_dir, (uint4 *)t->d_staged);
        rc = cudaGetLastError();
    }
    if (rc == cudaSuccess) rc = cudaDeviceSynchronize();
    if (tmp) cudaFree(tmp);
    cuzk_free(h);
    cuzk_free(hd);
    if (rc != cudaSuccess)
        return cuzk_err(e, CUZK_ERR_GPU, "gpu ntt: table upload: %s", cudaGetErrorString(rc));
    int sms = 0;
    rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, t->device);
    if (rc != cudaSuccess)
        return cuzk_err(e, CUZK_ERR_GPU, "gpu ntt: device attributes: %s", cudaGetErrorString(rc));
    t->sms = (unsigned)sms;
    int major = 0;
    rc = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, t->device);
    if (rc != cudaSuccess)
        return cuzk_err(e, CUZK_ERR_GPU, "gpu ntt: device attributes: %s", cudaGetErrorString(rc));
    t->pdl = major >= 9;
    rc = set_smem<F, NTT_PASS_THREADS, NTT_PASS_MINB, NTT_LAZY>((int)(NTT_PASS_ELEMS * sizeof(F)));
    if (rc != cudaSuccess)
        return cuzk_err(e, CUZK_ERR_GPU, "gpu ntt: shared memory attribute: %s", cudaGetErrorString(rc));
    return CUZK_OK;
}

template <class F> tw_tables<F> tables_of(const cuzk_gpu_ntt *t, int inverse)
{
    const size_t nlo = (size_t)1 << t->L, nhi = (size_t)1 << (t->T - t->L);
    const F *b = (const F *)t->d_tables + (inverse ? (NTT_INNER + nlo + nhi) : 0);
    tw_tables<F> r;
    r.lo = b + NTT_INNER;
    r.hi = b + NTT_INNER + nlo;
    return r;
}

template <class F> sh_tables<F> sh_tables_of(const cuzk_gpu_ntt *t, int inverse)
{
    const size_t nlo = (size_t)1 << t->L, nhi = (size_t)1 << (t->T - t->L);
    const shoup_t<F> *b = (const shoup_t<F> *)t->d_shoup + (inverse ? (NTT_INNER + nlo + nhi) : 0);
    sh_tables<F> r;
    r.lo = b + NTT_INNER;
    r.hi = b + NTT_INNER + nlo;
    r.staged = (const uint4 *)t->d_staged + (inverse ? NTT_STAGED * (sizeof(shoup_t<F>) / 16) : 0);
    return r;
}

template <class F> const shoup_t<F> *direct_of(const cuzk_gpu_ntt *t, int inverse)
{
    return (const shoup_t<F> *)t->d_direct + (inverse ? ((size_t)1 << t->D) : 0);
}

/* Split lg into passes of <= NTT_MAX_STAGES, as even as possible. */
unsigned plan_passes(unsigned lg, unsigned s[4])
{
    unsigned np = lg == 0 ? 1 : (lg + NTT_MAX_STAGES - 1) / NTT_MAX_STAGES;
    for (unsigned i = 0; i < np; i++) s[i] = lg / np + (i < lg % np ? 1 : 0);
    return np;
}

template <class F, bool DIF> cuzk_status launch_pass(ntt_args<F> a, cudaStream_t st, cuzk_error *e)
{
    unsigned E0 = 1u << a.s;
    unsigned maxcols = E0 >= NTT_PASS_ELEMS ? 1 : NTT_PASS_ELEMS / E0;
    unsigned cols = 1u << a.h < maxcols ? 1u << a.h : maxcols;
    /* small sizes: narrower blocks, so that every multiprocessor gets some */
    while (cols > 1 && ((size_t)1 << a.lg) / ((size_t)E0 * cols) < a.min_blocks) cols >>= 1;
    unsigned lgc = 0;
    while ((1u << lgc) < cols) lgc++;
    a.lgcols = lgc;
    unsigned E = E0 << lgc;
    size_t nblocks = ((size_t)1 << a.lg) / E;
    unsigned threads = E / 2 < (unsigned)NTT_PASS_THREADS ? (E / 2 < 32 ? 32 : E / 2) : (unsigned)NTT_PASS_THREADS;
    size_t smem = (size_t)E * sizeof(F);
    /* Programmatic dependent launch (sm_90+) on a created stream: the
     * pass's blocks may be placed while the previous kernel's last blocks
     * run; the kernel waits for that kernel's completion before it touches
     * memory, so the launch gap between passes is hidden, and nothing else
     * changes. The default streams get plain launches. */
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)nblocks);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = st;
    cfg.attrs = &attr;
    cfg.numAttrs = a.pdl && st != cudaStreamLegacy && st != cudaStreamPerThread && st != NULL ? 1 : 0;
    cudaError_t rc;
    if (!DIF)
        rc = cudaLaunchKernelEx(&cfg, ntt_pass_kernel<F, PASS_DIT, NTT_PASS_THREADS, NTT_PASS_MINB, NTT_LAZY>, a);
    else if (!a.fused)
        rc = cudaLaunchKernelEx(&cfg, ntt_pass_kernel<F, PASS_DIF, NTT_PASS_THREADS, NTT_PASS_MINB, NTT_LAZY>, a);
    else
        rc = cudaLaunchKernelEx(&cfg, ntt_pass_kernel<F, PASS_ODD, NTT_PASS_THREADS, NTT_PASS_MINB, NTT_LAZY>, a);
    (void)cudaGetLastError(); /* reported through rc */
    CUZK_CU(rc);
    return CUZK_OK;
}

template <class P>
cuzk_status ntt_run_t(cuzk_gpu_ntt *t, void *d_data, unsigned lg, cuzk_gpu_ntt_op op, cudaStream_t st,
                      cuzk_error *e)
{
    typedef fp<P> F;
    const bool coset = op == CUZK_GPU_NTT_COSET_FORWARD || op == CUZK_GPU_NTT_COSET_INVERSE ||
                       op == CUZK_GPU_NTT_ODD_COSET;
    if (lg > t->max_lg)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: size 2^%u exceeds the handle's 2^%u", lg, t->max_lg);
    if (coset && lg + 1 > t->T)
        return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu ntt: coset NTT of size 2^%u needs a 2^%u-th root of unity (2-adicity %u)",
                        lg, lg + 1, t->S);
    if (((uintptr_t)d_data & 15) != 0)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: data pointer must be 16-byte aligned");
    F *data = (F *)d_data;
    const size_t n = (size_t)1 << lg;

    unsigned s[4];
    const unsigned np = plan_passes(lg, s);

    ntt_args<F> a;
    a.data = data;
    a.lg = lg;
    a.T = t->T;
    a.L = t->L;
    a.D = t->D;
    a.direct = NULL;
    a.scale = SCALE_NONE;
    a.lgcols = 0;
    a.fused = 0;
    a.min_blocks = 2 * t->sms;
    a.pdl = t->pdl;

    const sh_tables<F> fwd_s = sh_tables_of<F>(t, 0), inv_s = sh_tables_of<F>(t, 1);
    const unsigned grid_br = (unsigned)((n + 255) / 256 < 65535 * 16 ? (n + 255) / 256 : 65535 * 16);

    /* A transform of one element is the identity (every scale is 1). */
    auto scale_of = [&](int scale) -> int { return lg ? scale : (int)SCALE_NONE; };

    /* DIF chain (natural in, bit-reversed out): passes in reverse order, the
     * last one (h = 0) applies the scale mode; fused: it also runs the first
     * pass of the forward DIT chain (the odd coset). */
    auto dif_chain = [&](bool inv, int scale, bool fused) -> cuzk_status {
        a.tws = inv ? inv_s : fwd_s;
        a.scale_tws = fwd_s;
        a.direct = direct_of<F>(t, inv);
        a.scale = SCALE_NONE;
        unsigned h = lg;
        for (int i = (int)np - 1; i >= 0; i--) {
            h -= s[i];
            a.h = h;
            a.s = s[i];
            if (i == 0) {
                a.scale = scale_of(scale);
                a.fused = fused;
            }
            cuzk_status rc = launch_pass<F, true>(a, st, e);
            a.fused = 0;
            if (rc) return rc;
        }
        a.scale = SCALE_NONE;
        return CUZK_OK;
    };
    /* DIT chain (bit-reversed in, natural out) from pass `first` on; the
     * last pass scales. */
    auto dit_chain = [&](bool inv, int scale, unsigned first) -> cuzk_status {
        a.tws = inv ? inv_s : fwd_s;
        a.scale_tws = inv_s;
        a.direct = direct_of<F>(t, inv);
        a.scale = SCALE_NONE;
        unsigned h = 0;
        for (unsigned i = 0; i < np; i++) {
            a.h = h;
            a.s = s[i];
            h += s[i];
            if (i < first) continue;
            if (i == np - 1) a.scale = scale_of(scale);
            cuzk_status rc = launch_pass<F, false>(a, st, e);
            if (rc) return rc;
        }
        a.scale = SCALE_NONE;
        return CUZK_OK;
    };

    switch (op) {
    case CUZK_GPU_NTT_ODD_COSET: {
        /* DIF inverse whose last pass applies n^-1 g^i and runs the first
         * pass of the DIT forward, then the rest of the DIT forward. */
        cuzk_status rc = dif_chain(true, SCALE_POW_FWD_REV, true);
        return rc ? rc : dit_chain(false, SCALE_NONE, 1);
    }
    case CUZK_GPU_NTT_FORWARD_NR:
        return dif_chain(false, SCALE_NONE, false);
    case CUZK_GPU_NTT_INVERSE_RN:
        return dit_chain(true, SCALE_INV_N, 0);
    default:
        break;
    }

    const bool inverse = op == CUZK_GPU_NTT_INVERSE || op == CUZK_GPU_NTT_COSET_INVERSE;
    /* Bit reversal (with g^i for the forward coset). */
    if (lg >= 6) {
        const size_t warps = (size_t)1 << (lg - 6);
        const size_t blocks = (warps + BR_WARPS - 1) / BR_WARPS;
        ntt_bitrev_tile_kernel<F><<<(unsigned)(blocks < 65535 * 16 ? blocks : 65535 * 16), BR_WARPS * 32, 0, st>>>(
            data, lg, op == CUZK_GPU_NTT_COSET_FORWARD, fwd_s, t->T, t->L);
        CUZK_LAUNCHED("ntt_bitrev_tile");
    } else if (lg > 0) {
        ntt_bitrev_kernel<F><<<grid_br, 256, 0, st>>>(data, lg, op == CUZK_GPU_NTT_COSET_FORWARD, tables_of<F>(t, 0),
                                                      t->T, t->L);
        CUZK_LAUNCHED("ntt_bitrev");
    }
    if (!inverse) return dit_chain(false, SCALE_NONE, 0);
    return dit_chain(true, op == CUZK_GPU_NTT_COSET_INVERSE ? SCALE_POW_INV_NAT : SCALE_INV_N, 0);
}

} /* namespace */

extern "C" cuzk_status cuzk_gpu_ntt_create(cuzk_gpu_ntt **out, cuzk_curve curve, unsigned max_lg, int device,
                                           cuzk_error *e)
{
    if (!out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: NULL output");
    *out = NULL;
    const cuzk_gpu_curve_ops *ops = cuzk_gpu_curve_ops_get(curve);
    if (!ops) return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: unknown curve %d", (int)curve);
    if (max_lg > NTT_MAX_LG) return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu ntt: sizes above 2^28 are not supported");
    CUZK_DEVICE_GUARD(device);
    cuzk_gpu_ntt *t = (cuzk_gpu_ntt *)cuzk_calloc(1, sizeof *t);
    if (!t) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu ntt: out of host memory");
    t->curve = curve;
    t->ops = ops;
    t->device = device;
    t->max_lg = max_lg;
    t->S = gpu_fr_two_adicity(curve);
    const gpu_ntt_tables tb = gpu_ntt_tables_for(t->S, max_lg);
    t->T = tb.T;
    t->L = tb.L;
    t->D = tb.D;
    cuzk_status st = ops->ntt_tables(t, e);
    if (st) {
        cuzk_gpu_ntt_destroy(t);
        return st;
    }
    *out = t;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_ntt_destroy(cuzk_gpu_ntt *t)
{
    if (!t) return;
    if (t->d_tables || t->d_shoup || t->d_direct || t->d_staged) {
        cuzk_gpu::device_guard g(t->device);
        if (t->d_staged) cudaFree(t->d_staged);
        if (t->d_tables) cudaFree(t->d_tables);
        if (t->d_shoup) cudaFree(t->d_shoup);
        if (t->d_direct) cudaFree(t->d_direct);
    }
    cuzk_free(t);
}

extern "C" cuzk_status cuzk_gpu_ntt_run(cuzk_gpu_ntt *t, void *d_data, unsigned lg, cuzk_gpu_ntt_op op,
                                        void *stream, cuzk_error *e)
{
    if (!t || !d_data) return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: NULL handle or data");
    if ((int)op < 0 || op > CUZK_GPU_NTT_INVERSE_RN) return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: bad op %d", (int)op);
    CUZK_DEVICE_GUARD(t->device);
    cudaStream_t st = (cudaStream_t)stream;
    return t->ops->ntt_run(t, d_data, lg, op, st, e);
}

/* The per-curve entry points (curve_ops.cuh), instantiated once per curve. */
template <class Fr> cuzk_status gpu_ntt_impl<Fr>::tables(cuzk_gpu_ntt *t, cuzk_error *e)
{
    static_assert(sizeof(shoup_tw<Fr>) == NTT_SHOUP_BYTES, "gpu/plan/plan.h: NTT_SHOUP_BYTES");
    return ntt_build_tables<Fr>(t, e);
}

template <class Fr>
cuzk_status gpu_ntt_impl<Fr>::run(cuzk_gpu_ntt *t, void *d_data, unsigned lg, cuzk_gpu_ntt_op op, cudaStream_t st,
                                  cuzk_error *e)
{
    return ntt_run_t<Fr>(t, d_data, lg, op, st, e);
}

template struct gpu_ntt_impl<bn254_fr_p>;
template struct gpu_ntt_impl<bls12_381_fr_p>;
