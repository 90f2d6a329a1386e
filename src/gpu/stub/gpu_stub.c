/* Built instead of the CUDA sources when CUDA is absent: the GPU API exists
 * but reports "built without CUDA". */
#include <string.h>
#include <stdlib.h>

#include "cuzk/gpu.h"
#include "gpu/device/gpu_mem.h"
#include "util/common.h"

#define NO_CUDA(e) cuzk_err(e, CUZK_ERR_UNSUPPORTED, "cuzk GPU: built without CUDA")

int cuzk_gpu_device_count(void) { return 0; }

cuzk_status cuzk_gpu_device_info(int device, char *name, size_t name_cap, size_t *total_mem, int *sm_count,
                                 cuzk_error *e)
{
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_ntt_create(cuzk_gpu_ntt **out, cuzk_curve curve, unsigned max_lg, int device, cuzk_error *e)
{
    if (out) *out = NULL;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_ntt_create_gen(cuzk_gpu_ntt **out, cuzk_curve curve, unsigned max_lg, uint64_t generator,
                                    int device, cuzk_error *e)
{
    if (out) *out = NULL;
    return NO_CUDA(e);
}

void cuzk_gpu_ntt_destroy(cuzk_gpu_ntt *t) {}

cuzk_status cuzk_gpu_ntt_run(cuzk_gpu_ntt *t, void *d_data, unsigned lg, cuzk_gpu_ntt_op op, void *stream,
                             cuzk_error *e)
{
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_msm_create(cuzk_gpu_msm **out, cuzk_curve curve, cuzk_gpu_group group, const void *bases,
                                size_t npoints, int bases_on_device, int device, const cuzk_gpu_msm_config *cfg,
                                cuzk_error *e)
{
    if (out) *out = NULL;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_msm_stager_create(cuzk_gpu_msm_stager **out, size_t chunk_bytes, int device, cuzk_error *e)
{
    (void)chunk_bytes;
    (void)device;
    if (out) *out = NULL;
    return NO_CUDA(e);
}

void cuzk_gpu_msm_stager_destroy(cuzk_gpu_msm_stager *s) { (void)s; }

void cuzk_gpu_msm_destroy(cuzk_gpu_msm *m) {}

cuzk_status cuzk_gpu_msm_run(cuzk_gpu_msm *m, void *result, const uint64_t *scalars, size_t n,
                             int scalars_on_device, void *stream, cuzk_error *e)
{
    return NO_CUDA(e);
}

unsigned cuzk_gpu_msm_last_window(const cuzk_gpu_msm *m) { return 0; }

cuzk_status cuzk_gpu_msm_prefetch(cuzk_gpu_msm *m, cuzk_error *e) { return NO_CUDA(e); }

cuzk_status cuzk_gpu_msm_run_many(cuzk_gpu_msm *m, void *results, const uint64_t *const *scalars, const size_t *n,
                                  size_t count, int scalars_on_device, void *stream, cuzk_error *e)
{
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_msm_plan_for(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                  const cuzk_gpu_msm_config *cfg, int device, cuzk_gpu_msm_plan *out, cuzk_error *e)
{
    return NO_CUDA(e);
}

void cuzk_gpu_msm_get_plan(const cuzk_gpu_msm *m, cuzk_gpu_msm_plan *out)
{
    if (out) memset(out, 0, sizeof *out);
}

cuzk_status cuzk_gpu_mem_info(int device, size_t *free_bytes, size_t *total_bytes, cuzk_error *e)
{
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_host_alloc(void **p, size_t bytes, cuzk_error *e)
{
    if (p) *p = NULL;
    return NO_CUDA(e);
}

void cuzk_gpu_host_free(void *p) {}

cuzk_status cuzk_gpu_dev_alloc(void **p, size_t bytes, int device, cuzk_error *e)
{
    if (p) *p = NULL;
    return NO_CUDA(e);
}

void cuzk_gpu_dev_free(void *p, int device) {}

cuzk_status cuzk_gpu_copy(void *dst, const void *src, size_t bytes, void *stream, cuzk_error *e)
{
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_stream_create(void **stream, int device, cuzk_error *e)
{
    if (stream) *stream = NULL;
    return NO_CUDA(e);
}

void cuzk_gpu_stream_destroy(void *stream) {}

cuzk_status cuzk_gpu_stream_sync(void *stream, cuzk_error *e) { return NO_CUDA(e); }

cuzk_status cuzk_gpu_fixed_create(cuzk_gpu_fixed **out, cuzk_curve curve, cuzk_gpu_group group, const void *base,
                                  int device, cuzk_error *e)
{
    if (out) *out = NULL;
    return NO_CUDA(e);
}

cuzk_status cuzk_gpu_fixed_run(cuzk_gpu_fixed *f, const void *scalars, size_t n, void *out, cuzk_error *e)
{
    return NO_CUDA(e);
}

void cuzk_gpu_fixed_destroy(cuzk_gpu_fixed *f) {}
