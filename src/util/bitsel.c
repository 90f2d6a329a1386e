/* Selection by bitmap (src/util/bitsel.h). */
#include "util/bitsel.h"

#include <stdlib.h>
#include <string.h>

#include "util/common.h"

uint64_t cuzk_popcount_bits(const uint64_t *w, size_t bits)
{
    uint64_t c = 0;
    for (size_t i = 0; i < bits / 64; i++)
        c += (uint64_t)__builtin_popcountll(w[i]);
    if (bits % 64)
        c += (uint64_t)__builtin_popcountll(w[bits / 64] & ((UINT64_C(1) << (bits % 64)) - 1));
    return c;
}

cuzk_status cuzk_bitsel_init(cuzk_bitsel *s, void *dst, const void *src, const uint64_t *bits, size_t n, size_t elem,
                             cuzk_error *e)
{
    memset(s, 0, sizeof *s);
    s->dst = dst;
    s->src = src;
    s->bits = bits;
    s->n = n;
    s->elem = elem;
    s->nblk = (n + CUZK_BITSEL_BLOCK - 1) / CUZK_BITSEL_BLOCK;
    if (!s->nblk)
        return CUZK_OK;
    if (!(s->off = malloc(s->nblk * sizeof *s->off)))
        return cuzk_err(e, CUZK_ERR_NOMEM, "out of host memory (bitmap selection of %zu elements)", n);
    size_t acc = 0;
    for (size_t blk = 0; blk < s->nblk; blk++) {
        const size_t i0 = blk * CUZK_BITSEL_BLOCK, i1 = CUZK_MIN(i0 + CUZK_BITSEL_BLOCK, n);
        s->off[blk] = acc;
        acc += cuzk_popcount_bits(bits + i0 / 64, i1 - i0);
    }
    s->count = acc;
    return CUZK_OK;
}

void cuzk_bitsel_range(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    const cuzk_bitsel *s = arg;
    uint8_t *dst = s->dst;
    const uint8_t *src = s->src;
    for (size_t blk = b; blk < e; blk++) {
        size_t o = s->off[blk];
        const size_t i0 = blk * CUZK_BITSEL_BLOCK, i1 = CUZK_MIN(i0 + CUZK_BITSEL_BLOCK, s->n);
        for (size_t i = i0; i < i1; i++)
            if ((s->bits[i / 64] >> (i % 64)) & 1)
                memcpy(dst + s->elem * o++, src + s->elem * i, s->elem);
    }
}

void cuzk_bitsel_free(cuzk_bitsel *s)
{
    free(s->off);
    s->off = NULL;
}
