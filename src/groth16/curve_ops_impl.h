/* The operations table of one curve (curve_ops.h), written once and
 * instantiated per curve by curve_ops.c:
 *
 *   #define CURVE_OPS_CURVE bn254          (code prefix: bn254_fr_t, bn254_g1_msm, ...)
 *   #include "groth16/curve_ops_impl.h"  (defines const cuzk_curve_ops bn254_curve_ops
 *                                           over the description bn254_curve_desc)
 *
 * Everything here is either a thin typed wrapper over the curve's field,
 * group, pairing, NTT and MSM code, or one of the two vector kernels of the
 * CPU prover (abc_eval, h_pointwise). Include after the curve, NTT and MSM
 * headers and the 8-lane IFMA core of the curve's Fr (field/fp_ifma_inline.h
 * with FP_PREFIX <c>_fr). */

#ifndef CURVE_OPS_CURVE
#error "define CURVE_OPS_CURVE before including curve_ops_impl.h"
#endif

#define CO_(name) CUZK_NAME(CURVE_OPS_CURVE, name)

typedef CO_(fr_t) CO_(ops_fr);
typedef CO_(g1_affine_t) CO_(ops_g1a);
typedef CO_(g1_jac_t) CO_(ops_g1j);
typedef CO_(g2_affine_t) CO_(ops_g2a);
typedef CO_(g2_jac_t) CO_(ops_g2j);

static bool CO_(ops_fr_random)(void *r) { return CO_(fr_random)(r); }
static void CO_(ops_fr_mul)(void *r, const void *a, const void *b) { CO_(fr_mul)(r, a, b); }
static void CO_(ops_fr_add)(void *r, const void *a, const void *b) { CO_(fr_add)(r, a, b); }
static void CO_(ops_fr_to_mont)(void *r, const void *raw) { CO_(fr_to_mont)(r, raw); }
static void CO_(ops_fr_from_mont)(void *raw, const void *a) { CO_(fr_from_mont)(raw, a); }
static void CO_(ops_fq_from_mont)(uint64_t *raw, const void *a) { CO_(fp_from_mont)((CO_(fp_t) *)raw, a); }

static void CO_(ops_g1_mul_affine)(void *j, const void *a, const uint64_t *k, size_t n) { CO_(g1_affine_mul)(j, a, k, n); }
static void CO_(ops_g1_mul_jac)(void *j, const void *p, const uint64_t *k, size_t n) { CO_(g1_jac_mul)(j, p, k, n); }
static void CO_(ops_g1_add)(void *j, const void *p, const void *q) { CO_(g1_jac_add)(j, p, q); }
static void CO_(ops_g1_add_affine)(void *j, const void *p, const void *a) { CO_(g1_jac_add_affine)(j, p, a); }
static void CO_(ops_g1_neg)(void *j, const void *p) { CO_(g1_jac_neg)(j, p); }
static void CO_(ops_g1_from_affine)(void *j, const void *a) { CO_(g1_jac_from_affine)(j, a); }
static void CO_(ops_g1_to_affine)(void *a, const void *j) { CO_(g1_jac_to_affine)(a, j); }
static void CO_(ops_g1_affine_neg)(void *r, const void *a) { CO_(g1_affine_neg)(r, a); }
static void CO_(ops_g2_mul_affine)(void *j, const void *a, const uint64_t *k, size_t n) { CO_(g2_affine_mul)(j, a, k, n); }
static void CO_(ops_g2_add)(void *j, const void *p, const void *q) { CO_(g2_jac_add)(j, p, q); }
static void CO_(ops_g2_add_affine)(void *j, const void *p, const void *a) { CO_(g2_jac_add_affine)(j, p, a); }
static void CO_(ops_g2_to_affine)(void *a, const void *j) { CO_(g2_jac_to_affine)(a, j); }

