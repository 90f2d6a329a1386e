/* Groth16 prover and verifier, written once and instantiated per curve.
 *
 * Include with `#define G16_CURVE bn254` (or bls12_381) after the curve's
 * umbrella header, NTT and MSM headers, and the 8-lane IFMA core of its Fr
 * (field/fp_ifma_inline.h with FP_PREFIX <c>_fr). Defines (prefix = G16_CURVE):
 *   <c>_g16_key_t           proving key views + how to evaluate A·w, B·w
 *   <c>_g16_key_prepare     plans that from the zkey coefficient records
 *   <c>_g16_prove           the whole proof
 *   <c>_g16_verify          pairing check
 * Math follows snarkjs (see shared reference "snarkjs-formats" §4-§5): a, b
 * from the zkey's A/B coefficients (stored v·R², so one Montgomery product with
 * the raw witness gives v·w in Montgomery form), c = a∘b, the three are moved to
 * the odd coset of the doubled domain, h = a·b − c, and π_H = Σ h_j·H_j needs no
 * division by Z because the zkey's H points already carry it. */

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "groth16/ctx.h"
#include "util/common.h"

#define G_(name) CUZK_NAME(G16_CURVE, name)

typedef G_(fr_t) G_(g16_fr);
typedef G_(g1_affine_t) G_(g16_g1a);
typedef G_(g2_affine_t) G_(g16_g2a);
typedef G_(g1_jac_t) G_(g16_g1j);
typedef G_(g2_jac_t) G_(g16_g2j);

#ifndef CUZK_G16_COEFS_DEFINED
#define CUZK_G16_COEFS_DEFINED
/* The zkey's A/B coefficient records, wherever they live: section 4 in the
 * file mapping (44-byte records, unaligned) or decoded arrays. Field f of
 * record i is at f + i·stride (value: i·vstride); read with memcpy, so no
 * alignment is assumed. Values are v·R² mod r, little-endian limbs. */
typedef struct cuzk_g16_coefs {
    size_t n;
    const uint8_t *matrix, *constraint, *signal, *value;
    size_t stride, vstride;
} cuzk_g16_coefs;

static inline uint32_t cuzk_g16_u32(const uint8_t *f, size_t i, size_t stride)
{
    uint32_t v;
    memcpy(&v, f + i * stride, sizeof v);
    return v;
}
#endif

/* One coefficient term of the prepared CSR: signal index and v·R² (raw limbs). */
typedef struct {
    uint32_t signal;
    uint32_t pad_;
    G_(fr_t) value;
} G_(g16_term);

typedef struct {
    uint32_t n_vars, n_public, domain_size, log_n;
    /* Points, borrowed from the loaded zkey. */
    const G_(g1_affine_t) *alpha1, *beta1, *delta1;
    const G_(g2_affine_t) *beta2, *gamma2, *delta2;
    const G_(g1_affine_t) *ic;      /* n_public + 1 */
    const G_(g1_affine_t) *a, *b1;  /* n_vars */
    const G_(g2_affine_t) *b2;      /* n_vars */
    const G_(g1_affine_t) *c;       /* n_vars - n_public - 1 (private wires) */
    const G_(g1_affine_t) *h;       /* domain_size */
    /* Coefficient records, borrowed (set by g16_key_prepare). */
    cuzk_g16_coefs co;
    /* Prepared, owned. Records sorted by constraint (snarkjs and cuzk write
     * them so): n_chunks chunks cut at constraint boundaries, chunk q being
     * records [cstart[q], cstart[q+1]) and owning rows [crow[q], crow[q+1]),
     * evaluated straight from the records. Otherwise (n_chunks = 0) a CSR
     * of A and B by row. */
    size_t n_chunks;
    size_t *cstart;
    uint32_t *crow;
    uint32_t *row_a, *row_b;        /* domain_size + 1 */
    G_(g16_term) *terms_a, *terms_b;
    G_(ntt_domain) *dom;            /* twiddles of the domain, owned */
} G_(g16_key_t);

