/* GPU Groth16 prover kernels: a, b, c from the witness (CSR sparse
 * matrix-vector product) and the pointwise quotient. See src/gpu/g16/g16.h. */
#include <sched.h>
#include <string.h>

#include "curve/curves.h"
#include "gpu/g16/coef_dict.h"
#include "gpu/g16/g16.h"
#include "gpu/g16/wpack.h"
#include "gpu/device/gpu_common.cuh"
#include "gpu/field/gpu_field.cuh"

using namespace cuzk_gpu;

namespace {

constexpr unsigned G16_THREADS = 256;

} /* namespace */

/* The Groth16 steps of one curve: abc_t and pointwise_t below over its Fr.
 * One table per curve of curve/curves.h, picked by g16_ops_get (below the
 * kernels); a CSR keeps its curve's. */
struct gpu_g16_ops {
    cuzk_status (*abc)(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c, cudaStream_t st,
                       int (*cancelled)(void *), void *user, cuzk_error *e);
    cuzk_status (*pointwise)(void *d_a, const void *d_b, const void *d_c, size_t n, int op, bool host,
                             cudaStream_t st, cuzk_error *e);
};

/* Host arrays: per matrix row pointers (n_rows + 1), signals and values by
 * row. Resident: uploaded once into d_sig / d_val and freed. Streamed: kept
 * in pinned memory and uploaded per abc, a range of rows at a time, into
 * `nbuf` buffers of `chunk` records (A's records of the range, then B's).
 * A value is 32 bytes, or (vbytes 4) an index into the table of the key's
 * distinct values (coef_dict.h), which the device holds beside the
 * buffers (d_dict, acquired and released with them). */
struct cuzk_gpu_g16_csr {
    cuzk_curve curve;
    const gpu_g16_ops *ops;
    int device;
    uint32_t n_rows, n_vars;
    size_t nnz[2];
    bool streamed, acquired;
    bool rows_kept;          /* streamed: d_row from keep_rows until destroy */
    size_t chunk;            /* streamed: records per buffer */
    int nbuf;
    uint32_t *h_row[2], *h_sig[2];
    uint8_t *h_val[2];       /* nnz x vbytes */
    size_t vbytes;           /* 32, or 4: indices into h_dict */
    uint8_t *h_dict;         /* ndict x 32 distinct values (pinned when streamed) */
    uint32_t ndict;
    uint8_t *d_dict;
    uint32_t *d_row[2];      /* resident: always; streamed: while acquired */
    uint32_t *d_sig[2];      /* resident: per matrix; streamed: per buffer */
    uint8_t *d_val[2];
    cudaStream_t cp;         /* streamed uploads */
    cudaEvent_t ev_up[2], ev_done[2];
};

namespace {

/* Rows [r0, r0 + n), one per thread: acc_a = sum of A's terms, acc_b of
 * B's. The record arrays are indexed by the global row pointers (a streamed
 * chunk's arrays come shifted by its first record). */
template <class P>
__global__ void abc_kernel(const uint32_t *__restrict__ ra, const uint32_t *__restrict__ sa,
                           const void *__restrict__ va, const uint32_t *__restrict__ rb,
                           const uint32_t *__restrict__ sb, const void *__restrict__ vb,
                           const fp<P> *__restrict__ dict, const fp<P> *__restrict__ w, fp<P> *a, fp<P> *b,
                           fp<P> *c, uint32_t r0, uint32_t n)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const uint32_t r = r0 + t;
    /* record i's value: its own, or the table's entry it names */
    auto val = [dict](const void *v, uint32_t i) {
        return dict ? dict[((const uint32_t *)v)[i]] : ((const fp<P> *)v)[i];
    };
    fp<P> acc_a = fp_zero<P>(), acc_b = fp_zero<P>();
    if (a || c)
        for (uint32_t i = ra[r], end = ra[r + 1]; i < end; i++) acc_a = acc_a + val(va, i) * w[sa[i]];
    if (b || c)
        for (uint32_t i = rb[r], end = rb[r + 1]; i < end; i++) acc_b = acc_b + val(vb, i) * w[sb[i]];
    if (a) a[r] = acc_a;
    if (b) b[r] = acc_b;
    if (c) c[r] = acc_a * acc_b;
}

