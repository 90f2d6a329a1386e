/* Synthetic circuit generator, written once and instantiated per curve.
 *
 * Include from gen.c (after the curve's umbrella header and gen.c's shared
 * helpers) with `#define GEN_CURVE bn254` (a curve listed in
 * curve/instances.h); GEN_CURVE is #undef'd at the end. Defines, for c:
 *   <c>_gen_run(ctx, opts, seed, r1cs_path, wtns_path, err)
 *
 * Profile (Filecoin-PoRep-like: SHA-256 style bit logic plus packing and some
 * field arithmetic). Every constraint creates exactly one new wire, so wire
 * 1 + nPublic + k is the output of constraint k and nWires = 1 + nPublic + m
 * is known in advance; that is what lets both files be streamed. Constraint
 * kinds (weights in percent):
 *   30 new bit   b·(b − 1) = 0           A=[b]       B=[b, −1]    C=[]
 *   25 xor       2a·b = a + b − c        A=[a:2]     B=[b]        C=[a, b, c:−1]
 *   10 and       a·b = c                 A=[a]       B=[b]        C=[c]
 *   20 pack      (acc + Σ 2^k·b_k)·1 = acc'   3 bits per step, 21 steps make
 *                a 63-bit word, which then joins the field-element pool
 *   15 mul       (x + c1)·(y + c2) = z   c1, c2 random field constants
 * so about 65% of the witness values are 0/1, 20% small integers and 15% full
 * field elements; linear combinations have 1-4 terms.
 *
 * The circuit is cut into chunks of GEN_CHUNK constraints. A chunk only refers
 * to the wires it created itself and to the public inputs, and draws from its
 * own RNG streams keyed by (seed, chunk), so chunks are generated in parallel
 * and the output does not depend on the thread count. Structure (kinds and
 * operand choices) and values (constants, witness) use separate streams, so a
 * cheap counting pass can size the r1cs section before anything is written. */

#include <string.h>

#include "curve/instances.h"
#include "groth16/ctx.h"
#include "util/common.h"
#include "util/templates.h"

#define GEN_(name) CUZK_NAME(GEN_CURVE, name)
#if !CUZK_NAME(GEN_CURVE, C_X_ABS)
#error "gen_impl.h: GEN_CURVE must name a curve listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_GEN_IMPL, CUZK_NAME(GEN_CURVE, C_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct {
    uint64_t seed;
    uint64_t m;          /* constraints */
    uint32_t n_pub;
    const GEN_(fr_t) *pub; /* Montgomery values of wires 1..n_pub */
    GEN_(fr_t) pow2_raw[64], pow2_mont[64];
    GEN_(fr_t) one_raw, two_raw, minus_one_raw;
} GEN_(gen_shared);

typedef struct {
    const GEN_(gen_shared) *sh;
    uint64_t chunk;
    bool count_only;
    uint64_t r1cs_bytes; /* out: section-2 bytes of this chunk */
    uint64_t n_bits;     /* out: values that are 0 or 1 */
    uint8_t *r1cs;       /* out (unless count_only) */
    uint8_t *wtns;       /* out (unless count_only): GEN_N8 bytes per constraint */
} GEN_(gen_chunk_job);

typedef struct {
    uint32_t wire;
    const GEN_(fr_t) *coef; /* raw */
} GEN_(gen_term);

static uint8_t *GEN_(gen_put_lc)(uint8_t *o, GEN_(gen_term) *t, unsigned n)
{
    /* Factors sorted by wire id, as the r1cs spec asks (insertion sort of <= 4). */
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && t[j - 1].wire > t[j].wire; j--) {
            GEN_(gen_term) x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    o = gen_put32(o, n);
    for (unsigned i = 0; i < n; i++) {
        o = gen_put32(o, t[i].wire);
        GEN_(fr_to_bytes_le)(o, t[i].coef);
        o += GEN_N8;
    }
    return o;
}

static void GEN_(gen_random_raw)(GEN_(fr_t) *r, gen_rng *g)
{
    /* Rejection sampling below r: mask to the bit length first. */
    unsigned top = GEN_(fr_BITS) - 64 * (GEN_(fr_LIMBS) - 1);
    uint64_t mask = top >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << top) - 1;
    do {
        for (int i = 0; i < GEN_(fr_LIMBS); i++)
            r->l[i] = gen_rng_next(g);
        r->l[GEN_(fr_LIMBS) - 1] &= mask;
    } while (!GEN_(fr_raw_is_canonical)(r));
}

