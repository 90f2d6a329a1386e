/* The PoRep-shaped development circuit, key and witness, written once and
 * instantiated per curve.
 *
 * Include from setup.c after setup_impl.h of the same curve, with
 * `#define POREP_CURVE bn254` (a curve listed in curve/instances.h);
 * POREP_CURVE is #undef'd at the end. Defines, for c:
 *   <c>_porep_build   shape + seed -> in-memory zkey and witness
 *   <c>_porep_r1cs    the same circuit as an r1cs (tests)
 *
 * The circuit has the measured shape of a Filecoin PoRep partition
 * (shared/reference/engine-design-cuzk.md §7): per row 2.4 A, 1.0 B and 2.2 C
 * terms, 99.7 % of the private wires in A and a quarter in B, ONE as the only
 * public B wire, 95 % of the private values 0 or 1. Every row but a few creates one private
 * wire (130,169,893 wires for 130,278,541 rows at full size); the rows that
 * create none re-check a bit. Kinds (weights in percent):
 *   25 bit     (1 − y)·y = 0               A=[ONE, y:−1]  B=[y]    C=[]
 *   35 xor     2a·b = a + b − y            A=[a:2]        B=[b]    C=[a, b, y:−1]
 *   40 linear  (Σ 2^t_k x_k)·1 = y + 2^t z + K
 *              A: 4 terms (3 in one row of 8) over recent bits (the oldest
 *              created wire that is in no A term yet, when there is one:
 *              xor and linear outputs; all but one in 80 of them wait for
 *              this, so ~99.7 % of the private wires end up in A as in the
 *              real partition), sometimes a field wire or a public signal;
 *              B=[ONE]; C: y, a recent bit z
 *              (left out in one row of 8) and ONE with the constant K that
 *              balances the row, so y may be any value: a bit, or (one row of
 *              8) a full field element.
 * b of a xor is an earlier bit wire, so only the bit rows bring new wires
 * into B. A is 2/4 + 0.35 + 0.4·3.875 = 2.4 terms a row, C 1.05 + 0.4·2.875 = 2.2.
 *
 * As in the generator of `cuzk gen` (gen_impl.h), rows come in chunks of
 * POREP_CHUNK that refer only to their own wires, ONE and the public signals,
 * with random streams keyed by (seed, chunk): chunks are made in parallel and
 * the result does not depend on the thread count. The key is the dev setup of
 * setup_impl.h (same formulas, same helpers, the same bytes as `cuzk setup`
 * of the r1cs) without an r1cs in memory: a counting pass sizes the
 * coefficient section, a second pass makes each chunk again and writes its
 * coefficient records, its Lagrange values and its share of u, v, w (ONE and
 * the public wires into per-worker sums) and its witness values. */

#include <string.h>

#include "curve/instances.h"
#include "groth16/ctx.h"
#include "groth16/gen_rng.h"
#include "util/common.h"
#include "util/templates.h"

#define PO_(name) CUZK_NAME(POREP_CURVE, name)
#if !CUZK_NAME(POREP_CURVE, C_X_ABS)
#error "porep_impl.h: POREP_CURVE must name a curve listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_POREP_IMPL, CUZK_NAME(POREP_CURVE, C_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct {
    const cuzk_porep_shape *s;
    uint64_t seed;
    PO_(fr_t) *pub;            /* Montgomery values of wires 1..n_pub */
    PO_(fr_t) pow2[32];        /* 2^t, Montgomery */
    PO_(fr_t) one, two, minus_one;
} PO_(po_shared);

/* One chunk's rows: terms per matrix (row offsets, wire, Montgomery
 * coefficient) and the values of the wires it creates. */
typedef struct {
    uint32_t rows, nw;         /* rows; wires created (the first nw rows) */
    uint64_t row0, wire0;      /* first row; first created wire */
    uint32_t *off[3];          /* POREP_CHUNK + 1 each */
    uint32_t *wire[3];
    PO_(fr_t) *coef[3];
    PO_(fr_t) *val;            /* POREP_CHUNK */
    uint64_t bits, bwires;     /* created values that are 0/1; created wires put into B */
    uint32_t *pend;            /* POREP_CHUNK: created wires waiting for a term in A (a queue) */
    uint8_t *in_a;             /* POREP_CHUNK: created wire (local index) has a term in A */
} PO_(po_rows);

/* Wires created by chunks before q. */
static uint64_t PO_(po_wires_before)(const cuzk_porep_shape *s, uint64_t q)
{
    uint64_t r = CUZK_MIN(q * POREP_CHUNK, s->m);
    return (uint64_t)(((unsigned __int128)s->n_aux * r) / s->m);
}

