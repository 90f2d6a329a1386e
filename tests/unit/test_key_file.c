/* A loaded key does not depend on its file: the file truncated, emptied or
 * rewritten after cuzk_key_load, the key still proves, and the proof passes
 * the pairing check against the key's verification key (cuzk_prove verifies
 * by default). Before the key owned a copy, a truncated file under the
 * mapping ended the process with SIGBUS at the first touch of a page. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "cuzk/cuzk.h"

static void copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    assert_non_null(a);
    assert_non_null(b);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0)
        assert_int_equal(fwrite(buf, 1, n, b), n);
    fclose(a);
    assert_int_equal(fclose(b), 0);
}

static void test_truncated_after_load(void **state)
{
    (void)state;
    const char *curves[] = {"bn128", "bls12381"};
    for (int c = 0; c < 2; c++) {
        char src[512], wt[512], tmp[] = "/tmp/cuzk-key-XXXXXX";
        snprintf(src, sizeof src, "%s/interop/%s/mul.zkey", CUZK_TEST_DATA_DIR, curves[c]);
        snprintf(wt, sizeof wt, "%s/interop/%s/mul.wtns", CUZK_TEST_DATA_DIR, curves[c]);
        int fd = mkstemp(tmp);
        assert_true(fd >= 0);
        close(fd);
        copy_file(src, tmp);
        cuzk_error e = {0};
        cuzk_ctx *ctx;
        assert_int_equal(cuzk_ctx_create(&ctx, &(cuzk_ctx_opts){.threads = 2}, &e), CUZK_OK);
        cuzk_key *key;
        cuzk_witness *w;
        assert_int_equal(cuzk_key_load(&key, ctx, tmp, NULL, &e), CUZK_OK);
        assert_int_equal(cuzk_witness_load(&w, wt, &e), CUZK_OK);
        /* Emptied, then rewritten with other bytes of the original size. */
        for (int round = 0; round < 2; round++) {
            assert_int_equal(truncate(tmp, 0), 0);
            if (round == 1) {
                FILE *f = fopen(tmp, "wb");
                for (int i = 0; i < 100000; i++)
                    fputc(0xa5, f);
                fclose(f);
            }
            cuzk_proof *p = NULL;
            assert_int_equal(cuzk_prove(ctx, key, w, NULL, &p, &e), CUZK_OK);
            assert_non_null(p);
            cuzk_proof_free(p);
        }
        cuzk_witness_free(w);
        cuzk_key_free(key);
        cuzk_ctx_free(ctx);
        unlink(tmp);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_after_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
