/* Test "template" for one Fp2: include with F2T (Fp2 prefix) and F2T_BASE
 * (base field prefix) defined; defines static test functions F2T_t_<name>. */

#define F2N_(name) CUZK_NAME(F2T, name)
#define F2B_(name) CUZK_NAME(F2T_BASE, name)
#define F2TT_(name) CUZK_NAME(F2T, CUZK_CAT2(t_, name))

static void F2TT_(parse)(F2N_(t) *r, char **tok)
{
    assert_true(F2B_(from_dec)(&r->c0, tok[0]));
    assert_true(F2B_(from_dec)(&r->c1, tok[1]));
}

static void F2TT_(expect)(const F2N_(t) *a, char **tok, int lineno)
{
    F2N_(t) w;
    F2TT_(parse)(&w, tok);
    if (!F2N_(eq)(a, &w)) {
        fprintf(stderr, "%s line %d: mismatch\n", CUZK_STR(F2T), lineno);
        fail();
    }
}

static void F2TT_(kat)(const char *file)
{
    kat_reader k;
    assert_int_equal(kat_open(&k, file), 0);
    int n = 0;
    while (kat_next(&k)) {
        const char *op = k.tok[0];
        F2N_(t) a, b, r, c;
        F2TT_(parse)(&a, &k.tok[1]);
        if (!strcmp(op, "mul") || !strcmp(op, "add") || !strcmp(op, "sub")) {
            F2TT_(parse)(&b, &k.tok[3]);
            c = a;
            if (op[0] == 'm') {
                F2N_(mul)(&r, &a, &b);
                F2N_(mul)(&c, &c, &b);
            } else if (op[0] == 'a') {
                F2N_(add)(&r, &a, &b);
                F2N_(add)(&c, &c, &b);
            } else {
                F2N_(sub)(&r, &a, &b);
                F2N_(sub)(&c, &c, &b);
            }
            F2TT_(expect)(&r, &k.tok[5], k.lineno);
            assert_true(F2N_(eq)(&c, &r));
        } else if (!strcmp(op, "neg")) {
            F2N_(neg)(&r, &a);
            F2TT_(expect)(&r, &k.tok[3], k.lineno);
        } else if (!strcmp(op, "sqr")) {
            F2N_(sqr)(&r, &a);
            F2TT_(expect)(&r, &k.tok[3], k.lineno);
            c = a;
            F2N_(sqr)(&c, &c);
            assert_true(F2N_(eq)(&c, &r));
        } else if (!strcmp(op, "inv")) {
            F2N_(inv)(&r, &a);
            F2TT_(expect)(&r, &k.tok[3], k.lineno);
        } else if (!strcmp(op, "sqrt")) {
            bool ok = F2N_(sqrt)(&r, &a);
            if (!strcmp(k.tok[3], "none")) {
                assert_false(ok);
            } else {
                assert_true(ok);
                F2N_(t) w, nr;
                F2TT_(parse)(&w, &k.tok[3]);
                F2N_(neg)(&nr, &r);
                assert_true(F2N_(eq)(&r, &w) || F2N_(eq)(&nr, &w));
            }
        } else if (!strcmp(op, "pow")) {
            uint64_t e[6];
            assert_true(cuzk_bn_from_dec(e, 6, k.tok[3]));
            F2N_(pow)(&r, &a, e, 6);
            F2TT_(expect)(&r, &k.tok[4], k.lineno);
        } else {
            fprintf(stderr, "%s:%d unknown op %s\n", file, k.lineno, op);
            fail();
        }
        n++;
    }
    kat_close(&k);
    assert_true(n >= 50);
}

