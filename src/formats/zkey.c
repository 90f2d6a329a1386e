/* Groth16 .zkey reader and writer (snarkjs-formats.md §4).
 *
 * Reading is two-phase: first every section's presence and exact size is
 * checked against the header (cheap, no allocation beyond the index; the
 * index, sections 1-2 and the coefficient count are read with pread), then
 * the bodies are copied into 64-byte aligned arrays of our affine types and
 * validated, in parallel over the pool. Zkey point bytes are our Montgomery
 * limbs already, so the "conversion" is a copy (pread: a file truncated
 * meanwhile is an I/O error). Unless the caller asks for copies, the file is
 * then mapped and a section whose bytes are 8-byte aligned in the mapping
 * needs no copy: it is validated there and the key points into the mapping,
 * which it then keeps (zk->map). That saves the copy and, above all, the
 * fresh pages (first-touch faults of a copy cost ~1-2 ms per MiB in our VMs,
 * more than the copy), at the price of a SIGBUS if the file shrinks while
 * the key is loaded. Section headers are 12 bytes, so consecutive point
 * sections alternate between aligned and not: about half the point bytes
 * are used in place. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "formats/fmt_internal.h"
#include "formats/map_guard.h"
#include "util/bigint.h"

enum {
    SEC_PROTOCOL = 1,
    SEC_HEADER = 2,
    SEC_IC = 3,
    SEC_COEFS = 4,
    SEC_A = 5,
    SEC_B1 = 6,
    SEC_B2 = 7,
    SEC_C = 8,
    SEC_H = 9,
    SEC_MPC = 10
};

static const char *sec_name(int id)
{
    static const char *const names[] = {"",         "protocol",  "header",    "IC",
                                        "coefficients", "A points", "B1 points", "B2 points",
                                        "C points", "H points",  "contributions"};
    return id >= 1 && id <= 10 ? names[id] : "?";
}

/* p points into the mapping the key borrows from (not ours to free). */
static bool in_map(const cuzk_zkey *zk, const void *p)
{
    uintptr_t a = (uintptr_t)p, m = (uintptr_t)zk->map;
    return zk->map && a >= m && a - m < zk->map_size;
}

static void free_owned(const cuzk_zkey *zk, void *p)
{
    if (!in_map(zk, p))
        cuzk_free(p);
}

void cuzk_zkey_free(cuzk_zkey *zk)
{
    if (!zk)
        return;
    free_owned(zk, zk->ic.ptr);
    free_owned(zk, zk->coef_matrix);
    free_owned(zk, zk->coef_constraint);
    free_owned(zk, zk->coef_signal);
    free_owned(zk, zk->coef_value.ptr);
    free_owned(zk, zk->a.ptr);
    free_owned(zk, zk->b1.ptr);
    free_owned(zk, zk->b2.ptr);
    free_owned(zk, zk->c.ptr);
    free_owned(zk, zk->h.ptr);
    cuzk_map_guard_remove(zk->map_guard);
    if (zk->map)
        munmap(zk->map, zk->map_size);
    memset(zk, 0, sizeof *zk);
}

bool cuzk_zkey_map_lost(const cuzk_zkey *zk) { return zk && cuzk_map_guard_lost(zk->map_guard); }

static size_t n_private(const cuzk_zkey *zk) { return (size_t)zk->n_vars - zk->n_public - 1; }

/* in_place[id]: section id's body in the mapping, used as is; else NULL and
 * the array is allocated. */
static cuzk_status alloc_arrays(cuzk_zkey *zk, bool header_only, const uint8_t *const *in_place)
{
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(zk->curve);
    zk->ic.ptr = cuzk_alloc((size_t)zk->n_public + 1, cp->g1_affine);
    if (!zk->ic.ptr)
        return CUZK_ERR_NOMEM;
    if (header_only)
        return CUZK_OK;
    size_t nc = (size_t)zk->n_coefs;
    bool ok = true;
    if (in_place && in_place[SEC_COEFS]) {
        zk->coef_raw = in_place[SEC_COEFS];
    } else {
        zk->coef_matrix = cuzk_alloc(nc, sizeof(uint32_t));
        zk->coef_constraint = cuzk_alloc(nc, sizeof(uint32_t));
        zk->coef_signal = cuzk_alloc(nc, sizeof(uint32_t));
        zk->coef_value.ptr = cuzk_alloc(nc, 32);
        ok = zk->coef_matrix && zk->coef_constraint && zk->coef_signal && zk->coef_value.ptr;
    }
    struct {
        int id;
        void **ptr;
        size_t n, size;
    } pts[] = {{SEC_A, &zk->a.ptr, zk->n_vars, cp->g1_affine},
               {SEC_B1, &zk->b1.ptr, zk->n_vars, cp->g1_affine},
               {SEC_B2, &zk->b2.ptr, zk->n_vars, cp->g2_affine},
               {SEC_C, &zk->c.ptr, n_private(zk), cp->g1_affine},
               {SEC_H, &zk->h.ptr, zk->domain_size, cp->g1_affine}};
    for (size_t i = 0; i < CUZK_ARRAY_LEN(pts); i++) {
        const uint8_t *p = in_place ? in_place[pts[i].id] : NULL;
        /* The mapping is read-only; the cast only drops const for the
         * common vector type (cuzk_zkey_free never frees it). */
        *pts[i].ptr = p ? (void *)(uintptr_t)p : cuzk_alloc(pts[i].n, pts[i].size);
        ok = ok && *pts[i].ptr;
    }
    return ok ? CUZK_OK : CUZK_ERR_NOMEM;
}

