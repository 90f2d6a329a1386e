/* File formats: readers checked against snarkjs's own decodings of the
 * fixtures (the *.export.json files in tests/data/formats/<curve>, made by `snarkjs
 * r1cs|wtns|zkey export json`), writers checked byte for byte against the
 * files circom/snarkjs wrote, JSON output against snarkjs's formatting, and
 * malformed variants (made here by mutating the fixture bytes) rejected with
 * the expected code and a message that names the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "field/fp_ifma.h"
#include "formats/fmt_internal.h"
#include "curve/curve_desc.h"
#include "formats/formats.h"
#include "util/bigint.h"
#include "util/threadpool.h"

#include "fixture_util.h"
#include "test_util.h"

typedef struct {
    const char *dir, *circ;
    cuzk_curve curve;
} fixture;

static const fixture FX[] = {
    {"bn128", "mul", CUZK_CURVE_BN254},
    {"bls12381", "mul", CUZK_CURVE_BLS12_381},
    {"lin", "lin", CUZK_CURVE_BN254},
};

/* ---- helpers ------------------------------------------------------------------ */

static const char *fx_path(const fixture *f, const char *file)
{
    static char buf[16][1024];
    static int k;
    char *b = buf[k++ & 15];
    if (!strcmp(file, "r1cs") || !strcmp(file, "zkey"))
        snprintf(b, 1024, "%s/%s/%s.%s", FX_DIR, f->dir, f->circ, file);
    else
        snprintf(b, 1024, "%s/%s/%s", FX_DIR, f->dir, file);
    return b;
}

static cJSON *load_json(const char *path)
{
    char *t = slurp(path, NULL);
    cJSON *j = cJSON_Parse(t);
    free(t);
    assert_non_null(j);
    return j;
}

static const char *jstr(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_true(cJSON_IsString(v));
    return v->valuestring;
}

static double jnum(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static void limbs_dec(char *buf, size_t cap, const uint64_t *l, size_t n)
{
    assert_true(cuzk_bn_to_dec(buf, cap, l, n) > 0);
}

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void wr64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Independent walk of the binfile section table: body offset of section id
 * (the first one), its size in *size, or 0 if absent. */
static size_t sec_off(const uint8_t *d, size_t n, uint32_t id, uint64_t *size)
{
    uint32_t ns = rd32(d + 8);
    size_t pos = 12;
    for (uint32_t i = 0; i < ns && pos + 12 <= n; i++) {
        uint32_t sid = rd32(d + pos);
        uint64_t sz = rd64(d + pos + 4);
        if (sid == id) {
            if (size)
                *size = sz;
            return pos + 12;
        }
        pos += 12 + sz;
    }
    return 0;
}

/* Error expectations: code, the name in the message, and a keyword. */
static void expect_err(cuzk_status st, const cuzk_error *e, cuzk_status code, const char *name,
                       const char *keyword)
{
    if (st != code || e->code != code || !strstr(e->msg, name) || (keyword && !strstr(e->msg, keyword)))
        print_error("got status %d (%s), msg \"%s\"; expected %d, name \"%s\", keyword \"%s\"\n", st,
                    cuzk_status_name(st), e->msg, code, name, keyword ? keyword : "");
    assert_int_equal(st, code);
    assert_int_equal(e->code, code);
    assert_non_null(strstr(e->msg, name));
    if (keyword)
        assert_non_null(strstr(e->msg, keyword));
    assert_null(strchr(e->msg, '\n'));
}

static const fmt_ops *ops_of(cuzk_curve c)
{
    const fmt_ops *o = fmt_ops_get(c);
    assert_non_null(o);
    return o;
}

/* Our Montgomery point vs snarkjs's decimal projective triple. */
static void check_g1(const fmt_ops *ops, const void *pt, const cJSON *j)
{
    assert_true(cJSON_IsArray(j) && cJSON_GetArraySize(j) == 3);
    const uint8_t *b = pt;
    bool inf = true;
    for (size_t i = 0; i < ops->desc->g1_affine; i++)
        inf &= b[i] == 0;
    if (inf) {
        assert_string_equal(cJSON_GetArrayItem(j, 0)->valuestring, "0");
        assert_string_equal(cJSON_GetArrayItem(j, 1)->valuestring, "1");
        assert_string_equal(cJSON_GetArrayItem(j, 2)->valuestring, "0");
        return;
    }
    char d[200];
    for (int k = 0; k < 2; k++) {
        assert_true(ops->fq_to_dec(d, sizeof d, b + k * ops->desc->n8q) > 0);
        assert_string_equal(d, cJSON_GetArrayItem(j, k)->valuestring);
    }
    assert_string_equal(cJSON_GetArrayItem(j, 2)->valuestring, "1");
}

static void check_g2(const fmt_ops *ops, const void *pt, const cJSON *j)
{
    assert_true(cJSON_IsArray(j) && cJSON_GetArraySize(j) == 3);
    const uint8_t *b = pt;
    bool inf = true;
    for (size_t i = 0; i < ops->desc->g2_affine; i++)
        inf &= b[i] == 0;
    char d[200];
    for (int c = 0; c < 3; c++) {
        const cJSON *e = cJSON_GetArrayItem(j, c);
        for (int k = 0; k < 2; k++) {
            const char *want = cJSON_GetArrayItem(e, k)->valuestring;
            if (inf || c == 2) {
                const char *exp = (inf ? (c == 1 && k == 0) : (k == 0)) ? "1" : "0";
                assert_string_equal(want, exp);
            } else {
                assert_true(ops->fq_to_dec(d, sizeof d, b + (2 * c + k) * ops->desc->n8q) > 0);
                assert_string_equal(d, want);
            }
        }
    }
}

static void fr_from_mont(cuzk_curve c, uint64_t out[4], const uint64_t in[4])
{
    if (c == CUZK_CURVE_BN254)
        bn254_fr_from_mont((bn254_fr_t *)out, (const bn254_fr_t *)in);
    else
        bls12_381_fr_from_mont((bls12_381_fr_t *)out, (const bls12_381_fr_t *)in);
}

static int count_dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void files_equal(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *x = (uint8_t *)slurp(a, &na), *y = (uint8_t *)slurp(b, &nb);
    assert_int_equal(na, nb);
    assert_memory_equal(x, y, na);
    free(x);
    free(y);
}

/* ---- curve parameters --------------------------------------------------------- */

static void test_curve_params(void **state)
{
    (void)state;
    /* Moduli against the decimal primes snarkjs printed into the fixtures. */
    for (size_t f = 0; f < 2; f++) {
        cJSON *z = load_json(fx_path(&FX[f], "zkey.export.json"));
        const cuzk_curve_desc *cp = cuzk_curve_desc_get(FX[f].curve);
        assert_non_null(cp);
        char d[200];
        limbs_dec(d, sizeof d, cp->q, cp->fq_limbs);
        assert_string_equal(d, jstr(z, "q"));
        limbs_dec(d, sizeof d, cp->r, 4);
        assert_string_equal(d, jstr(z, "r"));
        assert_int_equal(cp->n8q, (int)jnum(z, "n8q"));
        assert_int_equal(cp->n8r, (int)jnum(z, "n8r"));
        assert_int_equal(cp->g1_affine, 2 * cp->n8q);
        assert_int_equal(cp->g2_affine, 4 * cp->n8q);
        uint8_t le[48];
        for (uint32_t i = 0; i < cp->n8q / 8; i++)
            wr64(le + 8 * i, cp->q[i]);
        assert_int_equal(cuzk_curve_from_q_bytes(le, cp->n8q), FX[f].curve);
        assert_int_equal(cuzk_curve_from_r_bytes(le, cp->n8q), CUZK_CURVE_NONE);
        cJSON_Delete(z);
    }
    assert_null(cuzk_curve_desc_get(CUZK_CURVE_NONE));
}

/* ---- binfile -------------------------------------------------------------------- */

/* magic, version, then sections given as (id, size, fill byte). */
static uint8_t *make_binfile(size_t *len, const char *magic, uint32_t version, int n,
                             const uint32_t *ids, const uint64_t *sizes)
{
    size_t total = 12;
    for (int i = 0; i < n; i++)
        total += 12 + sizes[i];
    uint8_t *b = calloc(1, total);
    memcpy(b, magic, 4);
    wr32(b + 4, version);
    wr32(b + 8, (uint32_t)n);
    size_t pos = 12;
    for (int i = 0; i < n; i++) {
        wr32(b + pos, ids[i]);
        wr64(b + pos + 4, sizes[i]);
        memset(b + pos + 12, (int)ids[i], sizes[i]);
        pos += 12 + sizes[i];
    }
    *len = total;
    return b;
}

/* fmt_binfile_copy: from an open file (pread, in parallel 1 MiB chunks)
 * the same bytes as from a buffer; a file truncated after it was opened
 * gives CUZK_ERR_IO, not a crash. */
static void test_binfile_copy(void **state)
{
    cuzk_pool *pool = *state;
    const size_t n = (3 << 20) + 12345;
    uint8_t *b = malloc(n), *d = malloc(n);
    memcpy(b, "test", 4);
    b[4] = 1;
    b[5] = b[6] = b[7] = 0;
    memset(b + 8, 0, 4); /* no sections */
    for (size_t i = 12; i < n; i++)
        b[i] = (uint8_t)(i * 2654435761u >> 13);
    const char *path = T("copy.bin");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    cuzk_binfile bf, bb;
    cuzk_error e = {0};
    assert_int_equal(cuzk_binfile_open(&bf, path, "test", 1, &e), CUZK_OK);
    assert_true(bf.own_fd);
    assert_int_equal(cuzk_binfile_open_buffer(&bb, b, n, "t.bin", "test", 1, &e), CUZK_OK);
    assert_false(bb.own_fd);
    const size_t offs[] = {12, 4097, (1 << 20) - 3};
    for (int k = 0; k < 3; k++) {
        size_t len = n - offs[k] - 5;
        memset(d, 0xa5, n);
        assert_int_equal(fmt_binfile_copy(&bf, offs[k], d, len, pool, &e), CUZK_OK);
        assert_memory_equal(d, b + offs[k], len);
        memset(d, 0x5a, n);
        assert_int_equal(fmt_binfile_copy(&bb, offs[k], d, len, NULL, &e), CUZK_OK);
        assert_memory_equal(d, b + offs[k], len);
    }
    cuzk_binfile bm; /* mapped for in-place use: shared, so page-locking pins the page cache */
    assert_int_equal(cuzk_binfile_open(&bm, path, "test", 1, &e), CUZK_OK);
    assert_int_equal(cuzk_binfile_map(&bm, &e), CUZK_OK);
    assert_true(mapping_is_shared(bm.map));
    cuzk_binfile_close(&bm);
    assert_int_equal(truncate(path, 1 << 20), 0);
    expect_err(fmt_binfile_copy(&bf, 12, d, n - 12, pool, &e), &e, CUZK_ERR_IO, path, "cannot read");
    cuzk_binfile_close(&bf);
    cuzk_binfile_close(&bb);
    unlink(path);
    free(b);
    free(d);
}

static void test_binfile(void **state)
{
    (void)state;
    cuzk_binfile bf;
    cuzk_error e = {0};
    const uint32_t ids[] = {7, 2, 99, 1, 2};
    const uint64_t sizes[] = {3, 5, 0, 8, 1};
    size_t n;
    uint8_t *b = make_binfile(&n, "test", 1, 5, ids, sizes);
    assert_int_equal(cuzk_binfile_open_buffer(&bf, b, n, "t.bin", "test", 1, &e), CUZK_OK);
    assert_int_equal(bf.n_sections, 5);
    assert_string_equal(bf.magic, "test");
    const cuzk_binfile_section *s;
    assert_int_equal(cuzk_binfile_get(&bf, 1, &s, &e), CUZK_OK);
    assert_int_equal(s->size, 8);
    assert_int_equal(b[s->offset], 1);
    assert_int_equal(cuzk_binfile_get(&bf, 7, &s, &e), CUZK_OK);
    assert_int_equal(s->offset, 24);
    assert_int_equal(cuzk_binfile_count(&bf, 2), 2);
    expect_err(cuzk_binfile_get(&bf, 2, &s, &e), &e, CUZK_ERR_FORMAT, "t.bin", "duplicated section 2");
    cuzk_err_clear(&e);
    expect_err(cuzk_binfile_get(&bf, 3, &s, &e), &e, CUZK_ERR_FORMAT, "t.bin", "missing section 3");
    cuzk_err_clear(&e);
    cuzk_binfile_close(&bf);

    /* Every truncation is caught (the last section ends exactly at n). */
    for (size_t k = 0; k < n; k++) {
        cuzk_err_clear(&e);
        expect_err(cuzk_binfile_open_buffer(&bf, b, k, "t.bin", "test", 1, &e), &e, CUZK_ERR_FORMAT,
                   "t.bin", "truncated");
    }
    /* Trailing bytes after the last section are tolerated (as snarkjs). */
    uint8_t *b2 = calloc(1, n + 5);
    memcpy(b2, b, n);
    cuzk_err_clear(&e);
    assert_int_equal(cuzk_binfile_open_buffer(&bf, b2, n + 5, "t.bin", "test", 1, &e), CUZK_OK);
    cuzk_binfile_close(&bf);
    /* Magic, version, absurd section count. */
    expect_err(cuzk_binfile_open_buffer(&bf, b, n, "t.bin", "zkey", 1, &e), &e, CUZK_ERR_FORMAT, "t.bin",
               "wrong magic \"test\"");
    cuzk_err_clear(&e);
    wr32(b2 + 4, 2);
    expect_err(cuzk_binfile_open_buffer(&bf, b2, n, "t.bin", "test", 1, &e), &e, CUZK_ERR_FORMAT, "t.bin",
               "version 2");
    cuzk_err_clear(&e);
    wr32(b2 + 4, 0);
    expect_err(cuzk_binfile_open_buffer(&bf, b2, n, "t.bin", "test", 1, &e), &e, CUZK_ERR_FORMAT, "t.bin",
               "version 0");
    cuzk_err_clear(&e);
    wr32(b2 + 4, 1);
    wr32(b2 + 8, 0xffffffffu);
    expect_err(cuzk_binfile_open_buffer(&bf, b2, n, "t.bin", "test", 1, &e), &e, CUZK_ERR_FORMAT, "t.bin",
               "truncated");
    cuzk_err_clear(&e);
    /* A section size that overflows when added to the offset. */
    wr32(b2 + 8, 5);
    wr64(b2 + 16, UINT64_MAX - 5);
    expect_err(cuzk_binfile_open_buffer(&bf, b2, n, "t.bin", "test", 1, &e), &e, CUZK_ERR_FORMAT, "t.bin",
               "past the end");
    cuzk_err_clear(&e);
    free(b2);
    free(b);

    /* Files: missing, directory, empty, and a real one through mmap. */
    expect_err(cuzk_binfile_open(&bf, "/nonexistent/x.zkey", "zkey", 1, &e), &e, CUZK_ERR_IO,
               "/nonexistent/x.zkey", "cannot open");
    cuzk_err_clear(&e);
    expect_err(cuzk_binfile_open(&bf, fx_tmpdir, "zkey", 1, &e), &e, CUZK_ERR_IO, fx_tmpdir, NULL);
    cuzk_err_clear(&e);
    FILE *fp = fopen(T("empty.wtns"), "wb");
    fclose(fp);
    expect_err(cuzk_binfile_open(&bf, T("empty.wtns"), "wtns", 2, &e), &e, CUZK_ERR_FORMAT,
               "empty.wtns", "truncated");
    cuzk_err_clear(&e);
    unlink(T("empty.wtns"));
    const char *rp = fx_path(&FX[0], "r1cs");
    assert_int_equal(cuzk_binfile_open(&bf, rp, "r1cs", 1, &e), CUZK_OK);
    /* circom writes the constraints (2) before the header (1). */
    assert_int_equal(bf.n_sections, 3);
    assert_int_equal(bf.sections[0].id, 2);
    assert_int_equal(bf.sections[1].id, 1);
    assert_int_equal(bf.sections[2].id, 3);
    cuzk_binfile_close(&bf);
}

/* ---- r1cs ------------------------------------------------------------------------- */

static void check_r1cs_against_export(const fixture *f, const cuzk_r1cs *r)
{
    cJSON *j = load_json(fx_path(f, "r1cs.export.json"));
    assert_int_equal(r->curve, f->curve);
    assert_int_equal(r->n8, (int)jnum(j, "n8"));
    char d[200];
    limbs_dec(d, sizeof d, cuzk_curve_desc_get(r->curve)->r, 4);
    assert_string_equal(d, jstr(j, "prime"));
    assert_int_equal(r->n_wires, (int)jnum(j, "nVars"));
    assert_int_equal(r->n_pub_out, (int)jnum(j, "nOutputs"));
    assert_int_equal(r->n_pub_in, (int)jnum(j, "nPubInputs"));
    assert_int_equal(r->n_prv_in, (int)jnum(j, "nPrvInputs"));
    assert_int_equal(r->n_labels, (uint64_t)jnum(j, "nLabels"));
    assert_int_equal(r->n_constraints, (int)jnum(j, "nConstraints"));
    const cJSON *cs = cJSON_GetObjectItemCaseSensitive(j, "constraints");
    assert_int_equal(cJSON_GetArraySize(cs), (int)r->n_constraints);
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        const cJSON *c = cJSON_GetArrayItem(cs, (int)i);
        for (int m = 0; m < 3; m++) {
            /* snarkjs prints each LC as {wire: coefficient}. */
            const cJSON *lc = cJSON_GetArrayItem(c, m);
            const cuzk_r1cs_matrix *mx = &r->m[m];
            assert_int_equal(cJSON_GetArraySize(lc), (int)(mx->row[i + 1] - mx->row[i]));
            const uint64_t(*coef)[4] = mx->coef.ptr;
            for (uint64_t t = mx->row[i]; t < mx->row[i + 1]; t++) {
                char key[16];
                snprintf(key, sizeof key, "%u", mx->wire[t]);
                limbs_dec(d, sizeof d, coef[t], 4);
                assert_string_equal(d, jstr(lc, key));
            }
        }
    }
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(j, "map");
    if (map) {
        assert_non_null(r->wire_labels);
        for (uint32_t i = 0; i < r->n_wires; i++)
            assert_int_equal(r->wire_labels[i], (uint64_t)cJSON_GetArrayItem(map, (int)i)->valuedouble);
    }
    cJSON_Delete(j);
}

