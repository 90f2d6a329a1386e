/* bellperson files (src/formats/bellperson.c): point codec round trips and
 * every flag/range/curve/subgroup rejection, .vk and .params writers and
 * readers (truncations at every length, every single-bit flip of a small
 * VK, oversize, counts, checked vs unchecked mode, identity rules), the
 * 192-byte proof codec, the file-shrank check, and the Blake2b-512 digest
 * against the RFC 7693 test vector. The encoding itself is cross-checked
 * against @noble/curves by tests/interop/bellperson_noble.mjs. The public
 * verification API runs on tests/data/bellperson (a snarkjs proof
 * re-encoded by @noble/curves). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "cuzk/bellperson.h"
#include "formats/bellperson.h"
#include "util/threadpool.h"

#include "test_util.h"

typedef bls12_381_g1_affine_t g1_t;
typedef bls12_381_g2_affine_t g2_t;

static void rand_scalar(test_rng *g, uint64_t k[4])
{
    for (int i = 0; i < 4; i++)
        k[i] = rng_next(g);
    k[3] >>= 2; /* < 2^254: any value works for a random multiple */
}

static void rand_g1(test_rng *g, g1_t *p)
{
    uint64_t k[4];
    rand_scalar(g, k);
    bls12_381_g1_jac_t j;
    bls12_381_g1_affine_mul(&j, &bls12_381_g1_GENERATOR, k, 4);
    bls12_381_g1_jac_to_affine(p, &j);
}

static void rand_g2(test_rng *g, g2_t *p)
{
    uint64_t k[4];
    rand_scalar(g, k);
    bls12_381_g2_jac_t j;
    bls12_381_g2_affine_mul(&j, &bls12_381_g2_GENERATOR, k, 4);
    bls12_381_g2_jac_to_affine(p, &j);
}

static void rand_fp(test_rng *g, bls12_381_fp_t *x)
{
    bls12_381_fp_t raw;
    do {
        for (int i = 0; i < 6; i++)
            raw.l[i] = rng_next(g);
        raw.l[5] >>= 3;
    } while (!bls12_381_fp_raw_is_canonical(&raw));
    bls12_381_fp_to_mont(x, &raw);
}

/* A point on the curve outside the prime-order subgroup (the cofactor is
 * large, so a random curve point is one). */
static void off_subgroup_g1(test_rng *g, g1_t *p)
{
    for (;;) {
        bls12_381_fp_t r;
        rand_fp(g, &p->x);
        bls12_381_fp_sqr(&r, &p->x);
        bls12_381_fp_mul(&r, &r, &p->x);
        bls12_381_fp_add(&r, &r, &bls12_381_g1_B);
        if (bls12_381_fp_sqrt(&p->y, &r) && !bls12_381_g1_affine_in_subgroup(p))
            return;
    }
}

static void off_subgroup_g2(test_rng *g, g2_t *p)
{
    for (;;) {
        bls12_381_fp2_t r;
        rand_fp(g, &p->x.c0);
        rand_fp(g, &p->x.c1);
        bls12_381_fp2_sqr(&r, &p->x);
        bls12_381_fp2_mul(&r, &r, &p->x);
        bls12_381_fp2_add(&r, &r, &bls12_381_g2_B);
        if (bls12_381_fp2_sqrt(&p->y, &r) && !bls12_381_g2_affine_in_subgroup(p))
            return;
    }
}

static void one_line(const cuzk_error *e)
{
    assert_true(e->msg[0] != 0);
    assert_null(strchr(e->msg, '\n'));
}

/* ---- points -------------------------------------------------------------------- */

static void test_point_roundtrip(void **state)
{
    (void)state;
    test_rng g = {1};
    for (int it = 0; it < 40; it++) {
        g1_t p, q;
        g2_t P, Q;
        rand_g1(&g, &p);
        rand_g2(&g, &P);
        if (it == 0) {
            bls12_381_g1_affine_set_inf(&p);
            bls12_381_g2_affine_set_inf(&P);
        }
        uint8_t b[192];
        for (int c = 0; c < 2; c++) {
            cuzk_bp_g1_encode(b, &p, c);
            assert_int_equal(b[0] & 0x80, c ? 0x80 : 0);
            assert_int_equal(cuzk_bp_g1_decode(&q, b, c, true), CUZK_BP_PT_OK);
            assert_true(bls12_381_g1_affine_eq(&p, &q));
            cuzk_bp_g2_encode(b, &P, c);
            assert_int_equal(cuzk_bp_g2_decode(&Q, b, c, true), CUZK_BP_PT_OK);
            assert_true(bls12_381_g2_affine_eq(&P, &Q));
        }
        if (it == 0) {
            /* Infinity: exactly the flag byte then zeros. */
            cuzk_bp_g1_encode(b, &p, true);
            assert_int_equal(b[0], 0xc0);
            cuzk_bp_g1_encode(b, &p, false);
            assert_int_equal(b[0], 0x40);
            continue;
        }
        /* The sort bit picks the other root: -P. */
        g1_t np;
        g2_t nP;
        bls12_381_g1_affine_neg(&np, &p);
        bls12_381_g2_affine_neg(&nP, &P);
        cuzk_bp_g1_encode(b, &p, true);
        b[0] ^= 0x20;
        assert_int_equal(cuzk_bp_g1_decode(&q, b, true, true), CUZK_BP_PT_OK);
        assert_true(bls12_381_g1_affine_eq(&np, &q));
        cuzk_bp_g2_encode(b, &P, true);
        b[0] ^= 0x20;
        assert_int_equal(cuzk_bp_g2_decode(&Q, b, true, true), CUZK_BP_PT_OK);
        assert_true(bls12_381_g2_affine_eq(&nP, &Q));
    }
}

