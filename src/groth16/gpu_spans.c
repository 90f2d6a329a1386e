/* Device intervals of a GPU job as the context's spans (gpu_spans.h). Empty
 * without CUDA. */
#ifdef CUZK_HAVE_GPU_PROVER
#include "groth16/gpu_spans.h"

static const cuzk_phase SPAN_PHASE[CUZK_GPU_PHASE_COUNT] = {
    [CUZK_GPU_PHASE_STAGE] = CUZK_PHASE_ABC,    [CUZK_GPU_PHASE_ABC] = CUZK_PHASE_ABC,
    [CUZK_GPU_PHASE_NTT] = CUZK_PHASE_NTT,      [CUZK_GPU_PHASE_MSM_H] = CUZK_PHASE_MSM_H,
    [CUZK_GPU_PHASE_MSM_A] = CUZK_PHASE_MSM_A,  [CUZK_GPU_PHASE_MSM_B1] = CUZK_PHASE_MSM_B1,
    [CUZK_GPU_PHASE_MSM_C] = CUZK_PHASE_MSM_C,  [CUZK_GPU_PHASE_MSM_B2] = CUZK_PHASE_MSM_B2,
};

void cuzk_g16_gpu_report_spans(cuzk_ctx *ctx, cuzk_gpu_g16_job *j, int device, int wait)
{
    if (!ctx || !ctx->opts.span || !j)
        return;
    cuzk_gpu_g16_span sp[32];
    size_t n;
    do {
        n = cuzk_gpu_g16_job_spans(j, wait, sp, sizeof sp / sizeof *sp);
        for (size_t i = 0; i < n; i++) {
            cuzk_span s = {
                .name = sp[i].name                         ? sp[i].name
                        : sp[i].phase == CUZK_GPU_PHASE_STAGE ? "upload_witness"
                                                              : cuzk_phase_name(SPAN_PHASE[sp[i].phase]),
                .phase = SPAN_PHASE[sp[i].phase],
                .device = device,
                .worker = sp[i].slot,
                .stream = sp[i].stream,
                .start = sp[i].start,
                .end = sp[i].end,
            };
            cuzk_ctx_span(ctx, &s);
        }
    } while (n == sizeof sp / sizeof *sp);
}

#endif /* CUZK_HAVE_GPU_PROVER */
