/* GPU Groth16 prover kernels (src/gpu/g16/g16_kernels.cu): the steps between the
 * witness and the MSM scalars, on the device.
 *
 *  - a = A.w, b = B.w, c = a.b over the domain: a sparse matrix-vector
 *    product over the key's A and B coefficient records, prepared once per
 *    key into a device CSR (cuzk_gpu_g16_csr) and evaluated one row per
 *    thread. The records hold v.R^2 and the witness is raw, so one
 *    Montgomery product per term gives v.w in Montgomery form (as the CPU
 *    prover, src/groth16/groth16_impl.h); the sums are exact, so any order
 *    gives the CPU's bytes.
 *  - the quotient h = a.b - c out of Montgomery form (raw MSM scalars), after
 *    the three odd-coset NTTs (cuzk_gpu_ntt_run, CUZK_GPU_NTT_ODD_COSET), in
 *    a's buffer; with b and c kept only in turn (the plan's 2-vector tier) as
 *    two steps: a = a.b, then h = from_mont(a - c) (RSUB: into c's buffer,
 *    when a.b is read in place from host memory).
 *
 * Device layout of the CSR (what the memory plan, src/groth16/gpu_plan.c,
 * counts): per matrix a row-pointer array of n_rows + 1 u32, a signal u32
 * and a value (32 bytes) per record (streamed: per buffered record).
 *
 * Internal to libcuzk; without CUDA src/gpu/stub/g16_stub.c returns
 * CUZK_ERR_UNSUPPORTED. Calls queue work on `stream` (cudaStream_t, NULL =
 * legacy default) and return without waiting, except csr_create and
 * acquire, which wait for their uploads. A CSR serves one abc at a time. */
#ifndef CUZK_GPU_G16_H
#define CUZK_GPU_G16_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The key's coefficient records wherever they live (the zkey mapping's
 * 44-byte records or decoded arrays): field f of record i at f + i * stride
 * (the value at value + i * vstride), read with memcpy (no alignment
 * assumed). matrix 0 = A, 1 = B; value = v.R^2 mod r, 4 little-endian u64. */
typedef struct cuzk_gpu_g16_coefs {
    size_t n;
    const uint8_t *matrix, *constraint, *signal, *value;
    size_t stride, vstride;
} cuzk_gpu_g16_coefs;

typedef struct cuzk_gpu_g16_csr cuzk_gpu_g16_csr;

/* Device bytes of the CSR of n_coefs records over n_rows rows (plain C, in
 * every build: src/groth16/gpu_plan.c). */
size_t cuzk_gpu_g16_csr_device_bytes(uint32_t n_rows, size_t n_coefs);

/* Builds the CSR of A and B on the host (counting sort by row, records in
 * any order), checking every record: matrix 0 or 1, constraint < n_rows,
 * signal < n_vars (CUZK_ERR_FORMAT naming the record).
 * chunk = 0: RESIDENT, uploaded to `device` now (temporary host memory: the
 * CSR's size). chunk > 0: STREAMED, the records stay in pinned host memory
 * (page-locked once) and are uploaded at every abc in ranges of rows of at
 * most `chunk` records into two buffers (one when chunk >= the record
 * count), the upload of a range overlapping the kernel of the previous one;
 * the device part (row pointers, buffers) exists between acquire and
 * release, so a streamed CSR takes device memory only while abc runs. */
cuzk_status cuzk_gpu_g16_csr_create(cuzk_gpu_g16_csr **out, cuzk_curve curve, uint32_t n_rows,
                                    uint32_t n_vars, const cuzk_gpu_g16_coefs *co, size_t chunk,
                                    int device, cuzk_error *e);
/* Streamed: allocates the device part and uploads the row pointers (resident:
 * nothing to do). */
cuzk_status cuzk_gpu_g16_csr_acquire(cuzk_gpu_g16_csr *c, cuzk_error *e);
/* Bytes a record's value takes in the CSR: 32, or 4 where it is an index
 * into the table of the key's distinct values (coef_dict.h). */
size_t cuzk_gpu_g16_csr_value_bytes(const cuzk_gpu_g16_csr *c);
/* Streamed: waits for its uploads and frees the device part (the row
 * pointers too unless kept). */