static void test_point_reject(void **state)
{
    (void)state;
    test_rng g = {2};
    g1_t p, q;
    g2_t P, Q;
    rand_g1(&g, &p);
    rand_g2(&g, &P);
    uint8_t b[192], t[192];

    /* Compression bit disagreeing with the length. */
    cuzk_bp_g1_encode(b, &p, false);
    memcpy(t, b, 96);
    t[0] |= 0x80;
    assert_int_equal(cuzk_bp_g1_decode(&q, t, false, false), CUZK_BP_PT_FLAGS);
    cuzk_bp_g1_encode(b, &p, true);
    memcpy(t, b, 48);
    t[0] &= 0x7f;
    assert_int_equal(cuzk_bp_g1_decode(&q, t, true, false), CUZK_BP_PT_FLAGS);
    /* Sort bit on an uncompressed point. */
    cuzk_bp_g1_encode(b, &p, false);
    b[0] |= 0x20;
    assert_int_equal(cuzk_bp_g1_decode(&q, b, false, false), CUZK_BP_PT_FLAGS);
    cuzk_bp_g2_encode(b, &P, false);
    b[0] |= 0x20;
    assert_int_equal(cuzk_bp_g2_decode(&Q, b, false, false), CUZK_BP_PT_FLAGS);
    /* Non-canonical infinities: sort bit, any other bit. */
    for (int c = 0; c < 2; c++) {
        size_t n1 = c ? 48 : 96, n2 = c ? 96 : 192;
        memset(b, 0, sizeof b);
        b[0] = c ? 0xe0 : 0x60;
        assert_int_equal(cuzk_bp_g1_decode(&q, b, c, false), CUZK_BP_PT_FLAGS);
        assert_int_equal(cuzk_bp_g2_decode(&Q, b, c, false), CUZK_BP_PT_FLAGS);
        b[0] = c ? 0xc0 : 0x40;
        b[n1 - 1] = 1;
        assert_int_equal(cuzk_bp_g1_decode(&q, b, c, false), CUZK_BP_PT_FLAGS);
        b[n1 - 1] = 0;
        b[n2 - 1] = 1;
        assert_int_equal(cuzk_bp_g2_decode(&Q, b, c, false), CUZK_BP_PT_FLAGS);
        b[n2 - 1] = 0;
        b[0] |= 0x01;
        assert_int_equal(cuzk_bp_g1_decode(&q, b, c, false), CUZK_BP_PT_FLAGS);
        /* All zero: no infinity flag, (0, 0) is not on the curve. */
        memset(b, 0, sizeof b);
        if (c)
            b[0] = 0x80; /* x = 0: 4 = 2^2 is a square, so this one decodes (0, ±2) */
        int why = cuzk_bp_g1_decode(&q, b, c, false);
        assert_int_equal(why, c ? CUZK_BP_PT_OK : CUZK_BP_PT_CURVE);
        if (c)
            assert_int_equal(cuzk_bp_g1_decode(&q, b, c, true), CUZK_BP_PT_SUBGROUP);
    }
    /* x = p: out of range (both encodings), and y = p. */
    static const uint8_t P_BE[48] = {0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6,
                                     0x43, 0x4b, 0xac, 0xd7, 0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf,
                                     0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24, 0x1e, 0xab, 0xff, 0xfe,
                                     0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab};
    cuzk_bp_g1_encode(b, &p, false);
    memcpy(t, b, 96);
    memcpy(t, P_BE, 48);
    assert_int_equal(cuzk_bp_g1_decode(&q, t, false, false), CUZK_BP_PT_RANGE);
    memcpy(t, b, 96);
    memcpy(t + 48, P_BE, 48);
    assert_int_equal(cuzk_bp_g1_decode(&q, t, false, false), CUZK_BP_PT_RANGE);
    memcpy(t, P_BE, 48);
    t[0] |= 0x80;
    assert_int_equal(cuzk_bp_g1_decode(&q, t, true, false), CUZK_BP_PT_RANGE);
    cuzk_bp_g2_encode(b, &P, false);
    for (int k = 0; k < 4; k++) {
        memcpy(t, b, 192);
        memcpy(t + 48 * k, P_BE, 48);
        assert_int_equal(cuzk_bp_g2_decode(&Q, t, false, false), CUZK_BP_PT_RANGE);
    }
    /* Off the curve: y + 1 (last byte); compressed x with a non-square rhs. */
    cuzk_bp_g1_encode(b, &p, false);
    b[95] ^= 1;
    assert_int_equal(cuzk_bp_g1_decode(&q, b, false, false), CUZK_BP_PT_CURVE);
    cuzk_bp_g2_encode(b, &P, false);
    b[191] ^= 1;
    assert_int_equal(cuzk_bp_g2_decode(&Q, b, false, false), CUZK_BP_PT_CURVE);
    int non_square = 0;
    for (int k = 0; k < 64; k++) {
        cuzk_bp_g1_encode(b, &p, true);
        b[47] = (uint8_t)k;
        non_square += cuzk_bp_g1_decode(&q, b, true, false) == CUZK_BP_PT_CURVE;
    }
    assert_true(non_square > 10 && non_square < 54); /* about half */
    /* Off the subgroup: accepted unchecked, rejected checked. */
    off_subgroup_g1(&g, &p);
    off_subgroup_g2(&g, &P);
    for (int c = 0; c < 2; c++) {
        cuzk_bp_g1_encode(b, &p, c);
        assert_int_equal(cuzk_bp_g1_decode(&q, b, c, false), CUZK_BP_PT_OK);
        assert_true(bls12_381_g1_affine_eq(&p, &q));
        assert_int_equal(cuzk_bp_g1_decode(&q, b, c, true), CUZK_BP_PT_SUBGROUP);
        cuzk_bp_g2_encode(b, &P, c);
        assert_int_equal(cuzk_bp_g2_decode(&Q, b, c, false), CUZK_BP_PT_OK);
        assert_true(bls12_381_g2_affine_eq(&P, &Q));
        assert_int_equal(cuzk_bp_g2_decode(&Q, b, c, true), CUZK_BP_PT_SUBGROUP);
    }
}

