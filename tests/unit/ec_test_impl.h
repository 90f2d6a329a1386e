/* Test "template" for one curve group. Define before including:
 *   GT        group prefix (bn254_g1)
 *   GT_F      coordinate field prefix (bn254_fp or bn254_fp2)
 *   GT_FP     base prime field prefix (bn254_fp)
 *   GT_NTOK   decimal tokens per coordinate in the KAT files (1 or 2)
 *   GT_FR     scalar field prefix (bn254_fr)
 *   GT_COFACTOR  1 if the curve has points outside the subgroup
 * Defines static test functions GT_t_<name>. */

#define GT_(name) CUZK_NAME(GT, name)
#define GT_F_(name) CUZK_NAME(GT_F, name)
#define GT_FP_(name) CUZK_NAME(GT_FP, name)
#define GT_FR_(name) CUZK_NAME(GT_FR, name)
#define GT_T_(name) CUZK_NAME(GT, CUZK_CAT2(t_, name))

#include "util/templates.h"
#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TEST_EC, CUZK_NAME(GT, C_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

static void GT_T_(parse_f)(GT_F_(t) *r, char **tok)
{
#if GT_NTOK == 1
    assert_true(GT_FP_(from_dec)(r, tok[0]));
#else
    assert_true(GT_FP_(from_dec)(&r->c0, tok[0]));
    assert_true(GT_FP_(from_dec)(&r->c1, tok[1]));
#endif
}

/* Parses an affine point at tok[0..2*GT_NTOK); "0 0" is infinity. */
static void GT_T_(parse_pt)(GT_(affine_t) *p, char **tok)
{
    GT_T_(parse_f)(&p->x, tok);
    GT_T_(parse_f)(&p->y, tok + GT_NTOK);
}

/* A Jacobian representative with a non-trivial Z: (l^2 x, l^3 y, l). */
static void GT_T_(scaled_jac)(GT_(jac_t) *r, const GT_(affine_t) *a, uint64_t seed)
{
    if (GT_(affine_is_inf)(a)) {
        GT_(jac_set_inf)(r);
        return;
    }
    GT_F_(t) l, l2, l3;
    GT_F_(set_zero)(&l);
#if GT_NTOK == 1
    GT_FP_(from_u64)(&l, seed * 0x9e3779b97f4a7c15ULL + 3);
#else
    GT_FP_(from_u64)(&l.c0, seed * 0x9e3779b97f4a7c15ULL + 3);
    GT_FP_(from_u64)(&l.c1, seed + 11);
#endif
    GT_F_(sqr)(&l2, &l);
    GT_F_(mul)(&l3, &l2, &l);
    GT_F_(mul)(&r->x, &a->x, &l2);
    GT_F_(mul)(&r->y, &a->y, &l3);
    r->z = l;
}

/* XYZZ representative with ZZ = l^2, ZZZ = l^3. */
static void GT_T_(scaled_xyzz)(GT_(xyzz_t) *r, const GT_(affine_t) *a, uint64_t seed)
{
    if (GT_(affine_is_inf)(a)) {
        GT_(xyzz_set_inf)(r);
        return;
    }
    GT_(jac_t) j;
    GT_T_(scaled_jac)(&j, a, seed);
    GT_F_(sqr)(&r->zz, &j.z);
    GT_F_(mul)(&r->zzz, &r->zz, &j.z);
    GT_F_(mul)(&r->x, &a->x, &r->zz);
    GT_F_(mul)(&r->y, &a->y, &r->zzz);
}

static void GT_T_(expect_jac)(const GT_(jac_t) *got, const GT_(affine_t) *want, int lineno, const char *what)
{
    GT_(affine_t) a;
    GT_(jac_to_affine)(&a, got);
    GT_(jac_t) wj;
    GT_(jac_from_affine)(&wj, want);
    if (!GT_(affine_eq)(&a, want) || !GT_(jac_eq)(got, &wj)) {
        fprintf(stderr, "%s line %d: %s mismatch\n", CUZK_STR(GT), lineno, what);
        fail();
    }
}