static void GEN_(gen_chunk)(GEN_(gen_chunk_job) *j)
{
    const GEN_(gen_shared) *sh = j->sh;
    const bool cnt = j->count_only;
    uint64_t k0 = j->chunk * GEN_CHUNK, k1 = CUZK_MIN(sh->m, k0 + GEN_CHUNK);
    gen_rng rs, rv;
    gen_rng_seed(&rs, sh->seed, j->chunk, 0);
    gen_rng_seed(&rv, sh->seed, j->chunk, 1);

    /* Recent bit wires and field-element wires that new constraints refer to. */
    uint32_t bw[GEN_BIT_RING];
    uint8_t bv[GEN_BIT_RING];
    unsigned nb = 0, bh = 0;
    uint32_t fw[GEN_FIELD_RING];
    GEN_(fr_t) fv[GEN_FIELD_RING];
    unsigned nf = 0, fh = 0;
    /* Packing chain in progress. */
    bool pk = false;
    uint32_t pw = 0;
    unsigned pbit = 0;
    GEN_(fr_t) pv;
    GEN_(fr_set_zero)(&pv);

    GEN_(fr_t) zero, one, c1, c2;
    GEN_(fr_set_zero)(&zero);
    GEN_(fr_set_one)(&one);
    GEN_(fr_set_zero)(&c1);
    GEN_(fr_set_zero)(&c2);
    uint8_t *o = j->r1cs, *ow = j->wtns;
    uint64_t bytes = 0, nbits = 0;

    for (uint64_t k = k0; k < k1; k++) {
        uint32_t wn = (uint32_t)(1 + sh->n_pub + k);
        unsigned u = gen_rng_below(&rs, 100);
        int kind = u < 30 ? GEN_K_BIT : u < 55 ? GEN_K_XOR : u < 65 ? GEN_K_AND : u < 85 ? GEN_K_PACK : GEN_K_MUL;
        if ((kind == GEN_K_XOR || kind == GEN_K_AND) && nb < 2)
            kind = GEN_K_BIT;
        if (kind == GEN_K_PACK && nb < 3)
            kind = GEN_K_BIT;
        if (kind == GEN_K_MUL && nf == 0 && sh->n_pub == 0 && nb == 0)
            kind = GEN_K_BIT;

        GEN_(gen_term) ta[4], tb[2], tc[3];
        unsigned na = 0, nbt = 0, nc = 0;
        GEN_(fr_t) val; /* Montgomery value of the new wire */
        int newbit = -1; /* 0/1 if the new wire is a bit */
        GEN_(fr_set_zero)(&val);

        switch (kind) {
        case GEN_K_BIT: {
            newbit = (int)(gen_rng_next(&rv) >> 63);
            ta[na++] = (GEN_(gen_term)){wn, &sh->one_raw};
            tb[nbt++] = (GEN_(gen_term)){0, &sh->minus_one_raw};
            tb[nbt++] = (GEN_(gen_term)){wn, &sh->one_raw};
            break;
        }
        case GEN_K_XOR:
        case GEN_K_AND: {
            unsigned ia = gen_rng_below(&rs, nb), ib = gen_rng_below(&rs, nb - 1);
            ib += ib >= ia;
            ia = (bh + GEN_BIT_RING - 1 - ia) % GEN_BIT_RING;
            ib = (bh + GEN_BIT_RING - 1 - ib) % GEN_BIT_RING;
            if (kind == GEN_K_XOR) {
                newbit = bv[ia] ^ bv[ib];
                ta[na++] = (GEN_(gen_term)){bw[ia], &sh->two_raw};
                tb[nbt++] = (GEN_(gen_term)){bw[ib], &sh->one_raw};
                tc[nc++] = (GEN_(gen_term)){bw[ia], &sh->one_raw};
                tc[nc++] = (GEN_(gen_term)){bw[ib], &sh->one_raw};
                tc[nc++] = (GEN_(gen_term)){wn, &sh->minus_one_raw};
            } else {
                newbit = bv[ia] & bv[ib];
                ta[na++] = (GEN_(gen_term)){bw[ia], &sh->one_raw};
                tb[nbt++] = (GEN_(gen_term)){bw[ib], &sh->one_raw};
                tc[nc++] = (GEN_(gen_term)){wn, &sh->one_raw};
            }
            break;
        }
        case GEN_K_PACK: {
            /* Three distinct recent bits (partial Fisher-Yates over ring offsets). */
            unsigned idx[3];
            for (unsigned t = 0; t < 3; t++) {
                unsigned x;
                bool dup;
                do {
                    x = gen_rng_below(&rs, nb);
                    dup = false;
                    for (unsigned s = 0; s < t; s++)
                        dup |= idx[s] == x;
                } while (dup);
                idx[t] = x;
            }
            if (!pk) {
                pbit = 0;
                GEN_(fr_set_zero)(&pv);
            } else {
                ta[na++] = (GEN_(gen_term)){pw, &sh->one_raw};
            }
            val = pv;
            for (unsigned t = 0; t < 3; t++) {
                unsigned s = (bh + GEN_BIT_RING - 1 - idx[t]) % GEN_BIT_RING;
                ta[na++] = (GEN_(gen_term)){bw[s], &sh->pow2_raw[pbit + t]};
                if (!cnt && bv[s])
                    GEN_(fr_add)(&val, &val, &sh->pow2_mont[pbit + t]);
            }
            tb[nbt++] = (GEN_(gen_term)){0, &sh->one_raw};
            tc[nc++] = (GEN_(gen_term)){wn, &sh->one_raw};
            pbit += 3;
            pk = pbit + 3 <= 63;
            pw = wn;
            pv = val;
            if (!pk) { /* a finished 63-bit word becomes a field operand */
                fw[fh] = wn;
                fv[fh] = val;
                fh = (fh + 1) % GEN_FIELD_RING;
                nf += nf < GEN_FIELD_RING;
            }
            break;
        }
        default: { /* GEN_K_MUL */
            uint32_t xw[2];
            GEN_(fr_t) xv[2];
            for (int t = 0; t < 2; t++) {
                unsigned sel = gen_rng_below(&rs, 8);
                if (nf > 0 && (sel < 5 || (sh->n_pub == 0 && nb == 0))) {
                    unsigned s = (fh + GEN_FIELD_RING - 1 - gen_rng_below(&rs, nf)) % GEN_FIELD_RING;
                    xw[t] = fw[s];
                    xv[t] = fv[s];
                } else if (sh->n_pub > 0 && (sel < 7 || nb == 0)) {
                    uint32_t p = gen_rng_below(&rs, sh->n_pub);
                    xw[t] = 1 + p;
                    xv[t] = sh->pub[p];
                } else {
                    unsigned s = (bh + GEN_BIT_RING - 1 - gen_rng_below(&rs, nb)) % GEN_BIT_RING;
                    xw[t] = bw[s];
                    xv[t] = bv[s] ? one : zero;
                }
            }
            if (!cnt) {
                GEN_(gen_random_raw)(&c1, &rv);
                GEN_(gen_random_raw)(&c2, &rv);
                GEN_(fr_t) m1, m2;
                GEN_(fr_to_mont)(&m1, &c1);
                GEN_(fr_to_mont)(&m2, &c2);
                GEN_(fr_add)(&m1, &m1, &xv[0]);
                GEN_(fr_add)(&m2, &m2, &xv[1]);
                GEN_(fr_mul)(&val, &m1, &m2);
            }
            ta[na++] = (GEN_(gen_term)){0, &c1};
            ta[na++] = (GEN_(gen_term)){xw[0], &sh->one_raw};
            tb[nbt++] = (GEN_(gen_term)){0, &c2};
            tb[nbt++] = (GEN_(gen_term)){xw[1], &sh->one_raw};
            tc[nc++] = (GEN_(gen_term)){wn, &sh->one_raw};
            fw[fh] = wn;
            fv[fh] = val;
            fh = (fh + 1) % GEN_FIELD_RING;
            nf += nf < GEN_FIELD_RING;
            break;
        }
        }
        if (newbit >= 0) {
            bw[bh] = wn;
            bv[bh] = (uint8_t)newbit;
            bh = (bh + 1) % GEN_BIT_RING;
            nb += nb < GEN_BIT_RING;
            nbits++;
        }
        bytes += 12 + (uint64_t)(na + nbt + nc) * (4 + GEN_N8);
        if (cnt)
            continue;
        o = GEN_(gen_put_lc)(o, ta, na);
        o = GEN_(gen_put_lc)(o, tb, nbt);
        o = GEN_(gen_put_lc)(o, tc, nc);
        if (newbit >= 0) {
            memset(ow, 0, GEN_N8);
            ow[0] = (uint8_t)newbit;
        } else {
            GEN_(fr_t) raw;
            GEN_(fr_from_mont)(&raw, &val);
            GEN_(fr_to_bytes_le)(ow, &raw);
        }
        ow += GEN_N8;
    }
    j->r1cs_bytes = bytes;
    j->n_bits = nbits;
}

