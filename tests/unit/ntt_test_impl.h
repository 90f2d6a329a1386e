/* Curve-generic NTT tests, included once per curve by test_ntt.c with
 *   #define TC bn254   (curve prefix)
 *   #define TW_DEC "..." (expected w[2-adicity], decimal, from snarkjs-formats.md)
 * References are independent of the fast code: a naive O(n^2) DFT built from
 * the same root w[k] = 5^((r-1)/2^k) computed here by plain pow, Horner
 * evaluation of polynomials, and algebraic identities. */

#define T_(name) CUZK_NAME(TC, name)
#define F_(name) CUZK_NAME(CUZK_CAT2(TC, _fr), name)
#define FT F_(t)
#define DOM T_(ntt_domain)

/* Deterministic pseudo-random field element (< 2^252 < r, then to Montgomery). */
static void T_(rnd)(FT *r, uint64_t *state)
{
    FT raw;
    for (int i = 0; i < 4; i++)
        raw.l[i] = cuzk_splitmix64(state);
    raw.l[3] &= 0x0fffffffffffffffULL;
    F_(to_mont)(r, &raw);
}

static void T_(pow_u64)(FT *r, const FT *a, uint64_t e) { F_(pow)(r, a, &e, 1); }

/* Independent root: 5^((r-1) / 2^k) by big-integer shift + generic pow. */
static void T_(ref_root)(FT *w, unsigned k)
{
    uint64_t e[4];
    memcpy(e, F_(MODULUS).l, sizeof e);
    e[0] -= 1;
    for (unsigned s = 0; s < k; s++) {
        for (int i = 0; i < 3; i++)
            e[i] = (e[i] >> 1) | (e[i + 1] << 63);
        e[3] >>= 1;
    }
    FT five;
    F_(from_u64)(&five, 5);
    F_(pow)(w, &five, e, 4);
}

static void T_(test_roots)(void **state)
{
    (void)state;
    unsigned S = T_(ntt_max_log)();
    FT one, w, t, ref;
    F_(set_one)(&one);
    assert_true(T_(ntt_root_of_unity)(&w, 0));
    assert_true(F_(eq)(&w, &one));
    for (unsigned k = 1; k <= S; k++) {
        assert_true(T_(ntt_root_of_unity)(&w, k));
        T_(ref_root)(&ref, k);
        assert_true(F_(eq)(&w, &ref));
        t = w;
        for (unsigned i = 0; i < k - 1; i++)
            F_(sqr)(&t, &t);
        assert_false(F_(eq)(&t, &one)); /* w^(2^(k-1)) = -1 != 1: primitive */
        F_(sqr)(&t, &t);
        assert_true(F_(eq)(&t, &one)); /* w^(2^k) = 1 */
    }
    assert_false(T_(ntt_root_of_unity)(&w, S + 1));
    FT expect;
    assert_true(F_(from_dec)(&expect, TW_DEC));
    assert_true(T_(ntt_root_of_unity)(&w, S));
    assert_true(F_(eq)(&w, &expect));
}

/* out[k] = scale · sum_i a[i] x^(i·k) for k < n (x = root, naive). */
static void T_(naive_dft)(FT *out, const FT *a, size_t n, const FT *x, const FT *scale)
{
    FT xk, xik;
    F_(set_one)(&xk);
    for (size_t k = 0; k < n; k++) {
        FT acc;
        F_(set_zero)(&acc);
        F_(set_one)(&xik);
        for (size_t i = 0; i < n; i++) {
            FT t;
            F_(mul)(&t, &a[i], &xik);
            F_(add)(&acc, &acc, &t);
            F_(mul)(&xik, &xik, &xk);
        }
        F_(mul)(&out[k], &acc, scale);
        F_(mul)(&xk, &xk, x);
    }
}

