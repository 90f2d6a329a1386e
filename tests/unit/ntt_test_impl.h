/* Curve-generic NTT tests, included once per curve by test_ntt.c with
 *   #define TC bn254   (curve prefix)
 *   #define TW_DEC "..." (expected w[2-adicity], decimal, from snarkjs-formats.md)
 * References are independent of the fast code: a naive O(n^2) DFT built from
 * the same root w[k] = 5^((r-1)/2^k) computed here by plain pow, Horner
 * evaluation of polynomials, and algebraic identities. */

#define TC_(name) CUZK_NAME(TC, name)
#define TC_FR_(name) CUZK_NAME(CUZK_CAT2(TC, _fr), name)

#include "util/templates.h"
#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TEST_NTT, CUZK_NAME(TC, C_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* Deterministic pseudo-random field element (< 2^252 < r, then to Montgomery). */
static void TC_(rnd)(TC_FR_(t) *r, uint64_t *state)
{
    TC_FR_(t) raw;
    for (int i = 0; i < 4; i++)
        raw.l[i] = cuzk_splitmix64(state);
    raw.l[3] &= 0x0fffffffffffffffULL;
    TC_FR_(to_mont)(r, &raw);
}

static void TC_(pow_u64)(TC_FR_(t) *r, const TC_FR_(t) *a, uint64_t e) { TC_FR_(pow)(r, a, &e, 1); }

/* Independent root: 5^((r-1) / 2^k) by big-integer shift + generic pow. */
static void TC_(ref_root)(TC_FR_(t) *w, unsigned k)
{
    uint64_t e[4];
    memcpy(e, TC_FR_(MODULUS).l, sizeof e);
    e[0] -= 1;
    for (unsigned s = 0; s < k; s++) {
        for (int i = 0; i < 3; i++)
            e[i] = (e[i] >> 1) | (e[i + 1] << 63);
        e[3] >>= 1;
    }
    TC_FR_(t) five;
    TC_FR_(from_u64)(&five, 5);
    TC_FR_(pow)(w, &five, e, 4);
}

static void TC_(test_roots)(void **state)
{
    (void)state;
    unsigned S = TC_(ntt_max_log)();
    TC_FR_(t) one, w, t, ref;
    TC_FR_(set_one)(&one);
    assert_true(TC_(ntt_root_of_unity)(&w, 0));
    assert_true(TC_FR_(eq)(&w, &one));
    for (unsigned k = 1; k <= S; k++) {
        assert_true(TC_(ntt_root_of_unity)(&w, k));
        TC_(ref_root)(&ref, k);
        assert_true(TC_FR_(eq)(&w, &ref));
        t = w;
        for (unsigned i = 0; i < k - 1; i++)
            TC_FR_(sqr)(&t, &t);
        assert_false(TC_FR_(eq)(&t, &one)); /* w^(2^(k-1)) = -1 != 1: primitive */
        TC_FR_(sqr)(&t, &t);
        assert_true(TC_FR_(eq)(&t, &one)); /* w^(2^k) = 1 */
    }
    assert_false(TC_(ntt_root_of_unity)(&w, S + 1));
    TC_FR_(t) expect;
    assert_true(TC_FR_(from_dec)(&expect, TW_DEC));
    assert_true(TC_(ntt_root_of_unity)(&w, S));
    assert_true(TC_FR_(eq)(&w, &expect));
}

/* out[k] = scale · sum_i a[i] x^(i·k) for k < n (x = root, naive). */
static void TC_(naive_dft)(TC_FR_(t) *out, const TC_FR_(t) *a, size_t n, const TC_FR_(t) *x, const TC_FR_(t) *scale)
{
    TC_FR_(t) xk, xik;
    TC_FR_(set_one)(&xk);
    for (size_t k = 0; k < n; k++) {
        TC_FR_(t) acc;
        TC_FR_(set_zero)(&acc);
        TC_FR_(set_one)(&xik);
        for (size_t i = 0; i < n; i++) {
            TC_FR_(t) t;
            TC_FR_(mul)(&t, &a[i], &xik);
            TC_FR_(add)(&acc, &acc, &t);
            TC_FR_(mul)(&xik, &xik, &xk);
        }
        TC_FR_(mul)(&out[k], &acc, scale);
        TC_FR_(mul)(&xk, &xk, x);
    }
}