/* ---- VK ------------------------------------------------------------------------ */

static void rand_vk(test_rng *g, cuzk_bp_vk *vk, uint32_t n_ic)
{
    assert_int_equal(cuzk_bp_vk_alloc(vk, n_ic, NULL), CUZK_OK);
    rand_g1(g, &vk->alpha_g1);
    rand_g1(g, &vk->beta_g1);
    rand_g1(g, &vk->delta_g1);
    rand_g2(g, &vk->beta_g2);
    rand_g2(g, &vk->gamma_g2);
    rand_g2(g, &vk->delta_g2);
    for (uint32_t i = 0; i < n_ic; i++)
        rand_g1(g, &vk->ic[i]);
}

static bool vk_eq(const cuzk_bp_vk *a, const cuzk_bp_vk *b)
{
    if (a->n_ic != b->n_ic || !bls12_381_g1_affine_eq(&a->alpha_g1, &b->alpha_g1) ||
        !bls12_381_g1_affine_eq(&a->beta_g1, &b->beta_g1) || !bls12_381_g1_affine_eq(&a->delta_g1, &b->delta_g1) ||
        !bls12_381_g2_affine_eq(&a->beta_g2, &b->beta_g2) || !bls12_381_g2_affine_eq(&a->gamma_g2, &b->gamma_g2) ||
        !bls12_381_g2_affine_eq(&a->delta_g2, &b->delta_g2))
        return false;
    for (uint32_t i = 0; i < a->n_ic; i++)
        if (!bls12_381_g1_affine_eq(&a->ic[i], &b->ic[i]))
            return false;
    return true;
}

