/* Definition "template" for the MSM of one group (declared in msm_decl.h).
 *
 * Instantiate once per group:
 *   #include "msm/msm.h"
 *   #define MSM_G bn254_g1    (a group listed in curve/instances.h)
 *   #include "msm/msm_impl.h"
 * after including the inline cores of the coordinate field F = g_C_F
 * (field/fp_inline.h, fp_ifma_inline.h, fp_inv_vt.h; the fp2_* ones too for
 * G2): the batch-affine kernel uses F_*_inl, F_v8_* and F_inv_vt.
 * Defines, for MSM_G g: everything msm_decl.h declares, plus the static
 * kernels g_msmi_* (classification, Pippenger tasks, batch-affine buckets,
 * fixed-base tables) and their context types. MSM_G is #undef'd at the end.
 *
 * Pipeline of <g>_msm:
 *  1. classify (parallel, one pass): scalar 0 -> skipped; scalar 1 -> added
 *     to a per-chunk XYZZ sum with a mixed addition; anything else -> its
 *     index goes to a compacted list (4 bytes per point, no point copies);
 *  2. Pippenger over the listed points: signed c-bit digits computed on the
 *     fly from the raw scalar (no digit arrays), so digits lie in
 *     [-2^(c-1), 2^(c-1)] and 2^(c-1) buckets suffice; each task (window,
 *     point range) accumulates into its worker's bucket array, then reduces
 *     the buckets by a running sum. Two accumulation kernels:
 *       - batch-affine (windows >= MSM_AFFINE_MIN_C): buckets stay affine;
 *         up to B additions into distinct buckets are collected, their
 *         denominators inverted together (Montgomery's trick: one inversion
 *         and 3M per point), then each costs 2M + 1S — about 6M per point
 *         instead of 10M. A point whose bucket is already in the batch waits
 *         in a small FIFO for the next batch;
 *         With AVX-512 IFMA (run-time check, cuzk_ifma_set(false) to disable) a
 *         batch is applied 8 additions per vector (aff_flush_v8);
 *       - XYZZ mixed additions (8M + 2S) for small windows, where too few
 *         buckets exist to fill a batch;
 *     bucket and base are prefetched a few points ahead in both;
 *  3. Horner over windows, plus the 1-scalar sum.
 * Memory: n·4 bytes of indices + threads·2^(c-1) buckets + one XYZZ per task. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "curve/instances.h"
#include "field/fp_ifma.h"
#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"
#include "util/threadpool.h"

#define MSM_(name) CUZK_NAME(MSM_G, name)
#define MSM_P_(name) CUZK_NAME(MSM_G, CUZK_CAT2(C_, name))
#define MSM_FR_(name) CUZK_NAME(MSM_P_(FR), name)
#define MSM_F_(name) CUZK_NAME(MSM_P_(F), name)
#define MSM_I_(name) CUZK_NAME(MSM_G, CUZK_CAT2(msmi_, name))
#if !MSM_FR_(P_LIMBS)
#error "msm_impl.h: MSM_G must name a group listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_MSM_IMPL, MSM_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

enum { MSM_I_(NL) = (int)(sizeof(MSM_FR_(t)) / sizeof(uint64_t)) };

#define MSM_CLASSIFY_CHUNK ((size_t)1 << 13)
#define MSM_BATCH 64
#define MSM_PREFETCH 4
#define MSM_FIXED_C 8
#define MSM_FIXED_SUB 256
/* Batch-affine kernel: smallest window, batch size (at most buckets/4 so
 * conflicts stay rare) and FIFO capacity. */
#define MSM_AFFINE_MIN_C CUZK_MSM_AFFINE_MIN_C
#define MSM_AFFINE_BATCH 1024
#define MSM_AFFINE_PEND 256
/* Windows sharing one batch: enough buckets for full batches (see
 * pip_task_affine), and at most this many. */
#define MSM_AFFINE_GROUP_BUCKETS 4096
#define MSM_AFFINE_MAX_GROUP 16

/* len (<= 32) bits of the raw scalar starting at bit o; 0 beyond the limbs. */
CUZK_INLINE uint64_t MSM_I_(bits)(const uint64_t *s, unsigned o, unsigned len)
{
    unsigned li = o >> 6, sh = o & 63;
    if (li >= (unsigned)MSM_I_(NL))
        return 0;
    uint64_t x = s[li] >> sh;
    if (sh + len > 64 && li + 1 < (unsigned)MSM_I_(NL))
        x |= s[li + 1] << (64 - sh);
    return x & (((uint64_t)1 << len) - 1);
}

/* Signed digit w of width c: d = v - 2^c·top(v) + top(previous window), with
 * v the c-bit window; sum_w d_w 2^(wc) equals the scalar as long as the top
 * window leaves a spare bit (windows = ceil((bits+1)/c)). |d| <= 2^(c-1). */
CUZK_INLINE int MSM_I_(digit)(const uint64_t *s, unsigned w, unsigned c)
{
    unsigned o = w * c;
    int64_t v = (int64_t)MSM_I_(bits)(s, o, c);
    int64_t carry_in = o ? (int64_t)MSM_I_(bits)(s, o - 1, 1) : 0;
    return (int)(v - ((v >> (c - 1)) << c) + carry_in);
}

CUZK_INLINE void MSM_I_(prefetch_obj)(const void *p, size_t size)
{
    const char *c = p;
    for (size_t off = 0; off < size; off += 64)
        __builtin_prefetch(c + off, 1, 3);
}

void MSM_(msm_plan)(cuzk_msm_plan *p, size_t n, int threads)
{
    cuzk_msm_plan_make(p, n, MSM_FR_(BITS), threads, sizeof(MSM_(xyzz_t)));
}

/* ---- step 1: classification ------------------------------------------------ */

