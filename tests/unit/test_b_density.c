/* The B bases without their points at infinity (src/groth16/b_density.h):
 * the kept wires are exactly those whose B1 or B2 point is not all zero
 * bytes (a point only one of them has is kept too), in order, with their
 * bases copied byte for byte; a key with too few points at infinity is left
 * as it is; the result is the same on a pool and on one thread. The GPU
 * prover's proofs with dropped wires equal the CPU prover's in test_gpu_g16. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "groth16/b_density.h"
#include "util/rng.h"

#define G1 96
#define G2 192

typedef struct {
    uint8_t *b1, *b2;
    size_t n;
    uint32_t *want; /* indices expected kept */
    size_t n_want;
} bases;

/* n wires, pct of them with a B point; among the others some with only a
 * B1 or only a B2 point (kept as well). */
static bases make(size_t n, unsigned pct, uint64_t seed)
{
    bases b = {calloc(n ? n : 1, G1), calloc(n ? n : 1, G2), n, calloc(n ? n : 1, 4), 0};
    assert_true(b.b1 && b.b2 && b.want);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = cuzk_splitmix64(&s) % 1000;
        bool one = r < 10 * pct, only1 = !one && r % 97 == 0, only2 = !one && r % 89 == 0;
        if (one || only1)
            for (int k = 0; k < G1; k += 8) {
                uint64_t v = cuzk_splitmix64(&s);
                memcpy(b.b1 + i * G1 + k, &v, 8);
            }
        if (one || only2) /* a single non-zero byte anywhere is a point */
            b.b2[i * G2 + cuzk_splitmix64(&s) % G2] = (uint8_t)(1 + cuzk_splitmix64(&s) % 255);
        if (one || only1 || only2)
            b.want[b.n_want++] = (uint32_t)i;
    }
    return b;
}

static void release(bases *b)
{
    free(b->b1);
    free(b->b2);
    free(b->want);
}

static void check_kept(const bases *b, const cuzk_b_density *d)
{
    assert_non_null(d->index);
    assert_int_equal(d->n, b->n_want);
    for (size_t k = 0; k < d->n; k++) {
        assert_int_equal(d->index[k], b->want[k]);
        assert_memory_equal((uint8_t *)d->b1 + k * G1, b->b1 + (size_t)b->want[k] * G1, G1);
        assert_memory_equal((uint8_t *)d->b2 + k * G2, b->b2 + (size_t)b->want[k] * G2, G2);
    }
}

static void test_sparse(void **state)
{
    (void)state;
    cuzk_pool *pool = cuzk_pool_create(4);
    assert_non_null(pool);
    const size_t sizes[] = {1, 1000, (1u << 16) - 1, 1u << 16, (1u << 16) + 1, 300001};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        bases b = make(sizes[i], 25, 7 + i);
        cuzk_b_density d1, d2;
        cuzk_error e = {0};
        assert_int_equal(cuzk_b_density_make(&d1, b.b1, b.b2, b.n, G1, G2, NULL, &e), CUZK_OK);
        assert_int_equal(cuzk_b_density_make(&d2, b.b1, b.b2, b.n, G1, G2, pool, &e), CUZK_OK);
        if (b.n_want > b.n - b.n / 8) { /* a single wire with a point: nothing to drop */
            assert_null(d1.index);
            assert_int_equal(d1.n, b.n);
        } else {
            check_kept(&b, &d1);
            check_kept(&b, &d2);
            cuzk_b_density_drop_bases(&d2); /* the index stays */
            assert_null(d2.b1);
            assert_null(d2.b2);
            assert_memory_equal(d2.index, b.want, b.n_want * 4);
        }
        cuzk_b_density_free(&d1);
        cuzk_b_density_free(&d2);
        assert_null(d2.index);
        release(&b);
    }
    cuzk_pool_destroy(pool);
}

/* Dense B (more than 7/8 of the wires): left as it is. Empty B: every wire
 * dropped, the B MSMs have no points. */
static void test_dense_and_empty(void **state)
{
    (void)state;
    cuzk_error e = {0};
    cuzk_b_density d;
    bases b = make(50000, 95, 3);
    assert_true(b.n_want > b.n - b.n / 8);
    assert_int_equal(cuzk_b_density_make(&d, b.b1, b.b2, b.n, G1, G2, NULL, &e), CUZK_OK);
    assert_null(d.index);
    assert_int_equal(d.n, b.n);
    cuzk_b_density_free(&d);
    release(&b);
    b = make(50000, 0, 4);
    memset(b.b1, 0, b.n * G1);
    memset(b.b2, 0, b.n * G2);
    assert_int_equal(cuzk_b_density_make(&d, b.b1, b.b2, b.n, G1, G2, NULL, &e), CUZK_OK);
    assert_non_null(d.index);
    assert_int_equal(d.n, 0);
    cuzk_b_density_free(&d);
    release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sparse),
        cmocka_unit_test(test_dense_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
