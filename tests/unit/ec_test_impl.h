/* Test "template" for one curve group. Define before including:
 *   GT        group prefix (bn254_g1)
 *   GT_F      coordinate field prefix (bn254_fp or bn254_fp2)
 *   GT_FP     base prime field prefix (bn254_fp)
 *   GT_NTOK   decimal tokens per coordinate in the KAT files (1 or 2)
 *   GT_FR     scalar field prefix (bn254_fr)
 *   GT_COFACTOR  1 if the curve has points outside the subgroup
 * Defines static test functions GT_t_<name>. */

#define GN_(name) CUZK_NAME(GT, name)
#define GF_(name) CUZK_NAME(GT_F, name)
#define GP_(name) CUZK_NAME(GT_FP, name)
#define GR_(name) CUZK_NAME(GT_FR, name)
#define GTT_(name) CUZK_NAME(GT, CUZK_CAT2(t_, name))

static void GTT_(parse_f)(GF_(t) *r, char **tok)
{
#if GT_NTOK == 1
    assert_true(GP_(from_dec)(r, tok[0]));
#else
    assert_true(GP_(from_dec)(&r->c0, tok[0]));
    assert_true(GP_(from_dec)(&r->c1, tok[1]));
#endif
}

/* Parses an affine point at tok[0..2*GT_NTOK); "0 0" is infinity. */
static void GTT_(parse_pt)(GN_(affine_t) *p, char **tok)
{
    GTT_(parse_f)(&p->x, tok);
    GTT_(parse_f)(&p->y, tok + GT_NTOK);
}

/* A Jacobian representative with a non-trivial Z: (l^2 x, l^3 y, l). */
static void GTT_(scaled_jac)(GN_(jac_t) *r, const GN_(affine_t) *a, uint64_t seed)
{
    if (GN_(affine_is_inf)(a)) {
        GN_(jac_set_inf)(r);
        return;
    }
    GF_(t) l, l2, l3;
    GF_(set_zero)(&l);
#if GT_NTOK == 1
    GP_(from_u64)(&l, seed * 0x9e3779b97f4a7c15ULL + 3);
#else
    GP_(from_u64)(&l.c0, seed * 0x9e3779b97f4a7c15ULL + 3);
    GP_(from_u64)(&l.c1, seed + 11);
#endif
    GF_(sqr)(&l2, &l);
    GF_(mul)(&l3, &l2, &l);
    GF_(mul)(&r->x, &a->x, &l2);
    GF_(mul)(&r->y, &a->y, &l3);
    r->z = l;
}

/* XYZZ representative with ZZ = l^2, ZZZ = l^3. */
static void GTT_(scaled_xyzz)(GN_(xyzz_t) *r, const GN_(affine_t) *a, uint64_t seed)
{
    if (GN_(affine_is_inf)(a)) {
        GN_(xyzz_set_inf)(r);
        return;
    }
    GN_(jac_t) j;
    GTT_(scaled_jac)(&j, a, seed);
    GF_(sqr)(&r->zz, &j.z);
    GF_(mul)(&r->zzz, &r->zz, &j.z);
    GF_(mul)(&r->x, &a->x, &r->zz);
    GF_(mul)(&r->y, &a->y, &r->zzz);
}

static void GTT_(expect_jac)(const GN_(jac_t) *got, const GN_(affine_t) *want, int lineno, const char *what)
{
    GN_(affine_t) a;
    GN_(jac_to_affine)(&a, got);
    GN_(jac_t) wj;
    GN_(jac_from_affine)(&wj, want);
    if (!GN_(affine_eq)(&a, want) || !GN_(jac_eq)(got, &wj)) {
        fprintf(stderr, "%s line %d: %s mismatch\n", CUZK_STR(GT), lineno, what);
        fail();
    }
}

static void GTT_(expect_xyzz)(const GN_(xyzz_t) *got, const GN_(affine_t) *want, int lineno, const char *what)
{
    GN_(jac_t) j;
    GN_(xyzz_to_jac)(&j, got);
    GTT_(expect_jac)(&j, want, lineno, what);
}

