/* Curve-generic pairing tests, included once per curve by test_pairing.c:
 *   #define TC bn254               (curve prefix)
 *   #define TC_KAT "pairing_bn254.json"
 *   #define TC_VK "snarkjs_vk_bn128.json"
 * References: vectors from @noble/curves (tests/kat/gen_pairing_kat.mjs), a
 * verification key written by snarkjs, and algebraic identities checked with
 * the plain (non-tower-specific) pow and group arithmetic. */

#define TC_(name) CUZK_NAME(TC, name)
#define TC_FP_(name) CUZK_NAME(CUZK_CAT2(TC, _fp), name)
#define TC_FP2_(name) CUZK_NAME(CUZK_CAT2(TC, _fp2), name)
#define TC_FP6_(name) CUZK_NAME(CUZK_CAT2(TC, _fp6), name)
#define TC_FP12_(name) CUZK_NAME(CUZK_CAT2(TC, _fp12), name)
#define TC_G1_(name) CUZK_NAME(CUZK_CAT2(TC, _g1), name)
#define TC_G2_(name) CUZK_NAME(CUZK_CAT2(TC, _g2), name)
#define TC_FR_(name) CUZK_NAME(CUZK_CAT2(TC, _fr), name)

#include "util/templates.h"
#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TEST_PAIRING, CUZK_NAME(TC, C_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

static void TC_(f12_json)(TC_FP12_(t) *r, const cJSON *arr)
{
    const char *s[12];
    assert_int_equal(cJSON_GetArraySize(arr), 12);
    for (int k = 0; k < 12; k++) {
        s[k] = cJSON_GetStringValue(cJSON_GetArrayItem(arr, k));
        assert_non_null(s[k]);
    }
    assert_true(TC_FP12_(from_dec_array)(r, s));
}

static void TC_(fp_json)(TC_FP_(t) *r, const cJSON *v)
{
    const char *s = cJSON_GetStringValue(v);
    assert_non_null(s);
    assert_true(TC_FP_(from_dec)(r, s));
}

static void TC_(g1_json)(TC_G1_(affine_t) *p, const cJSON *arr)
{
    TC_(fp_json)(&p->x, cJSON_GetArrayItem(arr, 0));
    TC_(fp_json)(&p->y, cJSON_GetArrayItem(arr, 1));
    assert_true(TC_G1_(affine_is_on_curve)(p));
}

static void TC_(g2_json)(TC_G2_(affine_t) *q, const cJSON *arr)
{
    const cJSON *x = cJSON_GetArrayItem(arr, 0), *y = cJSON_GetArrayItem(arr, 1);
    TC_(fp_json)(&q->x.c0, cJSON_GetArrayItem(x, 0));
    TC_(fp_json)(&q->x.c1, cJSON_GetArrayItem(x, 1));
    TC_(fp_json)(&q->y.c0, cJSON_GetArrayItem(y, 0));
    TC_(fp_json)(&q->y.c1, cJSON_GetArrayItem(y, 1));
    assert_true(TC_G2_(affine_is_on_curve)(q));
}

/* Compare with a 12-string vector; on mismatch print both sides. */
static void TC_(expect_f12)(const TC_FP12_(t) *got, const cJSON *arr, const char *what)
{
    TC_FP12_(t) want;
    TC_(f12_json)(&want, arr);
    if (!TC_FP12_(eq)(got, &want)) {
        char out[12][128];
        TC_FP12_(to_dec_array)(out, got);
        for (int k = 0; k < 12; k++)
            print_error("%s[%d]: got %s want %s\n", what, k, out[k],
                        cJSON_GetStringValue(cJSON_GetArrayItem(arr, k)));
        fail_msg("%s: %s mismatch", STR(TC), what);
    }
}

static void TC_(rnd_fp)(TC_FP_(t) *r, uint64_t *st)
{
    TC_FP_(t) raw;
    for (int i = 0; i < (int)(sizeof raw.l / sizeof raw.l[0]); i++)
        raw.l[i] = cuzk_splitmix64(st);
    raw.l[sizeof raw.l / sizeof raw.l[0] - 1] &= 0x0fffffffffffffffULL; /* < p */
    TC_FP_(to_mont)(r, &raw);
}

