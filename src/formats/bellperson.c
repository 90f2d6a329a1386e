/* bellperson (Filecoin) Groth16 files: zcash point codec, .params / .vk
 * readers and writers, 192-byte proofs, the parameters.json digest.
 *
 * DESIGN
 *  - The point codec follows blst's deserialisers (what blstrs, hence
 *    bellperson, calls): flags first (compression bit must match the
 *    length; infinity must be exactly the flag byte 0x40/0xc0 followed by
 *    zeros; the sort bit only on non-infinity compressed points), then the
 *    coordinates with the three flag bits masked off must be < p, then the
 *    curve equation (uncompressed) or a square root (compressed, the sort bit
 *    choosing the larger/smaller root), then optionally the subgroup check.
 *    Decoded points are our Montgomery affine points; infinity is all-zero.
 *  - A `.params` file is mapped read-only (cuzk_fmap, the only mapping code
 *    here) and never trusted: the VK is decoded and checked in full (it is
 *    small), then each section count is compared with the bytes that remain
 *    (count <= remaining / element size, so no product can overflow) before
 *    the next offset is computed, and the file must end exactly after B_G2.
 *    Section points stay in the mapping: the prover decodes the ranges it
 *    needs (cuzk_bp_params_g1/_g2, in parallel), each call re-checking the
 *    file size first so a file truncated since it was opened is an I/O error,
 *    not a SIGBUS (a truncation during the decode itself still is; files in
 *    use must be replaced by rename).
 *  - Writers encode in chunks (in parallel on a pool) into the atomic output
 *    writer of formats.h (temporary file, fsync, rename), so a 44 GiB file is
 *    streamed and a failure leaves nothing behind.
 *  - The digest streams the file through libcrypto's BLAKE2b512 with pread. */
#include "formats/bellperson.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "formats/fmt_internal.h"

typedef bls12_381_fp_t fp_t;
typedef bls12_381_fp2_t fp2_t;
typedef bls12_381_g1_affine_t g1_t;
typedef bls12_381_g2_affine_t g2_t;

/* ---- field elements <-> big-endian bytes ---------------------------------- */

/* 48 BE bytes -> raw limbs; the top three bits (flags) are masked off. */
static void fp_raw_from_be(fp_t *r, const uint8_t *in, bool mask_flags)
{
    for (int i = 0; i < 6; i++) {
        uint64_t v;
        memcpy(&v, in + 8 * i, 8);
        r->l[5 - i] = __builtin_bswap64(v); /* the host is little-endian (x86-64, aarch64) */
    }
    if (mask_flags)
        r->l[5] &= UINT64_MAX >> 3;
}

/* Mont -> 48 BE bytes. */
static void fp_to_be(uint8_t *out, const fp_t *a)
{
    fp_t raw;
    bls12_381_fp_from_mont(&raw, a);
    for (int i = 0; i < 6; i++) {
        uint64_t v = raw.l[5 - i];
        for (int k = 7; k >= 0; k--) {
            out[8 * i + k] = (uint8_t)v;
            v >>= 8;
        }
    }
}

/* BE bytes -> Montgomery, false if >= p. */
static bool fp_from_be(fp_t *r, const uint8_t *in, bool mask_flags)
{
    fp_t raw;
    fp_raw_from_be(&raw, in, mask_flags);
    if (!bls12_381_fp_raw_is_canonical(&raw))
        return false;
    bls12_381_fp_to_mont(r, &raw);
    return true;
}

/* y > -y as integers, i.e. y > (p-1)/2 (zcash "lexicographically largest"). */
static bool fp_is_larger(const fp_t *y)
{
    fp_t a, n, b;
    bls12_381_fp_from_mont(&a, y);
    bls12_381_fp_neg(&n, y);
    bls12_381_fp_from_mont(&b, &n);
    return fmt_limbs_lt(b.l, a.l, 6);
}

static bool fp2_is_larger(const fp2_t *y)
{
    if (!bls12_381_fp_is_zero(&y->c1))
        return fp_is_larger(&y->c1);
    return fp_is_larger(&y->c0);
}

static bool all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* Flags of byte 0. Returns CUZK_BP_PT_OK, or CUZK_BP_PT_FLAGS; *inf set for
 * a (canonical) infinity. */
static int check_flags(const uint8_t *in, size_t len, bool compressed, bool *inf)
{
    uint8_t f = in[0];
    *inf = false;
    if (!!(f & 0x80) != compressed)
        return CUZK_BP_PT_FLAGS;
    if (f & 0x40) {
        if ((f & 0x3f) || !all_zero(in + 1, len - 1))
            return CUZK_BP_PT_FLAGS;
        *inf = true;
        return CUZK_BP_PT_OK;
    }
    if (!compressed && (f & 0x20))
        return CUZK_BP_PT_FLAGS;
    return CUZK_BP_PT_OK;
}

const char *cuzk_bp_pt_reason(int why)
{
    switch (why) {
    case CUZK_BP_PT_RANGE: return "has a coordinate >= p";
    case CUZK_BP_PT_CURVE: return "is not on the curve";
    case CUZK_BP_PT_SUBGROUP: return "is not in the prime-order subgroup";
    case CUZK_BP_PT_FLAGS: return "has invalid flag bits";
    case CUZK_BP_PT_IDENTITY: return "is the point at infinity";
    default: return "is invalid";
    }
}

int cuzk_bp_g1_decode(g1_t *p, const uint8_t *in, bool compressed, bool subgroup)
{
    bool inf;
    int why = check_flags(in, compressed ? 48 : 96, compressed, &inf);
    if (why)
        return why;
    if (inf) {
        bls12_381_g1_affine_set_inf(p);
        return CUZK_BP_PT_OK;
    }
    if (!fp_from_be(&p->x, in, true))
        return CUZK_BP_PT_RANGE;
    if (compressed) {
        fp_t rhs;
        bls12_381_fp_sqr(&rhs, &p->x);
        bls12_381_fp_mul(&rhs, &rhs, &p->x);
        bls12_381_fp_add(&rhs, &rhs, &bls12_381_g1_B);
        if (!bls12_381_fp_sqrt(&p->y, &rhs))
            return CUZK_BP_PT_CURVE;
        if (fp_is_larger(&p->y) != !!(in[0] & 0x20))
            bls12_381_fp_neg(&p->y, &p->y);
    } else {
        if (!fp_from_be(&p->y, in + 48, false))
            return CUZK_BP_PT_RANGE;
        /* (0, 0) is our infinity, which is_on_curve accepts; without the
         * infinity flag it is just a point off the curve (b != 0). */
        if (bls12_381_g1_affine_is_inf(p) || !bls12_381_g1_affine_is_on_curve(p))
            return CUZK_BP_PT_CURVE;
    }
    if (subgroup && !bls12_381_g1_affine_in_subgroup(p))
        return CUZK_BP_PT_SUBGROUP;
    return CUZK_BP_PT_OK;
}

