/* Filecoin public inputs (src/filecoin): argument parsing, refusals of bad
 * inputs (one line each), ChaCha8 against the published zero-key keystream,
 * DRG/expander parent structure per API version, input counts and
 * partitioning. The derivation itself is checked against an independent
 * JavaScript one (tests/filecoin/inputs_noble.mjs) and against real proofs
 * (tests/filecoin/kat_polka.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "filecoin/filecoin.h"

static void one_line(const cuzk_error *e)
{
    assert_true(e->msg[0] != 0);
    assert_null(strchr(e->msg, '\n'));
}

static void test_parse(void **state)
{
    (void)state;
    uint64_t b;
    assert_true(cuzk_fil_sector_size_parse("2KiB", &b) && b == 2048);
    assert_true(cuzk_fil_sector_size_parse("32GiB", &b) && b == 1ull << 35);
    assert_true(cuzk_fil_sector_size_parse("512M", &b) && b == 1ull << 29);
    assert_true(cuzk_fil_sector_size_parse("2048", &b) && b == 2048);
    assert_false(cuzk_fil_sector_size_parse("3KiB", &b));
    assert_false(cuzk_fil_sector_size_parse("2KiBx", &b));
    assert_false(cuzk_fil_sector_size_parse("", &b));
    cuzk_fil_api a;
    assert_true(cuzk_fil_api_parse("1.0.0", &a) && a == CUZK_FIL_API_1_0);
    assert_true(cuzk_fil_api_parse("1.2", &a) && a == CUZK_FIL_API_1_2);
    assert_false(cuzk_fil_api_parse("1.3.0", &a));
    uint8_t h[32];
    assert_true(cuzk_fil_hex32(h, "0x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1F"));
    assert_int_equal(h[31], 0x1f);
    assert_false(cuzk_fil_hex32(h, "00"));
    assert_false(cuzk_fil_hex32(h, "g00102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"));
}

static void test_chacha8(void **state)
{
    (void)state;
    /* ChaCha8, 256-bit zero key, zero nonce: the published keystream. */
    static const uint8_t want[32] = {0x3e, 0x00, 0xef, 0x2f, 0x89, 0x5f, 0x40, 0xd6, 0x7f, 0x5b, 0xb8,
                                     0xe8, 0x1f, 0x09, 0xa5, 0xa1, 0x2c, 0x84, 0x0e, 0xc3, 0xce, 0x9a,
                                     0x7f, 0x3b, 0x18, 0x1b, 0xe1, 0x88, 0xef, 0x71, 0x1a, 0x1e};
    uint8_t key[32] = {0};
    uint32_t w[40];
    cuzk_fil_chacha8_words(key, 0, w, 40);
    for (int i = 0; i < 32; i++)
        assert_int_equal((w[i / 4] >> (8 * (i % 4))) & 0xff, want[i]);
    /* Any starting word gives the same stream (blocks are contiguous). */
    uint32_t w2[20];
    cuzk_fil_chacha8_words(key, 13, w2, 20);
    assert_memory_equal(w2, w + 13, sizeof w2);
}