static void test_vk(void **state)
{
    (void)state;
    test_rng g = {3};
    cuzk_bp_vk vk, back;
    rand_vk(&g, &vk, 2);
    bls12_381_g1_affine_set_inf(&vk.beta_g1); /* identity allowed outside IC */
    size_t n = (size_t)cuzk_bp_vk_size(2);
    assert_int_equal(n, 868 + 192);
    uint8_t *b = malloc(n + 1);
    assert_int_equal(cuzk_bp_vk_encode(&vk, b, NULL), CUZK_OK);
    uint64_t used = 0;
    assert_int_equal(cuzk_bp_vk_parse(&back, b, n, true, "k.vk", NULL, &used, NULL), CUZK_OK);
    assert_int_equal(used, n);
    assert_true(vk_eq(&vk, &back));
    cuzk_bp_vk_free(&back);

    /* Every truncation and one extra byte. */
    for (size_t len = 0; len <= n + 1; len++) {
        if (len == n)
            continue;
        cuzk_error e = {0};
        b[n] = 0;
        assert_int_equal(cuzk_bp_vk_parse(&back, b, len, true, "k.vk", NULL, NULL, &e), CUZK_ERR_FORMAT);
        one_line(&e);
        assert_non_null(strstr(e.msg, "k.vk: "));
    }
    /* Every single-bit flip is rejected (no flip of a point's x lands on
     * the curve except with negligible probability; flips of the count
     * change the size). */
    for (size_t i = 0; i < n; i++)
        for (int bit = 0; bit < 8; bit++) {
            /* All bits of flag bytes and of the count, one bit elsewhere
             * (keeps the test fast; the bit moves from byte to byte). */
            bool flag_byte = i < 868 ? (i % 96 == 0) : ((i - 868) % 96 == 0);
            bool count = i >= 864 && i < 868;
            if (!flag_byte && !count && bit != (int)(i % 8))
                continue;
            b[i] ^= (uint8_t)(1u << bit);
            cuzk_error e = {0};
            cuzk_status st = cuzk_bp_vk_parse(&back, b, n, true, "k.vk", NULL, NULL, &e);
            if (st == CUZK_OK) {
                /* Only possible: flipping y's sign is not a single bit, so never. */
                print_error("flip at byte %zu bit %d accepted\n", i, bit);
                fail();
            }
            assert_int_equal(st, CUZK_ERR_FORMAT);
            one_line(&e);
            b[i] ^= (uint8_t)(1u << bit);
        }
    /* Identity IC rejected; non-subgroup VK point rejected. */
    cuzk_bp_vk bad = vk;
    g1_t ic[2];
    bad.ic = ic;
    ic[0] = vk.ic[0];
    bls12_381_g1_affine_set_inf(&ic[1]);
    cuzk_error e = {0};
    assert_int_equal(cuzk_bp_vk_encode(&bad, b, &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_bp_vk_encode(&vk, b, NULL), CUZK_OK);
    memset(b + 868 + 96, 0, 96);
    b[868 + 96] = 0x40;
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_vk_parse(&back, b, n, true, "k.vk", NULL, NULL, &e), CUZK_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "IC point 1 is the point at infinity"));
    g2_t P;
    off_subgroup_g2(&g, &P);
    assert_int_equal(cuzk_bp_vk_encode(&vk, b, NULL), CUZK_OK);
    cuzk_bp_g2_encode(b + 384, &P, false);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_vk_parse(&back, b, n, true, "k.vk", NULL, NULL, &e), CUZK_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "gamma_g2 is not in the prime-order subgroup"));

    /* File round trip, and cuzk_bp_vk_read_any on a .vk. */
    char path[] = "/tmp/cuzk_test_bp_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(cuzk_bp_vk_write(&vk, path, NULL), CUZK_OK);
    bool is_params = true;
    assert_int_equal(cuzk_bp_vk_read_any(&back, path, NULL, &is_params, NULL), CUZK_OK);
    assert_false(is_params);
    assert_true(vk_eq(&vk, &back));
    cuzk_bp_vk_free(&back);
    unlink(path);
    free(b);
    cuzk_bp_vk_free(&vk);
}

/* ---- .params ------------------------------------------------------------------------ */

static const uint32_t CNT[5] = {3, 2, 3, 2, 2};

typedef struct {
    cuzk_bp_vk vk;
    g1_t g1[4][3];
    g2_t g2[2];
} small_params;

static void make_small(test_rng *g, small_params *sp)
{
    rand_vk(g, &sp->vk, 2);
    for (int s = 0; s < 4; s++)
        for (uint32_t i = 0; i < CNT[s]; i++)
            rand_g1(g, &sp->g1[s][i]);
    for (uint32_t i = 0; i < CNT[4]; i++)
        rand_g2(g, &sp->g2[i]);
}