static void test_r1cs_fixtures(void **state)
{
    (void)state;
    for (size_t f = 0; f < CUZK_ARRAY_LEN(FX); f++) {
        cuzk_r1cs r;
        cuzk_error e = {0};
        const char *p = fx_path(&FX[f], "r1cs");
        assert_int_equal(cuzk_r1cs_read(&r, p, &e), CUZK_OK);
        check_r1cs_against_export(&FX[f], &r);
        /* The writer reproduces circom's file byte for byte (order 2,1,3). */
        assert_int_equal(cuzk_r1cs_write(&r, T("out.r1cs"), &e), CUZK_OK);
        files_equal(p, T("out.r1cs"));
        /* Without the label map the writer emits the identity map. */
        cuzk_free(r.wire_labels);
        r.wire_labels = NULL;
        assert_int_equal(cuzk_r1cs_write(&r, T("out.r1cs"), &e), CUZK_OK);
        cuzk_r1cs r2;
        assert_int_equal(cuzk_r1cs_read(&r2, T("out.r1cs"), &e), CUZK_OK);
        for (uint32_t i = 0; i < r2.n_wires; i++)
            assert_int_equal(r2.wire_labels[i], i);
        assert_int_equal(r2.m[0].nnz, r.m[0].nnz);
        assert_memory_equal(r2.m[2].coef.ptr, r.m[2].coef.ptr, 32 * r.m[2].nnz);
        cuzk_r1cs_free(&r2);
        cuzk_r1cs_free(&r);
        unlink(T("out.r1cs"));
    }
}

static cuzk_status r1cs_buf(const uint8_t *b, size_t n, cuzk_error *e)
{
    cuzk_r1cs r;
    cuzk_err_clear(e);
    cuzk_status st = cuzk_r1cs_read_buffer(&r, b, n, "mutant.r1cs", e);
    cuzk_r1cs_free(&r);
    return st;
}