void cuzk_gpu_g16_csr_release(cuzk_gpu_g16_csr *c);
/* Streamed: allocates and uploads the row pointers now and keeps them until
 * destroy, so that acquire allocates and copies only the chunk buffers (the
 * plan's rows_held; resident: nothing to do). */
cuzk_status cuzk_gpu_g16_csr_keep_rows(cuzk_gpu_g16_csr *c, cuzk_error *e);
void cuzk_gpu_g16_csr_destroy(cuzk_gpu_g16_csr *c);

/* Over all n_rows rows: d_a = A.w, d_b = B.w, d_c = (A.w).(B.w), each in
 * Montgomery form; a NULL output is not written (c alone evaluates both
 * sums). d_w: n_vars raw scalars on the device. Buffers: n_rows x 32
 * bytes, 16-byte aligned. */
cuzk_status cuzk_gpu_g16_abc(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b,
                             void *d_c, void *stream, cuzk_error *e);

/* The same, polling cancelled(user) while a streamed CSR waits for its
 * buffers between ranges of rows (CUZK_ERR_CANCELLED; the ranges queued so
 * far still run: synchronise `stream` before freeing the buffers). */
cuzk_status cuzk_gpu_g16_abc_poll(cuzk_gpu_g16_csr *c, const void *d_w, void *d_a, void *d_b, void *d_c,
                                  void *stream, int (*cancelled)(void *), void *user, cuzk_error *e);

typedef enum cuzk_gpu_g16_pw_op {
    CUZK_GPU_G16_QUOTIENT = 0, /* a = from_mont(a.b - c) */
    CUZK_GPU_G16_MUL = 1,      /* a = a.b                (c unused) */
    CUZK_GPU_G16_SUB = 2,      /* a = from_mont(a - c)   (b unused) */
    CUZK_GPU_G16_RSUB = 3      /* c = from_mont(a - c)   (b unused; a only read, c written) */
} cuzk_gpu_g16_pw_op;

/* Pointwise over n elements of Fr (Montgomery in, raw out for QUOTIENT /
 * SUB / RSUB). Any buffer may be device-visible host memory (page-locked
 * and mapped: read or written over the bus); MUL's b and RSUB's a, when
 * they are (cudaPointerGetAttributes), are read by a kernel of their own
 * whose warps read whole lines. */
cuzk_status cuzk_gpu_g16_pointwise(cuzk_curve curve, void *d_a, const void *d_b, const void *d_c,
                                   size_t n, cuzk_gpu_g16_pw_op op, void *stream, cuzk_error *e);

/* Expands tiles [tile0, tile0 + ntiles) of a packed witness of n values
 * (gpu/g16/wpack.h) into d_w (n raw scalars, 16-byte aligned). index and full
 * are device-visible: typically pinned host memory, read over the bus as
 * the kernel runs (the packed form is what crosses it). */
cuzk_status cuzk_gpu_g16_witness_expand(const void *index, const void *full, void *d_w, size_t n, size_t tile0,
                                        size_t ntiles, void *stream, cuzk_error *e);

/* d_out[i] = d_w[d_index[i]] for i < n, over raw 32-byte scalars (device
 * buffers, 16-byte aligned): the kept B wires' scalars (groth16/b_density.h). */
cuzk_status cuzk_gpu_g16_gather(const uint32_t *d_index, const void *d_w, void *d_out, size_t n, void *stream,
                                cuzk_error *e);

/* d_out = the d_w[i] (i < n) whose bit i of d_bits is set, in order: the
 * A or B selection of a bellperson proof (gpu/g16/g16_shape.h). d_bits:
 * (n + 31) / 32 words, bit i of word i / 32 least significant first, none
 * set past n; d_off[k]: the set bits of the words before k. Raw 32-byte
 * scalars, device buffers 16-byte aligned. */
cuzk_status cuzk_gpu_g16_select(const uint32_t *d_bits, const uint32_t *d_off, const void *d_w, void *d_out,
                                size_t n, void *stream, cuzk_error *e);

#ifdef __cplusplus
}
#endif

#endif
