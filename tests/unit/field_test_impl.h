/* Test "template" for one prime field: include with FT (field prefix) and
 * FT_LIMBS defined; defines static test functions FT_t_<name>.
 * Checks against @noble/curves vectors, a naive reference for the constants,
 * and algebraic identities. */

#define FT_(name) CUZK_NAME(FT, name)
#define FT_T_(name) CUZK_NAME(FT, CUZK_CAT2(t_, name))

#include "util/templates.h"
#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TEST_FIELD, CUZK_NAME(FT, P_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* Deterministic element from the test PRNG (rejection sampling). */
static void FT_T_(rand)(FT_(t) *r, test_rng *g)
{
    for (;;) {
        FT_(t) raw;
        for (int i = 0; i < FT_LIMBS; i++)
            raw.l[i] = rng_next(g);
        raw.l[FT_LIMBS - 1] &= (FT_(BITS) % 64) ? ((1ULL << (FT_(BITS) % 64)) - 1) : ~0ULL;
        if (FT_(raw_is_canonical)(&raw)) {
            FT_(to_mont)(r, &raw);
            return;
        }
    }
}

static void FT_T_(assert_dec)(const FT_(t) *a, const char *want, int lineno)
{
    char buf[200];
    assert_true(FT_(to_dec)(buf, sizeof buf, a) > 0);
    if (strcmp(buf, want) != 0) {
        fprintf(stderr, "%s line %d: got %s want %s\n", CUZK_STR(FT), lineno, buf, want);
        fail();
    }
}

static void FT_T_(constants)(void **state)
{
    (void)state;
    const uint64_t *p = FT_(MODULUS).l;
    /* p·INV = -1 mod 2^64 */
    assert_true((uint64_t)(p[0] * FT_(INV)) == ~(uint64_t)0);
    /* BITS and the spare-bit assumptions of the Montgomery code */
    unsigned top = 64 - (unsigned)__builtin_clzll(p[FT_LIMBS - 1]);
    assert_int_equal(FT_(BITS), 64 * (FT_LIMBS - 1) + top);
    assert_true(p[FT_LIMBS - 1] < 0x7fffffffffffffffULL);
    assert_true(FT_(BITS) < 64u * FT_LIMBS);
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
            assert_memory_equal(x, FT_(ONE).l, sizeof x);
    }
    assert_memory_equal(x, FT_(R2).l, sizeof x);
    /* ONE behaves as 1 */
    FT_(t) one, five;
    FT_(set_one)(&one);
    assert_true(FT_(is_one)(&one));
    FT_(from_u64)(&five, 5);
    FT_T_(assert_dec)(&five, "5", 0);
    FT_(t) raw;
    FT_(from_mont)(&raw, &one);
    assert_true(raw.l[0] == 1);
    for (int i = 1; i < FT_LIMBS; i++)
        assert_true(raw.l[i] == 0);
}

static void FT_T_(kat)(const char *file)
{
    kat_reader k;
    assert_int_equal(kat_open(&k, file), 0);
    int n = 0;
    while (kat_next(&k)) {
        const char *op = k.tok[0];
        FT_(t) a, b, r, want;
        assert_true(FT_(from_dec)(&a, k.tok[1]));
        if (!strcmp(op, "mul") || !strcmp(op, "add") || !strcmp(op, "sub")) {
            assert_true(FT_(from_dec)(&b, k.tok[2]));
            if (op[0] == 'm')
                FT_(mul)(&r, &a, &b);
            else if (op[0] == 'a')
                FT_(add)(&r, &a, &b);
            else
                FT_(sub)(&r, &a, &b);
            FT_T_(assert_dec)(&r, k.tok[3], k.lineno);
            /* aliasing: r = a */
            FT_(t) c = a;
            if (op[0] == 'm')
                FT_(mul)(&c, &c, &b);
            else if (op[0] == 'a')
                FT_(add)(&c, &c, &b);
            else
                FT_(sub)(&c, &c, &b);
            assert_true(FT_(eq)(&c, &r));
            if (op[0] == 'm' && FT_(eq)(&a, &b)) {
                FT_(sqr)(&c, &a);
                assert_true(FT_(eq)(&c, &r));
            }
        } else if (!strcmp(op, "neg")) {
            FT_(neg)(&r, &a);
            FT_T_(assert_dec)(&r, k.tok[2], k.lineno);
        } else if (!strcmp(op, "inv")) {
            FT_(inv)(&r, &a);
            FT_T_(assert_dec)(&r, k.tok[2], k.lineno);
        } else if (!strcmp(op, "sqrt")) {
            bool ok = FT_(sqrt)(&r, &a);
            if (!strcmp(k.tok[2], "none")) {
                assert_false(ok);
                assert_int_equal(FT_(legendre)(&a), -1);
            } else {
                assert_true(ok);
                assert_true(FT_(from_dec)(&want, k.tok[2]));
                FT_(t) nr;
                FT_(neg)(&nr, &r);
                assert_true(FT_(eq)(&r, &want) || FT_(eq)(&nr, &want));
                assert_int_equal(FT_(legendre)(&a), FT_(is_zero)(&a) ? 0 : 1);
            }
        } else if (!strcmp(op, "pow")) {
            uint64_t e[6];
            assert_true(cuzk_bn_from_dec(e, 6, k.tok[2]));
            FT_(pow)(&r, &a, e, 6);
            FT_T_(assert_dec)(&r, k.tok[3], k.lineno);
        } else {
            fprintf(stderr, "%s:%d unknown op %s\n", file, k.lineno, op);
            fail();
        }
        n++;
    }
    kat_close(&k);
    assert_true(n >= 50);
}

