/* Test "template" for one prime field: include with FT (field prefix) and
 * FT_LIMBS defined; defines static test functions FT_t_<name>.
 * Checks against @noble/curves vectors, a naive reference for the constants,
 * and algebraic identities. */

#define FTN_(name) CUZK_NAME(FT, name)
#define FTT_(name) CUZK_NAME(FT, CUZK_CAT2(t_, name))

/* Deterministic element from the test PRNG (rejection sampling). */
static void FTT_(rand)(FTN_(t) *r, test_rng *g)
{
    for (;;) {
        FTN_(t) raw;
        for (int i = 0; i < FT_LIMBS; i++)
            raw.l[i] = rng_next(g);
        raw.l[FT_LIMBS - 1] &= (FTN_(BITS) % 64) ? ((1ULL << (FTN_(BITS) % 64)) - 1) : ~0ULL;
        if (FTN_(raw_is_canonical)(&raw)) {
            FTN_(to_mont)(r, &raw);
            return;
        }
    }
}

static void FTT_(assert_dec)(const FTN_(t) *a, const char *want, int lineno)
{
    char buf[200];
    assert_true(FTN_(to_dec)(buf, sizeof buf, a) > 0);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "%s line %d: got %s want %s\n", CUZK_STR(FT), lineno, buf, want);
        fail();
    }
}

static void FTT_(constants)(void **state)
{
    (void)state;
    const uint64_t *p = FTN_(MODULUS).l;
    /* p·INV = -1 mod 2^64 */
    assert_true((uint64_t)(p[0] * FTN_(INV)) == ~(uint64_t)0);
    /* BITS and the spare-bit assumptions of the Montgomery code */
    unsigned top = 64 - (unsigned)__builtin_clzll(p[FT_LIMBS - 1]);
    assert_int_equal(FTN_(BITS), 64 * (FT_LIMBS - 1) + top);
    assert_true(p[FT_LIMBS - 1] < 0x7fffffffffffffffULL);
    assert_true(FTN_(BITS) < 64u * FT_LIMBS);
    /* R mod p and R^2 mod p by naive repeated doubling from 1. */
    uint64_t x[FT_LIMBS] = {1};
    for (int step = 1; step <= 2 * 64 * FT_LIMBS; step++) {
        uint64_t t[FT_LIMBS];
        for (int i = FT_LIMBS - 1; i > 0; i--)
            t[i] = (x[i] << 1) | (x[i - 1] >> 63);
        t[0] = x[0] << 1;
        /* t < 2p (no overflow thanks to the spare bit): subtract p if t >= p */
        uint64_t s[FT_LIMBS], borrow = 0;
        for (int i = 0; i < FT_LIMBS; i++) {
            uint64_t d = t[i] - p[i];
            uint64_t b1 = t[i] < p[i];
            s[i] = d - borrow;
            borrow = b1 | (d < borrow);
        }
        for (int i = 0; i < FT_LIMBS; i++)
            x[i] = borrow ? t[i] : s[i];
        if (step == 64 * FT_LIMBS)
            assert_memory_equal(x, FTN_(ONE).l, sizeof x);
    }
    assert_memory_equal(x, FTN_(R2).l, sizeof x);
    /* ONE behaves as 1 */
    FTN_(t) one, five;
    FTN_(set_one)(&one);
    assert_true(FTN_(is_one)(&one));
    FTN_(from_u64)(&five, 5);
    FTT_(assert_dec)(&five, "5", 0);
    FTN_(t) raw;
    FTN_(from_mont)(&raw, &one);
    assert_true(raw.l[0] == 1);
    for (int i = 1; i < FT_LIMBS; i++)
        assert_true(raw.l[i] == 0);
}

static void FTT_(kat)(const char *file)
{
    kat_reader k;
    assert_int_equal(kat_open(&k, file), 0);
    int n = 0;
    while (kat_next(&k)) {
        const char *op = k.tok[0];
        FTN_(t) a, b, r, want;
        assert_true(FTN_(from_dec)(&a, k.tok[1]));
        if (!strcmp(op, "mul") || !strcmp(op, "add") || !strcmp(op, "sub")) {
            assert_true(FTN_(from_dec)(&b, k.tok[2]));
            if (op[0] == 'm')
                FTN_(mul)(&r, &a, &b);
            else if (op[0] == 'a')
                FTN_(add)(&r, &a, &b);
            else
                FTN_(sub)(&r, &a, &b);
            FTT_(assert_dec)(&r, k.tok[3], k.lineno);
            /* aliasing: r = a */
            FTN_(t) c = a;
            if (op[0] == 'm')
                FTN_(mul)(&c, &c, &b);
            else if (op[0] == 'a')
                FTN_(add)(&c, &c, &b);
            else
                FTN_(sub)(&c, &c, &b);
            assert_true(FTN_(eq)(&c, &r));
            if (op[0] == 'm' && FTN_(eq)(&a, &b)) {
                FTN_(sqr)(&c, &a);
                assert_true(FTN_(eq)(&c, &r));
            }
        } else if (!strcmp(op, "neg")) {
            FTN_(neg)(&r, &a);
            FTT_(assert_dec)(&r, k.tok[2], k.lineno);
        } else if (!strcmp(op, "inv")) {
            FTN_(inv)(&r, &a);
            FTT_(assert_dec)(&r, k.tok[2], k.lineno);
        } else if (!strcmp(op, "sqrt")) {
            bool ok = FTN_(sqrt)(&r, &a);
            if (!strcmp(k.tok[2], "none")) {
                assert_false(ok);
                assert_int_equal(FTN_(legendre)(&a), -1);
            } else {
                assert_true(ok);
                assert_true(FTN_(from_dec)(&want, k.tok[2]));
                FTN_(t) nr;
                FTN_(neg)(&nr, &r);
                assert_true(FTN_(eq)(&r, &want) || FTN_(eq)(&nr, &want));
                assert_int_equal(FTN_(legendre)(&a), FTN_(is_zero)(&a) ? 0 : 1);
            }
        } else if (!strcmp(op, "pow")) {
            uint64_t e[6];
            assert_true(cuzk_bn_from_dec(e, 6, k.tok[2]));
            FTN_(pow)(&r, &a, e, 6);
            FTT_(assert_dec)(&r, k.tok[3], k.lineno);
        } else {
            fprintf(stderr, "%s:%d unknown op %s\n", file, k.lineno, op);
            fail();
        }
        n++;
    }
    kat_close(&k);
    assert_true(n >= 50);
}