int cuzk_bp_g2_decode(g2_t *p, const uint8_t *in, bool compressed, bool subgroup)
{
    bool inf;
    int why = check_flags(in, compressed ? 96 : 192, compressed, &inf);
    if (why)
        return why;
    if (inf) {
        bls12_381_g2_affine_set_inf(p);
        return CUZK_BP_PT_OK;
    }
    if (!fp_from_be(&p->x.c1, in, true) || !fp_from_be(&p->x.c0, in + 48, false))
        return CUZK_BP_PT_RANGE;
    if (compressed) {
        fp2_t rhs;
        bls12_381_fp2_sqr(&rhs, &p->x);
        bls12_381_fp2_mul(&rhs, &rhs, &p->x);
        bls12_381_fp2_add(&rhs, &rhs, &bls12_381_g2_B);
        if (!bls12_381_fp2_sqrt(&p->y, &rhs))
            return CUZK_BP_PT_CURVE;
        if (fp2_is_larger(&p->y) != !!(in[0] & 0x20))
            bls12_381_fp2_neg(&p->y, &p->y);
    } else {
        if (!fp_from_be(&p->y.c1, in + 96, false) || !fp_from_be(&p->y.c0, in + 144, false))
            return CUZK_BP_PT_RANGE;
        if (bls12_381_g2_affine_is_inf(p) || !bls12_381_g2_affine_is_on_curve(p))
            return CUZK_BP_PT_CURVE;
    }
    if (subgroup && !bls12_381_g2_affine_in_subgroup(p))
        return CUZK_BP_PT_SUBGROUP;
    return CUZK_BP_PT_OK;
}

void cuzk_bp_g1_encode(uint8_t *out, const g1_t *p, bool compressed)
{
    size_t len = compressed ? 48 : 96;
    if (bls12_381_g1_affine_is_inf(p)) {
        memset(out, 0, len);
        out[0] = compressed ? 0xc0 : 0x40;
        return;
    }
    fp_to_be(out, &p->x);
    if (compressed)
        out[0] |= (uint8_t)(0x80 | (fp_is_larger(&p->y) ? 0x20 : 0));
    else
        fp_to_be(out + 48, &p->y);
}

void cuzk_bp_g2_encode(uint8_t *out, const g2_t *p, bool compressed)
{
    size_t len = compressed ? 96 : 192;
    if (bls12_381_g2_affine_is_inf(p)) {
        memset(out, 0, len);
        out[0] = compressed ? 0xc0 : 0x40;
        return;
    }
    fp_to_be(out, &p->x.c1);
    fp_to_be(out + 48, &p->x.c0);
    if (compressed) {
        out[0] |= (uint8_t)(0x80 | (fp2_is_larger(&p->y) ? 0x20 : 0));
    } else {
        fp_to_be(out + 96, &p->y.c1);
        fp_to_be(out + 144, &p->y.c0);
    }
}

static inline uint32_t rd32be(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void wr32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* ---- file mapping ------------------------------------------------------------ */

cuzk_status cuzk_fmap_open(cuzk_fmap *m, const char *path, cuzk_error *err)
{
    memset(m, 0, sizeof *m);
    m->fd = -1;
    if (!(m->name = strdup(path)))
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    uint64_t size;
    cuzk_status st = cuzk_open_input(path, &m->fd, &size, err);
    if (st)
        goto fail;
    if (size > SIZE_MAX) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "%s: file too large to map", path);
        goto fail;
    }
    m->size = size;
    if (size) {
        /* shared, never private: page-locking a private file mapping copies
         * every page (formats/binfile.c, cuzk_binfile_map) */
        void *p = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, m->fd, 0);
        if (p == MAP_FAILED) {
            st = cuzk_err(err, errno == ENOMEM ? CUZK_ERR_NOMEM : CUZK_ERR_IO, "%s: cannot map: %s", path,
                          strerror(errno));
            goto fail;
        }
        m->map = p;
        m->data = p;
    }
    return CUZK_OK;
fail:
    cuzk_fmap_close(m);
    return st;
}

cuzk_status cuzk_fmap_buffer(cuzk_fmap *m, const void *data, size_t size, const char *name, cuzk_error *err)
{
    memset(m, 0, sizeof *m);
    m->fd = -1;
    if (!(m->name = strdup(name ? name : "<buffer>")))
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    m->data = data;
    m->size = size;
    return CUZK_OK;
}

cuzk_status cuzk_fmap_recheck(const cuzk_fmap *m, cuzk_error *err)
{
    if (m->fd < 0)
        return CUZK_OK;
    struct stat sb;
    if (fstat(m->fd, &sb) != 0)
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot stat: %s", m->name, strerror(errno));
    if ((uint64_t)sb.st_size < m->size)
        return cuzk_err(err, CUZK_ERR_IO, "%s: file changed size since it was opened (%llu bytes, was %llu)",
                        m->name, (unsigned long long)sb.st_size, (unsigned long long)m->size);
    return CUZK_OK;
}

void cuzk_fmap_close(cuzk_fmap *m)
{
    if (!m)
        return;
    if (m->map)
        munmap(m->map, (size_t)m->size);
    if (m->fd >= 0)
        close(m->fd);
    free(m->name);
    memset(m, 0, sizeof *m);
    m->fd = -1;
}

/* ---- verifying key --------------------------------------------------------------- */

cuzk_status cuzk_bp_vk_alloc(cuzk_bp_vk *vk, uint32_t n_ic, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    vk->ic = cuzk_calloc(n_ic ? n_ic : 1, sizeof *vk->ic);
    if (!vk->ic)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory (%u IC points)", n_ic);
    vk->n_ic = n_ic;
    return CUZK_OK;
}

