/* Groth16 prover/verifier through the public file API, on circom/snarkjs
 * fixtures (tests/data/formats: made by circom2 + snarkjs 0.7.6):
 *  - our proofs verify against snarkjs's verification_key.json, and snarkjs's
 *    proof verifies with our verifier (independent implementation each way);
 *  - exported vk equals snarkjs's `zkey export verificationkey` (values);
 *  - tampered proofs/public inputs are rejected;
 *  - a witness that does not satisfy the circuit is reported, and no output
 *    file is left behind;
 *  - r, s are random (two proofs differ) and zero_rs proofs are deterministic;
 *  - every way the prover reads a key, and the scalar and vector (IFMA)
 *    field code, give the same proof (see test_key_layouts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "cuzk/dev.h"
#include "field/fp_ifma.h"
#include "formats/formats.h"

#include "fixture_util.h"
#include "groth16/insecure.h"

typedef struct {
    const char *dir, *circ;
} fixture;

static const fixture FX[] = {{"bn128", "mul"}, {"bls12381", "mul"}, {"lin", "lin"}};

static int setup(void **state)
{
    (void)state;
    return fx_setup("g16");
}

static int teardown(void **state)
{
    (void)state;
    return fx_teardown();
}

static const char *zkey_of(const fixture *f)
{
    static char b[1024];
    snprintf(b, sizeof b, "%s/%s/%s.zkey", FX_DIR, f->dir, f->circ);
    return b;
}

static void test_prove_verify_both_ways(void **state)
{
    (void)state;
    cuzk_ctx *ctx = mkctx(NULL);
    for (size_t i = 0; i < sizeof FX / sizeof FX[0]; i++) {
        const fixture *f = &FX[i];
        cuzk_error err = {0};
        cuzk_prove_opts po = {0};
        assert_int_equal(cuzk_prove_files(ctx, zkey_of(f), P(f->dir, "witness.wtns"), T("proof.json"),
                                          T("public.json"), &po, &err),
                         CUZK_OK);
        /* Our proof against snarkjs's verification key. */
        assert_int_equal(cuzk_verify_files(ctx, P(f->dir, "verification_key.json"), T("public.json"),
                                           T("proof.json"), &err),
                         CUZK_OK);
        /* Public signals equal snarkjs's (values; formatting is snarkjs's too). */
        char *ours = slurp(T("public.json"), NULL), *theirs = slurp(P(f->dir, "public.json"), NULL);
        assert_string_equal(ours, theirs);
        free(ours);
        free(theirs);
        /* snarkjs's proof against our verifier. */
        assert_int_equal(cuzk_verify_files(ctx, P(f->dir, "verification_key.json"), P(f->dir, "public.json"),
                                           P(f->dir, "proof.json"), &err),
                         CUZK_OK);
        /* export-vk equals snarkjs's verification key. */
        assert_int_equal(cuzk_export_vk_files(ctx, zkey_of(f), T("vk.json"), &err), CUZK_OK);
        char *vk_ours = slurp(T("vk.json"), NULL), *vk_theirs = slurp(P(f->dir, "verification_key.json"), NULL);
        assert_string_equal(vk_ours, vk_theirs);
        free(vk_ours);
        free(vk_theirs);
    }
    cuzk_ctx_free(ctx);
}

static void test_tampered_rejected(void **state)
{
    (void)state;
    cuzk_ctx *ctx = mkctx(NULL);
    for (size_t i = 0; i < 2; i++) {
        const fixture *f = &FX[i];
        cuzk_error err = {0};
        /* Public input + 1. */
        char *pub = slurp(P(f->dir, "public.json"), NULL);
        char *q = strchr(pub, '"');
        assert_non_null(q);
        /* "5" -> "6" style bump of the last digit of the first value. */
        char *end = strchr(q + 1, '"');
        assert_true(end[-1] >= '0' && end[-1] <= '8');
        end[-1]++;
        spit(T("pub_bad.json"), pub);
        free(pub);
        assert_int_equal(cuzk_verify_files(ctx, P(f->dir, "verification_key.json"), T("pub_bad.json"),
                                           P(f->dir, "proof.json"), &err),
                         CUZK_ERR_INVALID_PROOF);
        /* pi_a and pi_c swapped: both valid points, wrong proof. */
        cuzk_proof_points pf = {0};
        cuzk_err_clear(&err);
        assert_int_equal(cuzk_proof_points_read_json(&pf, P(f->dir, "proof.json"), CUZK_CURVE_NONE, &err), CUZK_OK);
        cuzk_g1_point t = pf.a;
        pf.a = pf.c;
        pf.c = t;
        assert_int_equal(cuzk_proof_points_write_json(&pf, T("proof_bad.json"), CUZK_JSON_SNARKJS, &err), CUZK_OK);
        assert_int_equal(cuzk_verify_files(ctx, P(f->dir, "verification_key.json"), P(f->dir, "public.json"),
                                           T("proof_bad.json"), &err),
                         CUZK_ERR_INVALID_PROOF);
    }
    cuzk_ctx_free(ctx);
}

