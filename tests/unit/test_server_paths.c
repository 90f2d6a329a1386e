/* Client-named files (src/server/paths.c): a file below an allowed
 * directory opens; a symbolic link on the way, "..", or a directory swapped
 * for a symbolic link after the path was resolved (the window between the
 * check and the open) is refused, by openat2 and by the per-component walk
 * used where the kernel lacks it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/server_internal.h"

static char base[PATH_MAX];

static void put(const char *rel, const char *text)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s", base, rel);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void at(char *out, const char *rel)
{
    size_t n = strlen(base);
    assert_true(n + 1 + strlen(rel) < PATH_MAX);
    memcpy(out, base, n);
    out[n] = '/';
    memcpy(out + n + 1, rel, strlen(rel) + 1);
}

static int setup(void **state)
{
    (void)state;
    snprintf(base, sizeof base, "%s/cuzk-paths.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    assert_non_null(mkdtemp(base));
    char p[PATH_MAX];
    at(p, "allowed"), mkdir(p, 0700);
    at(p, "allowed/sub"), mkdir(p, 0700);
    at(p, "outside"), mkdir(p, 0700);
    put("allowed/sub/in.wtns", "inside");
    put("outside/in.wtns", "OUTSIDE");
    char t[PATH_MAX];
    at(p, "allowed/link.wtns"), at(t, "outside/in.wtns");
    assert_int_equal(symlink(t, p), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

/* Reads the opened file's first bytes (NUL-terminated). */
static void slurp(int fd, char *out, size_t cap)
{
    ssize_t n = read(fd, out, cap - 1);
    out[n > 0 ? n : 0] = 0;
}

static void check_beneath(int walk)
{
    char p[PATH_MAX], buf[64];
    at(p, "allowed");
    int dfd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(dfd >= 0);
    int fd = open_beneath(dfd, "sub/in.wtns", O_RDONLY | O_CLOEXEC, walk);
    assert_true(fd >= 0);
    slurp(fd, buf, sizeof buf);
    assert_string_equal(buf, "inside");
    close(fd);
    /* A symbolic link (to outside), "..", a missing file: refused. */
    assert_true(open_beneath(dfd, "link.wtns", O_RDONLY | O_CLOEXEC, walk) < 0);
    assert_true(open_beneath(dfd, "../outside/in.wtns", O_RDONLY | O_CLOEXEC, walk) < 0);
    assert_true(open_beneath(dfd, "sub/../../outside/in.wtns", O_RDONLY | O_CLOEXEC, walk) < 0);
    assert_true(open_beneath(dfd, "sub/none.wtns", O_RDONLY | O_CLOEXEC, walk) < 0);
    assert_int_equal(errno, ENOENT);
    /* The swap: "sub" was a directory when the path was resolved, and is a
     * symbolic link to the outside directory when the file is opened. */
    char sub[PATH_MAX], moved[PATH_MAX], out[PATH_MAX];
    at(sub, "allowed/sub"), at(moved, "allowed/sub.real"), at(out, "outside");
    assert_int_equal(rename(sub, moved), 0);
    assert_int_equal(symlink(out, sub), 0);
    fd = open_beneath(dfd, "sub/in.wtns", O_RDONLY | O_CLOEXEC, walk);
    if (fd >= 0) {
        slurp(fd, buf, sizeof buf);
        close(fd);
        fail_msg("the swapped directory led outside: read \"%s\"", buf);
    }
    assert_int_equal(unlink(sub), 0);
    assert_int_equal(rename(moved, sub), 0);
    close(dfd);
}

static void test_openat2(void **state)
{
    (void)state;
    check_beneath(0);
}

static void test_walk(void **state)
{
    (void)state;
    check_beneath(1);
}

/* The whole check: inside keys.dirs by its resolved path; outside, a
 * symlink out, or a FIFO refused; a file over the size limit refused unread. */
static void test_client_file(void **state)
{
    (void)state;
    char dirs[PATH_MAX], p[PATH_MAX], abs[PATH_MAX], buf[64];
    at(dirs, "allowed");
    cuzk_error err = {0};
    int fd;
    uint64_t size;
    at(p, "allowed/sub/../sub/in.wtns");
    assert_int_equal(client_file(p, "witness_path", dirs, "witness.dirs", 0, 0, 100, abs, &fd, &size, &err), 0);
    assert_int_equal(size, 6);
    slurp(fd, buf, sizeof buf);
    assert_string_equal(buf, "inside");
    close(fd);
    at(p, "outside/in.wtns");
    assert_int_equal(client_file(p, "witness_path", dirs, "witness.dirs", 0, 0, 100, abs, &fd, &size, &err),
                     CUZK_ENGINE_FORBIDDEN);
    assert_null(strstr(err.msg, "OUTSIDE"));
    char m1[CUZK_ERROR_MSG_MAX];
    snprintf(m1, sizeof m1, "%s", strstr(err.msg, "':"));
    at(p, "outside/missing.wtns");
    assert_int_equal(client_file(p, "witness_path", dirs, "witness.dirs", 0, 0, 100, abs, &fd, &size, &err),
                     CUZK_ENGINE_FORBIDDEN);
    assert_string_equal(strstr(err.msg, "':"), m1); /* one answer, existing or not */
    at(p, "allowed/link.wtns");
    assert_int_equal(client_file(p, "witness_path", dirs, "witness.dirs", 0, 0, 100, abs, &fd, &size, &err),
                     CUZK_ENGINE_FORBIDDEN);
    at(p, "allowed/sub/in.wtns");
    assert_int_equal(client_file(p, "witness_path", dirs, "witness.dirs", 0, 0, 5, abs, &fd, &size, &err),
                     CUZK_ENGINE_TOO_LARGE);
    at(p, "allowed/fifo.wtns");
    assert_int_equal(mkfifo(p, 0600), 0);
    assert_int_equal(client_file(p, "witness_path", dirs, "witness.dirs", 0, 0, 100, abs, &fd, &size, &err),
                     CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "not a regular file"));
    unlink(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_openat2),
        cmocka_unit_test(test_walk),
        cmocka_unit_test(test_client_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
