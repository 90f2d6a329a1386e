/* splitmix64 (Steele, Lea and Flood, 2014): a tiny deterministic generator
 * for tests, benchmarks and the random circuit generator. Not for secrets:
 * proof randomness comes from cuzk_random_bytes (util/common.h, the OS
 * CSPRNG). */
#ifndef CUZK_UTIL_RNG_H
#define CUZK_UTIL_RNG_H

#include <stdint.h>

static inline uint64_t cuzk_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

#endif
