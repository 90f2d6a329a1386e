/* DESIGN: fixed-base batch multiplication on the GPU (include/cuzk/gpu.h,
 * cuzk_gpu_fixed_*): out[i] = k_i * P for one base P and many raw scalars,
 * the point sections of a development key (cuzk setup --gpu and the
 * in-memory PoRep-shaped key, src/groth16/porep_impl.h).
 *
 * Table: 16 windows of 16 bits with signed digits in [-2^15, 2^15], so
 * table[w][d-1] = d * 2^(16w) * P for d = 1..2^15 (2^19 affine points: 48 MiB
 * on BLS12-381 G1, 96 MiB on G2), made once at create: the 16 window bases
 * on the host, the entries on the device (one thread a point: double-and-add
 * from 2^(16w) P, one inversion). Scalars are
 * below r < 2^255, so the top window never carries out.
 *
 * A run goes in chunks through two sets of device buffers on two streams:
 * upload of the chunk's scalars, the product kernel (one thread a scalar, at
 * most 16 mixed XYZZ additions), the affine kernel (Montgomery's batch
 * inversion over K = 32 points a thread, strided so loads coalesce), and the
 * download into the caller's (pageable) output. The next chunk's kernels are
 * queued before the previous chunk's download, so the copies overlap them.
 * The result is the unique affine point, identical to the CPU's
 * <g>_batch_mul_fixed byte for byte. Every chunk is spot-checked: two of its
 * points are computed again on the host (the same curve formulas over the
 * portable field code, double-and-add) and a difference fails the run, so a
 * device fault never yields a wrong key silently. Both groups of both
 * curves are offered (the curve tables, curve_ops.cu). */
#include <string.h>

#include "gpu/ec/curve_ops.cuh"
#include "gpu/device/gpu_common.cuh"
#include "gpu/ec/gpu_ec.cuh"
#include "gpu/msm/msm_impl.cuh" /* f_inv */

using namespace cuzk_gpu;

namespace {

constexpr unsigned FB_C = 16;                    /* window bits */
constexpr unsigned FB_WINDOWS = 16;              /* 256 bits */
constexpr size_t FB_ENTRIES = (size_t)1 << (FB_C - 1); /* digits 1..2^15 */
constexpr unsigned FB_K = 32;                    /* points per batch inversion */
constexpr unsigned FB_THREADS = 128;
constexpr size_t FB_CHUNK_MAX = (size_t)1 << 22;
constexpr size_t FB_CHUNK_MIN = (size_t)1 << 12;

template <class F> CUZK_HD xyzz<F> xyzz_of_affine(const affine<F> &p)
{
    xyzz<F> r;
    if (aff_is_inf(p)) {
        xyzz_set_inf(r);
        return r;
    }
    r.x = p.x;
    r.y = p.y;
    r.zz = f_traits<F>::one();
    r.zzz = r.zz;
    return r;
}

template <class F> CUZK_HD affine<F> affine_of_xyzz(const xyzz<F> &p)
{
    affine<F> r;
    if (xyzz_is_inf(p)) {
        r.x = f_traits<F>::zero();
        r.y = r.x;
        return r;
    }
    const F izzz = f_inv(p.zzz);
    const F iz = izzz * p.zz; /* ZZ / ZZZ = 1 / Z */
    r.x = p.x * f_sqr(iz);
    r.y = p.y * izzz;
    return r;
}

/* bw[w] = 2^(16w) * base, w < 16, on the host (the same formulas over the
 * portable field code). A one-thread device kernel doing this gave wrong
 * BLS12-381 G2 bases on the H200 (sm_90, CUDA 13.0) while every operation it
 * calls, checked alone on 4096 random inputs, was bit-exact and the table
 * kernel built from correct bases was too; 256 doublings on the host cost
 * microseconds and need no device code at all. */
template <class F> void fb_bases(affine<F> *bw, const affine<F> &base)
{
    affine<F> p = base;
    for (unsigned w = 0; w < FB_WINDOWS; w++) {
        bw[w] = p;
        xyzz<F> r = xyzz_of_affine(p);
        for (unsigned k = 0; k < FB_C; k++) {
            const xyzz<F> d = r;
            xyzz_dbl(r, d);
        }
        p = affine_of_xyzz(r);
    }
}

/* table[w * 2^15 + d - 1] = d * bw[w]. */
template <class F> __global__ void fb_table_kernel(affine<F> *table, const affine<F> *bw)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= FB_WINDOWS * FB_ENTRIES) return;
    const affine<F> b = bw[i / FB_ENTRIES];
    const uint32_t d = (uint32_t)(i % FB_ENTRIES) + 1;
    xyzz<F> acc;
    xyzz_set_inf(acc);
    for (int bit = FB_C - 1; bit >= 0; bit--) {
        const xyzz<F> t = acc;
        xyzz_dbl(acc, t);
        if ((d >> bit) & 1) xyzz_add_affine(acc, b, false);
    }
    table[i] = affine_of_xyzz(acc);
}