void cuzk_bp_vk_free(cuzk_bp_vk *vk)
{
    if (!vk)
        return;
    cuzk_free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

typedef struct {
    const uint8_t *src;
    g1_t *dst;
} ic_job;

static int ic_item(void *ctx, size_t i)
{
    ic_job *j = ctx;
    int why = cuzk_bp_g1_decode(&j->dst[i], j->src + 96 * i, false, true);
    if (!why && bls12_381_g1_affine_is_inf(&j->dst[i]))
        why = CUZK_BP_PT_IDENTITY;
    return why;
}

cuzk_status cuzk_bp_vk_parse(cuzk_bp_vk *vk, const uint8_t *data, uint64_t size, bool exact, const char *name,
                             cuzk_pool *pool, uint64_t *used, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    const char *nm = name ? name : "<buffer>";
    if (size < CUZK_BP_VK_FIXED_SIZE)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: truncated verifying key (%llu bytes, at least %d needed)", nm,
                        (unsigned long long)size, CUZK_BP_VK_FIXED_SIZE);
    uint32_t n_ic = rd32be(data + 864);
    if (n_ic == 0)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: verifying key with no IC points", nm);
    if (n_ic > (size - CUZK_BP_VK_FIXED_SIZE) / 96)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: truncated verifying key (%u IC points need %llu bytes, the file has %llu)", nm,
                        n_ic, (unsigned long long)cuzk_bp_vk_size(n_ic), (unsigned long long)size);
    uint64_t need = cuzk_bp_vk_size(n_ic);
    if (exact && size != need)
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: %llu bytes after the verifying key (%u IC points: %llu bytes expected)", nm,
                        (unsigned long long)(size - need), n_ic, (unsigned long long)need);
    static const struct {
        const char *what;
        size_t off;
        bool g2;
    } FIX[6] = {{"alpha_g1", 0, false},   {"beta_g1", 96, false},   {"beta_g2", 192, true},
                {"gamma_g2", 384, true},  {"delta_g1", 576, false}, {"delta_g2", 672, true}};
    cuzk_bp_vk t; /* the fixed points, decoded before anything is allocated */
    void *dst[6] = {&t.alpha_g1, &t.beta_g1, &t.beta_g2, &t.gamma_g2, &t.delta_g1, &t.delta_g2};
    for (int i = 0; i < 6; i++) {
        int why = FIX[i].g2 ? cuzk_bp_g2_decode(dst[i], data + FIX[i].off, false, true)
                            : cuzk_bp_g1_decode(dst[i], data + FIX[i].off, false, true);
        if (why)
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: verifying key %s %s", nm, FIX[i].what,
                            cuzk_bp_pt_reason(why));
    }
    cuzk_status st = cuzk_bp_vk_alloc(vk, n_ic, err);
    if (st)
        return st;
    t.n_ic = vk->n_ic;
    t.ic = vk->ic;
    *vk = t;
    ic_job j = {data + CUZK_BP_VK_FIXED_SIZE, vk->ic};
    size_t bad;
    int why;
    fmt_par_scan(pool, n_ic, 64, ic_item, &j, &bad, &why);
    if (bad < n_ic) {
        cuzk_bp_vk_free(vk);
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: verifying key IC point %zu %s", nm, bad, cuzk_bp_pt_reason(why));
    }
    if (used)
        *used = need;
    return CUZK_OK;
}

/* Reads exactly n bytes at off (CUZK_ERR_IO on a short read). */
static cuzk_status pread_all(int fd, void *buf, size_t n, uint64_t off, const char *nm, cuzk_error *err)
{
    uint8_t *b = buf;
    while (n) {
        ssize_t r = pread(fd, b, n, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot read: %s", nm,
                            r < 0 ? strerror(errno) : "unexpected end of file (the file shrank)");
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return CUZK_OK;
}

cuzk_status cuzk_bp_vk_read(cuzk_bp_vk *vk, const char *path, cuzk_pool *pool, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    int fd;
    uint64_t size;
    cuzk_status st = cuzk_open_input(path, &fd, &size, err);
    if (st)
        return st;
    uint8_t head[CUZK_BP_VK_FIXED_SIZE];
    if (size < sizeof head) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: truncated verifying key (%llu bytes, at least %d needed)", path,
                        (unsigned long long)size, CUZK_BP_VK_FIXED_SIZE);
    }
    if ((st = pread_all(fd, head, sizeof head, 0, path, err))) {
        close(fd);
        return st;
    }
    uint64_t need = cuzk_bp_vk_size(rd32be(head + 864));
    if (size != need) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %llu bytes, a verifying key with %u IC points has %llu", path,
                        (unsigned long long)size, rd32be(head + 864), (unsigned long long)need);
    }
    uint8_t *buf = malloc((size_t)size);
    if (!buf) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    }
    st = pread_all(fd, buf, (size_t)size, 0, path, err);
    close(fd);
    if (!st)
        st = cuzk_bp_vk_parse(vk, buf, size, true, path, pool, NULL, err);
    free(buf);
    return st;
}

cuzk_status cuzk_bp_vk_read_any(cuzk_bp_vk *vk, const char *path, cuzk_pool *pool, bool *is_params,
                                cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size >= CUZK_BP_VK_FIXED_SIZE) {
        /* Decide by the size the IC count implies. */
        int fd;
        uint64_t size;
        cuzk_status st = cuzk_open_input(path, &fd, &size, err);
        if (st)
            return st;
        uint8_t n[4];
        st = size >= CUZK_BP_VK_FIXED_SIZE ? pread_all(fd, n, 4, 864, path, err) : CUZK_OK;
        close(fd);
        if (st)
            return st;
        if (size > CUZK_BP_VK_FIXED_SIZE && size > cuzk_bp_vk_size(rd32be(n))) {
            cuzk_bp_params p;
            cuzk_bp_params_opts o = {.pool = pool};
            if ((st = cuzk_bp_params_open(&p, path, &o, err)))
                return st;
            *vk = p.vk;
            memset(&p.vk, 0, sizeof p.vk);
            cuzk_bp_params_close(&p);
            if (is_params)
                *is_params = true;
            return CUZK_OK;
        }
    }
    if (is_params)
        *is_params = false;
    return cuzk_bp_vk_read(vk, path, pool, err);
}