static void GT_T_(expect_xyzz)(const GT_(xyzz_t) *got, const GT_(affine_t) *want, int lineno, const char *what)
{
    GT_(jac_t) j;
    GT_(xyzz_to_jac)(&j, got);
    GT_T_(expect_jac)(&j, want, lineno, what);
}

static void GT_T_(kat)(const char *file)
{
    kat_reader k;
    assert_int_equal(kat_open(&k, file), 0);
    int n = 0, nonsub = 0;
    const int PT = 2 * GT_NTOK; /* tokens per point */
    while (kat_next(&k)) {
        const char *op = k.tok[0];
        GT_(affine_t) P, Q, R;
        GT_(jac_t) j, jq;
        GT_(xyzz_t) x, xq;
        if (!strcmp(op, "gen") || !strcmp(op, "mul")) {
            uint64_t sc[5];
            int kt = 1;
            if (op[0] == 'm') {
                GT_T_(parse_pt)(&P, &k.tok[1]);
                kt = 1 + PT;
            } else {
                P = GT_(GENERATOR);
            }
            assert_true(cuzk_bn_from_dec(sc, 5, k.tok[kt]));
            GT_T_(parse_pt)(&R, &k.tok[kt + 1]);
            GT_(affine_mul)(&j, &P, sc, 5);
            GT_T_(expect_jac)(&j, &R, k.lineno, "affine_mul");
            GT_T_(scaled_jac)(&jq, &P, (uint64_t)n);
            GT_(jac_mul)(&jq, &jq, sc, 4); /* in place; every scalar fits 4 limbs */
            GT_T_(expect_jac)(&jq, &R, k.lineno, "jac_mul");
            assert_true(GT_(affine_is_on_curve)(&R));
        } else if (!strcmp(op, "add")) {
            GT_T_(parse_pt)(&P, &k.tok[1]);
            GT_T_(parse_pt)(&Q, &k.tok[1 + PT]);
            GT_T_(parse_pt)(&R, &k.tok[1 + 2 * PT]);
            /* Jacobian: full, mixed (both orders of arguments), aliasing */
            GT_T_(scaled_jac)(&j, &P, 1);
            GT_T_(scaled_jac)(&jq, &Q, 2);
            GT_(jac_t) out;
            GT_(jac_add)(&out, &j, &jq);
            GT_T_(expect_jac)(&out, &R, k.lineno, "jac_add");
            GT_(jac_add)(&out, &jq, &j);
            GT_T_(expect_jac)(&out, &R, k.lineno, "jac_add (swapped)");
            GT_(jac_add)(&jq, &j, &jq);
            GT_T_(expect_jac)(&jq, &R, k.lineno, "jac_add (r = b)");
            GT_(jac_add_affine)(&out, &j, &Q);
            GT_T_(expect_jac)(&out, &R, k.lineno, "jac_add_affine");
            GT_(jac_add_affine)(&j, &j, &Q);
            GT_T_(expect_jac)(&j, &R, k.lineno, "jac_add_affine (r = a)");
            GT_(jac_from_affine)(&j, &P);
            GT_(jac_add_affine)(&j, &j, &Q);
            GT_T_(expect_jac)(&j, &R, k.lineno, "jac_add_affine (Z = 1)");
            /* XYZZ: full and mixed, plus subtraction undoing the addition */
            GT_T_(scaled_xyzz)(&x, &P, 3);
            GT_T_(scaled_xyzz)(&xq, &Q, 4);
            GT_(xyzz_t) xo;
            GT_(xyzz_add)(&xo, &x, &xq);
            GT_T_(expect_xyzz)(&xo, &R, k.lineno, "xyzz_add");
            GT_(xyzz_add)(&xq, &x, &xq);
            GT_T_(expect_xyzz)(&xq, &R, k.lineno, "xyzz_add (r = b)");
            GT_(xyzz_add_affine)(&xo, &x, &Q);
            GT_T_(expect_xyzz)(&xo, &R, k.lineno, "xyzz_add_affine");
            GT_(xyzz_add_affine)(&x, &x, &Q);
            GT_T_(expect_xyzz)(&x, &R, k.lineno, "xyzz_add_affine (r = a)");
            GT_(xyzz_sub_affine)(&x, &x, &Q);
            GT_T_(expect_xyzz)(&x, &P, k.lineno, "xyzz_sub_affine");
            GT_(xyzz_set_inf)(&x);
            GT_(xyzz_add_affine)(&x, &x, &P);
            GT_(xyzz_add_affine)(&x, &x, &Q);
            GT_T_(expect_xyzz)(&x, &R, k.lineno, "xyzz from infinity");
        } else if (!strcmp(op, "dbl")) {
            GT_T_(parse_pt)(&P, &k.tok[1]);
            GT_T_(parse_pt)(&R, &k.tok[1 + PT]);
            GT_T_(scaled_jac)(&j, &P, 5);
            GT_(jac_t) out;
            GT_(jac_dbl)(&out, &j);
            GT_T_(expect_jac)(&out, &R, k.lineno, "jac_dbl");
            GT_(jac_add)(&out, &j, &j);
            GT_T_(expect_jac)(&out, &R, k.lineno, "jac_add(P, P)");
            GT_(jac_add_affine)(&out, &j, &P);
            GT_T_(expect_jac)(&out, &R, k.lineno, "jac_add_affine(P, P)");
            GT_(jac_dbl)(&j, &j);
            GT_T_(expect_jac)(&j, &R, k.lineno, "jac_dbl (in place)");
            GT_T_(scaled_xyzz)(&x, &P, 6);
            GT_(xyzz_dbl)(&xq, &x);
            GT_T_(expect_xyzz)(&xq, &R, k.lineno, "xyzz_dbl");
            GT_(xyzz_add)(&xq, &x, &x);
            GT_T_(expect_xyzz)(&xq, &R, k.lineno, "xyzz_add(P, P)");
            GT_(xyzz_add_affine)(&xq, &x, &P);
            GT_T_(expect_xyzz)(&xq, &R, k.lineno, "xyzz_add_affine(P, P)");
            GT_(xyzz_dbl)(&x, &x);
            GT_T_(expect_xyzz)(&x, &R, k.lineno, "xyzz_dbl (in place)");
        } else if (!strcmp(op, "sub")) {
            GT_T_(parse_pt)(&P, &k.tok[1]);
            assert_true(GT_(affine_is_on_curve)(&P));
            assert_true(GT_(affine_in_subgroup)(&P));
        } else if (!strcmp(op, "nonsub")) {
            GT_T_(parse_pt)(&P, &k.tok[1]);
            assert_true(GT_(affine_is_on_curve)(&P));
            assert_false(GT_(affine_in_subgroup)(&P));
            nonsub++;
        } else {
            fprintf(stderr, "%s:%d unknown op %s\n", file, k.lineno, op);
            fail();
        }
        n++;
    }
    kat_close(&k);
    assert_true(n >= 40);
    assert_int_equal(nonsub > 0, GT_COFACTOR);
}