static cuzk_status write_small(const small_params *sp, const char *path, cuzk_pool *pool, cuzk_error *err)
{
    cuzk_bp_params_writer w;
    cuzk_status st = cuzk_bp_params_writer_open(&w, path, &sp->vk, pool, err);
    for (int s = 0; !st && s < 5; s++) {
        st = cuzk_bp_params_writer_section(&w, (cuzk_bp_section_id)s, CNT[s], err);
        /* Chunks of one point, then the rest: the writer streams. */
        if (!st && s < 4)
            st = cuzk_bp_params_writer_g1(&w, sp->g1[s], 1, err);
        if (!st && s < 4)
            st = cuzk_bp_params_writer_g1(&w, sp->g1[s] + 1, CNT[s] - 1, err);
        if (!st && s == 4)
            st = cuzk_bp_params_writer_g2(&w, sp->g2, CNT[s], err);
    }
    if (!st)
        st = cuzk_bp_params_writer_finish(&w, err);
    cuzk_bp_params_writer_abort(&w);
    return st;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*n + 16);
    assert_int_equal(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

static void test_params(void **state)
{
    (void)state;
    test_rng g = {4};
    cuzk_pool *pool = cuzk_pool_create(3);
    assert_non_null(pool);
    small_params sp;
    make_small(&g, &sp);
    char path[] = "/tmp/cuzk_test_bp_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(write_small(&sp, path, pool, NULL), CUZK_OK);
    size_t n;
    uint8_t *b = slurp(path, &n);
    assert_int_equal(n, cuzk_bp_params_size(2, CNT));
    assert_int_equal(n, 868 + 192 + 20 + 96 * 10 + 192 * 2);

    for (int checked = 0; checked < 2; checked++) {
        cuzk_bp_params p;
        cuzk_bp_params_opts o = {.checked = checked, .check_points = true, .pool = pool};
        assert_int_equal(cuzk_bp_params_open(&p, path, &o, NULL), CUZK_OK);
        assert_true(vk_eq(&p.vk, &sp.vk));
        unsigned lg = 0;
        assert_int_equal(cuzk_bp_params_domain(&p, &lg), 4);
        assert_int_equal(lg, 2);
        for (int s = 0; s < 5; s++) {
            assert_int_equal(p.sec[s].count, CNT[s]);
            assert_ptr_equal(p.sec[s].data, p.file.data + p.sec[s].offset);
        }
        for (int s = 0; s < 4; s++) {
            g1_t out[3];
            assert_int_equal(cuzk_bp_params_g1(&p, (cuzk_bp_section_id)s, 0, CNT[s], out, pool, NULL), CUZK_OK);
            for (uint32_t i = 0; i < CNT[s]; i++)
                assert_true(bls12_381_g1_affine_eq(&out[i], &sp.g1[s][i]));
            /* One point, from the middle. */
            assert_int_equal(cuzk_bp_params_g1(&p, (cuzk_bp_section_id)s, 1, 1, out, NULL, NULL), CUZK_OK);
            assert_true(bls12_381_g1_affine_eq(&out[0], &sp.g1[s][1]));
        }
        g2_t o2[2];
        assert_int_equal(cuzk_bp_params_g2(&p, CUZK_BP_B_G2, 0, 2, o2, NULL, NULL), CUZK_OK);
        assert_true(bls12_381_g2_affine_eq(&o2[1], &sp.g2[1]));
        /* Misuse: range, wrong group. */
        cuzk_error e = {0};
        assert_int_equal(cuzk_bp_params_g1(&p, CUZK_BP_L, 1, 2, (g1_t *)o2, NULL, &e), CUZK_ERR_USAGE);
        e = (cuzk_error){0};
        assert_int_equal(cuzk_bp_params_g1(&p, CUZK_BP_B_G2, 0, 1, (g1_t *)o2, NULL, &e), CUZK_ERR_USAGE);
        cuzk_bp_params_close(&p);
    }
    /* .params is also a source of the VK. */
    cuzk_bp_vk vk;
    bool is_params = false;
    assert_int_equal(cuzk_bp_vk_read_any(&vk, path, NULL, &is_params, NULL), CUZK_OK);
    assert_true(is_params);
    assert_true(vk_eq(&vk, &sp.vk));
    cuzk_bp_vk_free(&vk);
    cuzk_error e = {0};
    assert_int_equal(cuzk_bp_vk_read(&vk, path, NULL, &e), CUZK_ERR_FORMAT); /* not a .vk */
    one_line(&e);

    /* Every truncation, and one byte too many. */
    for (size_t len = 0; len <= n + 1; len++) {
        if (len == n)
            continue;
        cuzk_bp_params p;
        e = (cuzk_error){0};
        b[n] = 0;
        assert_int_equal(cuzk_bp_params_open_buffer(&p, b, len, "t.params", NULL, &e), CUZK_ERR_FORMAT);
        one_line(&e);
        assert_non_null(strstr(e.msg, "t.params: "));
    }
    /* Every bit of every section count; huge counts cannot overflow. */
    uint64_t off = 1060;
    for (int s = 0; s < 5; s++) {
        for (int bit = 0; bit < 32; bit++) {
            b[off + 3 - bit / 8] ^= (uint8_t)(1u << (bit % 8));
            cuzk_bp_params p;
            e = (cuzk_error){0};
            assert_int_equal(cuzk_bp_params_open_buffer(&p, b, n, "t.params", NULL, &e), CUZK_ERR_FORMAT);
            one_line(&e);
            b[off + 3 - bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        off += 4 + (uint64_t)CNT[s] * (s == 4 ? 192 : 96);
    }
    /* Section points: a flipped bit in any point is found by a decode in
     * either mode (a flip leaves the curve). */
    for (size_t i = 1060; i < n; i += 7) {
        b[i] ^= 0x10;
        cuzk_bp_params p;
        e = (cuzk_error){0};
        cuzk_bp_params_opts o = {.check_points = true};
        cuzk_status st = cuzk_bp_params_open_buffer(&p, b, n, "t.params", &o, &e);
        bool count_byte = false;
        for (int s = 0, o2 = 1060; s < 5; o2 += 4 + (int)CNT[s] * (s == 4 ? 192 : 96), s++)
            count_byte |= i >= (size_t)o2 && i < (size_t)o2 + 4;
        assert_int_equal(st, CUZK_ERR_FORMAT);
        one_line(&e);
        if (!count_byte)
            assert_non_null(strstr(e.msg, "section "));
        b[i] ^= 0x10;
    }
    /* Checked vs unchecked: an off-subgroup point in L; identity in A. */
    small_params sp2 = sp;
    off_subgroup_g1(&g, &sp2.g1[CUZK_BP_L][1]);
    assert_int_equal(write_small(&sp2, path, NULL, NULL), CUZK_OK);
    for (int checked = 0; checked < 2; checked++) {
        cuzk_bp_params p;
        cuzk_bp_params_opts o = {.checked = checked};
        assert_int_equal(cuzk_bp_params_open(&p, path, &o, NULL), CUZK_OK); /* lazy: structure only */
        g1_t out[2];
        e = (cuzk_error){0};
        cuzk_status st = cuzk_bp_params_g1(&p, CUZK_BP_L, 0, 2, out, NULL, &e);
        if (checked) {
            assert_int_equal(st, CUZK_ERR_FORMAT);
            assert_non_null(strstr(e.msg, "section L point 1 is not in the prime-order subgroup"));
        } else {
            assert_int_equal(st, CUZK_OK);
            assert_true(bls12_381_g1_affine_eq(&out[1], &sp2.g1[CUZK_BP_L][1]));
        }
        cuzk_bp_params_close(&p);
        o.check_points = true;
        e = (cuzk_error){0};
        assert_int_equal(cuzk_bp_params_open(&p, path, &o, &e), checked ? CUZK_ERR_FORMAT : CUZK_OK);
        cuzk_bp_params_close(&p);
    }
    /* The writer refuses the identity; a file holding one is refused by
     * both modes. */
    sp2 = sp;
    bls12_381_g1_affine_set_inf(&sp2.g1[CUZK_BP_A][2]);
    e = (cuzk_error){0};
    assert_int_equal(write_small(&sp2, path, NULL, &e), CUZK_ERR_USAGE);
    one_line(&e);
    size_t a2 = 1060 + 4 + 3 * 96 + 4 + 2 * 96 + 4 + 2 * 96; /* A point 2 */
    uint8_t save[96];
    memcpy(save, b + a2, 96);
    memset(b + a2, 0, 96);
    b[a2] = 0x40;
    for (int checked = 0; checked < 2; checked++) {
        cuzk_bp_params p;
        cuzk_bp_params_opts o = {.checked = checked, .check_points = true};
        e = (cuzk_error){0};
        assert_int_equal(cuzk_bp_params_open_buffer(&p, b, n, "t.params", &o, &e), CUZK_ERR_FORMAT);
        assert_non_null(strstr(e.msg, "section A point 2 is the point at infinity"));
    }
    memcpy(b + a2, save, 96);

    /* Writer misuse: out of order, short section, incomplete. */
    cuzk_bp_params_writer w;
    assert_int_equal(cuzk_bp_params_writer_open(&w, path, &sp.vk, NULL, NULL), CUZK_OK);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_params_writer_section(&w, CUZK_BP_L, 1, &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_bp_params_writer_section(&w, CUZK_BP_H, 1, NULL), CUZK_OK);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_params_writer_g2(&w, sp.g2, 1, &e), CUZK_ERR_USAGE);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_params_writer_section(&w, CUZK_BP_L, 1, &e), CUZK_ERR_USAGE);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_params_writer_finish(&w, &e), CUZK_ERR_USAGE);
    cuzk_bp_params_writer_abort(&w);
    /* The aborted write left the earlier file as it was. */
    size_t n2;
    uint8_t *b2 = slurp(path, &n2);
    assert_int_equal(n2, n);
    free(b2);

    /* A file that shrinks after it was opened: an I/O error, no SIGBUS. */
    assert_int_equal(write_small(&sp, path, NULL, NULL), CUZK_OK);
    cuzk_bp_params p;
    assert_int_equal(cuzk_bp_params_open(&p, path, NULL, NULL), CUZK_OK);
    assert_true(mapping_is_shared(p.file.data)); /* page-locked in place, never copied */
    assert_int_equal(truncate(path, 1200), 0);
    g2_t o2[2];
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_params_g2(&p, CUZK_BP_B_G2, 0, 2, o2, NULL, &e), CUZK_ERR_IO);
    assert_non_null(strstr(e.msg, "changed size"));
    cuzk_bp_params_close(&p);

    unlink(path);
    free(b);
    cuzk_bp_vk_free(&sp.vk);
    cuzk_pool_destroy(pool);
}

