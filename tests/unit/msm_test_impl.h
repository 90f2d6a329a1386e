/* Group-generic MSM tests, included once per group by test_msm.c with
 *   #define TG bn254_g1   (group prefix)
 *   #define TF bn254_fr   (scalar field prefix)
 * The reference is independent of the MSM code: a plain sum of the curve's
 * own jac_mul (double-and-add) products; larger sizes compare different
 * window sizes / splits / fast-path settings against each other. */

#define TG_(name) CUZK_NAME(TG, name)
#define TG_FR_(name) CUZK_NAME(TF, name)
#define TG_T_(name) CUZK_NAME(TG, CUZK_CAT2(t_, name))

#include "util/templates.h"
#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TEST_MSM, CUZK_NAME(TG, C_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* Uniform raw scalar in [0, r) (rejection sampling on the bit length). */
static void TG_T_(rnd_scalar)(TG_FR_(t) *s, uint64_t *st)
{
    unsigned bits = TG_FR_(BITS);
    for (;;) {
        for (int i = 0; i < 4; i++)
            s->l[i] = cuzk_splitmix64(st);
        if (bits < 256)
            s->l[bits / 64] &= ((uint64_t)1 << (bits % 64)) - 1;
        for (unsigned i = bits / 64 + 1; i < 4; i++)
            s->l[i] = 0;
        if (TG_FR_(raw_is_canonical)(s))
            return;
    }
}

static void TG_T_(small_scalar)(TG_FR_(t) *s, uint64_t v)
{
    memset(s, 0, sizeof *s);
    s->l[0] = v;
}

/* r - k (raw). */
static void TG_T_(r_minus)(TG_FR_(t) *s, uint64_t k)
{
    *s = TG_FR_(MODULUS);
    uint64_t borrow = k;
    for (int i = 0; i < 4 && borrow; i++) {
        uint64_t old = s->l[i];
        s->l[i] = old - borrow;
        borrow = old < borrow;
    }
}

/* n distinct-ish points: random multiples of the generator, some repeats. */
static void TG_T_(rnd_points)(TG_(affine_t) *out, size_t n, uint64_t *st)
{
    TG_(jac_t) *j = malloc((n ? n : 1) * sizeof *j);
    assert_non_null(j);
    TG_(jac_t) step, cur;
    TG_FR_(t) k;
    TG_T_(rnd_scalar)(&k, st);
    TG_(affine_mul)(&step, &TG_(GENERATOR), k.l, 4);
    TG_T_(rnd_scalar)(&k, st);
    TG_(affine_mul)(&cur, &TG_(GENERATOR), k.l, 4);
    for (size_t i = 0; i < n; i++) {
        /* cheap walk; every 17th point is a fresh random multiple */
        if (i % 17 == 16) {
            TG_T_(rnd_scalar)(&k, st);
            TG_(affine_mul)(&cur, &TG_(GENERATOR), k.l, 4);
        } else {
            TG_(jac_add)(&cur, &cur, &step);
        }
        j[i] = cur;
    }
    TG_(jac_batch_to_affine)(out, j, n);
    free(j);
}

static void TG_T_(naive)(TG_(jac_t) *r, const TG_(affine_t) *b, const TG_FR_(t) *s, size_t n)
{
    TG_(jac_set_inf)(r);
    for (size_t i = 0; i < n; i++) {
        TG_(jac_t) t;
        TG_(affine_mul)(&t, &b[i], s[i].l, 4);
        TG_(jac_add)(r, r, &t);
    }
}

static void TG_T_(check)(const TG_(affine_t) *b, const TG_FR_(t) *s, size_t n, cuzk_pool *pool, const TG_(jac_t) *expect)
{
    TG_(jac_t) got;
    cuzk_error err = {0};
    assert_int_equal(TG_(msm)(&got, b, s, n, pool, &err), CUZK_OK);
    if (!TG_(jac_eq)(&got, expect))
        fail_msg("msm mismatch, n = %zu", n);
    /* serial, and without the 0/1 fast path */
    cuzk_msm_opts o = {0, 0, true, false};
    assert_int_equal(TG_(msm_opts)(&got, b, s, n, &o, NULL, &err), CUZK_OK);
    if (!TG_(jac_eq)(&got, expect))
        fail_msg("msm (no fast path, serial) mismatch, n = %zu", n);
    /* both bucket kernels at a window where the batch-affine one applies */
    cuzk_msm_opts oa = {CUZK_MSM_AFFINE_MIN_C, 2, false, false};
    assert_int_equal(TG_(msm_opts)(&got, b, s, n, &oa, pool, &err), CUZK_OK);
    if (!TG_(jac_eq)(&got, expect))
        fail_msg("msm (batch-affine, c=%u) mismatch, n = %zu", oa.c, n);
    cuzk_msm_opts ox = {CUZK_MSM_AFFINE_MIN_C + 1, 1, false, true};
    assert_int_equal(TG_(msm_opts)(&got, b, s, n, &ox, pool, &err), CUZK_OK);
    if (!TG_(jac_eq)(&got, expect))
        fail_msg("msm (XYZZ, c=%u) mismatch, n = %zu", ox.c, n);
}

