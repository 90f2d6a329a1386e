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
 * DIF inverse (whose last pass applies n^-1 g^i) followed by a DIT forward,
 * with no bit reversal at all.
 *
 * Inter-pass twiddles w_{2^T}^e (e < 2^T) come from two windowed tables
 * (lo = e mod 2^L, hi = e >> L): one lookup pair and one multiplication. */
#include <stdlib.h>

#include "gpu/gpu_common.cuh"
#include "gpu/gpu_field.cuh"

using namespace cuzk_gpu;

namespace {

constexpr unsigned NTT_MAX_STAGES = 10;       /* stages per pass */
constexpr unsigned NTT_BLOCK_ELEMS = 2048;    /* elements per block (64 KiB) */
constexpr unsigned NTT_INNER = 512;           /* w_1024^j, j < 512 */

enum scale_mode : int {
    SCALE_NONE = 0,
    SCALE_CONST = 1,          /* x *= c */
    SCALE_POW_FWD_REV = 2,    /* x *= c * g^(bitrev_lg(pos))   (odd coset) */
    SCALE_POW_INV_NAT = 3,    /* x *= c * g^(-pos)             (coset inverse) */
};

template <class F> struct tw_tables {
    const F *inner;   /* NTT_INNER entries */
    const F *lo;      /* 2^L */
    const F *hi;      /* 2^(T-L) */
};

template <class F> struct ntt_args {
    F *data;
    tw_tables<F> tw;     /* forward or inverse roots */
    tw_tables<F> scale_tw; /* tables used by the scale modes */
    F c;                 /* scale constant */
    unsigned lg, h, s, lgcols, T, L;
    int scale;
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

/* Shared memory is structure-of-arrays (word w of element e at sm[w*E + e])
 * so consecutive elements hit consecutive banks. */
template <class F> __device__ __forceinline__ F sm_ld(const uint32_t *sm, unsigned E, unsigned e)
{
    F r;
CUZK_UNROLL
    for (int w = 0; w < F::N; w++) r.v[w] = sm[w * E + e];
    return r;
}
template <class F> __device__ __forceinline__ void sm_st(uint32_t *sm, unsigned E, unsigned e, const F &x)
{
CUZK_UNROLL
    for (int w = 0; w < F::N; w++) sm[w * E + e] = x.v[w];
}

template <class F> __device__ __forceinline__ F apply_scale(const ntt_args<F> &a, const F &x, uint32_t pos)
{
    switch (a.scale) {
    case SCALE_CONST:
        return x * a.c;
    case SCALE_POW_FWD_REV: {
        uint32_t i = brev_bits(pos, a.lg);
        F g = pow_T(a.scale_tw, a.L, i << (a.T - a.lg - 1));
        return x * (g * a.c);
    }
    case SCALE_POW_INV_NAT: {
        F g = pow_T(a.scale_tw, a.L, pos << (a.T - a.lg - 1));
        return x * (g * a.c);
    }
    default:
        return x;
    }
}

/* One radix-2 stage t over the block's columns: butterflies (m0, m0 + 2^t),
 * k = m0 mod 2^t, twiddle w_{2^(t+1)}^k = w_1024^(k 2^(9-t)). */
template <class F, bool DIF>
__device__ __forceinline__ void radix2_stage(const ntt_args<F> &a, uint32_t *sm, unsigned E, unsigned lgc, unsigned t)
{
    const unsigned cols = 1u << lgc;
    for (unsigned bi = threadIdx.x; bi < (E >> 1); bi += blockDim.x) {
        unsigned l = bi & (cols - 1), pr = bi >> lgc;
        unsigned k = pr & ((1u << t) - 1);
        unsigned m0 = ((pr >> t) << (t + 1)) | k;
        unsigned m1 = m0 + (1u << t);
        unsigned e0 = (m0 << lgc) | l, e1 = (m1 << lgc) | l;
        F w = ld_global(a.tw.inner + (k << (9 - t)));
        F u = sm_ld<F>(sm, E, e0), v = sm_ld<F>(sm, E, e1);
        if (!DIF) {
            v = v * w;
            sm_st(sm, E, e0, u + v);
            sm_st(sm, E, e1, u - v);
        } else {
            sm_st(sm, E, e0, u + v);
            sm_st(sm, E, e1, (u - v) * w);
        }
    }
}

/* Stages t and t+1 on four elements held in registers (half the shared
 * memory round trips and barriers of two radix-2 stages). With m_b having
 * bits t, t+1 clear and k = m_b mod 2^t, the elements are
 * x_i = m_b + (i&1) 2^t + (i>>1) 2^(t+1); stage t pairs (x0,x1), (x2,x3)
 * with w_{2^(t+1)}^k; stage t+1 pairs (x0,x2) with w_{2^(t+2)}^k and (x1,x3)
 * with w_{2^(t+2)}^(k+2^t). DIT runs t then t+1, DIF t+1 then t. */
template <class F, bool DIF>
__device__ __forceinline__ void radix4_stages(const ntt_args<F> &a, uint32_t *sm, unsigned E, unsigned lgc, unsigned t)
{
    const unsigned cols = 1u << lgc;
    for (unsigned qi = threadIdx.x; qi < (E >> 2); qi += blockDim.x) {
        unsigned l = qi & (cols - 1), pr = qi >> lgc;
        unsigned k = pr & ((1u << t) - 1);
        unsigned mb = ((pr >> t) << (t + 2)) | k;
        unsigned e0 = (mb << lgc) | l;
        unsigned e1 = ((mb + (1u << t)) << lgc) | l;
        unsigned e2 = ((mb + (2u << t)) << lgc) | l;
        unsigned e3 = ((mb + (3u << t)) << lgc) | l;
        F wa = ld_global(a.tw.inner + (k << (9 - t)));
        F wb0 = ld_global(a.tw.inner + (k << (8 - t)));
        F wb1 = ld_global(a.tw.inner + ((k + (1u << t)) << (8 - t)));
        F x0 = sm_ld<F>(sm, E, e0), x1 = sm_ld<F>(sm, E, e1);
        F x2 = sm_ld<F>(sm, E, e2), x3 = sm_ld<F>(sm, E, e3);
        if (!DIF) {
            x1 = x1 * wa;
            x3 = x3 * wa;
            F y0 = x0 + x1, y1 = x0 - x1, y2 = x2 + x3, y3 = x2 - x3;
            y2 = y2 * wb0;
            y3 = y3 * wb1;
            sm_st(sm, E, e0, y0 + y2);
            sm_st(sm, E, e2, y0 - y2);
            sm_st(sm, E, e1, y1 + y3);
            sm_st(sm, E, e3, y1 - y3);
        } else {
            F y0 = x0 + x2, y2 = (x0 - x2) * wb0;
            F y1 = x1 + x3, y3 = (x1 - x3) * wb1;
            sm_st(sm, E, e0, y0 + y1);
            sm_st(sm, E, e1, (y0 - y1) * wa);
            sm_st(sm, E, e2, y2 + y3);
            sm_st(sm, E, e3, (y2 - y3) * wa);
        }
    }
}

template <class F, bool DIF, bool R4> __global__ void __launch_bounds__(256) ntt_pass_kernel(ntt_args<F> a)
{
    extern __shared__ uint32_t sm[];
    const unsigned s = a.s, h = a.h, lgc = a.lgcols;
    const unsigned cols = 1u << lgc;
    const unsigned E = cols << s;
    const unsigned lo_chunks = (1u << h) >> lgc;
    const unsigned blk = blockIdx.x;
    const unsigned lo0 = (blk & (lo_chunks - 1)) << lgc;
    const size_t hi = blk >> (h - lgc);
    const size_t base = hi << (h + s);
    const unsigned twshift = a.T - h - s;

    for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
        unsigned l = e & (cols - 1), m = e >> lgc;
        size_t pos = base + ((size_t)m << h) + lo0 + l;
        F x = ld_plain(a.data + pos);
        if (!DIF && h > 0) {
            uint32_t ex = (lo0 + l) * brev_bits(m, s);
            x = x * pow_T(a.tw, a.L, ex << twshift);
        }
        sm_st(sm, E, e, x);
    }
    __syncthreads();

    if (!R4) {
        for (unsigned it = 0; it < s; it++) {
            radix2_stage<F, DIF>(a, sm, E, lgc, DIF ? (s - 1 - it) : it);
            __syncthreads();
        }
    } else if (!DIF) {
        /* DIT: a lone radix-2 stage first when s is odd, then stage pairs. */
        unsigned t = 0;
        if (s & 1) {
            radix2_stage<F, false>(a, sm, E, lgc, 0);
            __syncthreads();
            t = 1;
        }
        for (; t + 1 < s; t += 2) {
            radix4_stages<F, false>(a, sm, E, lgc, t);
            __syncthreads();
        }
    } else {
        /* DIF: stage pairs from the top, the lone stage 0 last. */
        for (int t = (int)s - 2; t >= (int)(s & 1); t -= 2) {
            radix4_stages<F, true>(a, sm, E, lgc, (unsigned)t);
            __syncthreads();
        }
        if (s & 1) {
            radix2_stage<F, true>(a, sm, E, lgc, 0);
            __syncthreads();
        }
    }

    for (unsigned e = threadIdx.x; e < E; e += blockDim.x) {
        unsigned l = e & (cols - 1), m = e >> lgc;
        size_t pos = base + ((size_t)m << h) + lo0 + l;
        F x = sm_ld<F>(sm, E, e);
        if (DIF && h > 0) {
            uint32_t ex = (lo0 + l) * brev_bits(m, s);
            x = x * pow_T(a.tw, a.L, ex << twshift);
        }
        if (a.scale != SCALE_NONE) x = apply_scale(a, x, (uint32_t)pos);
        st_plain(a.data + pos, x);
    }
}

/* In-place bit reversal; with coset scaling x'[p] = x[i] * g^i, i = rev(p). */
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

/* ---- host side ---------------------------------------------------------- */

template <class P> struct fr_info;
template <> struct fr_info<bn254_fr_p> {
    static void modulus(uint64_t m[4]) { const uint64_t t[4] = bn254_fr_P_MODULUS; for (int i = 0; i < 4; i++) m[i] = t[i]; }
};
template <> struct fr_info<bls12_381_fr_p> {
    static void modulus(uint64_t m[4]) { const uint64_t t[4] = bls12_381_fr_P_MODULUS; for (int i = 0; i < 4; i++) m[i] = t[i]; }
};

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
    fr_info<P>::modulus(e);
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
    fr_info<P>::modulus(e);
    e[0] -= 2;
    return fp_pow(a, e, 4);
}