static void test_bad_witness_no_output(void **state)
{
    (void)state;
    cuzk_ctx *ctx = mkctx(NULL);
    for (size_t i = 0; i < 2; i++) {
        const fixture *f = &FX[i];
        cuzk_error err = {0};
        cuzk_wtns w = {0};
        assert_int_equal(cuzk_wtns_read(&w, P(f->dir, "witness.wtns"), &err), CUZK_OK);
        /* Change the last (internal) wire: the constraints no longer hold. */
        uint64_t *last = (uint64_t *)((uint8_t *)w.values.ptr + (size_t)(w.n_witness - 1) * 32);
        last[0] ^= 1;
        assert_int_equal(cuzk_wtns_write(&w, T("bad.wtns"), &err), CUZK_OK);
        cuzk_wtns_free(&w);
        unlink(T("p.json"));
        unlink(T("q.json"));
        cuzk_prove_opts po = {0};
        assert_int_equal(cuzk_prove_files(ctx, zkey_of(f), T("bad.wtns"), T("p.json"), T("q.json"), &po, &err),
                         CUZK_ERR_MISMATCH);
        assert_non_null(strstr(err.msg, "bad.wtns"));
        assert_null(strchr(err.msg, '\n'));
        assert_int_equal(access(T("p.json"), F_OK), -1);
        assert_int_equal(access(T("q.json"), F_OK), -1);
        /* Witness of the other curve. */
        cuzk_err_clear(&err);
        assert_int_not_equal(cuzk_prove_files(ctx, zkey_of(f), P(FX[1 - i].dir, "witness.wtns"), T("p.json"),
                                              T("q.json"), &po, &err),
                             CUZK_OK);
        assert_non_null(strstr(err.msg, "witness.wtns"));
        assert_int_equal(access(T("p.json"), F_OK), -1);
    }
    cuzk_ctx_free(ctx);
}

static void test_randomness(void **state)
{
    (void)state;
    cuzk_ctx *ctx = mkctx(NULL);
    const fixture *f = &FX[0];
    cuzk_error err = {0};
    cuzk_prove_opts po = {0};
    assert_int_equal(cuzk_prove_files(ctx, zkey_of(f), P(f->dir, "witness.wtns"), T("p1.json"), T("u1.json"), &po, &err), CUZK_OK);
    assert_int_equal(cuzk_prove_files(ctx, zkey_of(f), P(f->dir, "witness.wtns"), T("p2.json"), T("u2.json"), &po, &err), CUZK_OK);
    char *a = slurp(T("p1.json"), NULL), *b = slurp(T("p2.json"), NULL);
    assert_string_not_equal(a, b);
    free(a);
    free(b);
    po.insecure_zero_rs = 1;
    assert_int_equal(cuzk_prove_files(ctx, zkey_of(f), P(f->dir, "witness.wtns"), T("p3.json"), T("u3.json"), &po, &err), CUZK_OK);
    assert_int_equal(cuzk_prove_files(ctx, zkey_of(f), P(f->dir, "witness.wtns"), T("p4.json"), T("u4.json"), &po, &err), CUZK_OK);
    a = slurp(T("p3.json"), NULL);
    b = slurp(T("p4.json"), NULL);
    assert_string_equal(a, b);
    free(a);
    free(b);
    assert_int_equal(cuzk_verify_files(ctx, P(f->dir, "verification_key.json"), T("u3.json"), T("p3.json"), &err), CUZK_OK);
    cuzk_ctx_free(ctx);
}

/* Writes zk to path with its coefficient records replaced by n records:
 * record i is zk's record map[i], or a zero record for constraint 0 where
 * map[i] < 0. */
static void write_remapped(const cuzk_zkey *zk, const long *map, size_t n, const char *path)
{
    cuzk_zkey v = *zk;
    v.coef_matrix = malloc(n * 4);
    v.coef_constraint = malloc(n * 4);
    v.coef_signal = malloc(n * 4);
    uint64_t(*val)[4] = malloc(n * 32);
    const uint64_t(*ov)[4] = zk->coef_value.ptr;
    assert_true(v.coef_matrix && v.coef_constraint && v.coef_signal && val);
    for (size_t i = 0; i < n; i++) {
        long k = map[i];
        v.coef_matrix[i] = k < 0 ? 0 : zk->coef_matrix[k];
        v.coef_constraint[i] = k < 0 ? 0 : zk->coef_constraint[k];
        v.coef_signal[i] = k < 0 ? 0 : zk->coef_signal[k];
        if (k < 0)
            memset(val[i], 0, 32);
        else
            memcpy(val[i], ov[k], 32);
    }
    v.coef_value.ptr = val;
    v.n_coefs = n;
    cuzk_error err = {0};
    assert_int_equal(cuzk_zkey_write(&v, path, &err), CUZK_OK);
    free(v.coef_matrix);
    free(v.coef_constraint);
    free(v.coef_signal);
    free(val);
}

