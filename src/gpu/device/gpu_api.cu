/* Device discovery and pinned host memory for the GPU API (cuzk/gpu.h), and
 * the internal device-memory and stream wrappers (gpu/device/gpu_mem.h). */
#include <string.h>

#include "gpu/device/gpu_common.cuh"
#include "gpu/device/gpu_mem.h"

extern "C" int cuzk_gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" cuzk_status cuzk_gpu_device_info(int device, char *name, size_t name_cap, size_t *total_mem, int *sm_count,
                                            cuzk_error *e)
{
    cudaDeviceProp p;
    CUZK_CU(cudaGetDeviceProperties(&p, device));
    if (name && name_cap) {
        strncpy(name, p.name, name_cap - 1);
        name[name_cap - 1] = 0;
    }
    if (total_mem) *total_mem = p.totalGlobalMem;
    if (sm_count) *sm_count = p.multiProcessorCount;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_host_alloc(void **p, size_t bytes, cuzk_error *e)
{
    if (!p) return cuzk_err(e, CUZK_ERR_USAGE, "gpu host alloc: NULL output");
    *p = NULL;
    CUZK_CU(cudaHostAlloc(p, bytes ? bytes : 1, cudaHostAllocPortable));
    return CUZK_OK;
}

extern "C" void cuzk_gpu_host_free(void *p)
{
    if (p) cudaFreeHost(p);
}

extern "C" cuzk_status cuzk_gpu_mem_info(int device, size_t *free_bytes, size_t *total_bytes, cuzk_error *e)
{
    size_t f = 0, t = 0;
    CUZK_DEVICE_GUARD(device);
    CUZK_CU(cudaMemGetInfo(&f, &t));
    if (free_bytes) *free_bytes = f;
    if (total_bytes) *total_bytes = t;
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_dev_alloc(void **p, size_t bytes, int device, cuzk_error *e)
{
    if (!p) return cuzk_err(e, CUZK_ERR_USAGE, "gpu alloc: NULL output");
    *p = NULL;
    CUZK_DEVICE_GUARD(device);
    cudaError_t rc = cudaMalloc(p, bytes ? bytes : 1);
    if (rc != cudaSuccess) {
        *p = NULL;
        return cuzk_err(e, rc == cudaErrorMemoryAllocation ? CUZK_ERR_NOMEM : CUZK_ERR_GPU,
                        "gpu alloc of %zu bytes on device %d: %s", bytes, device, cudaGetErrorString(rc));
    }
    return CUZK_OK;
}

extern "C" void cuzk_gpu_dev_free(void *p, int device)
{
    if (!p) return;
    cuzk_gpu::device_guard g(device);
    cudaFree(p);
}

extern "C" cuzk_status cuzk_gpu_copy(void *dst, const void *src, size_t bytes, void *stream, cuzk_error *e)
{
    CUZK_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream));
    return CUZK_OK;
}

extern "C" cuzk_status cuzk_gpu_stream_create(void **stream, int device, cuzk_error *e)
{
    if (!stream) return cuzk_err(e, CUZK_ERR_USAGE, "gpu stream: NULL output");
    *stream = NULL;
    CUZK_DEVICE_GUARD(device);
    cudaStream_t s;
    CUZK_CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *stream = (void *)s;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_stream_destroy(void *stream)
{
    if (stream) cudaStreamDestroy((cudaStream_t)stream);
}

extern "C" cuzk_status cuzk_gpu_stream_sync(void *stream, cuzk_error *e)
{
    CUZK_CU(cudaStreamSynchronize((cudaStream_t)stream));
    return CUZK_OK;
}