/* acc[i] = scalars[i] * P by signed 16-bit digits. */
template <class F>
__global__ void fb_mul_kernel(xyzz<F> *acc_out, const uint32_t *scalars, size_t n, const affine<F> *table)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t s[8];
    const uint4 *sp = (const uint4 *)(scalars + 8 * i);
    const uint4 lo = sp[0], hi = sp[1];
    s[0] = lo.x, s[1] = lo.y, s[2] = lo.z, s[3] = lo.w, s[4] = hi.x, s[5] = hi.y, s[6] = hi.z, s[7] = hi.w;
    xyzz<F> acc;
    xyzz_set_inf(acc);
    uint32_t carry = 0;
    for (unsigned w = 0; w < FB_WINDOWS; w++) {
        uint32_t d = ((s[w / 2] >> (16 * (w & 1))) & 0xffffu) + carry;
        bool neg = false;
        if (d > FB_ENTRIES) {
            d = (1u << FB_C) - d;
            neg = true;
            carry = 1;
        } else {
            carry = 0;
        }
        if (d) xyzz_add_affine(acc, table[w * FB_ENTRIES + d - 1], neg);
    }
    acc_out[i] = acc;
}

/* out[i] = affine(in[i]); thread t converts points t + k*T, k < FB_K, with one
 * inversion (Montgomery's trick; the prefix products wait in out[i].x). */
template <class F> __global__ void fb_affine_kernel(affine<F> *out, const xyzz<F> *in, size_t n, size_t T)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= T) return;
    F prod = f_traits<F>::one();
    for (unsigned k = 0; k < FB_K; k++) {
        const size_t i = t + k * T;
        if (i >= n) break;
        out[i].x = prod;
        if (!f_is_zero(in[i].zz)) prod = prod * in[i].zzz;
    }
    F inv = f_inv(prod);
    for (int k = FB_K - 1; k >= 0; k--) {
        const size_t i = t + (size_t)k * T;
        if (i >= n) continue;
        const xyzz<F> p = in[i];
        affine<F> r;
        if (f_is_zero(p.zz)) {
            r.x = f_traits<F>::zero();
            r.y = r.x;
        } else {
            const F izzz = inv * out[i].x;
            inv = inv * p.zzz;
            const F iz = izzz * p.zz;
            r.x = p.x * f_sqr(iz);
            r.y = p.y * izzz;
        }
        out[i] = r;
    }
}

/* k * P on the host by double-and-add (k: 8 raw 32-bit limbs), affine. */
template <class F> affine<F> host_mul(const affine<F> &p, const uint32_t *k)
{
    xyzz<F> acc;
    xyzz_set_inf(acc);
    for (int bit = 255; bit >= 0; bit--) {
        const xyzz<F> t = acc;
        xyzz_dbl(acc, t);
        if ((k[bit / 32] >> (bit % 32)) & 1) xyzz_add_affine(acc, p, false);
    }
    return affine_of_xyzz(acc);
}

} /* namespace */