static void TC_(rnd_f12)(TC_FP12_(t) *r, uint64_t *st)
{
    TC_FP_(t) *c = (TC_FP_(t) *)r;
    for (int k = 0; k < 12; k++)
        TC_(rnd_fp)(&c[k], st);
}

/* The easy part of the final exponentiation, done with generic operations. */
static void TC_(to_cyclotomic)(TC_FP12_(t) *m, const TC_FP12_(t) *a)
{
    TC_FP12_(t) t;
    TC_FP12_(inv)(&t, a);
    TC_FP12_(conj)(m, a);
    TC_FP12_(mul)(m, m, &t);
    TC_FP12_(frobenius)(&t, m, 2);
    TC_FP12_(mul)(m, m, &t);
}

/* p = MODULUS of Fp as an exponent. */
static void TC_(test_frobenius_vs_pow)(void **state)
{
    (void)state;
    uint64_t st = 0x1234;
    const size_t L = sizeof(TC_FP_(MODULUS).l) / sizeof(uint64_t);
    for (int it = 0; it < 2; it++) {
        TC_FP12_(t) a, want, got;
        TC_(rnd_f12)(&a, &st);
        want = a;
        for (unsigned k = 1; k <= 4; k++) {
            TC_FP12_(pow)(&want, &want, TC_FP_(MODULUS).l, L); /* a^(p^k) */
            TC_FP12_(frobenius)(&got, &a, k);
            assert_true(TC_FP12_(eq)(&got, &want));
            /* Fp6 Frobenius agrees with the Fp12 one on Fp6 elements */
            TC_FP6_(t) g6;
            TC_FP6_(frobenius)(&g6, &a.c0, k);
            TC_FP12_(t) e;
            TC_FP12_(set_zero)(&e);
            e.c0 = a.c0;
            TC_FP12_(frobenius)(&e, &e, k);
            assert_true(TC_FP6_(eq)(&g6, &e.c0));
        }
        TC_FP12_(frobenius)(&got, &a, 12);
        assert_true(TC_FP12_(eq)(&got, &a));
        TC_FP6_(t) g6;
        TC_FP6_(frobenius)(&g6, &a.c1, 6);
        assert_true(TC_FP6_(eq)(&g6, &a.c1));
        /* a^(p^6) is the conjugate */
        TC_FP12_(frobenius)(&got, &a, 6);
        TC_FP12_(conj)(&want, &a);
        assert_true(TC_FP12_(eq)(&got, &want));
    }
}

