/* Shared by the unit tests: deterministic randomness (a test_rng per test
 * so failures reproduce), thread CPU time for the optional micro-benchmarks,
 * and stringification for the per-curve macro instantiations. */
#ifndef CUZK_TEST_UTIL_H
#define CUZK_TEST_UTIL_H

#include <stdint.h>
#include <time.h>

#include "util/rng.h"

#define CUZK_STR_(x) #x
#define CUZK_STR(x) CUZK_STR_(x)

typedef struct {
    uint64_t s;
} test_rng;

static inline uint64_t rng_next(test_rng *g) { return cuzk_splitmix64(&g->s); }

/* Thread CPU time: the bench numbers stay meaningful on a loaded machine. */
static inline double bench_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