cuzk_status cuzk_zkey_alloc(cuzk_zkey *zk, cuzk_error *err)
{
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(zk->curve);
    if (!cp)
        return cuzk_err(err, CUZK_ERR_USAGE, "zkey alloc: unsupported curve");
    if (zk->n_vars < (uint64_t)zk->n_public + 1 || zk->domain_size == 0 ||
        (zk->domain_size & (zk->domain_size - 1)))
        return cuzk_err(err, CUZK_ERR_USAGE, "zkey alloc: inconsistent sizes");
    zk->n8q = cp->n8q;
    zk->n8r = cp->n8r;
    zk->log_domain = 0;
    while ((1u << zk->log_domain) < zk->domain_size)
        zk->log_domain++;
    zk->header_only = false;
    if (alloc_arrays(zk, false, NULL)) {
        /* The message before the free, which zeroes the sizes. */
        cuzk_status st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for a zkey of %u wires and domain %u",
                                  zk->n_vars, zk->domain_size);
        cuzk_zkey_free(zk);
        return st;
    }
    return CUZK_OK;
}

/* ---- reading ---- */

typedef struct {
    const cuzk_binfile_section *s[11];
} zsecs;

static cuzk_status size_check(const cuzk_binfile *bf, const cuzk_zkey *zk, const zsecs *zs, int id,
                              uint64_t expected, const char *how, cuzk_error *err)
{
    uint64_t got = zs->s[id]->size;
    if (got == expected)
        return CUZK_OK;
    return cuzk_err(err, CUZK_ERR_FORMAT,
                    "%s: section %d (%s) size mismatch for %s: expected %llu bytes (%s), got %llu",
                    bf->name, id, sec_name(id), cuzk_curve_name(zk->curve),
                    (unsigned long long)expected, how, (unsigned long long)got);
}

static void le_dec(char *buf, size_t cap, const uint8_t *le, size_t n8)
{
    uint64_t l[8] = {0};
    fmt_bytes_to_limbs(l, le, n8 <= 64 ? n8 : 64);
    if (cuzk_bn_to_dec(buf, cap, l, 8) < 0)
        snprintf(buf, cap, "?");
}