typedef struct {
    G_(g1_affine_t) a;
    G_(g2_affine_t) b;
    G_(g1_affine_t) c;
} G_(g16_proof_t);

void G_(g16_key_release)(G_(g16_key_t) *k)
{
    cuzk_free(k->cstart);
    cuzk_free(k->crow);
    cuzk_free(k->row_a);
    cuzk_free(k->row_b);
    cuzk_free(k->terms_a);
    cuzk_free(k->terms_b);
    G_(ntt_domain_free)(k->dom);
    k->dom = NULL;
    k->cstart = NULL;
    k->crow = NULL;
    k->n_chunks = 0;
    k->row_a = k->row_b = NULL;
    k->terms_a = k->terms_b = NULL;
}

static inline void G_(g16_coef_value)(G_(fr_t) *v, const cuzk_g16_coefs *co, size_t i)
{
    memcpy(v, co->value + i * co->vstride, sizeof *v);
}

/* Builds the per-row CSR of A and B from the records (any order). Counting
 * sort: O(nnz) time, one pass to count and one to place. */
static cuzk_status G_(g16_key_csr)(G_(g16_key_t) *k, cuzk_error *err)
{
    const cuzk_g16_coefs *co = &k->co;
    size_t n = k->domain_size;
    k->row_a = cuzk_calloc(n + 1, sizeof(uint32_t));
    k->row_b = cuzk_calloc(n + 1, sizeof(uint32_t));
    if (!k->row_a || !k->row_b)
        goto nomem;
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < co->n; i++) {
        uint32_t m = cuzk_g16_u32(co->matrix, i, co->stride);
        uint32_t c = cuzk_g16_u32(co->constraint, i, co->stride);
        if (m == 0) {
            k->row_a[c + 1]++;
            na++;
        } else {
            k->row_b[c + 1]++;
            nb++;
        }
    }
    if (na > UINT32_MAX || nb > UINT32_MAX)
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "more than 2^32 coefficients in one matrix");
    for (size_t r = 0; r < n; r++) {
        k->row_a[r + 1] += k->row_a[r];
        k->row_b[r + 1] += k->row_b[r];
    }
    k->terms_a = cuzk_alloc(na ? na : 1, sizeof(G_(g16_term)));
    k->terms_b = cuzk_alloc(nb ? nb : 1, sizeof(G_(g16_term)));
    uint32_t *fa = cuzk_alloc(n, sizeof(uint32_t)), *fb = cuzk_alloc(n, sizeof(uint32_t));
    if (!k->terms_a || !k->terms_b || !fa || !fb) {
        cuzk_free(fa);
        cuzk_free(fb);
        goto nomem;
    }
    memcpy(fa, k->row_a, n * sizeof(uint32_t));
    memcpy(fb, k->row_b, n * sizeof(uint32_t));
    for (size_t i = 0; i < co->n; i++) {
        uint32_t m = cuzk_g16_u32(co->matrix, i, co->stride);
        uint32_t c = cuzk_g16_u32(co->constraint, i, co->stride);
        G_(g16_term) *t = m == 0 ? &k->terms_a[fa[c]++] : &k->terms_b[fb[c]++];
        t->signal = cuzk_g16_u32(co->signal, i, co->stride);
        t->pad_ = 0;
        G_(g16_coef_value)(&t->value, co, i);
    }
    cuzk_free(fa);
    cuzk_free(fb);
    return CUZK_OK;
nomem:
    G_(g16_key_release)(k);
    return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory preparing the constraint matrices");
}

/* Records of chunk q non-decreasing by constraint, inside the chunk's rows. */
typedef struct {
    const G_(g16_key_t) *k;
    atomic_bool unsorted;
} G_(g16_sorted_job);

