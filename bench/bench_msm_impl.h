/* MSM / fixed-base benchmarks for one group (included by bench_cpu.c with
 * BG = group prefix, BF = scalar field prefix). */
#define BG_(name) CUZK_NAME(BG, name)
#define BF_(name) CUZK_NAME(BF, name)
#define BL_(name) CUZK_NAME(BG, CUZK_CAT2(bench_, name))

typedef struct {
    BG_(affine_t) *out;
    BG_(jac_t) p0, q;
} BL_(gen_ctx);

/* out[i] = affine(P0 + i·Q), one walk per chunk, normalised per chunk. */
static void BL_(gen_task)(void *vctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    BL_(gen_ctx) *c = vctx;
    enum { SUB = 1024 };
    BG_(jac_t) buf[SUB];
    BG_(jac_t) cur;
    uint64_t k = begin;
    BG_(jac_mul)(&cur, &c->q, &k, 1);
    BG_(jac_add)(&cur, &cur, &c->p0);
    for (size_t s0 = begin; s0 < end; s0 += SUB) {
        size_t len = CUZK_MIN((size_t)SUB, end - s0);
        for (size_t j = 0; j < len; j++) {
            buf[j] = cur;
            BG_(jac_add)(&cur, &cur, &c->q);
        }
        BG_(jac_batch_to_affine)(c->out + s0, buf, len);
    }
}

static void BL_(rnd_scalar)(BF_(t) *s, uint64_t *st)
{
    unsigned bits = BF_(BITS);
    do {
        for (int i = 0; i < 4; i++)
            s->l[i] = cuzk_splitmix64(st);
        s->l[bits / 64] &= ((uint64_t)1 << (bits % 64)) - 1;
    } while (!BF_(raw_is_canonical)(s));
}

static BG_(affine_t) *BL_(points)(size_t n, cuzk_pool *pool)
{
    BG_(affine_t) *b = cuzk_alloc(n, sizeof *b);
    if (!b)
        return NULL;
    BL_(gen_ctx) c;
    c.out = b;
    uint64_t k1 = 0x1234567, k2 = 0x89abcdef12345ULL;
    BG_(affine_mul)(&c.p0, &BG_(GENERATOR), &k1, 1);
    BG_(affine_mul)(&c.q, &BG_(GENERATOR), &k2, 1);
    cuzk_parallel_for(pool, n, 1 << 14, BL_(gen_task), &c);
    return b;
}

static int CUZK_CAT2(bench_msm_, BG)(const bench_opts *o, cuzk_pool *pool)
{
    size_t nmax = (size_t)1 << o->msm_max;
    BG_(affine_t) *b = BL_(points)(nmax, pool);
    BF_(t) *su = cuzk_alloc(nmax, sizeof *su), *sw = cuzk_alloc(nmax, sizeof *sw);
    if (!b || !su || !sw) {
        fprintf(stderr, "out of memory (2^%u points)\n", o->msm_max);
        return 1;
    }
    uint64_t st = 7;
    for (size_t i = 0; i < nmax; i++) {
        BL_(rnd_scalar)(&su[i], &st);
        uint64_t u = cuzk_splitmix64(&st) % 10;
        memset(&sw[i], 0, sizeof sw[i]);
        if (u >= 5 && u < 9)
            sw[i].l[0] = 1;
        else if (u >= 9)
            BL_(rnd_scalar)(&sw[i], &st);
    }
    for (unsigned L = o->msm_min; L <= o->msm_max; L++) {
        size_t n = (size_t)1 << L;
        double best_u = 1e30, best_w = 1e30;
        cuzk_error e = {0};
        BG_(jac_t) r;
        for (int rep = 0; rep < o->reps; rep++) {
            double t0 = bench_now();
            cuzk_msm_opts mo;
            memset(&mo, 0, sizeof mo);
            mo.c = o->c;
            if (BG_(msm_opts)(&r, b, su, n, o->c ? &mo : NULL, pool, &e) != CUZK_OK) {
                fprintf(stderr, "%s\n", e.msg);
                return 1;
            }
            double t1 = bench_now();
            if (BG_(msm_opts)(&r, b, sw, n, o->c ? &mo : NULL, pool, &e) != CUZK_OK) {
                fprintf(stderr, "%s\n", e.msg);
                return 1;
            }
            double t2 = bench_now();
            best_u = CUZK_MIN(best_u, t1 - t0);
            best_w = CUZK_MIN(best_w, t2 - t1);
        }
        cuzk_msm_plan p;
        BG_(msm_plan)(&p, n, cuzk_pool_size(pool));
        if (o->c)
            p.c = o->c, p.windows = (BF_(BITS) + 1 + o->c - 1) / o->c;
        printf("%-13s %5u %11.2f %9.1f %12.2f %9.1f %u x %u x %u\n", BSTR(BG), L, best_u * 1e3,
               best_u * 1e9 / (double)n, best_w * 1e3, best_w * 1e9 / (double)n, p.c, p.windows,
               p.splits);
        fflush(stdout);
    }
    cuzk_free(b);
    cuzk_free(su);
    cuzk_free(sw);
    return 0;
}

static int CUZK_CAT2(bench_fixed_, BG)(const bench_opts *o, cuzk_pool *pool)
{
    size_t nmax = (size_t)1 << o->msm_max;
    BG_(affine_t) *out = cuzk_alloc(nmax, sizeof *out);
    BF_(t) *s = cuzk_alloc(nmax, sizeof *s);
    if (!out || !s) {
        fprintf(stderr, "out of memory (2^%u points)\n", o->msm_max);
        return 1;
    }
    uint64_t st = 11;
    for (size_t i = 0; i < nmax; i++)
        BL_(rnd_scalar)(&s[i], &st);
    for (unsigned L = o->msm_min; L <= o->msm_max; L++) {
        size_t n = (size_t)1 << L;
        double best = 1e30;
        cuzk_error e = {0};
        for (int rep = 0; rep < o->reps; rep++) {
            double t0 = bench_now();
            if (BG_(batch_mul_fixed)(out, &BG_(GENERATOR), s, n, pool, &e) != CUZK_OK) {
                fprintf(stderr, "%s\n", e.msg);
                return 1;
            }
            best = CUZK_MIN(best, bench_now() - t0);
        }
        printf("%-13s %5u %11.2f %9.1f\n", BSTR(BG), L, best * 1e3, best * 1e9 / (double)n);
        fflush(stdout);
    }
    cuzk_free(out);
    cuzk_free(s);
    return 0;
}

#undef BG_
#undef BF_
#undef BL_
#undef BG
#undef BF
