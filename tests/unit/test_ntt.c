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

#include "groth16/bp.h"
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

/* out[k] = sum a[i] w^(ik), k < n: the transform by its definition. */
static void direct_dft(bls12_381_fr_t *out, const bls12_381_fr_t *a, size_t n, const bls12_381_fr_t *w)
{
    bls12_381_fr_t wk, t;
    bls12_381_fr_set_one(&wk);
    for (size_t k = 0; k < n; k++) {
        bls12_381_fr_t acc, p;
        bls12_381_fr_set_one(&p);
        bls12_381_fr_set_zero(&acc);
        for (size_t i = 0; i < n; i++) {
            bls12_381_fr_mul(&t, &a[i], &p);
            bls12_381_fr_add(&acc, &acc, &t);
            bls12_381_fr_mul(&p, &p, &wk);
        }
        out[k] = acc;
        bls12_381_fr_mul(&wk, &wk, w);
    }
}

/* A domain of bellperson's roots (generator 7): its forward NTT and odd
 * coset against a direct sum and Horner at 7^((r-1)/n), 7^((r-1)/2n)
 * computed here; a square generator is refused. */
static void bls12_381_test_generator(void **state)
{
    cuzk_pool *pool = *state;
    enum { L = 6, N = 1 << L };
    bls12_381_ntt_domain *d = NULL;
    cuzk_error err = {0};
    assert_int_equal(bls12_381_ntt_domain_create_gen(&d, L, 7, pool, &err), CUZK_OK);
    bls12_381_fr_t a[N], b[N], ref[N], coef[N], w, g, x, ninv, nn, winv;
    uint64_t seed = 77;
    for (size_t i = 0; i < N; i++) {
        bls12_381_fr_t raw = {{cuzk_splitmix64(&seed), cuzk_splitmix64(&seed), cuzk_splitmix64(&seed),
                               cuzk_splitmix64(&seed) & 0x0fffffffffffffffULL}};
        bls12_381_fr_to_mont(&a[i], &raw);
    }
    cuzk_bp_omega(&w, L);     /* 7^((r-1)/N) */
    cuzk_bp_omega(&g, L + 1); /* 7^((r-1)/2N) */
    /* forward: ref[k] = sum a[i] w^(ik) */
    direct_dft(ref, a, N, &w);
    memcpy(b, a, sizeof a);
    bls12_381_ntt(d, b, pool);
    assert_memory_equal(b, ref, sizeof b);
    /* odd coset: a = evaluations at w^i; coefficients by the inverse sum,
     * then p(g w^j) by Horner */
    bls12_381_fr_inv(&winv, &w);
    bls12_381_fr_from_u64(&nn, N);
    bls12_381_fr_inv(&ninv, &nn);
    direct_dft(coef, a, N, &winv);
    for (size_t k = 0; k < N; k++)
        bls12_381_fr_mul(&coef[k], &coef[k], &ninv);
    x = g;
    for (size_t j = 0; j < N; j++) {
        bls12_381_fr_set_zero(&ref[j]);
        for (size_t i = N; i-- > 0;) {
            bls12_381_fr_mul(&ref[j], &ref[j], &x);
            bls12_381_fr_add(&ref[j], &ref[j], &coef[i]);
        }
        bls12_381_fr_mul(&x, &x, &w);
    }
    memcpy(b, a, sizeof a);
    assert_int_equal(bls12_381_ntt_coset_odd(d, b, pool, &err), CUZK_OK);
    assert_memory_equal(b, ref, sizeof b);
    bls12_381_ntt_domain_free(d);
    d = NULL;
    assert_int_equal(bls12_381_ntt_domain_create_gen(&d, L, 4, pool, &err), CUZK_ERR_USAGE);
    assert_null(d);
    assert_non_null(strstr(err.msg, "square"));
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
        cmocka_unit_test(bls12_381_test_generator),
        cmocka_unit_test(bn254_test_large),
        cmocka_unit_test(bls12_381_test_large),
    };
    return cmocka_run_group_tests(tests, setup_pool, teardown_pool);
}