static void G_(g16_sorted_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    G_(g16_sorted_job) *j = p;
    const G_(g16_key_t) *k = j->k;
    for (size_t q = lo; q < hi; q++) {
        uint32_t prev = k->crow[q];
        for (size_t i = k->cstart[q]; i < k->cstart[q + 1]; i++) {
            uint32_t c = cuzk_g16_u32(k->co.constraint, i, k->co.stride);
            if (c < prev || c >= k->crow[q + 1]) {
                atomic_store_explicit(&j->unsorted, true, memory_order_relaxed);
                return;
            }
            prev = c;
        }
    }
}

/* Prepares the evaluation of a = A·w, b = B·w from the coefficient records
 * (borrowed: they must outlive the key). Sorted records (the normal case)
 * are cut into chunks at constraint boundaries, so each chunk writes its own
 * rows and nothing is copied; any other order gets a CSR. The two give the
 * same a, b (the sums are exact), which the unit tests check. */
cuzk_status G_(g16_key_prepare)(G_(g16_key_t) *k, const cuzk_g16_coefs *co, cuzk_pool *pool,
                                cuzk_error *err)
{
    k->co = *co;
    cuzk_status st = G_(ntt_domain_create)(&k->dom, k->log_n, pool, err);
    if (st)
        return st;
    const size_t nr = co->n, nrow = k->domain_size;
    size_t nch = CUZK_MAX((size_t)1, CUZK_MIN(nr / 4096, (size_t)4096));
    k->cstart = cuzk_alloc(nch + 1, sizeof *k->cstart);
    k->crow = cuzk_alloc(nch + 1, sizeof *k->crow);
    if (!k->cstart || !k->crow) {
        G_(g16_key_release)(k);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory preparing the constraint matrices");
    }
    /* Chunk q starts near q·nr/nch, moved forward past records of the
     * constraint the previous record belongs to. */
    bool sorted = true;
    k->cstart[0] = 0;
    k->crow[0] = 0;
    for (size_t q = 1; q <= nch; q++) {
        size_t i = CUZK_MAX(k->cstart[q - 1], nr / nch * q + CUZK_MIN(q, nr % nch));
        while (i > 0 && i < nr &&
               cuzk_g16_u32(co->constraint, i, co->stride) ==
                   cuzk_g16_u32(co->constraint, i - 1, co->stride))
            i++;
        k->cstart[q] = q == nch ? nr : i;
        k->crow[q] = k->cstart[q] < nr ? cuzk_g16_u32(co->constraint, k->cstart[q], co->stride)
                                       : (uint32_t)nrow;
        if (k->crow[q] < k->crow[q - 1] || k->crow[q] > nrow)
            sorted = false;
    }
    if (sorted) {
        G_(g16_sorted_job) sj = {k, false};
        cuzk_parallel_for(pool, nch, 1, G_(g16_sorted_range), &sj);
        sorted = !atomic_load(&sj.unsorted);
    }
    if (sorted) {
        k->n_chunks = nch;
        return CUZK_OK;
    }
    cuzk_free(k->cstart);
    cuzk_free(k->crow);
    k->cstart = NULL;
    k->crow = NULL;
    k->n_chunks = 0;
    return G_(g16_key_csr)(k, err);
}

/* ---- a, b, c evaluations ------------------------------------------------- */

typedef struct {
    const G_(g16_key_t) *k;
    const G_(fr_t) *w;
    G_(fr_t) *a, *b, *c;
} G_(g16_abc_job);

static inline void G_(g16_abc_zero)(const G_(g16_abc_job) *j, size_t lo, size_t hi)
{
    for (size_t r = lo; r < hi; r++) {
        G_(fr_set_zero)(&j->a[r]);
        G_(fr_set_zero)(&j->b[r]);
        G_(fr_set_zero)(&j->c[r]);
    }
}

/* Chunks [lo, hi) of sorted records: each run of one constraint's records
 * gives that row; rows without records are zero. */
