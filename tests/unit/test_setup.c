/* INSECURE development setup: with known toxic waste every point of the key
 * equals the naive formula (setup_test_impl.h); keys made with random toxic
 * waste give Groth16 proofs that pass the pairing check, and wrong witnesses
 * do not; the key's structure (section 4 bytes, infinity pattern, sizes)
 * equals snarkjs's own `groth16 setup` output for the committed circom
 * fixtures; the file round-trips through the zkey reader; errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "cuzk/cuzk.h"
#include "cuzk/dev.h"
#include "formats/formats.h"
#include "groth16/setup.h"

#include "fixture_util.h"

#define TS bn254
#include "setup_test_impl.h"
#define TS bls12_381
#include "setup_test_impl.h"
#include "groth16/insecure.h"

static int setup(void **state)
{
    (void)state;
    return fx_setup("setup");
}

static int teardown(void **state)
{
    (void)state;
    return fx_teardown();
}

static void load(const char *rp, const char *wp, cuzk_r1cs *r, cuzk_wtns *w)
{
    cuzk_error e = {0};
    memset(r, 0, sizeof *r);
    memset(w, 0, sizeof *w);
    if (cuzk_r1cs_read(r, rp, &e) || (wp && cuzk_wtns_read(w, wp, &e)))
        fail_msg("%s", e.msg);
}

static void check_one(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_wtns *w, const cuzk_setup_toxic *tx)
{
    if (r->curve == CUZK_CURVE_BN254)
        bn254_check_circuit(ctx, r, w, tx);
    else
        bls12_381_check_circuit(ctx, r, w, tx);
}

/* Generated circuits, known and random toxic waste. */
static void test_gen_circuits(void **s)
{
    (void)s;
    cuzk_ctx *ctx = mkctx(NULL);
    const struct {
        cuzk_curve c;
        uint64_t m;
        uint32_t pub;
    } cases[] = {
        {CUZK_CURVE_BN254, 1, 0},        {CUZK_CURVE_BN254, 6, 2}, {CUZK_CURVE_BN254, 29, 3},
        {CUZK_CURVE_BLS12_381, 2, 1},    {CUZK_CURVE_BLS12_381, 13, 2},
    };
    for (size_t i = 0; i < CUZK_ARRAY_LEN(cases); i++) {
        const char *rp = T("g.r1cs"), *wp = T("g.wtns");
        cuzk_gen_opts go = {cases[i].c, cases[i].m, cases[i].pub, 17 + i};
        cuzk_error e = {0};
        if (cuzk_gen_files(ctx, &go, rp, wp, &e))
            fail_msg("gen: %s", e.msg);
        cuzk_r1cs r;
        cuzk_wtns w;
        load(rp, wp, &r, &w);
        check_one(ctx, &r, &w, &TOXIC);
        check_one(ctx, &r, &w, NULL);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
    }
    cuzk_ctx_free(ctx);
}

/* circom-compiled fixtures (witnesses from circom's wasm). */
static void test_circom_circuits(void **s)
{
    (void)s;
    cuzk_ctx *ctx = mkctx(NULL);
    const char *curves[] = {"bn128", "bls12381"};
    const char *names[] = {"mul", "linear", "nopub"};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 3; k++) {
            char rp[400], wp[400];
            snprintf(rp, sizeof rp, "%s/interop/%s/%s.r1cs", CUZK_TEST_DATA_DIR, curves[c], names[k]);
            snprintf(wp, sizeof wp, "%s/interop/%s/%s.wtns", CUZK_TEST_DATA_DIR, curves[c], names[k]);
            cuzk_r1cs r;
            cuzk_wtns w;
            load(rp, wp, &r, &w);
            check_one(ctx, &r, &w, &TOXIC);
            cuzk_r1cs_free(&r);
            cuzk_wtns_free(&w);
        }
    cuzk_ctx_free(ctx);
}

/* Same structure as snarkjs's `groth16 setup` (committed fixture zkeys):
 * sizes, section 4 entry for entry, and which points are infinity (a point
 * is infinity iff its polynomial is zero, whatever the toxic waste). */