/* Sections 1 and 2, then the sizes of 3..9. Nothing is allocated. */
static cuzk_status parse_layout(cuzk_zkey *zk, const cuzk_binfile *bf, zsecs *zs, cuzk_error *err)
{
    const char *nm = bf->name;
    cuzk_status st;
    for (int id = SEC_PROTOCOL; id <= SEC_H; id++)
        if ((st = cuzk_binfile_get(bf, (uint32_t)id, &zs->s[id], err)))
            return st;
    zs->s[SEC_MPC] = cuzk_binfile_find(bf, SEC_MPC);

    /* Section 1: protocol. */
    if (zs->s[1]->size != 4)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 1 (protocol) size mismatch: expected 4 bytes, got %llu", nm,
                        (unsigned long long)zs->s[1]->size);
    uint8_t pb[4];
    if ((st = fmt_binfile_copy(bf, zs->s[1]->offset, pb, 4, NULL, err)))
        return st;
    uint32_t proto = fmt_rd32(pb);
    if (proto != 1)
        return cuzk_err(err, proto == 2 || proto == 10 ? CUZK_ERR_UNSUPPORTED : CUZK_ERR_FORMAT,
                        "%s: not a Groth16 zkey (protocol %u%s)", nm, proto,
                        proto == 2 ? " = plonk" : proto == 10 ? " = fflonk" : "");

    /* Section 2: header, copied (a valid one has at most 1300 bytes: n8q,
     * n8r <= 64). Read field by field with bounds checks first, since n8q
     * decides where everything else is; the checks use the declared size. */
    uint8_t h[2048];
    uint64_t hs = zs->s[2]->size;
    if ((st = fmt_binfile_copy(bf, zs->s[2]->offset, h, (size_t)CUZK_MIN(hs, sizeof h), NULL, err)))
        return st;
    if (hs < 4)
        goto short_header;
    uint32_t n8q = fmt_rd32(h);
    if (n8q == 0 || n8q % 8 || n8q > 64)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 2 (header): invalid n8q = %u", nm, n8q);
    if (hs < 8 + (uint64_t)n8q)
        goto short_header;
    const uint8_t *q = h + 4;
    uint32_t n8r = fmt_rd32(h + 4 + n8q);
    if (n8r == 0 || n8r % 8 || n8r > 64)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 2 (header): invalid n8r = %u", nm, n8r);
    if (hs < 8 + (uint64_t)n8q + n8r + 12)
        goto short_header;
    const uint8_t *r = h + 8 + n8q;
    cuzk_curve cq = cuzk_curve_from_q_bytes(q, n8q), cr = cuzk_curve_from_r_bytes(r, n8r);
    if (cq == CUZK_CURVE_NONE && cr == CUZK_CURVE_NONE) {
        char dq[200];
        le_dec(dq, sizeof dq, q, n8q);
        /* With the sizes of a supported curve, an unknown prime is damage. */
        bool known_sizes = (n8q == 32 || n8q == 48) && n8r == 32;
        return cuzk_err(err, known_sizes ? CUZK_ERR_FORMAT : CUZK_ERR_UNSUPPORTED,
                        "%s: wrong curve: q = %s is the base field of neither bn128 nor bls12381%s", nm,
                        dq, known_sizes ? " (a corrupt file, or a curve cuzk does not support)" : "");
    }
    if (cq != cr) /* one file, two curves: malformed */
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: wrong curve: q is %s but r is %s (the primes of the header disagree)", nm,
                        cq ? cuzk_curve_name(cq) : "unknown", cr ? cuzk_curve_name(cr) : "unknown");
    zk->curve = cq;
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(cq);
    if (n8q != cp->n8q || n8r != cp->n8r)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 2 (header): n8q = %u, n8r = %u, but %s has %u, %u",
                        nm, n8q, n8r, cp->snarkjs_name, cp->n8q, cp->n8r);
    zk->n8q = n8q;
    zk->n8r = n8r;
    const size_t g1 = cp->g1_affine, g2 = cp->g2_affine;
    uint64_t want = 4 + n8q + 4 + n8r + 12 + 3 * (uint64_t)g1 + 3 * (uint64_t)g2;
    if ((st = size_check(bf, zk, zs, SEC_HEADER, want, "n8q, q, n8r, r, sizes, 3 G1 + 3 G2", err)))
        return st;
    const uint8_t *p = r + n8r;
    zk->n_vars = fmt_rd32(p);
    zk->n_public = fmt_rd32(p + 4);
    zk->domain_size = fmt_rd32(p + 8);
    if ((uint64_t)zk->n_public + 1 > zk->n_vars)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 2 (header): nPublic %u needs nVars > %u, got %u",
                        nm, zk->n_public, zk->n_public, zk->n_vars);
    uint32_t d = zk->domain_size;
    if (d == 0 || (d & (d - 1)))
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 2 (header): domainSize %u is not a power of two",
                        nm, d);
    /* The domain holds the constraints plus nPublic + 1 public-input rows. */
    if ((uint64_t)d < (uint64_t)zk->n_public + 1)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 2 (header): domainSize %u is too small for nPublic %u", nm, d,
                        zk->n_public);
    zk->log_domain = 0;
    while ((1u << zk->log_domain) < d)
        zk->log_domain++;
    if (zk->log_domain > cp->fr_two_adicity)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 2 (header): domainSize 2^%u exceeds the 2^%u roots of unity of %s",
                        nm, zk->log_domain, cp->fr_two_adicity, cp->snarkjs_name);
    p += 12;
    memcpy(&zk->alpha_1, p, g1), p += g1;
    memcpy(&zk->beta_1, p, g1), p += g1;
    memcpy(&zk->beta_2, p, g2), p += g2;
    memcpy(&zk->gamma_2, p, g2), p += g2;
    memcpy(&zk->delta_1, p, g1), p += g1;
    memcpy(&zk->delta_2, p, g2);

    /* Sections 3..9: exact sizes. */
    char how[96];
    snprintf(how, sizeof how, "(nPublic %u + 1) x %zu", zk->n_public, g1);
    if ((st = size_check(bf, zk, zs, SEC_IC, ((uint64_t)zk->n_public + 1) * g1, how, err)))
        return st;
    const cuzk_binfile_section *s4 = zs->s[SEC_COEFS];
    if (s4->size < 4)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 4 (coefficients) size mismatch for %s: expected at least 4 bytes, "
                        "got %llu",
                        nm, cp->snarkjs_name, (unsigned long long)s4->size);
    uint8_t nb[4];
    if ((st = fmt_binfile_copy(bf, s4->offset, nb, 4, NULL, err)))
        return st;
    zk->n_coefs = fmt_rd32(nb);
    snprintf(how, sizeof how, "4 + nCoefs %llu x %u", (unsigned long long)zk->n_coefs, 12 + n8r);
    if ((st = size_check(bf, zk, zs, SEC_COEFS, 4 + zk->n_coefs * (12 + n8r), how, err)))
        return st;
    snprintf(how, sizeof how, "nVars %u x %zu", zk->n_vars, g1);
    if ((st = size_check(bf, zk, zs, SEC_A, (uint64_t)zk->n_vars * g1, how, err)) ||
        (st = size_check(bf, zk, zs, SEC_B1, (uint64_t)zk->n_vars * g1, how, err)))
        return st;
    snprintf(how, sizeof how, "nVars %u x %zu", zk->n_vars, g2);
    if ((st = size_check(bf, zk, zs, SEC_B2, (uint64_t)zk->n_vars * g2, how, err)))
        return st;
    snprintf(how, sizeof how, "(nVars %u - nPublic %u - 1) x %zu", zk->n_vars, zk->n_public, g1);
    if ((st = size_check(bf, zk, zs, SEC_C, (uint64_t)n_private(zk) * g1, how, err)))
        return st;
    snprintf(how, sizeof how, "domainSize %u x %zu", d, g1);
    if ((st = size_check(bf, zk, zs, SEC_H, (uint64_t)d * g1, how, err)))
        return st;
    return CUZK_OK;