static void test_r1cs_malformed(void **state)
{
    (void)state;
    size_t n;
    uint8_t *orig = (uint8_t *)slurp(fx_path(&FX[0], "r1cs"), &n);
    uint8_t *b = malloc(n + 64);
    cuzk_error e = {0};
    assert_int_equal(r1cs_buf(orig, n, &e), CUZK_OK);
    /* Every truncation. */
    for (size_t k = 0; k < n; k++)
        expect_err(r1cs_buf(orig, k, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", NULL);
    uint64_t s1size, s2size;
    size_t h = sec_off(orig, n, 1, &s1size), c = sec_off(orig, n, 2, &s2size);
    assert_true(h && c);
#define RESET() memcpy(b, orig, n)
    RESET();
    b[0] = 'x';
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "magic");
    RESET();
    wr32(b + 4, 2);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "version");
    /* A flipped bit of the prime: malformed (a 32-byte field that is not ours). */
    RESET();
    b[h + 4] ^= 1;
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "corrupt file");
    /* nWires too small for the inputs. */
    RESET();
    wr32(b + h + 36, 2);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "nWires");
    /* Fewer wires than some constraint uses (map section then also mismatches,
     * but the constraint check comes first). */
    RESET();
    wr32(b + h + 36, 5);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "nWires");
    /* More constraints declared than stored; fewer than stored. */
    RESET();
    wr32(b + h + 60, rd32(b + h + 60) + 1);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "section 2");
    RESET();
    wr32(b + h + 60, rd32(b + h + 60) - 1);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "size mismatch");
    /* First term of constraint 0 (A): wire id and coefficient. */
    uint32_t nt = rd32(orig + c);
    assert_true(nt > 0);
    RESET();
    wr32(b + c + 4, 1000);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "wire 1000");
    RESET();
    for (int i = 0; i < 32; i++)
        b[c + 8 + i] = (uint8_t)(cuzk_curve_desc_get(CUZK_CURVE_BN254)->r[i / 8] >> (8 * (i % 8)));
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", ">= r");
    /* Term count too large for the section. */
    RESET();
    wr32(b + c, 0x10000000u);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "truncated");
    /* Section 2 one byte longer than its constraints (an extra byte at its
     * end, size field adjusted). */
    memcpy(b, orig, c + s2size);
    b[c + s2size] = 0xaa;
    memcpy(b + c + s2size + 1, orig + c + s2size, n - c - s2size);
    wr64(b + c - 8, s2size + 1);
    expect_err(r1cs_buf(b, n + 1, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "size mismatch");
    /* Header section with a wrong size. */
    RESET();
    wr64(b + h - 8, s1size - 1);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", NULL);
    /* Duplicated header section (appended copy), and an unknown section
     * (ignored). */
    memcpy(b, orig, n);
    wr32(b + 8, 4);
    wr32(b + n, 1);
    wr64(b + n + 4, 4);
    memcpy(b + n + 12, "abcd", 4);
    expect_err(r1cs_buf(b, n + 16, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "duplicated section 1");
    wr32(b + n, 42);
    assert_int_equal(r1cs_buf(b, n + 16, &e), CUZK_OK);
    /* Missing section 2. */
    RESET();
    wr32(b + c - 12, 77);
    expect_err(r1cs_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.r1cs", "missing section 2");
#undef RESET
    free(b);
    free(orig);
}

static void test_r1cs_writer(void **state)
{
    (void)state;
    /* A tiny generated circuit, wires 0 = ONE, 1 = out, 2 = x, 3 = y, 4 = z. */
    cuzk_r1cs r;
    cuzk_error e = {0};
    const uint64_t nnz[3] = {2, 2, 2};
    assert_int_equal(cuzk_r1cs_alloc(&r, CUZK_CURVE_BLS12_381, 2, nnz, &e), CUZK_OK);
    r.n_wires = 5;
    r.n_pub_out = 1;
    r.n_pub_in = 0;
    r.n_prv_in = 2;
    r.n_labels = 5;
    uint64_t(*ca)[4] = r.m[0].coef.ptr, (*cb)[4] = r.m[1].coef.ptr, (*cc)[4] = r.m[2].coef.ptr;
    memset(ca, 0, 64);
    memset(cb, 0, 64);
    memset(cc, 0, 64);
    /* constraint 0: (x)·(y) = (z); constraint 1: (z)·(1) = (out) */
    r.m[0].wire[0] = 2, ca[0][0] = 1;
    r.m[0].wire[1] = 4, ca[1][0] = 1;
    r.m[0].row[1] = 1, r.m[0].row[2] = 2;
    r.m[1].wire[0] = 3, cb[0][0] = 1;
    r.m[1].wire[1] = 0, cb[1][0] = 1;
    r.m[1].row[1] = 1, r.m[1].row[2] = 2;
    r.m[2].wire[0] = 4, cc[0][0] = 1;
    r.m[2].wire[1] = 1, cc[1][0] = 1;
    r.m[2].row[1] = 1, r.m[2].row[2] = 2;
    assert_int_equal(cuzk_r1cs_write(&r, T("gen.r1cs"), &e), CUZK_OK);
    cuzk_r1cs r2;
    assert_int_equal(cuzk_r1cs_read(&r2, T("gen.r1cs"), &e), CUZK_OK);
    assert_int_equal(r2.curve, CUZK_CURVE_BLS12_381);
    assert_int_equal(r2.n_constraints, 2);
    for (int m = 0; m < 3; m++) {
        assert_memory_equal(r2.m[m].row, r.m[m].row, 3 * sizeof(uint64_t));
        assert_memory_equal(r2.m[m].wire, r.m[m].wire, 2 * sizeof(uint32_t));
        assert_memory_equal(r2.m[m].coef.ptr, r.m[m].coef.ptr, 64);
    }
    /* Witness x = 3, y = 7, z = 21, out = 21; written and checked. */
    cuzk_wtns w;
    assert_int_equal(cuzk_wtns_alloc(&w, CUZK_CURVE_BLS12_381, 5, &e), CUZK_OK);
    uint64_t vals[5] = {1, 21, 3, 7, 21};
    uint64_t(*wv)[4] = w.values.ptr;
    for (int i = 0; i < 5; i++) {
        memset(wv[i], 0, 32);
        wv[i][0] = vals[i];
    }
    assert_int_equal(cuzk_wtns_write(&w, T("gen.wtns"), &e), CUZK_OK);
    cuzk_wtns w2;
    assert_int_equal(cuzk_wtns_read(&w2, T("gen.wtns"), &e), CUZK_OK);
    assert_int_equal(w2.n_witness, 5);
    assert_memory_equal(w2.values.ptr, w.values.ptr, 5 * 32);
    assert_int_equal(cuzk_r1cs_check_witness(&r2, &w2, NULL, "gen.r1cs", "gen.wtns", &e), CUZK_OK);
    wv = w2.values.ptr;
    wv[1][0] = 22;
    expect_err(cuzk_r1cs_check_witness(&r2, &w2, NULL, "gen.r1cs", "gen.wtns", &e), &e,
               CUZK_ERR_MISMATCH, "gen.wtns", "constraint 1 ");
    cuzk_err_clear(&e);
    /* Writers refuse data the readers would reject, and leave no file. */
    r.m[0].wire[0] = 5;
    expect_err(cuzk_r1cs_write(&r, T("bad.r1cs"), &e), &e, CUZK_ERR_USAGE, "bad.r1cs", NULL);
    cuzk_err_clear(&e);
    assert_int_equal(access(T("bad.r1cs"), F_OK), -1);
    wv = w.values.ptr;
    memcpy(wv[2], cuzk_curve_desc_get(CUZK_CURVE_BLS12_381)->r, 32);
    expect_err(cuzk_wtns_write(&w, T("bad.wtns"), &e), &e, CUZK_ERR_USAGE, "bad.wtns", ">= r");
    cuzk_err_clear(&e);
    assert_int_equal(access(T("bad.wtns"), F_OK), -1);
    cuzk_wtns_free(&w);
    cuzk_wtns_free(&w2);
    cuzk_r1cs_free(&r);
    cuzk_r1cs_free(&r2);
    unlink(T("gen.r1cs"));
    unlink(T("gen.wtns"));
}

/* ---- wtns --------------------------------------------------------------------------- */

static void test_wtns_fixtures(void **state)
{
    cuzk_pool *pool = *state;
    for (size_t f = 0; f < CUZK_ARRAY_LEN(FX); f++) {
        cuzk_wtns w;
        cuzk_error e = {0};
        const char *p = fx_path(&FX[f], "witness.wtns");
        assert_int_equal(cuzk_wtns_read(&w, p, &e), CUZK_OK);
        assert_int_equal(w.curve, FX[f].curve);
        cJSON *j = load_json(fx_path(&FX[f], "wtns.export.json"));
        assert_int_equal(cJSON_GetArraySize(j), (int)w.n_witness);
        const uint64_t(*v)[4] = w.values.ptr;
        for (uint32_t i = 0; i < w.n_witness; i++) {
            char d[100];
            limbs_dec(d, sizeof d, v[i], 4);
            assert_string_equal(d, cJSON_GetArrayItem(j, (int)i)->valuestring);
        }
        cJSON_Delete(j);
        assert_int_equal(cuzk_wtns_write(&w, T("out.wtns"), &e), CUZK_OK);
        files_equal(p, T("out.wtns"));
        unlink(T("out.wtns"));

        /* The fixture witness satisfies its circuit; serial and pooled. */
        cuzk_r1cs r;
        assert_int_equal(cuzk_r1cs_read(&r, fx_path(&FX[f], "r1cs"), &e), CUZK_OK);
        assert_int_equal(cuzk_r1cs_check_witness(&r, &w, NULL, "c.r1cs", "w.wtns", &e), CUZK_OK);
        assert_int_equal(cuzk_r1cs_check_witness(&r, &w, pool, "c.r1cs", "w.wtns", &e), CUZK_OK);
        /* Break each constraint's output wire in turn: the first failing
         * constraint is named. Wire 1 is `out`, used only by the last. */
        uint64_t(*wv)[4] = w.values.ptr;
        uint64_t save[4];
        uint32_t last = w.n_witness - 1;
        memcpy(save, wv[last], 32);
        wv[last][0] ^= 1;
        cuzk_status st = cuzk_r1cs_check_witness(&r, &w, pool, "c.r1cs", "w.wtns", &e);
        expect_err(st, &e, CUZK_ERR_MISMATCH, "w.wtns", "does not satisfy constraint");
        cuzk_err_clear(&e);
        memcpy(wv[last], save, 32);
        wv[0][0] = 2;
        expect_err(cuzk_r1cs_check_witness(&r, &w, pool, "c.r1cs", "w.wtns", &e), &e, CUZK_ERR_MISMATCH,
                   "w.wtns", "witness[0]");
        cuzk_err_clear(&e);
        wv[0][0] = 1;
        w.n_witness--;
        expect_err(cuzk_r1cs_check_witness(&r, &w, pool, "c.r1cs", "w.wtns", &e), &e, CUZK_ERR_MISMATCH,
                   "w.wtns", "Invalid witness length");
        cuzk_err_clear(&e);
        w.n_witness++;
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
    }
}

static void test_wtns_first_failing_constraint(void **state)
{
    cuzk_pool *pool = *state;
    /* In Mul(10), t[i] is wire 5 + i (after one, out, c, a, b) and constraint
     * i computes it; corrupting t[k] breaks constraint k first (the reader
     * of t[k] is constraint k + 1). Cross-check against r1cs order. */
    cuzk_wtns w;
    cuzk_r1cs r;
    cuzk_error e = {0};
    assert_int_equal(cuzk_wtns_read(&w, fx_path(&FX[1], "witness.wtns"), &e), CUZK_OK);
    assert_int_equal(cuzk_r1cs_read(&r, fx_path(&FX[1], "r1cs"), &e), CUZK_OK);
    uint64_t(*wv)[4] = w.values.ptr;
    for (uint32_t wire = 1; wire < w.n_witness; wire++) {
        /* Expected: the first constraint that mentions the wire anywhere. */
        size_t first = SIZE_MAX;
        for (uint32_t i = 0; i < r.n_constraints && first == SIZE_MAX; i++)
            for (int m = 0; m < 3; m++)
                for (uint64_t t = r.m[m].row[i]; t < r.m[m].row[i + 1]; t++)
                    if (r.m[m].wire[t] == wire)
                        first = i;
        uint64_t save = wv[wire][0];
        wv[wire][0] += 1;
        cuzk_status st = cuzk_r1cs_check_witness(&r, &w, pool, "c.r1cs", "w.wtns", &e);
        wv[wire][0] = save;
        if (first == SIZE_MAX) {
            assert_int_equal(st, CUZK_OK);
            continue;
        }
        assert_int_equal(st, CUZK_ERR_MISMATCH);
        char want[64];
        snprintf(want, sizeof want, "constraint %zu of", first);
        assert_non_null(strstr(e.msg, want));
        cuzk_err_clear(&e);
    }
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
}

static cuzk_status wtns_buf(const uint8_t *b, size_t n, cuzk_error *e)
{
    cuzk_wtns w;
    cuzk_err_clear(e);
    cuzk_status st = cuzk_wtns_read_buffer(&w, b, n, "mutant.wtns", e);
    cuzk_wtns_free(&w);
    return st;
}

static void test_wtns_malformed(void **state)
{
    (void)state;
    size_t n;
    uint8_t *orig = (uint8_t *)slurp(fx_path(&FX[1], "witness.wtns"), &n);
    uint8_t *b = malloc(n + 64);
    cuzk_error e = {0};
    for (size_t k = 0; k < n; k++)
        expect_err(wtns_buf(orig, k, &e), &e, CUZK_ERR_FORMAT, "mutant.wtns", NULL);
    uint64_t s2;
    size_t h = sec_off(orig, n, 1, NULL), v = sec_off(orig, n, 2, &s2);
    memcpy(b, orig, n);
    memcpy(b, "zkey", 4);
    expect_err(wtns_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.wtns", "wrong magic \"zkey\"");
    memcpy(b, orig, n);
    wr32(b + 4, 3);
    expect_err(wtns_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.wtns", "version 3");
    memcpy(b, orig, n);
    b[h + 4 + 31] ^= 0x40;
    expect_err(wtns_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.wtns", "corrupt file");
    /* A value >= r. */
    memcpy(b, orig, n);
    memset(b + v + 32 * 3, 0xff, 32);
    expect_err(wtns_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.wtns", "value 3");
    /* nWitness larger than the data. */
    memcpy(b, orig, n);
    wr32(b + h + 36, rd32(b + h + 36) + 1);
    expect_err(wtns_buf(b, n, &e), &e, CUZK_ERR_FORMAT, "mutant.wtns", "section 2");
    /* The js writer's wrong section length (>4 GiB quirk): trusted when
     * section 2 is last and the data is all there. */
    memcpy(b, orig, n);
    wr64(b + v - 8, s2 - 64);
    assert_int_equal(wtns_buf(b, n, &e), CUZK_OK);
    /* ... but not when another section follows it. */
    memcpy(b + n, "\x05\0\0\0\0\0\0\0\0\0\0\0", 12);
    wr32(b + 8, 3);
    wr64(b + v - 8, s2);
    assert_int_equal(wtns_buf(b, n + 12, &e), CUZK_OK);
    wr64(b + v - 8, s2 - 64);
    expect_err(wtns_buf(b, n + 12, &e), &e, CUZK_ERR_FORMAT, "mutant.wtns", "size mismatch");
    free(b);
    free(orig);
}

/* ---- zkey ----------------------------------------------------------------------------- */

static void check_zkey_against_export(const fixture *f, const cuzk_zkey *zk)
{
    cJSON *j = load_json(fx_path(f, "zkey.export.json"));
    const fmt_ops *ops = ops_of(zk->curve);
    assert_int_equal(zk->curve, f->curve);
    assert_string_equal(jstr(j, "protocol"), "groth16");
    assert_int_equal(zk->n8q, (int)jnum(j, "n8q"));
    assert_int_equal(zk->n8r, (int)jnum(j, "n8r"));
    assert_int_equal(zk->n_vars, (int)jnum(j, "nVars"));
    assert_int_equal(zk->n_public, (int)jnum(j, "nPublic"));
    assert_int_equal(zk->domain_size, (int)jnum(j, "domainSize"));
    assert_int_equal(zk->log_domain, (int)jnum(j, "power"));
    const cJSON *g;
    check_g1(ops, &zk->alpha_1, cJSON_GetObjectItem(j, "vk_alpha_1"));
    check_g1(ops, &zk->beta_1, cJSON_GetObjectItem(j, "vk_beta_1"));
    check_g2(ops, &zk->beta_2, cJSON_GetObjectItem(j, "vk_beta_2"));
    check_g2(ops, &zk->gamma_2, cJSON_GetObjectItem(j, "vk_gamma_2"));
    check_g1(ops, &zk->delta_1, cJSON_GetObjectItem(j, "vk_delta_1"));
    check_g2(ops, &zk->delta_2, cJSON_GetObjectItem(j, "vk_delta_2"));
    const size_t g1 = ops->desc->g1_affine, g2 = ops->desc->g2_affine;
    g = cJSON_GetObjectItem(j, "IC");
    assert_int_equal(cJSON_GetArraySize(g), (int)zk->n_public + 1);
    for (uint32_t i = 0; i <= zk->n_public; i++)
        check_g1(ops, (uint8_t *)zk->ic.ptr + i * g1, cJSON_GetArrayItem(g, (int)i));
    if (zk->header_only) {
        cJSON_Delete(j);
        return;
    }
    const char *g1arr[] = {"A", "B1", "hExps"};
    const void *ours[] = {zk->a.ptr, zk->b1.ptr, zk->h.ptr};
    for (int k = 0; k < 3; k++) {
        g = cJSON_GetObjectItem(j, g1arr[k]);
        for (int i = 0; i < cJSON_GetArraySize(g); i++)
            check_g1(ops, (const uint8_t *)ours[k] + (size_t)i * g1, cJSON_GetArrayItem(g, i));
    }
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "hExps")), (int)zk->domain_size);
    g = cJSON_GetObjectItem(j, "B2");
    assert_int_equal(cJSON_GetArraySize(g), (int)zk->n_vars);
    for (uint32_t i = 0; i < zk->n_vars; i++)
        check_g2(ops, (uint8_t *)zk->b2.ptr + i * g2, cJSON_GetArrayItem(g, (int)i));
    /* snarkjs lists C for every wire with null for the public ones (and
     * an empty array when there are no private wires). */
    g = cJSON_GetObjectItem(j, "C");
    assert_int_equal(cJSON_GetArraySize(g),
                     zk->n_vars == zk->n_public + 1 ? 0 : (int)zk->n_vars);
    for (uint32_t i = 0; i < (uint32_t)cJSON_GetArraySize(g); i++) {
        const cJSON *c = cJSON_GetArrayItem(g, (int)i);
        if (i <= zk->n_public)
            assert_true(cJSON_IsNull(c));
        else
            check_g1(ops, (uint8_t *)zk->c.ptr + (i - zk->n_public - 1) * g1, c);
    }
    /* Coefficients: snarkjs prints v, we keep v·R²; undo both Montgomery
     * factors to compare. */
    g = cJSON_GetObjectItem(j, "ccoefs");
    assert_int_equal(cJSON_GetArraySize(g), (int)zk->n_coefs);
    const uint64_t(*val)[4] = zk->coef_value.ptr;
    for (uint64_t i = 0; i < zk->n_coefs; i++) {
        const cJSON *c = cJSON_GetArrayItem(g, (int)i);
        assert_int_equal(zk->coef_matrix[i], (uint32_t)jnum(c, "matrix"));
        assert_int_equal(zk->coef_constraint[i], (uint32_t)jnum(c, "constraint"));
        assert_int_equal(zk->coef_signal[i], (uint32_t)jnum(c, "signal"));
        uint64_t v[4];
        fr_from_mont(zk->curve, v, val[i]);
        fr_from_mont(zk->curve, v, v);
        char d[100];
        limbs_dec(d, sizeof d, v, 4);
        assert_string_equal(d, jstr(c, "value"));
    }
    cJSON_Delete(j);
}

static void test_zkey_fixtures(void **state)
{
    cuzk_pool *pool = *state;
    for (size_t f = 0; f < CUZK_ARRAY_LEN(FX); f++) {
        cuzk_error e = {0};
        char p[1024];
        snprintf(p, sizeof p, "%s", fx_path(&FX[f], "zkey"));
        for (int mode = 0; mode < 4; mode++) {
            cuzk_zkey zk;
            cuzk_zkey_read_opts o = {.pool = mode & 1 ? pool : NULL,
                                     .full_subgroup_check = mode == 2,
                                     .header_only = mode == 3};
            assert_int_equal(cuzk_zkey_read(&zk, p, &o, &e), CUZK_OK);
            check_zkey_against_export(&FX[f], &zk);
            /* 64-byte alignment of every array, except the point arrays
             * used in place: 8-byte aligned, inside the mapping. */
            assert_int_equal((uintptr_t)zk.ic.ptr % 64, 0);
            if (!zk.header_only) {
                /* In place exactly when the section is non-empty and at
                 * an 8-byte aligned file offset (the mapping is page
                 * aligned). Section headers are 12 bytes, so sections
                 * 5..9 alternate; both kinds occur in every fixture. */
                size_t fn;
                uint8_t *fb = (uint8_t *)slurp(p, &fn);
                const void *arr[] = {zk.a.ptr, zk.b1.ptr, zk.b2.ptr, zk.c.ptr, zk.h.ptr};
                int borrowed = 0;
                for (int i = 0; i < 5; i++) {
                    uint64_t ssz;
                    size_t off = sec_off(fb, fn, (uint32_t)(5 + i), &ssz);
                    bool expect = ssz > 0 && off % 8 == 0;
                    uintptr_t q = (uintptr_t)arr[i], m = (uintptr_t)zk.map;
                    bool in = zk.map && q >= m && q - m < zk.map_size;
                    assert_int_equal(in, expect);
                    if (in) {
                        assert_int_equal(q - m, off);
                        borrowed++;
                    } else {
                        assert_int_equal(q % 64, 0);
                    }
                }
                assert_true(borrowed >= 1 && borrowed <= 3);
                free(fb);
                assert_int_equal((uintptr_t)zk.coef_value.ptr % 64, 0);
            } else {
                assert_null(zk.map);
            }
            cuzk_zkey_free(&zk);
        }

        /* copy_points: nothing borrowed; the same arrays as in place.
         * coefs_in_place: the records are the decoded arrays. */
        {
            cuzk_zkey zc, zp;
            cuzk_zkey_read_opts oc = {.pool = pool, .copy_points = true};
            cuzk_zkey_read_opts op = {.pool = pool, .coefs_in_place = true};
            assert_int_equal(cuzk_zkey_read(&zc, p, &oc, &e), CUZK_OK);
            assert_int_equal(cuzk_zkey_read(&zp, p, &op, &e), CUZK_OK);
            assert_null(zc.map);
            assert_null(zc.coef_raw);
            assert_non_null(zp.map);
            assert_non_null(zp.coef_raw);
            assert_null(zp.coef_matrix);
            const cuzk_curve_desc *cp = cuzk_curve_desc_get(zc.curve);
            size_t npriv = zc.n_vars - zc.n_public - 1;
            assert_memory_equal(zc.a.ptr, zp.a.ptr, zc.n_vars * cp->g1_affine);
            assert_memory_equal(zc.b1.ptr, zp.b1.ptr, zc.n_vars * cp->g1_affine);
            assert_memory_equal(zc.b2.ptr, zp.b2.ptr, zc.n_vars * cp->g2_affine);
            if (npriv)
                assert_memory_equal(zc.c.ptr, zp.c.ptr, npriv * cp->g1_affine);
            assert_memory_equal(zc.h.ptr, zp.h.ptr, zc.domain_size * cp->g1_affine);
            /* sorted by constraint: the reader's finding in both modes,
             * against the decoded records */
            bool sorted = true;
            for (uint64_t i = 1; i < zc.n_coefs; i++)
                sorted = sorted && zc.coef_constraint[i] >= zc.coef_constraint[i - 1];
            assert_int_equal(zc.coefs_sorted, sorted);
            assert_int_equal(zp.coefs_sorted, sorted);
            const uint64_t(*val)[4] = zc.coef_value.ptr;
            for (uint64_t i = 0; i < zc.n_coefs; i++) {
                const uint8_t *r = zp.coef_raw + i * 44;
                assert_int_equal(rd32(r), zc.coef_matrix[i]);
                assert_int_equal(rd32(r + 4), zc.coef_constraint[i]);
                assert_int_equal(rd32(r + 8), zc.coef_signal[i]);
                for (int l = 0; l < 4; l++)
                    assert_int_equal(rd64(r + 12 + 8 * l), val[i][l]);
            }
            cuzk_zkey_free(&zc);
            cuzk_zkey_free(&zp);
        }

        /* The same file with its first and last records swapped where their
         * constraints differ: read as not sorted, copied or in place. */
        {
            size_t fn;
            uint8_t *fb = (uint8_t *)slurp(p, &fn);
            uint64_t ssz;
            size_t off = sec_off(fb, fn, 4, &ssz) + 4;
            const uint64_t nc = rd32(fb + off - 4);
            uint8_t *r0 = fb + off, *r1 = fb + off + (nc - 1) * 44;
            if (nc > 1 && rd32(r0 + 4) != rd32(r1 + 4)) {
                uint8_t t[44];
                memcpy(t, r0, 44);
                memcpy(r0, r1, 44);
                memcpy(r1, t, 44);
                FILE *out = fopen(T("swapped.zkey"), "wb");
                assert_non_null(out);
                assert_int_equal(fwrite(fb, 1, fn, out), fn);
                fclose(out);
                for (int in_place = 0; in_place < 2; in_place++) {
                    cuzk_zkey z;
                    cuzk_zkey_read_opts oz = {.pool = pool, .coefs_in_place = in_place};
                    assert_int_equal(cuzk_zkey_read(&z, T("swapped.zkey"), &oz, &e), CUZK_OK);
                    assert_false(z.coefs_sorted);
                    cuzk_zkey_free(&z);
                }
                unlink(T("swapped.zkey"));
            }
            free(fb);
        }

        /* Writer: sections 1..9 identical to snarkjs's, section 10 empty. */
        cuzk_zkey zk;
        if (cuzk_zkey_read(&zk, p, NULL, &e))
            fail_msg("%s", e.msg);
        assert_int_equal(cuzk_zkey_write(&zk, T("out.zkey"), &e), CUZK_OK);
        size_t na, nb;
        uint8_t *a = (uint8_t *)slurp(p, &na), *b = (uint8_t *)slurp(T("out.zkey"), &nb);
        assert_int_equal(rd32(b + 8), 10);
        for (uint32_t id = 1; id <= 9; id++) {
            uint64_t sa, sb;
            size_t oa = sec_off(a, na, id, &sa), ob = sec_off(b, nb, id, &sb);
            assert_true(oa && ob);
            assert_int_equal(sa, sb);
            assert_memory_equal(a + oa, b + ob, sa);
        }
        /* In order 1..10. */
        size_t pos = 12;
        for (uint32_t id = 1; id <= 10; id++) {
            assert_int_equal(rd32(b + pos), id);
            pos += 12 + rd64(b + pos + 4);
        }
        assert_int_equal(pos, nb);
        uint64_t s10;
        size_t o10 = sec_off(b, nb, 10, &s10);
        assert_int_equal(s10, 68);
        for (int i = 0; i < 68; i++)
            assert_int_equal(b[o10 + i], 0);
        cuzk_zkey zk2;
        assert_int_equal(cuzk_zkey_read(&zk2, T("out.zkey"), NULL, &e), CUZK_OK);
        check_zkey_against_export(&FX[f], &zk2);
        /* release: owned arrays freed and NULL (their bytes returned), the
         * others kept; twice is a no-op */
        {
            const cuzk_curve_desc *cd = cuzk_curve_desc_get(zk2.curve);
            const size_t want = (size_t)zk2.n_vars * cd->g1_affine + (size_t)zk2.n_coefs * (12 + cd->n8r);
            assert_int_equal(cuzk_zkey_release(&zk2, CUZK_ZKEY_REL_A | CUZK_ZKEY_REL_COEFS), want);
            assert_null(zk2.a.ptr);
            assert_null(zk2.coef_value.ptr);
            assert_null(zk2.coef_signal);
            assert_non_null(zk2.b1.ptr);
            assert_non_null(zk2.h.ptr);
            assert_int_equal(cuzk_zkey_release(&zk2, CUZK_ZKEY_REL_A), 0);
        }
        cuzk_zkey_free(&zk2);
        /* a mapped key's arrays in the mapping stay (page cache) */
        cuzk_zkey_read_opts mo = {.coefs_in_place = true};
        assert_int_equal(cuzk_zkey_read(&zk2, T("out.zkey"), &mo, &e), CUZK_OK);
        if (zk2.map) {
            const void *h = zk2.h.ptr;
            const bool h_mapped = (const uint8_t *)h >= (const uint8_t *)zk2.map &&
                                  (const uint8_t *)h < (const uint8_t *)zk2.map + zk2.map_size;
            size_t fr = cuzk_zkey_release(&zk2, CUZK_ZKEY_REL_H | CUZK_ZKEY_REL_COEFS);
            assert_true(h_mapped ? zk2.h.ptr == h : zk2.h.ptr == NULL);
            assert_non_null(zk2.coef_raw);
            assert_true(h_mapped ? fr == 0 : fr > 0);
            assert_false(cuzk_zkey_map_lost(&zk2));
        }
        cuzk_zkey_free(&zk2);
        free(a);
        free(b);
        unlink(T("out.zkey"));

        /* The fixture witness fits the key; a truncated one does not. */
        cuzk_wtns w;
        assert_int_equal(cuzk_wtns_read(&w, fx_path(&FX[f], "witness.wtns"), &e), CUZK_OK);
        assert_int_equal(cuzk_zkey_check_wtns(&zk, &w, "w.wtns", &e), CUZK_OK);
        w.n_witness--;
        expect_err(cuzk_zkey_check_wtns(&zk, &w, "w.wtns", &e), &e, CUZK_ERR_MISMATCH, "w.wtns",
                   "Invalid witness length");
        cuzk_err_clear(&e);
        w.n_witness++;
        w.curve = w.curve == CUZK_CURVE_BN254 ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
        expect_err(cuzk_zkey_check_wtns(&zk, &w, "w.wtns", &e), &e, CUZK_ERR_MISMATCH, "w.wtns", "Curve");
        cuzk_err_clear(&e);
        cuzk_wtns_free(&w);
        cuzk_zkey_free(&zk);
    }
}

/* The block point checks (8 points per vector where the CPU has IFMA) give
 * the same verdict as checking each point: for blocks of valid points with
 * infinity, off-curve and >= q points planted at random places, vector path
 * on and off. */
static void test_point_check_blocks(void **state)
{
    (void)state;
    const bool ifma_was = cuzk_ifma_enabled();
    uint64_t rng = 0x1234567;
    for (size_t f = 0; f < 2; f++) {
        cuzk_zkey zk;
        cuzk_error e = {0};
        cuzk_zkey_read_opts o = {.copy_points = true};
        assert_int_equal(cuzk_zkey_read(&zk, fx_path(&FX[f], "zkey"), &o, &e), CUZK_OK);
        const fmt_ops *ops = fmt_ops_get(zk.curve);
        const cuzk_curve_desc *cp = ops->desc;
        for (int g2 = 0; g2 < 2; g2++) {
            const size_t sz = g2 ? cp->g2_affine : cp->g1_affine, nsrc = g2 ? zk.n_vars : zk.domain_size;
            const uint8_t *src = g2 ? zk.b2.ptr : zk.h.ptr;
            const size_t n = 40;
            uint8_t *pts = malloc(n * sz);
            for (int trial = 0; trial < 400; trial++) {
                for (size_t i = 0; i < n; i++)
                    memcpy(pts + i * sz, src + (i % nsrc) * sz, sz);
                /* 0-2 plants: infinity (valid), a flipped bit (off the curve
                 * or >= q), a coordinate set to q (>= q). */
                int plants = trial % 3;
                for (int k = 0; k < plants; k++) {
                    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
                    size_t i = (size_t)(rng >> 33) % n, kind = (size_t)(rng >> 20) % 3;
                    uint8_t *pt = pts + i * sz;
                    if (kind == 0)
                        memset(pt, 0, sz);
                    else if (kind == 1)
                        pt[(rng >> 8) % sz] ^= (uint8_t)(1u << ((rng >> 4) % 8));
                    else
                        for (size_t b = 0; b < cp->n8q; b++)
                            pt[b] = (uint8_t)(cp->q[b / 8] >> (8 * (b % 8)));
                }
                size_t lo = (size_t)trial % 5, cnt = n - lo - (size_t)(trial / 5) % 7;
                int want = 0;
                for (size_t i = lo; i < lo + cnt && !want; i++)
                    want = g2 ? ops->g2_check(pts + i * sz, false) : ops->g1_check(pts + i * sz, false);
                for (int v = 0; v < 2; v++) {
                    cuzk_ifma_set(v == 1);
                    int got = g2 ? ops->g2_check_n(pts + lo * sz, cnt, false)
                                 : ops->g1_check_n(pts + lo * sz, cnt, false);
                    assert_int_equal(got, want);
                }
            }
            free(pts);
        }
        cuzk_zkey_free(&zk);
    }
    cuzk_ifma_set(ifma_was);
}

/* snarkjs's `groth16 setup` order: 1,2,4,3,9,8,5,6,7,10. Build it from the
 * fixture (which is in 1..10 order after `zkey contribute`). */
static uint8_t *reorder_zkey(const uint8_t *d, size_t n, const uint32_t *order, int k, size_t *out_n)
{
    uint8_t *b = malloc(n);
    memcpy(b, d, 12);
    wr32(b + 8, (uint32_t)k);
    size_t pos = 12;
    for (int i = 0; i < k; i++) {
        uint64_t sz;
        size_t off = sec_off(d, n, order[i], &sz);
        assert_true(off);
        memcpy(b + pos, d + off - 12, 12 + sz);
        pos += 12 + sz;
    }
    *out_n = pos;
    return b;
}

/* Reads a mutant from a buffer (everything copied), and the same bytes from
 * a file twice: mapped, with zero-copy points and the coefficients checked
 * in place, and copied with pread (never mapped): all three must give the
 * same verdict and message (after the file name). */
static cuzk_status zkey_buf(const uint8_t *b, size_t n, const cuzk_zkey_read_opts *o, cuzk_error *e)
{
    cuzk_zkey zk;
    cuzk_err_clear(e);
    cuzk_status st = cuzk_zkey_read_buffer(&zk, b, n, "mutant.zkey", o, e);
    cuzk_zkey_free(&zk);

    const char *path = T("mutant.zkey");
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    cuzk_zkey_read_opts fo = {0};
    if (o)
        fo = *o;
    fo.coefs_in_place = true;
    cuzk_error e2 = {0};
    cuzk_status st2 = cuzk_zkey_read(&zk, path, &fo, &e2);
    if (st2 == CUZK_OK) {
        assert_true(zk.header_only || zk.coef_raw);
        assert_null(zk.coef_matrix);
    }
    cuzk_zkey_free(&zk);
    fo.coefs_in_place = false;
    fo.copy_points = true;
    cuzk_error e3 = {0};
    cuzk_status st3 = cuzk_zkey_read(&zk, path, &fo, &e3);
    if (st3 == CUZK_OK)
        assert_null(zk.map);
    cuzk_zkey_free(&zk);
    unlink(path);
    assert_int_equal(st2, st);
    assert_int_equal(st3, st);
    if (st) {
        size_t pl = strlen(path), bl = strlen("mutant.zkey");
        assert_memory_equal(e2.msg, path, pl);
        assert_memory_equal(e3.msg, path, pl);
        assert_memory_equal(e->msg, "mutant.zkey", bl);
        assert_string_equal(e2.msg + pl, e->msg + bl);
        assert_string_equal(e3.msg + pl, e->msg + bl);
    }
    return st;
}

static void test_zkey_section_order(void **state)
{
    (void)state;
    size_t n, m;
    uint8_t *orig = (uint8_t *)slurp(fx_path(&FX[0], "zkey"), &n);
    const uint32_t setup_order[] = {1, 2, 4, 3, 9, 8, 5, 6, 7, 10};
    const uint32_t no10[] = {9, 8, 7, 6, 5, 4, 3, 2, 1};
    cuzk_error e = {0};
    uint8_t *b = reorder_zkey(orig, n, setup_order, 10, &m);
    assert_int_equal(m, n);
    cuzk_zkey z1, z2;
    assert_int_equal(cuzk_zkey_read_buffer(&z1, orig, n, "a.zkey", NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_zkey_read_buffer(&z2, b, m, "b.zkey", NULL, &e), CUZK_OK);
    assert_memory_equal(z1.h.ptr, z2.h.ptr, (size_t)z1.domain_size * 64);
    assert_memory_equal(z1.coef_value.ptr, z2.coef_value.ptr, (size_t)z1.n_coefs * 32);
    cuzk_zkey_free(&z2);
    free(b);
    /* Reversed, without section 10 (writeZKey's output has none). */
    b = reorder_zkey(orig, n, no10, 9, &m);
    assert_int_equal(cuzk_zkey_read_buffer(&z2, b, m, "c.zkey", NULL, &e), CUZK_OK);
    assert_memory_equal(z1.b2.ptr, z2.b2.ptr, (size_t)z1.n_vars * 128);
    cuzk_zkey_free(&z2);
    free(b);
    cuzk_zkey_free(&z1);
    free(orig);
}

/* A point on the curve y^2 = x^3 + b but (with overwhelming probability)
 * outside the prime-order subgroup, in our Montgomery layout. */
static void bls_g1_off_subgroup(bls12_381_g1_affine_t *p)
{
    for (uint64_t x = 1;; x++) {
        bls12_381_fp_t rhs;
        bls12_381_fp_from_u64(&p->x, x);
        bls12_381_fp_sqr(&rhs, &p->x);
        bls12_381_fp_mul(&rhs, &rhs, &p->x);
        bls12_381_fp_add(&rhs, &rhs, &bls12_381_g1_B);
        if (bls12_381_fp_sqrt(&p->y, &rhs))
            break;
    }
    assert_true(bls12_381_g1_affine_is_on_curve(p));
    assert_false(bls12_381_g1_affine_in_subgroup(p));
}

static void bls_g2_off_subgroup(bls12_381_g2_affine_t *p)
{
    for (uint64_t x = 1;; x++) {
        bls12_381_fp2_t rhs;
        bls12_381_fp_from_u64(&p->x.c0, x);
        bls12_381_fp_from_u64(&p->x.c1, 1);
        bls12_381_fp2_sqr(&rhs, &p->x);
        bls12_381_fp2_mul(&rhs, &rhs, &p->x);
        bls12_381_fp2_add(&rhs, &rhs, &bls12_381_g2_B);
        if (bls12_381_fp2_sqrt(&p->y, &rhs))
            break;
    }
    assert_true(bls12_381_g2_affine_is_on_curve(p));
    assert_false(bls12_381_g2_affine_in_subgroup(p));
}

static void test_zkey_malformed(void **state)
{
    cuzk_pool *pool = *state;
    cuzk_error e = {0};
    /* bn128 Mul: every truncation is rejected (and never crashes). */
    {
        size_t n;
        uint8_t *orig = (uint8_t *)slurp(fx_path(&FX[0], "zkey"), &n);
        for (size_t k = 0; k < n; k += (k < 2000 ? 1 : 7))
            expect_err(zkey_buf(orig, k, NULL, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", NULL);
        free(orig);
    }
    for (size_t f = 0; f < 2; f++) {
        size_t n;
        uint8_t *orig = (uint8_t *)slurp(fx_path(&FX[f], "zkey"), &n);
        uint8_t *b = malloc(n + 256);
        const cuzk_curve_desc *cp = cuzk_curve_desc_get(FX[f].curve);
        const size_t g1 = cp->g1_affine, n8q = cp->n8q;
        uint64_t hs, s4, s5;
        size_t h = sec_off(orig, n, 2, &hs), o4 = sec_off(orig, n, 4, &s4), o5 = sec_off(orig, n, 5, &s5);
        size_t o1 = sec_off(orig, n, 1, NULL);
        size_t pts = h + 4 + n8q + 4 + 32 + 12; /* alpha_1 */
        cuzk_zkey_read_opts par = {.pool = pool};
#define RESET() memcpy(b, orig, n)
        RESET();
        assert_int_equal(zkey_buf(b, n, &par, &e), CUZK_OK);
        b[1] = 'K';
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "wrong magic");
        RESET();
        wr32(b + 4, 2);
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "version 2");
        RESET();
        wr32(b + o1, 2);
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_UNSUPPORTED, "mutant.zkey", "not a Groth16 zkey");
        RESET();
        wr32(b + o1, 7);
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "not a Groth16 zkey");
        /* Primes: q changed (r still known) -> the header disagrees with
         * itself; both changed (sizes still ours) -> corrupt: malformed. */
        RESET();
        b[h + 4] ^= 2;
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "disagree");
        b[h + 8 + n8q] ^= 2;
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "corrupt file");
        /* Swap in the other curve's r. */
        RESET();
        const cuzk_curve_desc *other = cuzk_curve_desc_get(f == 0 ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254);
        for (int i = 0; i < 32; i++)
            b[h + 8 + n8q + i] = (uint8_t)(other->r[i / 8] >> (8 * (i % 8)));
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", other->snarkjs_name);
        /* Header values. */
        size_t hv = h + 8 + n8q + 32;
        RESET();
        wr32(b + hv + 8, 24);
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "power of two");
        RESET();
        wr32(b + hv + 4, rd32(b + hv));
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "nPublic");
        RESET();
        wr32(b + hv + 8, 32); /* domain doubled: section 9 no longer fits */
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 9 (H points) size mismatch");
        assert_non_null(strstr(e.msg, cp->snarkjs_name));
        RESET();
        wr32(b + hv, rd32(b + hv) + 1); /* nVars + 1 */
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 5 (A points) size mismatch");
        /* Shrink section 5 by one point (really remove it). */
        memcpy(b, orig, o5 + s5 - g1);
        memcpy(b + o5 + s5 - g1, orig + o5 + s5, n - o5 - s5);
        wr64(b + o5 - 8, s5 - g1);
        expect_err(zkey_buf(b, n - g1, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 5");
        char want[128];
        snprintf(want, sizeof want, "expected %llu bytes", (unsigned long long)s5);
        assert_non_null(strstr(e.msg, want));
        /* Section 2 one byte short. */
        memcpy(b, orig, h + hs - 1);
        memcpy(b + h + hs - 1, orig + h + hs, n - h - hs);
        wr64(b + h - 8, hs - 1);
        expect_err(zkey_buf(b, n - 1, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 2");
        /* Missing / duplicated sections; an unknown one is ignored. */
        RESET();
        wr32(b + sec_off(orig, n, 9, NULL) - 12, 99);
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "missing section 9");
        memcpy(b, orig, n);
        wr32(b + 8, 11);
        wr32(b + n, 3);
        wr64(b + n + 4, 0);
        expect_err(zkey_buf(b, n + 12, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "duplicated section 3");
        wr32(b + n, 1234);
        assert_int_equal(zkey_buf(b, n + 12, &par, &e), CUZK_OK);
        /* Coefficients: each field out of range in entry 5. */
        size_t rec = o4 + 4 + 5 * 44;
        RESET();
        wr32(b + rec, 2);
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "entry 5: matrix 2");
        RESET();
        wr32(b + rec + 4, rd32(orig + hv + 8));
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "entry 5: constraint");
        RESET();
        wr32(b + rec + 8, rd32(orig + hv));
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "entry 5: signal");
        RESET();
        for (int i = 0; i < 32; i++)
            b[rec + 12 + i] = (uint8_t)(cp->r[i / 8] >> (8 * (i % 8)));
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "entry 5: value >= r");
        RESET();
        wr32(b + o4, (uint32_t)(s4 / 44 + 1)); /* nCoefs one too large */
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 4 (coefficients) size mismatch");
        /* Points: not on the curve, coordinate >= q. */
        RESET();
        b[pts + n8q] ^= 1; /* alpha_1.y */
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "alpha_1 is not on the curve");
        RESET();
        for (size_t i = 0; i < n8q; i++)
            b[pts + i] = (uint8_t)(cp->q[i / 8] >> (8 * (i % 8)));
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "alpha_1 has a coordinate >= q");
        RESET();
        size_t delta2 = pts + 2 * g1 + 2 * cp->g2_affine + g1;
        b[delta2 + 3 * n8q] ^= 1;
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "delta_2 is not on the curve");
        /* Section 9 (H), last point, in parallel: index named. */
        uint64_t s9;
        size_t o9 = sec_off(orig, n, 9, &s9);
        RESET();
        b[o9 + s9 - g1] ^= 4; /* low byte of the last point's x */
        snprintf(want, sizeof want, "section 9 (H points): point %llu is not on the curve",
                 (unsigned long long)(s9 / g1 - 1));
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", want);
        /* Two bad points: the first one is reported, whatever the threads do. */
        b[o9 + g1 * 3 + 1] ^= 4;
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "point 3 is not on");
        /* ... and skip_point_checks trusts them. */
        cuzk_zkey_read_opts trust = {.pool = pool, .skip_point_checks = true};
        assert_int_equal(zkey_buf(b, n, &trust, &e), CUZK_OK);
        /* Section 7 (B2, G2), an infinity point stays accepted; a broken
         * non-infinity one does not. */
        uint64_t s7;
        size_t o7 = sec_off(orig, n, 7, &s7);
        RESET();
        memset(b + o7, 0, cp->g2_affine);
        assert_int_equal(zkey_buf(b, n, &par, &e), CUZK_OK);
        b[o7] = 1;
        expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 7 (B2 points): point 0");
        if (FX[f].curve == CUZK_CURVE_BLS12_381) {
            bls12_381_g1_affine_t p1;
            bls12_381_g2_affine_t p2;
            bls_g1_off_subgroup(&p1);
            bls_g2_off_subgroup(&p2);
            RESET();
            memcpy(b + pts, &p1, g1);
            expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "alpha_1 is not in the prime-order subgroup");
            RESET();
            memcpy(b + pts + 2 * g1 + cp->g2_affine, &p2, cp->g2_affine); /* gamma_2 */
            expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "gamma_2 is not in the prime-order subgroup");
            RESET();
            memcpy(b + sec_off(orig, n, 3, NULL) + g1, &p1, g1); /* IC[1] */
            expect_err(zkey_buf(b, n, &par, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 3 (IC): point 1 is not in the prime-order subgroup");
            /* Section 5 point: only the full check rejects it. */
            RESET();
            memcpy(b + o5 + 2 * g1, &p1, g1);
            assert_int_equal(zkey_buf(b, n, &par, &e), CUZK_OK);
            cuzk_zkey_read_opts full = {.pool = pool, .full_subgroup_check = true};
            expect_err(zkey_buf(b, n, &full, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 5 (A points): point 2 is not in the prime-order subgroup");
            RESET();
            memcpy(b + o7 + cp->g2_affine, &p2, cp->g2_affine);
            assert_int_equal(zkey_buf(b, n, &par, &e), CUZK_OK);
            expect_err(zkey_buf(b, n, &full, &e), &e, CUZK_ERR_FORMAT, "mutant.zkey", "section 7 (B2 points): point 1 is not in the prime-order subgroup");
        }
#undef RESET
        free(b);
        free(orig);
    }
}

/* ---- JSON ---------------------------------------------------------------------------- */

static void test_json_roundtrip(void **state)
{
    (void)state;
    for (size_t f = 0; f < CUZK_ARRAY_LEN(FX); f++) {
        cuzk_error e = {0};
        size_t n;
        char *out;
        size_t len;
        /* proof.json */
        const char *pp = fx_path(&FX[f], "proof.json");
        char *t = slurp(pp, &n);
        cuzk_proof_points pr;
        assert_int_equal(cuzk_proof_points_read_json(&pr, pp, CUZK_CURVE_NONE, &e), CUZK_OK);
        assert_int_equal(pr.curve, FX[f].curve);
        assert_int_equal(cuzk_proof_points_to_json(&pr, CUZK_JSON_SNARKJS, &out, &len, &e), CUZK_OK);
        assert_int_equal(len, n);
        assert_string_equal(out, t);
        free(out);
        assert_int_equal(cuzk_proof_points_write_json(&pr, T("proof.json"), CUZK_JSON_SNARKJS, &e), CUZK_OK);
        files_equal(pp, T("proof.json"));
        /* rapidsnark style: compact, sorted keys, no curve; readable back
         * when the caller supplies the curve. */
        assert_int_equal(cuzk_proof_points_to_json(&pr, CUZK_JSON_RAPIDSNARK, &out, &len, &e), CUZK_OK);
        assert_null(strchr(out, ' '));
        assert_null(strchr(out, '\n'));
        assert_null(strstr(out, "curve"));
        assert_true(strncmp(out, "{\"pi_a\":[\"", 10) == 0);
        assert_true(strstr(out, "\"pi_b\":[[") && strstr(out, "],\"pi_c\":[") &&
                    strstr(out, "\"protocol\":\"groth16\"}"));
        cJSON *a = cJSON_Parse(out), *bj = cJSON_Parse(t);
        assert_true(cJSON_Compare(cJSON_GetObjectItem(a, "pi_b"), cJSON_GetObjectItem(bj, "pi_b"), 1));
        cJSON_Delete(a);
        cJSON_Delete(bj);
        cuzk_proof_points pr2;
        expect_err(cuzk_proof_points_read_json_buffer(&pr2, out, len, "r.json", CUZK_CURVE_NONE, &e), &e,
                   CUZK_ERR_FORMAT, "r.json", "curve");
        cuzk_err_clear(&e);
        assert_int_equal(cuzk_proof_points_read_json_buffer(&pr2, out, len, "r.json", FX[f].curve, &e), CUZK_OK);
        assert_memory_equal(&pr2, &pr, sizeof pr);
        free(out);
        free(t);

        /* public.json */
        const char *pub = fx_path(&FX[f], "public.json");
        t = slurp(pub, &n);
        cuzk_public pb;
        assert_int_equal(cuzk_public_read_json(&pb, pub, FX[f].curve, &e), CUZK_OK);
        /* Public signals = w[1..nPublic] of the witness. */
        cuzk_wtns w;
        assert_int_equal(cuzk_wtns_read(&w, fx_path(&FX[f], "witness.wtns"), &e), CUZK_OK);
        assert_memory_equal(pb.values.ptr, (uint8_t *)w.values.ptr + 32, (size_t)pb.n * 32);
        assert_int_equal(cuzk_public_to_json(pb.curve, pb.values.ptr, pb.n, CUZK_JSON_SNARKJS, &out, &len, &e),
                         CUZK_OK);
        assert_string_equal(out, t);
        free(out);
        assert_int_equal(cuzk_public_write_json(w.curve, (uint8_t *)w.values.ptr + 32, pb.n,
                                                T("public.json"), CUZK_JSON_SNARKJS, &e),
                         CUZK_OK);
        files_equal(pub, T("public.json"));
        assert_int_equal(cuzk_public_to_json(pb.curve, pb.values.ptr, pb.n, CUZK_JSON_RAPIDSNARK, &out, &len, &e),
                         CUZK_OK);
        cJSON *pj = cJSON_Parse(t);
        char *compact = cJSON_PrintUnformatted(pj);
        assert_string_equal(out, compact);
        cJSON_free(compact);
        cJSON_Delete(pj);
        free(out);
        cuzk_wtns_free(&w);
        cuzk_public_free(&pb);
        free(t);
        /* Empty array both ways. */
        assert_int_equal(cuzk_public_to_json(FX[f].curve, NULL, 0, CUZK_JSON_SNARKJS, &out, &len, &e), CUZK_OK);
        assert_string_equal(out, "[]");
        assert_int_equal(cuzk_public_read_json_buffer(&pb, out, len, "p.json", FX[f].curve, &e), CUZK_OK);
        assert_int_equal(pb.n, 0);
        cuzk_public_free(&pb);
        free(out);

        /* verification_key.json: read/write and from the zkey. */
        const char *vp = fx_path(&FX[f], "verification_key.json");
        t = slurp(vp, &n);
        cuzk_vk vk, vk2;
        assert_int_equal(cuzk_vk_read_json(&vk, vp, &e), CUZK_OK);
        assert_true(vk.has_alphabeta);
        assert_int_equal(cuzk_vk_to_json(&vk, &out, &len, &e), CUZK_OK);
        assert_string_equal(out, t);
        free(out);
        cuzk_zkey zk;
        cuzk_zkey_read_opts ho = {.header_only = true};
        assert_int_equal(cuzk_zkey_read(&zk, fx_path(&FX[f], "zkey"), &ho, &e), CUZK_OK);
        assert_int_equal(cuzk_vk_from_zkey(&vk2, &zk, &e), CUZK_OK);
        assert_false(vk2.has_alphabeta);
        assert_int_equal(cuzk_vk_to_json(&vk2, &out, &len, &e), CUZK_ERR_USAGE);
        cuzk_err_clear(&e);
        memcpy(&vk2.alphabeta_12, &vk.alphabeta_12, sizeof vk.alphabeta_12);
        vk2.has_alphabeta = true;
        assert_int_equal(cuzk_vk_write_json(&vk2, T("vk.json"), &e), CUZK_OK);
        files_equal(vp, T("vk.json"));
        cuzk_vk_free(&vk2);
        cuzk_vk_free(&vk);
        cuzk_zkey_free(&zk);
        free(t);
        /* Only the three outputs are in the directory (no temp files). */
        assert_int_equal(count_dir_entries(fx_tmpdir), 3);
        unlink(T("proof.json"));
        unlink(T("public.json"));
        unlink(T("vk.json"));
    }
}

/* Replace the first occurrence of `from` with `to` in a copy of s. */
static char *replace(const char *s, const char *from, const char *to)
{
    const char *p = strstr(s, from);
    assert_non_null(p);
    size_t n = strlen(s) - strlen(from) + strlen(to);
    char *o = malloc(n + 1);
    size_t k = (size_t)(p - s);
    memcpy(o, s, k);
    strcpy(o + k, to);
    strcat(o, p + strlen(from));
    return o;
}

/* The decimal of a proof coordinate, with its last digit changed. */
static char *bump_last_digit(const char *s, const char *dec)
{
    char *d2 = strdup(dec);
    size_t l = strlen(d2);
    d2[l - 1] = d2[l - 1] == '9' ? '0' : (char)(d2[l - 1] + 1);
    char *o = replace(s, dec, d2);
    free(d2);
    return o;
}

static void expect_proof_err(const char *text, cuzk_curve c, cuzk_status code, const char *kw)
{
    cuzk_proof_points p;
    cuzk_error e = {0};
    expect_err(cuzk_proof_points_read_json_buffer(&p, text, strlen(text), "bad_proof.json", c, &e), &e, code,
               "bad_proof.json", kw);
}

static void test_json_malformed(void **state)
{
    (void)state;
    for (size_t f = 0; f < 2; f++) {
        size_t n;
        char *t = slurp(fx_path(&FX[f], "proof.json"), &n);
        cJSON *j = cJSON_Parse(t);
        const char *ax = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pi_a"), 0)->valuestring;
        const char *bx1 = cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pi_b"), 0), 1)->valuestring;
        char *m;
        m = bump_last_digit(t, ax);
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_INVALID_PROOF, "pi_a is not on the curve");
        free(m);
        m = bump_last_digit(t, bx1);
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_INVALID_PROOF, "pi_b is not on the curve");
        free(m);
        const cuzk_curve_desc *cp = cuzk_curve_desc_get(FX[f].curve);
        char q[200];
        limbs_dec(q, sizeof q, cp->q, cp->fq_limbs);
        m = replace(t, ax, q);
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_INVALID_PROOF, "pi_a.x is >= q");
        free(m);
        m = replace(t, ax, "12a4");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "pi_a.x is not a decimal string");
        free(m);
        m = replace(t, ax, "-1");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "not a decimal");
        free(m);
        m = replace(t, ax, "");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "not a decimal");
        free(m);
        /* z other than 1 or 0. */
        m = replace(t, "\"1\"\n ],\n \"pi_b\"", "\"2\"\n ],\n \"pi_b\"");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "pi_a: z must be");
        free(m);
        /* Curve: unknown name, mismatch with the caller's expectation. */
        m = replace(t, cp->snarkjs_name, "secp256k1");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_UNSUPPORTED, "wrong curve");
        free(m);
        expect_proof_err(t, f == 0 ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254, CUZK_ERR_MISMATCH, "wrong curve");
        m = replace(t, "groth16", "plonk");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "protocol");
        free(m);
        m = replace(t, "pi_c", "pi_x");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "missing pi_c");
        free(m);
        /* Syntax errors, trailing garbage, every truncation. */
        expect_proof_err("{\"pi_a\": [", CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "invalid JSON");
        m = replace(t, "\n}", "\n}x");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "trailing");
        free(m);
        for (size_t k = 0; k + 1 < n; k += 3) {
            cuzk_proof_points p;
            cuzk_error e = {0};
            expect_err(cuzk_proof_points_read_json_buffer(&p, t, k, "bad_proof.json", CUZK_CURVE_NONE, &e), &e,
                       CUZK_ERR_FORMAT, "bad_proof.json", NULL);
        }
        /* Infinity (z = 0) is accepted for every point; (0, 0, 1) is not. */
        cJSON *inf = cJSON_Duplicate(j, 1);
        cJSON_ReplaceItemInObject(inf, "pi_a", cJSON_CreateStringArray((const char *[]){"0", "1", "0"}, 3));
        char *it = cJSON_Print(inf);
        cuzk_proof_points p;
        cuzk_error e = {0};
        assert_int_equal(cuzk_proof_points_read_json_buffer(&p, it, strlen(it), "inf.json", CUZK_CURVE_NONE, &e), CUZK_OK);
        uint8_t zero[96] = {0};
        assert_memory_equal(&p.a, zero, cp->g1_affine);
        char *out;
        size_t len;
        assert_int_equal(cuzk_proof_points_to_json(&p, CUZK_JSON_SNARKJS, &out, &len, &e), CUZK_OK);
        assert_non_null(strstr(out, "\"pi_a\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ]"));
        free(out);
        free(it);
        cJSON_ReplaceItemInObject(inf, "pi_a", cJSON_CreateStringArray((const char *[]){"0", "0", "1"}, 3));
        it = cJSON_Print(inf);
        expect_proof_err(it, CUZK_CURVE_NONE, CUZK_ERR_INVALID_PROOF, "pi_a is not on the curve");
        free(it);
        cJSON_Delete(inf);
        cJSON_Delete(j);
        free(t);

        /* public.json */
        cuzk_public pb;
        char r[100];
        limbs_dec(r, sizeof r, cp->r, 4);
        char buf[300];
        snprintf(buf, sizeof buf, "[\"1\", \"%s\"]", r);
        expect_err(cuzk_public_read_json_buffer(&pb, buf, strlen(buf), "pub.json", FX[f].curve, &e), &e,
                   CUZK_ERR_FORMAT, "pub.json", "public signal 1 is >= r");
        cuzk_err_clear(&e);
        const char *bad[] = {"[\"1\", \"x\"]", "[\"1\", 5]", "[\"-3\"]", "[\"\"]", "{\"a\": \"1\"}",
                             "[\"1\" \"2\"]",
                             "[\"1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\"]"};
        const char *kw[] = {"signal 1 is not a decimal", "signal 1 is not a decimal", "not a decimal",
                            "not a decimal", "not a JSON array", "invalid JSON", "signal 0 is >= r"};
        for (size_t i = 0; i < CUZK_ARRAY_LEN(bad); i++) {
            expect_err(cuzk_public_read_json_buffer(&pb, bad[i], strlen(bad[i]), "pub.json", FX[f].curve, &e),
                       &e, CUZK_ERR_FORMAT, "pub.json", kw[i]);
            cuzk_err_clear(&e);
        }
        /* r - 1 is fine. */
        r[strlen(r) - 1]--; /* r's last digit is 7 (BN254) or 3 (BLS12-381) */
        snprintf(buf, sizeof buf, "[\"%s\"]", r);
        assert_int_equal(cuzk_public_read_json_buffer(&pb, buf, strlen(buf), "pub.json", FX[f].curve, &e), CUZK_OK);
        cuzk_public_free(&pb);

        /* verification_key.json */
        t = slurp(fx_path(&FX[f], "verification_key.json"), &n);
        cuzk_vk vk;
        m = replace(t, "\"nPublic\": 2", "\"nPublic\": 3");
        expect_err(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json", "IC");
        cuzk_err_clear(&e);
        free(m);
        m = replace(t, "\"nPublic\": 2", "\"nPublic\": 1.5");
        expect_err(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json", "nPublic");
        cuzk_err_clear(&e);
        free(m);
        m = replace(t, "\"protocol\": \"groth16\",\n", "");
        expect_err(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json", "protocol");
        cuzk_err_clear(&e);
        free(m);
        cJSON *vj = cJSON_Parse(t);
        const char *icx = cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(vj, "IC"), 1), 0)->valuestring;
        m = bump_last_digit(t, icx);
        expect_err(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json",
                   "IC[1] is not on the curve");
        cuzk_err_clear(&e);
        free(m);
        const char *ab = cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetArrayItem(cJSON_GetObjectItem(vj, "vk_alphabeta_12"), 1), 2), 1)->valuestring;
        m = replace(t, ab, q);
        expect_err(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json",
                   "vk_alphabeta_12[1][2][1] is >= q");
        cuzk_err_clear(&e);
        free(m);
        cJSON_Delete(vj);
        if (FX[f].curve == CUZK_CURVE_BLS12_381) {
            /* A G2 point on the curve but outside the subgroup as vk_delta_2. */
            bls12_381_g2_affine_t p2;
            bls_g2_off_subgroup(&p2);
            cuzk_vk v0;
            assert_int_equal(cuzk_vk_read_json_buffer(&v0, t, n, "vk.json", &e), CUZK_OK);
            memcpy(&v0.delta_2, &p2, sizeof p2);
            char *o;
            size_t ol;
            assert_int_equal(cuzk_vk_to_json(&v0, &o, &ol, &e), CUZK_OK);
            expect_err(cuzk_vk_read_json_buffer(&vk, o, ol, "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json",
                       "vk_delta_2 is not in the prime-order subgroup");
            cuzk_err_clear(&e);
            free(o);
            cuzk_vk_free(&v0);
        }
        free(t);
    }
}