template <class P>
__global__ void pointwise_kernel(fp<P> *a, const fp<P> *__restrict__ b, const fp<P> *__restrict__ c, size_t n,
                                 int op)
{
    fp<P> one_raw = fp_zero<P>();
    one_raw.v[0] = 1;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        fp<P> x = a[i];
        if (op != CUZK_GPU_G16_SUB) x = x * b[i];
        if (op != CUZK_GPU_G16_MUL) x = (x - c[i]) * one_raw;
        a[i] = x;
    }
}

/* CUZK_GPU_G16_RSUB: c = from_mont(a - c). */
template <class P> __global__ void rsub_kernel(const fp<P> *__restrict__ a, fp<P> *c, size_t n)
{
    fp<P> one_raw = fp_zero<P>();
    one_raw.v[0] = 1;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        c[i] = (a[i] - c[i]) * one_raw;
}

/* MUL (d = d.h) or RSUB (d = from_mont(h - d)) with h in mapped host
 * memory: a block's G16_THREADS values of h are read into shared memory 16
 * bytes a lane, a warp's reads contiguous (whole lines over the bus, not a
 * value's halves 32 bytes apart), then each thread takes its value. */
template <class P>
__global__ void __launch_bounds__(G16_THREADS) host_operand_kernel(fp<P> *d, const uint4 *__restrict__ h, size_t n,
                                                                   int op)
{
    static_assert(sizeof(fp<P>) == 2 * sizeof(uint4), "32-byte field elements");
    __shared__ uint4 buf[2 * G16_THREADS];
    fp<P> one_raw = fp_zero<P>();
    one_raw.v[0] = 1;
    for (size_t base = (size_t)blockIdx.x * G16_THREADS; base < n; base += (size_t)gridDim.x * G16_THREADS) {
        const size_t m = n - base < G16_THREADS ? n - base : G16_THREADS;
        for (size_t k = threadIdx.x; k < 2 * m; k += G16_THREADS) buf[k] = h[2 * base + k];
        __syncthreads();
        if (threadIdx.x < m) {
            fp<P> y;
            const uint32_t *w = (const uint32_t *)&buf[2 * threadIdx.x];
            for (int j = 0; j < fp<P>::N; j++) y.v[j] = w[j];
            const size_t i = base + threadIdx.x;
            d[i] = op == CUZK_GPU_G16_MUL ? d[i] * y : (y - d[i]) * one_raw;
        }
        __syncthreads();
    }
}

void device_release(cuzk_gpu_g16_csr *c)
{
    for (int k = 0; k < 2; k++) {
        if (!c->rows_kept) {
            cudaFree(c->d_row[k]);
            c->d_row[k] = NULL;
        }
        cudaFree(c->d_sig[k]);
        cudaFree(c->d_val[k]);
        c->d_sig[k] = NULL;
        c->d_val[k] = NULL;
    }
    cudaFree(c->d_dict);
    c->d_dict = NULL;
    c->acquired = false;
}