static void PO_(po_random)(PO_(fr_t) *mont, gen_rng *g)
{
    PO_(fr_t) r;
    unsigned top = PO_(fr_BITS) - 64 * (PO_(fr_LIMBS) - 1);
    uint64_t mask = top >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << top) - 1;
    do {
        for (int i = 0; i < PO_(fr_LIMBS); i++)
            r.l[i] = gen_rng_next(g);
        r.l[PO_(fr_LIMBS) - 1] &= mask;
    } while (!PO_(fr_raw_is_canonical)(&r));
    PO_(fr_to_mont)(mont, &r);
}

/* Appends term (w, c) to matrix t of the current row, keeping the row's
 * terms sorted by wire (as the r1cs format asks; rows have <= 4 terms). */
static void PO_(po_term)(PO_(po_rows) *o, int t, uint32_t *n, uint32_t w, const PO_(fr_t) *c)
{
    uint32_t at = *n;
    uint32_t *wi = o->wire[t];
    PO_(fr_t) *co = o->coef[t];
    while (at > o->off[t][o->rows] && wi[at - 1] > w) {
        wi[at] = wi[at - 1];
        co[at] = co[at - 1];
        at--;
    }
    wi[at] = w;
    co[at] = *c;
    (*n)++;
}

/* Generates chunk q into o (buffers of POREP_CHUNK rows). */
static void PO_(po_chunk)(const PO_(po_shared) *sh, uint64_t q, PO_(po_rows) *o)
{
    const cuzk_porep_shape *s = sh->s;
    const uint32_t P = s->n_pub;
    o->row0 = q * POREP_CHUNK;
    const uint32_t rows = (uint32_t)CUZK_MIN((uint64_t)POREP_CHUNK, s->m - o->row0);
    o->wire0 = 1 + (uint64_t)P + PO_(po_wires_before)(s, q);
    o->nw = (uint32_t)(PO_(po_wires_before)(s, q + 1) - PO_(po_wires_before)(s, q));
    o->bits = o->bwires = 0;
    gen_rng rs, rv;
    gen_rng_seed(&rs, sh->seed, q, 0);
    gen_rng_seed(&rv, sh->seed, q, 1);
    /* Recent bit wires (local index), those of them in B, field wires. */
    uint32_t bits[POREP_RING], bb[POREP_RING], fw[POREP_FRING];
    unsigned nb = 0, hb = 0, nbb = 0, hbb = 0, nf = 0, hf = 0;
    uint32_t n[3] = {0, 0, 0};
    uint32_t *pend = o->pend, ph = 0, pt = 0; /* the queue pend[ph .. pt) */
    memset(o->in_a, 0, rows);
    o->rows = 0;
    for (int t = 0; t < 3; t++)
        o->off[t][0] = 0;
    for (uint32_t i = 0; i < rows; i++) {
        o->rows = i; /* po_term sorts within [off[t][i], n) */
        const bool creates = i < o->nw;
        const uint32_t y = (uint32_t)(o->wire0 + i);
        int kind = 0; /* 0 bit, 1 xor, 2 linear, 3 check */
        if (creates) {
            unsigned u = gen_rng_below(&rs, 100);
            kind = u < 25 ? 0 : u < 60 ? 1 : 2;
            if (kind == 1 && (nbb < 1 || nb < 2))
                kind = 0;
            if (kind == 2 && nb < 4)
                kind = 0;
        } else {
            kind = nbb ? 3 : 0;
        }
        PO_(fr_t) v;
        bool is_bit = true;
        switch (kind) {
        case 0: /* bit: (1 − y)·y = 0 */
        case 3: { /* check of an earlier bit x: (1 − x)·x = 0 */
            uint32_t x = y;
            if (kind == 3) {
                x = (uint32_t)(o->wire0 + bb[(hbb + POREP_RING - 1 - gen_rng_below(&rs, nbb)) % POREP_RING]);
            } else {
                v = (gen_rng_next(&rv) >> 63) ? sh->one : (PO_(fr_t)){{0}};
            }
            PO_(po_term)(o, 0, &n[0], 0, &sh->one);
            PO_(po_term)(o, 0, &n[0], x, &sh->minus_one);
            PO_(po_term)(o, 1, &n[1], x, &sh->one);
            o->in_a[x - o->wire0] = 1;
            break;
        }
        case 1: { /* xor: 2a·b = a + b − y */
            uint32_t lb = bb[(hbb + POREP_RING - 1 - gen_rng_below(&rs, nbb)) % POREP_RING], la;
            do
                la = bits[(hb + POREP_RING - 1 - gen_rng_below(&rs, nb)) % POREP_RING];
            while (la == lb);
            const bool a1 = !PO_(fr_is_zero)(&o->val[la]), b1 = !PO_(fr_is_zero)(&o->val[lb]);
            v = a1 != b1 ? sh->one : (PO_(fr_t)){{0}};
            const uint32_t a = (uint32_t)(o->wire0 + la), b = (uint32_t)(o->wire0 + lb);
            PO_(po_term)(o, 0, &n[0], a, &sh->two);
            o->in_a[la] = 1;
            PO_(po_term)(o, 1, &n[1], b, &sh->one);
            PO_(po_term)(o, 2, &n[2], a, &sh->one);
            PO_(po_term)(o, 2, &n[2], b, &sh->one);
            PO_(po_term)(o, 2, &n[2], y, &sh->minus_one);
            break;
        }
        default: { /* linear: (Σ 2^t x)·1 = y + 2^t z + K */
            const unsigned na = gen_rng_below(&rs, 8) ? 4 : 3, with_z = gen_rng_below(&rs, 8) != 0;
            is_bit = gen_rng_below(&rs, 8) != 0;
            uint32_t used[5];
            unsigned nu = 0;
            PO_(fr_t) sum;
            PO_(fr_set_zero)(&sum);
            for (unsigned k = 0; k < na; k++) {
                for (int tries = 0; tries < 8; tries++) {
                    const unsigned src = gen_rng_below(&rs, 64);
                    uint32_t w;
                    const PO_(fr_t) *xv;
                    if (src == 0 && P) { /* a public signal */
                        uint32_t p = gen_rng_below(&rs, P);
                        w = 1 + p;
                        xv = &sh->pub[p];
                    } else if (src < 5 && nf) { /* a field wire */
                        uint32_t l = fw[(hf + POREP_FRING - 1 - gen_rng_below(&rs, nf)) % POREP_FRING];
                        w = (uint32_t)(o->wire0 + l);
                        xv = &o->val[l];
                    } else { /* the oldest wire not yet in A, else a recent bit */
                        while (ph < pt && o->in_a[pend[ph]])
                            ph++;
                        const uint32_t l = ph < pt ? pend[ph]
                                                   : bits[(hb + POREP_RING - 1 - gen_rng_below(&rs, nb)) % POREP_RING];
                        w = (uint32_t)(o->wire0 + l);
                        xv = &o->val[l];
                    }
                    bool dup = false;
                    for (unsigned j = 0; j < nu; j++)
                        dup |= used[j] == w;
                    if (dup)
                        continue;
                    const PO_(fr_t) *c = &sh->pow2[gen_rng_below(&rs, 32)];
                    PO_(fr_t) t;
                    PO_(fr_mul)(&t, c, xv);
                    PO_(fr_add)(&sum, &sum, &t);
                    PO_(po_term)(o, 0, &n[0], w, c);
                    if (w >= o->wire0)
                        o->in_a[w - o->wire0] = 1;
                    used[nu++] = w;
                    break;
                }
            }
            PO_(po_term)(o, 1, &n[1], 0, &sh->one);
            if (is_bit)
                v = (gen_rng_next(&rv) >> 63) ? sh->one : (PO_(fr_t)){{0}};
            else
                PO_(po_random)(&v, &rv);
            PO_(fr_t) K;
            PO_(fr_sub)(&K, &sum, &v);
            if (with_z) {
                uint32_t l = bits[(hb + POREP_RING - 1 - gen_rng_below(&rs, nb)) % POREP_RING];
                const PO_(fr_t) *c = &sh->pow2[gen_rng_below(&rs, 32)];
                PO_(fr_t) t;
                PO_(fr_mul)(&t, c, &o->val[l]);
                PO_(fr_sub)(&K, &K, &t);
                PO_(po_term)(o, 2, &n[2], (uint32_t)(o->wire0 + l), c);
            }
            PO_(po_term)(o, 2, &n[2], 0, &K);
            PO_(po_term)(o, 2, &n[2], y, &sh->one);
            break;
        }
        }
        for (int t = 0; t < 3; t++)
            o->off[t][i + 1] = n[t];
        if (!creates)
            continue;
        o->val[i] = v;
        /* a created wire not in A yet waits for a linear row's A term; one
         * in 80 is left to chance (the real partition has ~0.3 % of its
         * private wires in no A term) */
        if (kind != 0 && gen_rng_below(&rs, 80))
            pend[pt++] = i;
        if (is_bit) {
            o->bits++;
            bits[hb] = i;
            hb = (hb + 1) % POREP_RING;
            nb += nb < POREP_RING;
            if (kind == 0) {
                o->bwires++;
                bb[hbb] = i;
                hbb = (hbb + 1) % POREP_RING;
                nbb += nbb < POREP_RING;
            }
        } else {
            fw[hf] = i;
            hf = (hf + 1) % POREP_FRING;
            nf += nf < POREP_FRING;
        }
    }
    o->rows = rows;
}

