/* Device memory, copies and streams: thin wrappers over the CUDA runtime so
 * that C code (the bellperson GPU backend, the self-test and kernel
 * benchmark in diag/, the GPU tests and tools) needs no CUDA headers.
 * Internal to libcuzk: not exported by libcuzk.so (a library user who
 * holds device memory uses the CUDA runtime directly); tests and tools
 * reach them through the static library. Without CUDA (gpu/stub/) each
 * returns CUZK_ERR_GPU ("built without CUDA") or does nothing. */
#ifndef CUZK_GPU_GPU_MEM_H
#define CUZK_GPU_GPU_MEM_H

#include <stddef.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `bytes` (at least 1) of device memory on `device` into *p (NULL on error):
 * CUZK_ERR_NOMEM when the device is out of memory, CUZK_ERR_GPU otherwise. */
cuzk_status cuzk_gpu_dev_alloc(void **p, size_t bytes, int device, cuzk_error *e);
/* Frees what cuzk_gpu_dev_alloc gave on `device`; NULL is a no-op. */
void cuzk_gpu_dev_free(void *p, int device);
/* Copies `bytes` in any direction (unified addressing), queued on `stream`
 * (a cudaStream_t; NULL: the legacy default stream). Host memory that is not
 * pinned makes the copy synchronous. */
cuzk_status cuzk_gpu_copy(void *dst, const void *src, size_t bytes, void *stream, cuzk_error *e);
/* A non-blocking stream on `device` into *stream. */
cuzk_status cuzk_gpu_stream_create(void **stream, int device, cuzk_error *e);
/* Destroys a stream of cuzk_gpu_stream_create; NULL is a no-op. */
void cuzk_gpu_stream_destroy(void *stream);
/* Waits for the stream (NULL: the default stream); reports any asynchronous
 * kernel error as CUZK_ERR_GPU. */
cuzk_status cuzk_gpu_stream_sync(void *stream, cuzk_error *e);

#ifdef __cplusplus
}
#endif

#endif
