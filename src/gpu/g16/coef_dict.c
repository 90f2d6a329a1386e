/* The distinct coefficient values (coef_dict.h): open addressing on a hash
 * of all four words, at most half full. */
#include "gpu/g16/coef_dict.h"

#include <stdlib.h>
#include <string.h>

#include "util/common.h"

static uint32_t slot_of(const uint8_t *v, uint32_t mask)
{
    static const uint64_t K[4] = {0x9e3779b97f4a7c15ull, 0xbf58476d1ce4e5b9ull, 0x94d049bb133111ebull,
                                  0xd6e8feb86659fd93ull};
    uint64_t h = 0;
    for (int j = 0; j < 4; j++) {
        uint64_t w;
        memcpy(&w, v + 8 * j, 8);
        h = (h ^ w) * K[j];
        h ^= h >> 29;
    }
    return (uint32_t)(h >> 32) & mask;
}

uint32_t cuzk_coef_dict_find(const cuzk_coef_dict *d, const uint8_t *v)
{
    for (uint32_t s = slot_of(v, d->mask);; s = (s + 1) & d->mask) {
        const uint32_t k = d->slots[s];
        if (k == 0) return UINT32_MAX;
        if (memcmp(d->values + (size_t)(k - 1) * 32, v, 32) == 0) return k - 1;
    }
}

void cuzk_coef_dict_free(cuzk_coef_dict *d)
{
    if (!d) return;
    cuzk_free(d->values);
    cuzk_free(d->slots);
    memset(d, 0, sizeof *d);
}

bool cuzk_coef_dict_build(cuzk_coef_dict *d, const uint8_t *value, size_t stride, size_t count, uint32_t max)
{
    memset(d, 0, sizeof *d);
    if (max > CUZK_COEF_DICT_MAX) max = CUZK_COEF_DICT_MAX;
    uint32_t cap = 16; /* values room, doubled as needed; slots = 2 x cap */
    d->values = cuzk_alloc(cap, 32);
    d->slots = cuzk_calloc(2 * (size_t)cap, sizeof(uint32_t));
    d->mask = 2 * cap - 1;
    if (!d->values || !d->slots) goto fail;
    for (size_t i = 0; i < count; i++) {
        const uint8_t *v = value + i * stride;
        uint32_t s = slot_of(v, d->mask);
        for (;; s = (s + 1) & d->mask) {
            const uint32_t k = d->slots[s];
            if (k == 0 || memcmp(d->values + (size_t)(k - 1) * 32, v, 32) == 0) break;
        }
        if (d->slots[s]) continue;
        if (d->n == max) goto fail;
        if (d->n == cap) { /* grow: twice the values, the slots rebuilt */
            const uint32_t ncap = 2 * cap;
            uint8_t *nv = cuzk_alloc(ncap, 32);
            uint32_t *ns = cuzk_calloc(2 * (size_t)ncap, sizeof(uint32_t));
            if (!nv || !ns) {
                cuzk_free(nv);
                cuzk_free(ns);
                goto fail;
            }
            memcpy(nv, d->values, (size_t)d->n * 32);
            cuzk_free(d->values);
            cuzk_free(d->slots);
            d->values = nv;
            d->slots = ns;
            d->mask = 2 * ncap - 1;
            cap = ncap;
            for (uint32_t k = 0; k < d->n; k++) {
                uint32_t t = slot_of(d->values + (size_t)k * 32, d->mask);
                while (d->slots[t]) t = (t + 1) & d->mask;
                d->slots[t] = k + 1;
            }
            s = slot_of(v, d->mask);
            while (d->slots[s]) s = (s + 1) & d->mask;
        }
        memcpy(d->values + (size_t)d->n * 32, v, 32);
        d->slots[s] = ++d->n;
    }
    return true;
fail:
    cuzk_coef_dict_free(d);
    return false;
}
