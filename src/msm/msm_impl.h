/* Definition "template" for the MSM of one group (declared in msm_decl.h).
 *
 * Instantiate once per group:
 *   #include "msm/msm.h"
 *   #define MSM_G  bn254_g1
 *   #define MSM_FR bn254_fr
 *   #include "msm/msm_impl.h"
 *
 * Pipeline of <g>_msm:
 *  1. classify (parallel, one pass): scalar 0 -> skipped; scalar 1 -> added
 *     to a per-chunk XYZZ sum with a mixed addition; anything else -> its
 *     index goes to a compacted list (4 bytes per point, no point copies);
 *  2. Pippenger over the listed points: signed c-bit digits computed on the
 *     fly from the raw scalar (no digit arrays), so digits lie in
 *     [-2^(c-1), 2^(c-1)] and 2^(c-1) buckets suffice; each task (window,
 *     point range) accumulates into its worker's XYZZ bucket array with mixed
 *     additions (bucket and base prefetched a few points ahead), then reduces
 *     the buckets by a running sum;
 *  3. Horner over windows, plus the 1-scalar sum.
 * Memory: n·4 bytes of indices + threads·2^(c-1) buckets + one XYZZ per task. */

#include <stdint.h>
#include <string.h>

#include "util/common.h"
#include "util/threadpool.h"

#define G_(name) CUZK_NAME(MSM_G, name)
#define F_(name) CUZK_NAME(MSM_FR, name)
#define MI_(name) CUZK_NAME(MSM_G, CUZK_CAT2(msmi_, name))
#define AFF_T G_(affine_t)
#define JAC_T G_(jac_t)
#define XYZZ_T G_(xyzz_t)
#define SC_T F_(t)

enum { MI_(NL) = (int)(sizeof(SC_T) / sizeof(uint64_t)) };

#define MSM_CLASSIFY_CHUNK ((size_t)1 << 13)
#define MSM_BATCH 64
#define MSM_PREFETCH 4
#define MSM_FIXED_C 8
#define MSM_FIXED_SUB 256

/* len (<= 32) bits of the raw scalar starting at bit o; 0 beyond the limbs. */
CUZK_INLINE uint64_t MI_(bits)(const uint64_t *s, unsigned o, unsigned len)
{
    unsigned li = o >> 6, sh = o & 63;
    if (li >= (unsigned)MI_(NL))
        return 0;
    uint64_t x = s[li] >> sh;
    if (sh + len > 64 && li + 1 < (unsigned)MI_(NL))
        x |= s[li + 1] << (64 - sh);
    return x & (((uint64_t)1 << len) - 1);
}

/* Signed digit w of width c: d = v - 2^c·top(v) + top(previous window), with
 * v the c-bit window; sum_w d_w 2^(wc) equals the scalar as long as the top
 * window leaves a spare bit (windows = ceil((bits+1)/c)). |d| <= 2^(c-1). */
CUZK_INLINE int MI_(digit)(const uint64_t *s, unsigned w, unsigned c)
{
    unsigned o = w * c;
    int64_t v = (int64_t)MI_(bits)(s, o, c);
    int64_t carry_in = o ? (int64_t)MI_(bits)(s, o - 1, 1) : 0;
    return (int)(v - ((v >> (c - 1)) << c) + carry_in);
}

CUZK_INLINE bool MI_(is_zero)(const SC_T *s)
{
    uint64_t acc = 0;
    for (int i = 0; i < MI_(NL); i++)
        acc |= s->l[i];
    return acc == 0;
}

CUZK_INLINE bool MI_(is_one)(const SC_T *s)
{
    uint64_t acc = s->l[0] ^ 1;
    for (int i = 1; i < MI_(NL); i++)
        acc |= s->l[i];
    return acc == 0;
}

CUZK_INLINE void MI_(prefetch_obj)(const void *p, size_t size)
{
    const char *c = p;
    for (size_t off = 0; off < size; off += 64)
        __builtin_prefetch(c + off, 1, 3);
}

void G_(msm_plan)(cuzk_msm_plan *p, size_t n, int threads)
{
    cuzk_msm_plan_make(p, n, F_(BITS), threads, sizeof(XYZZ_T));
}

/* ---- step 1: classification ------------------------------------------------ */

typedef struct {
    const AFF_T *bases;
    const SC_T *scalars;
    size_t n;
    uint32_t *idx;   /* chunk q writes its list at idx[q*CHUNK ...] */
    size_t *count;   /* per chunk */
    XYZZ_T *ones;    /* per chunk */
} MI_(cls_ctx);