short_header:
    return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 2 (header) is truncated (%llu bytes)", nm,
                    (unsigned long long)hs);
}

/* Copy (unless used in place) + validate one point array (parallel), in
 * blocks of PTS_BLOCK points (the checks are vectorised 8 at a time). */
enum { PTS_BLOCK = 64 };

typedef struct {
    const fmt_ops *ops;
    const uint8_t *pts;
    size_t n, sz;
    bool g2, subgroup;
} pts_job;

static int pts_item(void *p, size_t blk)
{
    const pts_job *j = p;
    size_t lo = blk * PTS_BLOCK, cnt = j->n - lo < PTS_BLOCK ? j->n - lo : PTS_BLOCK;
    const uint8_t *d = j->pts + lo * j->sz;
    return j->g2 ? j->ops->g2_check_n(d, cnt, j->subgroup) : j->ops->g1_check_n(d, cnt, j->subgroup);
}

static cuzk_status load_points(const cuzk_binfile *bf, const cuzk_zkey *zk, const zsecs *zs, int id,
                               void *dst, size_t n, bool g2, bool subgroup,
                               const cuzk_zkey_read_opts *o, cuzk_error *err)
{
    const fmt_ops *ops = fmt_ops_get(zk->curve);
    const size_t sz = g2 ? ops->desc->g2_affine : ops->desc->g1_affine;
    /* dst == the section's bytes in the mapping: used in place (see parse),
     * only checked. */
    if (!bf->map || (const uint8_t *)dst != bf->data + zs->s[id]->offset) {
        cuzk_status st = fmt_binfile_copy(bf, zs->s[id]->offset, dst, n * sz, o->pool, err);
        if (st)
            return st;
    }
    if (o->skip_point_checks)
        return CUZK_OK;
    pts_job j = {ops, dst, n, sz, g2, subgroup || o->full_subgroup_check};
    size_t nblk = (n + PTS_BLOCK - 1) / PTS_BLOCK, bad;
    int why;
    /* Subgroup checks cost a scalar multiplication: one block per chunk. */
    fmt_par_scan(o->pool, nblk, j.subgroup ? 1 : 32, pts_item, &j, &bad, &why);
    if (bad >= nblk)
        return CUZK_OK;
    /* The first bad point of the first bad block. */
    for (size_t i = bad * PTS_BLOCK; i < n; i++) {
        const uint8_t *d = (const uint8_t *)dst + i * sz;
        if ((why = g2 ? ops->g2_check(d, j.subgroup) : ops->g1_check(d, j.subgroup)))
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section %d (%s): point %zu %s", bf->name, id,
                            sec_name(id), i, fmt_pt_reason(why));
    }
    /* Checked in place, in the file's mapping: the bytes changed between the
     * two looks, so the file changed under us (truncated pages read as
     * zeros: the guard, map_guard.c). Otherwise the checks disagree: a bug. */
    if (bf->map && (const uint8_t *)dst == bf->data + zs->s[id]->offset)
        return cuzk_err(err, CUZK_ERR_IO, "%s: the file changed while it was read (section %d (%s))", bf->name,
                        id, sec_name(id));
    return cuzk_err(err, CUZK_ERR_INTERNAL, "%s: section %d (%s): inconsistent point checks",
                    bf->name, id, sec_name(id));
}