static cuzk_status CO_(ops_g1_batch_mul)(void *out, const void *base, const void *k, size_t n, cuzk_pool *pool,
                                         cuzk_error *err)
{
    return CO_(g1_batch_mul_fixed)(out, base, k, n, pool, err);
}

static cuzk_status CO_(ops_g2_batch_mul)(void *out, const void *base, const void *k, size_t n, cuzk_pool *pool,
                                         cuzk_error *err)
{
    return CO_(g2_batch_mul_fixed)(out, base, k, n, pool, err);
}

/* Most pairs whose Miller loops run one per worker; more share one loop. */
#define CO_PAR_PAIRS 16

typedef struct {
    const CO_(ops_g1a) *p;
    const CO_(ops_g2a) *q;
    CO_(fp12_t) *f; /* f[b] = the Miller loop of the range starting at b */
} CO_(ml_arg);

static void CO_(ml_range)(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    const CO_(ml_arg) *a = ctx;
    CO_(miller_loop)(&a->f[b], a->p + b, a->q + b, e - b);
}

/* One multi-Miller loop shares its squarings between pairs; on a pool the
 * pairs' loops run at once instead (a Groth16 check's 4 pairs: ~2x faster
 * with 4 workers), then one final exponentiation. */
static bool CO_(ops_pairing_product_is_one)(const void *g1, const void *g2, size_t n, cuzk_pool *pool)
{
    CO_(fp12_t) e;
    if (!pool || n < 2 || n > CO_PAR_PAIRS || cuzk_pool_size(pool) < 2) {
        CO_(multi_pairing)(&e, g1, g2, n);
        return CO_(fp12_is_one)(&e);
    }
    CO_(fp12_t) f[CO_PAR_PAIRS];
    for (size_t i = 0; i < n; i++)
        CO_(fp12_set_one)(&f[i]);
    CO_(ml_arg) a = {g1, g2, f};
    cuzk_parallel_for(pool, n, 1, CO_(ml_range), &a);
    for (size_t i = 1; i < n; i++)
        CO_(fp12_mul)(&f[0], &f[0], &f[i]);
    CO_(final_exp)(&e, &f[0]);
    return CO_(fp12_is_one)(&e);
}

/* A key's prepared pairing arguments: the Miller value of (α, β), then γ's
 * lines and δ's (nl each, g2_prep_lines), NULL for a point at infinity. */
typedef struct {
    CO_(fp12_t) ab;
    const CO_(g2_line_t) *gamma, *delta;
    CO_(g2_line_t) lines[];
} CO_(vk_prep);

static void *CO_(ops_vk_prepare)(const void *alpha_1, const void *beta_2, const void *gamma_2,
                                 const void *delta_2)
{
    const size_t nl = CO_(g2_prep_lines)();
    CO_(vk_prep) *p = malloc(sizeof *p + 2 * nl * sizeof p->lines[0]);
    if (!p)
        return NULL;
    CO_(miller_loop)(&p->ab, alpha_1, beta_2, 1);
    p->gamma = CO_(g2_prepare)(p->lines, gamma_2) ? p->lines : NULL;
    p->delta = CO_(g2_prepare)(p->lines + nl, delta_2) ? p->lines + nl : NULL;
    return p;
}

/* The loops of verify_prep / verify_begin, one a worker: pair 0 (neg_a, b)
 * unprepared, pair 1 (ic, γ) and pair 2 (c, δ) prepared. */
typedef struct {
    const CO_(vk_prep) *p;
    const CO_(ops_g1a) *g1[3];
    const CO_(ops_g2a) *b;
    CO_(fp12_t) f[3];
} CO_(vp_arg);

static void CO_(vp_range)(void *ctx, size_t lo, size_t hi, int worker)
{
    (void)worker;
    CO_(vp_arg) *a = ctx;
    for (size_t i = lo; i < hi; i++) {
        if (i == 0) {
            CO_(miller_loop)(&a->f[0], a->g1[0], a->b, 1);
        } else {
            const CO_(g2_line_t) *l = i == 1 ? a->p->gamma : a->p->delta;
            CO_(miller_loop_prep)(&a->f[i], NULL, NULL, 0, a->g1[i], &l, 1);
        }
    }
}

