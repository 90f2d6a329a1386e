/* GPU NTT against the CPU NTT (poly/ntt.h): every operation must be
 * bit-exact (same roots, same orderings, same Montgomery bytes). Exits 77
 * ("skipped") when there is no CUDA device or the library has no CUDA. */
#include "util/rng.h"
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuzk/gpu.h"
#include "gpu/device/gpu_mem.h"
#include "groth16/bp.h"
#include "poly/ntt.h"
#include "util/threadpool.h"

static cuzk_pool *g_pool;
static unsigned g_mismatches; /* check_one failures */

/* Per-curve glue, written once and instantiated by macro. */
#define NTT_GLUE(C)                                                                                 \
    static void C##_fill(void *v, size_t n, uint64_t seed)                                          \
    {                                                                                               \
        C##_fr_t *a = v;                                                                            \
        for (size_t i = 0; i < n; i++) {                                                            \
            C##_fr_t raw;                                                                           \
            for (int j = 0; j < 4; j++) raw.l[j] = cuzk_splitmix64(&seed);                                 \
            raw.l[3] &= 0x0fffffffffffffffULL; /* < 2^252 < r */                                    \
            C##_fr_to_mont(&a[i], &raw);                                                            \
        }                                                                                           \
        if (n > 2) {                                                                                \
            C##_fr_set_zero(&a[0]);                                                                 \
            C##_fr_set_one(&a[1]);                                                                  \
            C##_fr_neg(&a[2], &a[1]); /* r - 1 */                                                   \
        }                                                                                           \
    }                                                                                               \
    /* CPU reference of one GPU op. */                                                              \
    static void C##_cpu(unsigned lg, cuzk_gpu_ntt_op op, void *v)                                   \
    {                                                                                               \
        C##_fr_t *a = v;                                                                            \
        C##_ntt_domain *d = NULL;                                                                   \
        cuzk_error e = {0};                                                                         \
        assert_int_equal(C##_ntt_domain_create(&d, lg, g_pool, &e), CUZK_OK);                       \
        C##_fr_t g;                                                                                 \
        switch (op) {                                                                               \
        case CUZK_GPU_NTT_FORWARD: C##_ntt(d, a, g_pool); break;                                    \
        case CUZK_GPU_NTT_INVERSE: C##_intt(d, a, g_pool); break;                                   \
        case CUZK_GPU_NTT_COSET_FORWARD:                                                            \
            assert_true(C##_ntt_root_of_unity(&g, lg + 1));                                         \
            C##_ntt_coset(d, a, &g, g_pool);                                                        \
            break;                                                                                  \
        case CUZK_GPU_NTT_COSET_INVERSE:                                                            \
            assert_true(C##_ntt_root_of_unity(&g, lg + 1));                                         \
            C##_intt_coset(d, a, &g, g_pool);                                                       \
            break;                                                                                  \
        case CUZK_GPU_NTT_ODD_COSET:                                                                \
            assert_int_equal(C##_ntt_coset_odd(d, a, g_pool, &e), CUZK_OK);                         \
            break;                                                                                  \
        default: fail_msg("no CPU reference for op %d", (int)op);                                   \
        }                                                                                           \
        C##_ntt_domain_free(d);                                                                     \
    }

NTT_GLUE(bn254)
NTT_GLUE(bls12_381)

/* In-place bit-reversal permutation of 2^lg 32-byte elements (the
 * reference for the _NR / _RN orders: independent of the GPU code). */
static void bitrev_perm(void *v, unsigned lg)
{
    uint8_t *a = v, tmp[32];
    const size_t n = (size_t)1 << lg;
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        for (unsigned b = 0; b < lg; b++) r |= ((i >> b) & 1) << (lg - 1 - b);
        if (r <= i) continue;
        memcpy(tmp, a + 32 * i, 32);
        memcpy(a + 32 * i, a + 32 * r, 32);
        memcpy(a + 32 * r, tmp, 32);
    }
}

typedef struct {
    cuzk_curve curve;
    void (*fill)(void *, size_t, uint64_t);
    void (*cpu)(unsigned, cuzk_gpu_ntt_op, void *);
} curve_ops;

static const curve_ops CURVES[] = {
    {CUZK_CURVE_BN254, bn254_fill, bn254_cpu},
    {CUZK_CURVE_BLS12_381, bls12_381_fill, bls12_381_cpu},
};

static const char *OP_NAMES[] = {"forward", "inverse", "coset_forward", "coset_inverse", "odd_coset", "forward_nr",
                                  "inverse_rn"};

/* Runs op on the GPU and the CPU from the same input and compares bytes. */
static void check_one(const curve_ops *c, cuzk_gpu_ntt *t, void *stream, unsigned lg, cuzk_gpu_ntt_op op, uint64_t seed)
{
    size_t n = (size_t)1 << lg, bytes = n * 32;
    uint8_t *in = malloc(bytes), *ref = malloc(bytes), *got = malloc(bytes);
    assert_non_null(in);
    assert_non_null(ref);
    assert_non_null(got);
    c->fill(in, n, seed);
    memcpy(ref, in, bytes);
    /* FORWARD_NR = permute(FORWARD(x)); INVERSE_RN = INVERSE(permute(x)). */
    if (op == CUZK_GPU_NTT_FORWARD_NR) {
        c->cpu(lg, CUZK_GPU_NTT_FORWARD, ref);
        bitrev_perm(ref, lg);
    } else if (op == CUZK_GPU_NTT_INVERSE_RN) {
        bitrev_perm(ref, lg);
        c->cpu(lg, CUZK_GPU_NTT_INVERSE, ref);
    } else {
        c->cpu(lg, op, ref);
    }

    cuzk_error e = {0};
    void *d = NULL;
    assert_int_equal(cuzk_gpu_dev_alloc(&d, bytes, 0, &e), CUZK_OK);
    {
        memset(got, 0xa5, bytes);
        assert_int_equal(cuzk_gpu_copy(d, in, bytes, stream, &e), CUZK_OK);
        cuzk_status st = cuzk_gpu_ntt_run(t, d, lg, op, stream, &e);
        if (st) fprintf(stderr, "%s\n", e.msg);
        assert_int_equal(st, CUZK_OK);
        assert_int_equal(cuzk_gpu_copy(got, d, bytes, stream, &e), CUZK_OK);
        st = cuzk_gpu_stream_sync(stream, &e);
        if (st) fprintf(stderr, "%s\n", e.msg);
        assert_int_equal(st, CUZK_OK);
        if (memcmp(got, ref, bytes) != 0) {
            /* Recorded, not fatal at once: one run shows every failing
             * (op, size); the test fails at its end. */
            size_t i = 0;
            while (memcmp(got + 32 * i, ref + 32 * i, 32) == 0) i++;
            fprintf(stderr, "MISMATCH %s lg=%u %s: first mismatch at element %zu\n", cuzk_curve_name(c->curve), lg,
                    OP_NAMES[op], i);
            g_mismatches++;
        }
    }
    cuzk_gpu_dev_free(d, 0);
    free(in);
    free(ref);
    free(got);
}

/* CUZK_GPU_TEST_MAX_LG caps the sizes (quick runs under compute-sanitizer). */
static unsigned max_lg(void)
{
    const char *v = getenv("CUZK_GPU_TEST_MAX_LG");
    return v && atoi(v) > 0 ? (unsigned)atoi(v) : 64;
}

static void test_ntt_all(void **state)
{
    (void)state;
    static const unsigned sizes[] = {0, 1, 2, 5, 6, 7, 9, 10, 11, 12, 13, 16, 19, 20, 21};
    void *stream = NULL;
    cuzk_error e = {0};
    g_mismatches = 0;
    assert_int_equal(cuzk_gpu_stream_create(&stream, 0, &e), CUZK_OK);
    for (size_t ci = 0; ci < 2; ci++) {
        const curve_ops *c = &CURVES[ci];
        cuzk_gpu_ntt *t = NULL;
        cuzk_status st = cuzk_gpu_ntt_create(&t, c->curve, 21, 0, &e);
        if (st) fprintf(stderr, "%s\n", e.msg);
        assert_int_equal(st, CUZK_OK);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int op = 0; op <= CUZK_GPU_NTT_INVERSE_RN && sizes[si] <= max_lg(); op++)
                check_one(c, t, stream, sizes[si], (cuzk_gpu_ntt_op)op, 1000 * si + op + 77 * ci);
        cuzk_gpu_ntt_destroy(t);
    }
    cuzk_gpu_stream_destroy(stream);
    assert_int_equal(g_mismatches, 0);
}

/* The legacy default stream (NULL) works too. */
static void test_ntt_default_stream(void **state)
{
    (void)state;
    cuzk_error e = {0};
    cuzk_gpu_ntt *t = NULL;
    assert_int_equal(cuzk_gpu_ntt_create(&t, CUZK_CURVE_BLS12_381, 12, 0, &e), CUZK_OK);
    g_mismatches = 0;
    check_one(&CURVES[1], t, NULL, 12, CUZK_GPU_NTT_ODD_COSET, 5);
    cuzk_gpu_ntt_destroy(t);
    assert_int_equal(g_mismatches, 0);
}

/* INVERSE_RN undoes FORWARD_NR with no permutation in between (the pair a
 * caller uses around pointwise work); both curves. */
static void test_ntt_nr_rn_roundtrip(void **state)
{
    (void)state;
    cuzk_error e = {0};
    const unsigned lg = max_lg() < 13 ? max_lg() : 13;
    const size_t n = (size_t)1 << lg, bytes = n * 32;
    uint8_t *in = malloc(bytes), *got = malloc(bytes);
    assert_non_null(in);
    assert_non_null(got);
    g_mismatches = 0;
    for (size_t ci = 0; ci < 2; ci++) {
        cuzk_gpu_ntt *t = NULL;
        assert_int_equal(cuzk_gpu_ntt_create(&t, CURVES[ci].curve, lg, 0, &e), CUZK_OK);
        void *d = NULL;
        assert_int_equal(cuzk_gpu_dev_alloc(&d, bytes, 0, &e), CUZK_OK);
        CURVES[ci].fill(in, n, 99 + ci);
        {
            assert_int_equal(cuzk_gpu_copy(d, in, bytes, NULL, &e), CUZK_OK);
            assert_int_equal(cuzk_gpu_ntt_run(t, d, lg, CUZK_GPU_NTT_FORWARD_NR, NULL, &e), CUZK_OK);
            assert_int_equal(cuzk_gpu_ntt_run(t, d, lg, CUZK_GPU_NTT_INVERSE_RN, NULL, &e), CUZK_OK);
            memset(got, 0xa5, bytes);
            assert_int_equal(cuzk_gpu_copy(got, d, bytes, NULL, &e), CUZK_OK);
            assert_int_equal(cuzk_gpu_stream_sync(NULL, &e), CUZK_OK);
            if (memcmp(got, in, bytes) != 0) {
                fprintf(stderr, "MISMATCH %s lg=%u: INVERSE_RN(FORWARD_NR(x)) != x\n", cuzk_curve_name(CURVES[ci].curve),
                        lg);
                g_mismatches++;
            }
        }
        cuzk_gpu_dev_free(d, 0);
        cuzk_gpu_ntt_destroy(t);
    }
    free(in);
    free(got);
    assert_int_equal(g_mismatches, 0);
}

static void test_ntt_errors(void **state)
{
    (void)state;
    cuzk_error e = {0};
    cuzk_gpu_ntt *t = NULL;
    assert_int_equal(cuzk_gpu_ntt_create(&t, CUZK_CURVE_BN254, 29, 0, &e), CUZK_ERR_UNSUPPORTED);
    assert_null(t);
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gpu_ntt_create(&t, CUZK_CURVE_BN254, 28, 0, &e), CUZK_OK);
    void *d = NULL;
    assert_int_equal(cuzk_gpu_dev_alloc(&d, 64, 0, &e), CUZK_OK);
    /* lg above the handle's maximum */
    memset(&e, 0, sizeof e);
    cuzk_gpu_ntt *small = NULL;
    assert_int_equal(cuzk_gpu_ntt_create(&small, CUZK_CURVE_BN254, 4, 0, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(small, d, 5, CUZK_GPU_NTT_FORWARD, NULL, &e), CUZK_ERR_USAGE);
    assert_true(strlen(e.msg) > 0);
    /* a coset of size 2^28 on BN254 needs a 2^29-th root: unsupported */
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gpu_ntt_run(t, d, 28, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_ERR_UNSUPPORTED);
    /* misaligned data */
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gpu_ntt_run(small, (char *)d + 8, 1, CUZK_GPU_NTT_FORWARD, NULL, &e), CUZK_ERR_USAGE);
    /* unknown op */
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gpu_ntt_run(small, d, 1, (cuzk_gpu_ntt_op)(CUZK_GPU_NTT_INVERSE_RN + 1), NULL, &e),
                     CUZK_ERR_USAGE);
    cuzk_gpu_dev_free(d, 0);
    cuzk_gpu_ntt_destroy(small);
    cuzk_gpu_ntt_destroy(t);
}