static void G_(g16_abc_chunks)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const G_(g16_abc_job) *j = p;
    const G_(g16_key_t) *k = j->k;
    const cuzk_g16_coefs *co = &k->co;
    for (size_t q = lo; q < hi; q++) {
        size_t row = k->crow[q], i = k->cstart[q], end = k->cstart[q + 1];
        while (i < end) {
            uint32_t r = cuzk_g16_u32(co->constraint, i, co->stride);
            G_(g16_abc_zero)(j, row, r);
            G_(fr_t) acc[2], t, v;
            G_(fr_set_zero)(&acc[0]);
            G_(fr_set_zero)(&acc[1]);
            do {
                uint32_t m = cuzk_g16_u32(co->matrix, i, co->stride);
                uint32_t sg = cuzk_g16_u32(co->signal, i, co->stride);
                G_(g16_coef_value)(&v, co, i);
                G_(fr_mul)(&t, &v, &j->w[sg]);
                G_(fr_add)(&acc[m != 0], &acc[m != 0], &t);
            } while (++i < end && cuzk_g16_u32(co->constraint, i, co->stride) == r);
            j->a[r] = acc[0];
            j->b[r] = acc[1];
            G_(fr_mul)(&j->c[r], &acc[0], &acc[1]);
            row = (size_t)r + 1;
        }
        G_(g16_abc_zero)(j, row, k->crow[q + 1]);
    }
}

/* Rows [lo, hi) from the CSR. */
static void G_(g16_abc_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const G_(g16_abc_job) *j = p;
    const G_(g16_key_t) *k = j->k;
    for (size_t r = lo; r < hi; r++) {
        G_(fr_t) acc, t;
        G_(fr_set_zero)(&acc);
        for (uint32_t i = k->row_a[r]; i < k->row_a[r + 1]; i++) {
            G_(fr_mul)(&t, &k->terms_a[i].value, &j->w[k->terms_a[i].signal]);
            G_(fr_add)(&acc, &acc, &t);
        }
        j->a[r] = acc;
        G_(fr_set_zero)(&acc);
        for (uint32_t i = k->row_b[r]; i < k->row_b[r + 1]; i++) {
            G_(fr_mul)(&t, &k->terms_b[i].value, &j->w[k->terms_b[i].signal]);
            G_(fr_add)(&acc, &acc, &t);
        }
        j->b[r] = acc;
        G_(fr_mul)(&j->c[r], &j->a[r], &acc);
    }
}

typedef struct {
    G_(fr_t) *a;
    const G_(fr_t) *b, *c;
} G_(g16_h_job);

#if defined(CUZK_IFMA)
/* The same 8 at a time: Montgomery product by the integer 1 leaves Montgomery
 * form (a·R·1/R = a), like fr_from_mont; lanes equal the scalar results. */
CUZK_IFMA_TARGET static size_t G_(g16_h_v8)(const G_(g16_h_job) *j, size_t lo, size_t hi)
{
    G_(fr_t) one_raw;
    G_(fr_set_zero)(&one_raw);
    one_raw.l[0] = 1;
    G_(fr_v8_t) one, x, y, z;
    G_(fr_v8_set1)(&one, &one_raw);
    for (; lo + 8 <= hi; lo += 8) {
        G_(fr_v8_load)(&x, &j->a[lo]);
        G_(fr_v8_load)(&y, &j->b[lo]);
        G_(fr_v8_load)(&z, &j->c[lo]);
        G_(fr_v8_mul)(&x, &x, &y);
        G_(fr_v8_sub)(&x, &x, &z);
        G_(fr_v8_mul)(&x, &x, &one);
        G_(fr_v8_store)(&j->a[lo], &x);
    }
    return lo;
}
#endif

/* h = a·b − c, out of Montgomery form (MSM scalars are raw), in place in a. */
static void G_(g16_h_range)(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    const G_(g16_h_job) *j = p;
#if defined(CUZK_IFMA)
    if (cuzk_ifma_enabled())
        lo = G_(g16_h_v8)(j, lo, hi);
#endif
    for (size_t i = lo; i < hi; i++) {
        G_(fr_t) t;
        G_(fr_mul)(&t, &j->a[i], &j->b[i]);
        G_(fr_sub)(&t, &t, &j->c[i]);
        G_(fr_from_mont)(&j->a[i], &t);
    }
}

