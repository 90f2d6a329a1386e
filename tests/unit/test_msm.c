/* MSM over bn254_g1/g2 and bls12_381_g1/g2 against a naive sum of scalar
 * multiplications, edge cases, witness-like scalars, cross-checks between
 * window sizes, and the fixed-base batch multiplication. Also the planner.
 * See msm_test_impl.h. */
#include "util/rng.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "msm/msm.h"
#include "util/threadpool.h"

#define TG bn254_g1
#define TF bn254_fr
#include "msm_test_impl.h"

#define TG bn254_g2
#define TF bn254_fr
#include "msm_test_impl.h"

#define TG bls12_381_g1
#define TF bls12_381_fr
#include "msm_test_impl.h"

#define TG bls12_381_g2
#define TF bls12_381_fr
#include "msm_test_impl.h"

static void test_plan(void **state)
{
    (void)state;
    cuzk_msm_plan p;
    size_t prev_c = 0;
    for (unsigned lg = 0; lg <= 26; lg++) {
        size_t n = (size_t)1 << lg;
        cuzk_msm_plan_make(&p, n, 254, 2, 128);
        assert_true(p.c >= 1 && p.c <= CUZK_MSM_MAX_WINDOW);
        assert_true(p.windows * p.c >= 255); /* room for the carry */
        assert_true((p.windows - 1) * p.c < 255);
        assert_int_equal(p.tasks, (size_t)p.windows * p.splits);
        assert_true(p.bucket_bytes <= CUZK_MSM_MAX_BUCKET_BYTES);
        assert_true(p.c + 1 >= prev_c); /* window grows (roughly) with n */
        prev_c = p.c;
        /* the plan is a minimum of the cost model over c */
        for (unsigned c = 1; c <= 20; c++) {
            cuzk_msm_plan q;
            cuzk_msm_plan_fixed(&q, n, 254, 2, 128, c, p.splits);
            assert_true(q.cost >= p.cost * 0.999 || q.bucket_bytes > CUZK_MSM_MAX_BUCKET_BYTES);
        }
        /* deterministic */
        cuzk_msm_plan p2;
        cuzk_msm_plan_make(&p2, n, 254, 2, 128);
        assert_int_equal(p2.c, p.c);
        assert_int_equal(p2.splits, p.splits);
    }
    /* memory cap binds for huge buckets */
    cuzk_msm_plan_make(&p, (size_t)1 << 28, 255, 2, 384);
    assert_true(p.bucket_bytes <= CUZK_MSM_MAX_BUCKET_BYTES);
}

static int setup_pool(void **state)
{
    *state = cuzk_pool_create(2);
    return *state ? 0 : -1;
}

static int teardown_pool(void **state)
{
    cuzk_pool_destroy(*state);
    return 0;
}

#define GROUP_TESTS(g)                                                                             \
    cmocka_unit_test(g##_t_test_edges), cmocka_unit_test(g##_t_test_random_small),                 \
        cmocka_unit_test(g##_t_test_witness_mix), cmocka_unit_test(g##_t_test_large_consistency),  \
        cmocka_unit_test(g##_t_test_fixed)

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan),
        GROUP_TESTS(bn254_g1),
        GROUP_TESTS(bn254_g2),
        GROUP_TESTS(bls12_381_g1),
        GROUP_TESTS(bls12_381_g2),
    };
    return cmocka_run_group_tests(tests, setup_pool, teardown_pool);
}