static void TG_T_(test_random_small)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t st = 0xabcdef ^ sizeof(TG_(affine_t));
    const size_t max_n = 300;
    TG_(affine_t) *b = malloc(max_n * sizeof *b);
    TG_FR_(t) *s = malloc(max_n * sizeof *s);
    TG_T_(rnd_points)(b, max_n, &st);
    /* sizes: a few fixed edge sizes plus random ones in 1..300 */
    size_t sizes[8] = {1, 2, 3, 31, 0, 0, 0, 300};
    for (int i = 4; i < 7; i++)
        sizes[i] = 1 + (size_t)(cuzk_splitmix64(&st) % max_n);
    int nsizes = sizeof(TG_(affine_t)) > 200 ? 6 : 8; /* BLS12-381 G2 is slow in the naive reference */
    for (int si = 0; si < nsizes; si++) {
        size_t n = sizes[si];
        for (size_t i = 0; i < n; i++)
            TG_T_(rnd_scalar)(&s[i], &st);
        TG_(jac_t) ref;
        TG_T_(naive)(&ref, b, s, n);
        TG_T_(check)(b, s, n, pool, &ref);
    }
    free(b);
    free(s);
}

static void TG_T_(test_edges)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t st = 777;
    const size_t n = 64;
    TG_(affine_t) b[64];
    TG_FR_(t) s[64];
    TG_(jac_t) ref, got;
    cuzk_error err = {0};
    TG_T_(rnd_points)(b, n, &st);

    /* n = 0 */
    assert_int_equal(TG_(msm)(&got, b, s, 0, pool, &err), CUZK_OK);
    assert_true(TG_(jac_is_inf)(&got));

    /* all-zero scalars */
    memset(s, 0, sizeof s);
    assert_int_equal(TG_(msm)(&got, b, s, n, pool, &err), CUZK_OK);
    assert_true(TG_(jac_is_inf)(&got));

    /* all ones: plain sum */
    TG_(jac_set_inf)(&ref);
    for (size_t i = 0; i < n; i++) {
        TG_T_(small_scalar)(&s[i], 1);
        TG_(jac_add_affine)(&ref, &ref, &b[i]);
    }
    TG_T_(check)(b, s, n, pool, &ref);

    /* n = 1 with scalar r-1: -P */
    TG_T_(r_minus)(&s[0], 1);
    TG_(affine_t) neg;
    TG_(affine_neg)(&neg, &b[0]);
    TG_(jac_from_affine)(&ref, &neg);
    TG_T_(check)(b, s, 1, pool, &ref);

    /* scalars r-1, r-2, 2^k - 1 patterns, small values, against the naive sum */
    for (size_t i = 0; i < n; i++) {
        switch (i % 6) {
        case 0: TG_T_(r_minus)(&s[i], 1 + i); break;
        case 1: TG_T_(small_scalar)(&s[i], (uint64_t)i * 0x10001); break;
        case 2: /* all-ones below bit 250: long digit carry chains */
            memset(&s[i], 0xff, sizeof s[i]);
            s[i].l[3] = ((uint64_t)1 << 58) - 1;
            break;
        case 3: TG_T_(small_scalar)(&s[i], 2); break;
        default: TG_T_(rnd_scalar)(&s[i], &st); break;
        }
    }
    TG_T_(naive)(&ref, b, s, n);
    TG_T_(check)(b, s, n, pool, &ref);

    /* repeated bases (buckets hit P + P and P + (-P)) */
    TG_(affine_t) rb[64];
    for (size_t i = 0; i < n; i++)
        rb[i] = b[i % 3];
    for (size_t i = 0; i < n; i++)
        TG_T_(rnd_scalar)(&s[i], &st);
    s[1] = s[0]; /* same base (b[0] vs b[1] differ; make exact duplicates too) */
    rb[1] = rb[0];
    TG_T_(naive)(&ref, rb, s, n);
    TG_T_(check)(rb, s, n, pool, &ref);
    /* P and -P with equal scalars cancel */
    TG_(affine_t) pm[2];
    TG_FR_(t) ps[2];
    pm[0] = b[5];
    TG_(affine_neg)(&pm[1], &b[5]);
    TG_T_(rnd_scalar)(&ps[0], &st);
    ps[1] = ps[0];
    assert_int_equal(TG_(msm)(&got, pm, ps, 2, pool, &err), CUZK_OK);
    assert_true(TG_(jac_is_inf)(&got));

    /* many equal digits: every point of a batch-affine batch hits the same
     * bucket (conflict FIFO overflows), on distinct and on repeated bases */
    {
        const size_t nn = 700;
        TG_(affine_t) *bb = malloc(nn * sizeof *bb);
        TG_FR_(t) *ss = malloc(nn * sizeof *ss);
        TG_T_(rnd_points)(bb, nn, &st);
        TG_FR_(t) one_val;
        TG_T_(rnd_scalar)(&one_val, &st);
        for (size_t i = 0; i < nn; i++)
            ss[i] = one_val;
        TG_(jac_t) sref;
        TG_(jac_set_inf)(&sref);
        for (size_t i = 0; i < nn; i++)
            TG_(jac_add_affine)(&sref, &sref, &bb[i]);
        TG_(jac_mul)(&sref, &sref, one_val.l, 4);
        TG_T_(check)(bb, ss, nn, pool, &sref);
        for (size_t i = 0; i < nn; i++)
            bb[i] = b[i % 2];
        TG_(jac_set_inf)(&sref);
        for (size_t i = 0; i < nn; i++)
            TG_(jac_add_affine)(&sref, &sref, &bb[i]);
        TG_(jac_mul)(&sref, &sref, one_val.l, 4);
        TG_T_(check)(bb, ss, nn, pool, &sref);
        free(bb);
        free(ss);
    }

    /* infinity among the bases contributes nothing */
    for (size_t i = 0; i < n; i += 4)
        TG_(affine_set_inf)(&rb[i]);
    for (size_t i = 0; i < n; i++) {
        if (i % 8 == 1)
            TG_T_(small_scalar)(&s[i], 1);
        else
            TG_T_(rnd_scalar)(&s[i], &st);
    }
    TG_T_(small_scalar)(&s[0], 1); /* inf with scalar 1 in the fast path */
    TG_T_(naive)(&ref, rb, s, n);
    TG_T_(check)(rb, s, n, pool, &ref);
    TG_(affine_t) allinf[5];
    for (int i = 0; i < 5; i++) {
        TG_(affine_set_inf)(&allinf[i]);
        TG_T_(rnd_scalar)(&s[i], &st);
    }
    assert_int_equal(TG_(msm)(&got, allinf, s, 5, pool, &err), CUZK_OK);
    assert_true(TG_(jac_is_inf)(&got));

    /* NULL inputs with n > 0 are a usage error */
    assert_int_equal(TG_(msm)(&got, NULL, s, 3, pool, &err), CUZK_ERR_USAGE);
}

