/* .wtns reader and writer (snarkjs-formats.md §3): version 2, section 1 =
 * u32 n8, prime r, u32 nWitness; section 2 = nWitness raw values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fmt_internal.h"
#include "util/bigint.h"

void cuzk_wtns_free(cuzk_wtns *w)
{
    if (!w)
        return;
    cuzk_free(w->values.ptr);
    memset(w, 0, sizeof *w);
}

cuzk_status cuzk_wtns_alloc(cuzk_wtns *w, cuzk_curve curve, uint32_t n_witness, cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    w->curve = curve;
    w->n8 = 32;
    w->n_witness = n_witness;
    w->values.ptr = cuzk_alloc(n_witness, 32);
    if (!w->values.ptr)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for a witness of %u values", n_witness);
    return CUZK_OK;
}

/* The header (section 1) and section 2's place and size: w gets curve, n8
 * and n_witness (no values), *values the offset of section 2. */
static cuzk_status parse_header(cuzk_wtns *w, const cuzk_binfile *bf, uint64_t *values, cuzk_error *err)
{
    const char *nm = bf->name;
    const cuzk_binfile_section *s1, *s2;
    cuzk_status st;
    if ((st = cuzk_binfile_get(bf, 1, &s1, err)) || (st = cuzk_binfile_get(bf, 2, &s2, err)))
        return st;
    if (s1->size < 4)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 1 (header) is too short (%llu bytes)", nm,
                        (unsigned long long)s1->size);
    /* The header is read with pread (at most 8 + 64 bytes when valid). */
    uint8_t h[8 + 64];
    if ((st = fmt_binfile_copy(bf, s1->offset, h, (size_t)CUZK_MIN(s1->size, sizeof h), NULL, err)))
        return st;
    uint32_t n8 = fmt_rd32(h);
    if (n8 == 0 || n8 % 8 != 0 || n8 > 64)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: invalid field element size n8 = %u", nm, n8);
    if (s1->size != 8 + (uint64_t)n8)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 1 (header) size mismatch: expected %u bytes, got %llu", nm, 8 + n8,
                        (unsigned long long)s1->size);
    w->curve = cuzk_curve_from_r_bytes(h + 4, n8);
    if (w->curve == CUZK_CURVE_NONE || n8 != 32) {
        uint64_t l[8] = {0};
        char dec[200];
        fmt_bytes_to_limbs(l, h + 4, n8);
        if (cuzk_bn_to_dec(dec, sizeof dec, l, 8) < 0)
            snprintf(dec, sizeof dec, "?");
        /* 32-byte elements are ours: an unknown prime there is damage (a flipped
         * bit), other sizes are fields cuzk does not support. */
        return cuzk_err(err, n8 == 32 ? CUZK_ERR_FORMAT : CUZK_ERR_UNSUPPORTED,
                        "%s: prime %s (n8 = %u) is the scalar field of neither bn128 nor bls12381%s",
                        nm, dec, n8, n8 == 32 ? " (a corrupt file, or a field cuzk does not support)" : "");
    }
    w->n8 = n8;
    w->n_witness = fmt_rd32(h + 4 + n8);
    uint64_t need = (uint64_t)w->n_witness * n8;
    /* The js writer gets the u64 section size wrong above 4 GiB, so trust
     * nWitness·n8, provided the data is there: either the declared size is
     * right, or section 2 is the last one and the bytes run to the end. */
    if (s2->size != need) {
        bool last = s2 == &bf->sections[bf->n_sections - 1];
        if (!last || bf->size - s2->offset < need)
            return cuzk_err(err, CUZK_ERR_FORMAT,
                            "%s: section 2 (values) size mismatch: nWitness %u x %u bytes = %llu, got "
                            "%llu",
                            nm, w->n_witness, n8, (unsigned long long)need,
                            (unsigned long long)s2->size);
    }
    *values = s2->offset;
    return CUZK_OK;
}

static cuzk_status parse(cuzk_wtns *w, const cuzk_binfile *bf, cuzk_error *err)
{
    const char *nm = bf->name;
    uint64_t off;
    cuzk_status st = parse_header(w, bf, &off, err);
    if (st)
        return st;
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(w->curve);
    uint64_t need = (uint64_t)w->n_witness * w->n8;
    cuzk_curve curve = w->curve;
    uint32_t n = w->n_witness;
    /* Bounded by the file (above), so the allocation is too. */
    if ((st = cuzk_wtns_alloc(w, curve, n, err)))
        return cuzk_err_force(err, st, "%s: out of memory for %u witness values", nm, n);
    /* Read with pread straight into the aligned limbs (or copied from the
     * caller's buffer), then put in host order and checked. */
    uint64_t (*out)[4] = w->values.ptr;
    if ((st = fmt_binfile_copy(bf, off, out, (size_t)need, NULL, err)))
        return st;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t b[32];
        memcpy(b, out[i], 32);
        fmt_bytes_to_limbs(out[i], b, 32);
        if (!fmt_limbs_lt(out[i], cp->r, 4))
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: witness value %u is >= r (value >= modulus)", nm,
                            i);
    }
    return CUZK_OK;
}