typedef struct {
    const uint8_t *src; /* record 0 of this pass */
    size_t base;        /* its index in the section */
    cuzk_zkey *zk;
    const uint64_t *r;
    uint32_t prev;      /* the constraint of the record before this pass (base > 0) */
    atomic_bool *unsorted; /* set when a record's constraint is below the one before it */
} coef_job;

enum { COEF_MATRIX = 1, COEF_CONSTRAINT, COEF_SIGNAL, COEF_VALUE };

/* Validates record i, and stores it unless the key uses the records in place. */
static int coef_item(void *p, size_t i)
{
    const coef_job *j = p;
    const uint8_t *rec = j->src + i * 44;
    i += j->base;
    cuzk_zkey *zk = j->zk;
    uint32_t m = fmt_rd32(rec), c = fmt_rd32(rec + 4), s = fmt_rd32(rec + 8);
    if (rec > j->src ? c < fmt_rd32(rec - 44 + 4) : j->base > 0 && c < j->prev)
        atomic_store_explicit(j->unsorted, true, memory_order_relaxed);
    uint64_t v[4];
    fmt_bytes_to_limbs(v, rec + 12, 32);
    if (!zk->coef_raw) {
        uint64_t (*val)[4] = zk->coef_value.ptr;
        zk->coef_matrix[i] = m;
        zk->coef_constraint[i] = c;
        zk->coef_signal[i] = s;
        memcpy(val[i], v, sizeof v);
    }
    if (m > 1)
        return COEF_MATRIX;
    if (c >= zk->domain_size)
        return COEF_CONSTRAINT;
    if (s >= zk->n_vars)
        return COEF_SIGNAL;
    if (!fmt_limbs_lt(v, j->r, 4))
        return COEF_VALUE;
    return 0;
}

static cuzk_status load_coefs(const cuzk_binfile *bf, cuzk_zkey *zk, const zsecs *zs,
                              const cuzk_zkey_read_opts *o, cuzk_error *err)
{
    const uint64_t off = zs->s[SEC_COEFS]->offset + 4;
    atomic_bool unsorted = false;
    coef_job j = {bf->data ? bf->data + off : NULL, 0, zk, cuzk_curve_desc_get(zk->curve)->r, 0, &unsorted};
    size_t bad = zk->n_coefs;
    int why = 0;
    if (zk->coef_raw || !bf->own_fd) {
        fmt_par_scan(o->pool, (size_t)zk->n_coefs, 4096, coef_item, &j, &bad, &why);
    } else {
        /* Copied into the key: read with pread in passes, never through the
         * mapping, so a file truncated meanwhile is an I/O error, not a
         * SIGBUS. */
        const size_t pass = (size_t)1 << 18; /* records (11 MiB) */
        uint8_t *buf = cuzk_alloc(CUZK_MIN(pass, (size_t)zk->n_coefs) + 1, 44);
        if (!buf)
            return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory reading section 4", bf->name);
        for (size_t b0 = 0; b0 < zk->n_coefs && bad == zk->n_coefs; b0 += pass) {
            size_t cnt = (size_t)CUZK_MIN((uint64_t)pass, zk->n_coefs - b0);
            cuzk_status st = fmt_binfile_copy(bf, off + (uint64_t)b0 * 44, buf, cnt * 44, o->pool, err);
            if (st) {
                cuzk_free(buf);
                return st;
            }
            j.src = buf;
            j.base = b0;
            size_t b;
            fmt_par_scan(o->pool, cnt, 4096, coef_item, &j, &b, &why);
            if (b < cnt)
                bad = b0 + b;
            j.prev = fmt_rd32(buf + (cnt - 1) * 44 + 4);
        }
        cuzk_free(buf);
        if (bad < zk->n_coefs) /* re-read the bad record for the message */
            j.src = NULL;
    }
    if (!zk->coef_raw)
        fmt_binfile_drop(bf, zs->s[SEC_COEFS]->offset, zs->s[SEC_COEFS]->size);
    if (bad >= zk->n_coefs) {
        zk->coefs_sorted = !atomic_load(&unsorted);
        return CUZK_OK;
    }
    uint8_t one[44];
    const uint8_t *rec = one;
    if (j.src)
        rec = j.src + bad * 44;
    else if (fmt_binfile_copy(bf, off + (uint64_t)bad * 44, one, 44, NULL, err))
        return CUZK_ERR_IO;
    const char *nm = bf->name;
    switch (why) {
    case COEF_MATRIX:
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 4 (coefficients): entry %zu: matrix %u is not 0 (A) or 1 (B)",
                        nm, bad, fmt_rd32(rec));
    case COEF_CONSTRAINT:
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 4 (coefficients): entry %zu: constraint %u >= domainSize %u", nm,
                        bad, fmt_rd32(rec + 4), zk->domain_size);
    case COEF_SIGNAL:
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 4 (coefficients): entry %zu: signal %u >= nVars %u", nm, bad,
                        fmt_rd32(rec + 8), zk->n_vars);
    default:
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 4 (coefficients): entry %zu: value >= r (value >= modulus)", nm,
                        bad);
    }
}