typedef struct {
    const MSM_(affine_t) *bases;
    const MSM_FR_(t) *scalars;
    size_t n;
    uint32_t *idx;   /* chunk q writes its big-scalar list at idx[q*CHUNK ...] */
    uint32_t *sidx;  /* ... and its small-scalar (< 2^64) list at sidx[q*CHUNK ...] */
    size_t *count;   /* per chunk: big */
    size_t *scount;  /* per chunk: small */
    MSM_(xyzz_t) *ones; /* per chunk */
} MSM_I_(cls_ctx);

/* Affine infinity test, inline (the curve's is out of line). */
CUZK_INLINE bool MSM_I_(aff_inf)(const MSM_(affine_t) *p)
{
    return MSM_F_(is_zero_inl)(&p->x) && MSM_F_(is_zero_inl)(&p->y);
}

static void MSM_I_(cls_task)(void *vctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    MSM_I_(cls_ctx) *c = vctx;
    for (size_t q = begin; q < end; q++) {
        size_t lo = q * MSM_CLASSIFY_CHUNK, hi = CUZK_MIN(c->n, lo + MSM_CLASSIFY_CHUNK);
        size_t cnt = 0, scnt = 0;
        MSM_(xyzz_t) acc;
        MSM_(xyzz_set_inf)(&acc);
        uint32_t *out = c->idx + lo, *sout = c->sidx + lo;
        for (size_t i = lo; i < hi; i++) {
            const uint64_t *s = c->scalars[i].l;
            uint64_t high = 0;
            for (int k = 1; k < MSM_I_(NL); k++)
                high |= s[k];
            if (high) {
                out[cnt++] = (uint32_t)i;
            } else if (s[0] > 1) {
                sout[scnt++] = (uint32_t)i;
            } else if (s[0] == 1) {
                if (i + 8 < hi)
                    __builtin_prefetch(&c->bases[i + 8], 0, 3);
                if (!MSM_I_(aff_inf)(&c->bases[i]))
                    MSM_(xyzz_add_affine)(&acc, &acc, &c->bases[i]);
            }
        }
        c->count[q] = cnt;
        c->scount[q] = scnt;
        c->ones[q] = acc;
    }
}

/* ---- step 2: buckets ------------------------------------------------------------ */

/* A queued or deferred addition bucket[b] += ±P. */
typedef struct {
    uint32_t b;
    uint32_t neg;
    const MSM_(affine_t) *p;
} MSM_I_(aff_op);

/* Per-worker state of the batch-affine kernel. */
typedef struct {
    MSM_(affine_t) *bk; /* buckets (affine) */
    uint8_t *occ;      /* bucket holds a point (else infinity) */
    uint32_t *tag;     /* == batch id: bucket already has an addition queued */
    uint32_t batch_id;
    size_t nb, bmax;
    /* current batch */
    size_t n;
    MSM_I_(aff_op) *op;
    MSM_F_(t) *den, *pref;
    /* FIFO of additions deferred by a conflict */
    size_t ph, pn;
    MSM_I_(aff_op) pend[MSM_AFFINE_PEND];
    /* Additions left over at the end of a task (all hitting buckets that were
     * busy): they are added into the running sum instead of the buckets, so
     * the tail of a task needs no tiny batches (one inversion each). */
    size_t ln, lcap;
    MSM_I_(aff_op) *left;
    /* 8-lane IFMA kernel: per group of 8 additions, denominators and prefix
     * products (<F>_v8_t each) and the lanes needing the exact formula;
     * vec is false (and these NULL) on the scalar path. */
    bool vec;
    void *vden, *vpref;
    uint8_t *vspec;
} MSM_I_(aff_state);

/* Rare exact cases: bucket == ±point. */
static void MSM_I_(aff_special)(MSM_I_(aff_state) *a, uint32_t b, const MSM_(affine_t) *p, bool neg)
{
    MSM_(affine_t) q = *p;
    if (neg)
        MSM_(affine_neg)(&q, p);
    MSM_(xyzz_t) x;
    MSM_(xyzz_set_inf)(&x);
    MSM_(xyzz_add_affine)(&x, &x, &a->bk[b]);
    MSM_(xyzz_add_affine)(&x, &x, &q); /* doubling or cancellation, complete */
    if (MSM_(xyzz_is_inf)(&x)) {
        a->occ[b] = 0;
        return;
    }
    MSM_(jac_t) j;
    MSM_(xyzz_to_jac)(&j, &x);
    MSM_(jac_to_affine)(&a->bk[b], &j);
}

#if defined(CUZK_IFMA)
/* aff_flush with 8 additions per vector: addition 8g + k is lane k of group
 * g. The same operations as the scalar kernel on the same canonical values,
 * so buckets come out bit-identical: a forward pass of 8 interleaved prefix
 * products, one scalar inversion for the 8 lane products, a backward pass
 * with the slope and the new bucket. Lanes with x_P == x_bucket take the
 * exact scalar formula; missing lanes of the last group repeat lane 0 and
 * are not stored. */
