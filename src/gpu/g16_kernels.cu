/* GPU Groth16 prover kernels: a, b, c from the witness (CSR sparse
 * matrix-vector product) and the pointwise quotient. See src/gpu/g16.h. */
#include <string.h>

#include "gpu/g16.h"
#include "gpu/gpu_common.cuh"
#include "gpu/gpu_field.cuh"

using namespace cuzk_gpu;

namespace {

constexpr unsigned G16_THREADS = 256;

struct csr_matrix {
    uint32_t *row;  /* n_rows + 1 */
    uint32_t *sig;  /* nnz */
    void *val;      /* nnz x 32 bytes */
    size_t nnz;
};

} /* namespace */

struct cuzk_gpu_g16_csr {
    cuzk_curve curve;
    int device;
    uint32_t n_rows, n_vars;
    csr_matrix m[2]; /* A, B */
};

namespace {

/* One row per thread: acc_a = sum of A's terms, acc_b of B's. */
template <class P>
__global__ void abc_kernel(const uint32_t *__restrict__ ra, const uint32_t *__restrict__ sa,
                           const fp<P> *__restrict__ va, const uint32_t *__restrict__ rb,
                           const uint32_t *__restrict__ sb, const fp<P> *__restrict__ vb,
                           const fp<P> *__restrict__ w, fp<P> *a, fp<P> *b, fp<P> *c, uint32_t n)
{
    const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    fp<P> acc_a = fp_zero<P>(), acc_b = fp_zero<P>();
    if (a || c)
        for (uint32_t i = ra[r], end = ra[r + 1]; i < end; i++) acc_a = acc_a + va[i] * w[sa[i]];
    if (b || c)
        for (uint32_t i = rb[r], end = rb[r + 1]; i < end; i++) acc_b = acc_b + vb[i] * w[sb[i]];
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

void csr_free(cuzk_gpu_g16_csr *c)
{
    for (int k = 0; k < 2; k++) {
        cudaFree(c->m[k].row);
        cudaFree(c->m[k].sig);
        cudaFree(c->m[k].val);
    }
}

inline uint32_t rd32(const uint8_t *f, size_t i, size_t stride)
{
    uint32_t v;
    memcpy(&v, f + i * stride, sizeof v);
    return v;
}

/* The host CSR of both matrices, built, checked and uploaded. */
cuzk_status csr_build(cuzk_gpu_g16_csr *c, const cuzk_gpu_g16_coefs *co, cuzk_error *e)
{
    const size_t n = c->n_rows;
    cuzk_status st = CUZK_OK;
    uint32_t *row[2] = {NULL, NULL}, *fill[2] = {NULL, NULL}, *sig[2] = {NULL, NULL};
    uint8_t *val[2] = {NULL, NULL};
    size_t nnz[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        row[k] = (uint32_t *)cuzk_calloc(n + 1, sizeof(uint32_t));
        fill[k] = (uint32_t *)cuzk_alloc(n + 1, sizeof(uint32_t));
        if (!row[k] || !fill[k]) {
            st = cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of host memory for the CSR rows");
            goto out;
        }
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
        row[m][r + 1]++;
        nnz[m]++;
    }
    for (int k = 0; k < 2; k++) {
        if (nnz[k] > UINT32_MAX) {
            st = cuzk_err(e, CUZK_ERR_UNSUPPORTED, "gpu prover: more than 2^32 coefficients in one matrix");
            goto out;
        }
        for (size_t r = 0; r < n; r++) row[k][r + 1] += row[k][r];
        memcpy(fill[k], row[k], (n + 1) * sizeof(uint32_t));
        sig[k] = (uint32_t *)cuzk_alloc(nnz[k] ? nnz[k] : 1, sizeof(uint32_t));
        val[k] = (uint8_t *)cuzk_alloc(nnz[k] ? nnz[k] : 1, 32);
        if (!sig[k] || !val[k]) {
            st = cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of host memory for the CSR (%zu records)", co->n);
            goto out;
        }
    }
    for (size_t i = 0; i < co->n; i++) {
        uint32_t m = rd32(co->matrix, i, co->stride), r = rd32(co->constraint, i, co->stride);
        uint32_t at = fill[m][r]++;
        sig[m][at] = rd32(co->signal, i, co->stride);
        memcpy(val[m] + (size_t)at * 32, co->value + i * co->vstride, 32);
    }
    for (int k = 0; k < 2; k++) {
        csr_matrix *d = &c->m[k];
        d->nnz = nnz[k];
        CUZK_CU_GOTO(cudaMalloc(&d->row, (n + 1) * sizeof(uint32_t)), out);
        CUZK_CU_GOTO(cudaMalloc(&d->sig, (nnz[k] ? nnz[k] : 1) * sizeof(uint32_t)), out);
        CUZK_CU_GOTO(cudaMalloc(&d->val, (nnz[k] ? nnz[k] : 1) * 32), out);
        CUZK_CU_GOTO(cudaMemcpy(d->row, row[k], (n + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice), out);
        if (nnz[k]) {
            CUZK_CU_GOTO(cudaMemcpy(d->sig, sig[k], nnz[k] * sizeof(uint32_t), cudaMemcpyHostToDevice), out);
            CUZK_CU_GOTO(cudaMemcpy(d->val, val[k], nnz[k] * 32, cudaMemcpyHostToDevice), out);
        }
    }
out:
    for (int k = 0; k < 2; k++) {
        cuzk_free(row[k]);
        cuzk_free(fill[k]);
        cuzk_free(sig[k]);
        cuzk_free(val[k]);
    }
    return st;
}

template <class P>
cuzk_status abc_t(const cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c, cudaStream_t st,
                  cuzk_error *e)
{
    if (c->n_rows == 0) return CUZK_OK;
    const unsigned blocks = ceil_div_u(c->n_rows, G16_THREADS);
    abc_kernel<P><<<blocks, G16_THREADS, 0, st>>>(
        c->m[0].row, c->m[0].sig, (const fp<P> *)c->m[0].val, c->m[1].row, c->m[1].sig, (const fp<P> *)c->m[1].val,
        (const fp<P> *)d_w, (fp<P> *)d_a, (fp<P> *)d_b, (fp<P> *)d_c, c->n_rows);
    CUZK_LAUNCHED("abc");
    return CUZK_OK;
}

template <class P>
cuzk_status pointwise_t(void *d_a, const void *d_b, const void *d_c, size_t n, int op, cudaStream_t st,
                        cuzk_error *e)
{
    if (n == 0) return CUZK_OK;
    size_t blocks = (n + G16_THREADS - 1) / G16_THREADS;
    if (blocks > 65536) blocks = 65536; /* grid-stride beyond */
    pointwise_kernel<P><<<(unsigned)blocks, G16_THREADS, 0, st>>>((fp<P> *)d_a, (const fp<P> *)d_b,
                                                                  (const fp<P> *)d_c, n, op);
    CUZK_LAUNCHED("pointwise");
    return CUZK_OK;
}

bool aligned16(const void *p) { return ((uintptr_t)p & 15) == 0; }

} /* namespace */

extern "C" cuzk_status cuzk_gpu_g16_csr_create(cuzk_gpu_g16_csr **out, cuzk_curve curve, uint32_t n_rows,
                                               uint32_t n_vars, const cuzk_gpu_g16_coefs *co, int device,
                                               cuzk_error *e)
{
    if (!out || !co) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: NULL argument");
    *out = NULL;
    if (curve != CUZK_CURVE_BN254 && curve != CUZK_CURVE_BLS12_381)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover: unknown curve %d", (int)curve);
    CUZK_DEVICE_GUARD(device);
    cuzk_gpu_g16_csr *c = (cuzk_gpu_g16_csr *)cuzk_calloc(1, sizeof *c);
    if (!c) return cuzk_err(e, CUZK_ERR_NOMEM, "gpu prover: out of host memory");
    c->curve = curve;
    c->device = device;
    c->n_rows = n_rows;
    c->n_vars = n_vars;
    cuzk_status st = csr_build(c, co, e);
    if (st) {
        csr_free(c);
        cuzk_free(c);
        return st;
    }
    *out = c;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_g16_csr_destroy(cuzk_gpu_g16_csr *c)
{
    if (!c) return;
    cuzk_gpu::device_guard g(c->device);
    csr_free(c);
    cuzk_free(c);
}

extern "C" cuzk_status cuzk_gpu_g16_abc(const cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c,
                                        void *stream, cuzk_error *e)
{
    if (!c || !d_w) return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover abc: NULL CSR or witness");
    if (!aligned16(d_w) || !aligned16(d_a) || !aligned16(d_b) || !aligned16(d_c))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover abc: buffers must be 16-byte aligned");
    CUZK_DEVICE_GUARD(c->device);
    cudaStream_t st = (cudaStream_t)stream;
    return c->curve == CUZK_CURVE_BN254 ? abc_t<bn254_fr_p>(c, d_w, d_a, d_b, d_c, st, e)
                                        : abc_t<bls12_381_fr_p>(c, d_w, d_a, d_b, d_c, st, e);
}

extern "C" cuzk_status cuzk_gpu_g16_pointwise(cuzk_curve curve, void *d_a, const void *d_b, const void *d_c, size_t n,
                                              cuzk_gpu_g16_pw_op op, void *stream, cuzk_error *e)
{
    if (!d_a || (op != CUZK_GPU_G16_SUB && !d_b) || (op != CUZK_GPU_G16_MUL && !d_c))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover pointwise: NULL buffer");
    if (op != CUZK_GPU_G16_QUOTIENT && op != CUZK_GPU_G16_MUL && op != CUZK_GPU_G16_SUB)
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover pointwise: unknown op %d", (int)op);
    if (!aligned16(d_a) || !aligned16(d_b) || !aligned16(d_c))
        return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover pointwise: buffers must be 16-byte aligned");
    cudaStream_t st = (cudaStream_t)stream;
    switch (curve) {
    case CUZK_CURVE_BN254: return pointwise_t<bn254_fr_p>(d_a, d_b, d_c, n, (int)op, st, e);
    case CUZK_CURVE_BLS12_381: return pointwise_t<bls12_381_fr_p>(d_a, d_b, d_c, n, (int)op, st, e);
    default: return cuzk_err(e, CUZK_ERR_USAGE, "gpu prover pointwise: unknown curve %d", (int)curve);
    }
}
