/* .r1cs reader and writer (iden3 r1csfile layout, snarkjs-formats.md §2).
 * Section 1 header, section 2 constraints (A, B, C linear combinations of
 * (u32 wire, n8-byte raw coefficient) terms), section 3 wire -> label map.
 * Sections 4/5 (PLONK custom gates) and unknown ids are ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fmt_internal.h"
#include "util/bigint.h"

static const char *const MAT[3] = {"A", "B", "C"};

void cuzk_r1cs_free(cuzk_r1cs *r)
{
    if (!r)
        return;
    for (int m = 0; m < 3; m++) {
        cuzk_free(r->m[m].row);
        cuzk_free(r->m[m].wire);
        cuzk_free(r->m[m].coef.ptr);
    }
    cuzk_free(r->wire_labels);
    memset(r, 0, sizeof *r);
}

cuzk_status cuzk_r1cs_alloc(cuzk_r1cs *r, cuzk_curve curve, uint32_t n_constraints,
                            const uint64_t nnz[3], cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    r->curve = curve;
    r->n8 = 32;
    r->n_constraints = n_constraints;
    for (int m = 0; m < 3; m++) {
        r->m[m].nnz = nnz[m];
        r->m[m].row = cuzk_calloc((size_t)n_constraints + 1, sizeof(uint64_t));
        r->m[m].wire = cuzk_alloc(nnz[m], sizeof(uint32_t));
        r->m[m].coef.ptr = cuzk_alloc(nnz[m], 32);
        if (!r->m[m].row || !r->m[m].wire || !r->m[m].coef.ptr)
            goto nomem;
    }
    return CUZK_OK;
nomem:
    cuzk_r1cs_free(r);
    return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for an r1cs of %u constraints", n_constraints);
}

static void prime_dec(char *buf, size_t cap, const uint8_t *le, size_t n8)
{
    uint64_t l[8] = {0};
    fmt_bytes_to_limbs(l, le, n8 <= 64 ? n8 : 64);
    if (cuzk_bn_to_dec(buf, cap, l, 8) < 0)
        snprintf(buf, cap, "?");
}

static cuzk_status parse(cuzk_r1cs *r, const cuzk_binfile *bf, cuzk_error *err)
{
    const char *nm = bf->name;
    const cuzk_binfile_section *s1, *s2, *s3 = NULL;
    cuzk_status st;
    if ((st = cuzk_binfile_get(bf, 1, &s1, err)) || (st = cuzk_binfile_get(bf, 2, &s2, err)))
        return st;
    if (cuzk_binfile_count(bf, 3) > 0 && (st = cuzk_binfile_get(bf, 3, &s3, err)))
        return st;

    /* ---- section 1: header (at most 32 + 64 bytes when valid) ---- */
    if (s1->size < 4)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section 1 (header) is too short (%llu bytes)", nm,
                        (unsigned long long)s1->size);
    uint8_t h[32 + 64];
    if ((st = fmt_binfile_copy(bf, s1->offset, h, (size_t)CUZK_MIN(s1->size, sizeof h), NULL, err)))
        return st;
    uint32_t n8 = fmt_rd32(h);
    if (n8 == 0 || n8 % 8 != 0 || n8 > 64)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: invalid field element size n8 = %u", nm, n8);
    if (s1->size != 32 + (uint64_t)n8)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 1 (header) size mismatch: expected %u bytes, got %llu", nm,
                        32 + n8, (unsigned long long)s1->size);
    r->curve = cuzk_curve_from_r_bytes(h + 4, n8);
    if (r->curve == CUZK_CURVE_NONE || n8 != 32) {
        char dec[200];
        prime_dec(dec, sizeof dec, h + 4, n8);
        /* 32-byte elements are ours: an unknown prime there is damage (a flipped
         * bit), other sizes are fields cuzk does not support. */
        return cuzk_err(err, n8 == 32 ? CUZK_ERR_FORMAT : CUZK_ERR_UNSUPPORTED,
                        "%s: prime %s (n8 = %u) is the scalar field of neither bn128 nor bls12381%s",
                        nm, dec, n8, n8 == 32 ? " (a corrupt file, or a field cuzk does not support)" : "");
    }
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(r->curve);
    r->n8 = n8;
    const uint8_t *p = h + 4 + n8;
    r->n_wires = fmt_rd32(p);
    r->n_pub_out = fmt_rd32(p + 4);
    r->n_pub_in = fmt_rd32(p + 8);
    r->n_prv_in = fmt_rd32(p + 12);
    r->n_labels = fmt_rd64(p + 16);
    r->n_constraints = fmt_rd32(p + 24);
    if (r->n_wires == 0 ||
        1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in > (uint64_t)r->n_wires)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: inconsistent header: nWires %u < 1 + nPubOut %u + nPubIn %u + nPrvIn %u",
                        nm, r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in);

    /* ---- section 2: constraints, read through a window (fmt_cursor).
     * Pass 1 validates and counts. ---- */
    fmt_cursor cur;
    const uint64_t c0 = s2->offset;
    const uint64_t csz = s2->size;
    const uint64_t term = 4 + (uint64_t)n8;
    uint32_t nc = r->n_constraints;
    /* Each constraint has at least three u32 term counts. */
    if ((uint64_t)nc * 12 > csz)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 2 (constraints) size mismatch: %u constraints need at least %llu "
                        "bytes, got %llu",
                        nm, nc, (unsigned long long)nc * 12, (unsigned long long)csz);
    if ((st = fmt_cursor_init(&cur, bf, (size_t)1 << 20, err)))
        return st;
    uint64_t nnz[3] = {0, 0, 0};
    uint64_t pos = 0;
    const uint8_t *q;
    for (uint32_t i = 0; i < nc; i++) {
        for (int m = 0; m < 3; m++) {
            if (csz - pos < 4) {
                st = cuzk_err(err, CUZK_ERR_FORMAT,
                              "%s: section 2 (constraints) is truncated in constraint %u (%s)", nm, i,
                              MAT[m]);
                goto fail;
            }
            if (!(q = fmt_cursor_at(&cur, c0 + pos, 4, err)))
                goto io;
            uint32_t nt = fmt_rd32(q);
            pos += 4;
            if ((uint64_t)nt > (csz - pos) / term) {
                st = cuzk_err(err, CUZK_ERR_FORMAT,
                              "%s: section 2 (constraints) is truncated: constraint %u (%s) has %u "
                              "terms but only %llu bytes remain",
                              nm, i, MAT[m], nt, (unsigned long long)(csz - pos));
                goto fail;
            }
            for (uint32_t t = 0; t < nt; t++, pos += term) {
                if (!(q = fmt_cursor_at(&cur, c0 + pos, (size_t)term, err)))
                    goto io;
                uint32_t wire = fmt_rd32(q);
                if (wire >= r->n_wires) {
                    st = cuzk_err(err, CUZK_ERR_FORMAT,
                                  "%s: constraint %u (%s), term %u: wire %u >= nWires %u", nm, i,
                                  MAT[m], t, wire, r->n_wires);
                    goto fail;
                }
                if (!fmt_bytes_lt(q + 4, cp->r, 32)) {
                    st = cuzk_err(err, CUZK_ERR_FORMAT,
                                  "%s: constraint %u (%s), term %u: coefficient >= r (value >= "
                                  "modulus)",
                                  nm, i, MAT[m], t);
                    goto fail;
                }
            }
            nnz[m] += nt;
        }
    }
    if (pos != csz) {
        st = cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: section 2 (constraints) size mismatch: the %u constraints use %llu bytes, "
                        "the section has %llu",
                      nm, nc, (unsigned long long)pos, (unsigned long long)csz);
        goto fail;
    }
    /* nWires sizes what setup and the prover allocate, so it must be backed
     * by the file: by the wire map (8 bytes a wire), or, for a file without
     * one (circom always writes it), by the terms that reference wires. */
    if (!s3 && (uint64_t)r->n_wires > 1 + nnz[0] + nnz[1] + nnz[2]) {
        st = cuzk_err(err, CUZK_ERR_FORMAT,
                      "%s: nWires %u but no wire map (section 3) and only %llu terms: the header "
                      "declares wires the file does not hold",
                      nm, r->n_wires, (unsigned long long)(nnz[0] + nnz[1] + nnz[2]));
        goto fail;
    }
    if (s3 && s3->size != 8 * (uint64_t)r->n_wires) {
        st = cuzk_err(err, CUZK_ERR_FORMAT,
                      "%s: section 3 (wire map) size mismatch: expected %llu bytes (nWires %u), got "
                      "%llu",
                      nm, 8 * (unsigned long long)r->n_wires, r->n_wires,
                      (unsigned long long)s3->size);
        goto fail;
    }

    /* ---- pass 2: fill the CSR arrays (the file was validated in pass 1;
     * read again, so it must hold the same bytes: checked where it matters) ---- */
    cuzk_r1cs hdr = *r;
    if ((st = cuzk_r1cs_alloc(r, hdr.curve, nc, nnz, err))) {
        st = cuzk_err_force(err, st, "%s: out of memory for %u constraints", nm, nc);
        goto fail;
    }
    r->n8 = hdr.n8;
    r->n_wires = hdr.n_wires;
    r->n_pub_out = hdr.n_pub_out;
    r->n_pub_in = hdr.n_pub_in;
    r->n_prv_in = hdr.n_prv_in;
    r->n_labels = hdr.n_labels;
    uint64_t k[3] = {0, 0, 0};
    pos = 0;
    for (uint32_t i = 0; i < nc; i++) {
        for (int m = 0; m < 3; m++) {
            cuzk_r1cs_matrix *mx = &r->m[m];
            if (!(q = fmt_cursor_at(&cur, c0 + pos, 4, err)))
                goto io;
            uint32_t nt = fmt_rd32(q);
            pos += 4;
            /* A file rewritten between the passes must not overrun the
             * arrays sized by pass 1. */
            if (nt > nnz[m] - k[m] || (uint64_t)nt > (csz - pos) / term)
                goto changed;
            uint64_t (*coef)[4] = mx->coef.ptr;
            for (uint32_t t = 0; t < nt; t++, pos += term, k[m]++) {
                if (!(q = fmt_cursor_at(&cur, c0 + pos, (size_t)term, err)))
                    goto io;
                mx->wire[k[m]] = fmt_rd32(q);
                fmt_bytes_to_limbs(coef[k[m]], q + 4, 32);
                if (mx->wire[k[m]] >= r->n_wires || !fmt_limbs_lt(coef[k[m]], cp->r, 4))
                    goto changed;
            }
            mx->row[i + 1] = k[m];
        }
    }
    if (k[0] != nnz[0] || k[1] != nnz[1] || k[2] != nnz[2])
        goto changed;
    fmt_cursor_free(&cur);
    if (s3) {
        r->wire_labels = cuzk_alloc(r->n_wires, sizeof(uint64_t));
        if (!r->wire_labels)
            return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory for the wire map", nm);
        if ((st = fmt_binfile_copy(bf, s3->offset, r->wire_labels, 8 * (size_t)r->n_wires, NULL, err)))
            return st;
        for (uint32_t i = 0; i < r->n_wires; i++) {
            uint8_t b[8];
            memcpy(b, &r->wire_labels[i], 8);
            r->wire_labels[i] = fmt_rd64(b);
        }
    }
    return CUZK_OK;