cuzk_status cuzk_bp_vk_encode(const cuzk_bp_vk *vk, uint8_t *out, cuzk_error *err)
{
    if (!vk->ic || !vk->n_ic)
        return cuzk_err(err, CUZK_ERR_USAGE, "verifying key without IC points");
    for (uint32_t i = 0; i < vk->n_ic; i++)
        if (bls12_381_g1_affine_is_inf(&vk->ic[i]))
            return cuzk_err(err, CUZK_ERR_USAGE, "verifying key IC point %u is the point at infinity", i);
    cuzk_bp_g1_encode(out, &vk->alpha_g1, false);
    cuzk_bp_g1_encode(out + 96, &vk->beta_g1, false);
    cuzk_bp_g2_encode(out + 192, &vk->beta_g2, false);
    cuzk_bp_g2_encode(out + 384, &vk->gamma_g2, false);
    cuzk_bp_g1_encode(out + 576, &vk->delta_g1, false);
    cuzk_bp_g2_encode(out + 672, &vk->delta_g2, false);
    wr32be(out + 864, vk->n_ic);
    for (uint32_t i = 0; i < vk->n_ic; i++)
        cuzk_bp_g1_encode(out + CUZK_BP_VK_FIXED_SIZE + 96 * (size_t)i, &vk->ic[i], false);
    return CUZK_OK;
}

cuzk_status cuzk_bp_vk_write_to(const cuzk_bp_vk *vk, cuzk_afile *out, cuzk_error *err)
{
    size_t n = (size_t)cuzk_bp_vk_size(vk->n_ic);
    uint8_t *buf = malloc(n);
    if (!buf)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    cuzk_status st = cuzk_bp_vk_encode(vk, buf, err);
    if (!st)
        cuzk_afile_write(out, buf, n);
    free(buf);
    return st;
}

cuzk_status cuzk_bp_vk_write(const cuzk_bp_vk *vk, const char *path, cuzk_error *err)
{
    cuzk_afile f;
    cuzk_status st = cuzk_afile_open(&f, path, err);
    if (st)
        return st;
    if ((st = cuzk_bp_vk_write_to(vk, &f, err))) {
        cuzk_afile_abort(&f);
        return st;
    }
    st = cuzk_afile_commit(&f, err);
    cuzk_afile_abort(&f);
    return st;
}

cuzk_status cuzk_bp_vk_to_vk(const cuzk_bp_vk *bv, cuzk_vk *vk, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    if (!bv->ic || !bv->n_ic)
        return cuzk_err(err, CUZK_ERR_USAGE, "verifying key not loaded");
    vk->curve = CUZK_CURVE_BLS12_381;
    vk->n_public = bv->n_ic - 1;
    vk->alpha_1.bls12_381 = bv->alpha_g1;
    vk->beta_2.bls12_381 = bv->beta_g2;
    vk->gamma_2.bls12_381 = bv->gamma_g2;
    vk->delta_2.bls12_381 = bv->delta_g2;
    vk->ic.bls12_381 = cuzk_alloc(bv->n_ic, sizeof(g1_t));
    if (!vk->ic.ptr)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    memcpy(vk->ic.ptr, bv->ic, (size_t)bv->n_ic * sizeof(g1_t));
    return CUZK_OK;
}

/* ---- .params ------------------------------------------------------------------ */

const char *cuzk_bp_section_name(cuzk_bp_section_id s)
{
    static const char *const N[CUZK_BP_N_SECTIONS] = {"H", "L", "A", "B_G1", "B_G2"};
    return (unsigned)s < CUZK_BP_N_SECTIONS ? N[s] : "?";
}

uint64_t cuzk_bp_params_size(uint32_t n_ic, const uint32_t counts[CUZK_BP_N_SECTIONS])
{
    uint64_t n = cuzk_bp_vk_size(n_ic);
    for (int s = 0; s < CUZK_BP_N_SECTIONS; s++)
        n += 4 + (uint64_t)counts[s] * (s == CUZK_BP_B_G2 ? 192 : 96);
    return n;
}

void cuzk_bp_params_close(cuzk_bp_params *p)
{
    if (!p)
        return;
    cuzk_bp_vk_free(&p->vk);
    cuzk_fmap_close(&p->file);
    memset(p, 0, sizeof *p);
    p->file.fd = -1;
}

static cuzk_status params_index(cuzk_bp_params *p, const cuzk_bp_params_opts *opts, cuzk_error *err)
{
    const cuzk_fmap *m = &p->file;
    const char *nm = m->name;
    p->checked = opts && opts->checked;
    cuzk_status st = cuzk_bp_vk_parse(&p->vk, m->data, m->size, false, nm, opts ? opts->pool : NULL, &p->vk_size, err);
    if (st)
        return st;
    uint64_t off = p->vk_size;
    for (int s = 0; s < CUZK_BP_N_SECTIONS; s++) {
        cuzk_bp_section *sec = &p->sec[s];
        sec->g2 = s == CUZK_BP_B_G2;
        sec->elem_size = sec->g2 ? 192 : 96;
        if (m->size - off < 4)
            return cuzk_err(err, CUZK_ERR_FORMAT, "%s: truncated before the count of section %s (offset %llu)", nm,
                            cuzk_bp_section_name((cuzk_bp_section_id)s), (unsigned long long)off);
        sec->count = rd32be(m->data + off);
        off += 4;
        uint64_t left = m->size - off;
        if (sec->count > left / sec->elem_size)
            return cuzk_err(err, CUZK_ERR_FORMAT,
                            "%s: section %s has %u points (%llu bytes) but only %llu bytes are left", nm,
                            cuzk_bp_section_name((cuzk_bp_section_id)s), sec->count,
                            (unsigned long long)sec->count * sec->elem_size, (unsigned long long)left);
        sec->offset = off;
        sec->data = m->data + off;
        off += (uint64_t)sec->count * sec->elem_size;
    }
    if (off != m->size)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %llu trailing bytes after section B_G2", nm,
                        (unsigned long long)(m->size - off));
    if (opts && opts->check_points)
        return cuzk_bp_params_check_points(p, opts->pool, err);
    return CUZK_OK;
}

cuzk_status cuzk_bp_params_open(cuzk_bp_params *p, const char *path, const cuzk_bp_params_opts *opts,
                                cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    cuzk_status st = cuzk_fmap_open(&p->file, path, err);
    if (!st)
        st = params_index(p, opts, err);
    if (st)
        cuzk_bp_params_close(p);
    return st;
}

