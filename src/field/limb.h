/* 64-bit limb primitives for the Montgomery field code.
 *
 * Two implementations with identical semantics:
 *   - default: unsigned __int128 (GCC/Clang on 64-bit targets), which compiles
 *     to mul/adc on x86-64 and mul/umulh on AArch64;
 *   - CUZK_PORTABLE (or no __int128): 32x32->64 partial products only.
 * Both are exercised by the unit tests (configure with -DCUZK_PORTABLE=ON). */
#ifndef CUZK_FIELD_LIMB_H
#define CUZK_FIELD_LIMB_H

#include <stdint.h>

#include "util/common.h"

#if !defined(CUZK_PORTABLE) && defined(__SIZEOF_INT128__)
#define CUZK_LIMB_INT128 1
__extension__ typedef unsigned __int128 cuzk_u128;

/* lo + hi·2^64 = a·b + c + d  (never overflows: (2^64-1)^2 + 2(2^64-1) < 2^128). */
CUZK_INLINE uint64_t cuzk_mac(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *hi)
{
    cuzk_u128 t = (cuzk_u128)a * b + c + d;
    *hi = (uint64_t)(t >> 64);
    return (uint64_t)t;
}

CUZK_INLINE uint64_t cuzk_mul_wide(uint64_t a, uint64_t b, uint64_t *hi)
{
    cuzk_u128 t = (cuzk_u128)a * b;
    *hi = (uint64_t)(t >> 64);
    return (uint64_t)t;
}
#else
CUZK_INLINE uint64_t cuzk_mul_wide(uint64_t a, uint64_t b, uint64_t *hi)
{
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    /* middle column: high half of p00 plus the low halves of p01, p10 (< 3·2^32) */
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return (mid << 32) | (uint32_t)p00;
}

CUZK_INLINE uint64_t cuzk_mac(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t *hi)
{
    uint64_t h, l = cuzk_mul_wide(a, b, &h);
    l += c;
    h += (l < c);
    l += d;
    h += (l < d);
    *hi = h;
    return l;
}
#endif

/* a + b + carry_in (carry_in in {0,1}); *carry gets the carry out. */
CUZK_INLINE uint64_t cuzk_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
#if defined(CUZK_LIMB_INT128)
    cuzk_u128 t = (cuzk_u128)a + b + *carry;
    *carry = (uint64_t)(t >> 64);
    return (uint64_t)t;
#else
    uint64_t s = a + *carry;
    uint64_t c1 = s < a;
    uint64_t r = s + b;
    *carry = c1 | (r < s);
    return r;
#endif
}

/* a - b - borrow_in (borrow_in in {0,1}); *borrow gets the borrow out. */
CUZK_INLINE uint64_t cuzk_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
#if defined(CUZK_LIMB_INT128)
    cuzk_u128 t = (cuzk_u128)a - b - *borrow;
    *borrow = (uint64_t)(t >> 127);
    return (uint64_t)t;
#else
    uint64_t d = a - b;
    uint64_t b1 = a < b;
    uint64_t r = d - *borrow;
    *borrow = b1 | (d < *borrow);
    return r;
#endif
}

/* Full unrolling of the fixed-length limb loops (the limb count is a
 * compile-time constant in every instantiation). */
#if defined(__clang__)
#define CUZK_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define CUZK_UNROLL _Pragma("GCC unroll 16")
#else
#define CUZK_UNROLL
#endif

#endif
