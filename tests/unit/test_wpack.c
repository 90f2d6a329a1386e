/* The packed witness (src/gpu/g16/wpack.h), on the CPU: every value read back
 * from the packed form equals the witness, whatever the mix of 0, 1 and
 * whole values, packed at once, in tile ranges in any order, or in place;
 * and the whole values are exactly the ones that are neither 0 nor 1. The
 * GPU expansion is checked against the same witnesses in test_gpu_g16. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpu/g16/wpack.h"
#include "util/rng.h"

/* n values: zero, one, or whole (random, or near 0/1: a high limb set). */
static uint8_t *witness(size_t n, unsigned pct01, uint64_t seed, size_t *n_whole)
{
    uint8_t *w = calloc(n ? n : 1, 32);
    assert_non_null(w);
    uint64_t s = seed;
    *n_whole = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4] = {0, 0, 0, 0};
        const uint64_t r = cuzk_splitmix64(&s) % 100;
        if (r < pct01) {
            v[0] = r & 1;
        } else {
            switch (cuzk_splitmix64(&s) % 4) {
            case 0: v[0] = 2; break;
            case 1: v[0] = 1; v[3] = 1; break;
            case 2: v[0] = 0; v[1] = 1ULL << 63; break;
            default:
                for (int k = 0; k < 4; k++) v[k] = cuzk_splitmix64(&s);
                v[3] >>= 2;
            }
            ++*n_whole;
        }
        memcpy(w + 32 * i, v, 32);
    }
    return w;
}

static void check_reads(const uint8_t *w, size_t n, const void *index, const void *full)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t v[32];
        cuzk_wpack_get(index, full, n, i, v);
        assert_memory_equal(v, w + 32 * i, 32);
    }
}

static size_t whole_in(const void *index, size_t n)
{
    const uint8_t *codes = index;
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((codes[i / 4] >> (2 * (i % 4))) & 3) == 2;
    return c;
}

static void test_roundtrip(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 3, 4, 1023, 1024, 1025, 3 * CUZK_WPACK_TILE + 77, 40000};
    const unsigned mixes[] = {0, 50, 95, 100};
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (size_t mi = 0; mi < sizeof mixes / sizeof *mixes; mi++) {
            const size_t n = sizes[si];
            size_t nw;
            uint8_t *w = witness(n, mixes[mi], 17 * n + mi, &nw);
            const size_t ib = cuzk_wpack_index_bytes(n), nt = (n + CUZK_WPACK_TILE - 1) / CUZK_WPACK_TILE;
            assert_true(ib >= (n + 3) / 4 + 4 * nt);
            uint8_t *index = calloc(ib, 1), *full = calloc(n, 32);
            assert_non_null(index);
            assert_non_null(full);

            /* at once */
            cuzk_wpack_range(w, n, 0, n, index, full);
            assert_int_equal(whole_in(index, n), nw);
            check_reads(w, n, index, full);

            /* one tile at a time, last tile first */
            memset(index, 0xa5, ib);
            memset(full, 0x5a, 32 * n);
            for (size_t t = nt; t-- > 0;) {
                const size_t e = (t + 1) * CUZK_WPACK_TILE;
                cuzk_wpack_range(w, n, t * CUZK_WPACK_TILE, e < n ? e : n, index, full);
            }
            check_reads(w, n, index, full);

            /* one tile at a time from a buffer holding that tile alone */
            memset(index, 0x3c, ib);
            memset(full, 0xc3, 32 * n);
            uint8_t tile[32 * CUZK_WPACK_TILE];
            for (size_t t = 0; t < nt; t++) {
                const size_t b = t * CUZK_WPACK_TILE, e = b + CUZK_WPACK_TILE < n ? b + CUZK_WPACK_TILE : n;
                memcpy(tile, w + 32 * b, 32 * (e - b));
                cuzk_wpack_range_at(tile, n, b, e, index, full);
                memset(tile, 0xee, sizeof tile);
            }
            check_reads(w, n, index, full);

            /* in place: the packed values overwrite the raw ones */
            memcpy(full, w, 32 * n);
            memset(index, 0, ib);
            cuzk_wpack_range(full, n, 0, n, index, full);
            check_reads(w, n, index, full);
            free(index);
            free(full);
            free(w);
        }
}

/* A mostly-0/1 witness packs to a small fraction of its raw size: the
 * reason the packed form is what crosses the bus. */
static void test_size(void **state)
{
    (void)state;
    const size_t n = 1 << 16;
    size_t nw;
    uint8_t *w = witness(n, 95, 5, &nw);
    uint8_t *index = calloc(cuzk_wpack_index_bytes(n), 1), *full = calloc(n, 32);
    cuzk_wpack_range(w, n, 0, n, index, full);
    const size_t bus = cuzk_wpack_index_bytes(n) + 32 * whole_in(index, n);
    assert_true(bus * 10 < 32 * n); /* 95 % 0/1: ~6 % of the raw bytes */
    free(index);
    free(full);
    free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