static void GTT_(kat)(const char *file)
{
    kat_reader k;
    assert_int_equal(kat_open(&k, file), 0);
    int n = 0, nonsub = 0;
    const int PT = 2 * GT_NTOK; /* tokens per point */
    while (kat_next(&k)) {
        const char *op = k.tok[0];
        GN_(affine_t) P, Q, R;
        GN_(jac_t) j, jq;
        GN_(xyzz_t) x, xq;
        if (!strcmp(op, "gen") || !strcmp(op, "mul")) {
            uint64_t sc[5];
            int kt = 1;
            if (op[0] == 'm') {
                GTT_(parse_pt)(&P, &k.tok[1]);
                kt = 1 + PT;
            } else {
                P = GN_(GENERATOR);
            }
            assert_true(cuzk_bn_from_dec(sc, 5, k.tok[kt]));
            GTT_(parse_pt)(&R, &k.tok[kt + 1]);
            GN_(affine_mul)(&j, &P, sc, 5);
            GTT_(expect_jac)(&j, &R, k.lineno, "affine_mul");
            GTT_(scaled_jac)(&jq, &P, (uint64_t)n);
            GN_(jac_mul)(&jq, &jq, sc, 4); /* in place; every scalar fits 4 limbs */
            GTT_(expect_jac)(&jq, &R, k.lineno, "jac_mul");
            assert_true(GN_(affine_is_on_curve)(&R));
        } else if (!strcmp(op, "add")) {
            GTT_(parse_pt)(&P, &k.tok[1]);
            GTT_(parse_pt)(&Q, &k.tok[1 + PT]);
            GTT_(parse_pt)(&R, &k.tok[1 + 2 * PT]);
            /* Jacobian: full, mixed (both orders of arguments), aliasing */
            GTT_(scaled_jac)(&j, &P, 1);
            GTT_(scaled_jac)(&jq, &Q, 2);
            GN_(jac_t) out;
            GN_(jac_add)(&out, &j, &jq);
            GTT_(expect_jac)(&out, &R, k.lineno, "jac_add");
            GN_(jac_add)(&out, &jq, &j);
            GTT_(expect_jac)(&out, &R, k.lineno, "jac_add (swapped)");
            GN_(jac_add)(&jq, &j, &jq);
            GTT_(expect_jac)(&jq, &R, k.lineno, "jac_add (r = b)");
            GN_(jac_add_affine)(&out, &j, &Q);
            GTT_(expect_jac)(&out, &R, k.lineno, "jac_add_affine");
            GN_(jac_add_affine)(&j, &j, &Q);
            GTT_(expect_jac)(&j, &R, k.lineno, "jac_add_affine (r = a)");
            GN_(jac_from_affine)(&j, &P);
            GN_(jac_add_affine)(&j, &j, &Q);
            GTT_(expect_jac)(&j, &R, k.lineno, "jac_add_affine (Z = 1)");
            /* XYZZ: full and mixed, plus subtraction undoing the addition */
            GTT_(scaled_xyzz)(&x, &P, 3);
            GTT_(scaled_xyzz)(&xq, &Q, 4);
            GN_(xyzz_t) xo;
            GN_(xyzz_add)(&xo, &x, &xq);
            GTT_(expect_xyzz)(&xo, &R, k.lineno, "xyzz_add");
            GN_(xyzz_add)(&xq, &x, &xq);
            GTT_(expect_xyzz)(&xq, &R, k.lineno, "xyzz_add (r = b)");
            GN_(xyzz_add_affine)(&xo, &x, &Q);
            GTT_(expect_xyzz)(&xo, &R, k.lineno, "xyzz_add_affine");
            GN_(xyzz_add_affine)(&x, &x, &Q);
            GTT_(expect_xyzz)(&x, &R, k.lineno, "xyzz_add_affine (r = a)");
            GN_(xyzz_sub_affine)(&x, &x, &Q);
            GTT_(expect_xyzz)(&x, &P, k.lineno, "xyzz_sub_affine");
            GN_(xyzz_set_inf)(&x);
            GN_(xyzz_add_affine)(&x, &x, &P);
            GN_(xyzz_add_affine)(&x, &x, &Q);
            GTT_(expect_xyzz)(&x, &R, k.lineno, "xyzz from infinity");
        } else if (!strcmp(op, "dbl")) {
            GTT_(parse_pt)(&P, &k.tok[1]);
            GTT_(parse_pt)(&R, &k.tok[1 + PT]);
            GTT_(scaled_jac)(&j, &P, 5);
            GN_(jac_t) out;
            GN_(jac_dbl)(&out, &j);
            GTT_(expect_jac)(&out, &R, k.lineno, "jac_dbl");
            GN_(jac_add)(&out, &j, &j);
            GTT_(expect_jac)(&out, &R, k.lineno, "jac_add(P, P)");
            GN_(jac_add_affine)(&out, &j, &P);
            GTT_(expect_jac)(&out, &R, k.lineno, "jac_add_affine(P, P)");
            GN_(jac_dbl)(&j, &j);
            GTT_(expect_jac)(&j, &R, k.lineno, "jac_dbl (in place)");
            GTT_(scaled_xyzz)(&x, &P, 6);
            GN_(xyzz_dbl)(&xq, &x);
            GTT_(expect_xyzz)(&xq, &R, k.lineno, "xyzz_dbl");
            GN_(xyzz_add)(&xq, &x, &x);
            GTT_(expect_xyzz)(&xq, &R, k.lineno, "xyzz_add(P, P)");
            GN_(xyzz_add_affine)(&xq, &x, &P);
            GTT_(expect_xyzz)(&xq, &R, k.lineno, "xyzz_add_affine(P, P)");
            GN_(xyzz_dbl)(&x, &x);
            GTT_(expect_xyzz)(&x, &R, k.lineno, "xyzz_dbl (in place)");
        } else if (!strcmp(op, "sub")) {
            GTT_(parse_pt)(&P, &k.tok[1]);
            assert_true(GN_(affine_is_on_curve)(&P));
            assert_true(GN_(affine_in_subgroup)(&P));
        } else if (!strcmp(op, "nonsub")) {
            GTT_(parse_pt)(&P, &k.tok[1]);
            assert_true(GN_(affine_is_on_curve)(&P));
            assert_false(GN_(affine_in_subgroup)(&P));
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

static void GTT_(props)(void **state)
{
    (void)state;
    const GN_(affine_t) *G = &GN_(GENERATOR);
    GN_(affine_t) inf, A, B, C, t;
    GN_(affine_set_inf)(&inf);
    /* infinity conventions */
    assert_true(GN_(affine_is_inf)(&inf));
    assert_true(GN_(affine_is_on_curve)(&inf));
    assert_true(GN_(affine_in_subgroup)(&inf));
    assert_false(GN_(affine_is_inf)(G));
    assert_true(GN_(affine_is_on_curve)(G));
    assert_true(GN_(affine_in_subgroup)(G));
    GN_(jac_t) ji, j1, j2, j3;
    GN_(jac_set_inf)(&ji);
    GN_(jac_to_affine)(&t, &ji);
    assert_true(GN_(affine_is_inf)(&t));
    GN_(jac_from_affine)(&j1, &inf);
    assert_true(GN_(jac_is_inf)(&j1));
    GN_(xyzz_t) xi;
    GN_(xyzz_set_inf)(&xi);
    assert_true(GN_(xyzz_is_inf)(&xi));
    GN_(xyzz_dbl)(&xi, &xi);
    assert_true(GN_(xyzz_is_inf)(&xi));
    GN_(xyzz_add_affine)(&xi, &xi, &inf);
    assert_true(GN_(xyzz_is_inf)(&xi));
    GN_(xyzz_to_jac)(&j1, &xi);
    assert_true(GN_(jac_is_inf)(&j1));
    GN_(jac_dbl)(&j1, &ji);
    assert_true(GN_(jac_is_inf)(&j1));
    GN_(jac_add_affine)(&j1, &ji, &inf);
    assert_true(GN_(jac_is_inf)(&j1));
    assert_true(GN_(jac_eq)(&ji, &j1));
    /* a point off the curve is rejected */
    t = *G;
    GF_(t) one;
    GF_(set_one)(&one);
    GF_(add)(&t.y, &t.y, &one);
    assert_false(GN_(affine_is_on_curve)(&t));
    assert_false(GN_(affine_in_subgroup)(&t));
    t = *G;
    GF_(set_zero)(&t.y); /* (x, 0) is never on these curves */
    assert_false(GN_(affine_is_on_curve)(&t));
    /* scalar mul: 0, 1, r, r - 1 = -G, and (a + b)G = aG + bG, a(bG) = (ab)G */
    uint64_t k[4] = {0};
    GN_(affine_mul)(&j1, G, k, 4);
    assert_true(GN_(jac_is_inf)(&j1));
    GN_(affine_mul)(&j1, G, k, 0);
    assert_true(GN_(jac_is_inf)(&j1));
    k[0] = 1;
    GN_(affine_mul)(&j1, G, k, 1);
    GN_(jac_to_affine)(&t, &j1);
    assert_true(GN_(affine_eq)(&t, G));
    GN_(affine_mul)(&j1, G, GR_(MODULUS).l, 4);
    assert_true(GN_(jac_is_inf)(&j1));
    memcpy(k, GR_(MODULUS).l, sizeof k);
    k[0] -= 1;
    GN_(affine_mul)(&j1, G, k, 4);
    GN_(jac_to_affine)(&t, &j1);
    GN_(affine_neg)(&A, G);
    assert_true(GN_(affine_eq)(&t, &A));
    GN_(jac_from_affine)(&j2, G);
    GN_(jac_neg)(&j2, &j2);
    assert_true(GN_(jac_eq)(&j1, &j2));
    GN_(affine_neg)(&t, &inf);
    assert_true(GN_(affine_is_inf)(&t));

    test_rng g = {42};
    for (int it = 0; it < 6; it++) {
        GR_(t) a, b, c;
        uint64_t ra[4], rb[4], rc[4];
        for (int i = 0; i < 4; i++) {
            a.l[i] = rng_next(&g);
            b.l[i] = rng_next(&g);
        }
        a.l[3] >>= 4;
        b.l[3] >>= 4; /* < 2^252 < r: canonical raw scalars */
        memcpy(ra, a.l, sizeof ra);
        memcpy(rb, b.l, sizeof rb);
        GR_(to_mont)(&a, &a);
        GR_(to_mont)(&b, &b);
        GN_(affine_mul)(&j1, G, ra, 4);
        GN_(affine_mul)(&j2, G, rb, 4);
        GN_(jac_to_affine)(&A, &j1);
        GN_(jac_to_affine)(&B, &j2);
        GR_(add)(&c, &a, &b);
        GR_(from_mont)(&c, &c);
        memcpy(rc, c.l, sizeof rc);
        GN_(affine_mul)(&j3, G, rc, 4);
        GN_(jac_add)(&j1, &j1, &j2);
        assert_true(GN_(jac_eq)(&j1, &j3));
        GR_(mul)(&c, &a, &b);
        GR_(from_mont)(&c, &c);
        memcpy(rc, c.l, sizeof rc);
        GN_(affine_mul)(&j3, G, rc, 4);
        GN_(affine_mul)(&j1, &A, rb, 4);
        assert_true(GN_(jac_eq)(&j1, &j3));
        /* associativity and commutativity: (A + B) + C = A + (B + C) */
        GN_(affine_mul)(&j3, &B, ra, 2);
        GN_(jac_to_affine)(&C, &j3);
        GN_(jac_from_affine)(&j1, &A);
        GN_(jac_add_affine)(&j1, &j1, &B);
        GN_(jac_add_affine)(&j1, &j1, &C);
        GN_(jac_from_affine)(&j2, &C);
        GN_(jac_add_affine)(&j2, &j2, &B);
        GN_(jac_add_affine)(&j2, &j2, &A);
        assert_true(GN_(jac_eq)(&j1, &j2));
        /* jac vs xyzz vs batch affine */
        GN_(xyzz_t) x;
        GN_(xyzz_set_inf)(&x);
        GN_(xyzz_add_affine)(&x, &x, &A);
        GN_(xyzz_add_affine)(&x, &x, &B);
        GN_(xyzz_add_affine)(&x, &x, &C);
        GN_(xyzz_dbl)(&x, &x);
        GN_(jac_dbl)(&j1, &j1);
        GN_(xyzz_to_jac)(&j2, &x);
        assert_true(GN_(jac_eq)(&j1, &j2));
        /* P + (-P) = O in every representation */
        GN_(affine_neg)(&t, &A);
        GN_(xyzz_set_inf)(&x);
        GN_(xyzz_add_affine)(&x, &x, &A);
        GN_(xyzz_add_affine)(&x, &x, &t);
        assert_true(GN_(xyzz_is_inf)(&x));
        GN_(jac_from_affine)(&j1, &A);
        GN_(jac_add_affine)(&j1, &j1, &t);
        assert_true(GN_(jac_is_inf)(&j1));
        assert_true(GN_(affine_in_subgroup)(&A));
    }
    /* batch normalisation with infinities mixed in */
    enum { N = 9 };
    GN_(jac_t) in[N];
    GN_(affine_t) out[N], ref[N];
    GN_(jac_from_affine)(&j1, G);
    for (int i = 0; i < N; i++) {
        if (i % 3 == 1) {
            GN_(jac_set_inf)(&in[i]);
        } else {
            GN_(jac_dbl)(&j1, &j1);
            GN_(jac_add_affine)(&j1, &j1, G);
            in[i] = j1;
        }
        GN_(jac_to_affine)(&ref[i], &in[i]);
    }
    GN_(jac_batch_to_affine)(out, in, N);
    for (int i = 0; i < N; i++) {
        assert_true(GN_(affine_eq)(&out[i], &ref[i]));
        assert_true(GN_(affine_is_on_curve)(&out[i]));
    }
    GN_(jac_batch_to_affine)(out, in, 0);
}

static void GTT_(bench)(void)
{
    GN_(affine_t) P = GN_(GENERATOR);
    GN_(xyzz_t) x;
    GN_(jac_t) j;
    GN_(xyzz_set_inf)(&x);
    GN_(xyzz_add_affine)(&x, &x, &P);
    GN_(xyzz_dbl)(&x, &x);
    GN_(jac_from_affine)(&j, &P);
    GN_(jac_dbl)(&j, &j);
    const long n = 200000;
    double t0 = bench_clock();
    for (long i = 0; i < n; i++)
        GN_(xyzz_add_affine)(&x, &x, &P);
    double t1 = bench_clock();
    for (long i = 0; i < n; i++)
        GN_(jac_add_affine)(&j, &j, &P);
    double t2 = bench_clock();
    for (long i = 0; i < n; i++)
        GN_(jac_dbl)(&j, &j);
    double t3 = bench_clock();
    printf("bench %-14s xyzz_add_affine %7.1f ns  jac_add_affine %7.1f ns  jac_dbl %7.1f ns (%d)\n",
           CUZK_STR(GT), (t1 - t0) * 1e9 / n, (t2 - t1) * 1e9 / n, (t3 - t2) * 1e9 / n,
           GN_(xyzz_is_inf)(&x) + GN_(jac_is_inf)(&j));
}

#undef GN_
#undef GF_
#undef GP_
#undef GR_
#undef GTT_
#undef GT
#undef GT_F
#undef GT_FP
#undef GT_NTOK
#undef GT_FR
#undef GT_COFACTOR