static void PO_(po_rows_free)(PO_(po_rows) *o)
{
    for (int t = 0; t < 3; t++) {
        cuzk_free(o->off[t]);
        cuzk_free(o->wire[t]);
        cuzk_free(o->coef[t]);
    }
    cuzk_free(o->val);
    cuzk_free(o->pend);
    cuzk_free(o->in_a);
}

static bool PO_(po_rows_alloc)(PO_(po_rows) *o)
{
    static const unsigned MAXT[3] = {4, 1, 3};
    memset(o, 0, sizeof *o);
    bool ok = (o->val = cuzk_alloc(POREP_CHUNK, sizeof *o->val)) != NULL;
    ok = ok && (o->pend = cuzk_alloc(POREP_CHUNK, sizeof *o->pend)) != NULL;
    ok = ok && (o->in_a = cuzk_alloc(POREP_CHUNK, 1)) != NULL;
    for (int t = 0; t < 3; t++) {
        o->off[t] = cuzk_alloc(POREP_CHUNK + 1, sizeof(uint32_t));
        o->wire[t] = cuzk_alloc((size_t)POREP_CHUNK * MAXT[t], sizeof(uint32_t));
        o->coef[t] = cuzk_alloc((size_t)POREP_CHUNK * MAXT[t], sizeof(PO_(fr_t)));
        ok = ok && o->off[t] && o->wire[t] && o->coef[t];
    }
    if (!ok)
        PO_(po_rows_free)(o);
    return ok;
}