cuzk_status cuzk_bp_params_open_buffer(cuzk_bp_params *p, const void *data, size_t size, const char *name,
                                       const cuzk_bp_params_opts *opts, cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    cuzk_status st = cuzk_fmap_buffer(&p->file, data, size, name, err);
    if (!st)
        st = params_index(p, opts, err);
    if (st)
        cuzk_bp_params_close(p);
    return st;
}

uint64_t cuzk_bp_params_domain(const cuzk_bp_params *p, unsigned *log_n)
{
    uint64_t n = (uint64_t)p->sec[CUZK_BP_H].count + 1;
    if (n & (n - 1))
        return 0;
    unsigned k = 0;
    while ((1ull << k) < n)
        k++;
    if (log_n)
        *log_n = k;
    return n;
}

typedef struct {
    const uint8_t *src;
    uint8_t *dst;       /* NULL: check only */
    size_t dst_size;    /* bytes per output point */
    bool g2, subgroup;
    size_t n;           /* points in the range */
} sec_job;

static int sec_item(void *ctx, size_t i)
{
    sec_job *j = ctx;
    union {
        g1_t g1;
        g2_t g2;
    } tmp;
    void *d = j->dst ? (void *)(j->dst + i * j->dst_size) : (void *)&tmp;
    int why;
    if (j->g2) {
        why = cuzk_bp_g2_decode(d, j->src + 192 * i, false, j->subgroup);
        if (!why && bls12_381_g2_affine_is_inf(d))
            why = CUZK_BP_PT_IDENTITY;
    } else {
        why = cuzk_bp_g1_decode(d, j->src + 96 * i, false, j->subgroup);
        if (!why && bls12_381_g1_affine_is_inf(d))
            why = CUZK_BP_PT_IDENTITY;
    }
    return why;
}

/* Unchecked decoding of a block of points, the fast way: coordinates
 * straight to Montgomery form, then the curve equations of the whole block
 * at once (fmt's check_n: 8 points per IFMA vector where the CPU has it).
 * Returns 0 when every point of the block is valid and not the identity;
 * otherwise the block is decoded again point by point (sec_item), which
 * gives the exact reason of its first bad point. */
enum { SEC_BLOCK = 128 };

static int sec_block_item(void *ctx, size_t b)
{
    sec_job *j = ctx;
    const size_t lo = b * SEC_BLOCK, hi = CUZK_MIN(lo + SEC_BLOCK, j->n);
    union {
        g1_t g1[SEC_BLOCK];
        g2_t g2[SEC_BLOCK];
    } tmp;
    uint8_t *dst = j->dst ? j->dst + lo * j->dst_size : (uint8_t *)&tmp;
    const size_t es = j->g2 ? 192 : 96, nc = j->g2 ? 4 : 2;
    bool ok = true;
    for (size_t i = lo; ok && i < hi; i++) {
        const uint8_t *src = j->src + es * i;
        fp_t *c = (fp_t *)(dst + (i - lo) * j->dst_size);
        if (src[0] & 0xe0) { /* compressed, infinity or sort flag: the slow path says which */
            ok = false;
            break;
        }
        /* File order x.c1, x.c0, y.c1, y.c0 (G2) -> ours x.c0, x.c1, y.c0, y.c1. */
        for (size_t k = 0; k < nc; k++) {
            fp_t raw;
            fp_raw_from_be(&raw, src + 48 * k, k == 0);
            size_t to = j->g2 ? (k ^ 1) : k;
            if (!bls12_381_fp_raw_is_canonical(&raw)) {
                ok = false;
                break;
            }
            bls12_381_fp_to_mont(&c[to], &raw);
        }
    }
    if (ok) {
        const fmt_ops *ops = fmt_ops_get(CUZK_CURVE_BLS12_381);
        ok = (j->g2 ? ops->g2_check_n(dst, hi - lo, false) : ops->g1_check_n(dst, hi - lo, false)) == FMT_PT_OK;
        /* (0, 0) passes check_n as our infinity: without the infinity flag
         * it is not on the curve, and the identity is refused anyway. */
        for (size_t i = lo; ok && i < hi; i++)
            ok = j->g2 ? !bls12_381_g2_affine_is_inf((const g2_t *)(dst + (i - lo) * j->dst_size))
                       : !bls12_381_g1_affine_is_inf((const g1_t *)(dst + (i - lo) * j->dst_size));
    }
    if (ok)
        return 0;
    for (size_t i = lo; i < hi; i++) {
        int why = sec_item(j, i);
        if (why)
            return why;
    }
    return 0;
}

static cuzk_status decode_range(const cuzk_bp_params *p, cuzk_bp_section_id s, uint64_t first, uint64_t n, void *out,
                                bool want_g2, cuzk_pool *pool, cuzk_error *err)
{
    if ((unsigned)s >= CUZK_BP_N_SECTIONS || !p->file.name)
        return cuzk_err(err, CUZK_ERR_USAGE, "bellperson parameters: no section %d", (int)s);
    const cuzk_bp_section *sec = &p->sec[s];
    if (sec->g2 != want_g2)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: section %s holds %s points", p->file.name,
                        cuzk_bp_section_name(s), sec->g2 ? "G2" : "G1");
    if (first > sec->count || n > sec->count - first)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: points [%llu, %llu) outside section %s (%u points)", p->file.name,
                        (unsigned long long)first, (unsigned long long)(first + n), cuzk_bp_section_name(s),
                        sec->count);
    if (!n)
        return CUZK_OK;
    cuzk_status st = cuzk_fmap_recheck(&p->file, err);
    if (st)
        return st;
    sec_job j = {sec->data + first * sec->elem_size, out, want_g2 ? sizeof(g2_t) : sizeof(g1_t), want_g2, p->checked,
                 (size_t)n};
    size_t bad;
    int why;
    if (p->checked) { /* the subgroup checks dominate: point by point */
        fmt_par_scan(pool, (size_t)n, want_g2 ? 16 : 32, sec_item, &j, &bad, &why);
    } else {
        size_t nb = ((size_t)n + SEC_BLOCK - 1) / SEC_BLOCK, bb;
        fmt_par_scan(pool, nb, want_g2 ? 4 : 8, sec_block_item, &j, &bb, &why);
        bad = n;
        if (bb < nb) /* the first bad point of the first bad block */
            for (size_t i = bb * SEC_BLOCK; i < (size_t)n && bad == n; i++)
                if ((why = sec_item(&j, i)))
                    bad = i;
    }
    if (bad < n)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: section %s point %llu %s", p->file.name, cuzk_bp_section_name(s),
                        (unsigned long long)(first + bad), cuzk_bp_pt_reason(why));
    return CUZK_OK;
}

