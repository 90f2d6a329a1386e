/* The operations of one curve behind a table, so that the Groth16 pipeline,
 * the verifier and the CPU backend are written once (src/groth16) and the
 * per-curve code is limited to arithmetic kernels (curve_ops_impl.h,
 * instantiated per curve in curve_ops.c).
 *
 * The table lives here, in the prover's layer, because it names the code of
 * every layer below: field and group arithmetic and the pairing (curve/),
 * the NTT (poly/), the MSM (msm/) and the prover's own vector kernels.
 * Everything that reads it (groth16/, diag/, the CLI, tests and tools) sits
 * at or above this layer.
 *
 * Values are passed as bytes in our layouts (curve_desc.h): Fr elements of
 * desc->n8r bytes (Montgomery unless "raw"), affine and Jacobian points of
 * desc->g1_affine / g1_jac / g2_affine / g2_jac bytes. Scalars of point
 * multiplications are raw Fr limbs. All functions are reentrant; the vector
 * kernels run on `pool` (NULL: the calling thread). */
#ifndef CUZK_GROTH16_CURVE_OPS_H
#define CUZK_GROTH16_CURVE_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "curve/curve_desc.h"
#include "util/threadpool.h"

/* Coefficient records of a zkey's A and B matrices, wherever they live:
 * section 4 in the file mapping (records of u32 matrix, constraint, signal
 * and an Fr value, unaligned) or decoded arrays. Field f of record i is at
 * f + i·stride (the value at value + i·vstride); values are v·R² mod r. */
typedef struct cuzk_coefs {
    size_t n;
    const uint8_t *matrix, *constraint, *signal, *value;
    size_t stride, vstride;
} cuzk_coefs;

/* Field f of record i (read with memcpy: no alignment assumed). */
static inline uint32_t cuzk_coef_u32(const uint8_t *f, size_t i, size_t stride)
{
    uint32_t v;
    memcpy(&v, f + i * stride, sizeof v);
    return v;
}

/* Bytes of one CSR term: u32 signal, u32 pad, 32-byte Fr value (Fr is 4 limbs on every curve). */
#define CUZK_ABC_TERM_SIZE 40

/* How a = A·w, b = B·w are evaluated (built once per key by
 * cuzk_abc_plan_build, groth16/abc_plan.c): records sorted by constraint are
 * cut into n_chunks chunks at constraint boundaries, chunk q being records
 * [cstart[q], cstart[q+1]) that own rows [crow[q], crow[q+1]); otherwise
 * (n_chunks = 0) a CSR of A and B by row whose terms are (u32 signal, u32
 * pad, Fr value) records of CUZK_ABC_TERM_SIZE bytes. */
typedef struct cuzk_abc_plan {
    cuzk_coefs co;
    size_t domain_size;
    size_t n_chunks;
    size_t *cstart;
    uint32_t *crow;
    uint32_t *row_a, *row_b; /* domain_size + 1 */
    uint8_t *terms_a, *terms_b;
} cuzk_abc_plan;