/* JSON read as snarkjs reads it (JSON.parse), and inputs that are not
 * regular files or are larger than their kind can be. */
static char *prefix(const char *pre, const char *s)
{
    char *m = malloc(strlen(pre) + strlen(s) + 1);
    assert_non_null(m);
    strcpy(m, pre);
    strcat(m, s);
    return m;
}

static void test_json_as_snarkjs(void **state)
{
    (void)state;
    for (size_t f = 0; f < 2; f++) {
        size_t n;
        char *t = slurp(fx_path(&FX[f], "proof.json"), &n);
        cJSON *j = cJSON_Parse(t);
        const char *ax = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "pi_a"), 0)->valuestring;
        cuzk_proof_points ref, p;
        cuzk_error e = {0};
        assert_int_equal(cuzk_proof_points_read_json_buffer(&ref, t, n, "proof.json", CUZK_CURVE_NONE, &e), CUZK_OK);
        /* Round trip: what we write reads back to the same proof. */
        char *out;
        size_t len;
        assert_int_equal(cuzk_proof_points_to_json(&ref, CUZK_JSON_SNARKJS, &out, &len, &e), CUZK_OK);
        assert_int_equal(cuzk_proof_points_read_json_buffer(&p, out, len, "rt.json", CUZK_CURVE_NONE, &e), CUZK_OK);
        assert_memory_equal(&p, &ref, sizeof p);
        free(out);
        /* Byte-order mark, NUL (escaped and raw), raw control character. */
        char *m = prefix("\xef\xbb\xbf", t);
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "byte-order mark");
        free(m);
        char v[300];
        snprintf(v, sizeof v, "%s\\u00001", ax);
        m = replace(t, ax, v);
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "NUL");
        free(m);
        snprintf(v, sizeof v, "%sZ1", ax);
        m = replace(t, ax, v);
        *strstr(m, "Z1") = 0;
        expect_err(cuzk_proof_points_read_json_buffer(&p, m, strlen(t) + 2, "raw.json", CUZK_CURVE_NONE, &e), &e,
                   CUZK_ERR_FORMAT, "raw.json", "NUL byte");
        cuzk_err_clear(&e);
        free(m);
        m = replace(t, "\"protocol\"", "\"proto\x01col\"");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "control character");
        free(m);
        m = replace(t, "\"protocol\"", "\"pi_a\\u0000\"");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_FORMAT, "NUL");
        free(m);
        /* Duplicate keys: the last one counts (JavaScript). */
        m = replace(t, "{", "{\"pi_a\": [\"1\", \"5\", \"1\"],");
        assert_int_equal(cuzk_proof_points_read_json_buffer(&p, m, strlen(m), "dup.json", CUZK_CURVE_NONE, &e), CUZK_OK);
        assert_memory_equal(&p, &ref, sizeof p);
        free(m);
        m = replace(t, "\n}", ",\"pi_a\": [\"1\", \"5\", \"1\"]\n}");
        expect_proof_err(m, CUZK_CURVE_NONE, CUZK_ERR_INVALID_PROOF, "pi_a is not on the curve");
        free(m);
        /* Leading zeros past 400 digits, and \u escapes of digits: the same value. */
        char z[700];
        memset(z, '0', 450);
        snprintf(z + 450, sizeof z - 450, "%s", ax);
        m = replace(t, ax, z);
        assert_int_equal(cuzk_proof_points_read_json_buffer(&p, m, strlen(m), "zeros.json", CUZK_CURVE_NONE, &e), CUZK_OK);
        assert_memory_equal(&p, &ref, sizeof p);
        free(m);
        snprintf(v, sizeof v, "\\u00%x%s", ax[0], ax + 1);
        m = replace(t, ax, v);
        assert_int_equal(cuzk_proof_points_read_json_buffer(&p, m, strlen(m), "esc.json", CUZK_CURVE_NONE, &e), CUZK_OK);
        assert_memory_equal(&p, &ref, sizeof p);
        free(m);
        cJSON_Delete(j);
        free(t);

        /* public.json: the same rules without a tree. */
        const cuzk_curve c = FX[f].curve;
        cuzk_public pb;
        const char *ok = "[\"0001\", \"\\u0032\", \"000000000000000000000000000000000000000000000000000000000000"
                         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                         "000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
                         "0000000000000000000000000000000000000000000000000000000000000000000000000000000000003\"]";
        assert_int_equal(cuzk_public_read_json_buffer(&pb, ok, strlen(ok), "pub.json", c, &e), CUZK_OK);
        assert_int_equal(pb.n, 3);
        for (uint32_t i = 0; i < 3; i++) {
            const uint64_t *x = (const uint64_t *)pb.values.ptr + 4 * i;
            assert_true(x[0] == i + 1 && !x[1] && !x[2] && !x[3]);
        }
        cuzk_public_free(&pb);
        const char *bad[] = {"\xef\xbb\xbf[\"1\"]", "[\"1\\u0000\"]", "[\"1\", \"2\\u00001\"]", "[\"1\",]",
                             "[01]", "[\"1\"] x", "[\"\\u0031x\"]"};
        const char *kw[] = {"byte-order mark", "NUL", "NUL", "unexpected character",
                            "missing ','", "trailing", "signal 0 is not a decimal"};
        for (size_t i = 0; i < CUZK_ARRAY_LEN(bad); i++) {
            expect_err(cuzk_public_read_json_buffer(&pb, bad[i], strlen(bad[i]), "pub.json", c, &e), &e,
                       CUZK_ERR_FORMAT, "pub.json", kw[i]);
            cuzk_err_clear(&e);
        }

        /* verification_key.json: strict numbers, nesting, duplicate keys,
         * and a tree bounded by the text. */
        t = slurp(fx_path(&FX[f], "verification_key.json"), &n);
        cuzk_vk vk, vref;
        assert_int_equal(cuzk_vk_read_json_buffer(&vref, t, n, "vk.json", &e), CUZK_OK);
        const char *nums[] = {"02", "2.", "+2", ".5", "2e", "0x2"};
        for (size_t i = 0; i < CUZK_ARRAY_LEN(nums); i++) {
            snprintf(v, sizeof v, "\"nPublic\": %s", nums[i]);
            m = replace(t, "\"nPublic\": 2", v);
            expect_err(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json",
                       "invalid JSON");
            cuzk_err_clear(&e);
            free(m);
        }
        m = replace(t, "\"nPublic\": 2", "\"nPublic\": 2e0, \"nPublic\": 0.2e1");
        assert_int_equal(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), CUZK_OK);
        assert_int_equal(vk.n_public, 2);
        cuzk_vk_free(&vk);
        free(m);
        char deep[200];
        memset(deep, '[', 70);
        memset(deep + 70, ']', 70);
        deep[140] = 0;
        snprintf(v, sizeof v, "\"x\": %s, \"nPublic\"", deep);
        m = replace(t, "\"nPublic\"", v);
        expect_err(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json",
                   "nesting");
        cuzk_err_clear(&e);
        free(m);
        size_t nz = 300000;
        char *many = malloc(nz * 2 + 64);
        /* "x": [1,1,...,1] beside the key: 2 bytes a value. */
        char *w = many + sprintf(many, "\"x\": [");
        for (size_t i = 0; i < nz; i++, w += 2)
            memcpy(w, i + 1 < nz ? "1," : "1]", 2);
        strcpy(w, ", \"nPublic\"");
        m = replace(t, "\"nPublic\"", many);
        expect_err(cuzk_vk_read_json_buffer(&vk, m, strlen(m), "vk.json", &e), &e, CUZK_ERR_FORMAT, "vk.json",
                   "JSON values");
        cuzk_err_clear(&e);
        free(m);
        free(many);
        cuzk_vk_free(&vref);
        free(t);
    }
}