cuzk_status cuzk_bp_params_g1(const cuzk_bp_params *p, cuzk_bp_section_id s, uint64_t first, uint64_t n,
                              g1_t *out, cuzk_pool *pool, cuzk_error *err)
{
    return decode_range(p, s, first, n, out, false, pool, err);
}

cuzk_status cuzk_bp_params_g2(const cuzk_bp_params *p, cuzk_bp_section_id s, uint64_t first, uint64_t n,
                              g2_t *out, cuzk_pool *pool, cuzk_error *err)
{
    return decode_range(p, s, first, n, out, true, pool, err);
}

cuzk_status cuzk_bp_params_check_points(const cuzk_bp_params *p, cuzk_pool *pool, cuzk_error *err)
{
    for (int s = 0; s < CUZK_BP_N_SECTIONS; s++) {
        /* Check in windows so that a huge section stops at its first bad
         * point without a huge scan, and the size is re-checked per window. */
        const uint64_t W = 1u << 20;
        for (uint64_t i = 0; i < p->sec[s].count; i += W) {
            uint64_t n = CUZK_MIN(W, p->sec[s].count - i);
            cuzk_status st = decode_range(p, (cuzk_bp_section_id)s, i, n, NULL, p->sec[s].g2, pool, err);
            if (st)
                return st;
        }
    }
    return CUZK_OK;
}

/* ---- .params writer --------------------------------------------------------- */

static cuzk_status writer_start(cuzk_bp_params_writer *w, const cuzk_bp_vk *vk, cuzk_error *err)
{
    w->section = -1;
    w->left = 0;
    return cuzk_bp_vk_write_to(vk, w->out, err);
}

cuzk_status cuzk_bp_params_writer_open(cuzk_bp_params_writer *w, const char *path, const cuzk_bp_vk *vk,
                                       cuzk_pool *pool, cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    cuzk_status st = cuzk_afile_open(&w->own, path, err);
    if (st)
        return st;
    w->out = &w->own;
    w->own_out = true;
    w->pool = pool;
    if ((st = writer_start(w, vk, err)))
        cuzk_bp_params_writer_abort(w);
    return st;
}

cuzk_status cuzk_bp_params_writer_open_to(cuzk_bp_params_writer *w, cuzk_afile *out, const cuzk_bp_vk *vk,
                                          cuzk_pool *pool, cuzk_error *err)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    w->pool = pool;
    return writer_start(w, vk, err);
}

cuzk_status cuzk_bp_params_writer_section(cuzk_bp_params_writer *w, cuzk_bp_section_id s, uint32_t count,
                                          cuzk_error *err)
{
    if (!w->out)
        return cuzk_err(err, CUZK_ERR_USAGE, "bellperson parameters writer: not open");
    if ((int)s != w->section + 1 || w->left)
        return cuzk_err(err, CUZK_ERR_USAGE,
                        "bellperson parameters writer: section %s out of order (after %s, %llu points missing)",
                        cuzk_bp_section_name(s), w->section < 0 ? "the verifying key"
                                                                 : cuzk_bp_section_name((cuzk_bp_section_id)w->section),
                        (unsigned long long)w->left);
    uint8_t b[4];
    wr32be(b, count);
    cuzk_afile_write(w->out, b, 4);
    w->section = (int)s;
    w->left = count;
    return CUZK_OK;
}

typedef struct {
    const uint8_t *src;
    uint8_t *dst;
    bool g2;
    atomic_size_t bad;
} enc_job;

static void enc_range(void *ctx, size_t lo, size_t hi, int worker)
{
    (void)worker;
    enc_job *j = ctx;
    for (size_t i = lo; i < hi; i++) {
        bool bad;
        if (j->g2) {
            const g2_t *p = (const g2_t *)j->src + i;
            bad = bls12_381_g2_affine_is_inf(p) || !bls12_381_g2_affine_is_on_curve(p);
            if (!bad)
                cuzk_bp_g2_encode(j->dst + 192 * i, p, false);
        } else {
            const g1_t *p = (const g1_t *)j->src + i;
            bad = bls12_381_g1_affine_is_inf(p) || !bls12_381_g1_affine_is_on_curve(p);
            if (!bad)
                cuzk_bp_g1_encode(j->dst + 96 * i, p, false);
        }
        if (bad) {
            size_t cur = atomic_load(&j->bad);
            while (i < cur && !atomic_compare_exchange_weak(&j->bad, &cur, i))
                ;
        }
    }
}

static cuzk_status writer_points(cuzk_bp_params_writer *w, const void *pts, size_t n, bool g2, cuzk_error *err)
{
    if (!w->out || w->section < 0)
        return cuzk_err(err, CUZK_ERR_USAGE, "bellperson parameters writer: points before a section");
    bool sec_g2 = w->section == CUZK_BP_B_G2;
    if (sec_g2 != g2)
        return cuzk_err(err, CUZK_ERR_USAGE, "bellperson parameters writer: section %s takes %s points",
                        cuzk_bp_section_name((cuzk_bp_section_id)w->section), sec_g2 ? "G2" : "G1");
    if (n > w->left)
        return cuzk_err(err, CUZK_ERR_USAGE, "bellperson parameters writer: %zu points for section %s, %llu due", n,
                        cuzk_bp_section_name((cuzk_bp_section_id)w->section), (unsigned long long)w->left);
    const size_t es = g2 ? 192 : 96, ms = g2 ? sizeof(g2_t) : sizeof(g1_t);
    const size_t chunk = (8u << 20) / es; /* 8 MiB of output at a time */
    if (!w->buf) {
        w->buf_cap = chunk * es;
        if (!(w->buf = malloc(w->buf_cap)))
            return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    }
    for (size_t done = 0; done < n;) {
        size_t k = CUZK_MIN(chunk, n - done);
        enc_job j = {(const uint8_t *)pts + done * ms, w->buf, g2, k};
        cuzk_parallel_for(w->pool, k, 1024, enc_range, &j);
        size_t bad = atomic_load(&j.bad);
        if (bad < k) {
            return cuzk_err(err, CUZK_ERR_USAGE,
                            "bellperson parameters writer: point %zu of this call for section %s is the identity "
                            "or not on the curve",
                            done + bad, cuzk_bp_section_name((cuzk_bp_section_id)w->section));
        }
        cuzk_afile_write(w->out, w->buf, k * es);
        done += k;
    }
    w->left -= n;
    return CUZK_OK;
}

