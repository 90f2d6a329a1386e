/* The generators' random streams (gen.c, the PoRep-shaped circuit of
 * porep_impl.h): xoshiro256** seeded through splitmix64 from (seed, chunk,
 * stream), so every chunk of a synthetic circuit is generated on its own and
 * the result does not depend on the thread count. Fast, and good enough for
 * benchmark circuits (nothing here needs to be unpredictable). */
#ifndef CUZK_GROTH16_GEN_RNG_H
#define CUZK_GROTH16_GEN_RNG_H

#include <stdint.h>

#include "util/rng.h"

typedef struct {
    uint64_t s[4];
} gen_rng;

static inline void gen_rng_seed(gen_rng *g, uint64_t seed, uint64_t chunk, uint64_t stream)
{
    uint64_t x = seed;
    x = cuzk_splitmix64(&x) ^ chunk;
    x = cuzk_splitmix64(&x) ^ stream;
    for (int i = 0; i < 4; i++)
        g->s[i] = cuzk_splitmix64(&x);
}

static inline uint64_t gen_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t gen_rng_next(gen_rng *g)
{
    uint64_t *s = g->s;
    uint64_t r = gen_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = gen_rotl(s[3], 45);
    return r;
}

/* Uniform-enough integer in [0, n), n >= 1 (multiply-shift). */
static inline uint32_t gen_rng_below(gen_rng *g, uint32_t n)
{
    return (uint32_t)(((gen_rng_next(g) >> 32) * (uint64_t)n) >> 32);
}

#endif