static cuzk_status PO_(po_shared_init)(PO_(po_shared) *sh, const cuzk_porep_shape *s, uint64_t seed,
                                       cuzk_error *err)
{
    memset(sh, 0, sizeof *sh);
    sh->s = s;
    sh->seed = seed;
    for (int i = 0; i < 32; i++)
        PO_(fr_from_u64)(&sh->pow2[i], (uint64_t)1 << i);
    sh->one = sh->pow2[0];
    sh->two = sh->pow2[1];
    PO_(fr_neg)(&sh->minus_one, &sh->one);
    sh->pub = cuzk_alloc(s->n_pub ? s->n_pub : 1, sizeof *sh->pub);
    if (!sh->pub)
        return cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory");
    gen_rng rp;
    gen_rng_seed(&rp, seed, UINT64_MAX, 2);
    for (uint32_t i = 0; i < s->n_pub; i++)
        PO_(po_random)(&sh->pub[i], &rp);
    return CUZK_OK;
}

/* ---- the passes over the chunks ------------------------------------------ */

typedef struct {
    const PO_(po_shared) *sh;
    int mode;                  /* POREP_COUNT, POREP_KEY, POREP_R1CS (setup.c) */
    PO_(po_rows) *rows;        /* one per worker */
    PO_(fr_t) *lag, *scratch;  /* POREP_CHUNK per worker (POREP_KEY) */
    uint64_t (*cnt)[3];        /* per chunk: terms of A, B, C (POREP_COUNT writes, the others read prefixes) */
    uint64_t *bits, *bwires;   /* per chunk (POREP_COUNT) */
    /* POREP_KEY */
    PO_(fr_t) tau, scale, omega;
    PO_(fr_t) *u, *v, *w;      /* n_vars each */
    PO_(fr_t) *shared_uvw;     /* per worker: 3 x (n_pub + 1) sums of ONE and the public wires */
    cuzk_zkey *zk;
    /* POREP_KEY, POREP_R1CS */
    uint64_t (*pre)[3];        /* per chunk: terms of A, B, C before it */
    PO_(fr_t) *wit;            /* raw witness, n_vars */
    cuzk_r1cs *r;
} PO_(po_job);