/* Horner: p(x) with coefficients c[0..n). */
static void TC_(horner)(TC_FR_(t) *r, const TC_FR_(t) *c, size_t n, const TC_FR_(t) *x)
{
    TC_FR_(set_zero)(r);
    for (size_t i = n; i-- > 0;) {
        TC_FR_(mul)(r, r, x);
        TC_FR_(add)(r, r, &c[i]);
    }
}

static size_t TC_(brev)(size_t x, unsigned bits)
{
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

static void TC_(assert_vec_eq)(const TC_FR_(t) *a, const TC_FR_(t) *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!TC_FR_(eq)(&a[i], &b[i]))
            fail_msg("mismatch at index %zu of %zu", i, n);
}

static void TC_(test_small_vs_naive)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t seed = 0x1234 + sizeof(TC_FR_(t));
    for (unsigned L = 0; L <= 8; L++) {
        size_t n = (size_t)1 << L;
        TC_(ntt_domain) *d = NULL;
        cuzk_error err = {0};
        assert_int_equal(TC_(ntt_domain_create)(&d, L, pool, &err), CUZK_OK);
        TC_FR_(t) *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *ref = calloc(n, sizeof *ref);
        TC_FR_(t) *c = calloc(n, sizeof *c);
        for (size_t i = 0; i < n; i++)
            TC_(rnd)(&a[i], &seed);
        TC_FR_(t) w, winv, one, ninv, nn;
        TC_(ref_root)(&w, L);
        TC_FR_(inv)(&winv, &w);
        TC_FR_(set_one)(&one);
        TC_FR_(from_u64)(&nn, n);
        TC_FR_(inv)(&ninv, &nn);

        /* forward, natural -> natural; both with and without the pool */
        TC_(naive_dft)(ref, a, n, &w, &one);
        memcpy(b, a, n * sizeof *a);
        TC_(ntt)(d, b, pool);
        TC_(assert_vec_eq)(b, ref, n);
        memcpy(b, a, n * sizeof *a);
        TC_(ntt)(d, b, NULL);
        TC_(assert_vec_eq)(b, ref, n);

        /* forward, natural -> bit-reversed */
        memcpy(b, a, n * sizeof *a);
        TC_(ntt_nr)(d, b, pool);
        for (size_t i = 0; i < n; i++)
            assert_true(TC_FR_(eq)(&b[i], &ref[TC_(brev)(i, L)]));

        /* inverse (with 1/n), natural -> natural */
        TC_(naive_dft)(ref, a, n, &winv, &ninv);
        memcpy(b, a, n * sizeof *a);
        TC_(intt)(d, b, pool);
        TC_(assert_vec_eq)(b, ref, n);

        /* inverse, bit-reversed -> natural */
        for (size_t i = 0; i < n; i++)
            b[i] = a[TC_(brev)(i, L)];
        TC_(intt_rn)(d, b, pool);
        TC_(assert_vec_eq)(b, ref, n);

        /* odd coset: a = evaluations; coefficients c = naive iDFT (ref);
         * expect p(g^(2j+1)), g = w[L+1] (independent root). */
        TC_FR_(t) g, x, g2;
        TC_(ref_root)(&g, L + 1);
        TC_FR_(sqr)(&g2, &g);
        x = g;
        for (size_t j = 0; j < n; j++) {
            TC_(horner)(&c[j], ref, n, &x);
            TC_FR_(mul)(&x, &x, &g2);
        }
        memcpy(b, a, n * sizeof *a);
        assert_int_equal(TC_(ntt_coset_odd)(d, b, pool, &err), CUZK_OK);
        TC_(assert_vec_eq)(b, c, n);

        /* generic coset with a random shift: evaluations of a (as coefficients)
         * at shift·w^j, and back. */
        TC_FR_(t) sh;
        TC_(rnd)(&sh, &seed);
        x = sh;
        for (size_t j = 0; j < n; j++) {
            TC_(horner)(&c[j], a, n, &x);
            TC_FR_(mul)(&x, &x, &w);
        }
        memcpy(b, a, n * sizeof *a);
        TC_(ntt_coset)(d, b, &sh, pool);
        TC_(assert_vec_eq)(b, c, n);
        TC_(intt_coset)(d, b, &sh, pool);
        TC_(assert_vec_eq)(b, a, n);

        free(a);
        free(b);
        free(ref);
        free(c);
        TC_(ntt_domain_free)(d);
    }
}