unsigned table_T(unsigned S, unsigned max_lg)
{
    unsigned T = max_lg + 1 < S ? max_lg + 1 : S;
    return T < 10 ? 10 : T;
}

size_t table_elems(unsigned T)
{
    unsigned L = (T + 1) / 2;
    return 2 * ((size_t)NTT_INNER + ((size_t)1 << L) + ((size_t)1 << (T - L)));
}

} /* namespace */

struct cuzk_gpu_ntt {
    cuzk_curve curve;
    int device;
    unsigned max_lg, S, T, L;
    void *d_tables;     /* fwd {inner, lo, hi}, inv {inner, lo, hi} */
};

namespace {

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
    cudaError_t rc = cudaMalloc(&t->d_tables, 2 * per_dir * sizeof(F));
    if (rc == cudaSuccess) rc = cudaMemcpy(t->d_tables, h, 2 * per_dir * sizeof(F), cudaMemcpyHostToDevice);
    cuzk_free(h);
    if (rc != cudaSuccess)
        return cuzk_err(e, CUZK_ERR_GPU, "gpu ntt: table upload: %s", cudaGetErrorString(rc));
    const int smem = (int)(NTT_BLOCK_ELEMS * sizeof(F));
    rc = cudaFuncSetAttribute(ntt_pass_kernel<F, false, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (rc == cudaSuccess)
        rc = cudaFuncSetAttribute(ntt_pass_kernel<F, true, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (rc == cudaSuccess)
        rc = cudaFuncSetAttribute(ntt_pass_kernel<F, false, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (rc == cudaSuccess)
        rc = cudaFuncSetAttribute(ntt_pass_kernel<F, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (rc != cudaSuccess)
        return cuzk_err(e, CUZK_ERR_GPU, "gpu ntt: shared memory attribute: %s", cudaGetErrorString(rc));
    return CUZK_OK;
}

template <class F> tw_tables<F> tables_of(const cuzk_gpu_ntt *t, int inverse)
{
    const size_t nlo = (size_t)1 << t->L, nhi = (size_t)1 << (t->T - t->L);
    const F *b = (const F *)t->d_tables + (inverse ? (NTT_INNER + nlo + nhi) : 0);
    tw_tables<F> r;
    r.inner = b;
    r.lo = b + NTT_INNER;
    r.hi = b + NTT_INNER + nlo;
    return r;
}

/* Split lg into passes of <= NTT_MAX_STAGES, as even as possible. */
unsigned plan_passes(unsigned lg, unsigned s[4])
{
    unsigned np = lg == 0 ? 1 : (lg + NTT_MAX_STAGES - 1) / NTT_MAX_STAGES;
    for (unsigned i = 0; i < np; i++) s[i] = lg / np + (i < lg % np ? 1 : 0);
    return np;
}

template <class F, bool DIF>
cuzk_status launch_pass(ntt_args<F> a, bool r4, cudaStream_t st, cuzk_error *e)
{
    unsigned E0 = 1u << a.s;
    unsigned maxcols = E0 >= NTT_BLOCK_ELEMS ? 1 : NTT_BLOCK_ELEMS / E0;
    unsigned cols = 1u << a.h < maxcols ? 1u << a.h : maxcols;
    unsigned lgc = 0;
    while ((1u << lgc) < cols) lgc++;
    a.lgcols = lgc;
    unsigned E = E0 << lgc;
    size_t nblocks = ((size_t)1 << a.lg) / E;
    unsigned threads = E / 2 < 256 ? (E / 2 < 32 ? 32 : E / 2) : 256;
    size_t smem = (size_t)E * sizeof(F);
    if (r4 && a.s >= 2) ntt_pass_kernel<F, DIF, true><<<(unsigned)nblocks, threads, smem, st>>>(a);
    else ntt_pass_kernel<F, DIF, false><<<(unsigned)nblocks, threads, smem, st>>>(a);
    CUZK_LAUNCHED("ntt_pass");
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
    const F ninv = fr_inv(fr_from_u64<P>(n));

    unsigned s[4];
    const unsigned np = plan_passes(lg, s);

    ntt_args<F> a;
    a.data = data;
    a.lg = lg;
    a.T = t->T;
    a.L = t->L;
    a.c = fp_one<P>();
    a.scale = SCALE_NONE;
    a.lgcols = 0;

    const tw_tables<F> fwd = tables_of<F>(t, 0), inv = tables_of<F>(t, 1);
    /* Radix-2 stages by default. CUZK_GPU_NTT_RADIX4=1 runs stage pairs in
     * registers instead: half the shared-memory round trips and barriers, but
     * ~110 registers (2 blocks per SM instead of 3); measured on the H200 it
     * is 1-16 % slower at 2^21..2^24, so it stays an experiment. */
    const bool r4 = getenv("CUZK_GPU_NTT_RADIX4") != NULL;
    const unsigned grid_br = (unsigned)((n + 255) / 256 < 65535 * 16 ? (n + 255) / 256 : 65535 * 16);

    if (op == CUZK_GPU_NTT_ODD_COSET) {
        /* DIF inverse: passes in reverse order; the last one (h = 0) scales. */
        a.tw = inv;
        a.scale_tw = fwd;
        unsigned h = lg;
        for (int i = (int)np - 1; i >= 0; i--) {
            h -= s[i];
            a.h = h;
            a.s = s[i];
            if (i == 0) {
                a.scale = SCALE_POW_FWD_REV;
                a.c = ninv;
            }
            cuzk_status rc = launch_pass<F, true>(a, r4, st, e);
            if (rc) return rc;
        }
        a.scale = SCALE_NONE;
        a.tw = fwd;
        h = 0;
        for (unsigned i = 0; i < np; i++) {
            a.h = h;
            a.s = s[i];
            cuzk_status rc = launch_pass<F, false>(a, r4, st, e);
            if (rc) return rc;
            h += s[i];
        }
        return CUZK_OK;
    }

    const bool inverse = op == CUZK_GPU_NTT_INVERSE || op == CUZK_GPU_NTT_COSET_INVERSE;
    /* Bit reversal (with g^i for the forward coset). */
    if (lg > 0) {
        ntt_bitrev_kernel<F><<<grid_br, 256, 0, st>>>(data, lg, op == CUZK_GPU_NTT_COSET_FORWARD, fwd, t->T, t->L);
        CUZK_LAUNCHED("ntt_bitrev");
    }
    a.tw = inverse ? inv : fwd;
    a.scale_tw = inv;
    unsigned h = 0;
    for (unsigned i = 0; i < np; i++) {
        a.h = h;
        a.s = s[i];
        if (i == np - 1 && inverse) {
            a.scale = op == CUZK_GPU_NTT_COSET_INVERSE ? SCALE_POW_INV_NAT : SCALE_CONST;
            a.c = ninv;
        }
        cuzk_status rc = launch_pass<F, false>(a, r4, st, e);
        if (rc) return rc;
        h += s[i];
    }
    return CUZK_OK;
}

} /* namespace */

extern "C" size_t cuzk_gpu_ntt_device_bytes(cuzk_curve curve, unsigned max_lg)
{
    unsigned S = curve == CUZK_CURVE_BN254 ? 28 : 32;
    return table_elems(table_T(S, max_lg)) * 32;
}

extern "C" cuzk_status cuzk_gpu_ntt_create(cuzk_gpu_ntt **out, cuzk_curve curve, unsigned max_lg, int device,
                                           cuzk_error *e)
{
    if (!out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: NULL output");
    *out = NULL;
    if (curve != CUZK_CURVE_BN254 && curve != CUZK_CURVE_BLS12_381)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: unknown curve %d", (int)curve);
    if (max_lg > 28) return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu ntt: sizes above 2^28 are not supported");
    CUZK_DEVICE_GUARD(device);
    cuzk_gpu_ntt *t = (cuzk_gpu_ntt *)cuzk_calloc(1, sizeof *t);
    if (!t) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu ntt: out of host memory");
    t->curve = curve;
    t->device = device;
    t->max_lg = max_lg;
    t->S = curve == CUZK_CURVE_BN254 ? 28 : 32;
    t->T = table_T(t->S, max_lg);
    t->L = (t->T + 1) / 2;
    cuzk_status st = curve == CUZK_CURVE_BN254 ? ntt_build_tables<bn254_fr_p>(t, e)
                                               : ntt_build_tables<bls12_381_fr_p>(t, e);
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
    if (t->d_tables) {
        cuzk_gpu::device_guard g(t->device);
        cudaFree(t->d_tables);
    }
    cuzk_free(t);
}

extern "C" cuzk_status cuzk_gpu_ntt_run(cuzk_gpu_ntt *t, void *d_data, unsigned lg, cuzk_gpu_ntt_op op,
                                        void *stream, cuzk_error *e)
{
    if (!t || !d_data) return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: NULL handle or data");
    if ((int)op < 0 || op > CUZK_GPU_NTT_ODD_COSET) return cuzk_err(e, CUZK_ERR_USAGE, "gpu ntt: bad op %d", (int)op);
    CUZK_DEVICE_GUARD(t->device);
    cudaStream_t st = (cudaStream_t)stream;
    return t->curve == CUZK_CURVE_BN254 ? ntt_run_t<bn254_fr_p>(t, d_data, lg, op, st, e)
                                        : ntt_run_t<bls12_381_fr_p>(t, d_data, lg, op, st, e);
}
