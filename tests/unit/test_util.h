/* Shared by the unit tests: deterministic randomness (a test_rng per test
 * so failures reproduce) and stringification for the per-curve macro
 * instantiations. */
#ifndef CUZK_TEST_UTIL_H
#define CUZK_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "util/rng.h"

#define CUZK_STR_(x) #x
#define CUZK_STR(x) CUZK_STR_(x)

typedef struct {
    uint64_t s;
} test_rng;

static inline uint64_t rng_next(test_rng *g) { return cuzk_splitmix64(&g->s); }

/* Whether the mapping holding addr is shared ('s' in /proc/self/maps):
 * key files are mapped shared so that page-locking them for DMA pins the
 * page cache instead of making private copies of every page. */
static inline bool mapping_is_shared(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], perms[8];
    unsigned long lo, hi;
    bool shared = false;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && (unsigned long)addr >= lo &&
            (unsigned long)addr < hi) {
            shared = perms[3] == 's';
            break;
        }
    if (f)
        fclose(f);
    return shared;
}

#endif
