/* The packed witness (see wpack.h). */
#include "gpu/g16/wpack.h"

#include <string.h>

size_t cuzk_wpack_tiles(size_t n) { return (n + CUZK_WPACK_TILE - 1) / CUZK_WPACK_TILE; }

size_t cuzk_wpack_codes_bytes(size_t n) { return ((n + 3) / 4 + 15) & ~(size_t)15; }

size_t cuzk_wpack_index_bytes(size_t n)
{
    return cuzk_wpack_codes_bytes(n) + 4 * cuzk_wpack_tiles(n);
}

void cuzk_wpack_range(const void *src, size_t n, size_t b, size_t e, void *index, void *full)
{
    cuzk_wpack_range_at((const uint8_t *)src + 32 * b, n, b, e, index, full);
}

void cuzk_wpack_range_at(const void *vals, size_t n, size_t b, size_t e, void *index, void *full)
{
    const uint8_t *s = vals; /* value i at s + 32 (i - b) */
    uint8_t *codes = index, *f = full;
    uint32_t *tile_off = (uint32_t *)(codes + cuzk_wpack_codes_bytes(n));
    size_t pos = b; /* next whole-value slot */
    for (size_t i = b; i < e; i += 4) {
        if (i % CUZK_WPACK_TILE == 0)
            tile_off[i / CUZK_WPACK_TILE] = (uint32_t)pos;
        unsigned byte = 0;
        for (size_t k = 0; k < 4 && i + k < e; k++) {
            uint64_t v[4];
            memcpy(v, s + 32 * (i + k - b), 32);
            unsigned code;
            if ((v[1] | v[2] | v[3]) == 0 && v[0] <= 1) {
                code = (unsigned)v[0];
            } else {
                code = 2;
                memcpy(f + 32 * pos, v, 32); /* pos <= i + k: in place, only read values are overwritten */
                pos++;
            }
            byte |= code << (2 * k);
        }
        codes[i / 4] = (uint8_t)byte;
    }
}

void cuzk_wpack_get(const void *index, const void *full, size_t n, size_t i, void *out)
{
    const uint8_t *codes = index;
    const uint32_t *tile_off = (const uint32_t *)(codes + cuzk_wpack_codes_bytes(n));
    const size_t t0 = i - i % CUZK_WPACK_TILE;
    size_t pos = tile_off[i / CUZK_WPACK_TILE];
    for (size_t k = t0; k < i; k++)
        pos += ((codes[k / 4] >> (2 * (k % 4))) & 3) == 2;
    const unsigned code = (codes[i / 4] >> (2 * (i % 4))) & 3;
    if (code == 2) {
        memcpy(out, (const uint8_t *)full + 32 * pos, 32);
    } else {
        memset(out, 0, 32);
        *(uint8_t *)out = (uint8_t)code;
    }
}