template <class F> cuzk_status gpu_fixed_impl<F>::table(void *d_table, const void *base, cuzk_error *e)
{
    affine<F> b;
    memcpy(&b, base, sizeof b);
    affine<F> hbw[FB_WINDOWS];
    fb_bases(hbw, b);
    affine<F> *bw = NULL;
    CUZK_CU(cudaMalloc(&bw, sizeof hbw));
    cudaError_t rc = cudaMemcpy(bw, hbw, sizeof hbw, cudaMemcpyHostToDevice);
    if (rc == cudaSuccess) {
        fb_table_kernel<F><<<ceil_div_u(FB_WINDOWS * FB_ENTRIES, FB_THREADS), FB_THREADS>>>((affine<F> *)d_table, bw);
        rc = cudaGetLastError();
    }
    if (rc == cudaSuccess) rc = cudaDeviceSynchronize();
    cudaFree(bw);
    if (rc != cudaSuccess) return cuzk_err(e, CUZK_ERR_GPU, "gpu fixed-base table: %s", cudaGetErrorString(rc));
    return CUZK_OK;
}

template <class F>
cuzk_status gpu_fixed_impl<F>::launch(void *d_acc, void *d_out, const void *d_sc, size_t n, const void *d_table,
                                      cudaStream_t st, cuzk_error *e)
{
    fb_mul_kernel<F><<<ceil_div_u(n, FB_THREADS), FB_THREADS, 0, st>>>((xyzz<F> *)d_acc, (const uint32_t *)d_sc, n,
                                                                        (const affine<F> *)d_table);
    CUZK_LAUNCHED("fixed-base products");
    const size_t T = (n + FB_K - 1) / FB_K;
    fb_affine_kernel<F><<<ceil_div_u(T, FB_THREADS), FB_THREADS, 0, st>>>((affine<F> *)d_out, (const xyzz<F> *)d_acc,
                                                                           n, T);
    CUZK_LAUNCHED("fixed-base affine");
    return CUZK_OK;
}

template <class F> bool gpu_fixed_impl<F>::check(const void *base, const void *scalar, const void *point)
{
    affine<F> b;
    uint32_t k[8];
    memcpy(&b, base, sizeof b);
    memcpy(k, scalar, sizeof k);
    const affine<F> r = host_mul(b, k);
    return memcmp(&r, point, sizeof r) == 0;
}

/* The groups offered (curve_ops.cu lists them per curve). */
template struct gpu_fixed_impl<bn254_fp>;
template struct gpu_fixed_impl<bn254_fp2>;
template struct gpu_fixed_impl<bls12_381_fp>;
template struct gpu_fixed_impl<bls12_381_fp2>;

struct cuzk_gpu_fixed {
    int device;
    size_t aff, acc;   /* bytes of an affine / XYZZ point */
    const cuzk_gpu_fixed_ops *ops;
    uint8_t base[192];  /* the base point (largest: BLS12-381 G2 affine) */
    void *d_table;
    size_t chunk;
    void *d_sc[2], *d_acc[2], *d_out[2];
    cudaStream_t st[2];
};

extern "C" void cuzk_gpu_fixed_destroy(cuzk_gpu_fixed *f)
{
    if (!f) return;
    {
        cuzk_gpu::device_guard g(f->device);
        for (int i = 0; i < 2; i++) {
            if (f->st[i]) cudaStreamSynchronize(f->st[i]);
            if (f->st[i]) cudaStreamDestroy(f->st[i]);
            cudaFree(f->d_sc[i]);
            cudaFree(f->d_acc[i]);
            cudaFree(f->d_out[i]);
        }
        cudaFree(f->d_table);
    }
    cuzk_free(f);
}

