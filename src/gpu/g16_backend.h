/* The GPU Groth16 backend: a key's data on the device per its memory plan
 * (include/cuzk/gpu_plan.h) and the device steps of a proof, for the proving
 * pipeline's backend table. Built only with CUDA (src/gpu/g16_backend.cu).
 *
 * Key (attach/detach): the plan is made for the key's shape, the budget and
 * W workers before anything is allocated; then the resident items are made
 * (coefficient CSR, NTT tables, MSM handles created with the plan's budgets,
 * bases uploaded once) and W pinned host witness buffers are page-locked
 * once and reused by every proof.
 *
 * Job (one proof): begin takes one of the W worker slots (it waits when all
 * are busy, so the device never holds more than the plan counted), copies the
 * witness into the slot's pinned buffer and, when the plan pre-stages,
 * allocates the device witness and uploads it on the job's copy stream while
 * other jobs' kernels run. abc takes the key's GPU lock, held through the
 * last MSM (device memory is allocated and freed under it, in plan order):
 * abc, ntt (three odd cosets and the quotient; b and c freed at once), the
 * MSMs in the order H (then h is freed), A, B1, C, B2 (then the witness is
 * freed and the lock released). Streamed items are created at their phase
 * and destroyed after it. Any error ends the job: end frees everything and
 * the key and the other jobs go on.
 *
 * Timing: every device phase is bracketed by CUDA events on the compute
 * stream (cuzk_gpu_g16_job_times); the device memory in use (the free memory
 * cudaMemGetInfo reports, against the free memory at attach) is sampled after
 * each phase's allocations, for the measured peak beside the planned one. */
#ifndef CUZK_GPU_G16_BACKEND_H
#define CUZK_GPU_G16_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/gpu_plan.h"
#include "gpu/g16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The key's host data, borrowed for the key's lifetime (streamed items are
 * read at every proof). Bases are affine points of the curve's types:
 * H 2^log_domain, A and B1 n_vars, C n_vars - n_public - 1 (G1), B2 n_vars
 * (G2); index by cuzk_gpu_plan_item_id - CUZK_GPU_ITEM_MSM_H. */
typedef struct cuzk_gpu_g16_key_src {
    cuzk_gpu_key_shape shape;
    cuzk_gpu_g16_coefs coefs;
    const void *bases[5];
} cuzk_gpu_g16_key_src;

typedef struct cuzk_gpu_g16_key cuzk_gpu_g16_key;
typedef struct cuzk_gpu_g16_job cuzk_gpu_g16_job;

/* Plans (po: device, budget, workers; NULL = defaults) and makes the
 * resident part. CUZK_ERR_NOMEM when no tier fits, CUZK_ERR_GPU on a CUDA
 * failure (nothing is left allocated). */
cuzk_status cuzk_gpu_g16_key_attach(cuzk_gpu_g16_key **out, const cuzk_gpu_g16_key_src *src,
                                    const cuzk_gpu_plan_opts *po, cuzk_error *e);
/* No job may be running. NULL is a no-op. */
void cuzk_gpu_g16_key_detach(cuzk_gpu_g16_key *k);
/* The plan, and the measured peak of device memory in use so far (bytes
 * over the free memory at attach; 0 before any job). */
void cuzk_gpu_g16_key_plan(const cuzk_gpu_g16_key *k, cuzk_gpu_plan *plan, size_t *measured_peak);

/* witness: n_vars raw scalars (32 bytes each), host; copied. */
cuzk_status cuzk_gpu_g16_job_begin(cuzk_gpu_g16_job **out, cuzk_gpu_g16_key *k, const void *witness,
                                   cuzk_error *e);
cuzk_status cuzk_gpu_g16_job_abc(cuzk_gpu_g16_job *j, cuzk_error *e);
/* The three odd-coset NTTs and h = a.b - c (raw) in a's buffer. */
cuzk_status cuzk_gpu_g16_job_ntt(cuzk_gpu_g16_job *j, cuzk_error *e);
/* MSM `id` (CUZK_GPU_ITEM_MSM_H .. _B2, in that order) into `result`, one
 * Jacobian point of the curve's G1 (G2 for B2) type. */
cuzk_status cuzk_gpu_g16_job_msm(cuzk_gpu_g16_job *j, cuzk_gpu_plan_item_id id, void *result, cuzk_error *e);
/* Device milliseconds of each phase so far (0 for phases not run). */
void cuzk_gpu_g16_job_times(const cuzk_gpu_g16_job *j, double ms[CUZK_GPU_PHASE_COUNT]);
/* Frees what the job holds, releases its lock and slot. NULL is a no-op. */
void cuzk_gpu_g16_job_end(cuzk_gpu_g16_job *j);

#ifdef __cplusplus
}
#endif

#endif