static void TC_(test_tower_kat)(void **state)
{
    cJSON *j = load_json(TC_KAT);
    const cJSON *tw = cJSON_GetObjectItem(j, "tower");
    assert_true(cJSON_GetArraySize(tw) >= 1);
    const cJSON *v;
    cJSON_ArrayForEach(v, tw)
    {
        TC_FP12_(t) a, b, r, one;
        TC_(f12_json)(&a, cJSON_GetObjectItem(v, "a"));
        TC_(f12_json)(&b, cJSON_GetObjectItem(v, "b"));
        TC_FP12_(mul)(&r, &a, &b);
        TC_(expect_f12)(&r, cJSON_GetObjectItem(v, "mul"), "mul");
        TC_FP12_(sqr)(&r, &a);
        TC_(expect_f12)(&r, cJSON_GetObjectItem(v, "sqr"), "sqr");
        TC_FP12_(inv)(&r, &a);
        TC_(expect_f12)(&r, cJSON_GetObjectItem(v, "inv"), "inv");
        TC_FP12_(mul)(&r, &r, &a);
        assert_true(TC_FP12_(is_one)(&r));
        TC_FP12_(frobenius)(&r, &a, 1);
        TC_(expect_f12)(&r, cJSON_GetObjectItem(v, "frob1"), "frob1");
        TC_FP12_(frobenius)(&r, &a, 2);
        TC_(expect_f12)(&r, cJSON_GetObjectItem(v, "frob2"), "frob2");
        TC_FP12_(frobenius)(&r, &a, 3);
        TC_(expect_f12)(&r, cJSON_GetObjectItem(v, "frob3"), "frob3");
        TC_(final_exp)(&r, &a);
        TC_(expect_f12)(&r, cJSON_GetObjectItem(v, "final_exp"), "final_exp");
        /* add/sub and the Fp6 inverse */
        TC_FP12_(add)(&r, &a, &b);
        TC_FP12_(sub)(&r, &r, &b);
        assert_true(TC_FP12_(eq)(&r, &a));
        TC_FP6_(t) i6;
        TC_FP6_(inv)(&i6, &a.c1);
        TC_FP6_(mul)(&i6, &i6, &a.c1);
        assert_true(TC_FP6_(is_one)(&i6));
        TC_FP6_(t) s6, m6;
        TC_FP6_(sqr)(&s6, &a.c0);
        TC_FP6_(mul)(&m6, &a.c0, &a.c0);
        assert_true(TC_FP6_(eq)(&s6, &m6));
        TC_FP12_(set_one)(&one);
        assert_true(TC_FP12_(is_one)(&one));
        assert_false(TC_FP12_(is_one)(&a));
        /* decimal round trip */
        char out[12][128];
        const char *ptr[12];
        TC_FP12_(to_dec_array)(out, &a);
        for (int k = 0; k < 12; k++) {
            ptr[k] = out[k];
            assert_string_equal(out[k], cJSON_GetStringValue(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "a"), k)));
        }
        assert_true(TC_FP12_(from_dec_array)(&r, ptr));
        assert_true(TC_FP12_(eq)(&r, &a));
    }
    /* zero inverts to zero */
    TC_FP12_(t) z, r;
    TC_FP12_(set_zero)(&z);
    TC_FP12_(inv)(&r, &z);
    assert_true(TC_FP12_(is_zero)(&r));
    cJSON_Delete(j);
    (void)state;
}

static void TC_(test_sparse_mul)(void **state)
{
    (void)state;
    uint64_t st = 0x5151;
    TC_FP12_(t) f, g, l, want;
    TC_(rnd_f12)(&f, &st);
    TC_(rnd_f12)(&g, &st); /* the three Fp2 line coefficients come from g */
    /* 034: d0 at c0.c0, d3 at c1.c0, d4 at c1.c1 */
    TC_FP12_(set_zero)(&l);
    l.c0.c0 = g.c0.c0;
    l.c1.c0 = g.c0.c1;
    l.c1.c1 = g.c0.c2;
    TC_FP12_(mul)(&want, &f, &l);
    TC_FP12_(t) r = f;
    TC_FP12_(mul_by_034)(&r, &g.c0.c0, &g.c0.c1, &g.c0.c2);
    assert_true(TC_FP12_(eq)(&r, &want));
    /* 014: d0 at c0.c0, d1 at c0.c1, d4 at c1.c1 */
    TC_FP12_(set_zero)(&l);
    l.c0.c0 = g.c1.c0;
    l.c0.c1 = g.c1.c1;
    l.c1.c1 = g.c1.c2;
    TC_FP12_(mul)(&want, &f, &l);
    r = f;
    TC_FP12_(mul_by_014)(&r, &g.c1.c0, &g.c1.c1, &g.c1.c2);
    assert_true(TC_FP12_(eq)(&r, &want));
    /* mul_by_v */
    TC_FP6_(t) v6, a6;
    TC_FP6_(set_zero)(&v6);
    TC_FP2_(set_one)(&v6.c1);
    TC_FP6_(mul)(&a6, &f.c0, &v6);
    TC_FP6_(mul_by_v)(&v6, &f.c0);
    assert_true(TC_FP6_(eq)(&a6, &v6));
}