static void FT_T_(props)(void **state)
{
    (void)state;
    test_rng g = {0x1234 + FT_LIMBS * 7 + FT_(BITS)};
    FT_(t) zero, one;
    FT_(set_zero)(&zero);
    FT_(set_one)(&one);
    for (int it = 0; it < 300; it++) {
        FT_(t) a, b, c, x, y, z;
        FT_T_(rand)(&a, &g);
        FT_T_(rand)(&b, &g);
        FT_T_(rand)(&c, &g);
        /* commutativity, associativity, distributivity */
        FT_(mul)(&x, &a, &b);
        FT_(mul)(&y, &b, &a);
        assert_true(FT_(eq)(&x, &y));
        FT_(mul)(&x, &x, &c);
        FT_(mul)(&y, &b, &c);
        FT_(mul)(&y, &a, &y);
        assert_true(FT_(eq)(&x, &y));
        FT_(add)(&x, &b, &c);
        FT_(mul)(&x, &a, &x);
        FT_(mul)(&y, &a, &b);
        FT_(mul)(&z, &a, &c);
        FT_(add)(&y, &y, &z);
        assert_true(FT_(eq)(&x, &y));
        /* (a + b) - b = a, a + (-a) = 0, dbl, half */
        FT_(add)(&x, &a, &b);
        FT_(sub)(&x, &x, &b);
        assert_true(FT_(eq)(&x, &a));
        FT_(neg)(&x, &a);
        FT_(add)(&x, &x, &a);
        assert_true(FT_(is_zero)(&x));
        FT_(dbl)(&x, &a);
        FT_(add)(&y, &a, &a);
        assert_true(FT_(eq)(&x, &y));
        FT_(half)(&y, &x);
        assert_true(FT_(eq)(&y, &a));
        FT_(half)(&y, &a);
        FT_(dbl)(&y, &y);
        assert_true(FT_(eq)(&y, &a));
        /* sqr = mul, inverse */
        FT_(sqr)(&x, &a);
        FT_(mul)(&y, &a, &a);
        assert_true(FT_(eq)(&x, &y));
        FT_(inv)(&x, &a);
        FT_(mul)(&x, &x, &a);
        assert_true(FT_(is_one)(&x));
        /* sqrt of a square; Legendre agrees with sqrt */
        assert_true(FT_(sqrt)(&x, &(FT_(t)){{0}}));
        FT_(sqr)(&x, &a);
        assert_true(FT_(sqrt)(&y, &x));
        FT_(sqr)(&y, &y);
        assert_true(FT_(eq)(&x, &y));
        int leg = FT_(legendre)(&b);
        bool has = FT_(sqrt)(&y, &b);
        assert_int_equal(leg, has ? 1 : -1);
        if (has) {
            FT_(sqr)(&y, &y);
            assert_true(FT_(eq)(&y, &b));
        }
        /* mont round trip and byte round trip */
        FT_(from_mont)(&x, &a);
        assert_true(FT_(raw_is_canonical)(&x));
        FT_(to_mont)(&y, &x);
        assert_true(FT_(eq)(&y, &a));
        uint8_t bytes[FT_LIMBS * 8];
        FT_(to_bytes_le)(bytes, &a);
        FT_(from_bytes_le)(&y, bytes);
        assert_true(FT_(eq)(&y, &a));
        assert_int_equal(bytes[0], (uint8_t)a.l[0]);
        assert_int_equal(bytes[9], (uint8_t)(a.l[1] >> 8));
        /* decimal round trip */
        char dec[200];
        assert_true(FT_(to_dec)(dec, sizeof dec, &a) > 0);
        assert_true(FT_(from_dec)(&y, dec));
        assert_true(FT_(eq)(&y, &a));
    }
    /* edge cases */
    FT_(t) x;
    FT_(inv)(&x, &zero);
    assert_true(FT_(is_zero)(&x));
    FT_(neg)(&x, &zero);
    assert_true(FT_(is_zero)(&x));
    assert_int_equal(FT_(legendre)(&zero), 0);
    assert_int_equal(FT_(legendre)(&one), 1);
    FT_(t) m1;
    FT_(neg)(&m1, &one);
    /* -1 is a non-residue iff p = 3 mod 4 */
    assert_int_equal(FT_(legendre)(&m1), (FT_(MODULUS).l[0] & 3) == 3 ? -1 : 1);
    uint64_t e0 = 0;
    FT_(pow)(&x, &m1, &e0, 1);
    assert_true(FT_(is_one)(&x));
    /* p - 1 + 1 = 0 */
    FT_(add)(&x, &m1, &one);
    assert_true(FT_(is_zero)(&x));
    FT_(sub)(&x, &zero, &one);
    assert_true(FT_(eq)(&x, &m1));
    /* Fermat: a^(p-1) = 1 */
    FT_(t) a;
    FT_T_(rand)(&a, &g);
    uint64_t pm1[FT_LIMBS];
    memcpy(pm1, FT_(MODULUS).l, sizeof pm1);
    pm1[0] -= 1;
    FT_(pow)(&x, &a, pm1, FT_LIMBS);
    assert_true(FT_(is_one)(&x));
}