static void PO_(po_chunks)(const PO_(po_job) *j, size_t lo, size_t hi, int worker)
{
    const cuzk_porep_shape *s = j->sh->s;
    PO_(po_rows) *o = &j->rows[worker];
    const uint32_t P = s->n_pub;
    for (size_t q = lo; q < hi; q++) {
        PO_(po_chunk)(j->sh, q, o);
        if (j->mode == POREP_COUNT) {
            for (int t = 0; t < 3; t++)
                j->cnt[q][t] = o->off[t][o->rows];
            j->bits[q] = o->bits;
            j->bwires[q] = o->bwires;
            continue;
        }
        for (uint32_t i = 0; i < o->nw; i++)
            PO_(fr_from_mont)(&j->wit[o->wire0 + i], &o->val[i]);
        if (j->mode == POREP_R1CS) {
            cuzk_r1cs *r = j->r;
            for (int t = 0; t < 3; t++) {
                cuzk_r1cs_matrix *mx = &r->m[t];
                const uint64_t base = j->pre[q][t];
                for (uint32_t i = 0; i < o->rows; i++)
                    mx->row[o->row0 + i] = base + o->off[t][i];
                for (uint32_t k = 0; k < o->off[t][o->rows]; k++) {
                    mx->wire[base + k] = o->wire[t][k];
                    PO_(fr_from_mont)(&mx->coef.POREP_CURVE[base + k], &o->coef[t][k]);
                }
            }
            continue;
        }
        /* L_i(tau) = scale · x_i / (tau − x_i), x_i = omega^i, for the chunk's rows. */
        PO_(fr_t) *lag = j->lag + (size_t)worker * POREP_CHUNK, *scr = j->scratch + (size_t)worker * POREP_CHUNK;
        PO_(fr_t) x0, x;
        uint64_t e = o->row0;
        PO_(fr_pow)(&x0, &j->omega, &e, 1);
        x = x0;
        for (uint32_t i = 0; i < o->rows; i++) {
            PO_(fr_sub)(&lag[i], &j->tau, &x);
            PO_(fr_mul)(&x, &x, &j->omega);
        }
        PO_(fr_batch_inv)(lag, lag, o->rows, scr);
        x = x0;
        for (uint32_t i = 0; i < o->rows; i++) {
            PO_(fr_t) t;
            PO_(fr_mul)(&t, &x, &j->scale);
            PO_(fr_mul)(&lag[i], &lag[i], &t);
            PO_(fr_mul)(&x, &x, &j->omega);
        }
        /* Records (per row: the A terms, then B), u, v, w. */
        cuzk_zkey *zk = j->zk;
        PO_(fr_t) *val = zk->coef_value.POREP_CURVE;
        PO_(fr_t) *acc[3] = {j->u, j->v, j->w};
        PO_(fr_t) *sh_acc = j->shared_uvw + (size_t)worker * 3 * (P + 1);
        uint64_t rec = j->pre[q][0] + j->pre[q][1];
        for (uint32_t i = 0; i < o->rows; i++) {
            const uint32_t row = (uint32_t)(o->row0 + i);
            for (int t = 0; t < 3; t++)
                for (uint32_t k = o->off[t][i]; k < o->off[t][i + 1]; k++) {
                    const uint32_t wi = o->wire[t][k];
                    if (t < 2) {
                        zk->coef_matrix[rec] = (uint32_t)t;
                        zk->coef_constraint[rec] = row;
                        zk->coef_signal[rec] = wi;
                        PO_(fr_to_mont)(&val[rec], &o->coef[t][k]); /* c·R² */
                        rec++;
                    }
                    PO_(fr_t) c;
                    PO_(fr_mul)(&c, &o->coef[t][k], &lag[i]);
                    PO_(fr_t) *d = wi <= P ? &sh_acc[(size_t)t * (P + 1) + wi] : &acc[t][wi];
                    PO_(fr_add)(d, d, &c);
                }
        }
    }
}

typedef struct {
    const PO_(po_job) *j;
    uint64_t c0;
} PO_(po_slice);

static void PO_(po_slice_range)(void *p, size_t lo, size_t hi, int worker)
{
    const PO_(po_slice) *sl = p;
    PO_(po_chunks)(sl->j, sl->c0 + lo, sl->c0 + hi, worker);
}

/* Runs j->mode over every chunk (per-worker row buffers allocated here), in
 * slices so that progress and cancellation are reported. */
static cuzk_status PO_(po_pass)(cuzk_ctx *ctx, PO_(po_job) *j, cuzk_phase phase, cuzk_error *err)
{
    const cuzk_porep_shape *s = j->sh->s;
    const uint64_t nch = (s->m + POREP_CHUNK - 1) / POREP_CHUNK;
    const int T = cuzk_pool_size(ctx->pool);
    j->rows = cuzk_calloc((size_t)T, sizeof *j->rows);
    cuzk_status st = j->rows ? CUZK_OK : cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory");
    for (int i = 0; !st && i < T; i++)
        if (!PO_(po_rows_alloc)(&j->rows[i]))
            st = cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory");
    const uint64_t slice = CUZK_MAX((uint64_t)T * 4, nch / 32 + 1);
    for (uint64_t c0 = 0; !st && c0 < nch; c0 += slice) {
        const uint64_t n = CUZK_MIN(slice, nch - c0);
        PO_(po_slice) sl = {j, c0};
        cuzk_parallel_for(ctx->pool, (size_t)n, 1, PO_(po_slice_range), &sl);
        cuzk_progress(ctx, phase, (double)(c0 + n) / (double)nch);
        st = cuzk_check_cancel(ctx, err);
    }
    for (int i = 0; j->rows && i < T; i++)
        PO_(po_rows_free)(&j->rows[i]);
    cuzk_free(j->rows);
    j->rows = NULL;
    return st;
}