static void TC_(test_cyclotomic)(void **state)
{
    (void)state;
    uint64_t st = 0xc1c1;
    for (int it = 0; it < 3; it++) {
        TC_FP12_(t) a, m, r, want;
        TC_(rnd_f12)(&a, &st);
        TC_(to_cyclotomic)(&m, &a);
        TC_FP12_(conj)(&r, &m);
        TC_FP12_(mul)(&r, &r, &m);
        assert_true(TC_FP12_(is_one)(&r)); /* conj is the inverse */
        TC_FP12_(cyclotomic_sqr)(&r, &m);
        TC_FP12_(sqr)(&want, &m);
        assert_true(TC_FP12_(eq)(&r, &want));
        const uint64_t es[] = {0, 1, 2, 3, 5, 7, 9, 15, 0x77, 0x8000000000000000ULL, 0x8000000000000001ULL,
                               0xd201000000010000ULL, 4965661367192848881ULL, 0xffffffffffffffffULL,
                               0xfffffffffffffff7ULL, 0xaaaaaaaaaaaaaaabULL, 0x7777777777777777ULL,
                               cuzk_splitmix64(&st), cuzk_splitmix64(&st)};
        for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
            TC_FP12_(cyclotomic_exp)(&r, &m, es[i]);
            TC_FP12_(pow)(&want, &m, &es[i], 1);
            assert_true(TC_FP12_(eq)(&r, &want));
        }
    }
}

static void TC_(test_pairing_kat)(void **state)
{
    (void)state;
    cJSON *j = load_json(TC_KAT);
    const cJSON *v;
    int n = 0;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(j, "pairings"))
    {
        TC_G1_(affine_t) p;
        TC_G2_(affine_t) q;
        TC_FP12_(t) e;
        TC_(g1_json)(&p, cJSON_GetObjectItem(v, "p"));
        TC_(g2_json)(&q, cJSON_GetObjectItem(v, "q"));
        if (n == 0) { /* the first vector is e(G1, G2) */
            assert_true(TC_G1_(affine_eq)(&p, &TC_G1_(GENERATOR)));
            assert_true(TC_G2_(affine_eq)(&q, &TC_G2_(GENERATOR)));
        }
        TC_(pairing)(&e, &p, &q);
        TC_(expect_f12)(&e, cJSON_GetObjectItem(v, "e"), "pairing");
        /* miller_loop + final_exp is the same thing */
        TC_FP12_(t) f;
        TC_(miller_loop)(&f, &p, &q, 1);
        TC_(final_exp)(&f, &f);
        assert_true(TC_FP12_(eq)(&f, &e));
        n++;
    }
    assert_true(n >= 3);

    const cJSON *mv = cJSON_GetObjectItem(j, "multi");
    const cJSON *pa = cJSON_GetObjectItem(mv, "ps"), *qa = cJSON_GetObjectItem(mv, "qs");
    int m = cJSON_GetArraySize(pa);
    assert_true(m >= 2 && m <= 8);
    TC_G1_(affine_t) ps[8];
    TC_G2_(affine_t) qs[8];
    for (int i = 0; i < m; i++) {
        TC_(g1_json)(&ps[i], cJSON_GetArrayItem(pa, i));
        TC_(g2_json)(&qs[i], cJSON_GetArrayItem(qa, i));
    }
    TC_FP12_(t) e;
    TC_(multi_pairing)(&e, ps, qs, (size_t)m);
    TC_(expect_f12)(&e, cJSON_GetObjectItem(mv, "e"), "multi_pairing");
    cJSON_Delete(j);
}

static void TC_(g1_mul)(TC_G1_(affine_t) *r, const TC_G1_(affine_t) *p, const uint64_t *k, size_t n)
{
    TC_G1_(jac_t) t;
    TC_G1_(affine_mul)(&t, p, k, n);
    TC_G1_(jac_to_affine)(r, &t);
}

static void TC_(g2_mul)(TC_G2_(affine_t) *r, const TC_G2_(affine_t) *q, const uint64_t *k, size_t n)
{
    TC_G2_(jac_t) t;
    TC_G2_(affine_mul)(&t, q, k, n);
    TC_G2_(jac_to_affine)(r, &t);
}