/* Which point arrays a default (zero-copy) read uses in place: bit i for
 * a, b1, b2, c, h. */
static unsigned in_place_mask(const char *zkey)
{
    cuzk_zkey zk;
    cuzk_error err = {0};
    assert_int_equal(cuzk_zkey_read(&zk, zkey, NULL, &err), CUZK_OK);
    const void *arr[] = {zk.a.ptr, zk.b1.ptr, zk.b2.ptr, zk.c.ptr, zk.h.ptr};
    unsigned mask = 0;
    for (unsigned i = 0; i < 5; i++) {
        uintptr_t p = (uintptr_t)arr[i], m = (uintptr_t)zk.map;
        if (zk.map && p >= m && p - m < zk.map_size)
            mask |= 1u << i;
    }
    cuzk_zkey_free(&zk);
    return mask;
}

/* The prover's ways of reading a key give the same proof (r = s = 0):
 *  - records sorted by constraint (as cuzk and snarkjs write them),
 *    evaluated in place in chunks (tens of chunks here);
 *  - the same records reversed, and with two records of different
 *    constraints swapped inside a chunk: both must take the CSR path;
 *  - one more (zero) record first: still sorted, but every point section
 *    after section 4 moves by 44 bytes, so the sections used in place and
 *    the copied ones trade places.
 * Each proof is also checked by the verifier. */
static void test_key_layouts(void **state)
{
    (void)state;
    cuzk_ctx *ctx = mkctx(NULL);
    const cuzk_curve curves[] = {CUZK_CURVE_BN254, CUZK_CURVE_BLS12_381};
    for (size_t ci = 0; ci < 2; ci++) {
        cuzk_error err = {0};
        cuzk_gen_opts go = {.curve = curves[ci], .constraints = 20000, .public_inputs = 3, .seed = 11};
        assert_int_equal(cuzk_gen_files(ctx, &go, T("g.r1cs"), T("g.wtns"), &err), CUZK_OK);
        assert_int_equal(cuzk_setup_files(ctx, T("g.r1cs"), T("g.zkey"), &err), CUZK_OK);
        assert_int_equal(cuzk_export_vk_files(ctx, T("g.zkey"), T("g.vk.json"), &err), CUZK_OK);
        cuzk_prove_opts po = {.insecure_zero_rs = 1};
        assert_int_equal(cuzk_prove_files(ctx, T("g.zkey"), T("g.wtns"), T("p0.json"), T("u0.json"), &po, &err),
                         CUZK_OK);
        char *ref = slurp(T("p0.json"), NULL);
        assert_int_equal(cuzk_verify_files(ctx, T("g.vk.json"), T("u0.json"), T("p0.json"), &err), CUZK_OK);
        /* The scalar field code (no AVX-512 IFMA) gives the same proof. */
        {
            const bool was = cuzk_ifma_enabled();
            cuzk_ifma_set(!was);
            assert_int_equal(cuzk_prove_files(ctx, T("g.zkey"), T("g.wtns"), T("p1.json"), T("u1.json"), &po, &err),
                             CUZK_OK);
            cuzk_ifma_set(was);
            char *got = slurp(T("p1.json"), NULL);
            assert_string_equal(got, ref);
            free(got);
        }

        cuzk_zkey zk;
        assert_int_equal(cuzk_zkey_read(&zk, T("g.zkey"), NULL, &err), CUZK_OK);
        const size_t n = zk.n_coefs;
        assert_true(n > 8 * 4096); /* several chunks */
        long *map = malloc((n + 1) * sizeof *map);
        for (int variant = 0; variant < 3; variant++) {
            size_t m = n;
            for (size_t i = 0; i < n; i++)
                map[i] = (long)(variant == 0 ? n - 1 - i : i);
            if (variant == 1) {
                size_t i = n / 2 + 100; /* inside a chunk, not at its edges */
                while (zk.coef_constraint[i] == zk.coef_constraint[i + 3])
                    i++;
                map[i] = (long)(i + 3);
                map[i + 3] = (long)i;
            } else if (variant == 2) {
                memmove(map + 1, map, n * sizeof *map);
                map[0] = -1;
                m = n + 1;
            }
            write_remapped(&zk, map, m, T("v.zkey"));
            if (variant == 2)
                assert_int_equal(in_place_mask(T("v.zkey")), in_place_mask(T("g.zkey")) ^ 0x1f);
            assert_int_equal(cuzk_prove_files(ctx, T("v.zkey"), T("g.wtns"), T("p1.json"), T("u1.json"), &po, &err),
                             CUZK_OK);
            char *got = slurp(T("p1.json"), NULL);
            assert_string_equal(got, ref);
            free(got);
        }
        free(map);
        free(ref);
        cuzk_zkey_free(&zk);
    }
    cuzk_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prove_verify_both_ways),
        cmocka_unit_test(test_tampered_rejected),
        cmocka_unit_test(test_bad_witness_no_output),
        cmocka_unit_test(test_randomness),
        cmocka_unit_test(test_key_layouts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