/* Counting pass: per-chunk term counts and their prefixes; totals in info. */
static cuzk_status PO_(po_count)(cuzk_ctx *ctx, PO_(po_job) *j, cuzk_porep_info *info, cuzk_error *err)
{
    const cuzk_porep_shape *s = j->sh->s;
    const uint64_t nch = (s->m + POREP_CHUNK - 1) / POREP_CHUNK;
    j->cnt = cuzk_alloc(nch, sizeof *j->cnt);
    j->pre = cuzk_alloc(nch + 1, sizeof *j->pre);
    j->bits = cuzk_alloc(nch, sizeof *j->bits);
    j->bwires = cuzk_alloc(nch, sizeof *j->bwires);
    if (!j->cnt || !j->pre || !j->bits || !j->bwires)
        return cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory");
    j->mode = POREP_COUNT;
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_GEN_COUNT);
    cuzk_status st = PO_(po_pass)(ctx, j, CUZK_PHASE_GEN_COUNT, err);
    if (st)
        return st;
    cuzk_phase_end(ctx, &ph);
    memset(info, 0, sizeof *info);
    memset(j->pre[0], 0, sizeof j->pre[0]);
    for (uint64_t q = 0; q < nch; q++) {
        for (int t = 0; t < 3; t++)
            j->pre[q + 1][t] = j->pre[q][t] + j->cnt[q][t];
        info->bits += j->bits[q];
        info->b_private += j->bwires[q];
    }
    for (int t = 0; t < 3; t++)
        info->nnz[t] = j->pre[nch][t];
    info->constraints = s->m;
    info->n_public = s->n_pub;
    info->n_vars = s->n_vars;
    info->log_domain = s->log_domain;
    return CUZK_OK;
}

static void PO_(po_job_free)(PO_(po_job) *j)
{
    cuzk_free(j->cnt);
    cuzk_free(j->pre);
    cuzk_free(j->bits);
    cuzk_free(j->bwires);
}

/* The witness: ONE, the public signals, then what the chunks write. */
static cuzk_status PO_(po_witness_alloc)(const PO_(po_shared) *sh, cuzk_wtns *wt, cuzk_error *err)
{
    const cuzk_porep_shape *s = sh->s;
    cuzk_status st = cuzk_wtns_alloc(wt, s->curve, (uint32_t)s->n_vars, err);
    if (st)
        return st;
    PO_(fr_t) *w = wt->values.POREP_CURVE;
    PO_(fr_set_zero)(&w[0]);
    w[0].l[0] = 1;
    for (uint32_t i = 0; i < s->n_pub; i++)
        PO_(fr_from_mont)(&w[1 + i], &sh->pub[i]);
    return CUZK_OK;
}

static cuzk_status PO_(porep_r1cs)(cuzk_ctx *ctx, const cuzk_porep_shape *s, uint64_t seed, cuzk_r1cs *r,
                                   cuzk_wtns *wt, cuzk_error *err)
{
    PO_(po_shared) sh;
    PO_(po_job) j;
    cuzk_porep_info info;
    memset(&j, 0, sizeof j);
    memset(r, 0, sizeof *r);
    memset(wt, 0, sizeof *wt);
    cuzk_status st = PO_(po_shared_init)(&sh, s, seed, err);
    j.sh = &sh;
    if (!st)
        st = PO_(po_count)(ctx, &j, &info, err);
    if (!st)
        st = cuzk_r1cs_alloc(r, s->curve, (uint32_t)s->m, info.nnz, err);
    if (!st) {
        r->n_wires = (uint32_t)s->n_vars;
        r->n_pub_in = s->n_pub;
        r->n_labels = s->n_vars;
        for (int t = 0; t < 3; t++)
            r->m[t].row[s->m] = info.nnz[t];
        st = PO_(po_witness_alloc)(&sh, wt, err);
    }
    if (!st) {
        j.mode = POREP_R1CS;
        j.r = r;
        j.wit = wt->values.POREP_CURVE;
        st = PO_(po_pass)(ctx, &j, CUZK_PHASE_GEN_WRITE, err);
    }
    PO_(po_job_free)(&j);
    cuzk_free(sh.pub);
    return st;
}

/* The key: setup_impl.h's setup_build, with the circuit made chunk by chunk
 * instead of read from an r1cs. */