/* cuzk_gpu_ntt_create_gen: with bellperson's generator 7 the forward NTT is
 * the DFT at w = 7^((r-1)/n), checked against a direct sum on the CPU;
 * INVERSE undoes it at a multi-pass size; a square generator is refused. */
static void test_ntt_generator(void **state)
{
    (void)state;
    cuzk_error e = {0};
    const unsigned lg = 9, big = max_lg() < 20 ? max_lg() : 20;
    const size_t n = (size_t)1 << lg, nb = (size_t)1 << big;
    bls12_381_fr_t *x = malloc(nb * 32), *got = malloc(nb * 32), w, wi, acc, t;
    assert_non_null(x);
    assert_non_null(got);
    CURVES[1].fill(x, nb, 17);
    cuzk_gpu_ntt *h = NULL;
    assert_int_equal(cuzk_gpu_ntt_create_gen(&h, CUZK_CURVE_BLS12_381, big, 7, 0, &e), CUZK_OK);
    void *d = NULL;
    assert_int_equal(cuzk_gpu_dev_alloc(&d, nb * 32, 0, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_copy(d, x, n * 32, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(h, d, lg, CUZK_GPU_NTT_FORWARD, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_copy(got, d, n * 32, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_stream_sync(NULL, &e), CUZK_OK);
    cuzk_bp_omega(&w, lg); /* 7^((r-1)/n) */
    unsigned bad = 0;
    bls12_381_fr_set_one(&wi); /* w^k */
    for (size_t k = 0; k < n; k++) {
        bls12_381_fr_t p; /* (w^k)^j */
        bls12_381_fr_set_zero(&acc);
        bls12_381_fr_set_one(&p);
        for (size_t j = 0; j < n; j++) {
            bls12_381_fr_mul(&t, &x[j], &p);
            bls12_381_fr_add(&acc, &acc, &t);
            bls12_381_fr_mul(&p, &p, &wi);
        }
        bad += memcmp(&acc, &got[k], 32) != 0;
        bls12_381_fr_mul(&wi, &wi, &w);
    }
    assert_int_equal(bad, 0);
    /* INVERSE(FORWARD(x)) = x at a size of several passes */
    assert_int_equal(cuzk_gpu_copy(d, x, nb * 32, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(h, d, big, CUZK_GPU_NTT_FORWARD, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(h, d, big, CUZK_GPU_NTT_INVERSE, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_copy(got, d, nb * 32, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_stream_sync(NULL, &e), CUZK_OK);
    assert_memory_equal(got, x, nb * 32);
    cuzk_gpu_dev_free(d, 0);
    cuzk_gpu_ntt_destroy(h);
    /* 4 = 2^2 is a square: its powers are no primitive roots */
    h = NULL;
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gpu_ntt_create_gen(&h, CUZK_CURVE_BLS12_381, 10, 4, 0, &e), CUZK_ERR_USAGE);
    assert_null(h);
    assert_non_null(strstr(e.msg, "square"));
    free(x);
    free(got);
}

int main(void)
{
    if (cuzk_gpu_device_count() == 0) {
        printf("no CUDA device: skipping GPU NTT tests\n");
        return 77;
    }
    g_pool = cuzk_pool_create(0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ntt_all),
        cmocka_unit_test(test_ntt_default_stream),
        cmocka_unit_test(test_ntt_nr_rn_roundtrip),
        cmocka_unit_test(test_ntt_errors),
        cmocka_unit_test(test_ntt_generator),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cuzk_pool_destroy(g_pool);
    return rc;
}