/* Proves with witness w (raw form, n_vars values). r, s: the blinding
 * factors in raw form, or NULL for fresh random ones (TEST ONLY otherwise). */
cuzk_status G_(g16_prove)(cuzk_ctx *ctx, const G_(g16_key_t) *k, const G_(fr_t) *w, const G_(fr_t) *r_raw,
                          const G_(fr_t) *s_raw, G_(g16_proof_t) *proof, cuzk_error *err)
{
    cuzk_status st = CUZK_OK;
    cuzk_pool *pool = ctx->pool;
    size_t n = k->domain_size;
    G_(fr_t) *a = NULL, *b = NULL, *c = NULL;
    const G_(ntt_domain) *dom = k->dom;

    /* 1. a, b, c over the domain. */
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_ABC);
    a = cuzk_alloc(n, sizeof *a);
    b = cuzk_alloc(n, sizeof *b);
    c = cuzk_alloc(n, sizeof *c);
    if (!a || !b || !c) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the a, b, c vectors (3 x %zu elements)", n);
        goto out;
    }
    G_(g16_abc_job) abc = {k, w, a, b, c};
    if (k->n_chunks)
        cuzk_parallel_for(pool, k->n_chunks, 1, G_(g16_abc_chunks), &abc);
    else
        cuzk_parallel_for(pool, n, 4096, G_(g16_abc_range), &abc);
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;

    /* 2. To the odd coset: 3 x (iNTT, scale, NTT). */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_NTT);
    if ((st = G_(ntt_coset_odd)(dom, a, pool, err)))
        goto out;
    cuzk_progress(ctx, CUZK_PHASE_NTT, 1.0 / 3);
    if ((st = cuzk_check_cancel(ctx, err)) || (st = G_(ntt_coset_odd)(dom, b, pool, err)))
        goto out;
    cuzk_progress(ctx, CUZK_PHASE_NTT, 2.0 / 3);
    if ((st = cuzk_check_cancel(ctx, err)) || (st = G_(ntt_coset_odd)(dom, c, pool, err)))
        goto out;
    G_(g16_h_job) hj = {a, b, c};
    cuzk_parallel_for(pool, n, 4096, G_(g16_h_range), &hj);
    cuzk_phase_end(ctx, &ph);
    cuzk_free(b);
    cuzk_free(c);
    b = c = NULL;
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;

    /* 3. The five MSMs. */
    G_(g1_jac_t) msm_a, msm_b1, msm_c, msm_h;
    G_(g2_jac_t) msm_b2;
    size_t n_priv = k->n_vars - k->n_public - 1;
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_MSM_H);
    if ((st = G_(g1_msm)(&msm_h, k->h, a, n, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    cuzk_free(a);
    a = NULL;
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_MSM_A);
    if ((st = G_(g1_msm)(&msm_a, k->a, w, k->n_vars, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_MSM_B1);
    if ((st = G_(g1_msm)(&msm_b1, k->b1, w, k->n_vars, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_MSM_C);
    if ((st = G_(g1_msm)(&msm_c, k->c, w + k->n_public + 1, n_priv, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_MSM_B2);
    if ((st = G_(g2_msm)(&msm_b2, k->b2, w, k->n_vars, pool, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;

    /* 4. Assembly with the blinding factors r, s. */
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_ASSEMBLE);
    G_(fr_t) r, s, rs;
    if (r_raw && s_raw) {
        G_(fr_to_mont)(&r, r_raw);
        G_(fr_to_mont)(&s, s_raw);
    } else if (!G_(fr_random)(&r) || !G_(fr_random)(&s)) {
        st = cuzk_err(err, CUZK_ERR_INTERNAL, "the OS random number generator failed");
        goto out;
    }
    G_(fr_mul)(&rs, &r, &s);
    G_(fr_from_mont)(&r, &r);
    G_(fr_from_mont)(&s, &s);
    G_(fr_from_mont)(&rs, &rs);
    G_(g1_jac_t) t1, pa, pb1, pc;
    G_(g2_jac_t) t2, pb;
    /* pi_a = alpha1 + Σ w·A + r·delta1 */
    G_(g1_affine_mul)(&t1, k->delta1, r.l, 4);
    G_(g1_jac_add)(&pa, &msm_a, &t1);
    G_(g1_jac_add_affine)(&pa, &pa, k->alpha1);
    /* pi_b = beta2 + Σ w·B2 + s·delta2; pib1 likewise in G1 */
    G_(g2_affine_mul)(&t2, k->delta2, s.l, 4);
    G_(g2_jac_add)(&pb, &msm_b2, &t2);
    G_(g2_jac_add_affine)(&pb, &pb, k->beta2);
    G_(g1_affine_mul)(&t1, k->delta1, s.l, 4);
    G_(g1_jac_add)(&pb1, &msm_b1, &t1);
    G_(g1_jac_add_affine)(&pb1, &pb1, k->beta1);
    /* pi_c = Σ w·C + π_H + s·pi_a + r·pib1 − r·s·delta1 */
    G_(g1_jac_add)(&pc, &msm_c, &msm_h);
    G_(g1_jac_mul)(&t1, &pa, s.l, 4);
    G_(g1_jac_add)(&pc, &pc, &t1);
    G_(g1_jac_mul)(&t1, &pb1, r.l, 4);
    G_(g1_jac_add)(&pc, &pc, &t1);
    G_(g1_affine_mul)(&t1, k->delta1, rs.l, 4);
    G_(g1_jac_neg)(&t1, &t1);
    G_(g1_jac_add)(&pc, &pc, &t1);
    G_(g1_jac_to_affine)(&proof->a, &pa);
    G_(g2_jac_to_affine)(&proof->b, &pb);
    G_(g1_jac_to_affine)(&proof->c, &pc);
    cuzk_phase_end(ctx, &ph);

out:
    cuzk_free(a);
    cuzk_free(b);
    cuzk_free(c);
    return st;
}

/* ---- verifier -------------------------------------------------------------- */

typedef struct {
    uint32_t n_public;
    G_(g1_affine_t) alpha1;
    G_(g2_affine_t) beta2, gamma2, delta2;
    const G_(g1_affine_t) *ic; /* n_public + 1 */
} G_(g16_vk_t);

/* pub: raw field elements (< r, checked by the caller). CUZK_OK if valid,
 * CUZK_ERR_INVALID_PROOF if not. Checks e(-A,B)·e(cpub,γ)·e(C,δ)·e(α,β) = 1. */
cuzk_status G_(g16_verify)(const G_(g16_vk_t) *vk, const G_(fr_t) *pub, const G_(g16_proof_t) *pf,
                           cuzk_error *err)
{
    G_(g1_jac_t) acc, t;
    G_(g1_jac_from_affine)(&acc, &vk->ic[0]);
    for (uint32_t i = 0; i < vk->n_public; i++) {
        G_(g1_affine_mul)(&t, &vk->ic[i + 1], pub[i].l, 4);
        G_(g1_jac_add)(&acc, &acc, &t);
    }
    G_(g1_affine_t) ps[4];
    G_(g2_affine_t) qs[4];
    G_(g1_affine_neg)(&ps[0], &pf->a);
    qs[0] = pf->b;
    G_(g1_jac_to_affine)(&ps[1], &acc);
    qs[1] = vk->gamma2;
    ps[2] = pf->c;
    qs[2] = vk->delta2;
    ps[3] = vk->alpha1;
    qs[3] = vk->beta2;
    G_(fp12_t) e;
    G_(multi_pairing)(&e, ps, qs, 4);
    if (!G_(fp12_is_one)(&e))
        return cuzk_err(err, CUZK_ERR_INVALID_PROOF, "invalid proof: the pairing check failed");
    return CUZK_OK;
}

#undef G_
#undef G16_CURVE