static void MI_(cls_task)(void *vctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    MI_(cls_ctx) *c = vctx;
    for (size_t q = begin; q < end; q++) {
        size_t lo = q * MSM_CLASSIFY_CHUNK, hi = CUZK_MIN(c->n, lo + MSM_CLASSIFY_CHUNK);
        size_t cnt = 0;
        XYZZ_T acc;
        G_(xyzz_set_inf)(&acc);
        uint32_t *out = c->idx + lo;
        for (size_t i = lo; i < hi; i++) {
            const SC_T *s = &c->scalars[i];
            if (MI_(is_zero)(s))
                continue;
            if (MI_(is_one)(s))
                G_(xyzz_add_affine)(&acc, &acc, &c->bases[i]);
            else
                out[cnt++] = (uint32_t)i;
        }
        c->count[q] = cnt;
        c->ones[q] = acc;
    }
}

/* ---- step 2: buckets ------------------------------------------------------------ */

typedef struct {
    const AFF_T *bases;
    const SC_T *scalars;
    const uint32_t *idx; /* NULL: identity */
    size_t m;
    unsigned c, splits;
    size_t nbuckets;
    XYZZ_T *buckets;     /* threads x nbuckets */
    XYZZ_T *results;     /* tasks */
} MI_(pip_ctx);

static void MI_(pip_task)(void *vctx, size_t begin, size_t end, int worker)
{
    MI_(pip_ctx) *c = vctx;
    const unsigned cb = c->c;
    XYZZ_T *bk = c->buckets + (size_t)worker * c->nbuckets;
    for (size_t t = begin; t < end; t++) {
        unsigned w = (unsigned)(t / c->splits);
        size_t part = t % c->splits;
        size_t lo = c->m / c->splits * part + CUZK_MIN(part, c->m % c->splits);
        size_t hi = lo + c->m / c->splits + (part < c->m % c->splits ? 1 : 0);
        memset(bk, 0, c->nbuckets * sizeof *bk); /* zz = 0: all at infinity */

        int dg[MSM_BATCH];
        size_t ix[MSM_BATCH];
        for (size_t k0 = lo; k0 < hi; k0 += MSM_BATCH) {
            size_t nb = CUZK_MIN((size_t)MSM_BATCH, hi - k0);
            for (size_t j = 0; j < nb; j++) {
                size_t i = c->idx ? c->idx[k0 + j] : k0 + j;
                ix[j] = i;
                dg[j] = MI_(digit)(c->scalars[i].l, w, cb);
            }
            for (size_t j = 0; j < MSM_PREFETCH && j < nb; j++)
                if (dg[j]) {
                    MI_(prefetch_obj)(&bk[(dg[j] > 0 ? dg[j] : -dg[j]) - 1], sizeof(XYZZ_T));
                    __builtin_prefetch(&c->bases[ix[j]], 0, 3);
                }
            for (size_t j = 0; j < nb; j++) {
                if (j + MSM_PREFETCH < nb) {
                    int dn = dg[j + MSM_PREFETCH];
                    if (dn) {
                        MI_(prefetch_obj)(&bk[(dn > 0 ? dn : -dn) - 1], sizeof(XYZZ_T));
                        MI_(prefetch_obj)(&c->bases[ix[j + MSM_PREFETCH]], sizeof(AFF_T));
                    }
                }
                int d = dg[j];
                if (d > 0)
                    G_(xyzz_add_affine)(&bk[d - 1], &bk[d - 1], &c->bases[ix[j]]);
                else if (d < 0)
                    G_(xyzz_sub_affine)(&bk[-d - 1], &bk[-d - 1], &c->bases[ix[j]]);
            }
        }

        /* sum_b (b+1)·bucket[b] by a running sum from the top. */
        XYZZ_T acc, sum;
        G_(xyzz_set_inf)(&acc);
        G_(xyzz_set_inf)(&sum);
        for (size_t b = c->nbuckets; b-- > 0;) {
            if (!G_(xyzz_is_inf)(&bk[b]))
                G_(xyzz_add)(&acc, &acc, &bk[b]);
            G_(xyzz_add)(&sum, &sum, &acc);
        }
        c->results[t] = sum;
    }
}