static cuzk_status check_header_points(const cuzk_binfile *bf, const cuzk_zkey *zk,
                                       const cuzk_zkey_read_opts *o, cuzk_error *err)
{
    if (o->skip_point_checks)
        return CUZK_OK;
    const fmt_ops *ops = fmt_ops_get(zk->curve);
    struct {
        const char *name;
        const void *pt;
        bool g2;
    } pts[] = {{"alpha_1", &zk->alpha_1, false}, {"beta_1", &zk->beta_1, false},
               {"beta_2", &zk->beta_2, true},    {"gamma_2", &zk->gamma_2, true},
               {"delta_1", &zk->delta_1, false}, {"delta_2", &zk->delta_2, true}};
    for (size_t i = 0; i < CUZK_ARRAY_LEN(pts); i++) {
        int why = pts[i].g2 ? ops->g2_check(pts[i].pt, true) : ops->g1_check(pts[i].pt, true);
        if (why)
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 2 (header): point %s %s", bf->name,
                            pts[i].name, fmt_pt_reason(why));
    }
    return CUZK_OK;
}

static cuzk_status parse(cuzk_zkey *zk, cuzk_binfile *bf, const cuzk_zkey_read_opts *o,
                         cuzk_error *err)
{
    zsecs zs;
    memset(&zs, 0, sizeof zs);
    cuzk_status st;
    if ((st = parse_layout(zk, bf, &zs, err)) || (st = check_header_points(bf, zk, o, err)))
        return st;
    zk->header_only = o->header_only;
    /* Zero-copy candidates: only from a file mapped for it here, once the
     * layout has been read with pread and every section checked against the
     * file size (a caller's buffer may not outlive the key), point sections
     * only where aligned for our limb types. The key takes the mapping over
     * (read_common). A key copied whole never maps the file. */
    const uint8_t *in_place[SEC_MPC + 1] = {0};
    if (bf->own_fd && !o->header_only && (!o->copy_points || o->coefs_in_place) &&
        (st = cuzk_binfile_map(bf, err)))
        return st;
    if (bf->map && !o->header_only) {
        for (int id = SEC_A; id <= SEC_H; id++) {
            const uint8_t *p = bf->data + zs.s[id]->offset;
            if (!o->copy_points && zs.s[id]->size && (uintptr_t)p % sizeof(uint64_t) == 0)
                in_place[id] = p;
        }
        if (o->coefs_in_place)
            in_place[SEC_COEFS] = bf->data + zs.s[SEC_COEFS]->offset + 4;
        for (int id = SEC_COEFS; id <= SEC_H; id++)
            if (in_place[id]) {
                zk->map = bf->map;
                zk->map_size = bf->size;
            }
    }
    if (alloc_arrays(zk, o->header_only, in_place))
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory loading the zkey (nVars %u, domain %u)",
                        bf->name, zk->n_vars, zk->domain_size);
    /* IC is for the verifier and small: always subgroup-checked. */
    if ((st = load_points(bf, zk, &zs, SEC_IC, zk->ic.ptr, (size_t)zk->n_public + 1, false, true, o,
                          err)))
        return st;
    if (o->header_only)
        return CUZK_OK;
    if ((st = load_coefs(bf, zk, &zs, o, err)) ||
        (st = load_points(bf, zk, &zs, SEC_A, zk->a.ptr, zk->n_vars, false, false, o, err)) ||
        (st = load_points(bf, zk, &zs, SEC_B1, zk->b1.ptr, zk->n_vars, false, false, o, err)) ||
        (st = load_points(bf, zk, &zs, SEC_B2, zk->b2.ptr, zk->n_vars, true, false, o, err)) ||
        (st = load_points(bf, zk, &zs, SEC_C, zk->c.ptr, n_private(zk), false, false, o, err)) ||
        (st = load_points(bf, zk, &zs, SEC_H, zk->h.ptr, zk->domain_size, false, false, o, err)))
        return st;
    return CUZK_OK;
}

