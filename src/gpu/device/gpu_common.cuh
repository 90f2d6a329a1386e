/* Shared helpers for the CUDA sources: error checking that turns every CUDA
 * failure into a cuzk_status + message (never abort), and device selection. */
#ifndef CUZK_GPU_COMMON_CUH
#define CUZK_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

extern "C" {
#include "util/common.h"
}
#include "cuzk/gpu.h"

/* Evaluate a CUDA runtime call; on failure set *e and return the status from
 * the enclosing function. Requires a `cuzk_error *e` in scope. */
#define CUZK_CU(call)                                                                          \
    do {                                                                                       \
        cudaError_t cuzk_cu_rc_ = (call);                                                      \
        if (cuzk_cu_rc_ != cudaSuccess)                                                        \
            return cuzk_err(e, CUZK_ERR_GPU, "%s:%d: %s: %s", __FILE__, __LINE__, #call,       \
                            cudaGetErrorString(cuzk_cu_rc_));                                  \
    } while (0)

/* Same, for use inside functions that must clean up: sets st and jumps. */
#define CUZK_CU_GOTO(call, label)                                                              \
    do {                                                                                       \
        cudaError_t cuzk_cu_rc_ = (call);                                                      \
        if (cuzk_cu_rc_ != cudaSuccess) {                                                      \
            st = cuzk_err(e, CUZK_ERR_GPU, "%s:%d: %s: %s", __FILE__, __LINE__, #call,         \
                          cudaGetErrorString(cuzk_cu_rc_));                                    \
            goto label;                                                                        \
        }                                                                                      \
    } while (0)

/* Check the launch that just happened (configuration errors are reported
 * here; execution errors at the next synchronising call). */
#define CUZK_LAUNCHED(name) CUZK_CU(cudaGetLastError())

namespace cuzk_gpu {

/* Make `device` current for the calling thread; remembers the previous one
 * and restores it on scope exit, so library calls do not leak device state
 * into the caller's thread. */
struct device_guard {
    int prev = -1;
    bool ok = false;
    cudaError_t rc = cudaSuccess;
    explicit device_guard(int device)
    {
        rc = cudaGetDevice(&prev);
        if (rc != cudaSuccess) return;
        if (prev != device) rc = cudaSetDevice(device);
        ok = rc == cudaSuccess;
    }
    ~device_guard()
    {
        if (ok && prev >= 0) cudaSetDevice(prev);
    }
};

#define CUZK_DEVICE_GUARD(dev)                                                                 \
    cuzk_gpu::device_guard cuzk_dg_(dev);                                                      \
    if (!cuzk_dg_.ok)                                                                          \
        return cuzk_err(e, CUZK_ERR_GPU, "%s: cannot select CUDA device %d: %s", __FILE__,     \
                        (int)(dev), cudaGetErrorString(cuzk_dg_.rc));

static inline unsigned ceil_div_u(size_t a, size_t b) { return (unsigned)((a + b - 1) / b); }

} /* namespace cuzk_gpu */

#endif
