/* Test "template" for one Fp2: include with F2T (Fp2 prefix) and F2T_BASE
 * (base field prefix) defined; defines static test functions F2T_t_<name>. */

#define F2T_(name) CUZK_NAME(F2T, name)
#define F2T_B_(name) CUZK_NAME(F2T_BASE, name)
#define F2T_T_(name) CUZK_NAME(F2T, CUZK_CAT2(t_, name))

#include "util/templates.h"
#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TEST_FP2, CUZK_NAME(F2T, P_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

static void F2T_T_(parse)(F2T_(t) *r, char **tok)
{
    assert_true(F2T_B_(from_dec)(&r->c0, tok[0]));
    assert_true(F2T_B_(from_dec)(&r->c1, tok[1]));
}

static void F2T_T_(expect)(const F2T_(t) *a, char **tok, int lineno)
{
    F2T_(t) w;
    F2T_T_(parse)(&w, tok);
    if (!F2T_(eq)(a, &w)) {
        fprintf(stderr, "%s line %d: mismatch\n", CUZK_STR(F2T), lineno);
        fail();
    }
}

static void F2T_T_(kat)(const char *file)
{
    kat_reader k;
    assert_int_equal(kat_open(&k, file), 0);
    int n = 0;
    while (kat_next(&k)) {
        const char *op = k.tok[0];
        F2T_(t) a, b, r, c;
        F2T_T_(parse)(&a, &k.tok[1]);
        if (!strcmp(op, "mul") || !strcmp(op, "add") || !strcmp(op, "sub")) {
            F2T_T_(parse)(&b, &k.tok[3]);
            c = a;
            if (op[0] == 'm') {
                F2T_(mul)(&r, &a, &b);
                F2T_(mul)(&c, &c, &b);
            } else if (op[0] == 'a') {
                F2T_(add)(&r, &a, &b);
                F2T_(add)(&c, &c, &b);
            } else {
                F2T_(sub)(&r, &a, &b);
                F2T_(sub)(&c, &c, &b);
            }
            F2T_T_(expect)(&r, &k.tok[5], k.lineno);
            assert_true(F2T_(eq)(&c, &r));
        } else if (!strcmp(op, "neg")) {
            F2T_(neg)(&r, &a);
            F2T_T_(expect)(&r, &k.tok[3], k.lineno);
        } else if (!strcmp(op, "sqr")) {
            F2T_(sqr)(&r, &a);
            F2T_T_(expect)(&r, &k.tok[3], k.lineno);
            c = a;
            F2T_(sqr)(&c, &c);
            assert_true(F2T_(eq)(&c, &r));
        } else if (!strcmp(op, "inv")) {
            F2T_(inv)(&r, &a);
            F2T_T_(expect)(&r, &k.tok[3], k.lineno);
        } else if (!strcmp(op, "sqrt")) {
            bool ok = F2T_(sqrt)(&r, &a);
            if (!strcmp(k.tok[3], "none")) {
                assert_false(ok);
            } else {
                assert_true(ok);
                F2T_(t) w, nr;
                F2T_T_(parse)(&w, &k.tok[3]);
                F2T_(neg)(&nr, &r);
                assert_true(F2T_(eq)(&r, &w) || F2T_(eq)(&nr, &w));
            }
        } else if (!strcmp(op, "pow")) {
            uint64_t e[6];
            assert_true(cuzk_bn_from_dec(e, 6, k.tok[3]));
            F2T_(pow)(&r, &a, e, 6);
            F2T_T_(expect)(&r, &k.tok[4], k.lineno);
        } else {
            fprintf(stderr, "%s:%d unknown op %s\n", file, k.lineno, op);
            fail();
        }
        n++;
    }
    kat_close(&k);
    assert_true(n >= 50);
}

