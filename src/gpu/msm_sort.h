/* GPU MSM radix-sort path (msm_sort.cu): sort of n (key, value) pairs of
 * 32-bit words by the key bits [0, end_bit) on stream st. The pairs start in
 * keys0/vals0; the sorted ones are in keys<key_sel>/vals<val_sel>. temp
 * must hold cuzk_msm_radix_temp_bytes(n', end_bit') bytes for some n' >= n,
 * end_bit' >= end_bit (the plan asks once for its largest batch); a smaller
 * workspace gives cudaErrorMemoryAllocation, nothing is launched then. */
#ifndef CUZK_GPU_MSM_SORT_H
#define CUZK_GPU_MSM_SORT_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

cudaError_t cuzk_msm_radix_temp_bytes(size_t n, unsigned end_bit, size_t *bytes);
cudaError_t cuzk_msm_radix_sort(void *temp, size_t temp_bytes, uint32_t *keys0, uint32_t *keys1, uint32_t *vals0,
                                uint32_t *vals1, size_t n, unsigned end_bit, cudaStream_t st, int *key_sel, int *val_sel);

#endif
