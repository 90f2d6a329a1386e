/* Selection by bitmap (util/bitsel.h) against a plain loop: sizes around the
 * word and block edges, sparse, dense, empty and full bitmaps, elements of 1
 * and 32 bytes, serial and on a pool; and the count alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/bitsel.h"
#include "util/threadpool.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* density in 1/8: 0 none, 8 all, else about d/8 of the bits */
static void one(cuzk_pool *pool, size_t n, size_t elem, int d)
{
    const size_t words = (n + 63) / 64 + 1;
    uint64_t *bits = calloc(words, 8);
    uint8_t *src = malloc(n * elem + 1), *want = calloc(n * elem + 1, 1), *got = calloc(n * elem + 1, 1);
    assert_true(bits && src && want && got);
    for (size_t i = 0; i < n * elem; i++)
        src[i] = (uint8_t)next();
    for (size_t i = 0; i < 64 * words; i++) /* bits at and above n are set too: they must be ignored */
        if (d == 8 || (d && (int)(next() % 8) < d))
            bits[i / 64] |= UINT64_C(1) << (i % 64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((bits[i / 64] >> (i % 64)) & 1)
            memcpy(want + elem * k++, src + elem * i, elem);

    cuzk_bitsel s;
    cuzk_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_bitsel_init(&s, got, src, bits, n, elem, &e), CUZK_OK);
    assert_int_equal(s.count, k);
    assert_int_equal(cuzk_popcount_bits(bits, n), k);
    cuzk_parallel_for(pool, s.nblk, 1, cuzk_bitsel_range, &s);
    cuzk_bitsel_free(&s);
    assert_memory_equal(got, want, n * elem + 1); /* nothing written past the selection */

    assert_int_equal(cuzk_bitsel_init(&s, NULL, NULL, bits, n, elem, &e), CUZK_OK);
    assert_int_equal(s.count, k);
    cuzk_bitsel_free(&s);
    free(bits);
    free(src);
    free(want);
    free(got);
}

static void sizes(cuzk_pool *pool)
{
    const size_t B = CUZK_BITSEL_BLOCK;
    const size_t ns[] = {0, 1, 63, 64, 65, 1000, B - 1, B, B + 1, 3 * B + 17};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int d = 0; d <= 8; d += 2) {
            one(pool, ns[i], 32, d);
            one(pool, ns[i], 1, d);
        }
}

static void test_serial(void **state)
{
    (void)state;
    sizes(NULL);
}

static void test_pool(void **state)
{
    (void)state;
    cuzk_pool *pool = cuzk_pool_create(4);
    assert_non_null(pool);
    sizes(pool);
    cuzk_pool_destroy(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serial),
        cmocka_unit_test(test_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