static CUZK_IFMA_TARGET void MSM_I_(aff_flush_v8)(MSM_I_(aff_state) *a)
{
    const size_t n = a->n, G = (n + 7) / 8;
    MSM_F_(v8_t) *den = a->vden, *pref = a->vpref, acc;
    memset(&acc, 0, sizeof acc);
    MSM_F_(v8_set_one_mask)(&acc, 0xff);
    for (size_t g = 0; g < G; g++) {
        const void *pp[8], *qq[8];
        unsigned valid = 0;
        for (unsigned k = 0; k < 8; k++) {
            size_t i = 8 * g + (k < n - 8 * g ? k : 0);
            valid |= (unsigned)(8 * g + k < n) << k;
            pp[k] = a->op[i].p;
            qq[k] = &a->bk[a->op[i].b];
        }
        MSM_F_(v8_t) px, qx, d;
        MSM_F_(v8_gather)(&px, pp, offsetof(MSM_(affine_t), x));
        MSM_F_(v8_gather)(&qx, qq, offsetof(MSM_(affine_t), x));
        MSM_F_(v8_sub)(&d, &px, &qx);
        __mmask8 z = (__mmask8)(MSM_F_(v8_is_zero)(&d) | (__mmask8)~valid);
        MSM_F_(v8_set_one_mask)(&d, z); /* keep the product invertible */
        a->vspec[g] = (uint8_t)(z & valid);
        den[g] = d;
        pref[g] = acc;
        MSM_F_(v8_mul)(&acc, &acc, &d);
    }
    /* invert the 8 lane products (all non-zero) with one inversion; out of
     * line products: the inline asm one runs out of registers here under
     * ASan, and these are 24 per batch */
    MSM_F_(t) lane[8], pre[8], t;
    MSM_F_(v8_to_array)(lane, &acc);
    MSM_F_(set_one)(&t);
    for (int k = 0; k < 8; k++) {
        pre[k] = t;
        MSM_F_(mul)(&t, &t, &lane[k]);
    }
    MSM_F_(inv_vt)(&t, &t);
    for (int k = 8; k-- > 0;) {
        MSM_F_(t) x = lane[k];
        MSM_F_(mul)(&lane[k], &t, &pre[k]);
        MSM_F_(mul)(&t, &t, &x);
    }
    MSM_F_(v8_from_array)(&acc, lane);
    for (size_t g = G; g-- > 0;) {
        const void *pp[8];
        void *qq[8];
        unsigned valid = 0, neg = 0;
        for (unsigned k = 0; k < 8; k++) {
            size_t i = 8 * g + (k < n - 8 * g ? k : 0);
            valid |= (unsigned)(8 * g + k < n) << k;
            neg |= (a->op[i].neg ? 1u : 0u) << k;
            pp[k] = a->op[i].p;
            qq[k] = &a->bk[a->op[i].b];
        }
        MSM_F_(v8_t) dinv, px, qx, py, qy, npy, lam, x3, t3;
        MSM_F_(v8_mul)(&dinv, &acc, &pref[g]); /* 1/den */
        MSM_F_(v8_mul)(&acc, &acc, &den[g]);
        MSM_F_(v8_gather)(&px, pp, offsetof(MSM_(affine_t), x));
        MSM_F_(v8_gather)(&py, pp, offsetof(MSM_(affine_t), y));
        MSM_F_(v8_gather)(&qx, (const void *const *)qq, offsetof(MSM_(affine_t), x));
        MSM_F_(v8_gather)(&qy, (const void *const *)qq, offsetof(MSM_(affine_t), y));
        /* numerator y_p' - y_q with y_p' = ±y_p */
        MSM_F_(v8_neg)(&npy, &py);
        MSM_F_(v8_blend)(&py, (__mmask8)neg, &npy);
        MSM_F_(v8_sub)(&t3, &py, &qy);
        MSM_F_(v8_mul)(&lam, &t3, &dinv);
        MSM_F_(v8_sqr)(&x3, &lam);
        MSM_F_(v8_sub)(&x3, &x3, &qx);
        MSM_F_(v8_sub)(&x3, &x3, &px);
        MSM_F_(v8_sub)(&t3, &qx, &x3);
        MSM_F_(v8_mul)(&t3, &lam, &t3);
        MSM_F_(v8_sub)(&t3, &t3, &qy);
        unsigned spec = a->vspec[g], st = valid & ~spec;
        MSM_F_(v8_scatter)(qq, offsetof(MSM_(affine_t), x), &x3, st);
        MSM_F_(v8_scatter)(qq, offsetof(MSM_(affine_t), y), &t3, st);
        for (unsigned k = 0; spec; k++, spec >>= 1)
            if (spec & 1) {
                const MSM_I_(aff_op) *o = &a->op[8 * g + k];
                MSM_I_(aff_special)(a, o->b, o->p, o->neg);
            }
    }
    a->n = 0;
    a->batch_id++;
}
#endif

/* Apply the queued additions: bucket[b] += ±P for distinct buckets. */
static void MSM_I_(aff_flush)(MSM_I_(aff_state) *a)
{
    size_t n = a->n;
    if (n == 0)
        return;
#if defined(CUZK_IFMA)
    if (a->vec && n >= 8) {
        MSM_I_(aff_flush_v8)(a);
        return;
    }
#endif
    MSM_F_(t) acc;
    MSM_F_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        const MSM_(affine_t) *p = a->op[i].p;
        const MSM_(affine_t) *q = &a->bk[a->op[i].b];
        MSM_F_(sub_inl)(&a->den[i], &p->x, &q->x);
        if (CUZK_UNLIKELY(MSM_F_(is_zero_inl)(&a->den[i])))
            MSM_F_(set_one)(&a->den[i]); /* handled apart; keep the product invertible */
        a->pref[i] = acc;
        MSM_F_(mul_inl)(&acc, &acc, &a->den[i]);
    }
    MSM_F_(inv_vt)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (i >= 2)
            MSM_I_(prefetch_obj)(&a->bk[a->op[i - 2].b], sizeof(MSM_(affine_t)));
        MSM_F_(t) dinv;
        MSM_F_(mul_inl)(&dinv, &acc, &a->pref[i]); /* 1/den[i] */
        MSM_F_(mul_inl)(&acc, &acc, &a->den[i]);
        const MSM_(affine_t) *p = a->op[i].p;
        uint32_t b = a->op[i].b;
        MSM_(affine_t) *q = &a->bk[b];
        if (CUZK_UNLIKELY(MSM_F_(eq_inl)(&p->x, &q->x))) {
            MSM_I_(aff_special)(a, b, p, a->op[i].neg);
            continue;
        }
        /* slope (y_p' - y_q)/(x_p - x_q) with y_p' = ±y_p; for -P the
         * numerator is -(y_p + y_q) */
        MSM_F_(t) lam, t, x3;
        if (a->op[i].neg) {
            MSM_F_(add_inl)(&t, &q->y, &p->y);
            MSM_F_(neg_inl)(&t, &t);
        } else {
            MSM_F_(sub_inl)(&t, &p->y, &q->y);
        }
        MSM_F_(mul_inl)(&lam, &t, &dinv);
        MSM_F_(sqr_inl)(&x3, &lam);
        MSM_F_(sub_inl)(&x3, &x3, &q->x);
        MSM_F_(sub_inl)(&x3, &x3, &p->x);
        MSM_F_(sub_inl)(&t, &q->x, &x3);
        MSM_F_(mul_inl)(&t, &lam, &t);
        MSM_F_(sub_inl)(&q->y, &t, &q->y);
        q->x = x3;
    }
    a->n = 0;
    a->batch_id++;
}

