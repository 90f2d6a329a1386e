/* The CLI's SIGBUS handler (src/cli/cli_sigbus.c): a file truncated under a
 * mapping that several threads read at once gives one error line, whole,
 * and exit 2 (I/O) — not one partial line per thread interleaved
 * ("Error: Error: k.zkeyk.zkey: ..."). Each round forks a child whose eight
 * threads fault on the same truncated mapping together. */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"

enum { THREADS = 8, ROUNDS = 60, PAGES = 64 };

static const char PATH_NAME[] = "k.zkey";
static const char EXPECTED[] = "Error: k.zkey: the file changed while it was read (truncated or rewritten in place); "
                               "nothing written\n";

static volatile unsigned char *g_map;
static pthread_barrier_t g_bar;

static void *reader(void *arg)
{
    size_t t = (size_t)arg;
    pthread_barrier_wait(&g_bar);
    /* Past the file's new end: every read faults. */
    unsigned sum = 0;
    for (size_t p = 0; p < PAGES; p++)
        sum += g_map[((p + t * 7) % PAGES) * 4096];
    return (void *)(size_t)sum;
}

/* The child: map a file, truncate it, fault in THREADS threads at once. */
static void child(int err_fd, const char *file)
{
    dup2(err_fd, STDERR_FILENO);
    int fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, PAGES * 4096) != 0)
        _exit(90);
    g_map = mmap(NULL, PAGES * 4096, PROT_READ, MAP_SHARED, fd, 0);
    if (g_map == MAP_FAILED || ftruncate(fd, 0) != 0)
        _exit(91);
    cli_catch_sigbus(PATH_NAME);
    pthread_barrier_init(&g_bar, NULL, THREADS);
    pthread_t th[THREADS];
    for (size_t t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, reader, (void *)t);
    for (size_t t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    _exit(92); /* no fault: the test is broken */
}

static void test_one_line_under_concurrent_faults(void **state)
{
    (void)state;
    char file[] = "/tmp/cuzk-sigbus-XXXXXX";
    int tfd = mkstemp(file);
    assert_true(tfd >= 0);
    close(tfd);
    for (int round = 0; round < ROUNDS; round++) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(p[0]);
            child(p[1], file);
        }
        close(p[1]);
        char out[4096];
        size_t n = 0;
        ssize_t r;
        while (n < sizeof out - 1 && (r = read(p[0], out + n, sizeof out - 1 - n)) > 0)
            n += (size_t)r;
        out[n] = 0;
        close(p[0]);
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != CUZK_ERR_IO || strcmp(out, EXPECTED)) {
            unlink(file);
            fail_msg("round %d: status 0x%x, stderr:\n%s", round, status, out);
        }
    }
    unlink(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_line_under_concurrent_faults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