/* Horner: p(x) with coefficients c[0..n). */
static void T_(horner)(FT *r, const FT *c, size_t n, const FT *x)
{
    F_(set_zero)(r);
    for (size_t i = n; i-- > 0;) {
        F_(mul)(r, r, x);
        F_(add)(r, r, &c[i]);
    }
}

static size_t T_(brev)(size_t x, unsigned bits)
{
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        r |= ((x >> i) & 1) << (bits - 1 - i);
    return r;
}

static void T_(assert_vec_eq)(const FT *a, const FT *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!F_(eq)(&a[i], &b[i]))
            fail_msg("mismatch at index %zu of %zu", i, n);
}

static void T_(test_small_vs_naive)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t seed = 0x1234 + sizeof(FT);
    for (unsigned L = 0; L <= 8; L++) {
        size_t n = (size_t)1 << L;
        DOM *d = NULL;
        cuzk_error err = {0};
        assert_int_equal(T_(ntt_domain_create)(&d, L, pool, &err), CUZK_OK);
        FT *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b), *ref = calloc(n, sizeof *ref);
        FT *c = calloc(n, sizeof *c);
        for (size_t i = 0; i < n; i++)
            T_(rnd)(&a[i], &seed);
        FT w, winv, one, ninv, nn;
        T_(ref_root)(&w, L);
        F_(inv)(&winv, &w);
        F_(set_one)(&one);
        F_(from_u64)(&nn, n);
        F_(inv)(&ninv, &nn);

        /* forward, natural -> natural; both with and without the pool */
        T_(naive_dft)(ref, a, n, &w, &one);
        memcpy(b, a, n * sizeof *a);
        T_(ntt)(d, b, pool);
        T_(assert_vec_eq)(b, ref, n);
        memcpy(b, a, n * sizeof *a);
        T_(ntt)(d, b, NULL);
        T_(assert_vec_eq)(b, ref, n);

        /* forward, natural -> bit-reversed */
        memcpy(b, a, n * sizeof *a);
        T_(ntt_nr)(d, b, pool);
        for (size_t i = 0; i < n; i++)
            assert_true(F_(eq)(&b[i], &ref[T_(brev)(i, L)]));

        /* inverse (with 1/n), natural -> natural */
        T_(naive_dft)(ref, a, n, &winv, &ninv);
        memcpy(b, a, n * sizeof *a);
        T_(intt)(d, b, pool);
        T_(assert_vec_eq)(b, ref, n);

        /* inverse, bit-reversed -> natural */
        for (size_t i = 0; i < n; i++)
            b[i] = a[T_(brev)(i, L)];
        T_(intt_rn)(d, b, pool);
        T_(assert_vec_eq)(b, ref, n);

        /* odd coset: a = evaluations; coefficients c = naive iDFT (ref);
         * expect p(g^(2j+1)), g = w[L+1] (independent root). */
        FT g, x, g2;
        T_(ref_root)(&g, L + 1);
        F_(sqr)(&g2, &g);
        x = g;
        for (size_t j = 0; j < n; j++) {
            T_(horner)(&c[j], ref, n, &x);
            F_(mul)(&x, &x, &g2);
        }
        memcpy(b, a, n * sizeof *a);
        assert_int_equal(T_(ntt_coset_odd)(d, b, pool, &err), CUZK_OK);
        T_(assert_vec_eq)(b, c, n);

        /* generic coset with a random shift: evaluations of a (as coefficients)
         * at shift·w^j, and back. */
        FT sh;
        T_(rnd)(&sh, &seed);
        x = sh;
        for (size_t j = 0; j < n; j++) {
            T_(horner)(&c[j], a, n, &x);
            F_(mul)(&x, &x, &w);
        }
        memcpy(b, a, n * sizeof *a);
        T_(ntt_coset)(d, b, &sh, pool);
        T_(assert_vec_eq)(b, c, n);
        T_(intt_coset)(d, b, &sh, pool);
        T_(assert_vec_eq)(b, a, n);

        free(a);
        free(b);
        free(ref);
        free(c);
        T_(ntt_domain_free)(d);
    }
}

