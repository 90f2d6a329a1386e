/* AVX-512 IFMA (vpmadd52luq/huq) support: compile-time availability and the
 * runtime switch.
 *
 * The vector field code (fp_ifma_inline.h, fp2_ifma_inline.h) is compiled
 * whenever the compiler can target x86-64 AVX-512 (GCC/Clang, not
 * CUZK_PORTABLE), but only in functions marked CUZK_IFMA_TARGET, so the
 * default build still runs on any x86-64: callers test cuzk_ifma_enabled()
 * at run time and keep their scalar path otherwise. cuzk_ifma_set (the
 * CLI's CUZK_NO_IFMA=1) forces the scalar path. */
#ifndef CUZK_FIELD_FP_IFMA_H
#define CUZK_FIELD_FP_IFMA_H

#include <stdbool.h>
#include <stdint.h>

#include "util/common.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CUZK_PORTABLE)
#define CUZK_IFMA 1
#include <immintrin.h>
#define CUZK_IFMA_TARGET __attribute__((target("avx512f,avx512ifma")))
#define CUZK_IFMA_INLINE static inline __attribute__((always_inline, target("avx512f,avx512ifma")))
#define CUZK_M52 ((uint64_t)0xfffffffffffffULL)

/* Radix-2^52 limb j of the little-endian 64-bit limbs x[0..nl). Used on
 * constant tables with constant j, where it folds to an immediate. */
CUZK_INLINE uint64_t cuzk_r52_limb(const uint64_t *x, int nl, int j)
{
    int bit = 52 * j, w = bit >> 6, s = bit & 63;
    uint64_t v = w < nl ? x[w] >> s : 0;
    if (s > 12 && w + 1 < nl)
        v |= x[w + 1] << (64 - s);
    return v & CUZK_M52;
}
#endif

/* True when the CPU and OS support AVX-512F + IFMA, the library was built
 * with the vector code, and cuzk_ifma_set(false) was not called. Cached. */
bool cuzk_ifma_enabled(void);
/* CPU/OS support only (ignores cuzk_ifma_set). */
bool cuzk_ifma_supported(void);
/* Tests and benchmarks: force the scalar path (on = false) or the vector
 * path where supported (on = true). Not thread-safe against running work. */
void cuzk_ifma_set(bool on);

#endif
