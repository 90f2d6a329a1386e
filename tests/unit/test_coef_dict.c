/* The coefficient value table (src/gpu/g16/coef_dict.h) against a plain
 * search: every value found at its first occurrence's index, values not in
 * it not found, the bound refused, growth through many rehashes, values that
 * differ only in their last byte or share their first 16. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/g16/coef_dict.h"
#include "util/rng.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
static uint64_t next(void) { return cuzk_splitmix64(&rng); }

/* count records of stride 44 (a zkey record: 12 bytes, then the value) drawn
 * from `distinct` values; the distinct values share their first 16 bytes
 * (kind 1) or differ in their last byte only (kind 2) or are random (0) */
static uint8_t *records(size_t count, uint32_t distinct, int kind, uint8_t **pool_out)
{
    uint8_t *pool = malloc((size_t)distinct * 32), *rec = malloc(count * 44);
    assert_non_null(pool);
    assert_non_null(rec);
    for (uint32_t k = 0; k < distinct; k++) {
        for (int j = 0; j < 4; j++) {
            const uint64_t x = next();
            memcpy(pool + (size_t)k * 32 + 8 * j, &x, 8);
        }
        if (kind == 1) memset(pool + (size_t)k * 32, 0x5a, 16), memcpy(pool + (size_t)k * 32 + 16, &k, 4);
        if (kind == 2) memset(pool + (size_t)k * 32, 0, 28), memcpy(pool + (size_t)k * 32 + 28, &k, 4);
    }
    for (size_t i = 0; i < count; i++) {
        const uint32_t k = i < distinct ? (uint32_t)i : (uint32_t)(next() % distinct);
        memset(rec + i * 44, 0xee, 12);
        memcpy(rec + i * 44 + 12, pool + (size_t)k * 32, 32);
    }
    /* shuffle the records (the first occurrences anywhere) */
    for (size_t i = count; i > 1; i--) {
        const size_t j = next() % i;
        uint8_t t[44];
        memcpy(t, rec + (i - 1) * 44, 44);
        memcpy(rec + (i - 1) * 44, rec + j * 44, 44);
        memcpy(rec + j * 44, t, 44);
    }
    *pool_out = pool;
    return rec;
}

static void check(size_t count, uint32_t distinct, int kind)
{
    uint8_t *pool, *rec = records(count, distinct, kind, &pool);
    cuzk_coef_dict d;
    assert_true(cuzk_coef_dict_build(&d, rec + 12, 44, count, distinct));
    assert_int_equal(d.n, distinct);
    /* each record's index names its value; indices follow first occurrence */
    uint32_t seen = 0;
    for (size_t i = 0; i < count; i++) {
        const uint32_t k = cuzk_coef_dict_find(&d, rec + i * 44 + 12);
        assert_true(k < d.n);
        assert_memory_equal(d.values + (size_t)k * 32, rec + i * 44 + 12, 32);
        if (k == seen) seen++;
        assert_true(k < seen);
    }
    assert_int_equal(seen, distinct);
    /* a value not among them */
    uint8_t other[32];
    memcpy(other, pool, 32);
    other[31] ^= 0x80;
    if (kind != 2) assert_int_equal(cuzk_coef_dict_find(&d, other), UINT32_MAX);
    cuzk_coef_dict_free(&d);
    /* one fewer allowed than there are: refused, nothing held */
    assert_false(cuzk_coef_dict_build(&d, rec + 12, 44, count, distinct - 1));
    assert_null(d.values);
    assert_null(d.slots);
    assert_int_equal(d.n, 0);
    free(pool);
    free(rec);
}

static void test_small(void **state)
{
    (void)state;
    check(1000, 1, 0);
    check(1000, 35, 0);
    check(5000, 300, 1);
    check(5000, 300, 2);
}

static void test_growth(void **state)
{
    (void)state;
    check(200000, 70000, 0); /* many rehashes */
    check(100000, 100000, 2);
}

static void test_edges(void **state)
{
    (void)state;
    cuzk_coef_dict d;
    assert_true(cuzk_coef_dict_build(&d, NULL, 32, 0, 10)); /* no records: an empty table */
    assert_int_equal(d.n, 0);
    uint8_t z[32] = {0};
    assert_int_equal(cuzk_coef_dict_find(&d, z), UINT32_MAX);
    cuzk_coef_dict_free(&d);
    assert_false(cuzk_coef_dict_build(&d, z, 0, 5, 0)); /* max 0 and a value */
    uint8_t *many = calloc((size_t)CUZK_COEF_DICT_MAX + 1, 32);
    assert_non_null(many);
    for (uint32_t k = 0; k <= CUZK_COEF_DICT_MAX; k++) memcpy(many + (size_t)k * 32, &k, 4);
    /* the table's own bound, whatever max the caller asks */
    assert_false(cuzk_coef_dict_build(&d, many, 32, (size_t)CUZK_COEF_DICT_MAX + 1, UINT32_MAX));
    assert_true(cuzk_coef_dict_build(&d, many, 32, CUZK_COEF_DICT_MAX, UINT32_MAX));
    assert_int_equal(d.n, CUZK_COEF_DICT_MAX);
    cuzk_coef_dict_free(&d);
    free(many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_edges),
    };
    return cmocka_run_group_tests_name("coef_dict", tests, NULL, NULL);
}