typedef struct cuzk_curve_ops {
    const cuzk_curve_desc *desc;

    /* ---- Fr ---- */
    bool (*fr_random)(void *r);                                  /* uniform, Montgomery; false if the OS RNG fails */
    void (*fr_mul)(void *r, const void *a, const void *b);       /* Montgomery */
    void (*fr_add)(void *r, const void *a, const void *b);
    void (*fr_to_mont)(void *r, const void *raw);
    void (*fr_from_mont)(void *raw, const void *a);
    void (*fq_from_mont)(uint64_t *raw, const void *a);          /* Fq (G1 coordinate) -> fq_limbs raw limbs */

    /* ---- G1 / G2 (affine "a", Jacobian "j") ---- */
    void (*g1_mul_affine)(void *j, const void *a, const uint64_t *scalar, size_t limbs);
    void (*g1_mul_jac)(void *j, const void *p, const uint64_t *scalar, size_t limbs);
    void (*g1_add)(void *j, const void *p, const void *q);       /* j = p + q, Jacobian */
    void (*g1_add_affine)(void *j, const void *p, const void *a);
    void (*g1_neg)(void *j, const void *p);
    void (*g1_from_affine)(void *j, const void *a);
    void (*g1_to_affine)(void *a, const void *j);
    void (*g1_affine_neg)(void *r, const void *a);
    void (*g2_mul_affine)(void *j, const void *a, const uint64_t *scalar, size_t limbs);
    void (*g2_add)(void *j, const void *p, const void *q);
    void (*g2_add_affine)(void *j, const void *p, const void *a);
    void (*g2_to_affine)(void *a, const void *j);
    /* out[i] = k[i]·base for n raw scalars k (affine results), on `pool`. */
    cuzk_status (*g1_batch_mul)(void *out, const void *base, const void *k, size_t n, cuzk_pool *pool,
                                cuzk_error *err);
    cuzk_status (*g2_batch_mul)(void *out, const void *base, const void *k, size_t n, cuzk_pool *pool,
                                cuzk_error *err);

    /* ---- pairing ---- */
    /* prod e(g1[i], g2[i]) == 1 over n affine pairs (contiguous arrays); the
     * pairs' Miller loops split over `pool`'s workers (NULL: this thread). */
    bool (*pairing_product_is_one)(const void *g1, const void *g2, size_t n, cuzk_pool *pool);
    /* e(g1, g2) in Fq12 (12 Fq elements, Montgomery, our tower order). */
    void (*pairing)(void *fq12, const void *g1, const void *g2);
    size_t fq12_size;
    /* A verifying key's fixed pairing arguments, prepared once (affine
     * points): γ's and δ's Miller-loop lines and the Miller value of (α, β),
     * ~40 KB in one allocation (free() releases it); NULL when out of memory. */
    void *(*vk_prepare)(const void *alpha_1, const void *beta_2, const void *gamma_2, const void *delta_2);
    /* With prep from vk_prepare, affine points: e(neg_a, b)·e(ic, γ)·e(c, δ)
     * ·e(α, β) == 1, the same check as pairing_product_is_one over those four
     * pairs, with three Miller loops (two of prepared points) at once on
     * `pool`'s workers, or sharing their squarings on this thread (NULL). */
    bool (*verify_prep)(const void *prep, const void *neg_a, const void *b, const void *ic, const void *c,
                        cuzk_pool *pool);
    /* verify_prep in two halves, for a proof whose A and B are known before
     * its C: f (fq12_size bytes) = the Miller value of e(neg_a, b)·e(ic, γ)
     * ·e(α, β) (the two loops at once on `pool`, as verify_prep); then
     * verify_finish: e(c, δ)'s loop and the final exponentiation, true when
     * the four pairs' product is 1; on a `pool` of 2 or more, that loop in
     * two parts, one a worker, each with a final exponentiation of its own
     * (one more exponentiation, less time: the tail of a proof). */
    void (*verify_begin)(void *f, const void *prep, const void *neg_a, const void *b, const void *ic,
                         cuzk_pool *pool);
    bool (*verify_finish)(const void *prep, const void *f, const void *c, cuzk_pool *pool);

    /* ---- CPU kernels (the CPU backend) ---- */
    /* Twiddles of the domain 2^log_n whose roots are powers of `generator`
     * (0: 5, snarkjs's; bellperson's: 7) (ntt_domain_free releases). */
    cuzk_status (*ntt_domain_create)(void **dom, unsigned log_n, uint64_t generator, cuzk_pool *pool,
                                     cuzk_error *err);
    void (*ntt_domain_free)(void *dom);
    size_t (*ntt_domain_bytes)(const void *dom);
    /* In place, natural order: coefficients -> evaluations over the domain
     * (inverse: back, with the 1/n); with `coset`, evaluations on the coset
     * w_2n·D (w_2n = the 2n-th root of unity; log_n below the two-adicity). */
    void (*ntt)(const void *dom, void *a, bool inverse, bool coset, cuzk_pool *pool);
    /* a (Montgomery evaluations over the domain) -> the same polynomial's
     * evaluations on the odd coset, in place. */
    cuzk_status (*ntt_coset_odd)(const void *dom, void *a, cuzk_pool *pool, cuzk_error *err);
    /* a, b, c (n Montgomery values each) -> a = raw(a·b − c), in place. */
    void (*h_pointwise)(void *a, const void *b, const void *c, size_t n, cuzk_pool *pool);
    /* a = A·w, b = B·w, c = a∘b over the domain (Montgomery) from raw w. */
    void (*abc_eval)(const cuzk_abc_plan *plan, const void *w, void *a, void *b, void *c, cuzk_pool *pool);
    /* Σ scalars[i]·bases[i] (affine bases, raw scalars) into a Jacobian point. */
    cuzk_status (*g1_msm)(void *j, const void *bases, const void *scalars, size_t n, cuzk_pool *pool,
                          cuzk_error *err);
    cuzk_status (*g2_msm)(void *j, const void *bases, const void *scalars, size_t n, cuzk_pool *pool,
                          cuzk_error *err);
} cuzk_curve_ops;

/* The operations of a curve; NULL for CUZK_CURVE_NONE or an unknown value.
 * The one function that chooses code by curve. */
const cuzk_curve_ops *cuzk_curve_ops_get(cuzk_curve c);

#endif