/* Pippenger over m points (bases[idx[k]], scalars[idx[k]]) -> *res. */
static cuzk_status MI_(pippenger)(XYZZ_T *res, const AFF_T *bases, const SC_T *scalars,
                                  const uint32_t *idx, size_t m, const cuzk_msm_opts *opts,
                                  cuzk_pool *pool, cuzk_error *e)
{
    G_(xyzz_set_inf)(res);
    if (m == 0)
        return CUZK_OK;
    int T = cuzk_pool_size(pool);
    cuzk_msm_plan plan;
    if (opts && opts->c)
        cuzk_msm_plan_fixed(&plan, m, F_(BITS), T, sizeof(XYZZ_T), opts->c,
                            opts->splits ? opts->splits : 1);
    else
        G_(msm_plan)(&plan, m, T);
    if (opts && opts->splits && !opts->c)
        cuzk_msm_plan_fixed(&plan, m, F_(BITS), T, sizeof(XYZZ_T), plan.c, opts->splits);

    MI_(pip_ctx) c;
    c.bases = bases;
    c.scalars = scalars;
    c.idx = idx;
    c.m = m;
    c.c = plan.c;
    c.splits = plan.splits;
    c.nbuckets = plan.buckets;
    c.buckets = cuzk_alloc((size_t)T * plan.buckets, sizeof(XYZZ_T));
    c.results = cuzk_alloc(plan.tasks, sizeof(XYZZ_T));
    if (!c.buckets || !c.results) {
        cuzk_free(c.buckets);
        cuzk_free(c.results);
        return cuzk_err(e, CUZK_ERR_NOMEM, "msm: out of memory (%u threads x 2^%u buckets)",
                        (unsigned)T, plan.c - 1);
    }
    cuzk_parallel_for(pool, plan.tasks, 1, MI_(pip_task), &c);

    /* Horner over windows, most significant first. */
    XYZZ_T total;
    G_(xyzz_set_inf)(&total);
    for (unsigned w = plan.windows; w-- > 0;) {
        if (!G_(xyzz_is_inf)(&total))
            for (unsigned i = 0; i < plan.c; i++)
                G_(xyzz_dbl)(&total, &total);
        for (unsigned p = 0; p < plan.splits; p++)
            G_(xyzz_add)(&total, &total, &c.results[(size_t)w * plan.splits + p]);
    }
    *res = total;
    cuzk_free(c.buckets);
    cuzk_free(c.results);
    return CUZK_OK;
}

cuzk_status G_(msm_opts)(JAC_T *out, const AFF_T *bases, const SC_T *scalars, size_t n,
                         const cuzk_msm_opts *opts, cuzk_pool *pool, cuzk_error *e)
{
    G_(jac_set_inf)(out);
    if (n == 0)
        return CUZK_OK;
    if (!bases || !scalars)
        return cuzk_err(e, CUZK_ERR_USAGE, "msm: NULL bases or scalars");

    bool fast01 = !(opts && opts->no_fast01) && n <= (size_t)UINT32_MAX;
    XYZZ_T total, part;
    cuzk_status st;
    if (!fast01) {
        st = MI_(pippenger)(&total, bases, scalars, NULL, n, opts, pool, e);
        if (st != CUZK_OK)
            return st;
        G_(xyzz_to_jac)(out, &total);
        return CUZK_OK;
    }

    size_t nch = (n + MSM_CLASSIFY_CHUNK - 1) / MSM_CLASSIFY_CHUNK;
    MI_(cls_ctx) cc;
    cc.bases = bases;
    cc.scalars = scalars;
    cc.n = n;
    cc.idx = cuzk_alloc(n, sizeof(uint32_t));
    cc.count = cuzk_alloc(nch, sizeof(size_t));
    cc.ones = cuzk_alloc(nch, sizeof(XYZZ_T));
    if (!cc.idx || !cc.count || !cc.ones) {
        cuzk_free(cc.idx);
        cuzk_free(cc.count);
        cuzk_free(cc.ones);
        return cuzk_err(e, CUZK_ERR_NOMEM, "msm: out of memory (index list of %zu)", n);
    }
    cuzk_parallel_for(pool, nch, 1, MI_(cls_task), &cc);

    /* Compact the per-chunk lists and add up the 1-scalar sums. */
    size_t m = 0;
    G_(xyzz_set_inf)(&total);
    for (size_t q = 0; q < nch; q++) {
        if (m != q * MSM_CLASSIFY_CHUNK)
            memmove(cc.idx + m, cc.idx + q * MSM_CLASSIFY_CHUNK, cc.count[q] * sizeof(uint32_t));
        m += cc.count[q];
        G_(xyzz_add)(&total, &total, &cc.ones[q]);
    }
    /* All scalars non-trivial: the list is the identity, skip the indirection. */
    st = MI_(pippenger)(&part, bases, scalars, m == n ? NULL : cc.idx, m, opts, pool, e);
    cuzk_free(cc.idx);
    cuzk_free(cc.count);
    cuzk_free(cc.ones);
    if (st != CUZK_OK)
        return st;
    G_(xyzz_add)(&total, &total, &part);
    G_(xyzz_to_jac)(out, &total);
    return CUZK_OK;
}