static void FT_T_(batch)(void **state)
{
    (void)state;
    test_rng g = {99 + FT_(BITS)};
    enum { N = 37 };
    FT_(t) in[N], out[N], scratch[N], ref[N];
    for (int i = 0; i < N; i++) {
        if (i % 5 == 0)
            FT_(set_zero)(&in[i]);
        else
            FT_T_(rand)(&in[i], &g);
        FT_(inv)(&ref[i], &in[i]);
    }
    FT_(batch_inv)(out, in, N, scratch);
    for (int i = 0; i < N; i++)
        assert_true(FT_(eq)(&out[i], &ref[i]));
    FT_(batch_inv)(in, in, N, NULL); /* in place, internal scratch */
    for (int i = 0; i < N; i++)
        assert_true(FT_(eq)(&in[i], &ref[i]));
    FT_(batch_inv)(out, in, 0, NULL);
}

static void FT_T_(conv)(void **state)
{
    (void)state;
    FT_(t) x;
    /* rejected: empty, signs, spaces, non-digits, p, and overflow of the limbs */
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "1a", "0x10", "1.0",
        "99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(FT_(from_dec)(&x, bad[i]));
    assert_false(FT_(from_dec)(&x, NULL));
    char buf[200];
    assert_true(cuzk_bn_to_dec(buf, sizeof buf, FT_(MODULUS).l, FT_LIMBS) > 0);
    assert_false(FT_(from_dec)(&x, buf)); /* p itself is not canonical */
    assert_true(FT_(from_dec)(&x, "000123"));
    FT_T_(assert_dec)(&x, "123", 0);
    assert_true(FT_(from_dec)(&x, "0"));
    assert_true(FT_(is_zero)(&x));
    /* to_dec with a too-small buffer */
    FT_(from_u64)(&x, 12345);
    assert_int_equal(FT_(to_dec)(buf, 5, &x), -1);
    assert_int_equal(FT_(to_dec)(buf, 6, &x), 5);
    assert_string_equal(buf, "12345");
    /* random produces canonical, distinct values */
    FT_(t) r1, r2, raw;
    assert_true(FT_(random)(&r1));
    assert_true(FT_(random)(&r2));
    assert_false(FT_(eq)(&r1, &r2));
    FT_(from_mont)(&raw, &r1);
    assert_true(FT_(raw_is_canonical)(&raw));
}

#endif /* per-instance guard */

#undef FT_
#undef FT_T_
#undef FT
#undef FT_LIMBS