static void test_inputs_not_regular(void **state)
{
    (void)state;
    /* A 112-byte r1cs declaring 2^24 wires, no wire map, one empty
     * constraint: refused before anything proportional to 2^24 exists. */
    uint8_t b[112] = {0}, *q = b;
    memcpy(q, "r1cs", 4);
    fmt_wr32(q + 4, 1);
    fmt_wr32(q + 8, 2);
    fmt_wr32(q + 12, 1);
    fmt_wr64(q + 16, 64);
    fmt_wr32(q + 24, 32);
    fmt_limbs_to_bytes(q + 28, cuzk_curve_desc_get(CUZK_CURVE_BN254)->r, 32);
    fmt_wr32(q + 60, 1u << 24);
    fmt_wr32(q + 84, 1);     /* nConstraints */
    fmt_wr32(q + 88, 2);     /* section 2: 3 empty term lists */
    fmt_wr64(q + 92, 12);
    cuzk_r1cs r1;
    cuzk_error e1 = {0};
    expect_err(cuzk_r1cs_read_buffer(&r1, b, sizeof b, "wires.r1cs", &e1), &e1, CUZK_ERR_FORMAT,
               "wires.r1cs", "no wire map");

    const char *fifo = T("in.fifo");
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    const char *paths[] = {fifo, "/dev/zero", fx_tmpdir};
    const char *kinds[] = {"a FIFO", "a character device", "a directory"};
    for (int i = 0; i < 3; i++) {
        cuzk_error e = {0};
        cuzk_zkey zk;
        cuzk_r1cs r;
        cuzk_wtns w;
        cuzk_vk vk;
        cuzk_proof_points p;
        cuzk_public pb;
        expect_err(cuzk_zkey_read(&zk, paths[i], NULL, &e), &e, CUZK_ERR_IO, paths[i], kinds[i]);
        cuzk_err_clear(&e);
        expect_err(cuzk_r1cs_read(&r, paths[i], &e), &e, CUZK_ERR_IO, paths[i], kinds[i]);
        cuzk_err_clear(&e);
        expect_err(cuzk_wtns_read(&w, paths[i], &e), &e, CUZK_ERR_IO, paths[i], kinds[i]);
        cuzk_err_clear(&e);
        expect_err(cuzk_vk_read_json(&vk, paths[i], &e), &e, CUZK_ERR_IO, paths[i], kinds[i]);
        cuzk_err_clear(&e);
        expect_err(cuzk_proof_points_read_json(&p, paths[i], CUZK_CURVE_NONE, &e), &e, CUZK_ERR_IO, paths[i], kinds[i]);
        cuzk_err_clear(&e);
        expect_err(cuzk_public_read_json(&pb, paths[i], CUZK_CURVE_BN254, &e), &e, CUZK_ERR_IO, paths[i], kinds[i]);
    }
    unlink(fifo);
    /* A proof file larger than a proof can be (valid JSON: white space). */
    size_t n;
    char *t = slurp(fx_path(&FX[0], "proof.json"), &n);
    const char *big = T("big_proof.json");
    FILE *fp = fopen(big, "wb");
    assert_non_null(fp);
    fwrite(t, 1, n, fp);
    for (int i = 0; i < 70000; i++)
        fputc(' ', fp);
    fclose(fp);
    cuzk_proof_points p;
    cuzk_error e = {0};
    expect_err(cuzk_proof_points_read_json(&p, big, CUZK_CURVE_NONE, &e), &e, CUZK_ERR_FORMAT, big,
               "more than a proof can hold");
    unlink(big);
    free(t);
}