/* Queue bucket[b] += ±P, or place it directly; false if the bucket already
 * has an addition in this batch (the caller defers it). */
CUZK_INLINE bool MSM_I_(aff_place)(MSM_I_(aff_state) *a, uint32_t b, const MSM_(affine_t) *p,
                                   uint32_t neg)
{
    if (!a->occ[b]) {
        if (neg)
            MSM_(affine_neg)(&a->bk[b], p);
        else
            a->bk[b] = *p;
        a->occ[b] = 1;
        return true;
    }
    if (a->tag[b] == a->batch_id)
        return false;
    a->tag[b] = a->batch_id;
    MSM_I_(aff_op) *o = &a->op[a->n++];
    o->b = b;
    o->neg = neg;
    o->p = p;
    return true;
}

/* Flush the batch, then retry every deferred addition once (they go into
 * the next batch, which is flushed whenever it fills up). */
static void MSM_I_(aff_flush_retry)(MSM_I_(aff_state) *a)
{
    MSM_I_(aff_flush)(a);
    size_t cnt = a->pn;
    for (size_t k = 0; k < cnt; k++) {
        MSM_I_(aff_op) o = a->pend[a->ph];
        a->ph = (a->ph + 1) % MSM_AFFINE_PEND;
        a->pn--;
        if (MSM_I_(aff_place)(a, o.b, o.p, o.neg)) {
            if (a->n == a->bmax)
                MSM_I_(aff_flush)(a);
        } else {
            a->pend[(a->ph + a->pn) % MSM_AFFINE_PEND] = o;
            a->pn++;
        }
    }
}

CUZK_INLINE void MSM_I_(aff_add)(MSM_I_(aff_state) *a, uint32_t b, const MSM_(affine_t) *p,
                                 uint32_t neg)
{
    if (MSM_I_(aff_place)(a, b, p, neg)) {
        if (a->n == a->bmax)
            MSM_I_(aff_flush_retry)(a);
        return;
    }
    /* Deferred; a full FIFO is drained first. The loop only repeats when
     * every deferred addition targets one bucket (degenerate inputs). */
    while (a->pn == MSM_AFFINE_PEND)
        MSM_I_(aff_flush_retry)(a);
    a->pend[(a->ph + a->pn) % MSM_AFFINE_PEND] = (MSM_I_(aff_op)){b, neg, p};
    a->pn++;
}

/* End of a task: apply everything, except a small remainder of mutually
 * conflicting additions, which goes to the leftover list. */
static void MSM_I_(aff_drain)(MSM_I_(aff_state) *a)
{
    a->ln = 0;
    for (;;) {
        MSM_I_(aff_flush_retry)(a);
        /* Now the batch holds at most one addition per bucket and the FIFO
         * the ones conflicting with it. A batch too small to be worth an
         * inversion joins the leftovers, as does the FIFO, if they fit. */
        if (a->n >= 32 || a->n + a->pn > a->lcap)
            continue;
        for (size_t i = 0; i < a->n; i++)
            a->left[a->ln++] = a->op[i];
        for (size_t k = 0; k < a->pn; k++)
            a->left[a->ln++] = a->pend[(a->ph + k) % MSM_AFFINE_PEND];
        a->n = a->pn = a->ph = 0;
        a->batch_id++;
        return;
    }
}

typedef struct {
    const MSM_(affine_t) *bases;
    const MSM_FR_(t) *scalars;
    const uint32_t *idx; /* NULL: identity */
    size_t m;
    unsigned c, splits, windows;
    unsigned bits;       /* scalars are below 2^bits */
    unsigned group;      /* windows per batch-affine task (one shared batch) */
    size_t nbuckets;
    MSM_(xyzz_t) *buckets; /* threads x nbuckets (XYZZ kernel) */
    MSM_I_(aff_state) *aff; /* threads (batch-affine kernel), else NULL */
    MSM_(xyzz_t) *results; /* windows x splits */
} MSM_I_(pip_ctx);

/* Batch-affine accumulation of windows [w0, w0 + gw) over points [lo, hi),
 * then one running sum per window. The windows share one batch (bucket
 * index = local window · 2^(c-1) + |digit| - 1), so small windows still get
 * batches large enough to amortise the inversion. */