static cuzk_status read_common(cuzk_wtns *w, cuzk_binfile *bf, cuzk_status st, cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    if (st)
        return st;
    st = parse(w, bf, err);
    if (st)
        cuzk_wtns_free(w);
    cuzk_binfile_close(bf);
    return st;
}

cuzk_status cuzk_wtns_check_file(const char *path, const char *name, cuzk_curve *curve, uint32_t *n_witness,
                                 cuzk_error *err)
{
    cuzk_binfile bf;
    cuzk_wtns w;
    memset(&w, 0, sizeof w);
    cuzk_status st = cuzk_binfile_open(&bf, path, "wtns", 2, err);
    size_t pl = strlen(path);
    if (st && name && err && !strncmp(err->msg, path, pl)) { /* "<path>: ..." -> "<name>: ..." */
        char rest[CUZK_ERROR_MSG_MAX];
        snprintf(rest, sizeof rest, "%s", err->msg + pl);
        snprintf(err->msg, sizeof err->msg, "%.200s%.300s", name, rest);
    }
    if (st)
        return st;
    if (name) { /* messages name what the caller calls the file */
        char *nm = strdup(name);
        if (nm) {
            free(bf.name);
            bf.name = nm;
        }
    }
    uint64_t off;
    if (!(st = parse_header(&w, &bf, &off, err))) {
        const cuzk_curve_desc *cp = cuzk_curve_desc_get(w.curve);
        enum { CHUNK = 2048 }; /* values per read: 64 KiB */
        uint8_t *buf = malloc((size_t)CHUNK * 32);
        if (!buf)
            st = cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", bf.name);
        for (uint32_t i = 0; !st && i < w.n_witness; i += CHUNK) {
            uint32_t k = w.n_witness - i < CHUNK ? w.n_witness - i : CHUNK;
            if ((st = fmt_binfile_copy(&bf, off + (uint64_t)i * 32, buf, (size_t)k * 32, NULL, err)))
                break;
            for (uint32_t t = 0; t < k; t++) {
                uint64_t l[4];
                fmt_bytes_to_limbs(l, buf + (size_t)t * 32, 32);
                if (!fmt_limbs_lt(l, cp->r, 4)) {
                    st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: witness value %u is >= r (value >= modulus)",
                                  bf.name, i + t);
                    break;
                }
            }
        }
        free(buf);
    }
    if (!st) {
        *curve = w.curve;
        *n_witness = w.n_witness;
    }
    cuzk_binfile_close(&bf);
    return st;
}

cuzk_status cuzk_wtns_read(cuzk_wtns *w, const char *path, cuzk_error *err)
{
    cuzk_binfile bf;
    cuzk_status st = cuzk_binfile_open(&bf, path, "wtns", 2, err);
    return read_common(w, &bf, st, err);
}

cuzk_status cuzk_wtns_read_buffer(cuzk_wtns *w, const void *data, size_t size, const char *name,
                                  cuzk_error *err)
{
    cuzk_binfile bf;
    cuzk_status st = cuzk_binfile_open_buffer(&bf, data, size, name, "wtns", 2, err);
    return read_common(w, &bf, st, err);
}

cuzk_status cuzk_wtns_write(const cuzk_wtns *w, const char *path, cuzk_error *err)
{
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(w->curve);
    if (!cp)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: witness has no supported curve", path);
    const uint64_t (*vals)[4] = w->values.ptr;
    for (uint32_t i = 0; i < w->n_witness; i++)
        if (!fmt_limbs_lt(vals[i], cp->r, 4))
            return cuzk_err(err, CUZK_ERR_USAGE, "%s: witness value %u is >= r", path, i);
    uint8_t hdr[12 + 12 + 40 + 12];
    uint8_t *p = hdr;
    memcpy(p, "wtns", 4);
    fmt_wr32(p + 4, 2);
    fmt_wr32(p + 8, 2);
    p += 12;
    fmt_wr32(p, 1);
    fmt_wr64(p + 4, 40);
    fmt_wr32(p + 12, 32);
    fmt_limbs_to_bytes(p + 16, cp->r, 32);
    fmt_wr32(p + 48, w->n_witness);
    p += 52;
    fmt_wr32(p, 2);
    fmt_wr64(p + 4, 32 * (uint64_t)w->n_witness);
    p += 12;
    cuzk_afile f;
    cuzk_status st = cuzk_afile_open(&f, path, err);
    if (st)
        return st;
    cuzk_afile_write(&f, hdr, (size_t)(p - hdr));
    for (uint32_t i = 0; i < w->n_witness; i++) {
        uint8_t b[32];
        fmt_limbs_to_bytes(b, vals[i], 32);
        cuzk_afile_write(&f, b, 32);
    }
    return cuzk_afile_commit(&f, err);
}
