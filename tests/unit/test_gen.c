/* cuzk gen: the generated r1cs/wtns pair has exactly the requested shape and
 * the witness satisfies every constraint. The files are parsed here with a
 * minimal independent reader (not the formats layer) and checked naively;
 * the formats layer's reader + satisfaction check must agree. Also:
 * determinism (seed, thread count), the 0/1-heavy profile, and that a
 * corrupted witness is rejected (so the checks can fail). */
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

#include "fixture_util.h"

static int setup(void **state)
{
    (void)state;
    return fx_setup("gen");
}

static int teardown(void **state)
{
    (void)state;
    return fx_teardown();
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Minimal binfile section lookup: body pointer and size of section id. */
static const uint8_t *section(const uint8_t *f, size_t len, const char *magic, uint32_t id, uint64_t *size)
{
    assert_memory_equal(f, magic, 4);
    uint32_t ns = rd32(f + 8);
    size_t pos = 12;
    for (uint32_t i = 0; i < ns; i++) {
        assert_true(pos + 12 <= len);
        uint32_t sid = rd32(f + pos);
        uint64_t sz = rd64(f + pos + 4);
        assert_true(pos + 12 + sz <= len);
        if (sid == id) {
            *size = sz;
            return f + pos + 12;
        }
        pos += 12 + (size_t)sz;
    }
    fail_msg("section %u missing", id);
    return NULL;
}

typedef struct {
    uint32_t n_wires, n_pub, n_constraints;
    uint64_t bits, small, full;      /* witness value classes */
    uint32_t max_terms, min_terms;
    int first_bad;                   /* first unsatisfied constraint, -1 if none */
} naive_report;

/* Naive check over the raw files, generic over the curve. */
#define NAIVE_CHECK(C)                                                                             \
    static naive_report C##_naive(const uint8_t *rf, size_t rlen, const uint8_t *wf, size_t wlen)  \
    {                                                                                              \
        naive_report rep = {0};                                                                    \
        rep.first_bad = -1;                                                                        \
        rep.min_terms = 99;                                                                        \
        uint64_t sz;                                                                               \
        const uint8_t *h = section(rf, rlen, "r1cs", 1, &sz);                                      \
        assert_int_equal(rd32(h), 32);                                                             \
        C##_fr_t prime;                                                                            \
        C##_fr_from_bytes_le(&prime, h + 4);                                                       \
        assert_memory_equal(prime.l, C##_fr_MODULUS.l, 32);                                        \
        rep.n_wires = rd32(h + 36);                                                                \
        rep.n_pub = rd32(h + 40) + rd32(h + 44);                                                   \
        rep.n_constraints = rd32(h + 60);                                                          \
        const uint8_t *ws = section(wf, wlen, "wtns", 1, &sz);                                     \
        assert_int_equal(rd32(ws), 32);                                                            \
        assert_memory_equal(ws + 4, h + 4, 32);                                                    \
        assert_int_equal(rd32(ws + 36), rep.n_wires);                                              \
        const uint8_t *wv = section(wf, wlen, "wtns", 2, &sz);                                     \
        assert_int_equal(sz, (uint64_t)rep.n_wires * 32);                                          \
        C##_fr_t *w = malloc((size_t)rep.n_wires * sizeof *w);                                     \
        assert_non_null(w);                                                                        \
        for (uint32_t i = 0; i < rep.n_wires; i++) {                                               \
            C##_fr_t raw;                                                                          \
            C##_fr_from_bytes_le(&raw, wv + 32 * (size_t)i);                                       \
            assert_true(C##_fr_raw_is_canonical(&raw));                                            \
            bool hi = raw.l[1] | raw.l[2] | raw.l[3];                                              \
            if (!hi && raw.l[0] <= 1)                                                              \
                rep.bits++;                                                                        \
            else if (!(raw.l[2] | raw.l[3]))                                                       \
                rep.small++;                                                                       \
            else                                                                                   \
                rep.full++;                                                                        \
            C##_fr_to_mont(&w[i], &raw);                                                           \
        }                                                                                          \
        assert_true(C##_fr_is_one(&w[0]));                                                         \
        const uint8_t *cs = section(rf, rlen, "r1cs", 2, &sz), *end = cs + sz;                     \
        for (uint32_t c = 0; c < rep.n_constraints; c++) {                                         \
            C##_fr_t lc[3];                                                                        \
            for (int m = 0; m < 3; m++) {                                                          \
                assert_true(cs + 4 <= end);                                                        \
                uint32_t nt = rd32(cs);                                                            \
                cs += 4;                                                                           \
                if (nt > rep.max_terms)                                                            \
                    rep.max_terms = nt;                                                            \
                if (m < 2 && nt < rep.min_terms)                                                   \
                    rep.min_terms = nt;                                                            \
                C##_fr_set_zero(&lc[m]);                                                           \
                uint32_t prev = 0;                                                                 \
                for (uint32_t t = 0; t < nt; t++) {                                                \
                    assert_true(cs + 36 <= end);                                                   \
                    uint32_t wire = rd32(cs);                                                      \
                    assert_true(wire < rep.n_wires);                                               \
                    if (t)                                                                         \
                        assert_true(wire > prev); /* sorted, no duplicates */                      \
                    prev = wire;                                                                   \
                    C##_fr_t k;                                                                    \
                    C##_fr_from_bytes_le(&k, cs + 4);                                              \
                    assert_true(C##_fr_raw_is_canonical(&k));                                      \
                    C##_fr_to_mont(&k, &k);                                                        \
                    C##_fr_mul(&k, &k, &w[wire]);                                                  \
                    C##_fr_add(&lc[m], &lc[m], &k);                                                \
                    cs += 36;                                                                      \
                }                                                                                  \
            }                                                                                      \
            C##_fr_mul(&lc[0], &lc[0], &lc[1]);                                                    \
            if (!C##_fr_eq(&lc[0], &lc[2]) && rep.first_bad < 0)                                   \
                rep.first_bad = (int)c;                                                            \
        }                                                                                          \
        assert_ptr_equal(cs, end);                                                                 \
        /* Section 3: identity labels. */                                                          \
        const uint8_t *lb = section(rf, rlen, "r1cs", 3, &sz);                                     \
        assert_int_equal(sz, (uint64_t)rep.n_wires * 8);                                           \
        for (uint32_t i = 0; i < rep.n_wires; i++)                                                 \
            assert_int_equal(rd64(lb + 8 * (size_t)i), i);                                         \
        free(w);                                                                                   \
        return rep;                                                                                \
    }
NAIVE_CHECK(bn254)
NAIVE_CHECK(bls12_381)

static naive_report naive(cuzk_curve c, const char *rp, const char *wp)
{
    size_t rl, wl;
    uint8_t *rf = (uint8_t *)slurp(rp, &rl), *wf = (uint8_t *)slurp(wp, &wl);
    naive_report rep = c == CUZK_CURVE_BN254 ? bn254_naive(rf, rl, wf, wl) : bls12_381_naive(rf, rl, wf, wl);
    free(rf);
    free(wf);
    return rep;
}

static cuzk_ctx *ctx_threads(int threads)
{
    cuzk_ctx *ctx = NULL;
    cuzk_ctx_opts o = {0};
    o.threads = threads;
    cuzk_error e = {0};
    assert_int_equal(cuzk_ctx_create(&ctx, &o, &e), CUZK_OK);
    return ctx;
}

static void gen(cuzk_ctx *ctx, cuzk_curve c, uint64_t m, uint32_t pub, uint64_t seed, const char *rp,
                const char *wp)
{
    cuzk_gen_opts o = {c, m, pub, seed};
    cuzk_error e = {0};
    cuzk_status st = cuzk_gen_files(ctx, &o, rp, wp, &e);
    if (st)
        fail_msg("gen: %s", e.msg);
}

/* The formats layer's reader and satisfaction check. */
static cuzk_status formats_check(const char *rp, const char *wp, cuzk_error *e)
{
    cuzk_r1cs r;
    cuzk_wtns w;
    memset(&r, 0, sizeof r);
    memset(&w, 0, sizeof w);
    cuzk_status st = cuzk_r1cs_read(&r, rp, e);
    if (!st)
        st = cuzk_wtns_read(&w, wp, e);
    if (!st)
        st = cuzk_r1cs_check_witness(&r, &w, NULL, rp, wp, e);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
    return st;
}

static void check_shape(cuzk_curve c, uint64_t m, uint32_t pub)
{
    cuzk_ctx *ctx = ctx_threads(2);
    const char *rp = T("s.r1cs"), *wp = T("s.wtns");
    gen(ctx, c, m, pub, 1234 + m, rp, wp);
    naive_report rep = naive(c, rp, wp);
    assert_int_equal(rep.n_constraints, m);
    assert_int_equal(rep.n_pub, pub);
    assert_int_equal(rep.n_wires, 1 + pub + m);
    assert_int_equal(rep.first_bad, -1);
    assert_true(rep.max_terms <= 4);
    cuzk_error e = {0};
    cuzk_status st = formats_check(rp, wp, &e);
    if (st)
        fail_msg("formats check: %s", e.msg);
    cuzk_ctx_free(ctx);
}

static void test_shapes_bn254(void **s)
{
    (void)s;
    const uint64_t ms[] = {1, 2, 3, 17, 1000};
    const uint32_t ps[] = {0, 1, 2, 5, 3};
    for (size_t i = 0; i < 5; i++)
        check_shape(CUZK_CURVE_BN254, ms[i], ps[i]);
}

static void test_shapes_bls(void **s)
{
    (void)s;
    const uint64_t ms[] = {1, 4, 33, 777};
    const uint32_t ps[] = {1, 0, 7, 2};
    for (size_t i = 0; i < 4; i++)
        check_shape(CUZK_CURVE_BLS12_381, ms[i], ps[i]);
}

/* Crosses chunk boundaries; checks the profile. */
static void test_profile_multi_chunk(void **s)
{
    (void)s;
    for (int c = 1; c <= 2; c++) {
        cuzk_curve cv = c == 1 ? CUZK_CURVE_BN254 : CUZK_CURVE_BLS12_381;
        uint64_t m = c == 1 ? 70000 : 40000; /* > 2 chunks / > 1 chunk of 2^15 */
        cuzk_ctx *ctx = ctx_threads(2);
        const char *rp = T("p.r1cs"), *wp = T("p.wtns");
        gen(ctx, cv, m, 4, 99, rp, wp);
        naive_report rep = naive(cv, rp, wp);
        assert_int_equal(rep.first_bad, -1);
        assert_int_equal(rep.n_constraints, m);
        double tot = (double)rep.n_wires;
        assert_true(rep.bits / tot > 0.55);  /* mostly 0/1 */
        assert_true(rep.full / tot > 0.05);  /* and some full field elements */
        assert_true(rep.small / tot > 0.05); /* packed words */
        assert_true(rep.max_terms >= 4 && rep.min_terms >= 1);
        cuzk_error e = {0};
        if (formats_check(rp, wp, &e))
            fail_msg("formats check: %s", e.msg);
        cuzk_ctx_free(ctx);
    }
}

static bool same_file(const char *a, const char *b)
{
    size_t la, lb;
    uint8_t *fa = (uint8_t *)slurp(a, &la), *fb = (uint8_t *)slurp(b, &lb);
    bool same = la == lb && !memcmp(fa, fb, la);
    free(fa);
    free(fb);
    return same;
}

static void test_determinism(void **s)
{
    (void)s;
    const char *r1 = T("d1.r1cs"), *w1 = T("d1.wtns"), *r2 = T("d2.r1cs"), *w2 = T("d2.wtns");
    const char *r3 = T("d3.r1cs"), *w3 = T("d3.wtns");
    cuzk_ctx *c1 = ctx_threads(1), *c2 = ctx_threads(2);
    gen(c1, CUZK_CURVE_BN254, 40000, 3, 7, r1, w1);
    gen(c2, CUZK_CURVE_BN254, 40000, 3, 7, r2, w2); /* other thread count */
    gen(c2, CUZK_CURVE_BN254, 40000, 3, 8, r3, w3); /* other seed */
    assert_true(same_file(r1, r2));
    assert_true(same_file(w1, w2));
    assert_false(same_file(r1, r3));
    assert_false(same_file(w1, w3));
    /* seed 0 = random */
    gen(c2, CUZK_CURVE_BN254, 100, 1, 0, r1, w1);
    gen(c2, CUZK_CURVE_BN254, 100, 1, 0, r2, w2);
    assert_false(same_file(w1, w2));
    cuzk_ctx_free(c1);
    cuzk_ctx_free(c2);
}

/* A corrupted witness value must be caught by both checks. */
static void test_corrupt_detected(void **s)
{
    (void)s;
    cuzk_ctx *ctx = ctx_threads(2);
    const char *rp = T("c.r1cs"), *wp = T("c.wtns");
    gen(ctx, CUZK_CURVE_BLS12_381, 500, 2, 5, rp, wp);
    size_t wl;
    uint8_t *wf = (uint8_t *)slurp(wp, &wl);
    /* Wire 200 is the output of constraint 197 (1 + 2 public + 197), and no
     * earlier constraint uses it. Give it a value of 65+ bits that no
     * constraint kind can produce except a random product (2^-180 chance). */
    size_t off = wl - (size_t)(1 + 2 + 500 - 200) * 32;
    memset(wf + off, 0, 32);
    wf[off] = 0x0d;
    wf[off + 3] = 0xbe;
    wf[off + 8] = 5;
    FILE *f = fopen(wp, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(wf, 1, wl, f), wl);
    fclose(f);
    free(wf);
    naive_report rep = naive(CUZK_CURVE_BLS12_381, rp, wp);
    assert_int_equal(rep.first_bad, 197);
    cuzk_error e = {0};
    assert_int_equal(formats_check(rp, wp, &e), CUZK_ERR_MISMATCH);
    cuzk_ctx_free(ctx);
}

static void test_bad_args(void **s)
{
    (void)s;
    cuzk_ctx *ctx = ctx_threads(1);
    const char *rp = T("x.r1cs"), *wp = T("x.wtns");
    cuzk_error e = {0};
    cuzk_gen_opts o = {CUZK_CURVE_BN254, 0, 1, 1};
    assert_int_equal(cuzk_gen_files(ctx, &o, rp, wp, &e), CUZK_ERR_USAGE);
    assert_true(strlen(e.msg) > 0);
    cuzk_gen_opts o2 = {CUZK_CURVE_NONE, 10, 1, 1};
    memset(&e, 0, sizeof e);
    assert_int_equal(cuzk_gen_files(ctx, &o2, rp, wp, &e), CUZK_ERR_USAGE);
    assert_int_equal(access(rp, F_OK), -1); /* nothing written */
    /* Unwritable destination: an error, and no file. */
    cuzk_gen_opts o3 = {CUZK_CURVE_BN254, 10, 1, 1};
    memset(&e, 0, sizeof e);
    assert_int_not_equal(cuzk_gen_files(ctx, &o3, "/nonexistent-dir/x.r1cs", wp, &e), CUZK_OK);
    assert_int_equal(access(wp, F_OK), -1);
    cuzk_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes_bn254),
        cmocka_unit_test(test_shapes_bls),
        cmocka_unit_test(test_profile_multi_chunk),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_corrupt_detected),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
