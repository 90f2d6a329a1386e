/* The template conventions (util/templates.h): every template included twice
 * for the same instance compiles (the per-instance guard of util/tmpl_once.h
 * makes the second inclusion empty), the instance descriptions of
 * field/instances.h and curve/instances.h agree with what the templates
 * generated, and the inline
 * cores included here compute what the library's extern functions compute. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "test_util.h"

/* Twice each: the declarations (already included once by the umbrella
 * headers above), the inline cores and the variable-time inversions. */
#define FP_PREFIX bn254_fp
#include "field/fp_decl.h"
#define FP_PREFIX bn254_fp
#include "field/fp_inline.h"
#define FP_PREFIX bn254_fp
#include "field/fp_inline.h"
#define FP_PREFIX bn254_fp
#include "field/fp_inv_vt.h"
#define FP_PREFIX bn254_fp
#include "field/fp_inv_vt.h"
#define FP_PREFIX bn254_fp
#include "field/fp_ifma_inline.h"
#define FP_PREFIX bn254_fp
#include "field/fp_ifma_inline.h"
#define FP_PREFIX bls12_381_fp
#include "field/fp_inline.h"
#define FP_PREFIX bls12_381_fp
#include "field/fp_inline.h"
#define FP_PREFIX bls12_381_fp
#include "field/fp_inv_vt.h"
#define FP_PREFIX bls12_381_fp
#include "field/fp_inv_vt.h"
#define FP_PREFIX bn254_fr
#include "field/fp_inline.h"
#define FP_PREFIX bls12_381_fr
#include "field/fp_inline.h"
#define FP2_PREFIX bn254_fp2
#include "field/fp2_decl.h"
#define FP2_PREFIX bn254_fp2
#include "field/fp2_inline.h"
#define FP2_PREFIX bn254_fp2
#include "field/fp2_inline.h"
#define FP2_PREFIX bn254_fp2
#include "field/fp2_inv_vt.h"
#define FP2_PREFIX bn254_fp2
#include "field/fp2_inv_vt.h"
#define FP2_PREFIX bls12_381_fp2
#include "field/fp2_inline.h"
#define FP2_PREFIX bls12_381_fp2
#include "field/fp2_inline.h"
#define TW_CURVE bn254
#include "field/tower_decl.h"
#define EC_PREFIX bn254_g2
#include "curve/ec_decl.h"
#define EC_PREFIX bls12_381_g1
#include "curve/ec_decl.h"
#define PAIRING_CURVE bls12_381
#include "curve/pairing_decl.h"

#include "msm/msm.h"
#include "poly/ntt.h"
#define MSM_G bn254_g1
#include "msm/msm_decl.h"
#define MSM_G bls12_381_g2
#include "msm/msm_decl.h"
#define NTT_CURVE bls12_381
#include "poly/ntt_decl.h"

/* The parameters are #undef'd by the templates. */
#if defined(FP_PREFIX) || defined(FP2_PREFIX) || defined(TW_CURVE) || defined(EC_PREFIX) ||    \
    defined(PAIRING_CURVE) || defined(MSM_G) || defined(NTT_CURVE)
#error "a template left its parameter defined"
#endif

static void descriptions(void **state)
{
    (void)state;
    assert_int_equal(bn254_fp_LIMBS, bn254_fp_P_LIMBS);
    assert_int_equal(bn254_fr_LIMBS, bn254_fr_P_LIMBS);
    assert_int_equal(bls12_381_fp_LIMBS, bls12_381_fp_P_LIMBS);
    assert_int_equal(bls12_381_fr_LIMBS, bls12_381_fr_P_LIMBS);
    assert_int_equal(sizeof(bn254_fp_t), 8 * bn254_fp_P_LIMBS);
    assert_int_equal(sizeof(bls12_381_fp_t), 8 * bls12_381_fp_P_LIMBS);
    assert_int_equal(sizeof(bn254_fp2_t), 2 * sizeof(bn254_fp_t));
    assert_int_equal(sizeof(bls12_381_fp2_t), 2 * sizeof(bls12_381_fp_t));
    assert_int_equal(bn254_fp_BITS, 254);
    assert_int_equal(bls12_381_fp_BITS, 381);
    /* groups: coordinates over g_C_F, scalars of g_C_FR */
    assert_int_equal(sizeof(bn254_g1_affine_t), 2 * sizeof(bn254_fp_t));
    assert_int_equal(sizeof(bn254_g2_affine_t), 2 * sizeof(bn254_fp2_t));
    assert_int_equal(sizeof(bls12_381_g1_affine_t), 2 * sizeof(bls12_381_fp_t));
    assert_int_equal(sizeof(bls12_381_g2_xyzz_t), 4 * sizeof(bls12_381_fp2_t));
    assert_true(bn254_g1_affine_is_on_curve(&bn254_g1_GENERATOR));
    assert_true(bls12_381_g2_affine_in_subgroup(&bls12_381_g2_GENERATOR));
}

/* The inline cores and inversions included (twice) above against the
 * library's extern functions, on random elements. */
#define CHECK_FIELD(f)                                                                             \
    for (int it = 0; it < 64; it++) {                                                              \
        f##_t a, b, r1, r2;                                                                        \
        assert_true(f##_random(&a));                                                               \
        assert_true(f##_random(&b));                                                               \
        f##_mul(&r1, &a, &b);                                                                      \
        f##_mul_inl(&r2, &a, &b);                                                                  \
        assert_true(f##_eq(&r1, &r2));                                                             \
        f##_sub(&r1, &a, &b);                                                                      \
        f##_sub_inl(&r2, &a, &b);                                                                  \
        assert_true(f##_eq(&r1, &r2));                                                             \
        f##_inv(&r1, &a);                                                                          \
        f##_inv_vt(&r2, &a);                                                                       \
        assert_true(f##_eq(&r1, &r2));                                                             \
    }

static void inline_cores(void **state)
{
    (void)state;
    CHECK_FIELD(bn254_fp)
    CHECK_FIELD(bls12_381_fp)
    CHECK_FIELD(bn254_fp2)
    for (int it = 0; it < 64; it++) {
        bn254_fr_t a, b, r1, r2;
        assert_true(bn254_fr_random(&a) && bn254_fr_random(&b));
        bn254_fr_add(&r1, &a, &b);
        bn254_fr_add_inl(&r2, &a, &b);
        assert_true(bn254_fr_eq(&r1, &r2));
        bls12_381_fr_t c, d, r3, r4;
        assert_true(bls12_381_fr_random(&c) && bls12_381_fr_random(&d));
        bls12_381_fr_mul(&r3, &c, &d);
        bls12_381_fr_mul_inl(&r4, &c, &d);
        assert_true(bls12_381_fr_eq(&r3, &r4));
        bls12_381_fp2_t e, f, r5, r6;
        assert_true(bls12_381_fp2_random(&e) && bls12_381_fp2_random(&f));
        bls12_381_fp2_mul(&r5, &e, &f);
        bls12_381_fp2_mul_inl(&r6, &e, &f);
        assert_true(bls12_381_fp2_eq(&r5, &r6));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(descriptions),
        cmocka_unit_test(inline_cores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