changed:
    st = cuzk_err(err, CUZK_ERR_IO, "%s: the file changed while it was read (rewritten in place?)", nm);
    goto fail;
io:
    st = err ? err->code : CUZK_ERR_IO;
    if (!st)
        st = CUZK_ERR_IO;
fail:
    fmt_cursor_free(&cur);
    return st;
}

static cuzk_status read_common(cuzk_r1cs *r, cuzk_binfile *bf, cuzk_status st, cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    if (st)
        return st;
    st = parse(r, bf, err);
    if (st)
        cuzk_r1cs_free(r);
    cuzk_binfile_close(bf);
    return st;
}

cuzk_status cuzk_r1cs_read(cuzk_r1cs *r, const char *path, cuzk_error *err)
{
    cuzk_binfile bf;
    cuzk_status st = cuzk_binfile_open(&bf, path, "r1cs", 1, err);
    return read_common(r, &bf, st, err);
}

cuzk_status cuzk_r1cs_read_buffer(cuzk_r1cs *r, const void *data, size_t size, const char *name,
                                  cuzk_error *err)
{
    cuzk_binfile bf;
    cuzk_status st = cuzk_binfile_open_buffer(&bf, data, size, name, "r1cs", 1, err);
    return read_common(r, &bf, st, err);
}

