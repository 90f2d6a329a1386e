/* Fp6/Fp12 tower and optimal-ate pairing (BN254, BLS12-381): known answers
 * from @noble/curves, the vk_alphabeta_12 of snarkjs verification keys,
 * Frobenius vs plain pow, sparse/cyclotomic shortcuts vs generic operations,
 * bilinearity, non-degeneracy, order r, infinity handling, multi-pairing
 * identities, prepared G2 points vs unprepared loops; prints timings. See pairing_test_impl.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "field/limb.h"
#include "util/common.h"
#include "util/rng.h"

#include "fixture_util.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* Parse tests/data/kat/<name>; fails the test if missing or malformed. */
static cJSON *load_json(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kat/%s", CUZK_TEST_DATA_DIR, name);
    char *buf = slurp(path, NULL);
    cJSON *j = cJSON_Parse(buf);
    free(buf);
    if (!j)
        fail_msg("cannot parse %s", path);
    return j;
}

#define TC bn254
#define TC_EXPECT_LINES 88 /* NAF(6x+2): 65 doublings, 21 additions, 2 Frobenius lines */
#define TC_EXPECT_STEPS 65
#define TC_KAT "pairing_bn254.json"
#define TC_VK "snarkjs_vk_bn128.json"
#include "pairing_test_impl.h"

#define TC bls12_381
#define TC_EXPECT_LINES 68 /* |x| in binary: 63 doublings, 5 additions */
#define TC_EXPECT_STEPS 63
#define TC_KAT "pairing_bls12_381.json"
#define TC_VK "snarkjs_vk_bls12381.json"
#include "pairing_test_impl.h"

#define BOTH(t) cmocka_unit_test(bn254_##t), cmocka_unit_test(bls12_381_##t)

int main(void)
{
    const struct CMUnitTest tests[] = {
        BOTH(test_frobenius_vs_pow),
        BOTH(test_tower_kat),
        BOTH(test_sparse_mul),
        BOTH(test_cyclotomic),
        BOTH(test_pairing_kat),
        BOTH(test_snarkjs_alphabeta),
        BOTH(test_bilinear),
        BOTH(test_nondegenerate_order),
        BOTH(test_infinity),
        BOTH(test_multi),
        BOTH(test_prepared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