static cuzk_status read_common(cuzk_zkey *zk, cuzk_binfile *bf, cuzk_status st,
                               const cuzk_zkey_read_opts *opts, cuzk_error *err)
{
    memset(zk, 0, sizeof *zk);
    if (st)
        return st;
    cuzk_zkey_read_opts def = {0};
    st = parse(zk, bf, opts ? opts : &def, err);
    if (!st && cuzk_map_guard_lost(bf->guard))
        st = cuzk_err(err, CUZK_ERR_IO, "%s: the file was truncated while it was read", bf->name);
    if (zk->map) { /* the key owns the mapping and its guard now, even on failure */
        zk->map_guard = bf->guard;
        bf->map = NULL;
        bf->guard = NULL;
    }
    if (st)
        cuzk_zkey_free(zk);
    cuzk_binfile_close(bf);
    return st;
}

cuzk_status cuzk_zkey_read(cuzk_zkey *zk, const char *path, const cuzk_zkey_read_opts *opts,
                           cuzk_error *err)
{
    cuzk_binfile bf;
    cuzk_status st = cuzk_binfile_open(&bf, path, "zkey", 1, err);
    return read_common(zk, &bf, st, opts, err);
}

cuzk_status cuzk_zkey_read_buffer(cuzk_zkey *zk, const void *data, size_t size, const char *name,
                                  const cuzk_zkey_read_opts *opts, cuzk_error *err)
{
    cuzk_binfile bf;
    cuzk_status st = cuzk_binfile_open_buffer(&bf, data, size, name, "zkey", 1, err);
    return read_common(zk, &bf, st, opts, err);
}

/* ---- writing ---- */

static void sec_begin(cuzk_afile *f, uint32_t id, uint64_t size)
{
    uint8_t b[12];
    fmt_wr32(b, id);
    fmt_wr64(b + 4, size);
    cuzk_afile_write(f, b, 12);
}

cuzk_status cuzk_zkey_write(const cuzk_zkey *zk, const char *path, cuzk_error *err)
{
    cuzk_afile f;
    cuzk_status st = cuzk_afile_open(&f, path, err);
    if (!st && (st = cuzk_zkey_write_to(zk, &f, err)))
        cuzk_afile_abort(&f);
    return st ? st : cuzk_afile_commit(&f, err);
}