static void test_matches_snarkjs_structure(void **s)
{
    (void)s;
    cuzk_ctx *ctx = mkctx(NULL);
    const char *curves[] = {"bn128", "bls12381"};
    const char *names[] = {"mul", "linear", "nopub", "manypub", "boundary_lo", "boundary_hi"};
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 6; k++) {
            char rp[400], zp[400];
            snprintf(rp, sizeof rp, "%s/interop/%s/%s.r1cs", CUZK_TEST_DATA_DIR, curves[c], names[k]);
            snprintf(zp, sizeof zp, "%s/interop/%s/%s.zkey", CUZK_TEST_DATA_DIR, curves[c], names[k]);
            cuzk_r1cs r;
            cuzk_wtns unused;
            load(rp, NULL, &r, &unused);
            cuzk_zkey ours, ref;
            cuzk_error e = {0};
            if (cuzk_setup_build(ctx, &r, NULL, &ours, &e) || cuzk_zkey_read(&ref, zp, NULL, &e))
                fail_msg("%s/%s: %s", curves[c], names[k], e.msg);
            assert_int_equal(ours.curve, ref.curve);
            assert_int_equal(ours.n_vars, ref.n_vars);
            assert_int_equal(ours.n_public, ref.n_public);
            assert_int_equal(ours.domain_size, ref.domain_size);
            assert_int_equal(ours.n_coefs, ref.n_coefs);
            size_t nc = (size_t)ours.n_coefs;
            assert_memory_equal(ours.coef_matrix, ref.coef_matrix, nc * 4);
            assert_memory_equal(ours.coef_constraint, ref.coef_constraint, nc * 4);
            assert_memory_equal(ours.coef_signal, ref.coef_signal, nc * 4);
            assert_memory_equal(ours.coef_value.ptr, ref.coef_value.ptr, nc * 32);
            for (uint32_t j = 0; j < ours.n_vars; j++) {
                if (c == 0) {
                    assert_int_equal(bn254_g1_affine_is_inf(&ours.a.bn254[j]), bn254_g1_affine_is_inf(&ref.a.bn254[j]));
                    assert_int_equal(bn254_g1_affine_is_inf(&ours.b1.bn254[j]), bn254_g1_affine_is_inf(&ref.b1.bn254[j]));
                    assert_int_equal(bn254_g2_affine_is_inf(&ours.b2.bn254[j]), bn254_g2_affine_is_inf(&ref.b2.bn254[j]));
                } else {
                    assert_int_equal(bls12_381_g1_affine_is_inf(&ours.a.bls12_381[j]),
                                     bls12_381_g1_affine_is_inf(&ref.a.bls12_381[j]));
                    assert_int_equal(bls12_381_g1_affine_is_inf(&ours.b1.bls12_381[j]),
                                     bls12_381_g1_affine_is_inf(&ref.b1.bls12_381[j]));
                    assert_int_equal(bls12_381_g2_affine_is_inf(&ours.b2.bls12_381[j]),
                                     bls12_381_g2_affine_is_inf(&ref.b2.bls12_381[j]));
                }
            }
            cuzk_zkey_free(&ours);
            cuzk_zkey_free(&ref);
            cuzk_r1cs_free(&r);
        }
    cuzk_ctx_free(ctx);
}

