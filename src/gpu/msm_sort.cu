/* GPU MSM: the radix-sort path of the bucket sort (CUZK_GPU_MSM_SORT=radix,
 * see msm_impl.cuh). The pairs (bucket key, entry) are sorted by the CUDA
 * toolkit's CUB device radix sort (onesweep: block-local ranking, decoupled
 * look-back; no global atomics that return a value). It lives in its own
 * translation unit so the sort is compiled once, not per curve and group. */
#include <cub/device/device_radix_sort.cuh>

#include "gpu/msm_sort.h"

/* Counts are passed as 32-bit (CUB then uses 32-bit offsets; entries are
 * 32-bit indices anyway). */
cudaError_t cuzk_msm_radix_temp_bytes(size_t n, unsigned end_bit, size_t *bytes)
{
    cub::DoubleBuffer<uint32_t> k(NULL, NULL), v(NULL, NULL);
    size_t b = 0;
    *bytes = 0;
    if (n > UINT32_MAX) return cudaErrorInvalidValue;
    cudaError_t rc = cub::DeviceRadixSort::SortPairs(NULL, b, k, v, (uint32_t)n, 0, (int)end_bit);
    *bytes = rc == cudaSuccess ? b : 0;
    return rc;
}

cudaError_t cuzk_msm_radix_sort(void *temp, size_t temp_bytes, uint32_t *keys0, uint32_t *keys1, uint32_t *vals0,
                                uint32_t *vals1, size_t n, unsigned end_bit, cudaStream_t st, int *key_sel, int *val_sel)
{
    cub::DoubleBuffer<uint32_t> k(keys0, keys1), v(vals0, vals1);
    size_t need = 0;
    if (n > UINT32_MAX) return cudaErrorInvalidValue;
    cudaError_t rc = cub::DeviceRadixSort::SortPairs(NULL, need, k, v, (uint32_t)n, 0, (int)end_bit, st);
    if (rc != cudaSuccess) return rc;
    if (need > temp_bytes) return cudaErrorMemoryAllocation; /* the plan's workspace is too small */
    rc = cub::DeviceRadixSort::SortPairs(temp, temp_bytes, k, v, (uint32_t)n, 0, (int)end_bit, st);
    *key_sel = k.selector;
    *val_sel = v.selector;
    return rc;
}