static cuzk_status PO_(porep_build)(cuzk_ctx *ctx, const cuzk_porep_shape *s, uint64_t seed,
                                    const cuzk_setup_toxic *toxic, int device, cuzk_zkey *zk, cuzk_wtns *wt,
                                    cuzk_porep_info *info, cuzk_error *err)
{
    const unsigned log_n = s->log_domain;
    const size_t n = (size_t)1 << log_n, nv = (size_t)s->n_vars;
    const uint32_t np = s->n_pub;
    PO_(po_shared) sh;
    PO_(po_job) j;
    PO_(setup_toxic_t) tx;
    PO_(fr_t) secret[6]; /* scale_n, scale_2n, delta_inv, omega, omega_2n, one */
    PO_(fr_t) *u = NULL, *v = NULL, *w = NULL, *lag = NULL, *scratch = NULL, *sums = NULL;
    const int T = cuzk_pool_size(ctx->pool);
    memset(&j, 0, sizeof j);
    memset(zk, 0, sizeof *zk);
    memset(wt, 0, sizeof *wt);
    memset(&tx, 0, sizeof tx);
    memset(secret, 0, sizeof secret);
    cuzk_status st = PO_(po_shared_init)(&sh, s, seed, err);
    j.sh = &sh;
    if (st)
        goto out;
    if (toxic) {
        const uint64_t *src[4] = {toxic->tau, toxic->alpha, toxic->beta, toxic->delta};
        PO_(fr_t) *dst[4] = {&tx.tau, &tx.alpha, &tx.beta, &tx.delta};
        for (int i = 0; i < 4; i++) {
            PO_(fr_t) raw;
            memcpy(raw.l, src[i], sizeof raw.l);
            if (!PO_(fr_raw_is_canonical)(&raw)) {
                st = cuzk_err(err, CUZK_ERR_USAGE, "porep: toxic waste not below r");
                goto out;
            }
            PO_(fr_to_mont)(dst[i], &raw);
        }
        if (!PO_(setup_tau_ok)(&tx.tau, log_n) || PO_(fr_is_zero)(&tx.alpha) || PO_(fr_is_zero)(&tx.beta) ||
            PO_(fr_is_zero)(&tx.delta)) {
            st = cuzk_err(err, CUZK_ERR_USAGE, "porep: unusable toxic waste (zero, or tau in the domain)");
            goto out;
        }
    } else if ((st = PO_(setup_random_toxic)(&tx, log_n, err))) {
        goto out;
    }
    double t0 = cuzk_now();
    if ((st = PO_(po_count)(ctx, &j, info, err)))
        goto out;

    zk->curve = s->curve;
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(s->curve);
    zk->n8q = cp->n8q;
    zk->n8r = cp->n8r;
    zk->n_vars = (uint32_t)nv;
    zk->n_public = np;
    zk->domain_size = (uint32_t)n;
    zk->log_domain = log_n;
    zk->n_coefs = info->nnz[0] + info->nnz[1] + np + 1;
    if ((st = cuzk_zkey_alloc(zk, err)) || (st = PO_(po_witness_alloc)(&sh, wt, err)))
        goto out;
    zk->coefs_sorted = true; /* written row by row (po_pass), the input rows after the others */
    u = cuzk_calloc(nv, sizeof *u);
    v = cuzk_calloc(nv, sizeof *v);
    w = cuzk_calloc(nv, sizeof *w);
    sums = cuzk_calloc((size_t)T * 3 * (np + 1), sizeof *sums);
    lag = cuzk_alloc((size_t)T * POREP_CHUNK, sizeof *lag);
    scratch = cuzk_alloc((size_t)T * POREP_CHUNK, sizeof *scratch);
    if (!u || !v || !w || !sums || !lag || !scratch) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory for %zu-element scalar vectors", nv);
        goto out;
    }

    PO_(setup_domain_secrets)(secret, &tx, log_n);
    PO_(fr_t) *scale_n = &secret[0], *scale_2n = &secret[1], *delta_inv = &secret[2];
    PO_(fr_t) *omega = &secret[3], *omega_2n = &secret[4], *one = &secret[5];

    /* 1-2. The chunks: records, Lagrange values, u, v, w, witness. */
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_QAP);
    j.mode = POREP_KEY;
    j.tau = tx.tau;
    j.scale = *scale_n;
    j.omega = *omega;
    j.u = u;
    j.v = v;
    j.w = w;
    j.shared_uvw = sums;
    j.zk = zk;
    j.lag = lag;
    j.scratch = scratch;
    j.wit = wt->values.POREP_CURVE;
    if ((st = PO_(po_pass)(ctx, &j, CUZK_PHASE_SETUP_QAP, err)))
        goto out;
    PO_(fr_t) *acc[3] = {u, v, w};
    for (int k = 0; k < T; k++)
        for (int t = 0; t < 3; t++)
            for (uint32_t i = 0; i <= np; i++)
                PO_(fr_add)(&acc[t][i], &acc[t][i], &sums[((size_t)k * 3 + t) * (np + 1) + i]);
    /* The public-input rows m..m+np: A[m+s] = w_s, and their records. */
    {
        PO_(fr_t) shift;
        uint64_t e = s->m;
        PO_(fr_pow)(&shift, omega, &e, 1);
        PO_(setup_lagrange)(ctx->pool, lag, scratch, (size_t)np + 1, &tx.tau, scale_n, &shift, omega);
        PO_(fr_t) *val = zk->coef_value.POREP_CURVE;
        for (uint32_t i = 0; i <= np; i++) {
            PO_(fr_add)(&u[i], &u[i], &lag[i]);
            uint64_t o = info->nnz[0] + info->nnz[1] + i;
            zk->coef_matrix[o] = 0;
            zk->coef_constraint[o] = (uint32_t)(s->m + i);
            zk->coef_signal[o] = i;
            val[o] = PO_(fr_R2);
        }
    }
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;

    /* 3. IC/C scalars; u, v, w to raw. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_SCALARS);
    {
        PO_(setup_k_job) kj = {u, v, w, tx.alpha, tx.beta, *delta_inv, np};
        cuzk_parallel_for(ctx->pool, nv, 1 << 12, PO_(setup_k_range), &kj);
        setup_wipe(&kj, sizeof kj);
    }
    PO_(setup_g1_point)(&zk->alpha_1.POREP_CURVE, &tx.alpha);
    PO_(setup_g1_point)(&zk->beta_1.POREP_CURVE, &tx.beta);
    PO_(setup_g2_point)(&zk->beta_2.POREP_CURVE, &tx.beta);
    zk->gamma_2.POREP_CURVE = PO_(g2_GENERATOR);
    PO_(setup_g1_point)(&zk->delta_1.POREP_CURVE, &tx.delta);
    PO_(setup_g2_point)(&zk->delta_2.POREP_CURVE, &tx.delta);
    cuzk_phase_end(ctx, &ph);
    info->circuit_seconds = cuzk_now() - t0;

    /* 4. The point sections. */
    t0 = cuzk_now();
    static const cuzk_phase PH[5] = {CUZK_PHASE_SETUP_A, CUZK_PHASE_SETUP_B1, CUZK_PHASE_SETUP_B2,
                                     CUZK_PHASE_SETUP_IC_C, CUZK_PHASE_SETUP_IC_C};
    for (int k = 0; k < 5 && !st; k++) {
        if (k != 4) /* IC and C: one phase */
            ph = cuzk_phase_begin(ctx, PH[k]);
        switch (k) {
        case 0: st = PO_(setup_bmf_g1)(ctx, s->curve, device, PH[k], zk->a.POREP_CURVE, u, nv, err); break;
        case 1: st = PO_(setup_bmf_g1)(ctx, s->curve, device, PH[k], zk->b1.POREP_CURVE, v, nv, err); break;
        case 2: st = PO_(setup_bmf_g2)(ctx, s->curve, device, PH[k], zk->b2.POREP_CURVE, v, nv, err); break;
        case 3: st = PO_(setup_bmf_g1)(ctx, s->curve, device, PH[k], zk->ic.POREP_CURVE, w, (size_t)np + 1, err); break;
        default:
            st = PO_(setup_bmf_g1)(ctx, s->curve, device, PH[k], zk->c.POREP_CURVE, w + np + 1, nv - np - 1, err);
        }
        if (!st && k != 3)
            cuzk_phase_end(ctx, &ph);
        if (!st && k == 0) { /* u is done: its memory for H's scalars */
            setup_wipe(u, nv * sizeof *u);
            cuzk_free(u);
            u = NULL;
        }
    }
    if (st)
        goto out;
    setup_wipe(v, nv * sizeof *v);
    setup_wipe(w, nv * sizeof *w);
    cuzk_free(v);
    cuzk_free(w);
    v = w = NULL;

    /* 5. H: odd Lagrange bases of the doubled domain, / delta. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_H);
    setup_wipe(lag, (size_t)T * POREP_CHUNK * sizeof *lag);
    cuzk_free(lag);
    cuzk_free(scratch);
    scratch = NULL;
    lag = cuzk_alloc(n, sizeof *lag);
    scratch = cuzk_alloc(n, sizeof *scratch);
    if (!lag || !scratch) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "porep: out of memory for %zu-element scalar vectors", n);
        goto out;
    }
    PO_(fr_mul)(scale_2n, scale_2n, delta_inv);
    PO_(setup_lagrange)(ctx->pool, lag, scratch, n, &tx.tau, scale_2n, omega_2n, omega);
    {
        PO_(setup_scale_job) sj = {lag, *one};
        cuzk_parallel_for(ctx->pool, n, 1 << 12, PO_(setup_scale_raw_range), &sj);
    }
    cuzk_free(scratch);
    scratch = NULL;
    if ((st = PO_(setup_bmf_g1)(ctx, s->curve, device, CUZK_PHASE_SETUP_H, zk->h.POREP_CURVE, lag, n, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    info->points_seconds = cuzk_now() - t0;

out:
    setup_wipe(&tx, sizeof tx);
    setup_wipe(secret, sizeof secret);
    setup_wipe(&j.tau, sizeof j.tau);
    if (lag)
        setup_wipe(lag, (u || v || w ? (size_t)T * POREP_CHUNK : n) * sizeof *lag);
    PO_(fr_t) *vec[3] = {u, v, w};
    for (int t = 0; t < 3; t++)
        if (vec[t])
            setup_wipe(vec[t], nv * sizeof *vec[t]);
    if (sums)
        setup_wipe(sums, (size_t)T * 3 * (np + 1) * sizeof *sums);
    cuzk_free(u);
    cuzk_free(v);
    cuzk_free(w);
    cuzk_free(sums);
    cuzk_free(lag);
    cuzk_free(scratch);
    PO_(po_job_free)(&j);
    cuzk_free(sh.pub);
    return st;
}

#endif /* per-instance guard */

#undef PO_
#undef POREP_CURVE