static void TC_(test_bit_reverse)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t seed = 99;
    for (unsigned L = 0; L <= 13; L++) {
        size_t n = (size_t)1 << L;
        TC_FR_(t) *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
        for (size_t i = 0; i < n; i++)
            TC_(rnd)(&a[i], &seed);
        memcpy(b, a, n * sizeof *a);
        TC_(bit_reverse)(b, L, pool);
        for (size_t i = 0; i < n; i++)
            assert_true(TC_FR_(eq)(&b[i], &a[TC_(brev)(i, L)]));
        free(a);
        free(b);
    }
}

/* Larger sizes: identities instead of the O(n^2) reference.
 *  - intt(ntt(a)) = a, and ntt(intt(a)) = a;
 *  - ntt(a) at one random index k equals Horner p(w^k) (spot check);
 *  - coset_odd(a) = ntt_coset(intt(a), w[L+1]), and a spot check of one
 *    output against Horner at g^(2k+1);
 *  - pool and serial results agree. */
static void TC_(test_large)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t seed = 4242;
    const unsigned Ls[] = {9, 10, 11, 12, 13, 14, 15, 16, 18};
    for (size_t li = 0; li < sizeof Ls / sizeof Ls[0]; li++) {
        unsigned L = Ls[li];
        size_t n = (size_t)1 << L;
        TC_(ntt_domain) *d = NULL;
        cuzk_error err = {0};
        assert_int_equal(TC_(ntt_domain_create)(&d, L, pool, &err), CUZK_OK);
        TC_FR_(t) *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        for (size_t i = 0; i < n; i++)
            TC_(rnd)(&a[i], &seed);

        memcpy(b, a, n * sizeof *a);
        TC_(ntt)(d, b, pool);
        /* spot checks against Horner at w^k */
        TC_FR_(t) w, x, v;
        TC_(ref_root)(&w, L);
        for (int rep = 0; rep < 3; rep++) {
            size_t k = (size_t)(cuzk_splitmix64(&seed) % n);
            TC_(pow_u64)(&x, &w, k);
            TC_(horner)(&v, a, n, &x);
            assert_true(TC_FR_(eq)(&v, &b[k]));
        }
        if (L <= 14) { /* serial path agrees */
            memcpy(c, a, n * sizeof *a);
            TC_(ntt)(d, c, NULL);
            TC_(assert_vec_eq)(c, b, n);
        }
        TC_(intt)(d, b, pool);
        TC_(assert_vec_eq)(b, a, n);
        memcpy(b, a, n * sizeof *a);
        TC_(intt)(d, b, pool);
        memcpy(c, b, n * sizeof *b); /* c = coefficients of the poly with evaluations a */
        TC_(ntt)(d, b, pool);
        TC_(assert_vec_eq)(b, a, n);

        /* bit-reversed round trip */
        memcpy(b, a, n * sizeof *a);
        TC_(ntt_nr)(d, b, pool);
        TC_(intt_rn)(d, b, pool);
        TC_(assert_vec_eq)(b, a, n);

        /* odd coset */
        TC_FR_(t) g;
        TC_(ref_root)(&g, L + 1);
        memcpy(b, a, n * sizeof *a);
        assert_int_equal(TC_(ntt_coset_odd)(d, b, pool, &err), CUZK_OK);
        size_t k = (size_t)(cuzk_splitmix64(&seed) % n);
        TC_(pow_u64)(&x, &g, 2 * (uint64_t)k + 1);
        TC_(horner)(&v, c, n, &x);
        assert_true(TC_FR_(eq)(&v, &b[k]));
        TC_(ntt_coset)(d, c, &g, pool);
        TC_(assert_vec_eq)(b, c, n);
        TC_(intt_coset)(d, c, &g, pool);
        TC_(intt)(d, a, pool);
        TC_(assert_vec_eq)(c, a, n);

        free(a);
        free(b);
        free(c);
        TC_(ntt_domain_free)(d);
    }
}

static void TC_(test_errors)(void **state)
{
    (void)state;
    TC_(ntt_domain) *d = (TC_(ntt_domain) *)1;
    cuzk_error err = {0};
    unsigned S = TC_(ntt_max_log)();
    assert_int_equal(TC_(ntt_domain_create)(&d, S + 1, NULL, &err), CUZK_ERR_UNSUPPORTED);
    assert_null(d);
    assert_true(strlen(err.msg) > 0);
    TC_(ntt_domain_free)(NULL);
}

#endif /* per-instance guard */

#undef TC_
#undef TC_FR_
#undef TC
#undef TW_DEC