cuzk_status G_(msm)(JAC_T *out, const AFF_T *bases, const SC_T *scalars, size_t n,
                    cuzk_pool *pool, cuzk_error *e)
{
    return G_(msm_opts)(out, bases, scalars, n, NULL, pool, e);
}

/* ---- fixed-base batch multiplication --------------------------------------- */

typedef struct {
    const AFF_T *table; /* windows x 2^(C-1): table[w][k-1] = k·2^(Cw)·base */
    unsigned windows;
    const SC_T *scalars;
    AFF_T *out;
    size_t n;
    JAC_T *scratch;     /* threads x MSM_FIXED_SUB */
} MI_(fix_ctx);

static void MI_(fix_task)(void *vctx, size_t begin, size_t end, int worker)
{
    MI_(fix_ctx) *c = vctx;
    const size_t nb = (size_t)1 << (MSM_FIXED_C - 1);
    JAC_T *jac = c->scratch + (size_t)worker * MSM_FIXED_SUB;
    for (size_t s0 = begin; s0 < end; s0 += MSM_FIXED_SUB) {
        size_t len = CUZK_MIN((size_t)MSM_FIXED_SUB, end - s0);
        for (size_t j = 0; j < len; j++) {
            XYZZ_T acc;
            G_(xyzz_set_inf)(&acc);
            const uint64_t *s = c->scalars[s0 + j].l;
            for (unsigned w = 0; w < c->windows; w++) {
                int d = MI_(digit)(s, w, MSM_FIXED_C);
                if (d > 0)
                    G_(xyzz_add_affine)(&acc, &acc, &c->table[w * nb + (size_t)(d - 1)]);
                else if (d < 0)
                    G_(xyzz_sub_affine)(&acc, &acc, &c->table[w * nb + (size_t)(-d - 1)]);
            }
            G_(xyzz_to_jac)(&jac[j], &acc);
        }
        G_(jac_batch_to_affine)(c->out + s0, jac, len);
    }
}

cuzk_status G_(batch_mul_fixed)(AFF_T *out, const AFF_T *base, const SC_T *scalars, size_t n,
                                cuzk_pool *pool, cuzk_error *e)
{
    if (n == 0)
        return CUZK_OK;
    if (!out || !base || !scalars)
        return cuzk_err(e, CUZK_ERR_USAGE, "batch_mul_fixed: NULL argument");
    if (G_(affine_is_inf)(base)) {
        for (size_t i = 0; i < n; i++)
            G_(affine_set_inf)(&out[i]);
        return CUZK_OK;
    }
    const unsigned windows = (F_(BITS) + 1 + MSM_FIXED_C - 1) / MSM_FIXED_C;
    const size_t nb = (size_t)1 << (MSM_FIXED_C - 1);
    const size_t tn = windows * nb;
    int T = cuzk_pool_size(pool);
    AFF_T *table = cuzk_alloc(tn, sizeof(AFF_T));
    JAC_T *tj = cuzk_alloc(tn, sizeof(JAC_T));
    JAC_T *scratch = cuzk_alloc((size_t)T * MSM_FIXED_SUB, sizeof(JAC_T));
    if (!table || !tj || !scratch) {
        cuzk_free(table);
        cuzk_free(tj);
        cuzk_free(scratch);
        return cuzk_err(e, CUZK_ERR_NOMEM, "batch_mul_fixed: out of memory");
    }
    /* table[w][k-1] = k·P_w, P_w = 2^(Cw)·base. */
    JAC_T pw;
    G_(jac_from_affine)(&pw, base);
    for (unsigned w = 0; w < windows; w++) {
        JAC_T *row = tj + (size_t)w * nb;
        row[0] = pw;
        for (size_t k = 1; k < nb; k++)
            G_(jac_add)(&row[k], &row[k - 1], &pw);
        for (unsigned i = 0; i < MSM_FIXED_C; i++)
            G_(jac_dbl)(&pw, &pw);
    }
    G_(jac_batch_to_affine)(table, tj, tn);
    cuzk_free(tj);

    MI_(fix_ctx) c = {table, windows, scalars, out, n, scratch};
    cuzk_parallel_for(pool, n, MSM_FIXED_SUB, MI_(fix_task), &c);
    cuzk_free(table);
    cuzk_free(scratch);
    return CUZK_OK;
}

#undef G_
#undef F_
#undef MI_
#undef AFF_T
#undef JAC_T
#undef XYZZ_T
#undef SC_T
#undef MSM_CLASSIFY_CHUNK
#undef MSM_BATCH
#undef MSM_PREFETCH
#undef MSM_FIXED_C
#undef MSM_FIXED_SUB
#undef MSM_G
#undef MSM_FR