static void TC_(test_bilinear)(void **state)
{
    (void)state;
    uint64_t st = 0xb111;
    TC_G1_(affine_t) P = TC_G1_(GENERATOR), aP;
    TC_G2_(affine_t) Q = TC_G2_(GENERATOR), bQ, aQ;
    TC_FP12_(t) e, lhs, rhs, tmp;
    /* start from non-generator points */
    uint64_t s0 = cuzk_splitmix64(&st), s1 = cuzk_splitmix64(&st);
    TC_(g1_mul)(&P, &P, &s0, 1);
    TC_(g2_mul)(&Q, &Q, &s1, 1);
    TC_(pairing)(&e, &P, &Q);
    for (int it = 0; it < 2; it++) {
        uint64_t a = cuzk_splitmix64(&st), b = cuzk_splitmix64(&st), ab[2];
        ab[0] = cuzk_mul_wide(a, b, &ab[1]);
        TC_(g1_mul)(&aP, &P, &a, 1);
        TC_(g2_mul)(&bQ, &Q, &b, 1);
        TC_(pairing)(&lhs, &aP, &bQ);
        TC_FP12_(pow)(&rhs, &e, ab, 2);
        assert_true(TC_FP12_(eq)(&lhs, &rhs));
        /* e(aP, Q) = e(P, aQ) = e(P, Q)^a */
        TC_(g2_mul)(&aQ, &Q, &a, 1);
        TC_(pairing)(&lhs, &aP, &Q);
        TC_(pairing)(&rhs, &P, &aQ);
        assert_true(TC_FP12_(eq)(&lhs, &rhs));
        TC_FP12_(pow)(&tmp, &e, &a, 1);
        assert_true(TC_FP12_(eq)(&lhs, &tmp));
    }
    /* e(P1 + P2, Q) = e(P1, Q)·e(P2, Q) */
    TC_G1_(jac_t) j;
    TC_G1_(affine_t) P2, S;
    uint64_t k = 7;
    TC_(g1_mul)(&P2, &P, &k, 1);
    TC_G1_(jac_from_affine)(&j, &P);
    TC_G1_(jac_add_affine)(&j, &j, &P2);
    TC_G1_(jac_to_affine)(&S, &j);
    TC_(pairing)(&lhs, &S, &Q);
    TC_(pairing)(&rhs, &P2, &Q);
    TC_FP12_(mul)(&rhs, &rhs, &e);
    assert_true(TC_FP12_(eq)(&lhs, &rhs));
}

static void TC_(test_nondegenerate_order)(void **state)
{
    (void)state;
    TC_FP12_(t) e, r;
    TC_(pairing)(&e, &TC_G1_(GENERATOR), &TC_G2_(GENERATOR));
    assert_false(TC_FP12_(is_one)(&e));
    /* e has order r: e^r = 1, and e^((r-1)/2), e^((r-1)/3) != 1 is implied by
     * checking e^(r/q) != 1 for the small factors q = 2 and 3 of r - 1. */
    const size_t L = sizeof(TC_FR_(MODULUS).l) / sizeof(uint64_t);
    TC_FP12_(pow)(&r, &e, TC_FR_(MODULUS).l, L);
    assert_true(TC_FP12_(is_one)(&r));
    uint64_t h[sizeof(TC_FR_(MODULUS).l) / sizeof(uint64_t)];
    memcpy(h, TC_FR_(MODULUS).l, sizeof h);
    h[0] -= 1;
    for (size_t i = 0; i + 1 < L; i++) /* (r-1)/2 */
        h[i] = (h[i] >> 1) | (h[i + 1] << 63);
    h[L - 1] >>= 1;
    TC_FP12_(pow)(&r, &e, h, L);
    assert_false(TC_FP12_(is_one)(&r));
}

