/* Selection by bitmap: the elements of src whose bit is set, in order, into
 * dst, in parallel.
 *
 * DESIGN: the bitmap is cut into blocks of CUZK_BITSEL_BLOCK bits; a prefix
 * sum of the blocks' popcounts gives each block the index of its first output
 * element, so any parallel-for can copy blocks independently
 * (cuzk_bitsel_range has the cuzk_range_fn shape). Used by the CPU prover's
 * bellperson assignments and by the GPU prover's host-side selection. */
#ifndef CUZK_UTIL_BITSEL_H
#define CUZK_UTIL_BITSEL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_BITSEL_BLOCK ((size_t)256 * 64) /* bits a block */

typedef struct {
    void *dst;
    const void *src;
    const uint64_t *bits;
    size_t n;     /* bits (and src elements) */
    size_t elem;  /* bytes an element */
    size_t *off;  /* first output index of each block */
    size_t nblk;  /* blocks: cuzk_bitsel_range runs over [0, nblk) */
    size_t count; /* bits set below n: the elements written */
} cuzk_bitsel;

/* Set bits of w[0..] below bit `bits`. */
uint64_t cuzk_popcount_bits(const uint64_t *w, size_t bits);

/* Prepares s to select from src (n elements of elem bytes) into dst the
 * elements whose bit is set, and counts them (s->count). dst and src may be
 * NULL when only the count is wanted. Returns CUZK_ERR_NOMEM (message in e)
 * when the offsets cannot be allocated; s then needs no cuzk_bitsel_free. */
cuzk_status cuzk_bitsel_init(cuzk_bitsel *s, void *dst, const void *src, const uint64_t *bits, size_t n, size_t elem,
                             cuzk_error *e);

/* Copies blocks [b, e) of the selection (arg: a cuzk_bitsel). */
void cuzk_bitsel_range(void *arg, size_t b, size_t e, int worker);

/* Frees what cuzk_bitsel_init allocated. */
void cuzk_bitsel_free(cuzk_bitsel *s);

#ifdef __cplusplus
}
#endif

#endif
