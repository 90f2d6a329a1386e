/* The A/B evaluation plan of a key (abc_plan.h): curve-neutral, it only
 * moves records; the arithmetic is the curve's abc_eval kernel. */
#include "groth16/abc_plan.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "formats/formats.h"

void cuzk_coefs_of_zkey(cuzk_coefs *co, const cuzk_zkey *zk)
{
    co->n = zk->n_coefs;
    if (zk->coef_raw) { /* records: u32 matrix, constraint, signal, then the value */
        co->matrix = zk->coef_raw;
        co->constraint = zk->coef_raw + 4;
        co->signal = zk->coef_raw + 8;
        co->value = zk->coef_raw + 12;
        co->stride = co->vstride = 12 + zk->n8r;
    } else {
        co->matrix = (const uint8_t *)zk->coef_matrix;
        co->constraint = (const uint8_t *)zk->coef_constraint;
        co->signal = (const uint8_t *)zk->coef_signal;
        co->value = (const uint8_t *)zk->coef_value.ptr;
        co->stride = sizeof(uint32_t);
        co->vstride = zk->n8r;
    }
}

void cuzk_abc_plan_free(cuzk_abc_plan *k)
{
    cuzk_free(k->cstart);
    cuzk_free(k->crow);
    cuzk_free(k->row_a);
    cuzk_free(k->row_b);
    cuzk_free(k->terms_a);
    cuzk_free(k->terms_b);
    k->cstart = NULL;
    k->crow = NULL;
    k->n_chunks = 0;
    k->row_a = k->row_b = NULL;
    k->terms_a = k->terms_b = NULL;
}

uint64_t cuzk_abc_plan_csr_bytes(size_t n_coefs, size_t domain_size)
{
    return 2 * ((uint64_t)domain_size + 1) * sizeof(uint32_t) + (uint64_t)n_coefs * CUZK_ABC_TERM_SIZE;
}

/* Chunks of a plan over nr records (cuzk_abc_plan_build). */
static size_t plan_chunks(size_t nr) { return CUZK_MAX((size_t)1, CUZK_MIN(nr / 4096, (size_t)4096)); }

uint64_t cuzk_abc_plan_held_bytes(size_t n_coefs, size_t domain_size, bool sorted)
{
    const uint64_t tables = (plan_chunks(n_coefs) + 1) * (uint64_t)(sizeof(size_t) + sizeof(uint32_t));
    return sorted ? tables : tables + cuzk_abc_plan_csr_bytes(n_coefs, domain_size);
}

uint64_t cuzk_abc_plan_bytes(const cuzk_abc_plan *k)
{
    uint64_t b = (k->n_chunks + 1) * (uint64_t)(sizeof *k->cstart + sizeof *k->crow);
    if (k->row_a)
        b += cuzk_abc_plan_csr_bytes(k->co.n, k->domain_size);
    return b;
}

/* Builds the per-row CSR of A and B from the records (any order). Counting
 * sort: O(nnz) time, one pass to count and one to place. */
static cuzk_status plan_csr(cuzk_abc_plan *k, cuzk_error *err)
{
    const cuzk_coefs *co = &k->co;
    size_t n = k->domain_size;
    k->row_a = cuzk_calloc(n + 1, sizeof(uint32_t));
    k->row_b = cuzk_calloc(n + 1, sizeof(uint32_t));
    if (!k->row_a || !k->row_b)
        goto nomem;
    size_t na = 0, nb = 0;
    for (size_t i = 0; i < co->n; i++) {
        uint32_t m = cuzk_coef_u32(co->matrix, i, co->stride);
        uint32_t c = cuzk_coef_u32(co->constraint, i, co->stride);
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
    k->terms_a = cuzk_alloc(na ? na : 1, CUZK_ABC_TERM_SIZE);
    k->terms_b = cuzk_alloc(nb ? nb : 1, CUZK_ABC_TERM_SIZE);
    uint32_t *fa = cuzk_alloc(n, sizeof(uint32_t)), *fb = cuzk_alloc(n, sizeof(uint32_t));
    if (!k->terms_a || !k->terms_b || !fa || !fb) {
        cuzk_free(fa);
        cuzk_free(fb);
        goto nomem;
    }
    memcpy(fa, k->row_a, n * sizeof(uint32_t));
    memcpy(fb, k->row_b, n * sizeof(uint32_t));
    for (size_t i = 0; i < co->n; i++) {
        uint32_t m = cuzk_coef_u32(co->matrix, i, co->stride);
        uint32_t c = cuzk_coef_u32(co->constraint, i, co->stride);
        uint8_t *t = m == 0 ? k->terms_a + (size_t)fa[c]++ * CUZK_ABC_TERM_SIZE
                            : k->terms_b + (size_t)fb[c]++ * CUZK_ABC_TERM_SIZE;
        uint32_t sig = cuzk_coef_u32(co->signal, i, co->stride), pad = 0;
        memcpy(t, &sig, 4);
        memcpy(t + 4, &pad, 4);
        memcpy(t + 8, co->value + i * co->vstride, CUZK_ABC_TERM_SIZE - 8);
    }
    cuzk_free(fa);
    cuzk_free(fb);
    return CUZK_OK;
nomem:
    cuzk_abc_plan_free(k);
    return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory preparing the constraint matrices");
}

/* Records of chunk q non-decreasing by constraint, inside the chunk's rows. */
typedef struct {
    const cuzk_abc_plan *k;
    atomic_bool unsorted;
} sorted_job;

static void sorted_range(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    sorted_job *j = p;
    const cuzk_abc_plan *k = j->k;
    for (size_t q = lo; q < hi; q++) {
        uint32_t prev = k->crow[q];
        for (size_t i = k->cstart[q]; i < k->cstart[q + 1]; i++) {
            uint32_t c = cuzk_coef_u32(k->co.constraint, i, k->co.stride);
            if (c < prev || c >= k->crow[q + 1]) {
                atomic_store_explicit(&j->unsorted, true, memory_order_relaxed);
                return;
            }
            prev = c;
        }
    }
}

cuzk_status cuzk_abc_plan_build(cuzk_abc_plan *k, const cuzk_coefs *co, size_t domain_size, cuzk_pool *pool,
                                cuzk_error *err)
{
    memset(k, 0, sizeof *k);
    k->co = *co;
    k->domain_size = domain_size;
    const size_t nr = co->n, nrow = domain_size;
    size_t nch = plan_chunks(nr);
    k->cstart = cuzk_alloc(nch + 1, sizeof *k->cstart);
    k->crow = cuzk_alloc(nch + 1, sizeof *k->crow);
    if (!k->cstart || !k->crow) {
        cuzk_abc_plan_free(k);
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
               cuzk_coef_u32(co->constraint, i, co->stride) == cuzk_coef_u32(co->constraint, i - 1, co->stride))
            i++;
        k->cstart[q] = q == nch ? nr : i;
        k->crow[q] = k->cstart[q] < nr ? cuzk_coef_u32(co->constraint, k->cstart[q], co->stride) : (uint32_t)nrow;
        if (k->crow[q] < k->crow[q - 1] || k->crow[q] > nrow)
            sorted = false;
    }
    if (sorted) {
        sorted_job sj = {k, false};
        cuzk_parallel_for(pool, nch, 1, sorted_range, &sj);
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
    return plan_csr(k, err);
}