cuzk_status rows_upload(cuzk_gpu_g16_csr *c, cuzk_error *e)
{
    const size_t n = c->n_rows;
    for (int k = 0; k < 2; k++) {
        if (c->d_row[k]) continue;
        CUZK_CU(cudaMalloc(&c->d_row[k], (n + 1) * sizeof(uint32_t)));
        CUZK_CU(cudaMemcpy(c->d_row[k], c->h_row[k], (n + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice));
    }
    return CUZK_OK;
}

void host_free(void *p, bool pinned)
{
    if (!p) return;
    if (pinned) cudaFreeHost(p);
    else cuzk_free(p);
}

void csr_free(cuzk_gpu_g16_csr *c)
{
    c->rows_kept = false;
    device_release(c);
    for (int k = 0; k < 2; k++) {
        host_free(c->h_row[k], c->streamed);
        host_free(c->h_sig[k], c->streamed);
        host_free(c->h_val[k], c->streamed);
        c->h_val[k] = NULL;
        if (c->ev_up[k]) cudaEventDestroy(c->ev_up[k]);
        if (c->ev_done[k]) cudaEventDestroy(c->ev_done[k]);
    }
    if (c->cp) cudaStreamDestroy(c->cp);
    host_free(c->h_dict, c->streamed);
    c->h_dict = NULL;
}

inline uint32_t rd32(const uint8_t *f, size_t i, size_t stride)
{
    uint32_t v;
    memcpy(&v, f + i * stride, sizeof v);
    return v;
}

void *host_alloc(size_t bytes, bool pinned)
{
    if (!pinned) return cuzk_alloc(bytes ? bytes : 1, 1);
    void *p = NULL;
    if (cudaHostAlloc(&p, bytes ? bytes : 1, cudaHostAllocPortable) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    return p;
}

/* The host CSR of both matrices (counting sort by row), records checked. */
cuzk_status csr_build(cuzk_gpu_g16_csr *c, const cuzk_gpu_g16_coefs *co, cuzk_error *e)
{
    const size_t n = c->n_rows;
    uint32_t *fill[2] = {NULL, NULL};
    cuzk_coef_dict dict;
    memset(&dict, 0, sizeof dict);
    cuzk_status st = CUZK_OK;
    for (int k = 0; k < 2; k++) {
        /* page-locked when streamed: every proof uploads the row offsets
         * again (1 GiB at 2^27), at the bus's rate instead of the driver's
         * staging copies of pageable memory (0.15 s a proof on an H100) */
        c->h_row[k] = (uint32_t *)host_alloc((n + 1) * sizeof(uint32_t), c->streamed);
        fill[k] = (uint32_t *)cuzk_alloc(n + 1, sizeof(uint32_t));
        if (!c->h_row[k] || !fill[k]) {
            st = cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of %shost memory for the CSR rows",
                          c->streamed ? "pinned " : "");
            goto out;
        }
        memset(c->h_row[k], 0, (n + 1) * sizeof(uint32_t));
    }
    for (size_t i = 0; i < co->n; i++) {
        uint32_t m = rd32(co->matrix, i, co->stride), r = rd32(co->constraint, i, co->stride),
                 s = rd32(co->signal, i, co->stride);
        if (m > 1 || r >= n || s >= c->n_vars) {
            st = cuzk_err(e, CUZK_ERR_FORMAT,
                          "coefficient record %zu: matrix %u, constraint %u, signal %u out of range "
                          "(2 matrices, %zu constraints, %u signals)",
                          i, m, r, s, n, c->n_vars);
            goto out;
        }
        c->h_row[m][r + 1]++;
        c->nnz[m]++;
    }
    {
        /* the values as indices into a table of the distinct ones, where the
         * table is small enough that records and table take no more than
         * the raw records the plans count: streamed, two buffers of chunk
         * 8-byte records and at most chunk values against two of chunk
         * 36-byte records; resident, at most half as many values as records */
        const size_t maxd = c->streamed ? c->chunk : co->n / 2;
        c->vbytes = 32;
        if (co->n && cuzk_coef_dict_build(&dict, co->value, co->vstride, co->n,
                                          maxd > UINT32_MAX ? UINT32_MAX : (uint32_t)maxd) &&
            (c->h_dict = (uint8_t *)host_alloc((size_t)dict.n * 32, c->streamed)) != NULL) {
            memcpy(c->h_dict, dict.values, (size_t)dict.n * 32);
            c->ndict = dict.n;
            c->vbytes = 4;
        }
    }
    for (int k = 0; k < 2; k++) {
        if (c->nnz[k] > UINT32_MAX) {
            st = cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu prover: more than 2^32 coefficients in one matrix");
            goto out;
        }
        for (size_t r = 0; r < n; r++) c->h_row[k][r + 1] += c->h_row[k][r];
        memcpy(fill[k], c->h_row[k], (n + 1) * sizeof(uint32_t));
        c->h_sig[k] = (uint32_t *)host_alloc(c->nnz[k] * sizeof(uint32_t), c->streamed);
        c->h_val[k] = (uint8_t *)host_alloc(c->nnz[k] * c->vbytes, c->streamed);
        if (!c->h_sig[k] || !c->h_val[k]) {
            st = cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of %shost memory for the CSR (%zu records)",
                          c->streamed ? "pinned " : "", co->n);
            goto out;
        }
    }
    for (size_t i = 0; i < co->n; i++) {
        uint32_t m = rd32(co->matrix, i, co->stride), r = rd32(co->constraint, i, co->stride);
        uint32_t at = fill[m][r]++;
        c->h_sig[m][at] = rd32(co->signal, i, co->stride);
        const uint8_t *v = co->value + i * co->vstride;
        if (c->vbytes == 4) ((uint32_t *)c->h_val[m])[at] = cuzk_coef_dict_find(&dict, v);
        else memcpy(c->h_val[m] + (size_t)at * 32, v, 32);
    }
out:
    cuzk_free(fill[0]);
    cuzk_free(fill[1]);
    cuzk_coef_dict_free(&dict);
    return st;
}