static void TC_(test_infinity)(void **state)
{
    (void)state;
    TC_G1_(affine_t) O1, ps[3];
    TC_G2_(affine_t) O2, qs[3];
    TC_FP12_(t) e, ref;
    TC_G1_(affine_set_inf)(&O1);
    TC_G2_(affine_set_inf)(&O2);
    TC_(pairing)(&e, &O1, &TC_G2_(GENERATOR));
    assert_true(TC_FP12_(is_one)(&e));
    TC_(pairing)(&e, &TC_G1_(GENERATOR), &O2);
    assert_true(TC_FP12_(is_one)(&e));
    TC_(pairing)(&e, &O1, &O2);
    assert_true(TC_FP12_(is_one)(&e));
    TC_(multi_pairing)(&e, ps, qs, 0);
    assert_true(TC_FP12_(is_one)(&e));
    /* infinity pairs anywhere in a product are skipped */
    ps[0] = O1;
    qs[0] = TC_G2_(GENERATOR);
    ps[1] = TC_G1_(GENERATOR);
    qs[1] = TC_G2_(GENERATOR);
    ps[2] = TC_G1_(GENERATOR);
    qs[2] = O2;
    TC_(pairing)(&ref, &TC_G1_(GENERATOR), &TC_G2_(GENERATOR));
    TC_(multi_pairing)(&e, ps, qs, 3);
    assert_true(TC_FP12_(eq)(&e, &ref));
}

static void TC_(test_multi)(void **state)
{
    (void)state;
    uint64_t st = 0x3317;
    TC_G1_(affine_t) P = TC_G1_(GENERATOR), ps[11];
    TC_G2_(affine_t) Q = TC_G2_(GENERATOR), qs[11];
    TC_FP12_(t) e, prod, t;
    /* e(-aP, Q)·e(P, aQ) = 1 */
    uint64_t a = cuzk_splitmix64(&st);
    TC_(g1_mul)(&ps[0], &P, &a, 1);
    TC_G1_(affine_neg)(&ps[0], &ps[0]);
    qs[0] = Q;
    ps[1] = P;
    TC_(g2_mul)(&qs[1], &Q, &a, 1);
    TC_(multi_pairing)(&e, ps, qs, 2);
    assert_true(TC_FP12_(is_one)(&e));
    /* the two factors alone are not 1 */
    TC_(pairing)(&e, &ps[0], &qs[0]);
    assert_false(TC_FP12_(is_one)(&e));
    /* Groth16-shaped: 4 pairs with product 1, e(-a b P, Q)·e(aP, bQ)·e(cP, -Q)·e(P, cQ) */
    uint64_t b = cuzk_splitmix64(&st) >> 1, c = cuzk_splitmix64(&st), ab[2];
    ab[0] = cuzk_mul_wide(a, b, &ab[1]);
    TC_(g1_mul)(&ps[0], &P, ab, 2);
    TC_G1_(affine_neg)(&ps[0], &ps[0]);
    qs[0] = Q;
    TC_(g1_mul)(&ps[1], &P, &a, 1);
    TC_(g2_mul)(&qs[1], &Q, &b, 1);
    TC_(g1_mul)(&ps[2], &P, &c, 1);
    TC_G2_(affine_neg)(&qs[2], &Q);
    ps[3] = P;
    TC_(g2_mul)(&qs[3], &Q, &c, 1);
    TC_(multi_pairing)(&e, ps, qs, 4);
    assert_true(TC_FP12_(is_one)(&e));
    /* 11 pairs (more than one Miller-loop chunk, and an infinity last) vs the
     * product of single pairings */
    TC_FP12_(set_one)(&prod);
    for (int i = 0; i < 11; i++) {
        uint64_t x = cuzk_splitmix64(&st), y = cuzk_splitmix64(&st);
        TC_(g1_mul)(&ps[i], &P, &x, 1);
        TC_(g2_mul)(&qs[i], &Q, &y, 1);
        if (i == 10)
            TC_G1_(affine_set_inf)(&ps[i]);
        TC_(pairing)(&t, &ps[i], &qs[i]);
        TC_FP12_(mul)(&prod, &prod, &t);
    }
    TC_(multi_pairing)(&e, ps, qs, 11);
    assert_true(TC_FP12_(eq)(&e, &prod));
    TC_(multi_pairing)(&e, ps, qs, 9);
    TC_(multi_pairing)(&t, ps + 9, qs + 9, 2);
    TC_FP12_(mul)(&e, &e, &t);
    assert_true(TC_FP12_(eq)(&e, &prod));
}