static void F2T_T_(props)(void **state)
{
    (void)state;
    F2T_(t) a, b, c, x, y, z, one;
    F2T_(set_one)(&one);
    assert_true(F2T_(is_one)(&one));
    /* u^2 = -1 */
    F2T_(set_zero)(&x);
    F2T_B_(set_one)(&x.c1);
    F2T_(sqr)(&y, &x);
    F2T_(neg)(&z, &one);
    assert_true(F2T_(eq)(&y, &z));
    for (int it = 0; it < 200; it++) {
        assert_true(F2T_(random)(&a));
        assert_true(F2T_(random)(&b));
        assert_true(F2T_(random)(&c));
        /* ring axioms */
        F2T_(mul)(&x, &a, &b);
        F2T_(mul)(&y, &b, &a);
        assert_true(F2T_(eq)(&x, &y));
        F2T_(mul)(&x, &x, &c);
        F2T_(mul)(&y, &b, &c);
        F2T_(mul)(&y, &a, &y);
        assert_true(F2T_(eq)(&x, &y));
        F2T_(add)(&x, &b, &c);
        F2T_(mul)(&x, &a, &x);
        F2T_(mul)(&y, &a, &b);
        F2T_(mul)(&z, &a, &c);
        F2T_(add)(&y, &y, &z);
        assert_true(F2T_(eq)(&x, &y));
        /* sqr, dbl, inverse, conjugate = Frobenius (a^p) */
        F2T_(sqr)(&x, &a);
        F2T_(mul)(&y, &a, &a);
        assert_true(F2T_(eq)(&x, &y));
        F2T_(dbl)(&x, &a);
        F2T_(add)(&y, &a, &a);
        assert_true(F2T_(eq)(&x, &y));
        F2T_(inv)(&x, &a);
        F2T_(mul)(&x, &x, &a);
        assert_true(F2T_(is_one)(&x));
        F2T_(mul)(&x, &a, &b);
        F2T_(conj)(&x, &x);
        F2T_(conj)(&y, &a);
        F2T_(conj)(&z, &b);
        F2T_(mul)(&y, &y, &z);
        assert_true(F2T_(eq)(&x, &y));
        /* mul_fp = mul by (b0, 0) */
        F2T_(mul_fp)(&x, &a, &b.c0);
        z = b;
        F2T_B_(set_zero)(&z.c1);
        F2T_(mul)(&y, &a, &z);
        assert_true(F2T_(eq)(&x, &y));
        /* sqrt of a square */
        F2T_(sqr)(&x, &a);
        assert_true(F2T_(sqrt)(&y, &x));
        F2T_(sqr)(&y, &y);
        assert_true(F2T_(eq)(&x, &y));
        /* sub/neg */
        F2T_(sub)(&x, &a, &b);
        F2T_(add)(&x, &x, &b);
        assert_true(F2T_(eq)(&x, &a));
        F2T_(neg)(&x, &a);
        F2T_(add)(&x, &x, &a);
        assert_true(F2T_(is_zero)(&x));
    }
    /* every Fp element is a square in Fp2; the conjugate is x^p */
    assert_true(F2T_(random)(&a));
    F2T_B_(t) pm1;
    F2T_B_(set_one)(&pm1);
    F2T_B_(neg)(&pm1, &pm1);
    F2T_(set_zero)(&x);
    x.c0 = pm1;
    assert_true(F2T_(sqrt)(&y, &x));
    F2T_(sqr)(&y, &y);
    assert_true(F2T_(eq)(&y, &x));
    F2T_(pow)(&x, &a, F2T_B_(MODULUS).l, CUZK_ARRAY_LEN(F2T_B_(MODULUS).l));
    F2T_(conj)(&y, &a);
    assert_true(F2T_(eq)(&x, &y));
    /* batch inversion with zeros, in place */
    enum { N = 11 };
    F2T_(t) in[N], ref[N];
    for (int i = 0; i < N; i++) {
        if (i % 4 == 1)
            F2T_(set_zero)(&in[i]);
        else
            assert_true(F2T_(random)(&in[i]));
        F2T_(inv)(&ref[i], &in[i]);
    }
    F2T_(batch_inv)(in, in, N, NULL);
    for (int i = 0; i < N; i++)
        assert_true(F2T_(eq)(&in[i], &ref[i]));
    F2T_(set_zero)(&x);
    F2T_(inv)(&y, &x);
    assert_true(F2T_(is_zero)(&y));
}

#endif /* per-instance guard */

#undef F2T_
#undef F2T_B_
#undef F2T_T_
#undef F2T
#undef F2T_BASE