cuzk_status cuzk_bp_params_writer_g1(cuzk_bp_params_writer *w, const g1_t *pts, size_t n, cuzk_error *err)
{
    return writer_points(w, pts, n, false, err);
}

cuzk_status cuzk_bp_params_writer_g2(cuzk_bp_params_writer *w, const g2_t *pts, size_t n, cuzk_error *err)
{
    return writer_points(w, pts, n, true, err);
}

cuzk_status cuzk_bp_params_writer_finish(cuzk_bp_params_writer *w, cuzk_error *err)
{
    if (!w->out)
        return cuzk_err(err, CUZK_ERR_USAGE, "bellperson parameters writer: not open");
    if (w->section != CUZK_BP_B_G2 || w->left)
        return cuzk_err(err, CUZK_ERR_USAGE, "bellperson parameters writer: incomplete (section %s, %llu points missing)",
                        w->section < 0 ? "none" : cuzk_bp_section_name((cuzk_bp_section_id)w->section),
                        (unsigned long long)w->left);
    cuzk_status st = CUZK_OK;
    if (w->own_out)
        st = cuzk_afile_commit(w->out, err);
    free(w->buf);
    w->buf = NULL;
    if (w->own_out)
        cuzk_afile_abort(&w->own);
    w->out = NULL;
    return st;
}

void cuzk_bp_params_writer_abort(cuzk_bp_params_writer *w)
{
    if (!w)
        return;
    free(w->buf);
    w->buf = NULL;
    if (w->own_out)
        cuzk_afile_abort(&w->own);
    w->own_out = false;
    w->out = NULL;
}

/* ---- proofs ----------------------------------------------------------------------- */

void cuzk_bp_proof_encode(uint8_t out[CUZK_BP_PROOF_SIZE], const cuzk_proof_points *p)
{
    cuzk_bp_g1_encode(out, &p->a.bls12_381, true);
    cuzk_bp_g2_encode(out + 48, &p->b.bls12_381, true);
    cuzk_bp_g1_encode(out + 144, &p->c.bls12_381, true);
}

cuzk_status cuzk_bp_proof_decode(cuzk_proof_points *p, const uint8_t *in, const char *name, size_t index,
                                 cuzk_error *err)
{
    memset(p, 0, sizeof *p);
    p->curve = CUZK_CURVE_BLS12_381;
    const char *nm = name ? name : "<proof>";
    int why = cuzk_bp_g1_decode(&p->a.bls12_381, in, true, true);
    if (!why && bls12_381_g1_affine_is_inf(&p->a.bls12_381))
        why = CUZK_BP_PT_IDENTITY;
    if (why)
        return cuzk_err(err, CUZK_ERR_INVALID_PROOF, "%s: proof %zu: A %s", nm, index, cuzk_bp_pt_reason(why));
    why = cuzk_bp_g2_decode(&p->b.bls12_381, in + 48, true, true);
    if (!why && bls12_381_g2_affine_is_inf(&p->b.bls12_381))
        why = CUZK_BP_PT_IDENTITY;
    if (why)
        return cuzk_err(err, CUZK_ERR_INVALID_PROOF, "%s: proof %zu: B %s", nm, index, cuzk_bp_pt_reason(why));
    why = cuzk_bp_g1_decode(&p->c.bls12_381, in + 144, true, true);
    if (!why && bls12_381_g1_affine_is_inf(&p->c.bls12_381))
        why = CUZK_BP_PT_IDENTITY;
    if (why)
        return cuzk_err(err, CUZK_ERR_INVALID_PROOF, "%s: proof %zu: C %s", nm, index, cuzk_bp_pt_reason(why));
    return CUZK_OK;
}

cuzk_status cuzk_bp_proofs_read_buffer(cuzk_proof_points **out, size_t *n, const void *data, size_t size,
                                       const char *name, size_t max_proofs, cuzk_error *err)
{
    *out = NULL;
    *n = 0;
    const char *nm = name ? name : "<proof>";
    if (size == 0 || size % CUZK_BP_PROOF_SIZE)
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %zu bytes, not a whole number of %d-byte proofs", nm, size,
                        CUZK_BP_PROOF_SIZE);
    size_t k = size / CUZK_BP_PROOF_SIZE;
    if (max_proofs && k > max_proofs)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "%s: %zu proofs, at most %zu expected", nm, k, max_proofs);
    cuzk_proof_points *p = cuzk_alloc(k, sizeof *p);
    if (!p)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < k; i++) {
        cuzk_status st = cuzk_bp_proof_decode(&p[i], (const uint8_t *)data + i * CUZK_BP_PROOF_SIZE, nm, i, err);
        if (st) {
            cuzk_free(p);
            return st;
        }
    }
    *out = p;
    *n = k;
    return CUZK_OK;
}

cuzk_status cuzk_bp_proofs_read(cuzk_proof_points **out, size_t *n, const char *path, size_t max_proofs,
                                cuzk_error *err)
{
    *out = NULL;
    *n = 0;
    int fd;
    uint64_t size;
    cuzk_status st = cuzk_open_input(path, &fd, &size, err);
    if (st)
        return st;
    /* A proof file is small: refuse anything absurd before allocating. */
    const uint64_t cap = (uint64_t)(max_proofs ? max_proofs : 1u << 20) * CUZK_BP_PROOF_SIZE;
    if (size == 0 || size % CUZK_BP_PROOF_SIZE || size > cap) {
        close(fd);
        if (size && size % CUZK_BP_PROOF_SIZE == 0)
            return cuzk_err(err, CUZK_ERR_MISMATCH, "%s: %llu proofs, at most %llu expected", path,
                            (unsigned long long)(size / CUZK_BP_PROOF_SIZE),
                            (unsigned long long)(cap / CUZK_BP_PROOF_SIZE));
        return cuzk_err(err, CUZK_ERR_FORMAT, "%s: %llu bytes, not a whole number of %d-byte proofs", path,
                        (unsigned long long)size, CUZK_BP_PROOF_SIZE);
    }
    uint8_t *buf = malloc((size_t)size);
    if (!buf) {
        close(fd);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    }
    st = pread_all(fd, buf, (size_t)size, 0, path, err);
    close(fd);
    if (!st)
        st = cuzk_bp_proofs_read_buffer(out, n, buf, (size_t)size, path, max_proofs, err);
    free(buf);
    return st;
}

