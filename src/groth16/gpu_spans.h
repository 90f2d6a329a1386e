/* The device intervals of a GPU job (gpu/g16/g16_backend.h) as the
 * context's spans (cuzk_span, `--trace`, `-v` device lines), for both GPU
 * backends: snarkjs keys (backend_gpu.c) and bellperson mode
 * (bp_backend.c). Built with CUDA only (CUZK_HAVE_GPU_PROVER). */
#ifndef CUZK_GROTH16_GPU_SPANS_H
#define CUZK_GROTH16_GPU_SPANS_H

#ifdef CUZK_HAVE_GPU_PROVER
#include "gpu/g16/g16_backend.h"
#include "groth16/ctx.h"

/* Hands the job's device intervals completed since the last call to ctx's
 * span callback, as spans of the prove phases (abc, ntt, msm_h .. msm_b2;
 * the witness upload as "upload_witness" in phase abc) on GPU `device`,
 * lane = the job's worker slot and stream. wait != 0: first waits for all
 * the job's queued work, so every interval left is reported (at job end).
 * Nothing is read from the device when ctx has no span callback; ctx may
 * be NULL. */
void cuzk_g16_gpu_report_spans(cuzk_ctx *ctx, cuzk_gpu_g16_job *j, int device, int wait);
#endif

#endif