static void MSM_I_(pip_task_affine)(MSM_I_(pip_ctx) *c, MSM_I_(aff_state) *a, unsigned w0,
                                    unsigned gw, size_t lo, size_t hi, size_t part)
{
    const unsigned cb = c->c;
    const size_t nb1 = c->nbuckets, nbt = nb1 * gw;
    /* The top window only has digits 0..2^tb (tb = bits - c·(windows-1)):
     * its points all land in R = 2^tb buckets, so batches would be cut
     * short by conflicts (measured on bn254 2^16, c = 13: 786 inversions
     * for that window vs 61 for the others). Its points are spread over
     * K = 2^(c-1)/R replicas of those buckets (point k to replica k mod K);
     * the running sum adds the replicas of a bucket together. */
    size_t top_g = (size_t)-1, R = nb1, K = 1;
    if (w0 + gw == c->windows) {
        unsigned tb = c->bits - cb * (c->windows - 1);
        if (tb + 1 < cb) {
            top_g = gw - 1;
            R = (size_t)1 << tb;
            K = nb1 / R;
        }
    }
    memset(a->occ, 0, nbt);
    memset(a->tag, 0, nbt * sizeof *a->tag);
    a->batch_id = 1;
    a->n = a->ph = a->pn = 0;
    a->bmax = CUZK_MIN((size_t)MSM_AFFINE_BATCH, nbt / 4);
    enum { PB = MSM_BATCH / 4 };
    int dg[PB][MSM_AFFINE_MAX_GROUP];
    size_t ix[PB];
    for (size_t k0 = lo; k0 < hi; k0 += PB) {
        size_t np = CUZK_MIN((size_t)PB, hi - k0);
        for (size_t j = 0; j < np; j++) {
            size_t i = c->idx ? c->idx[k0 + j] : k0 + j;
            ix[j] = i;
            for (unsigned g = 0; g < gw; g++)
                dg[j][g] = MSM_I_(digit)(c->scalars[i].l, w0 + g, cb);
        }
        for (size_t j = 0; j < np; j++) {
            if (j + MSM_PREFETCH < np) {
                const size_t jn = j + MSM_PREFETCH;
                MSM_I_(prefetch_obj)(&c->bases[ix[jn]], sizeof(MSM_(affine_t)));
                for (unsigned g = 0; g < gw; g++) {
                    int dn = dg[jn][g];
                    if (dn)
                        MSM_I_(prefetch_obj)(&a->bk[g * nb1 + (size_t)(dn > 0 ? dn : -dn) - 1 +
                                                    (g == top_g ? (k0 + jn) % K * R : 0)],
                                             sizeof(MSM_(affine_t)));
                }
            }
            const MSM_(affine_t) *p = &c->bases[ix[j]];
            if (CUZK_UNLIKELY(MSM_I_(aff_inf)(p)))
                continue;
            for (unsigned g = 0; g < gw; g++) {
                int d = dg[j][g];
                if (d == 0)
                    continue;
                size_t bi = g * nb1 + (size_t)(d > 0 ? d : -d) - 1;
                if (g == top_g)
                    bi += (k0 + j) % K * R;
                MSM_I_(aff_add)(a, (uint32_t)bi, p, d < 0);
            }
        }
    }
    MSM_I_(aff_drain)(a);

    /* Leftovers sorted by bucket, descending, to merge into the running sums
     * (a point added to acc at bucket b counts (b+1) times, as if it were in
     * the bucket). */
    MSM_I_(aff_op) *lf = a->left;
    size_t ln = a->ln;
    for (size_t i = 0; i < ln && top_g != (size_t)-1; i++)
        if (lf[i].b >= top_g * nb1) /* replica -> its bucket */
            lf[i].b = (uint32_t)(top_g * nb1 + (lf[i].b - top_g * nb1) % R);
    for (size_t i = 1; i < ln; i++) {
        MSM_I_(aff_op) o = lf[i];
        size_t j = i;
        while (j > 0 && lf[j - 1].b < o.b) {
            lf[j] = lf[j - 1];
            j--;
        }
        lf[j] = o;
    }
    size_t li = 0;
    for (unsigned g = gw; g-- > 0;) {
        MSM_(xyzz_t) acc, sum;
        MSM_(xyzz_set_inf)(&acc);
        MSM_(xyzz_set_inf)(&sum);
        const size_t nbw = g == top_g ? R : nb1, reps = g == top_g ? K : 1;
        for (size_t b = nbw; b-- > 0;) {
            size_t gb = g * nb1 + b;
            for (size_t r = 0; r < reps; r++)
                if (a->occ[gb + r * R])
                    MSM_(xyzz_add_affine)(&acc, &acc, &a->bk[gb + r * R]);
            for (; li < ln && lf[li].b == gb; li++) {
                if (lf[li].neg)
                    MSM_(xyzz_sub_affine)(&acc, &acc, lf[li].p);
                else
                    MSM_(xyzz_add_affine)(&acc, &acc, lf[li].p);
            }
            MSM_(xyzz_add)(&sum, &sum, &acc);
        }
        c->results[(size_t)(w0 + g) * c->splits + part] = sum;
    }
}