/* Prepared G2 points (g2_prepare, miller_loop_prep): the Miller value equals
 * miller_loop's over the same pairs, Fp12 for Fp12, with any mix of prepared
 * and unprepared pairs, chunks and infinities; after the final exponentiation
 * it equals @noble/curves' pairings. */
static void TC_(test_prepared)(void **state)
{
    (void)state;
    const size_t nl = TC_(g2_prep_lines)();
    assert_int_equal(nl, TC_EXPECT_LINES);
    TC_(g2_line_t) *lines = calloc(13 * nl, sizeof *lines);
    assert_non_null(lines);
    const TC_(g2_line_t) *lp[13];

    /* noble's vectors through a prepared point */
    cJSON *j = load_json(TC_KAT);
    const cJSON *v;
    int n = 0;
    cJSON_ArrayForEach(v, cJSON_GetObjectItem(j, "pairings"))
    {
        TC_G1_(affine_t) p;
        TC_G2_(affine_t) q;
        TC_FP12_(t) e, f;
        TC_(g1_json)(&p, cJSON_GetObjectItem(v, "p"));
        TC_(g2_json)(&q, cJSON_GetObjectItem(v, "q"));
        assert_true(TC_(g2_prepare)(lines, &q));
        lp[0] = lines;
        TC_(miller_loop_prep)(&e, NULL, NULL, 0, &p, lp, 1);
        TC_(miller_loop)(&f, &p, &q, 1);
        assert_true(TC_FP12_(eq)(&e, &f));
        TC_(final_exp)(&e, &e);
        TC_(expect_f12)(&e, cJSON_GetObjectItem(v, "e"), "prepared pairing");
        n++;
    }
    assert_true(n >= 3);
    cJSON_Delete(j);

    /* random points: 11 unprepared and 13 prepared pairs against one
     * miller_loop over all 24, with infinities among both kinds */
    uint64_t st = 0x9e9a;
    TC_G1_(affine_t) ps[24];
    TC_G2_(affine_t) qs[24];
    for (int i = 0; i < 24; i++) {
        uint64_t x = cuzk_splitmix64(&st), y = cuzk_splitmix64(&st);
        TC_(g1_mul)(&ps[i], &TC_G1_(GENERATOR), &x, 1);
        TC_(g2_mul)(&qs[i], &TC_G2_(GENERATOR), &y, 1);
    }
    TC_G1_(affine_set_inf)(&ps[3]);  /* unprepared, P = O */
    TC_G2_(affine_set_inf)(&qs[7]);  /* unprepared, Q = O */
    TC_G1_(affine_set_inf)(&ps[14]); /* prepared, P = O */
    TC_G2_(affine_set_inf)(&qs[20]); /* prepared, Q = O: no lines */
    for (int k = 0; k < 13; k++) {
        bool ok = TC_(g2_prepare)(lines + (size_t)k * nl, &qs[11 + k]);
        assert_true(ok == (k != 9));
        lp[k] = ok ? lines + (size_t)k * nl : NULL;
    }
    TC_FP12_(t) ref, got, t;
    TC_(miller_loop)(&ref, ps, qs, 24);
    TC_(miller_loop_prep)(&got, ps, qs, 11, ps + 11, lp, 13);
    assert_true(TC_FP12_(eq)(&got, &ref));
    /* all prepared; none; Groth16's shape (one unprepared, two prepared) */
    TC_(miller_loop)(&ref, ps + 11, qs + 11, 13);
    TC_(miller_loop_prep)(&got, NULL, NULL, 0, ps + 11, lp, 13);
    assert_true(TC_FP12_(eq)(&got, &ref));
    TC_(miller_loop)(&ref, ps, qs, 11);
    TC_(miller_loop_prep)(&got, ps, qs, 11, NULL, NULL, 0);
    assert_true(TC_FP12_(eq)(&got, &ref));
    TC_(miller_loop)(&ref, ps, qs, 1);
    TC_(miller_loop)(&t, ps + 11, qs + 11, 2);
    TC_FP12_(mul)(&ref, &ref, &t);
    TC_(miller_loop_prep)(&got, ps, qs, 1, ps + 11, lp, 2);
    assert_true(TC_FP12_(eq)(&got, &ref));
    /* a wrong G1 point changes the value */
    TC_(miller_loop_prep)(&got, ps, qs, 1, ps + 12, lp, 2);
    assert_false(TC_FP12_(eq)(&got, &ref));

    /* the loop in two parts: part(0, s)^(2^(N - s)) · part(s, N) = the loop */
    const size_t N = TC_(miller_steps)();
    assert_int_equal(N, TC_EXPECT_STEPS);
    TC_(miller_loop_prep)(&ref, NULL, NULL, 0, ps + 11, lp, 1);
    const size_t cut[] = {1, 2, 17, N / 2, (2 * N) / 5, N - 1};
    for (size_t c = 0; c < sizeof cut / sizeof cut[0]; c++) {
        TC_(miller_loop_prep_part)(&got, ps + 11, lp[0], 0, cut[c]);
        for (size_t k = cut[c]; k < N; k++)
            TC_FP12_(sqr)(&got, &got);
        TC_(miller_loop_prep_part)(&t, ps + 11, lp[0], cut[c], N);
        TC_FP12_(mul)(&got, &got, &t);
        assert_true(TC_FP12_(eq)(&got, &ref));
    }
    TC_(miller_loop_prep_part)(&got, ps + 11, lp[0], 0, N);
    assert_true(TC_FP12_(eq)(&got, &ref));
    TC_(miller_loop_prep_part)(&got, ps + 14, lp[3], 0, N); /* P = O */
    assert_true(TC_FP12_(is_one)(&got));
    TC_(miller_loop_prep_part)(&got, ps + 11, lp[0], 5, 5); /* empty */
    assert_true(TC_FP12_(is_one)(&got));
    free(lines);
}