/* Witness-like mix (50% zero, 40% one, 10% random) against the naive sum. */
static void TG_T_(test_witness_mix)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t st = 31337;
    const size_t n = sizeof(TG_(affine_t)) > 200 ? 200 : 500;
    TG_(affine_t) *b = malloc(n * sizeof *b);
    TG_FR_(t) *s = malloc(n * sizeof *s);
    TG_T_(rnd_points)(b, n, &st);
    for (size_t i = 0; i < n; i++) {
        uint64_t u = cuzk_splitmix64(&st) % 10;
        if (u < 5)
            TG_T_(small_scalar)(&s[i], 0);
        else if (u < 9)
            TG_T_(small_scalar)(&s[i], 1);
        else
            TG_T_(rnd_scalar)(&s[i], &st);
    }
    TG_(jac_t) ref;
    TG_T_(naive)(&ref, b, s, n);
    TG_T_(check)(b, s, n, pool, &ref);
    /* With small (< 2^64) scalars, which take their own Pippenger pass:
     * random 64-bit values, 2^64 - 1, and a few repeated tiny values (many
     * additions into the same buckets: conflicts in the batch-affine kernel
     * and leftovers at the end of a task). */
    for (size_t i = 0; i < n; i++) {
        uint64_t u = cuzk_splitmix64(&st) % 10;
        if (u < 3)
            TG_T_(small_scalar)(&s[i], u == 0 ? 0 : 1);
        else if (u < 5)
            TG_T_(small_scalar)(&s[i], cuzk_splitmix64(&st) | 2);
        else if (u == 5)
            TG_T_(small_scalar)(&s[i], ~(uint64_t)0);
        else if (u < 9)
            TG_T_(small_scalar)(&s[i], 2 + cuzk_splitmix64(&st) % 3);
        else
            TG_T_(rnd_scalar)(&s[i], &st);
    }
    TG_T_(naive)(&ref, b, s, n);
    TG_T_(check)(b, s, n, pool, &ref);
    free(b);
    free(s);
}

/* Larger sizes: different windows / splits / fast path must agree, and a
 * linearity identity msm(b, s + t) = msm(b, s) + msm(b, t) (mod r) holds. */