/* Device rows (and, resident, all records), uploaded. */
cuzk_status device_acquire(cuzk_gpu_g16_csr *c, cuzk_error *e)
{
    cuzk_status st = rows_upload(c, e);
    if (st) goto fail;
    for (int k = 0; k < (c->streamed ? c->nbuf : 2); k++) {
        size_t recs = c->streamed ? c->chunk : c->nnz[k];
        CUZK_CU_GOTO(cudaMalloc(&c->d_sig[k], (recs ? recs : 1) * sizeof(uint32_t)), fail);
        CUZK_CU_GOTO(cudaMalloc(&c->d_val[k], (recs ? recs : 1) * c->vbytes), fail);
        if (!c->streamed && recs) {
            CUZK_CU_GOTO(cudaMemcpy(c->d_sig[k], c->h_sig[k], recs * sizeof(uint32_t), cudaMemcpyHostToDevice), fail);
            CUZK_CU_GOTO(cudaMemcpy(c->d_val[k], c->h_val[k], recs * c->vbytes, cudaMemcpyHostToDevice), fail);
        }
    }
    if (c->vbytes == 4) {
        CUZK_CU_GOTO(cudaMalloc(&c->d_dict, (size_t)c->ndict * 32), fail);
        CUZK_CU_GOTO(cudaMemcpy(c->d_dict, c->h_dict, (size_t)c->ndict * 32, cudaMemcpyHostToDevice), fail);
    }
    /* cudaMemcpy from pageable memory returns once the data is staged, not
     * on the device, and abc runs on the caller's non-blocking stream, which
     * the legacy stream does not order: wait for the uploads */
    CUZK_CU_GOTO(cudaStreamSynchronize(0), fail);
    c->acquired = true;
    return CUZK_OK;
fail:
    device_release(c);
    return st;
}

