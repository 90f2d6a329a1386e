/* G1/G2 of BN254 and BLS12-381: known answers from @noble/curves
 * (tests/data/kat/g{1,2}_*.txt: additions incl. P+P, P-P, O; doublings;
 * scalar multiplications incl. 0, 1, r-1, r; points outside the subgroup),
 * checked through every representation (affine, Jacobian with random Z,
 * XYZZ), plus group-law identities. (Timings: bench/bench_arith.) */
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

#define GT bn254_g1
#define GT_F bn254_fp
#define GT_FP bn254_fp
#define GT_NTOK 1
#define GT_FR bn254_fr
#define GT_COFACTOR 0
#include "ec_test_impl.h"
#define GT bn254_g2
#define GT_F bn254_fp2
#define GT_FP bn254_fp
#define GT_NTOK 2
#define GT_FR bn254_fr
#define GT_COFACTOR 1
#include "ec_test_impl.h"
#define GT bls12_381_g1
#define GT_F bls12_381_fp
#define GT_FP bls12_381_fp
#define GT_NTOK 1
#define GT_FR bls12_381_fr
#define GT_COFACTOR 1
#include "ec_test_impl.h"
#define GT bls12_381_g2
#define GT_F bls12_381_fp2
#define GT_FP bls12_381_fp
#define GT_NTOK 2
#define GT_FR bls12_381_fr
#define GT_COFACTOR 1
#include "ec_test_impl.h"

#define KAT_TEST(fn, file)                                                                     \
    static void test_kat_##fn(void **state)                                                    \
    {                                                                                          \
        (void)state;                                                                           \
        fn(file);                                                                              \
    }
KAT_TEST(bn254_g1_t_kat, "g1_bn254.txt")
KAT_TEST(bn254_g2_t_kat, "g2_bn254.txt")
KAT_TEST(bls12_381_g1_t_kat, "g1_bls12_381.txt")
KAT_TEST(bls12_381_g2_t_kat, "g2_bls12_381.txt")

/* The generators are the standard ones (as snarkjs/ffjavascript use). */
static void test_generators(void **state)
{
    (void)state;
    char buf[200];
    assert_true(bn254_fp_to_dec(buf, sizeof buf, &bn254_g1_GENERATOR.x) > 0);
    assert_string_equal(buf, "1");
    assert_true(bn254_fp_to_dec(buf, sizeof buf, &bn254_g1_GENERATOR.y) > 0);
    assert_string_equal(buf, "2");
    assert_true(bn254_fp_to_dec(buf, sizeof buf, &bn254_g2_GENERATOR.x.c0) > 0);
    assert_string_equal(buf, "10857046999023057135944570762232829481370756359578518086990519993285655852781");
    assert_true(bn254_fp_to_dec(buf, sizeof buf, &bn254_g2_GENERATOR.y.c1) > 0);
    assert_string_equal(buf, "4082367875863433681332203403145435568316851327593401208105741076214120093531");
    assert_true(bls12_381_fp_to_dec(buf, sizeof buf, &bls12_381_g1_GENERATOR.x) > 0);
    assert_string_equal(buf, "3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507");
    /* b' = 3/(9+u) on the BN254 twist: b'·(9+u) = 3 */
    bn254_fp2_t xi, t;
    bn254_fp_from_u64(&xi.c0, 9);
    bn254_fp_from_u64(&xi.c1, 1);
    bn254_fp2_mul(&t, &bn254_g2_B, &xi);
    assert_true(bn254_fp_to_dec(buf, sizeof buf, &t.c0) > 0);
    assert_string_equal(buf, "3");
    assert_true(bn254_fp_is_zero(&t.c1));
    assert_true(bls12_381_fp_to_dec(buf, sizeof buf, &bls12_381_g2_B.c1) > 0);
    assert_string_equal(buf, "4");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generators),
        cmocka_unit_test(test_kat_bn254_g1_t_kat),
        cmocka_unit_test(test_kat_bn254_g2_t_kat),
        cmocka_unit_test(test_kat_bls12_381_g1_t_kat),
        cmocka_unit_test(test_kat_bls12_381_g2_t_kat),
        cmocka_unit_test(bn254_g1_t_props),
        cmocka_unit_test(bn254_g2_t_props),
        cmocka_unit_test(bls12_381_g1_t_props),
        cmocka_unit_test(bls12_381_g2_t_props),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