static void FTT_(props)(void **state)
{
    (void)state;
    test_rng g = {0x1234 + FT_LIMBS * 7 + FTN_(BITS)};
    FTN_(t) zero, one;
    FTN_(set_zero)(&zero);
    FTN_(set_one)(&one);
    for (int it = 0; it < 300; it++) {
        FTN_(t) a, b, c, x, y, z;
        FTT_(rand)(&a, &g);
        FTT_(rand)(&b, &g);
        FTT_(rand)(&c, &g);
        /* commutativity, associativity, distributivity */
        FTN_(mul)(&x, &a, &b);
        FTN_(mul)(&y, &b, &a);
        assert_true(FTN_(eq)(&x, &y));
        FTN_(mul)(&x, &x, &c);
        FTN_(mul)(&y, &b, &c);
        FTN_(mul)(&y, &a, &y);
        assert_true(FTN_(eq)(&x, &y));
        FTN_(add)(&x, &b, &c);
        FTN_(mul)(&x, &a, &x);
        FTN_(mul)(&y, &a, &b);
        FTN_(mul)(&z, &a, &c);
        FTN_(add)(&y, &y, &z);
        assert_true(FTN_(eq)(&x, &y));
        /* (a + b) - b = a, a + (-a) = 0, dbl, half */
        FTN_(add)(&x, &a, &b);
        FTN_(sub)(&x, &x, &b);
        assert_true(FTN_(eq)(&x, &a));
        FTN_(neg)(&x, &a);
        FTN_(add)(&x, &x, &a);
        assert_true(FTN_(is_zero)(&x));
        FTN_(dbl)(&x, &a);
        FTN_(add)(&y, &a, &a);
        assert_true(FTN_(eq)(&x, &y));
        FTN_(half)(&y, &x);
        assert_true(FTN_(eq)(&y, &a));
        FTN_(half)(&y, &a);
        FTN_(dbl)(&y, &y);
        assert_true(FTN_(eq)(&y, &a));
        /* sqr = mul, inverse */
        FTN_(sqr)(&x, &a);
        FTN_(mul)(&y, &a, &a);
        assert_true(FTN_(eq)(&x, &y));
        FTN_(inv)(&x, &a);
        FTN_(mul)(&x, &x, &a);
        assert_true(FTN_(is_one)(&x));
        /* sqrt of a square; Legendre agrees with sqrt */
        assert_true(FTN_(sqrt)(&x, &(FTN_(t)){{0}}));
        FTN_(sqr)(&x, &a);
        assert_true(FTN_(sqrt)(&y, &x));
        FTN_(sqr)(&y, &y);
        assert_true(FTN_(eq)(&x, &y));
        int leg = FTN_(legendre)(&b);
        bool has = FTN_(sqrt)(&y, &b);
        assert_int_equal(leg, has ? 1 : -1);
        if (has) {
            FTN_(sqr)(&y, &y);
            assert_true(FTN_(eq)(&y, &b));
        }
        /* mont round trip and byte round trip */
        FTN_(from_mont)(&x, &a);
        assert_true(FTN_(raw_is_canonical)(&x));
        FTN_(to_mont)(&y, &x);
        assert_true(FTN_(eq)(&y, &a));
        uint8_t bytes[FT_LIMBS * 8];
        FTN_(to_bytes_le)(bytes, &a);
        FTN_(from_bytes_le)(&y, bytes);
        assert_true(FTN_(eq)(&y, &a));
        assert_int_equal(bytes[0], (uint8_t)a.l[0]);
        assert_int_equal(bytes[9], (uint8_t)(a.l[1] >> 8));
        /* decimal round trip */
        char dec[200];
        assert_true(FTN_(to_dec)(dec, sizeof dec, &a) > 0);
        assert_true(FTN_(from_dec)(&y, dec));
        assert_true(FTN_(eq)(&y, &a));
    }
    /* edge cases */
    FTN_(t) x;
    FTN_(inv)(&x, &zero);
    assert_true(FTN_(is_zero)(&x));
    FTN_(neg)(&x, &zero);
    assert_true(FTN_(is_zero)(&x));
    assert_int_equal(FTN_(legendre)(&zero), 0);
    assert_int_equal(FTN_(legendre)(&one), 1);
    FTN_(t) m1;
    FTN_(neg)(&m1, &one);
    /* -1 is a non-residue iff p = 3 mod 4 */
    assert_int_equal(FTN_(legendre)(&m1), (FTN_(MODULUS).l[0] & 3) == 3 ? -1 : 1);
    uint64_t e0 = 0;
    FTN_(pow)(&x, &m1, &e0, 1);
    assert_true(FTN_(is_one)(&x));
    /* p - 1 + 1 = 0 */
    FTN_(add)(&x, &m1, &one);
    assert_true(FTN_(is_zero)(&x));
    FTN_(sub)(&x, &zero, &one);
    assert_true(FTN_(eq)(&x, &m1));
    /* Fermat: a^(p-1) = 1 */
    FTN_(t) a;
    FTT_(rand)(&a, &g);
    uint64_t pm1[FT_LIMBS];
    memcpy(pm1, FTN_(MODULUS).l, sizeof pm1);
    pm1[0] -= 1;
    FTN_(pow)(&x, &a, pm1, FT_LIMBS);
    assert_true(FTN_(is_one)(&x));
}