cuzk_status cuzk_zkey_write_to(const cuzk_zkey *zk, cuzk_afile *out, cuzk_error *err)
{
    const char *path = out->name;
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(zk->curve);
    if (!cp || zk->header_only || !zk->a.ptr)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: incomplete zkey (no curve or header-only)", path);
    if (zk->n_vars < (uint64_t)zk->n_public + 1 || zk->domain_size == 0 ||
        (zk->domain_size & (zk->domain_size - 1)) || zk->n_coefs > UINT32_MAX)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: inconsistent zkey sizes", path);
    const uint64_t(*val)[4] = zk->coef_value.ptr;
    for (uint64_t i = 0; i < zk->n_coefs; i++)
        if (zk->coef_matrix[i] > 1 || zk->coef_constraint[i] >= zk->domain_size ||
            zk->coef_signal[i] >= zk->n_vars || !fmt_limbs_lt(val[i], cp->r, 4))
            return cuzk_err(err, CUZK_ERR_USAGE, "%s: coefficient entry %llu is out of range", path,
                            (unsigned long long)i);
    const size_t g1 = cp->g1_affine, g2 = cp->g2_affine;
    const uint32_t n8q = cp->n8q, n8r = cp->n8r;

    cuzk_afile *f = out;
    uint8_t b[64];
    memcpy(b, "zkey", 4);
    fmt_wr32(b + 4, 1);
    fmt_wr32(b + 8, 10);
    cuzk_afile_write(f, b, 12);
    /* 1: protocol */
    sec_begin(f, 1, 4);
    fmt_wr32(b, 1);
    cuzk_afile_write(f, b, 4);
    /* 2: header */
    sec_begin(f, 2, 4 + n8q + 4 + n8r + 12 + 3 * (uint64_t)g1 + 3 * (uint64_t)g2);
    fmt_wr32(b, n8q);
    cuzk_afile_write(f, b, 4);
    fmt_limbs_to_bytes(b, cp->q, n8q);
    cuzk_afile_write(f, b, n8q);
    fmt_wr32(b, n8r);
    cuzk_afile_write(f, b, 4);
    fmt_limbs_to_bytes(b, cp->r, n8r);
    cuzk_afile_write(f, b, n8r);
    fmt_wr32(b, zk->n_vars);
    fmt_wr32(b + 4, zk->n_public);
    fmt_wr32(b + 8, zk->domain_size);
    cuzk_afile_write(f, b, 12);
    /* Our affine structs are the little-endian file bytes (x86-64 host). */
    cuzk_afile_write(f, &zk->alpha_1, g1);
    cuzk_afile_write(f, &zk->beta_1, g1);
    cuzk_afile_write(f, &zk->beta_2, g2);
    cuzk_afile_write(f, &zk->gamma_2, g2);
    cuzk_afile_write(f, &zk->delta_1, g1);
    cuzk_afile_write(f, &zk->delta_2, g2);
    /* 3: IC */
    sec_begin(f, 3, ((uint64_t)zk->n_public + 1) * g1);
    cuzk_afile_write(f, zk->ic.ptr, ((size_t)zk->n_public + 1) * g1);
    /* 4: coefficients */
    sec_begin(f, 4, 4 + zk->n_coefs * (12 + n8r));
    fmt_wr32(b, (uint32_t)zk->n_coefs);
    cuzk_afile_write(f, b, 4);
    for (uint64_t i = 0; i < zk->n_coefs; i++) {
        fmt_wr32(b, zk->coef_matrix[i]);
        fmt_wr32(b + 4, zk->coef_constraint[i]);
        fmt_wr32(b + 8, zk->coef_signal[i]);
        fmt_limbs_to_bytes(b + 12, val[i], 32);
        cuzk_afile_write(f, b, 44);
    }
    /* 5..9: point arrays */
    sec_begin(f, 5, (uint64_t)zk->n_vars * g1);
    cuzk_afile_write(f, zk->a.ptr, (size_t)zk->n_vars * g1);
    sec_begin(f, 6, (uint64_t)zk->n_vars * g1);
    cuzk_afile_write(f, zk->b1.ptr, (size_t)zk->n_vars * g1);
    sec_begin(f, 7, (uint64_t)zk->n_vars * g2);
    cuzk_afile_write(f, zk->b2.ptr, (size_t)zk->n_vars * g2);
    sec_begin(f, 8, (uint64_t)n_private(zk) * g1);
    cuzk_afile_write(f, zk->c.ptr, n_private(zk) * g1);
    sec_begin(f, 9, (uint64_t)zk->domain_size * g1);
    cuzk_afile_write(f, zk->h.ptr, (size_t)zk->domain_size * g1);
    /* 10: MPC parameters with no contributions: csHash (64 zero bytes; only
     * `zkey verify` recomputes it) and a count of 0. */
    sec_begin(f, 10, 64 + 4);
    memset(b, 0, sizeof b);
    cuzk_afile_write(f, b, 64);
    cuzk_afile_write(f, b, 4);
    return CUZK_OK;
}


size_t cuzk_zkey_release(cuzk_zkey *zk, unsigned what)
{
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(zk->curve);
    if (!cp || zk->header_only)
        return 0;
    size_t freed = 0;
    struct {
        unsigned flag;
        void **p;
        size_t bytes;
    } arr[] = {
        {CUZK_ZKEY_REL_A, &zk->a.ptr, (size_t)zk->n_vars * cp->g1_affine},
        {CUZK_ZKEY_REL_B1, &zk->b1.ptr, (size_t)zk->n_vars * cp->g1_affine},
        {CUZK_ZKEY_REL_B2, &zk->b2.ptr, (size_t)zk->n_vars * cp->g2_affine},
        {CUZK_ZKEY_REL_C, &zk->c.ptr, n_private(zk) * cp->g1_affine},
        {CUZK_ZKEY_REL_H, &zk->h.ptr, (size_t)zk->domain_size * cp->g1_affine},
        {CUZK_ZKEY_REL_COEFS, (void **)&zk->coef_matrix, (size_t)zk->n_coefs * 4},
        {CUZK_ZKEY_REL_COEFS, (void **)&zk->coef_constraint, (size_t)zk->n_coefs * 4},
        {CUZK_ZKEY_REL_COEFS, (void **)&zk->coef_signal, (size_t)zk->n_coefs * 4},
        {CUZK_ZKEY_REL_COEFS, &zk->coef_value.ptr, (size_t)zk->n_coefs * cp->n8r},
    };
    for (size_t i = 0; i < CUZK_ARRAY_LEN(arr); i++)
        if ((what & arr[i].flag) && *arr[i].p && !in_map(zk, *arr[i].p)) {
            cuzk_free(*arr[i].p);
            *arr[i].p = NULL;
            freed += arr[i].bytes;
        }
    return freed;
}