/* The file holds exactly the in-memory key; section 10 is empty. */
static void test_file_roundtrip(void **s)
{
    (void)s;
    cuzk_ctx *ctx = mkctx(NULL);
    for (int c = 0; c < 2; c++) {
        const char *rp = T("f.r1cs"), *wp = T("f.wtns"), *zp = T("f.zkey");
        cuzk_gen_opts go = {c ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254, 300, 2, 3};
        cuzk_error e = {0};
        if (cuzk_gen_files(ctx, &go, rp, wp, &e) || cuzk_setup_files_with_toxic(ctx, rp, zp, &TOXIC, &e))
            fail_msg("%s", e.msg);
        cuzk_r1cs r;
        cuzk_wtns w;
        load(rp, wp, &r, &w);
        cuzk_zkey mem, file;
        cuzk_zkey_read_opts ro = {0};
        ro.full_subgroup_check = true;
        if (cuzk_setup_build(ctx, &r, &TOXIC, &mem, &e) || cuzk_zkey_read(&file, zp, &ro, &e))
            fail_msg("%s", e.msg);
        const cuzk_curve_desc *cp = cuzk_curve_desc_get(go.curve);
        assert_int_equal(file.n_vars, mem.n_vars);
        assert_int_equal(file.n_coefs, mem.n_coefs);
        assert_memory_equal(&file.alpha_1, &mem.alpha_1, cp->g1_affine);
        assert_memory_equal(&file.delta_2, &mem.delta_2, cp->g2_affine);
        assert_memory_equal(file.ic.ptr, mem.ic.ptr, (mem.n_public + 1) * cp->g1_affine);
        assert_memory_equal(file.a.ptr, mem.a.ptr, mem.n_vars * cp->g1_affine);
        assert_memory_equal(file.b2.ptr, mem.b2.ptr, mem.n_vars * cp->g2_affine);
        assert_memory_equal(file.c.ptr, mem.c.ptr, (mem.n_vars - mem.n_public - 1) * cp->g1_affine);
        assert_memory_equal(file.h.ptr, mem.h.ptr, mem.domain_size * cp->g1_affine);
        assert_memory_equal(file.coef_value.ptr, mem.coef_value.ptr, mem.n_coefs * 32);
        cuzk_zkey_free(&mem);
        cuzk_zkey_free(&file);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
    }
    cuzk_ctx_free(ctx);
}

static void test_errors(void **s)
{
    (void)s;
    cuzk_ctx *ctx = mkctx(NULL);
    const char *zp = T("none.zkey");
    cuzk_error e = {0};
    /* Missing input: an error and no output file. */
    assert_int_equal(cuzk_setup_files(ctx, "/nonexistent/x.r1cs", zp, &e), CUZK_ERR_IO);
    assert_int_equal(access(zp, F_OK), -1);

    /* Domains beyond the 2-adicity (2n must exist): rejected before any
     * matrix is touched. BN254: n = 2^28 = 2^s is refused. */
    cuzk_r1cs big;
    memset(&big, 0, sizeof big);
    big.curve = CUZK_CURVE_BN254;
    big.n_wires = 10;
    big.n_pub_in = 1;
    big.n_constraints = 1u << 27; /* + 1 public -> n = 2^28 */
    cuzk_zkey zk;
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_setup_build(ctx, &big, NULL, &zk, &e), CUZK_ERR_UNSUPPORTED);
    if (!strstr(e.msg, "2^28"))
        fail_msg("message: %s", e.msg);
    cuzk_zkey_free(&zk);
    big.curve = CUZK_CURVE_BLS12_381;
    big.n_constraints = 1u << 31;
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_setup_build(ctx, &big, NULL, &zk, &e), CUZK_ERR_UNSUPPORTED);
    cuzk_zkey_free(&zk);

    /* tau in the domain (tau = 1) is refused. */
    const char *rp = T("e.r1cs"), *wp = T("e.wtns");
    cuzk_gen_opts go = {CUZK_CURVE_BN254, 5, 1, 1};
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gen_files(ctx, &go, rp, wp, &e), CUZK_OK);
    cuzk_r1cs r;
    cuzk_wtns w;
    load(rp, NULL, &r, &w);
    cuzk_setup_toxic bad = TOXIC;
    memset(bad.tau, 0, sizeof bad.tau);
    bad.tau[0] = 1;
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_setup_build(ctx, &r, &bad, &zk, &e), CUZK_ERR_USAGE);
    cuzk_zkey_free(&zk);
    cuzk_r1cs_free(&r);
    cuzk_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen_circuits),
        cmocka_unit_test(test_circom_circuits),
        cmocka_unit_test(test_matches_snarkjs_structure),
        cmocka_unit_test(test_file_roundtrip),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
