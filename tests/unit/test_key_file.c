/* A loaded key does not depend on its file: the file truncated, emptied or
 * rewritten after cuzk_key_load, the key still proves, and the proof passes
 * the pairing check against the key's verification key (cuzk_prove verifies
 * by default). Before the key owned a copy, a truncated file under the
 * mapping ended the process with SIGBUS at the first touch of a page.
 *
 * Loading a file truncated anywhere is a clean error, copied or mapped in
 * place (every section is checked against the file size before anything
 * is read or mapped); and the default load never maps the file, so a file
 * truncated while it loads is an error too, never a signal (a stress run:
 * the truncation cannot be timed, but the old load faulted in it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/cuzk.h"
#include "fixture_util.h"

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

static void write_file(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(b, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* An error from a damaged or changing input: I/O or malformed, one line
 * that names the file. */
static int clean_error(cuzk_status st, const cuzk_error *e, const char *path)
{
    size_t pl = strlen(path);
    return (st == CUZK_ERR_IO || st == CUZK_ERR_FORMAT) && e->code == st &&
           strncmp(e->msg, path, pl) == 0 && e->msg[pl] == ':' && !strchr(e->msg, '\n');
}

/* Every prefix of a key (both curves, copied and mapped in place) and of a
 * witness is refused with a clean error. */
static void test_truncated_before_load(void **state)
{
    (void)state;
    const char *curves[] = {"bn128", "bls12381"};
    cuzk_ctx *ctx;
    cuzk_error e = {0};
    assert_int_equal(cuzk_ctx_create(&ctx, &(cuzk_ctx_opts){.threads = 2}, &e), CUZK_OK);
    char tmp[] = "/tmp/cuzk-trunc-XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    for (int c = 0; c < 2; c++) {
        for (int kind = 0; kind < 2; kind++) {
            char src[512];
            snprintf(src, sizeof src, "%s/interop/%s/mul.%s", CUZK_TEST_DATA_DIR, curves[c],
                     kind ? "wtns" : "zkey");
            size_t n;
            uint8_t *b = (uint8_t *)slurp(src, &n);
            write_file(tmp, b, n);
            for (size_t k = n; k-- > 0;) {
                assert_int_equal(truncate(tmp, (off_t)k), 0);
                for (int in_place = 0; in_place < 1 + !kind; in_place++) {
                    e = (cuzk_error){0};
                    cuzk_status st;
                    if (kind) {
                        cuzk_witness *w = NULL;
                        st = cuzk_witness_load(&w, tmp, &e);
                        assert_null(w);
                    } else {
                        cuzk_key *key = NULL;
                        st = cuzk_key_load(&key, ctx, tmp, &(cuzk_key_opts){.map_in_place = in_place}, &e);
                        assert_null(key);
                    }
                    if (!clean_error(st, &e, tmp))
                        fail_msg("%s cut at %zu of %zu (in place %d): status %d: %s", src, k, n, in_place,
                                 st, e.msg);
                }
            }
            free(b);
        }
    }
    unlink(tmp);
    cuzk_ctx_free(ctx);
}

/* A child loads the key over and over with the defaults for a second while
 * this process cuts the file short (at 0, in the header, in the middle) and
 * writes it back. Every load must
 * end in a key or a clean error; the child must never die of a signal. */
static void test_truncated_during_load(void **state)
{
    (void)state;
    char src[512], tmp[] = "/tmp/cuzk-race-XXXXXX";
    snprintf(src, sizeof src, "%s/interop/bls12381/boundary_hi.zkey", CUZK_TEST_DATA_DIR);
    size_t n;
    uint8_t *b = (uint8_t *)slurp(src, &n);
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    write_file(tmp, b, n);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* A fault must end the child (cmocka would catch it there). */
        signal(SIGBUS, SIG_DFL);
        signal(SIGSEGV, SIG_DFL);
        cuzk_ctx *ctx;
        cuzk_error e = {0};
        if (cuzk_ctx_create(&ctx, &(cuzk_ctx_opts){.threads = 2}, &e))
            _exit(3);
        int ok = 0, refused = 0;
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0;; i++) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > 1000000000L)
                break;
            cuzk_key *key = NULL;
            e = (cuzk_error){0};
            cuzk_status st = cuzk_key_load(&key, ctx, tmp, NULL, &e);
            if (st == CUZK_OK) {
                cuzk_key_free(key);
                ok++;
            } else if (clean_error(st, &e, tmp)) {
                if (!refused++)
                    fprintf(stderr, "# first refusal: %s\n", e.msg);
            } else {
                fprintf(stderr, "load %d: status %d: %s\n", i, st, e.msg);
                _exit(2);
            }
        }
        cuzk_ctx_free(ctx);
        fprintf(stderr, "# %d loads, %d refused while the file changed\n", ok, refused);
        _exit(0);
    }
    int status = 0;
    pid_t done = 0;
    const off_t cut[] = {0, 12, 100, 2000, (off_t)n / 2, (off_t)n - 1};
    for (unsigned r = 0; (done = waitpid(pid, &status, WNOHANG)) == 0; r++) {
        int wfd = open(tmp, O_WRONLY);
        assert_true(wfd >= 0);
        assert_int_equal(ftruncate(wfd, cut[r % 6]), 0);
        struct timespec empty = {0, 20000}, whole = {0, 500000};
        nanosleep(&empty, NULL);
        for (size_t o = 0; o < n;) {
            ssize_t w = pwrite(wfd, b + o, n - o, (off_t)o);
            assert_true(w > 0);
            o += (size_t)w;
        }
        close(wfd);
        nanosleep(&whole, NULL);
    }
    assert_int_equal(done, pid);
    if (WIFSIGNALED(status))
        fail_msg("the loading process died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    unlink(tmp);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_after_load),
        cmocka_unit_test(test_truncated_before_load),
        cmocka_unit_test(test_truncated_during_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