static void test_parents(void **state)
{
    (void)state;
    uint8_t id[32] = {0};
    uint32_t p[8];
    const uint64_t nodes = 64;
    cuzk_error e = {0};
    assert_int_equal(cuzk_fil_drg_parents(p, nodes, id, CUZK_FIL_API_1_1, 1, &e), CUZK_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(p[i], 0);
    for (uint64_t n = 2; n < nodes; n++) {
        uint32_t a[6], b[6];
        assert_int_equal(cuzk_fil_drg_parents(a, nodes, id, CUZK_FIL_API_1_0, n, NULL), CUZK_OK);
        assert_int_equal(cuzk_fil_drg_parents(b, nodes, id, CUZK_FIL_API_1_1, n, NULL), CUZK_OK);
        assert_int_equal(a[5], n - 1); /* 1.0: predecessor last */
        assert_int_equal(b[0], n - 1); /* 1.1+: predecessor first, the same other parents */
        assert_memory_equal(a, b + 1, 5 * sizeof *a);
        for (int i = 0; i < 6; i++)
            assert_true(a[i] < n);
        assert_int_equal(cuzk_fil_exp_parents(p, nodes, id, CUZK_FIL_API_1_1, n, NULL), CUZK_OK);
        for (int i = 0; i < 8; i++)
            assert_true(p[i] < nodes);
    }
    /* The expander is a permutation: every (node, i) maps to a distinct slot. */
    uint8_t seen[64 * 8] = {0};
    for (uint64_t n = 0; n < nodes; n++) {
        assert_int_equal(cuzk_fil_exp_parents(p, nodes, id, CUZK_FIL_API_1_2, n, NULL), CUZK_OK);
        for (int i = 0; i < 8; i++)
            seen[p[i]]++;
    }
    for (uint64_t n = 0; n < nodes; n++)
        assert_int_equal(seen[n], 8); /* each node is the parent of 8 slots */
    e = (cuzk_error){0};
    assert_int_equal(cuzk_fil_drg_parents(p, nodes, id, CUZK_FIL_API_1_1, nodes, &e), CUZK_ERR_USAGE);
}

static void fill(uint8_t b[32], uint8_t v)
{
    memset(b, v, 32);
    b[31] = 0x01; /* < r */
}

static void test_porep(void **state)
{
    (void)state;
    cuzk_fil_porep in = {.sector_size = 1ull << 35, .api = CUZK_FIL_API_1_1, .sector_id = 9};
    fill(in.comm_r, 3);
    fill(in.comm_d, 4);
    fill(in.ticket, 5);
    fill(in.seed, 6);
    in.porep_id[0] = 8;
    uint64_t(*v)[4] = NULL;
    size_t parts, each;
    assert_int_equal(cuzk_fil_porep_inputs(&in, &v, &parts, &each, NULL), CUZK_OK);
    assert_int_equal(parts, 10);
    assert_int_equal(each, 3 + 18 * 18); /* 327: + ONE = the 328 IC points of 32 GiB */
    uint8_t rid[32];
    cuzk_fil_replica_id(rid, &in);
    assert_int_equal(rid[31] & 0xc0, 0);
    for (size_t k = 0; k < parts; k++) {
        assert_memory_equal(v[k * each], v[0], 32); /* replica id in every partition */
        for (size_t c = 0; c < 18; c++) {
            const uint64_t *ch = v[k * each + 3 + 18 * c];
            assert_true(ch[0] >= 1 && ch[0] < (1ull << 30) && !ch[1] && !ch[2] && !ch[3]);
            for (int r = 15; r < 18; r++)
                assert_int_equal(v[k * each + 3 + 18 * c + r][0], ch[0]);
            assert_int_equal(v[k * each + 3 + 18 * c + 1][0], ch[0] - 1); /* predecessor */
        }
    }
    cuzk_free(v);
    /* Refusals: zero and >= r commitments, unknown size. */
    cuzk_error e = {0};
    cuzk_fil_porep bad = in;
    memset(bad.comm_d, 0, 32);
    assert_int_equal(cuzk_fil_porep_inputs(&bad, &v, &parts, &each, &e), CUZK_ERR_USAGE);
    one_line(&e);
    assert_non_null(strstr(e.msg, "comm_d"));
    bad = in;
    memset(bad.comm_r, 0xff, 32);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_fil_porep_inputs(&bad, &v, &parts, &each, &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "comm_r"));
    bad = in;
    bad.sector_size = 4096 * 3;
    e = (cuzk_error){0};
    assert_int_equal(cuzk_fil_porep_inputs(&bad, &v, &parts, &each, &e), CUZK_ERR_USAGE);
    one_line(&e);
}

static void test_post(void **state)
{
    (void)state;
    uint64_t ids[5] = {40, 10, 30, 20, 50};
    uint8_t cr[5][32];
    for (int i = 0; i < 5; i++)
        fill(cr[i], (uint8_t)(i + 1));
    cuzk_fil_post in = {.sector_size = 2048, .api = CUZK_FIL_API_1_2, .n_sectors = 5, .sector_ids = ids,
                        .comm_r = (const uint8_t(*)[32])cr};
    fill(in.randomness, 9);
    uint64_t(*v)[4] = NULL;
    size_t parts, each;
    assert_int_equal(cuzk_fil_post_inputs(&in, &v, &parts, &each, NULL), CUZK_OK);
    assert_int_equal(parts, 3);
    assert_int_equal(each, 2 * 11);
    /* Sorted by sector number: 10 (cr[1]), 20 (cr[3]) | 30, 40 | 50, 50. */
    uint64_t want0[4];
    memcpy(want0, v[0], 32);
    assert_int_equal(want0[0] & 0xff, 2);
    assert_int_equal(v[11][0] & 0xff, 4);
    assert_memory_equal(v[2 * each], v[2 * each + 11], 11 * 32); /* padding repeats the last sector */
    for (size_t i = 0; i < parts * each; i++)
        if (i % 11)
            assert_true(v[i][0] < 64 && !v[i][1]);
    cuzk_free(v);
    cuzk_error e = {0};
    ids[2] = 10;
    assert_int_equal(cuzk_fil_post_inputs(&in, &v, &parts, &each, &e), CUZK_ERR_USAGE);
    one_line(&e);
    assert_non_null(strstr(e.msg, "sector 10 given twice"));
    ids[2] = 30;
    in.winning = true;
    e = (cuzk_error){0};
    assert_int_equal(cuzk_fil_post_inputs(&in, &v, &parts, &each, &e), CUZK_ERR_USAGE);
    one_line(&e);
    in.n_sectors = 1;
    assert_int_equal(cuzk_fil_post_inputs(&in, &v, &parts, &each, NULL), CUZK_OK);
    assert_int_equal(parts, 1);
    assert_int_equal(each, 67);
    cuzk_free(v);
    memset(cr[0], 0, 32);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_fil_post_inputs(&in, &v, &parts, &each, &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "comm_r of sector 40"));
    fill(cr[0], 1);
    memset(in.randomness, 0xff, 32);
    e = (cuzk_error){0};
    assert_int_equal(cuzk_fil_post_inputs(&in, &v, &parts, &each, &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "randomness"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse), cmocka_unit_test(test_chacha8), cmocka_unit_test(test_parents),
        cmocka_unit_test(test_porep), cmocka_unit_test(test_post),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
