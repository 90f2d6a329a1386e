/* The output writer (formats.h "output files"): atomic replacement, streams,
 * refused targets, symlinks, kept modes, same-file checks, all-or-nothing
 * sets (a failure in the middle of a commit puts the earlier files back),
 * cancellation and concurrent commits of the same pair. Each case is checked
 * on the file system itself (contents, inodes, modes, directory listings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/formats.h"

static char g_dir[256];

static const char *P(const char *name)
{
    static char buf[8][PATH_MAX];
    static int k;
    char *b = buf[k++ & 7];
    snprintf(b, PATH_MAX, "%s/%s", g_dir, name);
    return b;
}

static void put(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

/* The whole file as a string (static buffer), or "<missing>". */
static const char *get(const char *path)
{
    static char buf[4096];
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return "<missing>";
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = 0;
    fclose(fp);
    return buf;
}

/* Number of entries in the test directory whose name contains ".tmp.". */
static int temporaries(void)
{
    DIR *d = opendir(g_dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strstr(e->d_name, ".tmp.") != NULL;
    closedir(d);
    return n;
}

static void clean(void)
{
    DIR *d = opendir(g_dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
            continue;
        const char *p = P(e->d_name);
        if (unlink(p) != 0)
            rmdir(p);
    }
    closedir(d);
}

/* A set of two outputs with the given texts, committed. */
static cuzk_status write_pair(const char *a, const char *b, const char *ta, const char *tb,
                              cuzk_cancel_fn cancel, cuzk_error *e)
{
    cuzk_oset s;
    cuzk_afile *fa, *fb;
    cuzk_oset_init(&s, cancel, NULL);
    cuzk_status st = cuzk_oset_output(&s, a, &fa, e);
    if (!st)
        st = cuzk_oset_output(&s, b, &fb, e);
    if (!st)
        st = cuzk_oset_open(&s, e);
    if (!st) {
        cuzk_afile_write(fa, ta, strlen(ta));
        cuzk_afile_write(fb, tb, strlen(tb));
        st = cuzk_oset_commit(&s, e);
    }
    cuzk_oset_abort(&s);
    return st;
}

static void test_replace_and_create(void **state)
{
    (void)state;
    clean();
    cuzk_error e = {0};
    put(P("a"), "old a");
    assert_int_equal(write_pair(P("a"), P("b"), "new a", "new b", NULL, &e), CUZK_OK);
    assert_string_equal(get(P("a")), "new a");
    assert_string_equal(get(P("b")), "new b");
    assert_int_equal(temporaries(), 0);
    /* Mode of a replaced file kept; a new file gets 0666 & ~umask. */
    chmod(P("a"), 0640);
    assert_int_equal(write_pair(P("a"), P("c"), "2", "3", NULL, &e), CUZK_OK);
    struct stat sa, sc;
    assert_int_equal(stat(P("a"), &sa), 0);
    assert_int_equal(sa.st_mode & 07777, 0640);
    mode_t um = umask(022);
    umask(um);
    assert_int_equal(stat(P("c"), &sc), 0);
    assert_int_equal(sc.st_mode & 07777, 0666 & ~um);
}

static void test_symlink_followed(void **state)
{
    (void)state;
    clean();
    cuzk_error e = {0};
    put(P("real"), "old");
    assert_int_equal(symlink("real", P("link")), 0);
    assert_int_equal(symlink("missing-target", P("dangling")), 0);
    assert_int_equal(write_pair(P("link"), P("dangling"), "via link", "created", NULL, &e), CUZK_OK);
    struct stat sb;
    assert_int_equal(lstat(P("link"), &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_string_equal(get(P("real")), "via link");
    assert_int_equal(lstat(P("dangling"), &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_string_equal(get(P("missing-target")), "created");
    assert_int_equal(temporaries(), 0);
}

static void test_refused_targets(void **state)
{
    (void)state;
    clean();
    cuzk_error e = {0};
    cuzk_oset s;
    cuzk_afile *f;
    /* A directory. */
    assert_int_equal(mkdir(P("dir"), 0755), 0);
    cuzk_oset_init(&s, NULL, NULL);
    assert_int_equal(cuzk_oset_output(&s, P("dir"), &f, &e), CUZK_ERR_IO);
    assert_non_null(strstr(e.msg, "directory"));
    assert_non_null(strstr(e.msg, P("dir")));
    cuzk_oset_abort(&s);
    /* Missing directory. */
    cuzk_err_clear(&e);
    cuzk_oset_init(&s, NULL, NULL);
    assert_int_equal(cuzk_oset_output(&s, P("nodir/x"), &f, &e), CUZK_ERR_IO);
    cuzk_oset_abort(&s);
    /* A FIFO without a reader: an error at open, not a hang. */
    cuzk_err_clear(&e);
    assert_int_equal(mkfifo(P("fifo"), 0600), 0);
    cuzk_oset_init(&s, NULL, NULL);
    assert_int_equal(cuzk_oset_output(&s, P("fifo"), &f, &e), CUZK_OK);
    assert_int_equal(cuzk_oset_open(&s, &e), CUZK_ERR_IO);
    assert_non_null(strstr(e.msg, "no reader"));
    cuzk_oset_abort(&s);
    struct stat sb;
    assert_int_equal(lstat(P("fifo"), &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    assert_int_equal(lstat(P("dir"), &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(temporaries(), 0);
}

static void test_streams(void **state)
{
    (void)state;
    clean();
    cuzk_error e = {0};
    /* /dev/null twice: allowed (streams), and stays a character device. */
    assert_int_equal(write_pair("/dev/null", "/dev/null", "x", "y", NULL, &e), CUZK_OK);
    struct stat sb;
    assert_int_equal(stat("/dev/null", &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    /* An inherited descriptor by name: both outputs into one pipe. */
    int p[2];
    assert_int_equal(pipe(p), 0);
    char name[64];
    snprintf(name, sizeof name, "/dev/fd/%d", p[1]);
    assert_int_equal(write_pair(name, name, "one,", "two", NULL, &e), CUZK_OK);
    close(p[1]);
    char buf[64] = {0};
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    close(p[0]);
    assert_true(n > 0);
    assert_string_equal(buf, "one,two");
    /* A FIFO with a reader gets the bytes. */
    assert_int_equal(mkfifo(P("fifo"), 0600), 0);
    int rd = open(P("fifo"), O_RDONLY | O_NONBLOCK);
    assert_true(rd >= 0);
    assert_int_equal(write_pair(P("fifo"), P("b"), "through the fifo", "b", NULL, &e), CUZK_OK);
    memset(buf, 0, sizeof buf);
    n = read(rd, buf, sizeof buf - 1);
    close(rd);
    assert_string_equal(buf, "through the fifo");
    assert_int_equal(temporaries(), 0);
}

static void test_same_file(void **state)
{
    (void)state;
    clean();
    cuzk_error e = {0};
    cuzk_oset s;
    cuzk_afile *f;
    put(P("in"), "input");
    assert_int_equal(link(P("in"), P("hard")), 0);
    assert_int_equal(symlink("in", P("soft")), 0);
    const char *as_output[] = {P("in"), P("hard"), P("soft")};
    for (int i = 0; i < 3; i++) {
        cuzk_err_clear(&e);
        cuzk_oset_init(&s, NULL, NULL);
        assert_int_equal(cuzk_oset_input(&s, P("in"), &e), CUZK_OK);
        assert_int_equal(cuzk_oset_output(&s, as_output[i], &f, &e), CUZK_ERR_USAGE);
        assert_non_null(strstr(e.msg, "input"));
        cuzk_oset_abort(&s);
    }
    /* Two spellings of one new file, and of one existing file. */
    assert_int_equal(mkdir(P("sub"), 0755), 0);
    char other[PATH_MAX];
    snprintf(other, sizeof other, "%s/sub/../new", g_dir);
    cuzk_err_clear(&e);
    assert_int_equal(write_pair(P("new"), other, "1", "2", NULL, &e), CUZK_ERR_USAGE);
    assert_string_equal(get(P("new")), "<missing>");
    cuzk_err_clear(&e);
    assert_int_equal(write_pair(P("hard"), P("soft"), "1", "2", NULL, &e), CUZK_ERR_USAGE);
    assert_string_equal(get(P("in")), "input");
    assert_int_equal(temporaries(), 0);
}

/* The second target turns into a directory after the checks: the commit
 * fails at its rename and the first output is put back. */
static void test_rollback(void **state)
{
    (void)state;
    clean();
    cuzk_error e = {0};
    put(P("a"), "old a");
    for (int existed = 0; existed < 2; existed++) {
        if (existed)
            put(P("a"), "old a");
        else
            unlink(P("a"));
        cuzk_oset s;
        cuzk_afile *fa, *fb;
        cuzk_oset_init(&s, NULL, NULL);
        assert_int_equal(cuzk_oset_output(&s, P("a"), &fa, &e), CUZK_OK);
        assert_int_equal(cuzk_oset_output(&s, P("b"), &fb, &e), CUZK_OK);
        assert_int_equal(cuzk_oset_open(&s, &e), CUZK_OK);
        cuzk_afile_write(fa, "new a", 5);
        cuzk_afile_write(fb, "new b", 5);
        assert_int_equal(mkdir(P("b"), 0755), 0);
        assert_int_equal(cuzk_oset_commit(&s, &e), CUZK_ERR_IO);
        assert_non_null(strstr(e.msg, P("b")));
        cuzk_oset_abort(&s);
        assert_string_equal(get(P("a")), existed ? "old a" : "<missing>");
        assert_int_equal(rmdir(P("b")), 0);
        assert_int_equal(temporaries(), 0);
        cuzk_err_clear(&e);
    }
}

static int read_flag(void *user) { return *(volatile int *)user; }

static void test_cancel(void **state)
{
    (void)state;
    clean();
    cuzk_error e = {0};
    put(P("a"), "old a");
    put(P("b"), "old b");
    /* Raised before the writes and between the writes and the commit. */
    for (int when = 0; when < 2; when++) {
        volatile int cancel = 0;
        cuzk_oset s;
        cuzk_afile *fa, *fb;
        cuzk_oset_init(&s, read_flag, (void *)&cancel);
        assert_int_equal(cuzk_oset_output(&s, P("a"), &fa, &e), CUZK_OK);
        assert_int_equal(cuzk_oset_output(&s, P("b"), &fb, &e), CUZK_OK);
        assert_int_equal(cuzk_oset_open(&s, &e), CUZK_OK);
        if (when == 0)
            cancel = 1;
        cuzk_afile_write(fa, "new a", 5);
        cuzk_afile_write(fb, "new b", 5);
        cancel = 1;
        assert_int_equal(cuzk_oset_commit(&s, &e), CUZK_ERR_CANCELLED);
        cuzk_oset_abort(&s);
        assert_string_equal(get(P("a")), "old a");
        assert_string_equal(get(P("b")), "old b");
        assert_int_equal(temporaries(), 0);
        cuzk_err_clear(&e);
    }
}

static void test_name_max(void **state)
{
    (void)state;
    clean();
    cuzk_error e = {0};
    char name[NAME_MAX + 2];
    memset(name, 'n', NAME_MAX);
    name[NAME_MAX] = 0;
    assert_int_equal(cuzk_write_file_atomic(P(name), "long", 4, &e), CUZK_OK);
    assert_string_equal(get(P(name)), "long");
    assert_int_equal(cuzk_write_file_atomic(P(name), "again", 5, &e), CUZK_OK);
    assert_string_equal(get(P(name)), "again");
    name[NAME_MAX] = 'n';
    name[NAME_MAX + 1] = 0;
    assert_int_equal(cuzk_write_file_atomic(P(name), "x", 1, &e), CUZK_ERR_IO);
    assert_int_equal(temporaries(), 0);
}

/* Two threads commit (a, b) pairs tagged with their id: after every round
 * both files carry one tag. */
typedef struct {
    int id, rounds;
    const char *a, *b;
    cuzk_status st;
} pair_job;

static void *pair_main(void *p)
{
    pair_job *j = p;
    char t[32];
    snprintf(t, sizeof t, "writer %d", j->id);
    for (int r = 0; r < j->rounds && !j->st; r++) {
        cuzk_error e = {0};
        j->st = write_pair(j->a, j->b, t, t, NULL, &e);
    }
    return NULL;
}

static void test_concurrent_pairs(void **state)
{
    (void)state;
    clean();
    char a[PATH_MAX], b[PATH_MAX];
    snprintf(a, sizeof a, "%s", P("a"));
    snprintf(b, sizeof b, "%s", P("b"));
    for (int round = 0; round < 200; round++) {
        pair_job j[2] = {{1, 5, a, b, CUZK_OK}, {2, 5, a, b, CUZK_OK}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&th[i], NULL, pair_main, &j[i]), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        assert_int_equal(j[0].st, CUZK_OK);
        assert_int_equal(j[1].st, CUZK_OK);
        char ta[4096];
        snprintf(ta, sizeof ta, "%s", get(a));
        assert_string_equal(ta, get(b));
    }
    assert_int_equal(temporaries(), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "%s/cuzk-test-output.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    clean();
    return rmdir(g_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replace_and_create),
        cmocka_unit_test(test_symlink_followed),
        cmocka_unit_test(test_refused_targets),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_same_file),
        cmocka_unit_test(test_rollback),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_name_max),
        cmocka_unit_test(test_concurrent_pairs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
