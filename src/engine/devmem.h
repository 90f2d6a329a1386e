/* Device-memory admission for the engine's GPU workers.
 *
 * A key is made resident on a GPU only when the GPU prover's plan for it
 * (include/cuzk/gpu_plan.h: the key's device items plus the buffers of the W
 * proofs that share it, W = the workers of that GPU) fits the GPU's budget
 * beside the plans of the keys already there; idle keys there may be evicted
 * (least recently used first) to make room, keys in use never. A job whose
 * key is resident needs nothing more: the plan holds its buffers, and the GPU
 * prover lets at most W proofs of a key hold device memory at once. So a job
 * that cannot fit waits for the keys in use to go idle, and no proof ever
 * runs out of device memory; a key whose plan cannot fit the budget even
 * alone is refused when its jobs are submitted.
 *
 * Pure arithmetic (the plan is computed for a given budget and SM count), so
 * it is unit-tested without a GPU. */
#ifndef CUZK_ENGINE_DEVMEM_H
#define CUZK_ENGINE_DEVMEM_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/gpu_plan.h"

/* The device bytes a key of `shape` holds on a GPU with `budget` bytes and
 * `sm_count` SMs, shared by `workers` workers: the peak of its best plan
 * within the budget (msm_copies: with the H MSM's copies in what the tier
 * leaves, cuzk_gpu_plan_opts). CUZK_ERR_NOMEM (a one-line message saying
 * what the smallest plan needs) when no plan fits. */
cuzk_status eng_devmem_plan(const cuzk_gpu_key_shape *shape, uint64_t budget, int sm_count,
                            unsigned workers, int msm_copies, uint64_t *bytes, cuzk_error *err);

/* The host memory admission counts for a key and its jobs, from the same
 * host plan the prover plans with (cuzk_gpu_plan.host, or the CPU prover's
 * cuzk_host_plan_cpu): key_bytes = what
 * the key holds with no proof running, its attach transients included (the
 * plan's attach phase, or its proof phases less the workers' own bytes,
 * whichever is larger, less the process's runtime reserve); job_bytes = what
 * one running proof adds (witness, a/b/c, the CPU's MSM workspace or the
 * host finish; page-locked buffers are the key's). */
void eng_hostmem_split(const cuzk_host_plan *h, uint64_t *key_bytes, uint64_t *job_bytes);

/* The same plan figures for a key of `shape`: on a GPU (budget > 0: its
 * device plan's tier, `workers` workers) or, budget 0, on the CPU (one
 * proof at a time per worker: figures per job); the key used in its file
 * mapping (the daemon's way); stage_bases as cuzk_gpu_plan_opts.stage_bases.
 * Returns CUZK_OK or the planner's error. */
cuzk_status eng_hostmem_plan(const cuzk_gpu_key_shape *shape, uint64_t budget, int sm_count, unsigned workers,
                             int msm_copies, int stage_bases, uint64_t *key_bytes, uint64_t *job_bytes,
                             cuzk_error *err);

/* A key resident (or being loaded) on the GPU. */
typedef struct eng_devmem_key {
    uint64_t bytes;        /* its plan's peak */
    int in_use;            /* jobs prove with it, or it is loading: never evicted */
    int64_t last_used_ms;  /* for the least-recently-used order */
} eng_devmem_key;

/* Can a key needing `need` bytes be admitted beside keys[0..n)? Returns 1
 * and marks in evict[] (may be NULL; n entries, set to 0 or 1) the idle keys
 * to unload first: the least recently used ones, less any of them that the
 * others' eviction already made room for;
 * returns 0 (evict[] all 0) when it must wait for keys in use. */
int eng_devmem_admit(uint64_t budget, const eng_devmem_key *keys, size_t n, uint64_t need,
                     int *evict);

#endif