static void test_atomic_write(void **state)
{
    (void)state;
    cuzk_error e = {0};
    expect_err(cuzk_write_file_atomic("/nonexistent-dir/x.json", "x", 1, &e), &e, CUZK_ERR_IO,
               "/nonexistent-dir/x.json", NULL);
    cuzk_err_clear(&e);
    const char *p = T("a.txt");
    assert_int_equal(cuzk_write_file_atomic(p, "hello", 5, &e), CUZK_OK);
    assert_int_equal(cuzk_write_file_atomic(p, "bye", 3, &e), CUZK_OK);
    size_t n;
    uint8_t *b = (uint8_t *)slurp(p, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(b, "bye", 3);
    free(b);
    /* An aborted writer leaves the old file and no temp file. */
    cuzk_afile f;
    assert_int_equal(cuzk_afile_open(&f, p, &e), CUZK_OK);
    cuzk_afile_write(&f, "partial", 7);
    cuzk_afile_abort(&f);
    b = (uint8_t *)slurp(p, &n);
    assert_int_equal(n, 3);
    free(b);
    assert_int_equal(count_dir_entries(fx_tmpdir), 1);
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_true((sb.st_mode & 0444) == 0444 || (sb.st_mode & 0400)); /* readable per umask */
    unlink(p);
}

static int setup_all(void **state)
{
    if (fx_setup("formats"))
        return -1;
    *state = cuzk_pool_create(2);
    return *state ? 0 : -1;
}

static int teardown_all(void **state)
{
    cuzk_pool_destroy(*state);
    return fx_teardown();
}

/* cuzk_public_count_json: the streamed count agrees with the full read on
 * plain arrays (also across its 64 KiB reads) and gives up (SIZE_MAX) on
 * anything else, leaving the judgement to the full read. */
static void test_public_count(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        size_t n;
    } cases[] = {
        {"[\n \"13172544000\",\n \"5\"\n]", 2}, {"[]", 0}, {" \t[ ]\r\n", 0}, {"[\"1\",\"2\",\"3\"]", 3},
        {"[\"1\", \"\\u0032\"]", SIZE_MAX}, {"{\"a\": \"1\"}", SIZE_MAX}, {"[\"1\",]", SIZE_MAX},
        {"[\"1\"] x", SIZE_MAX}, {"[\"1\"", SIZE_MAX}, {"[\"\"]", SIZE_MAX}, {"[1]", SIZE_MAX},
        {"\xef\xbb\xbf[\"1\"]", SIZE_MAX}, {"", SIZE_MAX},
    };
    cuzk_error e = {0};
    for (size_t i = 0; i < CUZK_ARRAY_LEN(cases); i++) {
        FILE *f = fopen(T("count.json"), "w");
        assert_non_null(f);
        fputs(cases[i].text, f);
        fclose(f);
        size_t n = 0;
        assert_int_equal(cuzk_public_count_json(T("count.json"), &n, &e), CUZK_OK);
        if (n != cases[i].n)
            fail_msg("case %zu (%s): counted %zu, expected %zu", i, cases[i].text, n, cases[i].n);
        if (n != SIZE_MAX) {
            cuzk_public pb;
            assert_int_equal(cuzk_public_read_json(&pb, T("count.json"), CUZK_CURVE_BN254, &e), CUZK_OK);
            assert_int_equal(pb.n, n);
            cuzk_public_free(&pb);
        }
    }
    /* 200000 signals of 1..6 digits: the pieces end inside strings and between them. */
    FILE *f = fopen(T("count.json"), "w");
    assert_non_null(f);
    fputc('[', f);
    for (unsigned i = 0; i < 200000; i++)
        fprintf(f, "%s\"%u\"", i ? (i % 3 ? "," : ",\n ") : "", i * 7 % 999983u);
    fputs("]\n", f);
    fclose(f);
    size_t n = 0;
    assert_int_equal(cuzk_public_count_json(T("count.json"), &n, &e), CUZK_OK);
    assert_int_equal(n, 200000);
    cuzk_public pb;
    assert_int_equal(cuzk_public_read_json(&pb, T("count.json"), CUZK_CURVE_BN254, &e), CUZK_OK);
    assert_int_equal(pb.n, 200000);
    cuzk_public_free(&pb);
    /* Errors: a missing file (IO). */
    assert_int_equal(cuzk_public_count_json(T("missing.json"), &n, &e), CUZK_ERR_IO);
    assert_non_null(strstr(e.msg, "missing.json"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_curve_params),
        cmocka_unit_test(test_binfile),
        cmocka_unit_test(test_binfile_copy),
        cmocka_unit_test(test_r1cs_fixtures),
        cmocka_unit_test(test_r1cs_malformed),
        cmocka_unit_test(test_r1cs_writer),
        cmocka_unit_test(test_wtns_fixtures),
        cmocka_unit_test(test_wtns_first_failing_constraint),
        cmocka_unit_test(test_wtns_malformed),
        cmocka_unit_test(test_zkey_fixtures),
        cmocka_unit_test(test_point_check_blocks),
        cmocka_unit_test(test_zkey_section_order),
        cmocka_unit_test(test_zkey_malformed),
        cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_json_malformed),
        cmocka_unit_test(test_json_as_snarkjs),
        cmocka_unit_test(test_inputs_not_regular),
        cmocka_unit_test(test_atomic_write),
        cmocka_unit_test(test_public_count),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
