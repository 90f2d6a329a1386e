/* Internal helpers shared by every layer. */
#ifndef CUZK_UTIL_COMMON_H
#define CUZK_UTIL_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

/* Token pasting used by the per-curve "templates": generic code lives in
 * *_impl.h / *_decl.h headers that read a prefix macro and are included once
 * per curve, so each algorithm is written once and compiled per curve. */
#define CUZK_CAT2_(a, b) a##b
#define CUZK_CAT2(a, b) CUZK_CAT2_(a, b)
#define CUZK_CAT3(a, b, c) CUZK_CAT2(CUZK_CAT2(a, b), c)
#define CUZK_NAME(prefix, name) CUZK_CAT3(prefix, _, name)

#define CUZK_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define CUZK_MIN(a, b) ((a) < (b) ? (a) : (b))
#define CUZK_MAX(a, b) ((a) > (b) ? (a) : (b))

#if defined(__GNUC__)
#define CUZK_LIKELY(x) __builtin_expect(!!(x), 1)
#define CUZK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CUZK_INLINE static inline __attribute__((always_inline))
#define CUZK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CUZK_LIKELY(x) (x)
#define CUZK_UNLIKELY(x) (x)
#define CUZK_INLINE static inline
#define CUZK_PRINTF(a, b)
#endif

/* Set an error (code + formatted one-line message). Returns code, so callers
 * can write `return cuzk_err(e, CUZK_ERR_FORMAT, "%s: bad magic", path);`.
 * e may be NULL. Does not overwrite an error that is already set. */
cuzk_status cuzk_err(cuzk_error *e, cuzk_status code, const char *fmt, ...) CUZK_PRINTF(3, 4);
/* Same, but always overwrites. */
cuzk_status cuzk_err_force(cuzk_error *e, cuzk_status code, const char *fmt, ...) CUZK_PRINTF(3, 4);
void cuzk_err_clear(cuzk_error *e);

/* Checked allocation helpers (NULL on overflow / failure). 64-byte aligned. */
void *cuzk_alloc(size_t n, size_t size);
void *cuzk_calloc(size_t n, size_t size);
void cuzk_free(void *p);

/* Monotonic wall clock in seconds. */
double cuzk_now(void);

/* Host memory a new allocation can take without swapping (Linux:
 * MemAvailable, or what the cgroup v2 limit memory.max leaves above
 * memory.current when that is lower; elsewhere the physical memory). */
uint64_t cuzk_host_mem_available(void);

/* The host's physical memory in bytes. */
uint64_t cuzk_host_mem_total(void);

/* The margins of the default memory budgets, in one place: every default
 * budget is what is free minus max(floor, 2 % of the total), with these
 * floors. Host: MemAvailable (cuzk_host_mem_available) minus max(1 GiB, 2 %
 * of the physical memory): the host plan's budget (cuzk_host_mem_budget)
 * and cuzk_host_mem_check. Device: free memory minus max(512 MiB, 2 % of the
 * device): the GPU prover's plan (cuzk_gpu_plan_proof) and the daemon's
 * per-GPU budget; a lone MSM handle (cuzk_gpu_msm_config.device_budget 0)
 * keeps max(256 MiB, 2 %). */
#define CUZK_MARGIN_HOST_MIN ((uint64_t)1 << 30)
#define CUZK_MARGIN_DEVICE_MIN ((uint64_t)512 << 20)
#define CUZK_MARGIN_MSM_MIN ((uint64_t)256 << 20)
/* max(floor, total / 50). */
uint64_t cuzk_mem_margin(uint64_t total, uint64_t floor);
/* avail minus cuzk_mem_margin(total, floor), 0 when that is more than avail. */
uint64_t cuzk_mem_after_margin(uint64_t avail, uint64_t total, uint64_t floor);

/* CUZK_ERR_NOMEM naming `what` when `need` bytes would leave less than
 * cuzk_mem_margin(physical memory, CUZK_MARGIN_HOST_MIN) of the host memory
 * available now,
 * else CUZK_OK: for big buffers (page-locked, or touched at once) that would
 * otherwise end the process through the OOM killer. */
cuzk_status cuzk_host_mem_check(uint64_t need, const char *what, cuzk_error *e);

/* Fill buf with bytes from the OS CSPRNG (getrandom). Returns false on failure. */
bool cuzk_random_bytes(void *buf, size_t n);

#endif