/* f = the product of the Miller loops of the first n (2 or 3) pairs and (α, β). */
static void CO_(vp_loops)(CO_(fp12_t) *f, const CO_(vk_prep) *p, const void *neg_a, const void *b,
                          const void *ic, const void *c, size_t n, cuzk_pool *pool)
{
    if (!pool || cuzk_pool_size(pool) < 2) {
        CO_(ops_g1a) pp[2];
        pp[0] = *(const CO_(ops_g1a) *)ic;
        pp[1] = c ? *(const CO_(ops_g1a) *)c : pp[0];
        const CO_(g2_line_t) *l[2] = {p->gamma, p->delta};
        CO_(miller_loop_prep)(f, neg_a, b, 1, pp, l, n - 1);
    } else {
        CO_(vp_arg) a = {.p = p, .g1 = {neg_a, ic, c}, .b = b};
        cuzk_parallel_for(pool, n, 1, CO_(vp_range), &a);
        CO_(fp12_mul)(f, &a.f[0], &a.f[1]);
        if (n == 3)
            CO_(fp12_mul)(f, f, &a.f[2]);
    }
    CO_(fp12_mul)(f, f, &p->ab);
}

static bool CO_(ops_verify_prep)(const void *prep, const void *neg_a, const void *b, const void *ic,
                                 const void *c, cuzk_pool *pool)
{
    CO_(fp12_t) f;
    CO_(vp_loops)(&f, prep, neg_a, b, ic, c, 3, pool);
    CO_(final_exp)(&f, &f);
    return CO_(fp12_is_one)(&f);
}

static void CO_(ops_verify_begin)(void *f, const void *prep, const void *neg_a, const void *b, const void *ic,
                                  cuzk_pool *pool)
{
    CO_(fp12_t) t;
    CO_(vp_loops)(&t, prep, neg_a, b, ic, NULL, 2, pool);
    memcpy(f, &t, sizeof t);
}

/* verify_finish on two workers: (C, δ)'s loop cut after step s (of N), its
 * two parts each through a final exponentiation of its own, the first then
 * raised to 2^(N - s) in the cyclotomic subgroup (the loop's squarings of
 * the later steps), the begun value f multiplied into the second:
 *   FE(part(0, s)^(2^(N-s)) · part(s, N) · f) = FE(part(0, s))^(2^(N-s)) · FE(part(s, N) · f).
 * s = 2N/5 evens the two: the first's 2^(N-s) is mostly compressed squarings. */
typedef struct {
    const CO_(vk_prep) *p;
    const CO_(ops_g1a) *c;
    CO_(fp12_t) f[2];
    size_t s, n;
} CO_(vf_arg);

static void CO_(vf_range)(void *ctx, size_t lo, size_t hi, int worker)
{
    (void)worker;
    CO_(vf_arg) *a = ctx;
    for (size_t i = lo; i < hi; i++) {
        CO_(fp12_t) t;
        if (i == 0) {
            CO_(miller_loop_prep_part)(&t, a->c, a->p->delta, 0, a->s);
            CO_(final_exp)(&t, &t);
            CO_(fp12_cyclotomic_exp)(&a->f[0], &t, (uint64_t)1 << (a->n - a->s));
        } else {
            CO_(miller_loop_prep_part)(&t, a->c, a->p->delta, a->s, a->n);
            CO_(fp12_mul)(&t, &t, &a->f[1]);
            CO_(final_exp)(&a->f[1], &t);
        }
    }
}

