/* An MSM in two halves (internal to libcuzk; CUDA builds only): issue
 * queues the device work on a stream up to the read-back of the window sums
 * and returns; finish waits for those sums and combines them on the host.
 * Between the two the caller may issue other device work (the next MSM of a
 * proof on another handle), so the GPU does not wait while the host
 * combines. issue + finish give the point cuzk_gpu_msm_run gives. One
 * ticket per issued MSM; a handle holds at most one issued MSM at a time. */
#ifndef CUZK_GPU_MSM_ASYNC_H
#define CUZK_GPU_MSM_ASYNC_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_msm_ticket {
    uint64_t opaque[160]; /* the handle's pending state (checked at compile time) */
    int issued, empty;   /* empty: n == 0, the result is infinity */
} cuzk_gpu_msm_ticket;

/* As cuzk_gpu_msm_run's arguments; may block briefly (a resident handle
 * reads the count of significant scalars to choose its window). */
cuzk_status cuzk_gpu_msm_issue(cuzk_gpu_msm *m, cuzk_gpu_msm_ticket *t, const uint64_t *scalars, size_t n,
                               int scalars_on_device, void *stream, cuzk_error *e);
/* result: one Jacobian point, as cuzk_gpu_msm_run. The ticket is spent. */
cuzk_status cuzk_gpu_msm_finish(cuzk_gpu_msm *m, cuzk_gpu_msm_ticket *t, void *result, cuzk_error *e);

#ifdef __cplusplus
}
#endif

#endif