/* ---- writer ---- */

static void put32(cuzk_afile *f, uint32_t v)
{
    uint8_t b[4];
    fmt_wr32(b, v);
    cuzk_afile_write(f, b, 4);
}
static void put64(cuzk_afile *f, uint64_t v)
{
    uint8_t b[8];
    fmt_wr64(b, v);
    cuzk_afile_write(f, b, 8);
}

cuzk_status cuzk_r1cs_write(const cuzk_r1cs *r, const char *path, cuzk_error *err)
{
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(r->curve);
    if (!cp)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: r1cs has no supported curve", path);
    if (r->n_wires == 0 ||
        1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in > (uint64_t)r->n_wires)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: inconsistent r1cs header (nWires %u)", path,
                        r->n_wires);
    /* Validate the arrays like the reader would, so we never write a file
     * that we (or snarkjs) would reject. */
    uint64_t body2 = 12 * (uint64_t)r->n_constraints;
    for (int m = 0; m < 3; m++) {
        const cuzk_r1cs_matrix *mx = &r->m[m];
        if (mx->row[0] != 0 || mx->row[r->n_constraints] != mx->nnz)
            return cuzk_err(err, CUZK_ERR_USAGE, "%s: matrix %s rows do not cover its %llu terms",
                            path, MAT[m], (unsigned long long)mx->nnz);
        const uint64_t (*coef)[4] = mx->coef.ptr;
        for (uint32_t i = 0; i < r->n_constraints; i++) {
            if (mx->row[i + 1] < mx->row[i] || mx->row[i + 1] - mx->row[i] > UINT32_MAX)
                return cuzk_err(err, CUZK_ERR_USAGE, "%s: matrix %s: bad row %u", path, MAT[m], i);
        }
        for (uint64_t t = 0; t < mx->nnz; t++) {
            if (mx->wire[t] >= r->n_wires || !fmt_limbs_lt(coef[t], cp->r, 4))
                return cuzk_err(err, CUZK_ERR_USAGE,
                                "%s: matrix %s term %llu: wire >= nWires or coefficient >= r", path,
                                MAT[m], (unsigned long long)t);
        }
        body2 += mx->nnz * 36;
    }

    cuzk_afile f;
    cuzk_status st = cuzk_afile_open(&f, path, err);
    if (st)
        return st;
    cuzk_afile_write(&f, "r1cs", 4);
    put32(&f, 1);
    put32(&f, 3);
    /* Section 2 first, like circom. */
    put32(&f, 2);
    put64(&f, body2);
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            const cuzk_r1cs_matrix *mx = &r->m[m];
            const uint64_t (*coef)[4] = mx->coef.ptr;
            put32(&f, (uint32_t)(mx->row[i + 1] - mx->row[i]));
            for (uint64_t t = mx->row[i]; t < mx->row[i + 1]; t++) {
                uint8_t b[36];
                fmt_wr32(b, mx->wire[t]);
                fmt_limbs_to_bytes(b + 4, coef[t], 32);
                cuzk_afile_write(&f, b, sizeof b);
            }
        }
    }
    put32(&f, 1);
    put64(&f, 64);
    put32(&f, 32);
    uint8_t prime[32];
    fmt_limbs_to_bytes(prime, cp->r, 32);
    cuzk_afile_write(&f, prime, 32);
    put32(&f, r->n_wires);
    put32(&f, r->n_pub_out);
    put32(&f, r->n_pub_in);
    put32(&f, r->n_prv_in);
    uint64_t n_labels = r->n_labels;
    if (!r->wire_labels && n_labels < r->n_wires)
        n_labels = r->n_wires;
    put64(&f, n_labels);
    put32(&f, r->n_constraints);
    put32(&f, 3);
    put64(&f, 8 * (uint64_t)r->n_wires);
    for (uint32_t i = 0; i < r->n_wires; i++)
        put64(&f, r->wire_labels ? r->wire_labels[i] : i);
    return cuzk_afile_commit(&f, err);
}