static void GEN_(gen_chunk_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    GEN_(gen_chunk_job) *jobs = p;
    for (size_t i = lo; i < hi; i++)
        GEN_(gen_chunk)(&jobs[i]);
}

static cuzk_status GEN_(gen_run)(cuzk_ctx *ctx, const cuzk_gen_opts *opts, uint64_t seed,
                                 const char *r1cs_path, const char *wtns_path, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    const uint64_t m = opts->constraints;
    const uint32_t n_pub = opts->public_inputs;
    const uint64_t n_wires = 1 + (uint64_t)n_pub + m;
    if (n_wires > UINT32_MAX)
        return cuzk_err(err, CUZK_ERR_USAGE, "gen: %" PRIu64 " constraints and %u public inputs exceed 2^32 wires",
                        m, n_pub);
    const uint64_t n_chunks = (m + GEN_CHUNK - 1) / GEN_CHUNK;
    /* Chunks in flight: enough to keep every worker busy, capped so that the
     * buffers (~8.5 MB per chunk) stay small on many-core machines. */
    const size_t batch = (size_t)CUZK_MIN(2 * cuzk_pool_size(ctx->pool), GEN_MAX_BATCH);

    GEN_(gen_shared) sh;
    memset(&sh, 0, sizeof sh);
    sh.seed = seed;
    sh.m = m;
    sh.n_pub = n_pub;
    for (int i = 0; i < 64; i++) {
        GEN_(fr_set_zero)(&sh.pow2_raw[i]);
        sh.pow2_raw[i].l[0] = (uint64_t)1 << i;
        GEN_(fr_to_mont)(&sh.pow2_mont[i], &sh.pow2_raw[i]);
    }
    sh.one_raw = sh.pow2_raw[0];
    sh.two_raw = sh.pow2_raw[1];
    sh.minus_one_raw = GEN_(fr_MODULUS);
    sh.minus_one_raw.l[0] -= 1; /* r is odd: no borrow */

    GEN_(fr_t) *pub = NULL;
    GEN_(gen_chunk_job) *jobs = NULL;
    uint8_t *bufs = NULL, *lbuf = NULL;
    cuzk_oset os;
    cuzk_afile *fr1 = NULL, *fw = NULL;
    cuzk_oset_init(&os, ctx->opts.cancelled, ctx->opts.user);
    if ((st = cuzk_oset_output(&os, r1cs_path, &fr1, err)) ||
        (st = cuzk_oset_output(&os, wtns_path, &fw, err)))
        return st;

    pub = cuzk_alloc(n_pub ? n_pub : 1, sizeof *pub);
    jobs = cuzk_calloc(batch, sizeof *jobs);
    const size_t r1cs_cap = (size_t)GEN_CHUNK * GEN_MAX_CONSTRAINT_BYTES;
    const size_t wtns_cap = (size_t)GEN_CHUNK * GEN_N8;
    bufs = cuzk_alloc(batch, r1cs_cap + wtns_cap);
    lbuf = cuzk_alloc(GEN_LABEL_BLOCK, 8);
    if (!pub || !jobs || !bufs || !lbuf) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "gen: out of memory");
        goto out;
    }
    /* Public inputs: random full field elements from their own stream. */
    {
        gen_rng rp;
        gen_rng_seed(&rp, seed, UINT64_MAX, 2);
        for (uint32_t i = 0; i < n_pub; i++) {
            GEN_(fr_t) raw;
            GEN_(gen_random_raw)(&raw, &rp);
            GEN_(fr_to_mont)(&pub[i], &raw);
        }
        sh.pub = pub;
    }

    /* Pass 1: size of the r1cs constraint section (structure stream only). */
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_GEN_COUNT);
    uint64_t sec2 = 0;
    for (uint64_t c0 = 0; c0 < n_chunks; c0 += batch) {
        size_t nb = (size_t)CUZK_MIN((uint64_t)batch, n_chunks - c0);
        for (size_t i = 0; i < nb; i++)
            jobs[i] = (GEN_(gen_chunk_job)){.sh = &sh, .chunk = c0 + i, .count_only = true};
        cuzk_parallel_for(ctx->pool, nb, 1, GEN_(gen_chunk_range), jobs);
        for (size_t i = 0; i < nb; i++)
            sec2 += jobs[i].r1cs_bytes;
        cuzk_progress(ctx, CUZK_PHASE_GEN_COUNT, (double)(c0 + nb) / (double)n_chunks);
        if ((st = cuzk_check_cancel(ctx, err)))
            goto out;
    }
    cuzk_phase_end(ctx, &ph);

    /* Pass 2: generate and stream both files. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_GEN_WRITE);
    if ((st = cuzk_oset_open(&os, err)))
        goto out;
    {
        uint8_t h[128], *p = h;
        /* r1cs: magic, version 1, 3 sections; header (section 1) first. */
        memcpy(p, "r1cs", 4);
        p = gen_put32(p + 4, 1);
        p = gen_put32(p, 3);
        p = gen_put32(p, 1);
        p = gen_put64(p, GEN_R1CS_HEADER_SIZE);
        p = gen_put32(p, GEN_N8);
        GEN_(fr_to_bytes_le)(p, &GEN_(fr_MODULUS));
        p += GEN_N8;
        p = gen_put32(p, (uint32_t)n_wires);
        p = gen_put32(p, 0);     /* nPubOut */
        p = gen_put32(p, n_pub); /* nPubIn */
        p = gen_put32(p, 0);     /* nPrvIn */
        p = gen_put64(p, n_wires); /* nLabels */
        p = gen_put32(p, (uint32_t)m);
        p = gen_put32(p, 2);
        p = gen_put64(p, sec2);
        cuzk_afile_write(fr1, h, (size_t)(p - h));

        /* wtns: magic, version 2, 2 sections. */
        p = h;
        memcpy(p, "wtns", 4);
        p = gen_put32(p + 4, 2);
        p = gen_put32(p, 2);
        p = gen_put32(p, 1);
        p = gen_put64(p, 4 + GEN_N8 + 4);
        p = gen_put32(p, GEN_N8);
        GEN_(fr_to_bytes_le)(p, &GEN_(fr_MODULUS));
        p += GEN_N8;
        p = gen_put32(p, (uint32_t)n_wires);
        p = gen_put32(p, 2);
        p = gen_put64(p, n_wires * GEN_N8);
        GEN_(fr_t) v = sh.one_raw;
        GEN_(fr_to_bytes_le)(p, &v);
        p += GEN_N8;
        cuzk_afile_write(fw, h, (size_t)(p - h));
        for (uint32_t i = 0; i < n_pub; i++) {
            GEN_(fr_from_mont)(&v, &pub[i]);
            GEN_(fr_to_bytes_le)(h, &v);
            cuzk_afile_write(fw, h, GEN_N8);
        }
    }
    uint64_t check2 = 0;
    for (uint64_t c0 = 0; c0 < n_chunks; c0 += batch) {
        size_t nb = (size_t)CUZK_MIN((uint64_t)batch, n_chunks - c0);
        for (size_t i = 0; i < nb; i++) {
            uint8_t *b = bufs + i * (r1cs_cap + wtns_cap);
            jobs[i] =
                (GEN_(gen_chunk_job)){.sh = &sh, .chunk = c0 + i, .r1cs = b, .wtns = b + r1cs_cap};
        }
        cuzk_parallel_for(ctx->pool, nb, 1, GEN_(gen_chunk_range), jobs);
        for (size_t i = 0; i < nb; i++) {
            uint64_t cnt = CUZK_MIN((uint64_t)GEN_CHUNK, m - (c0 + i) * GEN_CHUNK);
            cuzk_afile_write(fr1, jobs[i].r1cs, (size_t)jobs[i].r1cs_bytes);
            cuzk_afile_write(fw, jobs[i].wtns, (size_t)cnt * GEN_N8);
            check2 += jobs[i].r1cs_bytes;
        }
        cuzk_progress(ctx, CUZK_PHASE_GEN_WRITE, (double)(c0 + nb) / (double)n_chunks);
        if ((st = cuzk_check_cancel(ctx, err)))
            goto out;
    }
    if (check2 != sec2) {
        st = cuzk_err(err, CUZK_ERR_INTERNAL, "gen: constraint section is %" PRIu64 " bytes, counted %" PRIu64,
                      check2, sec2);
        goto out;
    }
    /* Section 3: identity wire -> label map. */
    {
        uint8_t h[12];
        gen_put64(gen_put32(h, 3), n_wires * 8);
        cuzk_afile_write(fr1, h, sizeof h);
        for (uint64_t w0 = 0; w0 < n_wires; w0 += GEN_LABEL_BLOCK) {
            uint64_t n = CUZK_MIN((uint64_t)GEN_LABEL_BLOCK, n_wires - w0);
            for (uint64_t i = 0; i < n; i++)
                gen_put64(lbuf + 8 * i, w0 + i);
            cuzk_afile_write(fr1, lbuf, (size_t)n * 8);
        }
    }
    if ((st = cuzk_oset_commit(&os, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);

out:
    cuzk_oset_abort(&os);
    cuzk_free(pub);
    cuzk_free(jobs);
    cuzk_free(bufs);
    cuzk_free(lbuf);
    return st;
}

#endif /* per-instance guard */

#undef GEN_
#undef GEN_CURVE