static bool CO_(ops_verify_finish)(const void *prep, const void *f, const void *c, cuzk_pool *pool)
{
    const CO_(vk_prep) *p = prep;
    CO_(fp12_t) t, u;
    memcpy(&u, f, sizeof u);
    const size_t n = CO_(miller_steps)();
    if (pool && cuzk_pool_size(pool) >= 2 && n >= 8 && n <= 64) {
        CO_(vf_arg) a = {.p = p, .c = c, .s = 2 * n / 5, .n = n};
        a.f[1] = u;
        cuzk_parallel_for(pool, 2, 1, CO_(vf_range), &a);
        CO_(fp12_mul)(&t, &a.f[0], &a.f[1]);
        return CO_(fp12_is_one)(&t);
    }
    CO_(miller_loop_prep)(&t, NULL, NULL, 0, c, &p->delta, 1);
    CO_(fp12_mul)(&t, &t, &u);
    CO_(final_exp)(&t, &t);
    return CO_(fp12_is_one)(&t);
}

static void CO_(ops_pairing)(void *fq12, const void *g1, const void *g2)
{
    CO_(fp12_t) e;
    CO_(pairing)(&e, g1, g2);
    memcpy(fq12, &e, sizeof e);
}

static cuzk_status CO_(ops_ntt_domain_create)(void **dom, unsigned log_n, uint64_t generator, cuzk_pool *pool,
                                              cuzk_error *err)
{
    CO_(ntt_domain) *d = NULL;
    cuzk_status st = CO_(ntt_domain_create_gen)(&d, log_n, generator ? generator : 5, pool, err);
    *dom = d;
    return st;
}

static void CO_(ops_ntt_domain_free)(void *dom) { CO_(ntt_domain_free)(dom); }

static size_t CO_(ops_ntt_domain_bytes)(const void *dom)
{
    const CO_(ntt_domain) *d = dom;
    return sizeof *d + (d->n / 2 + ((size_t)2 << d->stw_stages)) * sizeof(CO_(fr_t));
}

static void CO_(ops_ntt)(const void *dom, void *a, bool inverse, bool coset, cuzk_pool *pool)
{
    const CO_(ntt_domain) *d = dom;
    if (coset && inverse) CO_(intt_coset)(d, a, &d->omega_2n, pool);
    else if (coset) CO_(ntt_coset)(d, a, &d->omega_2n, pool);
    else if (inverse) CO_(intt)(d, a, pool);
    else CO_(ntt)(d, a, pool);
}

static cuzk_status CO_(ops_ntt_coset_odd)(const void *dom, void *a, cuzk_pool *pool, cuzk_error *err)
{
    return CO_(ntt_coset_odd)(dom, a, pool, err);
}

static cuzk_status CO_(ops_g1_msm)(void *j, const void *bases, const void *scalars, size_t n, cuzk_pool *pool,
                                   cuzk_error *err)
{
    return CO_(g1_msm)(j, bases, scalars, n, pool, err);
}

static cuzk_status CO_(ops_g2_msm)(void *j, const void *bases, const void *scalars, size_t n, cuzk_pool *pool,
                                   cuzk_error *err)
{
    return CO_(g2_msm)(j, bases, scalars, n, pool, err);
}

/* ---- h = a·b − c ---------------------------------------------------------------- */

typedef struct {
    CO_(fr_t) *a;
    const CO_(fr_t) *b, *c;
} CO_(h_job);

#if defined(CUZK_IFMA)
/* The same 8 at a time: a Montgomery product by the integer 1 leaves
 * Montgomery form (a·R·1/R = a), like fr_from_mont; lanes equal the scalar
 * results. */
CUZK_IFMA_TARGET static size_t CO_(h_v8)(const CO_(h_job) *j, size_t lo, size_t hi)
{
    CO_(fr_t) one_raw;
    CO_(fr_set_zero)(&one_raw);
    one_raw.l[0] = 1;
    CO_(fr_v8_t) one, x, y, z;
    CO_(fr_v8_set1)(&one, &one_raw);
    for (; lo + 8 <= hi; lo += 8) {
        CO_(fr_v8_load)(&x, &j->a[lo]);
        CO_(fr_v8_load)(&y, &j->b[lo]);
        CO_(fr_v8_load)(&z, &j->c[lo]);
        CO_(fr_v8_mul)(&x, &x, &y);
        CO_(fr_v8_sub)(&x, &x, &z);
        CO_(fr_v8_mul)(&x, &x, &one);
        CO_(fr_v8_store)(&j->a[lo], &x);
    }
    return lo;
}
#endif