/* ---- proofs ------------------------------------------------------------------------ */

static void test_proof(void **state)
{
    (void)state;
    test_rng g = {5};
    cuzk_proof_points p[3], *back = NULL;
    uint8_t b[3 * 192 + 1];
    for (int i = 0; i < 3; i++) {
        memset(&p[i], 0, sizeof p[i]);
        p[i].curve = CUZK_CURVE_BLS12_381;
        rand_g1(&g, &p[i].a.bls12_381);
        rand_g2(&g, &p[i].b.bls12_381);
        rand_g1(&g, &p[i].c.bls12_381);
        cuzk_bp_proof_encode(b + 192 * i, &p[i]);
    }
    size_t n = 0;
    assert_int_equal(cuzk_bp_proofs_read_buffer(&back, &n, b, sizeof b - 1, "p.bin", 0, NULL), CUZK_OK);
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) {
        assert_true(bls12_381_g1_affine_eq(&back[i].a.bls12_381, &p[i].a.bls12_381));
        assert_true(bls12_381_g2_affine_eq(&back[i].b.bls12_381, &p[i].b.bls12_381));
        assert_true(bls12_381_g1_affine_eq(&back[i].c.bls12_381, &p[i].c.bls12_381));
    }
    cuzk_free(back);
    cuzk_error e = {0};
    /* Lengths. */
    for (size_t len = 0; len <= sizeof b; len++) {
        if (len && len % 192 == 0)
            continue;
        e = (cuzk_error){0};
        assert_int_equal(cuzk_bp_proofs_read_buffer(&back, &n, b, len, "p.bin", 0, &e), CUZK_ERR_FORMAT);
        one_line(&e);
    }
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_proofs_read_buffer(&back, &n, b, 576, "p.bin", 2, &e), CUZK_ERR_MISMATCH);
    /* Every single-bit flip of the first proof is rejected or decodes to
     * another valid proof (a flip of the sort bit negates the point). */
    int accepted = 0;
    for (size_t i = 0; i < 192; i++)
        for (int bit = 0; bit < 8; bit++) {
            b[i] ^= (uint8_t)(1u << bit);
            e = (cuzk_error){0};
            cuzk_status st = cuzk_bp_proofs_read_buffer(&back, &n, b, 192, "p.bin", 0, &e);
            if (st == CUZK_OK) {
                accepted++;
                assert_int_equal(bit, 5); /* the 0x20 sort flag */
                assert_true(i == 0 || i == 48 || i == 144);
                cuzk_free(back);
            } else {
                assert_int_equal(st, CUZK_ERR_INVALID_PROOF);
                one_line(&e);
                assert_non_null(strstr(e.msg, "p.bin: proof 0: "));
            }
            b[i] ^= (uint8_t)(1u << bit);
        }
    assert_int_equal(accepted, 3);
    /* Identity and off-subgroup parts. */
    cuzk_proof_points q = p[1];
    bls12_381_g2_affine_set_inf(&q.b.bls12_381);
    cuzk_bp_proof_encode(b + 192, &q);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_proofs_read_buffer(&back, &n, b, 576, "p.bin", 0, &e), CUZK_ERR_INVALID_PROOF);
    assert_non_null(strstr(e.msg, "proof 1: B is the point at infinity"));
    q = p[1];
    off_subgroup_g1(&g, &q.c.bls12_381);
    cuzk_bp_proof_encode(b + 192, &q);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_bp_proofs_read_buffer(&back, &n, b, 576, "p.bin", 0, &e), CUZK_ERR_INVALID_PROOF);
    assert_non_null(strstr(e.msg, "proof 1: C is not in the prime-order subgroup"));
    /* File round trip. */
    char path[] = "/tmp/cuzk_test_bp_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(cuzk_bp_proofs_write(p, 3, path, NULL), CUZK_OK);
    assert_int_equal(cuzk_bp_proofs_read(&back, &n, path, 10, NULL), CUZK_OK);
    assert_int_equal(n, 3);
    assert_true(bls12_381_g2_affine_eq(&back[2].b.bls12_381, &p[2].b.bls12_381));
    cuzk_free(back);
    unlink(path);
}

