/* Prime fields (BN254 / BLS12-381 Fp and Fr) and Fp2: known answers from
 * @noble/curves (tests/data/kat, written by tests/kat/gen_field_curve_kat.mjs),
 * a naive reference for the Montgomery constants, algebraic identities, and
 * the decimal I/O helpers. (Timings: bench/bench_arith.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "kat_lines.h"
#include "util/bigint.h"
#include "util/common.h"
#include "test_util.h"

#define FT bn254_fp
#define FT_LIMBS 4
#include "field_test_impl.h"
#define FT bn254_fr
#define FT_LIMBS 4
#include "field_test_impl.h"
#define FT bls12_381_fp
#define FT_LIMBS 6
#include "field_test_impl.h"
#define FT bls12_381_fr
#define FT_LIMBS 4
#include "field_test_impl.h"
#define F2T bn254_fp2
#define F2T_BASE bn254_fp
#include "fp2_test_impl.h"
#define F2T bls12_381_fp2
#define F2T_BASE bls12_381_fp
#include "fp2_test_impl.h"

static void test_moduli(void **state)
{
    (void)state;
    /* The standard moduli, as published (EIP-196/197, the BLS12-381 spec). */
    uint64_t l[6];
    assert_true(cuzk_bn_from_dec(l, 4, "21888242871839275222246405745257275088696311157297823662689037894645226208583"));
    assert_memory_equal(l, bn254_fp_MODULUS.l, 32);
    assert_true(cuzk_bn_from_dec(l, 4, "21888242871839275222246405745257275088548364400416034343698204186575808495617"));
    assert_memory_equal(l, bn254_fr_MODULUS.l, 32);
    assert_true(cuzk_bn_from_dec(l, 6, "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629129015664037894272559787"));
    assert_memory_equal(l, bls12_381_fp_MODULUS.l, 48);
    assert_true(cuzk_bn_from_dec(l, 4, "52435875175126190479447740508185965837690552500527637822603658699938581184513"));
    assert_memory_equal(l, bls12_381_fr_MODULUS.l, 32);
    assert_int_equal(bn254_fp_LIMBS, 4);
    assert_int_equal(bls12_381_fp_LIMBS, 6);
    assert_int_equal(bls12_381_fr_LIMBS, 4);
}

static void test_bigint(void **state)
{
    (void)state;
    char buf[64];
    uint64_t l[2] = {0, 0};
    assert_int_equal(cuzk_bn_to_dec(buf, sizeof buf, l, 2), 1);
    assert_string_equal(buf, "0");
    assert_int_equal(cuzk_bn_to_dec(buf, sizeof buf, l, 0), 1);
    l[0] = ~0ULL;
    l[1] = ~0ULL;
    assert_int_equal(cuzk_bn_to_dec(buf, sizeof buf, l, 2), 39);
    assert_string_equal(buf, "340282366920938463463374607431768211455");
    assert_int_equal(cuzk_bn_to_dec(buf, 39, l, 2), -1);
    l[0] = 1000000000ULL; /* a chunk boundary: inner zeros must be kept */
    l[1] = 0;
    assert_int_equal(cuzk_bn_to_dec(buf, sizeof buf, l, 2), 10);
    assert_string_equal(buf, "1000000000");
    l[0] = 0;
    l[1] = 1; /* 2^64 */
    assert_int_equal(cuzk_bn_to_dec(buf, sizeof buf, l, 2), 20);
    assert_string_equal(buf, "18446744073709551616");
    assert_true(cuzk_bn_from_dec(l, 2, "340282366920938463463374607431768211455"));
    assert_true(l[0] == ~0ULL && l[1] == ~0ULL);
    assert_false(cuzk_bn_from_dec(l, 2, "340282366920938463463374607431768211456"));
    assert_true(l[0] == 0 && l[1] == 0);
    assert_true(cuzk_bn_from_dec(l, 1, "18446744073709551615"));
    assert_false(cuzk_bn_from_dec(l, 1, "18446744073709551616"));
    assert_false(cuzk_bn_from_dec(l, 1, ""));
    assert_false(cuzk_bn_from_dec(l, 1, "-0"));
    assert_false(cuzk_bn_from_dec(l, 1, "12x"));
    assert_false(cuzk_bn_from_dec(l, 1, NULL));
    /* random round trips against a naive two-limb reference */
    test_rng g = {5};
    for (int i = 0; i < 1000; i++) {
        uint64_t v[3] = {rng_next(&g), rng_next(&g) >> (i % 64), i % 3 ? rng_next(&g) : 0}, w[3];
        assert_true(cuzk_bn_to_dec(buf, sizeof buf, v, 3) > 0);
        assert_true(cuzk_bn_from_dec(w, 3, buf));
        assert_memory_equal(v, w, sizeof v);
    }
    l[1] = 0;
    l[0] = 1234567890123456789ULL;
    assert_int_equal(cuzk_bn_to_dec(buf, sizeof buf, l, 1), 19);
    assert_string_equal(buf, "1234567890123456789");
}

#define KAT_TEST(fn, file)                                                                     \
    static void test_kat_##fn(void **state)                                                    \
    {                                                                                          \
        (void)state;                                                                           \
        fn(file);                                                                              \
    }
KAT_TEST(bn254_fp_t_kat, "field_bn254_fp.txt")
KAT_TEST(bn254_fr_t_kat, "field_bn254_fr.txt")
KAT_TEST(bls12_381_fp_t_kat, "field_bls12_381_fp.txt")
KAT_TEST(bls12_381_fr_t_kat, "field_bls12_381_fr.txt")
KAT_TEST(bn254_fp2_t_kat, "fp2_bn254.txt")
KAT_TEST(bls12_381_fp2_t_kat, "fp2_bls12_381.txt")

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moduli),
        cmocka_unit_test(test_bigint),
        cmocka_unit_test(bn254_fp_t_constants),
        cmocka_unit_test(bn254_fr_t_constants),
        cmocka_unit_test(bls12_381_fp_t_constants),
        cmocka_unit_test(bls12_381_fr_t_constants),
        cmocka_unit_test(test_kat_bn254_fp_t_kat),
        cmocka_unit_test(test_kat_bn254_fr_t_kat),
        cmocka_unit_test(test_kat_bls12_381_fp_t_kat),
        cmocka_unit_test(test_kat_bls12_381_fr_t_kat),
        cmocka_unit_test(test_kat_bn254_fp2_t_kat),
        cmocka_unit_test(test_kat_bls12_381_fp2_t_kat),
        cmocka_unit_test(bn254_fp_t_props),
        cmocka_unit_test(bn254_fr_t_props),
        cmocka_unit_test(bls12_381_fp_t_props),
        cmocka_unit_test(bls12_381_fr_t_props),
        cmocka_unit_test(bn254_fp_t_batch),
        cmocka_unit_test(bn254_fr_t_batch),
        cmocka_unit_test(bls12_381_fp_t_batch),
        cmocka_unit_test(bls12_381_fr_t_batch),
        cmocka_unit_test(bn254_fp_t_conv),
        cmocka_unit_test(bn254_fr_t_conv),
        cmocka_unit_test(bls12_381_fp_t_conv),
        cmocka_unit_test(bls12_381_fr_t_conv),
        cmocka_unit_test(bn254_fp2_t_props),
        cmocka_unit_test(bls12_381_fp2_t_props),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