static void CO_(h_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const CO_(h_job) *j = p;
#if defined(CUZK_IFMA)
    if (cuzk_ifma_enabled())
        lo = CO_(h_v8)(j, lo, hi);
#endif
    for (size_t i = lo; i < hi; i++) {
        CO_(fr_t) t;
        CO_(fr_mul)(&t, &j->a[i], &j->b[i]);
        CO_(fr_sub)(&t, &t, &j->c[i]);
        CO_(fr_from_mont)(&j->a[i], &t);
    }
}

static void CO_(ops_h_pointwise)(void *a, const void *b, const void *c, size_t n, cuzk_pool *pool)
{
    CO_(h_job) j = {a, b, c};
    cuzk_parallel_for(pool, n, 4096, CO_(h_range), &j);
}

/* ---- a = A·w, b = B·w, c = a∘b ----------------------------------------------------- */

typedef struct {
    const cuzk_abc_plan *k;
    const CO_(fr_t) *w;
    CO_(fr_t) *a, *b, *c;
} CO_(abc_job);

static inline void CO_(abc_zero)(const CO_(abc_job) *j, size_t lo, size_t hi)
{
    for (size_t r = lo; r < hi; r++) {
        CO_(fr_set_zero)(&j->a[r]);
        CO_(fr_set_zero)(&j->b[r]);
        CO_(fr_set_zero)(&j->c[r]);
    }
}

/* Chunks [lo, hi) of sorted records: each run of one constraint's records
 * gives that row; rows without records are zero. Values are v·R², so one
 * Montgomery product with the raw witness gives v·w in Montgomery form. */
static void CO_(abc_chunks)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const CO_(abc_job) *j = p;
    const cuzk_abc_plan *k = j->k;
    const cuzk_coefs *co = &k->co;
    for (size_t q = lo; q < hi; q++) {
        size_t row = k->crow[q], i = k->cstart[q], end = k->cstart[q + 1];
        while (i < end) {
            uint32_t r = cuzk_coef_u32(co->constraint, i, co->stride);
            CO_(abc_zero)(j, row, r);
            CO_(fr_t) acc[2], t, v;
            CO_(fr_set_zero)(&acc[0]);
            CO_(fr_set_zero)(&acc[1]);
            do {
                uint32_t m = cuzk_coef_u32(co->matrix, i, co->stride);
                uint32_t sg = cuzk_coef_u32(co->signal, i, co->stride);
                memcpy(&v, co->value + i * co->vstride, sizeof v);
                CO_(fr_mul)(&t, &v, &j->w[sg]);
                CO_(fr_add)(&acc[m != 0], &acc[m != 0], &t);
            } while (++i < end && cuzk_coef_u32(co->constraint, i, co->stride) == r);
            j->a[r] = acc[0];
            j->b[r] = acc[1];
            CO_(fr_mul)(&j->c[r], &acc[0], &acc[1]);
            row = (size_t)r + 1;
        }
        CO_(abc_zero)(j, row, k->crow[q + 1]);
    }
}

/* One CSR term: signal index and v·R². */
typedef struct {
    uint32_t signal;
    uint32_t pad_;
    CO_(fr_t) value;
} CO_(abc_term);