static void T_(test_bit_reverse)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t seed = 99;
    for (unsigned L = 0; L <= 13; L++) {
        size_t n = (size_t)1 << L;
        FT *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
        for (size_t i = 0; i < n; i++)
            T_(rnd)(&a[i], &seed);
        memcpy(b, a, n * sizeof *a);
        T_(bit_reverse)(b, L, pool);
        for (size_t i = 0; i < n; i++)
            assert_true(F_(eq)(&b[i], &a[T_(brev)(i, L)]));
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
static void T_(test_large)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t seed = 4242;
    const unsigned Ls[] = {9, 10, 11, 12, 13, 14, 15, 16, 18};
    for (size_t li = 0; li < sizeof Ls / sizeof Ls[0]; li++) {
        unsigned L = Ls[li];
        size_t n = (size_t)1 << L;
        DOM *d = NULL;
        cuzk_error err = {0};
        assert_int_equal(T_(ntt_domain_create)(&d, L, pool, &err), CUZK_OK);
        FT *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        for (size_t i = 0; i < n; i++)
            T_(rnd)(&a[i], &seed);

        memcpy(b, a, n * sizeof *a);
        T_(ntt)(d, b, pool);
        /* spot checks against Horner at w^k */
        FT w, x, v;
        T_(ref_root)(&w, L);
        for (int rep = 0; rep < 3; rep++) {
            size_t k = (size_t)(cuzk_splitmix64(&seed) % n);
            T_(pow_u64)(&x, &w, k);
            T_(horner)(&v, a, n, &x);
            assert_true(F_(eq)(&v, &b[k]));
        }
        if (L <= 14) { /* serial path agrees */
            memcpy(c, a, n * sizeof *a);
            T_(ntt)(d, c, NULL);
            T_(assert_vec_eq)(c, b, n);
        }
        T_(intt)(d, b, pool);
        T_(assert_vec_eq)(b, a, n);
        memcpy(b, a, n * sizeof *a);
        T_(intt)(d, b, pool);
        memcpy(c, b, n * sizeof *b); /* c = coefficients of the poly with evaluations a */
        T_(ntt)(d, b, pool);
        T_(assert_vec_eq)(b, a, n);

        /* bit-reversed round trip */
        memcpy(b, a, n * sizeof *a);
        T_(ntt_nr)(d, b, pool);
        T_(intt_rn)(d, b, pool);
        T_(assert_vec_eq)(b, a, n);

        /* odd coset */
        FT g;
        T_(ref_root)(&g, L + 1);
        memcpy(b, a, n * sizeof *a);
        assert_int_equal(T_(ntt_coset_odd)(d, b, pool, &err), CUZK_OK);
        size_t k = (size_t)(cuzk_splitmix64(&seed) % n);
        T_(pow_u64)(&x, &g, 2 * (uint64_t)k + 1);
        T_(horner)(&v, c, n, &x);
        assert_true(F_(eq)(&v, &b[k]));
        T_(ntt_coset)(d, c, &g, pool);
        T_(assert_vec_eq)(b, c, n);
        T_(intt_coset)(d, c, &g, pool);
        T_(intt)(d, a, pool);
        T_(assert_vec_eq)(c, a, n);

        free(a);
        free(b);
        free(c);
        T_(ntt_domain_free)(d);
    }
}

static void T_(test_errors)(void **state)
{
    (void)state;
    DOM *d = (DOM *)1;
    cuzk_error err = {0};
    unsigned S = T_(ntt_max_log)();
    assert_int_equal(T_(ntt_domain_create)(&d, S + 1, NULL, &err), CUZK_ERR_UNSUPPORTED);
    assert_null(d);
    assert_true(strlen(err.msg) > 0);
    T_(ntt_domain_free)(NULL);
}

#undef T_
#undef F_
#undef FT
#undef DOM
#undef TC
#undef TW_DEC