template <class P>
cuzk_status abc_t(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c, cudaStream_t st,
                  int (*cancelled)(void *), void *user, cuzk_error *e)
{
    typedef fp<P> F;
    const F *w = (const F *)d_w;
    if (!c->streamed) {
        if (c->n_rows == 0) return CUZK_OK;
        abc_kernel<P><<<ceil_div_u(c->n_rows, G16_THREADS), G16_THREADS, 0, st>>>(
            c->d_row[0], c->d_sig[0], c->d_val[0], c->d_row[1], c->d_sig[1], c->d_val[1], (const F *)c->d_dict, w,
            (F *)d_a, (F *)d_b, (F *)d_c, 0, c->n_rows);
        CUZK_LAUNCHED("abc");
        return CUZK_OK;
    }
    /* Streamed: ranges of rows whose A and B records fit one buffer; the
     * upload of range k + 1 (copy stream) overlaps the kernel of range k,
     * ordered by events per buffer. */
    const uint32_t *ra = c->h_row[0], *rb = c->h_row[1];
    uint32_t r0 = 0;
    for (size_t k = 0; r0 < c->n_rows; k++) {
        /* largest r1 with the range's records <= chunk (f(r) = ra[r] + rb[r] grows with r) */
        const size_t base = (size_t)ra[r0] + rb[r0];
        uint32_t lo = r0, hi = c->n_rows;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo + 1) / 2;
            if ((size_t)ra[mid] + rb[mid] - base <= c->chunk) lo = mid;
            else hi = mid - 1;
        }
        const uint32_t r1 = lo;
        if (r1 == r0)
            return cuzk_err(e, CUZK_ERR_UNSUPPORTED,
                            "gpu prover: constraint %u has %zu coefficients, more than a streamed chunk (%zu)", r0,
                            (size_t)ra[r0 + 1] + rb[r0 + 1] - base, c->chunk);
        const int s = (int)(k % (size_t)c->nbuf);
        const size_t na = ra[r1] - ra[r0], nb = rb[r1] - rb[r0];
        if (k >= (size_t)c->nbuf) {
            /* with a cancel poll the host waits here for the kernel of range
             * k - nbuf (range k - 1 is still queued, so the GPU keeps busy) */
            if (cancelled) {
                cudaError_t q;
                while ((q = cudaEventQuery(c->ev_done[s])) == cudaErrorNotReady) {
                    if (cancelled(user)) return cuzk_err(e, CUZK_ERR_CANCELLED, "cancelled");
                    sched_yield();
                }
                CUZK_CU(q);
            }
            CUZK_CU(cudaStreamWaitEvent(c->cp, c->ev_done[s], 0));
        }
        CUZK_CU(cudaMemcpyAsync(c->d_sig[s], c->h_sig[0] + ra[r0], na * 4, cudaMemcpyHostToDevice, c->cp));
        CUZK_CU(cudaMemcpyAsync(c->d_sig[s] + na, c->h_sig[1] + rb[r0], nb * 4, cudaMemcpyHostToDevice, c->cp));
        const size_t vb_ = c->vbytes;
        CUZK_CU(cudaMemcpyAsync(c->d_val[s], c->h_val[0] + (size_t)ra[r0] * vb_, na * vb_, cudaMemcpyHostToDevice, c->cp));
        CUZK_CU(cudaMemcpyAsync(c->d_val[s] + na * vb_, c->h_val[1] + (size_t)rb[r0] * vb_, nb * vb_,
                                cudaMemcpyHostToDevice, c->cp));
        CUZK_CU(cudaEventRecord(c->ev_up[s], c->cp));
        CUZK_CU(cudaStreamWaitEvent(st, c->ev_up[s], 0));
        /* the buffer's values shifted so that global record indices address them */
        const uint8_t *va = c->d_val[s] - (size_t)ra[r0] * vb_, *vb = c->d_val[s] + na * vb_ - (size_t)rb[r0] * vb_;
        abc_kernel<P><<<ceil_div_u(r1 - r0, G16_THREADS), G16_THREADS, 0, st>>>(
            c->d_row[0], c->d_sig[s] - ra[r0], va, c->d_row[1], c->d_sig[s] + na - rb[r0], vb, (const F *)c->d_dict,
            w, (F *)d_a, (F *)d_b, (F *)d_c, r0, r1 - r0);
        CUZK_LAUNCHED("abc");
        CUZK_CU(cudaEventRecord(c->ev_done[s], st));
        r0 = r1;
    }
    /* the next call's first uploads wait for this call's last kernels */
    CUZK_CU(cudaStreamWaitEvent(c->cp, c->ev_done[0], 0));
    if (c->nbuf > 1) CUZK_CU(cudaStreamWaitEvent(c->cp, c->ev_done[1], 0));
    return CUZK_OK;
}

/* host: the operand only read (b of MUL, a of RSUB) is in mapped host memory. */
template <class P>
cuzk_status pointwise_t(void *d_a, const void *d_b, const void *d_c, size_t n, int op, bool host, cudaStream_t st,
                        cuzk_error *e)
{
    if (n == 0) return CUZK_OK;
    size_t blocks = (n + G16_THREADS - 1) / G16_THREADS;
    if (blocks > 65536) blocks = 65536; /* grid-stride beyond */
    if (host && op == CUZK_GPU_G16_MUL)
        host_operand_kernel<P><<<(unsigned)blocks, G16_THREADS, 0, st>>>((fp<P> *)d_a, (const uint4 *)d_b, n, op);
    else if (host && op == CUZK_GPU_G16_RSUB)
        host_operand_kernel<P><<<(unsigned)blocks, G16_THREADS, 0, st>>>((fp<P> *)d_c, (const uint4 *)d_a, n, op);
    else if (op == CUZK_GPU_G16_RSUB)
        rsub_kernel<P><<<(unsigned)blocks, G16_THREADS, 0, st>>>((const fp<P> *)d_a, (fp<P> *)d_c, n);
    else
        pointwise_kernel<P><<<(unsigned)blocks, G16_THREADS, 0, st>>>((fp<P> *)d_a, (const fp<P> *)d_b,
                                                                      (const fp<P> *)d_c, n, op);
    CUZK_LAUNCHED("pointwise");
    return CUZK_OK;
}