cuzk_status cuzk_bp_proofs_write(const cuzk_proof_points *p, size_t n, const char *path, cuzk_error *err)
{
    if (!n || n > SIZE_MAX / CUZK_BP_PROOF_SIZE)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: no proofs to write", path);
    uint8_t *buf = malloc(n * CUZK_BP_PROOF_SIZE);
    if (!buf)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        cuzk_bp_proof_encode(buf + i * CUZK_BP_PROOF_SIZE, &p[i]);
    cuzk_status st = cuzk_write_file_atomic(path, buf, n * CUZK_BP_PROOF_SIZE, err);
    free(buf);
    return st;
}

/* ---- public inputs ---- */

cuzk_status cuzk_bp_public_read(uint64_t (**values)[4], size_t *n_parts, size_t *n_each, const char *text,
                                size_t len, const char *name, cuzk_error *err)
{
    *values = NULL;
    *n_parts = *n_each = 0;
    const char *nm = name ? name : "public";
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root || !cJSON_IsArray(root)) {
        cJSON_Delete(root);
        return cuzk_err(err, CUZK_ERR_FORMAT,
                        "%s: not a JSON array of decimal strings (or an array of such arrays, one per partition)", nm);
    }
    size_t parts = (size_t)cJSON_GetArraySize(root);
    bool nested = parts > 0 && cJSON_IsArray(cJSON_GetArrayItem(root, 0));
    if (!nested) {
        cuzk_public pub;
        cuzk_status st = cuzk_public_read_json_buffer(&pub, text, len, nm, CUZK_CURVE_BLS12_381, err);
        cJSON_Delete(root);
        if (st)
            return st;
        *values = (uint64_t(*)[4])pub.values.ptr; /* cuzk_alloc'd, n raw values */
        *n_parts = 1;
        *n_each = pub.n;
        return CUZK_OK;
    }
    uint64_t(*all)[4] = NULL;
    size_t each = 0, i = 0;
    cuzk_status st = CUZK_OK;
    for (cJSON *it = root->child; it; it = it->next, i++) {
        char sub[512];
        snprintf(sub, sizeof sub, "%s (partition %zu)", nm, i);
        if (!cJSON_IsArray(it)) {
            st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: not an array of decimal strings", sub);
            break;
        }
        char *s = cJSON_PrintUnformatted(it);
        if (!s) {
            st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
            break;
        }
        cuzk_public pub;
        st = cuzk_public_read_json_buffer(&pub, s, strlen(s), sub, CUZK_CURVE_BLS12_381, err);
        cJSON_free(s);
        if (st)
            break;
        if (i == 0) {
            each = pub.n;
            all = cuzk_alloc(parts * each + 1, 32);
            if (!all) {
                cuzk_public_free(&pub);
                st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
                break;
            }
        } else if (pub.n != each) {
            st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u inputs, partition 0 has %zu", sub, pub.n, each);
            cuzk_public_free(&pub);
            break;
        }
        memcpy(all[i * each], pub.values.ptr, (size_t)pub.n * 32);
        cuzk_public_free(&pub);
    }
    cJSON_Delete(root);
    if (st) {
        cuzk_free(all);
        return st;
    }
    *values = all;
    *n_parts = parts;
    *n_each = each;
    return CUZK_OK;
}

/* ---- digest ------------------------------------------------------------------------ */

static void hex32(char out[33], const uint8_t *md)
{
    static const char H[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = H[md[i] >> 4];
        out[2 * i + 1] = H[md[i] & 15];
    }
    out[32] = 0;
}

typedef struct {
    EVP_MD_CTX *ctx;
} b2b;

static cuzk_status b2b_init(b2b *h, cuzk_error *err)
{
    h->ctx = EVP_MD_CTX_new();
    const EVP_MD *md = EVP_get_digestbyname("BLAKE2b512");
    if (!h->ctx || !md || EVP_DigestInit_ex(h->ctx, md, NULL) != 1) {
        EVP_MD_CTX_free(h->ctx);
        h->ctx = NULL;
        return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "libcrypto has no BLAKE2b512");
    }
    return CUZK_OK;
}

static cuzk_status b2b_final(b2b *h, char out[33], cuzk_error *err)
{
    uint8_t md[64];
    unsigned len = 0;
    int ok = EVP_DigestFinal_ex(h->ctx, md, &len) == 1 && len == 64;
    EVP_MD_CTX_free(h->ctx);
    h->ctx = NULL;
    if (!ok)
        return cuzk_err(err, CUZK_ERR_INTERNAL, "BLAKE2b512 failed");
    hex32(out, md);
    return CUZK_OK;
}

cuzk_status cuzk_bp_digest_buffer(const void *data, size_t size, char out[33], cuzk_error *err)
{
    b2b h;
    cuzk_status st = b2b_init(&h, err);
    if (st)
        return st;
    if (size && EVP_DigestUpdate(h.ctx, data, size) != 1) {
        EVP_MD_CTX_free(h.ctx);
        return cuzk_err(err, CUZK_ERR_INTERNAL, "BLAKE2b512 failed");
    }
    return b2b_final(&h, out, err);
}

cuzk_status cuzk_bp_digest_file(const char *path, char out[33], cuzk_error *err)
{
    int fd;
    uint64_t size;
    cuzk_status st = cuzk_open_input(path, &fd, &size, err);
    if (st)
        return st;
    b2b h;
    if ((st = b2b_init(&h, err))) {
        close(fd);
        return st;
    }
    const size_t B = 4u << 20;
    uint8_t *buf = malloc(B);
    if (!buf) {
        st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint64_t off = 0;;) {
        ssize_t r = pread(fd, buf, B, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            st = cuzk_err(err, CUZK_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
            goto done;
        }
        if (r == 0)
            break;
        if (EVP_DigestUpdate(h.ctx, buf, (size_t)r) != 1) {
            st = cuzk_err(err, CUZK_ERR_INTERNAL, "BLAKE2b512 failed");
            goto done;
        }
        off += (uint64_t)r;
    }
    free(buf);
    close(fd);
    return b2b_final(&h, out, err);
done:
    free(buf);
    close(fd);
    EVP_MD_CTX_free(h.ctx);
    return st;
}
