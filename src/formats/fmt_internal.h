/* Internals shared by the format readers/writers: little-endian byte access,
 * the per-curve operation table (point checks, decimal I/O, witness rows),
 * and a parallel "scan for the first bad item" driver. */
#ifndef CUZK_FORMATS_FMT_INTERNAL_H
#define CUZK_FORMATS_FMT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "formats/formats.h"

/* File bodies are not aligned: read integers byte by byte (no UB, and the
 * compiler turns these into single loads on x86). */
static inline uint32_t fmt_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t fmt_rd64(const uint8_t *p)
{
    return (uint64_t)fmt_rd32(p) | (uint64_t)fmt_rd32(p + 4) << 32;
}
static inline void fmt_wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static inline void fmt_wr64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
/* n8 LE bytes -> limbs (n8 multiple of 8); the host is little-endian, but
 * do it portably. */
static inline void fmt_bytes_to_limbs(uint64_t *l, const uint8_t *b, size_t n8)
{
    for (size_t i = 0; i < n8 / 8; i++)
        l[i] = fmt_rd64(b + 8 * i);
}
static inline void fmt_limbs_to_bytes(uint8_t *b, const uint64_t *l, size_t n8)
{
    for (size_t i = 0; i < n8 / 8; i++)
        fmt_wr64(b + 8 * i, l[i]);
}
/* LE limbs a < m (n limbs each). */
static inline bool fmt_limbs_lt(const uint64_t *a, const uint64_t *m, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != m[i])
            return a[i] < m[i];
    return false;
}
/* n8 LE bytes < modulus limbs (n8 = 8·limbs). */
static inline bool fmt_bytes_lt(const uint8_t *b, const uint64_t *m, size_t n8)
{
    for (size_t i = n8 / 8; i-- > 0;) {
        uint64_t v = fmt_rd64(b + 8 * i);
        if (v != m[i])
            return v < m[i];
    }
    return false;
}

/* Point check results. */
enum { FMT_PT_OK = 0, FMT_PT_RANGE = 1, FMT_PT_CURVE = 2, FMT_PT_SUBGROUP = 3 };
const char *fmt_pt_reason(int why);

/* Decimal parse results. */
enum { FMT_DEC_OK = 0, FMT_DEC_SYNTAX = 1, FMT_DEC_RANGE = 2 };

typedef struct fmt_ops {
    const cuzk_curve_desc *desc;
    /* Points in our affine layout (Montgomery): FMT_PT_*. */
    int (*g1_check)(const void *pt, bool subgroup);
    int (*g2_check)(const void *pt, bool subgroup);
    /* The same for n consecutive points: the reason for the first bad one,
     * or FMT_PT_OK (vectorised where the CPU allows). */
    int (*g1_check_n)(const void *pts, size_t n, bool subgroup);
    int (*g2_check_n)(const void *pts, size_t n, bool subgroup);
    /* Fq element (Montgomery) <-> decimal of its standard value. */
    int (*fq_to_dec)(char *buf, size_t cap, const void *mont);
    int (*fq_from_dec)(void *mont, const char *s);
    /* Witness check: w_mont[i] = to_mont(w_raw[i]) for i in [0, n). */
    void (*fr_to_mont_vec)(void *w_mont, const void *w_raw, size_t n);
    /* First constraint in [lo, hi) with <A,w>·<B,w> != <C,w>, or hi. */
    size_t (*r1cs_first_bad)(const cuzk_r1cs *r, const void *w_mont, size_t lo, size_t hi);
} fmt_ops;

/* NULL for an unsupported curve. */
const fmt_ops *fmt_ops_get(cuzk_curve c);

/* Parallel scan: item(ctx, i) for i in [0, n) returns 0 or a nonzero
 * reason; the smallest failing index is stored in *bad (n if none) and its
 * reason in *why. Items after a known failure may be skipped. */
typedef int (*fmt_item_fn)(void *ctx, size_t i);
void fmt_par_scan(cuzk_pool *pool, size_t n, size_t grain, fmt_item_fn item, void *ctx,
                  size_t *bad, int *why);

/* Drops the pages of a section that has been copied out of a mapped file
 * (MADV_DONTNEED), so loading a key does not hold it twice in RSS. */
void fmt_binfile_drop(const cuzk_binfile *bf, uint64_t offset, uint64_t size);

/* Copies file bytes [offset, offset + size) to dst: with pread (in parallel
 * chunks) when bf has its file open (mapped or not), else from the caller's
 * buffer. pread never faults on a truncated file and spares the first touch
 * of source pages through a 4 KiB mapping (~4 us a page in our VMs, more
 * than the copy itself). CUZK_ERR_IO if the file cannot be read (e.g.
 * truncated since it was opened). */
cuzk_status fmt_binfile_copy(const cuzk_binfile *bf, uint64_t offset, void *dst, size_t size,
                             cuzk_pool *pool, cuzk_error *err);

/* Sequential reads of small records from a binfile (a section index, r1cs
 * constraints): fmt_cursor_at(c, off, n) points at file bytes [off, off + n)
 * (n <= the window, off + n <= the file size; the caller checks that),
 * valid until the next call. From memory (a buffer or a mapped file) it is
 * the bytes themselves; from a file, a window of `cap` bytes refilled with
 * pread, so a file truncated meanwhile is CUZK_ERR_IO (NULL, err set). */
typedef struct fmt_cursor {
    const cuzk_binfile *bf;
    const uint8_t *base; /* file bytes [lo, hi) are base[0, hi - lo) */
    uint64_t lo, hi;
    uint8_t *buf;        /* the window (file reads only) */
    size_t cap;
} fmt_cursor;

cuzk_status fmt_cursor_init(fmt_cursor *c, const cuzk_binfile *bf, size_t cap, cuzk_error *err);
const uint8_t *fmt_cursor_fill(fmt_cursor *c, uint64_t off, size_t n, cuzk_error *err);
static inline const uint8_t *fmt_cursor_at(fmt_cursor *c, uint64_t off, size_t n, cuzk_error *err)
{
    if (off >= c->lo && off <= c->hi && n <= c->hi - off)
        return c->base + (off - c->lo);
    return fmt_cursor_fill(c, off, n, err);
}
void fmt_cursor_free(fmt_cursor *c);

/* Decimal syntax: non-empty, digits only, at most `max_digits`. */
bool fmt_is_decimal(const char *s, size_t max_digits);

#endif