/* The packed witness (gpu/g16/wpack.h) expanded: one block a tile, 4 values a
 * thread (one code byte); a thread's first whole value is the tile's offset
 * plus the whole values of the threads before it (a block scan of counts). */
constexpr unsigned WX_THREADS = CUZK_WPACK_TILE / 4;

__global__ void __launch_bounds__(WX_THREADS) witness_expand_kernel(const uint8_t *codes, const uint32_t *tile_off,
                                                                    const uint4 *full, uint4 *w, size_t n,
                                                                    size_t tile0)
{
    __shared__ uint32_t warp_sum[WX_THREADS / 32];
    const size_t t = tile0 + blockIdx.x;
    const size_t i0 = t * CUZK_WPACK_TILE + 4 * threadIdx.x;
    const unsigned lane = threadIdx.x & 31, wid = threadIdx.x / 32;
    const unsigned cnt_here = i0 < n ? (unsigned)(n - i0 < 4 ? n - i0 : 4) : 0;
    const unsigned byte = cnt_here ? codes[i0 / 4] : 0;
    unsigned whole = 0;
    for (unsigned k = 0; k < cnt_here; k++) whole += ((byte >> (2 * k)) & 3) == 2;
    /* exclusive scan of `whole` over the block */
    unsigned x = whole;
    for (unsigned d = 1; d < 32; d <<= 1) {
        const unsigned y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    if (lane == 31) warp_sum[wid] = x;
    __syncthreads();
    unsigned before = 0;
    for (unsigned k = 0; k < wid; k++) before += warp_sum[k];
    size_t pos = (size_t)tile_off[t] + before + x - whole;
    for (unsigned k = 0; k < cnt_here; k++) {
        const unsigned code = (byte >> (2 * k)) & 3;
        uint4 lo = make_uint4(code, 0, 0, 0), hi = make_uint4(0, 0, 0, 0);
        if (code == 2) {
            lo = full[2 * pos];
            hi = full[2 * pos + 1];
            pos++;
        }
        w[2 * (i0 + k)] = lo;
        w[2 * (i0 + k) + 1] = hi;
    }
}

bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

/* out[i] = w[index[i]] over 32-byte scalars: two threads a scalar, 16 bytes each. */
__global__ void gather_kernel(const uint32_t *index, const uint4 *w, uint4 *out, size_t n)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 2 * n) return;
    out[t] = w[2 * (size_t)index[t >> 1] + (t & 1)];
}

/* Two threads a wire (16 bytes each): a selected wire's scalar to its rank
 * among the selected, its word's offset plus the set bits below it. */
__global__ void select_kernel(const uint32_t *bits, const uint32_t *off, const uint4 *w, uint4 *out, size_t n)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= 2 * n) return;
    const size_t i = t >> 1;
    const uint32_t word = bits[i >> 5], b = (uint32_t)(i & 31);
    if (!((word >> b) & 1)) return;
    const size_t pos = (size_t)off[i >> 5] + (size_t)__popc(word & ((1u << b) - 1));
    out[2 * pos + (t & 1)] = w[t];
}

/* The table of the curve whose Fr has the parameters Fr (gpu_field.cuh). */
template <class Fr> constexpr gpu_g16_ops g16_ops_of = {abc_t<Fr>, pointwise_t<Fr>};

/* The Groth16 steps of a curve, one table per curve of curves.h over its
 * <id>_fr_p; NULL for CUZK_CURVE_NONE or an unknown value. The one function
 * here that chooses code by curve. */
const gpu_g16_ops *g16_ops_get(cuzk_curve c)
{
    switch (c) {
#define G16_OPS_CASE(id, e) \
    case e: return &g16_ops_of<id##_fr_p>;
        CUZK_CURVES(G16_OPS_CASE)
#undef G16_OPS_CASE
    default: return NULL;
    }
}

} /* namespace */

