/* Decimal <-> little-endian 64-bit limb conversion (any limb count up to
 * CUZK_BN_MAX_LIMBS). Used by the field layer and the JSON code. */
#ifndef CUZK_UTIL_BIGINT_H
#define CUZK_UTIL_BIGINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CUZK_BN_MAX_LIMBS 64

/* Writes the decimal form of limbs[0..n) (LE) plus a NUL. Returns the length
 * (without NUL), or -1 if cap is too small or n > CUZK_BN_MAX_LIMBS. */
int cuzk_bn_to_dec(char *buf, size_t cap, const uint64_t *limbs, size_t n);

/* Parses an unsigned decimal string into limbs[0..n). Rejects NULL, empty
 * strings, signs, whitespace, any non-digit, and values >= 2^(64n). Leading
 * zeros are accepted. limbs is zeroed on failure. */
bool cuzk_bn_from_dec(uint64_t *limbs, size_t n, const char *s);

#endif