static void MSM_I_(pip_task)(void *vctx, size_t begin, size_t end, int worker)
{
    MSM_I_(pip_ctx) *c = vctx;
    const unsigned cb = c->c;
    for (size_t t = begin; t < end; t++) {
        unsigned w = (unsigned)(t / c->splits);
        size_t part = t % c->splits;
        size_t lo = c->m / c->splits * part + CUZK_MIN(part, c->m % c->splits);
        size_t hi = lo + c->m / c->splits + (part < c->m % c->splits ? 1 : 0);
        if (c->aff) {
            unsigned w0 = w * c->group;
            MSM_I_(pip_task_affine)(c, &c->aff[worker], w0, CUZK_MIN(c->group, c->windows - w0), lo,
                                    hi, part);
            continue;
        }
        MSM_(xyzz_t) *bk = c->buckets + (size_t)worker * c->nbuckets;
        memset(bk, 0, c->nbuckets * sizeof *bk); /* zz = 0: all at infinity */

        int dg[MSM_BATCH];
        size_t ix[MSM_BATCH];
        for (size_t k0 = lo; k0 < hi; k0 += MSM_BATCH) {
            size_t nb = CUZK_MIN((size_t)MSM_BATCH, hi - k0);
            for (size_t j = 0; j < nb; j++) {
                size_t i = c->idx ? c->idx[k0 + j] : k0 + j;
                ix[j] = i;
                dg[j] = MSM_I_(digit)(c->scalars[i].l, w, cb);
            }
            for (size_t j = 0; j < MSM_PREFETCH && j < nb; j++)
                if (dg[j]) {
                    MSM_I_(prefetch_obj)(&bk[(dg[j] > 0 ? dg[j] : -dg[j]) - 1],
                                         sizeof(MSM_(xyzz_t)));
                    __builtin_prefetch(&c->bases[ix[j]], 0, 3);
                }
            for (size_t j = 0; j < nb; j++) {
                if (j + MSM_PREFETCH < nb) {
                    int dn = dg[j + MSM_PREFETCH];
                    if (dn) {
                        MSM_I_(prefetch_obj)(&bk[(dn > 0 ? dn : -dn) - 1], sizeof(MSM_(xyzz_t)));
                        MSM_I_(prefetch_obj)(&c->bases[ix[j + MSM_PREFETCH]],
                                             sizeof(MSM_(affine_t)));
                    }
                }
                int d = dg[j];
                if (d > 0)
                    MSM_(xyzz_add_affine)(&bk[d - 1], &bk[d - 1], &c->bases[ix[j]]);
                else if (d < 0)
                    MSM_(xyzz_sub_affine)(&bk[-d - 1], &bk[-d - 1], &c->bases[ix[j]]);
            }
        }

        /* sum_b (b+1)·bucket[b] by a running sum from the top. */
        MSM_(xyzz_t) acc, sum;
        MSM_(xyzz_set_inf)(&acc);
        MSM_(xyzz_set_inf)(&sum);
        for (size_t b = c->nbuckets; b-- > 0;) {
            if (!MSM_(xyzz_is_inf)(&bk[b]))
                MSM_(xyzz_add)(&acc, &acc, &bk[b]);
            MSM_(xyzz_add)(&sum, &sum, &acc);
        }
        c->results[t] = sum;
    }
}

/* Pippenger over m points (bases[idx[k]], scalars[idx[k]]) -> *res. */
/* Scalars below 2^bits (bits = MSM_FR_(BITS), or 64 for the small-scalar list). */
static cuzk_status MSM_I_(pippenger)(MSM_(xyzz_t) *res, const MSM_(affine_t) *bases,
                                     const MSM_FR_(t) *scalars, const uint32_t *idx, size_t m,
                                     unsigned bits, const cuzk_msm_opts *opts, cuzk_pool *pool,
                                     cuzk_error *e)
{
    MSM_(xyzz_set_inf)(res);
    if (m == 0)
        return CUZK_OK;
    int T = cuzk_pool_size(pool);
    cuzk_msm_plan plan;
    if (opts && opts->c)
        cuzk_msm_plan_fixed(&plan, m, bits, T, sizeof(MSM_(xyzz_t)), opts->c,
                            opts->splits ? opts->splits : 1);
    else
        cuzk_msm_plan_make(&plan, m, bits, T, sizeof(MSM_(xyzz_t)));
    if (opts && opts->splits && !opts->c)
        cuzk_msm_plan_fixed(&plan, m, bits, T, sizeof(MSM_(xyzz_t)), plan.c, opts->splits);

    MSM_I_(pip_ctx) c;
    c.bases = bases;
    c.scalars = scalars;
    c.idx = idx;
    c.m = m;
    c.c = plan.c;
    c.splits = plan.splits;
    c.nbuckets = plan.buckets;
    c.buckets = NULL;
    c.aff = NULL;
    c.windows = plan.windows;
    c.bits = bits;
    c.group = 1;
    c.results = cuzk_alloc(plan.tasks, sizeof(MSM_(xyzz_t)));
    bool affine = plan.c >= MSM_AFFINE_MIN_C && !(opts && opts->no_affine);
    bool ok = c.results != NULL;
    size_t ntasks = plan.tasks;
    if (ok && affine) {
        /* Group windows until a task has MSM_AFFINE_GROUP_BUCKETS buckets,
         * keeping the number of tasks a multiple of the threads. */
        unsigned g0 = (unsigned)CUZK_MAX((size_t)1, MSM_AFFINE_GROUP_BUCKETS / plan.buckets);
        g0 = CUZK_MIN(g0, (unsigned)MSM_AFFINE_MAX_GROUP);
        unsigned ng = (plan.windows + g0 - 1) / g0;
        if (ng * plan.splits < (unsigned)T)
            ng = CUZK_MIN(plan.windows, ((unsigned)T + plan.splits - 1) / plan.splits);
        else if (T > 1 && (ng * plan.splits) % (unsigned)T)
            ng = CUZK_MIN(plan.windows, ng + ((unsigned)T - (ng * plan.splits) % (unsigned)T));
        c.group = (plan.windows + ng - 1) / ng;
        ng = (plan.windows + c.group - 1) / c.group;
        ntasks = (size_t)ng * plan.splits;
        c.aff = cuzk_calloc((size_t)T, sizeof *c.aff);
        ok = c.aff != NULL;
        for (int i = 0; ok && i < T; i++) {
            MSM_I_(aff_state) *a = &c.aff[i];
            a->nb = plan.buckets * c.group;
            a->bmax = CUZK_MIN((size_t)MSM_AFFINE_BATCH, a->nb / 4);
            a->bk = cuzk_alloc(a->nb, sizeof *a->bk);
            a->occ = cuzk_alloc(a->nb, 1);
            a->tag = cuzk_alloc(a->nb, sizeof *a->tag);
            a->op = cuzk_alloc(a->bmax, sizeof *a->op);
            a->den = cuzk_alloc(a->bmax, sizeof *a->den);
            a->pref = cuzk_alloc(a->bmax, sizeof *a->pref);
            a->lcap = 4 * MSM_AFFINE_PEND;
            a->left = cuzk_alloc(a->lcap, sizeof *a->left);
            ok = a->bk && a->occ && a->tag && a->op && a->den && a->pref && a->left;
#if defined(CUZK_IFMA)
            if (ok && cuzk_ifma_enabled()) {
                size_t groups = (a->bmax + 7) / 8;
                a->vden = cuzk_alloc(groups, sizeof(MSM_F_(v8_t)));
                a->vpref = cuzk_alloc(groups, sizeof(MSM_F_(v8_t)));
                a->vspec = cuzk_alloc(groups, 1);
                ok = a->vden && a->vpref && a->vspec;
                a->vec = ok;
            }
#endif
        }
    } else if (ok) {
        c.buckets = cuzk_alloc((size_t)T * plan.buckets, sizeof(MSM_(xyzz_t)));
        ok = c.buckets != NULL;
    }
    if (ok)
        cuzk_parallel_for(pool, ntasks, 1, MSM_I_(pip_task), &c);
    if (c.aff) {
        for (int i = 0; i < T; i++) {
            MSM_I_(aff_state) *a = &c.aff[i];
            cuzk_free(a->bk);
            cuzk_free(a->occ);
            cuzk_free(a->tag);
            cuzk_free(a->op);
            cuzk_free(a->left);
            cuzk_free(a->den);
            cuzk_free(a->pref);
            cuzk_free(a->vden);
            cuzk_free(a->vpref);
            cuzk_free(a->vspec);
        }
        cuzk_free(c.aff);
    }
    if (!ok) {
        cuzk_free(c.buckets);
        cuzk_free(c.results);
        return cuzk_err(e, CUZK_ERR_NOMEM, "msm: out of memory (%u threads x 2^%u buckets)",
                        (unsigned)T, plan.c - 1);
    }

    /* Horner over windows, most significant first. */
    MSM_(xyzz_t) total;
    MSM_(xyzz_set_inf)(&total);
    for (unsigned w = plan.windows; w-- > 0;) {
        if (!MSM_(xyzz_is_inf)(&total))
            for (unsigned i = 0; i < plan.c; i++)
                MSM_(xyzz_dbl)(&total, &total);
        for (unsigned p = 0; p < plan.splits; p++)
            MSM_(xyzz_add)(&total, &total, &c.results[(size_t)w * plan.splits + p]);
    }
    *res = total;
    cuzk_free(c.buckets);
    cuzk_free(c.results);
    return CUZK_OK;
}

