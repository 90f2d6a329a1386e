/* DESIGN: one Groth16 pipeline, several backends.
 *
 * The proving steps are written once, in src/groth16/prove.c, in plain
 * curve-neutral C:
 *
 *   witness ─► job_begin ─► abc ─► ntt_quotient ─► msm H, A, B1, C (G1), B2 (G2) ─► job_end
 *                                                   (in the job's order: msm_order)
 *                (w)     a,b,c=a∘b  3 odd-coset NTTs,     Jacobian points          │
 *                                   h = a·b − c (b, c freed)                       ▼
 *                        host (prove.c, curve ops): assembly with r, s ─► verification
 *
 * Each arrow is timed as a phase and followed by a cancellation check.
 * A backend does the heavy steps on its device and keeps what they produce
 * in its job between steps (the GPU backend keeps a, b, c and h on the device),
 * so no host vectors pass between the steps; only the five MSM results (one
 * point each) come back to the host. The per-curve arithmetic a backend needs
 * comes from the curve's cuzk_curve_ops (src/groth16/curve_ops.h); the CPU
 * backend (backend_cpu.c) is nothing but those kernels.
 *
 * Lifetimes and threads: key_attach builds the backend's state for a loaded
 * key once (CPU: the A/B evaluation plan and the NTT twiddles; GPU: uploaded
 * bases and coefficient rows); the state is immutable afterwards, so several
 * jobs may run on one key at once, each on its own thread with its own
 * context. A job belongs to one thread; job_end releases everything it holds
 * and is called whatever happened (also after a failed or cancelled step). */
#ifndef CUZK_GROTH16_BACKEND_H
#define CUZK_GROTH16_BACKEND_H

#include <stdint.h>

#include "cuzk/gpu_plan.h"
#include "groth16/curve_ops.h"
#include "formats/formats.h"
#include "groth16/ctx.h"

/* The five MSMs of a proof: bases (zkey sections) and scalars (raw Fr).
 *   H:  h (domain_size, from ntt_quotient)  × zk->h
 *   A:  w (n_vars)                          × zk->a
 *   B1: w (n_vars)                          × zk->b1
 *   C:  w[n_public + 1 ..] (private wires)  × zk->c
 *   B2: w (n_vars)                          × zk->b2 (G2) */
typedef enum cuzk_g16_msm {
    CUZK_G16_MSM_H = 0,
    CUZK_G16_MSM_A,
    CUZK_G16_MSM_B1,
    CUZK_G16_MSM_C,
    CUZK_G16_MSM_B2,
    CUZK_G16_MSM_COUNT
} cuzk_g16_msm;

typedef struct cuzk_g16_backend cuzk_g16_backend;

struct cuzk_g16_backend {
    const char *name;     /* "cpu", "gpu" */
    cuzk_backend kind;

    /* Builds the backend's state for a key. zk (validated, read in place or
     * copied) and ops outlive the state. *host_bytes / *device_bytes: memory
     * the state holds. Phases: the caller times this as "prepare"; it may
     * report progress and must poll cancellation in long loops (ctx). */
    cuzk_status (*key_attach)(const cuzk_g16_backend *be, cuzk_ctx *ctx, const cuzk_zkey *zk,
                              const cuzk_curve_ops *ops, const cuzk_key_opts *opts, void **key_state,
                              uint64_t *host_bytes, uint64_t *device_bytes, cuzk_error *err);
    void (*key_detach)(void *key_state);
    /* Optional (NULL on the CPU): the most device memory measured in use at
     * once so far by the key and its jobs (cuzk_key_info.device_peak). */
    uint64_t (*device_peak)(const void *key_state);
    /* Optional: the memory plan's tier, workers and host peak (cuzk_key_info). */
    void (*plan_info)(const void *key_state, unsigned *tier, unsigned *workers, uint64_t *host_peak);

    /* Starts a proof of witness w (n_vars raw Fr values, host memory that
     * stays valid until job_end). The job keeps ctx for its pool, progress,
     * cancellation (polled inside long steps too) and spans (device work). */
    cuzk_status (*job_begin)(const void *key_state, cuzk_ctx *ctx, const void *w, void **job, cuzk_error *err);
    void (*job_end)(void *job);

    /* a = A·w, b = B·w, c = a∘b over the domain. */
    cuzk_status (*abc)(void *job, cuzk_error *err);
    /* a, b, c to the odd coset of the domain, h = a·b − c as raw scalars for
     * the H MSM; b and c are released here. */
    cuzk_status (*ntt_quotient)(void *job, cuzk_error *err);
    /* One MSM into a Jacobian point (ops->desc->g1_jac bytes, g2_jac for B2;
     * Montgomery coordinates in the CPU layout). H needs ntt_quotient first;
     * the backend may release h after it. */
    cuzk_status (*msm)(void *job, cuzk_g16_msm which, void *out, cuzk_error *err);
    /* Optional (NULL: H, A, B1, C, B2): the order in which the job's MSMs
     * are asked for, fixed when the job begins. With H last the caller
     * assembles everything that does not need it before asking for it. */
    void (*msm_order)(const void *job, cuzk_g16_msm order[CUZK_G16_MSM_COUNT]);
};

/* The CPU backend (backend_cpu.c). */
const cuzk_g16_backend *cuzk_g16_backend_cpu(void);
/* The GPU backend, or NULL when this build has none. */
const cuzk_g16_backend *cuzk_g16_backend_gpu(void);

/* The sizes of zk that a GPU memory plan depends on (gpu_plan.c). */
void cuzk_g16_key_shape(cuzk_gpu_key_shape *out, const cuzk_zkey *zk);

#endif
