/* The SIGBUS handler of the commands that read a file through a mapping (cli.h). */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The whole error line, made when the handler is installed: the handler only
 * writes it (async-signal-safe) in one write(). */
static char g_line[4096 + 128];
static size_t g_len;
static atomic_flag g_taken = ATOMIC_FLAG_INIT;

static void on_sigbus(int sig)
{
    (void)sig;
    /* Several threads can fault on the same truncated mapping at once: the
     * first writes the line and ends the process; the others wait for that. */
    if (atomic_flag_test_and_set(&g_taken))
        for (;;)
            pause();
    ssize_t r = write(STDERR_FILENO, g_line, g_len);
    (void)r;
    _exit(CUZK_ERR_IO);
}

void cli_catch_sigbus(const char *path)
{
    int n = snprintf(g_line, sizeof g_line,
                     "Error: %s: the file changed while it was read (truncated or rewritten in place); "
                     "nothing written\n",
                     path ? path : "<input>");
    if (n < 0 || (size_t)n >= sizeof g_line) { /* a very long path: keep the line whole */
        n = (int)sizeof g_line - 1;
        g_line[n - 1] = '\n';
    }
    g_len = (size_t)n;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigbus;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}
