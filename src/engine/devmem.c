/* Device-memory admission (see devmem.h). */
#include "engine/devmem.h"

#include "util/common.h"


cuzk_status eng_devmem_plan(const cuzk_gpu_key_shape *shape, uint64_t budget, int sm_count,
                            unsigned workers, int msm_copies, uint64_t *bytes, cuzk_error *err)
{
    *bytes = 0;
    if (!budget) /* the planner would read the budget from the device: never here */
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "no device memory budget");
    cuzk_gpu_plan_opts o = {.budget = (size_t)budget, .device = -1, .sm_count = sm_count,
                            .workers = workers, .msm_copies = msm_copies};
    o.host.budget = SIZE_MAX; /* device only: the engine admits host memory itself (eng_hostmem_plan) */
    cuzk_gpu_plan p;
    cuzk_status st = cuzk_gpu_plan_proof(shape, &o, &p, err);
    if (!st)
        *bytes = p.peak;
    return st;
}

int eng_devmem_admit(uint64_t budget, const eng_devmem_key *keys, size_t n, uint64_t need,
                     int *evict)
{
    uint64_t used = 0, busy = 0;
    for (size_t i = 0; i < n; i++) {
        used += keys[i].bytes;
        busy += keys[i].in_use ? keys[i].bytes : 0;
        if (evict)
            evict[i] = 0;
    }
    if (need > budget || busy > budget - need)
        return 0;
    if (!evict) /* evicting every idle key would do */
        return 1;
    /* Evict idle keys, least recently used first, until it fits. */
    while (used > budget - need) {
        size_t lru = n;
        for (size_t i = 0; i < n; i++)
            if (!keys[i].in_use && !evict[i] &&
                (lru == n || keys[i].last_used_ms < keys[lru].last_used_ms))
                lru = i;
        if (lru == n)
            return 0; /* not reached: the keys in use alone fit */
        evict[lru] = 1;
        used -= keys[lru].bytes;
    }
    /* Keep those the others' eviction made room for, most recent first. */
    for (;;) {
        size_t mru = n;
        for (size_t i = 0; i < n; i++)
            if (evict[i] == 1 && keys[i].bytes <= budget - need - used &&
                (mru == n || keys[i].last_used_ms > keys[mru].last_used_ms))
                mru = i;
        if (mru == n)
            break;
        evict[mru] = 0;
        used += keys[mru].bytes;
    }
    return 1;
}

void eng_hostmem_split(const cuzk_host_plan *h, uint64_t *key_bytes, uint64_t *job_bytes)
{
    const uint64_t W = h->workers ? h->workers : 1;
    const uint64_t job = (uint64_t)h->witness + h->vectors + h->scratch;
    uint64_t key = h->phase_bytes[CUZK_HOST_PHASE_ATTACH];
    for (int p = CUZK_HOST_PHASE_ABC; p < CUZK_HOST_PHASE_COUNT; p++) {
        const uint64_t held = h->phase_bytes[p] > W * job ? h->phase_bytes[p] - W * job : 0;
        key = held > key ? held : key;
    }
    *key_bytes = key > h->runtime ? key - h->runtime : 0;
    *job_bytes = job;
}

cuzk_status eng_hostmem_plan(const cuzk_gpu_key_shape *shape, uint64_t budget, int sm_count, unsigned workers,
                             int msm_copies, int stage_bases, uint64_t *key_bytes, uint64_t *job_bytes,
                             cuzk_error *err)
{
    *key_bytes = *job_bytes = 0;
    cuzk_host_plan h;
    cuzk_status st;
    if (budget) {
        cuzk_gpu_plan_opts o = {.budget = (size_t)budget, .device = -1, .sm_count = sm_count, .workers = workers,
                                .msm_copies = msm_copies, .stage_bases = stage_bases};
        o.host.budget = SIZE_MAX;
        o.host.key_mapped = 1;
        cuzk_gpu_plan p;
        if ((st = cuzk_gpu_plan_proof(shape, &o, &p, err)))
            return st;
        h = p.host;
    } else {
        cuzk_host_plan_opts ho = {.budget = SIZE_MAX, .key_mapped = 1};
        if ((st = cuzk_host_plan_cpu(shape, 1, &ho, &h, err)))
            return st;
    }
    eng_hostmem_split(&h, key_bytes, job_bytes);
    return CUZK_OK;
}
