/* The B bases without the points at infinity (b_density.h). */
#include "groth16/b_density.h"

#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "util/threadpool.h"

/* Wires per scan chunk: the chunk counts are prefix-summed serially. */
#define CHUNK ((size_t)1 << 16)

static bool all_zero(const uint8_t *p, size_t n)
{
    uint64_t acc = 0, w;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        acc |= w;
    }
    for (size_t i = n & ~(size_t)7; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

typedef struct {
    const uint8_t *b1, *b2;
    size_t n, g1, g2;
    uint64_t *count; /* per chunk; then its first output slot */
    cuzk_b_density *out;
} scan_job;

static bool kept(const scan_job *j, size_t i)
{
    return !all_zero(j->b1 + i * j->g1, j->g1) || !all_zero(j->b2 + i * j->g2, j->g2);
}

static void count_chunks(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    scan_job *j = ctx;
    for (size_t c = b; c < e; c++) {
        const size_t i1 = (c + 1) * CHUNK < j->n ? (c + 1) * CHUNK : j->n;
        uint64_t k = 0;
        for (size_t i = c * CHUNK; i < i1; i++)
            k += kept(j, i);
        j->count[c] = k;
    }
}

static void fill_chunks(void *ctx, size_t b, size_t e, int worker)
{
    (void)worker;
    scan_job *j = ctx;
    uint8_t *o1 = j->out->b1, *o2 = j->out->b2;
    for (size_t c = b; c < e; c++) {
        const size_t i1 = (c + 1) * CHUNK < j->n ? (c + 1) * CHUNK : j->n;
        uint64_t k = j->count[c];
        for (size_t i = c * CHUNK; i < i1; i++) {
            if (!kept(j, i))
                continue;
            j->out->index[k] = (uint32_t)i;
            memcpy(o1 + k * j->g1, j->b1 + i * j->g1, j->g1);
            memcpy(o2 + k * j->g2, j->b2 + i * j->g2, j->g2);
            k++;
        }
    }
}

cuzk_status cuzk_b_density_make(cuzk_b_density *out, const void *b1, const void *b2, size_t n_vars, size_t g1,
                                size_t g2, cuzk_pool *pool, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    out->n = n_vars;
    if (!b1 || !b2 || n_vars == 0 || n_vars > UINT32_MAX)
        return CUZK_OK;
    const size_t nch = (n_vars + CHUNK - 1) / CHUNK;
    scan_job j = {b1, b2, n_vars, g1, g2, cuzk_calloc(nch, sizeof(uint64_t)), out};
    if (!j.count)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of host memory scanning the B bases");
    cuzk_parallel_for(pool, nch, 1, count_chunks, &j);
    uint64_t n = 0;
    for (size_t c = 0; c < nch; c++) {
        const uint64_t k = j.count[c];
        j.count[c] = n;
        n += k;
    }
    if (n > n_vars - n_vars / 8) { /* too few points at infinity to be worth a copy */
        cuzk_free(j.count);
        return CUZK_OK;
    }
    cuzk_status st = cuzk_host_mem_check(n * (g1 + g2 + sizeof(uint32_t)),
                                         "the B bases without their points at infinity would", err);
    if (!st) {
        out->index = cuzk_calloc(n ? n : 1, sizeof(uint32_t));
        out->b1 = cuzk_calloc(n ? n : 1, g1);
        out->b2 = cuzk_calloc(n ? n : 1, g2);
        if (!out->index || !out->b1 || !out->b2)
            st = cuzk_err(err, CUZK_ERR_NOMEM, "out of host memory for the B bases without their points at infinity");
    }
    if (!st) {
        out->n = n;
        cuzk_parallel_for(pool, nch, 1, fill_chunks, &j);
    } else {
        cuzk_b_density_free(out);
    }
    cuzk_free(j.count);
    return st;
}

void cuzk_b_density_drop_bases(cuzk_b_density *d)
{
    cuzk_free(d->b1);
    cuzk_free(d->b2);
    d->b1 = d->b2 = NULL;
}

void cuzk_b_density_free(cuzk_b_density *d)
{
    if (!d)
        return;
    cuzk_b_density_drop_bases(d);
    cuzk_free(d->index);
    memset(d, 0, sizeof *d);
}