extern "C" cuzk_status cuzk_gpu_fixed_create(cuzk_gpu_fixed **out, cuzk_curve curve, cuzk_gpu_group group,
                                             const void *base, int device, cuzk_error *e)
{
    if (!out || !base) return cuzk_err(e, CUZK_ERR_USAGE, "gpu fixed-base: NULL argument");
    *out = NULL;
    const cuzk_gpu_curve_ops *cops = cuzk_gpu_curve_ops_get(curve);
    if (!cops || (group != CUZK_GPU_G1 && group != CUZK_GPU_G2))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu fixed-base: bad curve or group");
    const cuzk_gpu_fixed_ops *ops = group == CUZK_GPU_G1 ? &cops->fixed_g1 : &cops->fixed_g2;
    if (!ops->aff)
        return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu fixed-base: %s %s is not offered", cops->desc->snarkjs_name,
                        group == CUZK_GPU_G1 ? "G1" : "G2");
    const size_t aff = ops->aff, acc = ops->acc;
    CUZK_DEVICE_GUARD(device);
    cuzk_gpu_fixed *f = (cuzk_gpu_fixed *)cuzk_calloc(1, sizeof *f);
    if (!f) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu fixed-base: out of host memory");
    f->device = device;
    f->aff = aff;
    f->acc = acc;
    f->ops = ops;
    memcpy(f->base, base, aff);
    cuzk_status st = CUZK_OK;
    size_t fr = 0, tot = 0;
    CUZK_CU_GOTO(cudaMemGetInfo(&fr, &tot), fail);
    {
        /* Two chunk buffer sets in at most a quarter of the free memory. */
        const size_t per = 32 + acc + aff, table_bytes = FB_WINDOWS * FB_ENTRIES * aff;
        size_t chunk = FB_CHUNK_MAX;
        while (chunk > FB_CHUNK_MIN && table_bytes + 2 * chunk * per > fr / 4) chunk /= 2;
        f->chunk = chunk;
        CUZK_CU_GOTO(cudaMalloc(&f->d_table, table_bytes), fail);
        for (int i = 0; i < 2; i++) {
            CUZK_CU_GOTO(cudaMalloc(&f->d_sc[i], chunk * 32), fail);
            CUZK_CU_GOTO(cudaMalloc(&f->d_acc[i], chunk * acc), fail);
            CUZK_CU_GOTO(cudaMalloc(&f->d_out[i], chunk * aff), fail);
            CUZK_CU_GOTO(cudaStreamCreateWithFlags(&f->st[i], cudaStreamNonBlocking), fail);
        }
    }
    if ((st = ops->table(f->d_table, base, e))) goto fail;
    *out = f;
    return CUZK_OK;
fail:
    cuzk_gpu_fixed_destroy(f);
    return st;
}

extern "C" cuzk_status cuzk_gpu_fixed_run(cuzk_gpu_fixed *f, const void *scalars, size_t n, void *out,
                                          cuzk_error *e)
{
    if (!f || (n && (!scalars || !out))) return cuzk_err(e, CUZK_ERR_USAGE, "gpu fixed-base: NULL argument");
    CUZK_DEVICE_GUARD(f->device);
    const size_t nch = (n + f->chunk - 1) / f->chunk;
    const uint8_t *sc = (const uint8_t *)scalars;
    uint8_t *o = (uint8_t *)out;
    cuzk_status st = CUZK_OK;
    for (size_t c = 0; c <= nch; c++) {
        if (c < nch) {
            const int b = (int)(c & 1);
            const size_t i0 = c * f->chunk, k = n - i0 < f->chunk ? n - i0 : f->chunk;
            CUZK_CU_GOTO(cudaMemcpyAsync(f->d_sc[b], sc + i0 * 32, k * 32, cudaMemcpyHostToDevice, f->st[b]), out);
            if ((st = f->ops->launch(f->d_acc[b], f->d_out[b], f->d_sc[b], k, f->d_table, f->st[b], e))) goto out;
        }
        if (c > 0) { /* the previous chunk's points, while this one computes */
            const int b = (int)((c - 1) & 1);
            const size_t i0 = (c - 1) * f->chunk, k = n - i0 < f->chunk ? n - i0 : f->chunk;
            CUZK_CU_GOTO(cudaMemcpyAsync(o + i0 * f->aff, f->d_out[b], k * f->aff, cudaMemcpyDeviceToHost, f->st[b]),
                         out);
            CUZK_CU_GOTO(cudaStreamSynchronize(f->st[b]), out);
            /* spot check: the chunk's first and middle points, again on the host */
            const size_t probe[2] = {i0, i0 + k / 2};
            for (int q = 0; q < 2; q++)
                if (!f->ops->check(f->base, sc + probe[q] * 32, o + probe[q] * f->aff)) {
                    st = cuzk_err(e, CUZK_ERR_GPU, "gpu fixed-base: the device's point %zu differs from the host's",
                                  probe[q]);
                    goto out;
                }
        }
    }
out:
    if (st) { /* leave no work queued on the buffers */
        cudaStreamSynchronize(f->st[0]);
        cudaStreamSynchronize(f->st[1]);
    }
    return st;
}