extern "C" cuzk_status cuzk_gpu_g16_csr_create(cuzk_gpu_g16_csr **out, cuzk_curve curve, uint32_t n_rows,
                                               uint32_t n_vars, const cuzk_gpu_g16_coefs *co, size_t chunk,
                                               int device, cuzk_error *e)
{
    if (!out || !co) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: NULL argument");
    *out = NULL;
    const gpu_g16_ops *ops = g16_ops_get(curve);
    if (!ops) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: unknown curve %d", (int)curve);
    CUZK_DEVICE_GUARD(device);
    cuzk_gpu_g16_csr *c = (cuzk_gpu_g16_csr *)cuzk_calloc(1, sizeof *c);
    if (!c) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    c->curve = curve;
    c->ops = ops;
    c->device = device;
    c->n_rows = n_rows;
    c->n_vars = n_vars;
    c->streamed = chunk != 0;
    c->chunk = chunk < co->n ? chunk : (co->n ? co->n : 1);
    c->nbuf = chunk >= co->n ? 1 : 2;
    cuzk_status st = csr_build(c, co, e);
    if (!st && c->streamed) {
        cudaError_t rc = cudaStreamCreateWithFlags(&c->cp, cudaStreamNonBlocking);
        for (int k = 0; k < 2 && rc == cudaSuccess; k++) {
            rc = cudaEventCreateWithFlags(&c->ev_up[k], cudaEventDisableTiming);
            if (rc == cudaSuccess) rc = cudaEventCreateWithFlags(&c->ev_done[k], cudaEventDisableTiming);
        }
        if (rc != cudaSuccess)
            st = cuzk_err(e, CUZK_ERR_GPU, "gpu prover: CSR stream/events: %s", cudaGetErrorString(rc));
    }
    if (!st && !c->streamed) {
        st = device_acquire(c, e);
        for (int k = 0; k < 2 && !st; k++) {
            host_free(c->h_sig[k], false);
            host_free(c->h_val[k], false);
            c->h_sig[k] = NULL;
            c->h_val[k] = NULL;
        }
    }
    if (st) {
        csr_free(c);
        cuzk_free(c);
        return st;
    }
    *out = c;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g16_csr_acquire(cuzk_gpu_g16_csr *c, cuzk_error *e)
{
    if (!c) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: NULL CSR");
    if (c->acquired) return CUZK_OK;
    CUZK_DEVICE_GUARD(c->device);
    return device_acquire(c, e);
}

extern "C" size_t cuzk_gpu_g16_csr_value_bytes(const cuzk_gpu_g16_csr *c) { return c ? c->vbytes : 0; }

extern "C" cuzk_status cuzk_gpu_g16_csr_keep_rows(cuzk_gpu_g16_csr *c, cuzk_error *e)
{
    if (!c) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: NULL CSR");
    if (!c->streamed || c->rows_kept) return CUZK_OK;
    CUZK_DEVICE_GUARD(c->device);
    cuzk_status st = rows_upload(c, e);
    if (st == CUZK_OK) c->rows_kept = true;
    return st;
}

extern "C" void cuzk_gpu_g16_csr_release(cuzk_gpu_g16_csr *c)
{
    if (!c || !c->streamed || !c->acquired) return;
    cuzk_gpu::device_guard g(c->device);
    cudaStreamSynchronize(c->cp);
    device_release(c);
}

extern "C" void cuzk_gpu_g16_csr_destroy(cuzk_gpu_g16_csr *c)
{
    if (!c) return;
    cuzk_gpu::device_guard g(c->device);
    if (c->cp) cudaStreamSynchronize(c->cp);
    csr_free(c);
    cuzk_free(c);
}

extern "C" cuzk_status cuzk_gpu_g16_abc(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c,
                                        void *stream, cuzk_error *e)
{
    return cuzk_gpu_g16_abc_poll(c, d_w, d_a, d_b, d_c, stream, NULL, NULL, e);
}

extern "C" cuzk_status cuzk_gpu_g16_abc_poll(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c,
                                             void *stream, int (*cancelled)(void *), void *user, cuzk_error *e)
{
    if (!c || !d_w) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover abc: NULL CSR or witness");
    if (!c->acquired) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover abc: streamed CSR not acquired");
    if (!aligned16(d_w) || !aligned16(d_a) || !aligned16(d_b) || !aligned16(d_c))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover abc: buffers must be 16-byte aligned");
    CUZK_DEVICE_GUARD(c->device);
    cudaStream_t st = (cudaStream_t)stream;
    return c->ops->abc(c, d_w, d_a, d_b, d_c, st, cancelled, user, e);
}

extern "C" cuzk_status cuzk_gpu_g16_pointwise(cuzk_curve curve, void *d_a, const void *d_b, const void *d_c, size_t n,
                                              cuzk_gpu_g16_pw_op op, void *stream, cuzk_error *e)
{
    const bool no_b = op == CUZK_GPU_G16_SUB || op == CUZK_GPU_G16_RSUB;
    if (!d_a || (!no_b && !d_b) || (op != CUZK_GPU_G16_MUL && !d_c))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover pointwise: NULL buffer");
    if (op != CUZK_GPU_G16_QUOTIENT && op != CUZK_GPU_G16_MUL && op != CUZK_GPU_G16_SUB && op != CUZK_GPU_G16_RSUB)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover pointwise: unknown op %d", (int)op);
    if (!aligned16(d_a) || !aligned16(d_b) || !aligned16(d_c))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover pointwise: buffers must be 16-byte aligned");
    const gpu_g16_ops *ops = g16_ops_get(curve);
    if (!ops) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover pointwise: unknown curve %d", (int)curve);
    /* the operand only read, in page-locked host memory: read by whole lines */
    const void *ro = op == CUZK_GPU_G16_MUL ? d_b : op == CUZK_GPU_G16_RSUB ? d_a : NULL;
    bool host = false;
    if (ro) {
        cudaPointerAttributes at;
        if (cudaPointerGetAttributes(&at, ro) == cudaSuccess) host = at.type == cudaMemoryTypeHost;
        else cudaGetLastError();
    }
    return ops->pointwise(d_a, d_b, d_c, n, (int)op, host, (cudaStream_t)stream, e);
}

extern "C" cuzk_status cuzk_gpu_g16_witness_expand(const void *index, const void *full, void *d_w, size_t n,
                                                   size_t tile0, size_t ntiles, void *stream, cuzk_error *e)
{
    if (!index || !full || !d_w) return cuzk_err(e, CUZK_ERR_USAGE, "gpu witness expand: NULL buffer");
    if (!aligned16(full) || !aligned16(d_w))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu witness expand: buffers must be 16-byte aligned");
    if (ntiles == 0) return CUZK_OK;
    const uint8_t *codes = (const uint8_t *)index;
    const uint32_t *tile_off = (const uint32_t *)(codes + cuzk_wpack_codes_bytes(n));
    witness_expand_kernel<<<(unsigned)ntiles, WX_THREADS, 0, (cudaStream_t)stream>>>(codes, tile_off, (const uint4 *)full,
                                                                                    (uint4 *)d_w, n, tile0);
    CUZK_LAUNCHED("witness_expand");
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g16_select(const uint32_t *d_bits, const uint32_t *d_off, const void *d_w,
                                           void *d_out, size_t n, void *stream, cuzk_error *e)
{
    if (!d_bits || !d_off || !d_w || !d_out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu select: NULL buffer");
    if (!aligned16(d_w) || !aligned16(d_out))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu select: buffers must be 16-byte aligned");
    if (n == 0) return CUZK_OK;
    const unsigned threads = 256;
    select_kernel<<<(unsigned)((2 * n + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(
        d_bits, d_off, (const uint4 *)d_w, (uint4 *)d_out, n);
    CUZK_LAUNCHED("select");
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_g16_gather(const uint32_t *d_index, const void *d_w, void *d_out, size_t n,
                                           void *stream, cuzk_error *e)
{
    if (!d_index || !d_w || !d_out) return cuzk_err(e, CUZK_ERR_USAGE, "gpu gather: NULL buffer");
    if (!aligned16(d_w) || !aligned16(d_out))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu gather: buffers must be 16-byte aligned");
    if (n == 0) return CUZK_OK;
    const unsigned threads = 256;
    gather_kernel<<<(unsigned)((2 * n + threads - 1) / threads), threads, 0, (cudaStream_t)stream>>>(
        d_index, (const uint4 *)d_w, (uint4 *)d_out, n);
    CUZK_LAUNCHED("gather");
    return CUZK_OK;
}