/* ---- digest ------------------------------------------------------------------------ */

static void test_digest(void **state)
{
    (void)state;
    char d[33];
    /* RFC 7693 Appendix A: BLAKE2b-512("abc"). */
    assert_int_equal(cuzk_bp_digest_buffer("abc", 3, d, NULL), CUZK_OK);
    assert_string_equal(d, "ba80a53f981c4d0d6a2797b69f12f6e9");
    char path[] = "/tmp/cuzk_test_bp_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    /* A file larger than the read buffer: same digest as the buffer. */
    size_t n = (9u << 20) + 123;
    uint8_t *b = malloc(n);
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)(i * 131 + (i >> 13));
    assert_int_equal(write(fd, b, n), (ssize_t)n);
    close(fd);
    char d2[33];
    assert_int_equal(cuzk_bp_digest_buffer(b, n, d, NULL), CUZK_OK);
    assert_int_equal(cuzk_bp_digest_file(path, d2, NULL), CUZK_OK);
    assert_string_equal(d, d2);
    unlink(path);
    free(b);
    cuzk_error e = {0};
    assert_int_equal(cuzk_bp_digest_file("/nonexistent/x.params", d2, &e), CUZK_ERR_IO);
    one_line(&e);
}

/* ---- public verification API (include/cuzk/bellperson.h) ------------------------- */