/* e(vk_alpha_1, vk_beta_2) must equal the vk_alphabeta_12 snarkjs wrote. */
static void TC_(test_snarkjs_alphabeta)(void **state)
{
    (void)state;
    cJSON *vk = load_json(TC_VK);
    TC_G1_(affine_t) alpha;
    TC_G2_(affine_t) beta;
    TC_(g1_json)(&alpha, cJSON_GetObjectItem(vk, "vk_alpha_1"));
    TC_(g2_json)(&beta, cJSON_GetObjectItem(vk, "vk_beta_2"));
    /* flatten [[[c,c],[c,c],[c,c]],[[c,c],[c,c],[c,c]]] in order */
    const cJSON *ab = cJSON_GetObjectItem(vk, "vk_alphabeta_12");
    cJSON *flat = cJSON_CreateArray();
    assert_int_equal(cJSON_GetArraySize(ab), 2);
    for (int i = 0; i < 2; i++) {
        const cJSON *h = cJSON_GetArrayItem(ab, i);
        assert_int_equal(cJSON_GetArraySize(h), 3);
        for (int jj = 0; jj < 3; jj++) {
            const cJSON *c = cJSON_GetArrayItem(h, jj);
            assert_int_equal(cJSON_GetArraySize(c), 2);
            for (int l = 0; l < 2; l++)
                cJSON_AddItemToArray(flat, cJSON_CreateString(cJSON_GetStringValue(cJSON_GetArrayItem(c, l))));
        }
    }
    TC_FP12_(t) e;
    TC_(pairing)(&e, &alpha, &beta);
    TC_(expect_f12)(&e, flat, "vk_alphabeta_12");
    char out[12][128];
    TC_FP12_(to_dec_array)(out, &e);
    for (int k = 0; k < 12; k++)
        assert_string_equal(out[k], cJSON_GetStringValue(cJSON_GetArrayItem(flat, k)));
    cJSON_Delete(flat);
    cJSON_Delete(vk);
}

#endif /* per-instance guard */

#undef TC_
#undef TC_FP_
#undef TC_FP2_
#undef TC_FP6_
#undef TC_FP12_
#undef TC_G1_
#undef TC_G2_
#undef TC_FR_
#undef TC
#undef TC_KAT
#undef TC_VK
#undef TC_EXPECT_LINES
#undef TC_EXPECT_STEPS