cuzk_status MSM_(msm_opts)(MSM_(jac_t) *out, const MSM_(affine_t) *bases, const MSM_FR_(t) *scalars,
                           size_t n, const cuzk_msm_opts *opts, cuzk_pool *pool, cuzk_error *e)
{
    MSM_(jac_set_inf)(out);
    if (n == 0)
        return CUZK_OK;
    if (!bases || !scalars)
        return cuzk_err(e, CUZK_ERR_USAGE, "msm: NULL bases or scalars");

    bool fast01 = !(opts && opts->no_fast01) && n <= (size_t)UINT32_MAX;
    MSM_(xyzz_t) total, part;
    cuzk_status st;
    if (!fast01) {
        st = MSM_I_(pippenger)(&total, bases, scalars, NULL, n, MSM_FR_(BITS), opts, pool, e);
        if (st != CUZK_OK)
            return st;
        MSM_(xyzz_to_jac)(out, &total);
        return CUZK_OK;
    }

    /* Witness-like scalars are mostly 0, 1 or small: classify into zero
     * (skipped), one (summed directly), small (< 2^64: Pippenger over 65
     * bits, a quarter of the windows) and big. */
    size_t nch = (n + MSM_CLASSIFY_CHUNK - 1) / MSM_CLASSIFY_CHUNK;
    MSM_I_(cls_ctx) cc;
    cc.bases = bases;
    cc.scalars = scalars;
    cc.n = n;
    cc.idx = cuzk_alloc(n, sizeof(uint32_t));
    cc.sidx = cuzk_alloc(n, sizeof(uint32_t));
    cc.count = cuzk_alloc(nch, sizeof(size_t));
    cc.scount = cuzk_alloc(nch, sizeof(size_t));
    cc.ones = cuzk_alloc(nch, sizeof(MSM_(xyzz_t)));
    if (!cc.idx || !cc.sidx || !cc.count || !cc.scount || !cc.ones) {
        cuzk_free(cc.idx);
        cuzk_free(cc.sidx);
        cuzk_free(cc.count);
        cuzk_free(cc.scount);
        cuzk_free(cc.ones);
        return cuzk_err(e, CUZK_ERR_NOMEM, "msm: out of memory (index list of %zu)", n);
    }
    cuzk_parallel_for(pool, nch, 1, MSM_I_(cls_task), &cc);

    /* Compact the per-chunk lists and add up the 1-scalar sums. */
    size_t m = 0, ms = 0;
    MSM_(xyzz_set_inf)(&total);
    for (size_t q = 0; q < nch; q++) {
        if (m != q * MSM_CLASSIFY_CHUNK)
            memmove(cc.idx + m, cc.idx + q * MSM_CLASSIFY_CHUNK, cc.count[q] * sizeof(uint32_t));
        if (ms != q * MSM_CLASSIFY_CHUNK)
            memmove(cc.sidx + ms, cc.sidx + q * MSM_CLASSIFY_CHUNK, cc.scount[q] * sizeof(uint32_t));
        m += cc.count[q];
        ms += cc.scount[q];
        MSM_(xyzz_add)(&total, &total, &cc.ones[q]);
    }
    /* All scalars big: the list is the identity, skip the indirection. */
    st = MSM_I_(pippenger)(&part, bases, scalars, m == n ? NULL : cc.idx, m, MSM_FR_(BITS), opts,
                           pool, e);
    if (st == CUZK_OK) {
        MSM_(xyzz_add)(&total, &total, &part);
        st = MSM_I_(pippenger)(&part, bases, scalars, ms == n ? NULL : cc.sidx, ms, 64, opts, pool,
                               e);
    }
    cuzk_free(cc.idx);
    cuzk_free(cc.sidx);
    cuzk_free(cc.count);
    cuzk_free(cc.scount);
    cuzk_free(cc.ones);
    if (st != CUZK_OK)
        return st;
    MSM_(xyzz_add)(&total, &total, &part);
    MSM_(xyzz_to_jac)(out, &total);
    return CUZK_OK;
}