#define BP_DATA CUZK_TEST_DATA_DIR "/bellperson/"

static void test_public_api(void **state)
{
    (void)state;
    cuzk_error e = {0};
    cuzk_bp_verifying_key *vk = NULL, *vk2 = NULL;
    assert_int_equal(cuzk_bp_verifying_key_load(&vk, NULL, BP_DATA "mul.vk", &e), CUZK_OK);
    assert_int_equal(cuzk_bp_verifying_key_n_inputs(vk), 2);
    size_t n;
    uint8_t *kb = slurp(BP_DATA "mul.vk", &n);
    cuzk_ctx *ctx = NULL;
    assert_int_equal(cuzk_ctx_create(&ctx, NULL, NULL), CUZK_OK);
    assert_int_equal(cuzk_bp_verifying_key_load_buffer(&vk2, ctx, kb, n, "k", &e), CUZK_OK);
    /* A truncated buffer: one line naming it; *out stays NULL. */
    cuzk_bp_verifying_key *vk3 = (cuzk_bp_verifying_key *)1;
    assert_int_equal(cuzk_bp_verifying_key_load_buffer(&vk3, NULL, kb, n - 1, "short.vk", &e), CUZK_ERR_FORMAT);
    assert_null(vk3);
    one_line(&e);
    assert_non_null(strstr(e.msg, "short.vk: "));
    free(kb);
    size_t pn;
    uint8_t *proof = slurp(BP_DATA "mul.proof.bin", &pn);
    assert_int_equal(pn, 192);
    /* The public inputs 13172544000 and 5 as 32-byte little-endian values. */
    uint8_t in[2 * 32] = {0};
    uint64_t v0 = 13172544000ull;
    for (int i = 0; i < 8; i++)
        in[i] = (uint8_t)(v0 >> (8 * i));
    in[32] = 5;
    assert_int_equal(cuzk_bp_verify_bytes(ctx, vk, proof, 1, in, 2, &e), CUZK_OK);
    assert_int_equal(e.code, CUZK_OK);
    assert_int_equal(cuzk_bp_verify_bytes(NULL, vk2, proof, 1, in, 2, &e), CUZK_OK);
    in[32] = 6;
    assert_int_equal(cuzk_bp_verify_bytes(ctx, vk, proof, 1, in, 2, &e), CUZK_ERR_INVALID_PROOF);
    one_line(&e);
    in[32] = 5;
    assert_int_equal(cuzk_bp_verify_bytes(ctx, vk, proof, 1, in, 1, &e), CUZK_ERR_MISMATCH);
    memset(in + 32, 0xff, 32); /* >= r */
    assert_int_equal(cuzk_bp_verify_bytes(ctx, vk, proof, 1, in, 2, &e), CUZK_ERR_USAGE);
    memset(in + 32, 0, 32);
    in[32] = 5;
    proof[100] ^= 1; /* B's x: not on the curve (or not in the subgroup) */
    assert_int_equal(cuzk_bp_verify_bytes(ctx, vk, proof, 1, in, 2, &e), CUZK_ERR_INVALID_PROOF);
    proof[100] ^= 1;
    assert_int_equal(cuzk_bp_verify_bytes(ctx, vk, proof, 0, in, 2, &e), CUZK_ERR_USAGE);
    /* Files, and the error of an earlier call is cleared. */
    assert_int_equal(cuzk_bp_verify_files(ctx, BP_DATA "mul.vk", BP_DATA "mul.public.json", BP_DATA "mul.proof.bin",
                                          &e),
                     CUZK_OK);
    assert_int_equal(e.code, CUZK_OK);
    assert_int_equal(cuzk_bp_verify_files(NULL, BP_DATA "mul.vk", BP_DATA "mul.vk", BP_DATA "mul.proof.bin", &e),
                     CUZK_ERR_FORMAT);
    one_line(&e);
    /* Digest: the same as the codec's on the bytes. */
    char d1[33], d2[33];
    kb = slurp(BP_DATA "mul.vk", &n);
    assert_int_equal(cuzk_bp_digest_buffer(kb, n, d1, NULL), CUZK_OK);
    assert_int_equal(cuzk_bp_params_digest(BP_DATA "mul.vk", d2, &e), CUZK_OK);
    assert_string_equal(d1, d2);
    free(kb);
    free(proof);
    cuzk_bp_verifying_key_free(vk);
    cuzk_bp_verifying_key_free(vk2);
    cuzk_bp_verifying_key_free(NULL);
    assert_int_equal(cuzk_bp_verifying_key_n_inputs(NULL), 0);
    cuzk_ctx_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point_roundtrip), cmocka_unit_test(test_point_reject), cmocka_unit_test(test_vk),
        cmocka_unit_test(test_params),          cmocka_unit_test(test_proof),        cmocka_unit_test(test_digest),
        cmocka_unit_test(test_public_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