static void GT_T_(props)(void **state)
{
    (void)state;
    const GT_(affine_t) *G = &GT_(GENERATOR);
    GT_(affine_t) inf, A, B, C, t;
    GT_(affine_set_inf)(&inf);
    /* infinity conventions */
    assert_true(GT_(affine_is_inf)(&inf));
    assert_true(GT_(affine_is_on_curve)(&inf));
    assert_true(GT_(affine_in_subgroup)(&inf));
    assert_false(GT_(affine_is_inf)(G));
    assert_true(GT_(affine_is_on_curve)(G));
    assert_true(GT_(affine_in_subgroup)(G));
    GT_(jac_t) ji, j1, j2, j3;
    GT_(jac_set_inf)(&ji);
    GT_(jac_to_affine)(&t, &ji);
    assert_true(GT_(affine_is_inf)(&t));
    GT_(jac_from_affine)(&j1, &inf);
    assert_true(GT_(jac_is_inf)(&j1));
    GT_(xyzz_t) xi;
    GT_(xyzz_set_inf)(&xi);
    assert_true(GT_(xyzz_is_inf)(&xi));
    GT_(xyzz_dbl)(&xi, &xi);
    assert_true(GT_(xyzz_is_inf)(&xi));
    GT_(xyzz_add_affine)(&xi, &xi, &inf);
    assert_true(GT_(xyzz_is_inf)(&xi));
    GT_(xyzz_to_jac)(&j1, &xi);
    assert_true(GT_(jac_is_inf)(&j1));
    GT_(jac_dbl)(&j1, &ji);
    assert_true(GT_(jac_is_inf)(&j1));
    GT_(jac_add_affine)(&j1, &ji, &inf);
    assert_true(GT_(jac_is_inf)(&j1));
    assert_true(GT_(jac_eq)(&ji, &j1));
    /* a point off the curve is rejected */
    t = *G;
    GT_F_(t) one;
    GT_F_(set_one)(&one);
    GT_F_(add)(&t.y, &t.y, &one);
    assert_false(GT_(affine_is_on_curve)(&t));
    assert_false(GT_(affine_in_subgroup)(&t));
    t = *G;
    GT_F_(set_zero)(&t.y); /* (x, 0) is never on these curves */
    assert_false(GT_(affine_is_on_curve)(&t));
    /* scalar mul: 0, 1, r, r - 1 = -G, and (a + b)G = aG + bG, a(bG) = (ab)G */
    uint64_t k[4] = {0};
    GT_(affine_mul)(&j1, G, k, 4);
    assert_true(GT_(jac_is_inf)(&j1));
    GT_(affine_mul)(&j1, G, k, 0);
    assert_true(GT_(jac_is_inf)(&j1));
    k[0] = 1;
    GT_(affine_mul)(&j1, G, k, 1);
    GT_(jac_to_affine)(&t, &j1);
    assert_true(GT_(affine_eq)(&t, G));
    GT_(affine_mul)(&j1, G, GT_FR_(MODULUS).l, 4);
    assert_true(GT_(jac_is_inf)(&j1));
    memcpy(k, GT_FR_(MODULUS).l, sizeof k);
    k[0] -= 1;
    GT_(affine_mul)(&j1, G, k, 4);
    GT_(jac_to_affine)(&t, &j1);
    GT_(affine_neg)(&A, G);
    assert_true(GT_(affine_eq)(&t, &A));
    GT_(jac_from_affine)(&j2, G);
    GT_(jac_neg)(&j2, &j2);
    assert_true(GT_(jac_eq)(&j1, &j2));
    GT_(affine_neg)(&t, &inf);
    assert_true(GT_(affine_is_inf)(&t));

    test_rng g = {42};
    for (int it = 0; it < 6; it++) {
        GT_FR_(t) a, b, c;
        uint64_t ra[4], rb[4], rc[4];
        for (int i = 0; i < 4; i++) {
            a.l[i] = rng_next(&g);
            b.l[i] = rng_next(&g);
        }
        a.l[3] >>= 4;
        b.l[3] >>= 4; /* < 2^252 < r: canonical raw scalars */
        memcpy(ra, a.l, sizeof ra);
        memcpy(rb, b.l, sizeof rb);
        GT_FR_(to_mont)(&a, &a);
        GT_FR_(to_mont)(&b, &b);
        GT_(affine_mul)(&j1, G, ra, 4);
        GT_(affine_mul)(&j2, G, rb, 4);
        GT_(jac_to_affine)(&A, &j1);
        GT_(jac_to_affine)(&B, &j2);
        GT_FR_(add)(&c, &a, &b);
        GT_FR_(from_mont)(&c, &c);
        memcpy(rc, c.l, sizeof rc);
        GT_(affine_mul)(&j3, G, rc, 4);
        GT_(jac_add)(&j1, &j1, &j2);
        assert_true(GT_(jac_eq)(&j1, &j3));
        GT_FR_(mul)(&c, &a, &b);
        GT_FR_(from_mont)(&c, &c);
        memcpy(rc, c.l, sizeof rc);
        GT_(affine_mul)(&j3, G, rc, 4);
        GT_(affine_mul)(&j1, &A, rb, 4);
        assert_true(GT_(jac_eq)(&j1, &j3));
        /* associativity and commutativity: (A + B) + C = A + (B + C) */
        GT_(affine_mul)(&j3, &B, ra, 2);
        GT_(jac_to_affine)(&C, &j3);
        GT_(jac_from_affine)(&j1, &A);
        GT_(jac_add_affine)(&j1, &j1, &B);
        GT_(jac_add_affine)(&j1, &j1, &C);
        GT_(jac_from_affine)(&j2, &C);
        GT_(jac_add_affine)(&j2, &j2, &B);
        GT_(jac_add_affine)(&j2, &j2, &A);
        assert_true(GT_(jac_eq)(&j1, &j2));
        /* jac vs xyzz vs batch affine */
        GT_(xyzz_t) x;
        GT_(xyzz_set_inf)(&x);
        GT_(xyzz_add_affine)(&x, &x, &A);
        GT_(xyzz_add_affine)(&x, &x, &B);
        GT_(xyzz_add_affine)(&x, &x, &C);
        GT_(xyzz_dbl)(&x, &x);
        GT_(jac_dbl)(&j1, &j1);
        GT_(xyzz_to_jac)(&j2, &x);
        assert_true(GT_(jac_eq)(&j1, &j2));
        /* P + (-P) = O in every representation */
        GT_(affine_neg)(&t, &A);
        GT_(xyzz_set_inf)(&x);
        GT_(xyzz_add_affine)(&x, &x, &A);
        GT_(xyzz_add_affine)(&x, &x, &t);
        assert_true(GT_(xyzz_is_inf)(&x));
        GT_(jac_from_affine)(&j1, &A);
        GT_(jac_add_affine)(&j1, &j1, &t);
        assert_true(GT_(jac_is_inf)(&j1));
        assert_true(GT_(affine_in_subgroup)(&A));
    }
    /* batch normalisation with infinities mixed in */
    enum { N = 9 };
    GT_(jac_t) in[N];
    GT_(affine_t) out[N], ref[N];
    GT_(jac_from_affine)(&j1, G);
    for (int i = 0; i < N; i++) {
        if (i % 3 == 1) {
            GT_(jac_set_inf)(&in[i]);
        } else {
            GT_(jac_dbl)(&j1, &j1);
            GT_(jac_add_affine)(&j1, &j1, G);
            in[i] = j1;
        }
        GT_(jac_to_affine)(&ref[i], &in[i]);
    }
    GT_(jac_batch_to_affine)(out, in, N);
    for (int i = 0; i < N; i++) {
        assert_true(GT_(affine_eq)(&out[i], &ref[i]));
        assert_true(GT_(affine_is_on_curve)(&out[i]));
    }
    GT_(jac_batch_to_affine)(out, in, 0);
}

#endif /* per-instance guard */

#undef GT_
#undef GT_F_
#undef GT_FP_
#undef GT_FR_
#undef GT_T_
#undef GT
#undef GT_F
#undef GT_FP
#undef GT_NTOK
#undef GT_FR
#undef GT_COFACTOR