/* Rows [lo, hi) from the CSR. */
static void CO_(abc_rows)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const CO_(abc_job) *j = p;
    const cuzk_abc_plan *k = j->k;
    const CO_(abc_term) *ta = (const CO_(abc_term) *)k->terms_a, *tb = (const CO_(abc_term) *)k->terms_b;
    for (size_t r = lo; r < hi; r++) {
        CO_(fr_t) acc, t;
        CO_(fr_set_zero)(&acc);
        for (uint32_t i = k->row_a[r]; i < k->row_a[r + 1]; i++) {
            CO_(fr_mul)(&t, &ta[i].value, &j->w[ta[i].signal]);
            CO_(fr_add)(&acc, &acc, &t);
        }
        j->a[r] = acc;
        CO_(fr_set_zero)(&acc);
        for (uint32_t i = k->row_b[r]; i < k->row_b[r + 1]; i++) {
            CO_(fr_mul)(&t, &tb[i].value, &j->w[tb[i].signal]);
            CO_(fr_add)(&acc, &acc, &t);
        }
        j->b[r] = acc;
        CO_(fr_mul)(&j->c[r], &j->a[r], &acc);
    }
}

static void CO_(ops_abc_eval)(const cuzk_abc_plan *plan, const void *w, void *a, void *b, void *c, cuzk_pool *pool)
{
    _Static_assert(sizeof(CO_(abc_term)) == CUZK_ABC_TERM_SIZE, "CSR term layout");
    CO_(abc_job) j = {plan, w, a, b, c};
    if (plan->n_chunks)
        cuzk_parallel_for(pool, plan->n_chunks, 1, CO_(abc_chunks), &j);
    else
        cuzk_parallel_for(pool, plan->domain_size, 4096, CO_(abc_rows), &j);
}

const cuzk_curve_ops CO_(curve_ops) = {
    .desc = &CO_(curve_desc),
    .fr_random = CO_(ops_fr_random),
    .fr_mul = CO_(ops_fr_mul),
    .fr_add = CO_(ops_fr_add),
    .fr_to_mont = CO_(ops_fr_to_mont),
    .fr_from_mont = CO_(ops_fr_from_mont),
    .fq_from_mont = CO_(ops_fq_from_mont),
    .g1_mul_affine = CO_(ops_g1_mul_affine),
    .g1_mul_jac = CO_(ops_g1_mul_jac),
    .g1_add = CO_(ops_g1_add),
    .g1_add_affine = CO_(ops_g1_add_affine),
    .g1_neg = CO_(ops_g1_neg),
    .g1_from_affine = CO_(ops_g1_from_affine),
    .g1_to_affine = CO_(ops_g1_to_affine),
    .g1_affine_neg = CO_(ops_g1_affine_neg),
    .g2_mul_affine = CO_(ops_g2_mul_affine),
    .g2_add = CO_(ops_g2_add),
    .g2_add_affine = CO_(ops_g2_add_affine),
    .g2_to_affine = CO_(ops_g2_to_affine),
    .g1_batch_mul = CO_(ops_g1_batch_mul),
    .g2_batch_mul = CO_(ops_g2_batch_mul),
    .pairing_product_is_one = CO_(ops_pairing_product_is_one),
    .pairing = CO_(ops_pairing),
    .fq12_size = sizeof(CO_(fp12_t)),
    .vk_prepare = CO_(ops_vk_prepare),
    .verify_prep = CO_(ops_verify_prep),
    .verify_begin = CO_(ops_verify_begin),
    .verify_finish = CO_(ops_verify_finish),
    .ntt_domain_create = CO_(ops_ntt_domain_create),
    .ntt_domain_free = CO_(ops_ntt_domain_free),
    .ntt_domain_bytes = CO_(ops_ntt_domain_bytes),
    .ntt = CO_(ops_ntt),
    .ntt_coset_odd = CO_(ops_ntt_coset_odd),
    .h_pointwise = CO_(ops_h_pointwise),
    .abc_eval = CO_(ops_abc_eval),
    .g1_msm = CO_(ops_g1_msm),
    .g2_msm = CO_(ops_g2_msm),
};

#undef CO_
#undef CO_PAR_PAIRS
#undef CURVE_OPS_CURVE