static void FTT_(batch)(void **state)
{
    (void)state;
    test_rng g = {99 + FTN_(BITS)};
    enum { N = 37 };
    FTN_(t) in[N], out[N], scratch[N], ref[N];
    for (int i = 0; i < N; i++) {
        if (i % 5 == 0)
            FTN_(set_zero)(&in[i]);
        else
            FTT_(rand)(&in[i], &g);
        FTN_(inv)(&ref[i], &in[i]);
    }
    FTN_(batch_inv)(out, in, N, scratch);
    for (int i = 0; i < N; i++)
        assert_true(FTN_(eq)(&out[i], &ref[i]));
    FTN_(batch_inv)(in, in, N, NULL); /* in place, internal scratch */
    for (int i = 0; i < N; i++)
        assert_true(FTN_(eq)(&in[i], &ref[i]));
    FTN_(batch_inv)(out, in, 0, NULL);
}

static void FTT_(conv)(void **state)
{
    (void)state;
    FTN_(t) x;
    /* rejected: empty, signs, spaces, non-digits, p, and overflow of the limbs */
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "1a", "0x10", "1.0",
        "99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(FTN_(from_dec)(&x, bad[i]));
    assert_false(FTN_(from_dec)(&x, NULL));
    char buf[200];
    assert_true(cuzk_bn_to_dec(buf, sizeof buf, FTN_(MODULUS).l, FT_LIMBS) > 0);
    assert_false(FTN_(from_dec)(&x, buf)); /* p itself is not canonical */
    assert_true(FTN_(from_dec)(&x, "000123"));
    FTT_(assert_dec)(&x, "123", 0);
    assert_true(FTN_(from_dec)(&x, "0"));
    assert_true(FTN_(is_zero)(&x));
    /* to_dec with a too-small buffer */
    FTN_(from_u64)(&x, 12345);
    assert_int_equal(FTN_(to_dec)(buf, 5, &x), -1);
    assert_int_equal(FTN_(to_dec)(buf, 6, &x), 5);
    assert_string_equal(buf, "12345");
    /* random produces canonical, distinct values */
    FTN_(t) r1, r2, raw;
    assert_true(FTN_(random)(&r1));
    assert_true(FTN_(random)(&r2));
    assert_false(FTN_(eq)(&r1, &r2));
    FTN_(from_mont)(&raw, &r1);
    assert_true(FTN_(raw_is_canonical)(&raw));
}

static void FTT_(bench)(void)
{
    test_rng g = {7};
    FTN_(t) a, b;
    FTT_(rand)(&a, &g);
    FTT_(rand)(&b, &g);
    const long n = 5000000;
    double t0 = bench_clock();
    for (long i = 0; i < n; i++)
        FTN_(mul)(&a, &a, &b);
    double t1 = bench_clock();
    for (long i = 0; i < n; i++)
        FTN_(sqr)(&b, &b);
    double t2 = bench_clock();
    for (long i = 0; i < n; i++)
        FTN_(add)(&a, &a, &b);
    double t3 = bench_clock();
    printf("bench %-14s mul %6.2f ns  sqr %6.2f ns  add %6.2f ns  (%lu)\n", CUZK_STR(FT),
           (t1 - t0) * 1e9 / n, (t2 - t1) * 1e9 / n, (t3 - t2) * 1e9 / n,
           (unsigned long)(a.l[0] ^ b.l[0]) & 1);
}

#undef FTN_
#undef FTT_
#undef FT
#undef FT_LIMBS