static void F2TT_(props)(void **state)
{
    (void)state;
    F2N_(t) a, b, c, x, y, z, one;
    F2N_(set_one)(&one);
    assert_true(F2N_(is_one)(&one));
    /* u^2 = -1 */
    F2N_(set_zero)(&x);
    F2B_(set_one)(&x.c1);
    F2N_(sqr)(&y, &x);
    F2N_(neg)(&z, &one);
    assert_true(F2N_(eq)(&y, &z));
    for (int it = 0; it < 200; it++) {
        assert_true(F2N_(random)(&a));
        assert_true(F2N_(random)(&b));
        assert_true(F2N_(random)(&c));
        /* ring axioms */
        F2N_(mul)(&x, &a, &b);
        F2N_(mul)(&y, &b, &a);
        assert_true(F2N_(eq)(&x, &y));
        F2N_(mul)(&x, &x, &c);
        F2N_(mul)(&y, &b, &c);
        F2N_(mul)(&y, &a, &y);
        assert_true(F2N_(eq)(&x, &y));
        F2N_(add)(&x, &b, &c);
        F2N_(mul)(&x, &a, &x);
        F2N_(mul)(&y, &a, &b);
        F2N_(mul)(&z, &a, &c);
        F2N_(add)(&y, &y, &z);
        assert_true(F2N_(eq)(&x, &y));
        /* sqr, dbl, inverse, conjugate = Frobenius (a^p) */
        F2N_(sqr)(&x, &a);
        F2N_(mul)(&y, &a, &a);
        assert_true(F2N_(eq)(&x, &y));
        F2N_(dbl)(&x, &a);
        F2N_(add)(&y, &a, &a);
        assert_true(F2N_(eq)(&x, &y));
        F2N_(inv)(&x, &a);
        F2N_(mul)(&x, &x, &a);
        assert_true(F2N_(is_one)(&x));
        F2N_(mul)(&x, &a, &b);
        F2N_(conj)(&x, &x);
        F2N_(conj)(&y, &a);
        F2N_(conj)(&z, &b);
        F2N_(mul)(&y, &y, &z);
        assert_true(F2N_(eq)(&x, &y));
        /* mul_fp = mul by (b0, 0) */
        F2N_(mul_fp)(&x, &a, &b.c0);
        z = b;
        F2B_(set_zero)(&z.c1);
        F2N_(mul)(&y, &a, &z);
        assert_true(F2N_(eq)(&x, &y));
        /* sqrt of a square */
        F2N_(sqr)(&x, &a);
        assert_true(F2N_(sqrt)(&y, &x));
        F2N_(sqr)(&y, &y);
        assert_true(F2N_(eq)(&x, &y));
        /* sub/neg */
        F2N_(sub)(&x, &a, &b);
        F2N_(add)(&x, &x, &b);
        assert_true(F2N_(eq)(&x, &a));
        F2N_(neg)(&x, &a);
        F2N_(add)(&x, &x, &a);
        assert_true(F2N_(is_zero)(&x));
    }
    /* every Fp element is a square in Fp2; the conjugate is x^p */
    assert_true(F2N_(random)(&a));
    F2B_(t) pm1;
    F2B_(set_one)(&pm1);
    F2B_(neg)(&pm1, &pm1);
    F2N_(set_zero)(&x);
    x.c0 = pm1;
    assert_true(F2N_(sqrt)(&y, &x));
    F2N_(sqr)(&y, &y);
    assert_true(F2N_(eq)(&y, &x));
    F2N_(pow)(&x, &a, F2B_(MODULUS).l, CUZK_ARRAY_LEN(F2B_(MODULUS).l));
    F2N_(conj)(&y, &a);
    assert_true(F2N_(eq)(&x, &y));
    /* batch inversion with zeros, in place */
    enum { N = 11 };
    F2N_(t) in[N], ref[N];
    for (int i = 0; i < N; i++) {
        if (i % 4 == 1)
            F2N_(set_zero)(&in[i]);
        else
            assert_true(F2N_(random)(&in[i]));
        F2N_(inv)(&ref[i], &in[i]);
    }
    F2N_(batch_inv)(in, in, N, NULL);
    for (int i = 0; i < N; i++)
        assert_true(F2N_(eq)(&in[i], &ref[i]));
    F2N_(set_zero)(&x);
    F2N_(inv)(&y, &x);
    assert_true(F2N_(is_zero)(&y));
}

static void F2TT_(bench)(void)
{
    F2N_(t) a, b;
    assert_true(F2N_(random)(&a));
    assert_true(F2N_(random)(&b));
    const long n = 2000000;
    double t0 = bench_clock();
    for (long i = 0; i < n; i++)
        F2N_(mul)(&a, &a, &b);
    double t1 = bench_clock();
    for (long i = 0; i < n; i++)
        F2N_(sqr)(&b, &b);
    double t2 = bench_clock();
    printf("bench %-14s mul %6.2f ns  sqr %6.2f ns  (%lu)\n", CUZK_STR(F2T),
           (t1 - t0) * 1e9 / n, (t2 - t1) * 1e9 / n, (unsigned long)(a.c0.l[0] ^ b.c0.l[0]) & 1);
}

#undef F2N_
#undef F2B_
#undef F2TT_
#undef F2T
#undef F2T_BASE
