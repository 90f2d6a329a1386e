/* Shared by the unit tests: deterministic randomness (a test_rng per test
 * so failures reproduce) and stringification for the per-curve macro
 * instantiations. */
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

#endif
