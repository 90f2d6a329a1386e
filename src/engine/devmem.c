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