cuzk_status MSM_(msm)(MSM_(jac_t) *out, const MSM_(affine_t) *bases, const MSM_FR_(t) *scalars,
                      size_t n, cuzk_pool *pool, cuzk_error *e)
{
    return MSM_(msm_opts)(out, bases, scalars, n, NULL, pool, e);
}

/* ---- fixed-base batch multiplication --------------------------------------- */

typedef struct {
    const MSM_(affine_t) *table; /* windows x 2^(C-1): table[w][k-1] = k·2^(Cw)·base */
    unsigned windows;
    const MSM_FR_(t) *scalars;
    MSM_(affine_t) *out;
    size_t n;
    MSM_(jac_t) *scratch; /* threads x MSM_FIXED_SUB */
} MSM_I_(fix_ctx);

static void MSM_I_(fix_task)(void *vctx, size_t begin, size_t end, int worker)
{
    MSM_I_(fix_ctx) *c = vctx;
    const size_t nb = (size_t)1 << (MSM_FIXED_C - 1);
    MSM_(jac_t) *jac = c->scratch + (size_t)worker * MSM_FIXED_SUB;
    for (size_t s0 = begin; s0 < end; s0 += MSM_FIXED_SUB) {
        size_t len = CUZK_MIN((size_t)MSM_FIXED_SUB, end - s0);
        for (size_t j = 0; j < len; j++) {
            MSM_(xyzz_t) acc;
            MSM_(xyzz_set_inf)(&acc);
            const uint64_t *s = c->scalars[s0 + j].l;
            for (unsigned w = 0; w < c->windows; w++) {
                int d = MSM_I_(digit)(s, w, MSM_FIXED_C);
                if (d > 0)
                    MSM_(xyzz_add_affine)(&acc, &acc, &c->table[w * nb + (size_t)(d - 1)]);
                else if (d < 0)
                    MSM_(xyzz_sub_affine)(&acc, &acc, &c->table[w * nb + (size_t)(-d - 1)]);
            }
            MSM_(xyzz_to_jac)(&jac[j], &acc);
        }
        MSM_(jac_batch_to_affine)(c->out + s0, jac, len);
    }
}

cuzk_status MSM_(batch_mul_fixed)(MSM_(affine_t) *out, const MSM_(affine_t) *base,
                                  const MSM_FR_(t) *scalars, size_t n, cuzk_pool *pool,
                                  cuzk_error *e)
{
    if (n == 0)
        return CUZK_OK;
    if (!out || !base || !scalars)
        return cuzk_err(e, CUZK_ERR_USAGE, "batch_mul_fixed: NULL argument");
    if (MSM_(affine_is_inf)(base)) {
        for (size_t i = 0; i < n; i++)
            MSM_(affine_set_inf)(&out[i]);
        return CUZK_OK;
    }
    const unsigned windows = (MSM_FR_(BITS) + 1 + MSM_FIXED_C - 1) / MSM_FIXED_C;
    const size_t nb = (size_t)1 << (MSM_FIXED_C - 1);
    const size_t tn = windows * nb;
    int T = cuzk_pool_size(pool);
    MSM_(affine_t) *table = cuzk_alloc(tn, sizeof(MSM_(affine_t)));
    MSM_(jac_t) *tj = cuzk_alloc(tn, sizeof(MSM_(jac_t)));
    MSM_(jac_t) *scratch = cuzk_alloc((size_t)T * MSM_FIXED_SUB, sizeof(MSM_(jac_t)));
    if (!table || !tj || !scratch) {
        cuzk_free(table);
        cuzk_free(tj);
        cuzk_free(scratch);
        return cuzk_err(e, CUZK_ERR_NOMEM, "batch_mul_fixed: out of memory");
    }
    /* table[w][k-1] = k·P_w, P_w = 2^(Cw)·base. */
    MSM_(jac_t) pw;
    MSM_(jac_from_affine)(&pw, base);
    for (unsigned w = 0; w < windows; w++) {
        MSM_(jac_t) *row = tj + (size_t)w * nb;
        row[0] = pw;
        for (size_t k = 1; k < nb; k++)
            MSM_(jac_add)(&row[k], &row[k - 1], &pw);
        for (unsigned i = 0; i < MSM_FIXED_C; i++)
            MSM_(jac_dbl)(&pw, &pw);
    }
    MSM_(jac_batch_to_affine)(table, tj, tn);
    cuzk_free(tj);

    MSM_I_(fix_ctx) c = {table, windows, scalars, out, n, scratch};
    cuzk_parallel_for(pool, n, MSM_FIXED_SUB, MSM_I_(fix_task), &c);
    cuzk_free(table);
    cuzk_free(scratch);
    return CUZK_OK;
}

#undef MSM_CLASSIFY_CHUNK
#undef MSM_BATCH
#undef MSM_PREFETCH
#undef MSM_FIXED_C
#undef MSM_FIXED_SUB
#undef MSM_AFFINE_MIN_C
#undef MSM_AFFINE_BATCH
#undef MSM_AFFINE_PEND
#undef MSM_AFFINE_GROUP_BUCKETS
#undef MSM_AFFINE_MAX_GROUP

#endif /* per-instance guard */

#undef MSM_
#undef MSM_P_
#undef MSM_I_
#undef MSM_FR_
#undef MSM_F_
#undef MSM_G
