/* NTT over Fr (BN254, BLS12-381): roots as snarkjs, naive DFT for 2^0..2^8,
 * round trips and spot checks up to 2^18, odd-coset and generic coset
 * transforms, bit reversal. See ntt_test_impl.h. */
#include "util/rng.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "poly/ntt.h"
#include "util/threadpool.h"

/* w[28] for BN254 and w[32] for BLS12-381 (snarkjs-formats.md §0). */
#define TC bn254
#define TW_DEC "19103219067921713944291392827692070036145651957329286315305642004821462161904"
#include "ntt_test_impl.h"

#define TC bls12_381
#define TW_DEC "937917089079007706106976984802249742464848817460758522850752807661925904159"
#include "ntt_test_impl.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bn254_test_roots),
        cmocka_unit_test(bls12_381_test_roots),
        cmocka_unit_test(bn254_test_errors),
        cmocka_unit_test(bls12_381_test_errors),
        cmocka_unit_test(bn254_test_bit_reverse),
        cmocka_unit_test(bls12_381_test_bit_reverse),
        cmocka_unit_test(bn254_test_small_vs_naive),
        cmocka_unit_test(bls12_381_test_small_vs_naive),
        cmocka_unit_test(bn254_test_large),
        cmocka_unit_test(bls12_381_test_large),
    };
    return cmocka_run_group_tests(tests, setup_pool, teardown_pool);
}