static void TG_T_(test_large_consistency)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t st = 2024;
    const size_t n = sizeof(TG_(affine_t)) > 100 ? 600 : 4096; /* G2 is ~3x slower */
    TG_(affine_t) *b = malloc(n * sizeof *b);
    TG_FR_(t) *s = malloc(n * sizeof *s);
    TG_T_(rnd_points)(b, n, &st);
    for (size_t i = 0; i < n; i++) {
        if (i % 10 == 3)
            TG_T_(small_scalar)(&s[i], 1);
        else if (i % 10 == 7)
            TG_T_(small_scalar)(&s[i], 0);
        else
            TG_T_(rnd_scalar)(&s[i], &st);
    }
    TG_(jac_t) ref, got;
    cuzk_error err = {0};
    assert_int_equal(TG_(msm)(&ref, b, s, n, pool, &err), CUZK_OK);
    /* Big windows cost 2^c additions per task in the bucket reduction, so G2
     * (about 3x dearer per operation) gets smaller ones. */
    const cuzk_msm_opts variants_g1[] = {
        {3, 1, false, false}, {7, 3, false, false}, {11, 1, true, false},
        {13, 5, true, true},  {16, 1, false, false}, {0, 7, false, false},
    };
    const cuzk_msm_opts variants_g2[] = {
        {3, 1, false, false}, {5, 3, false, false}, {8, 1, true, false},
        {10, 2, true, false}, {0, 7, false, false}, {11, 1, false, true},
    };
    const cuzk_msm_opts *variants = sizeof(TG_(affine_t)) > 100 ? variants_g2 : variants_g1;
    for (size_t v = 0; v < 6; v++) {
        assert_int_equal(TG_(msm_opts)(&got, b, s, n, &variants[v], pool, &err), CUZK_OK);
        if (!TG_(jac_eq)(&got, &ref))
            fail_msg("variant %zu (c=%u, splits=%u) disagrees", v, variants[v].c,
                     variants[v].splits);
    }
    /* linearity: s = s1 + s2 mod r with s1 random (Montgomery arithmetic on
     * the raw values is fine for addition: (a+b) mod r either way) */
    TG_FR_(t) *s1 = malloc(n * sizeof *s1), *s2 = malloc(n * sizeof *s2);
    for (size_t i = 0; i < n; i++) {
        TG_T_(rnd_scalar)(&s1[i], &st);
        TG_FR_(sub)(&s2[i], &s[i], &s1[i]);
    }
    TG_(jac_t) a1, a2;
    assert_int_equal(TG_(msm)(&a1, b, s1, n, pool, &err), CUZK_OK);
    assert_int_equal(TG_(msm)(&a2, b, s2, n, pool, &err), CUZK_OK);
    TG_(jac_add)(&a1, &a1, &a2);
    assert_true(TG_(jac_eq)(&a1, &ref));
    free(s1);
    free(s2);
    free(b);
    free(s);
}

static void TG_T_(test_fixed)(void **state)
{
    cuzk_pool *pool = *state;
    uint64_t st = 99;
    const size_t n = 700; /* > one sub-batch per worker */
    TG_(affine_t) base;
    TG_T_(rnd_points)(&base, 1, &st);
    TG_FR_(t) *s = malloc(n * sizeof *s);
    TG_(affine_t) *out = malloc(n * sizeof *out);
    for (size_t i = 0; i < n; i++) {
        if (i == 0)
            TG_T_(small_scalar)(&s[i], 0);
        else if (i == 1)
            TG_T_(small_scalar)(&s[i], 1);
        else if (i == 2)
            TG_T_(r_minus)(&s[i], 1);
        else
            TG_T_(rnd_scalar)(&s[i], &st);
    }
    cuzk_error err = {0};
    assert_int_equal(TG_(batch_mul_fixed)(out, &base, s, n, pool, &err), CUZK_OK);
    for (size_t i = 0; i < n; i += (i < 40 ? 1 : 23)) {
        TG_(jac_t) r, o;
        TG_(affine_mul)(&r, &base, s[i].l, 4);
        TG_(jac_from_affine)(&o, &out[i]);
        if (!TG_(jac_eq)(&r, &o))
            fail_msg("batch_mul_fixed mismatch at %zu", i);
    }
    assert_true(TG_(affine_is_inf)(&out[0]));
    assert_true(TG_(affine_eq)(&out[1], &base));
    /* infinity base */
    TG_(affine_t) inf;
    TG_(affine_set_inf)(&inf);
    assert_int_equal(TG_(batch_mul_fixed)(out, &inf, s, 10, pool, &err), CUZK_OK);
    for (int i = 0; i < 10; i++)
        assert_true(TG_(affine_is_inf)(&out[i]));
    free(s);
    free(out);
}

#endif /* per-instance guard */

#undef TG_
#undef TG_FR_
#undef TG_T_
#undef TG
#undef TF
