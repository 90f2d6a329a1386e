#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char COMMON_HELP[] =
    "Common options:\n"
    "  -t, --threads N   worker threads (default: all CPUs)\n"
    "  -v, --verbose     print per-phase timing lines (CUZK_TIMING ...) on stderr\n"
    "  -q, --quiet       no progress bar\n"
    "  -h, --help        this help\n";

/* "Error: <msg> (see 'cuzk <command> --help')": one line, the command taken
 * from the usage text ("Usage: cuzk <command> ..."). Returns 1. */
int cli_usage_error(const char *usage, const char *fmt, ...)
{
    char cmd[32] = "";
    const char *u = usage ? strstr(usage, "cuzk ") : NULL;
    if (u) {
        u += 5;
        size_t n = strcspn(u, " \n");
        if (n < sizeof cmd && u[0] != '<' && u[0] != '[')
            memcpy(cmd, u, n), cmd[n] = 0;
    }
    va_list ap;
    va_start(ap, fmt);
    fputs("Error: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (see 'cuzk %s%s--help')\n", cmd, cmd[0] ? " " : "");
    return 1;
}

int cli_gpu_arg(const char *v, int allow_auto, int *gpu, int *device, const char *usage)
{
    if (!v)
        return 0;
    *gpu = 1;
    if (!*v) /* --gpu alone: *device as it is (default 0) */
        return 0;
    char *end;
    const long d = strtol(v, &end, 10);
    if (allow_auto && !strcmp(v, "auto"))
        *gpu = 2;
    else if (*v >= '0' && *v <= '9' && !*end && d >= 0 && d < 1024)
        *device = (int)d;
    else
        return cli_usage_error(usage, "--gpu takes a device number%s, got '%s'", allow_auto ? " or 'auto'" : "", v);
    return 0;
}

int cli_getopt(int argc, char **argv, const cli_opt *const *tables, int ntables, const char *usage,
               int *first_pos)
{
    enum { MAX = 64 };
    const cli_opt *all[MAX];
    struct option lo[MAX + 1];
    char shorts[3 * MAX + 2] = ":"; /* ':': a missing value is told apart */
    size_t ns = 1;
    int n = 0;
    for (int t = 0; t < ntables; t++)
        for (const cli_opt *o = tables[t]; o && o->long_name; o++) {
            if (n == MAX) {
                fputs("Error: internal: too many options in one table\n", stderr);
                return 1;
            }
            const int has = o->takes_value == CLI_VALUE ? required_argument
                            : o->takes_value == CLI_OPTIONAL ? optional_argument : no_argument;
            all[n] = o;
            lo[n] = (struct option){o->long_name, has, NULL, 256 + n};
            if (o->short_name) {
                shorts[ns++] = o->short_name;
                if (has != no_argument)
                    shorts[ns++] = ':';
                if (has == optional_argument)
                    shorts[ns++] = ':';
            }
            n++;
        }
    shorts[ns] = 0;
    lo[n] = (struct option){NULL, 0, NULL, 0};
    opterr = 0; /* the messages are ours: one line each */
    optind = 0; /* glibc: start over (a command may parse after the dispatcher) */
    int c;
    while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
        const cli_opt *o = NULL;
        char name[80];
        if (c == '?' || c == ':') {
            if (optopt >= 256 && optopt < 256 + n)
                snprintf(name, sizeof name, "--%s", all[optopt - 256]->long_name);
            else if (optopt > 0 && optopt < 256)
                snprintf(name, sizeof name, "-%c", optopt);
            else /* an unknown or ambiguous long option: as typed */
                snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
            if (c == ':')
                return cli_usage_error(usage, "option '%s' needs a value", name);
            if (optopt >= 256)
                return cli_usage_error(usage, "option '%s' takes no value", name);
            return cli_usage_error(usage, "unknown option '%s'", name);
        }
        if (c >= 256)
            o = all[c - 256];
        else
            for (int i = 0; i < n && !o; i++)
                if (all[i]->short_name == c)
                    o = all[i];
        if (!o)
            return cli_usage_error(usage, "unknown option '-%c'", c);
        if (o->takes_value == CLI_FLAG)
            *o->flag = 1;
        else if (o->takes_value == CLI_VALUE)
            *o->value = optarg;
        else
            *o->value = optarg ? optarg : "";
    }
    *first_pos = optind;
    return 0;
}

int cli_peek(int argc, char **argv, const char *name, const char **value)
{
    const struct option lo[] = {{name, required_argument, NULL, 256}, {NULL, 0, NULL, 0}};
    *value = NULL;
    int c, r = 0;
    opterr = 0;
    optind = 0;
    /* "-": arguments stay in place and come back as 1, other options as '?' */
    while ((c = getopt_long(argc, argv, "-:", lo, NULL)) != -1) {
        if (c == 256)
            *value = optarg;
        else if (c == ':' && optopt == 256)
            r = 1;
    }
    optind = 0;
    return r;
}

int cli_parse(int argc, char **argv, const cli_opt *opts, cli_common *common,
              const char **pos, int max_pos, int *npos, const char *usage)
{
    const cli_opt *tables[] = {opts};
    return cli_parse_tables(argc, argv, tables, 1, common, pos, max_pos, npos, usage);
}

int cli_parse_tables(int argc, char **argv, const cli_opt *const *tables, int ntables, cli_common *common,
                     const char **pos, int max_pos, int *npos, const char *usage)
{
    const char *threads_val = NULL;
    int verbose_flag = 0, quiet_flag = 0, help_flag = 0;
    const cli_opt common_opts[] = {
        {"threads", 't', CLI_VALUE, &threads_val, NULL},
        {"verbose", 'v', CLI_FLAG, NULL, &verbose_flag},
        {"quiet", 'q', CLI_FLAG, NULL, &quiet_flag},
        {"help", 'h', CLI_FLAG, NULL, &help_flag},
        {NULL, 0, 0, NULL, NULL},
    };
    enum { MAX_TABLES = 8 };
    const cli_opt *all[MAX_TABLES + 1];
    int nt = 0;
    for (int t = 0; t < ntables && nt < MAX_TABLES; t++)
        all[nt++] = tables[t];
    all[nt++] = common_opts;
    int first;
    *npos = 0;
    if (cli_getopt(argc, argv, all, nt, usage, &first))
        return 1;
    if (help_flag) {
        fputs(usage, stdout);
        fputs(COMMON_HELP, stdout);
        return 2;
    }
    for (int i = first; i < argc; i++) {
        if (*npos >= max_pos)
            return cli_usage_error(usage, "too many arguments (unexpected '%s')", argv[i]);
        pos[(*npos)++] = argv[i];
    }
    common->verbose = verbose_flag;
    common->quiet = quiet_flag;
    common->threads = 0;
    if (threads_val) {
        char *end;
        long t = strtol(threads_val, &end, 10);
        if (*end || t < 1 || t > 4096) {
            return cli_usage_error(usage, "--threads must be a number from 1 to 4096, got '%s'", threads_val);
        }
        common->threads = (int)t;
    }
    return 0;
}

int cli_parse_exact(int argc, char **argv, const cli_opt *opts, cli_common *common,
                    const char **pos, int n, const char *cmd, const char *usage)
{
    int npos, r = cli_parse(argc, argv, opts, common, pos, n, &npos, usage);
    if (r)
        return r == 2 ? 0 : 1;
    if (npos != n) {
        return cli_usage_error(usage, "%s needs %d argument%s, got %d", cmd, n, n == 1 ? "" : "s", npos);
    }
    return -1;
}

/* ---- progress bar and timing lines ---------------------------------------- */

typedef struct cli_ui {
    int verbose;
    int bar;           /* draw a progress bar (stderr is a TTY and not -q) */
    double t_start;    /* when the command started */
    int drawn;         /* a bar line is on screen */
    char phase[64];
    cli_tracer *trace; /* --trace, or NULL */
} cli_ui;

static cli_ui g_ui; /* the CLI is one process running one command */

static void ui_clear(void)
{
    if (g_ui.drawn) {
        fputs("\r\033[K", stderr);
        g_ui.drawn = 0;
    }
}

static void ui_progress(void *user, cuzk_phase ph, double frac)
{
    (void)user;
    const char *phase = cuzk_phase_name(ph);
    if (!g_ui.bar)
        return;
    /* Only long work gets a bar: nothing in the first second. */
    if (cli_now() - g_ui.t_start < 1.0)
        return;
    if (frac >= 1.0) {
        ui_clear();
        return;
    }
    /* Redraw at most every 50 ms, and whenever a new phase starts. */
    static double last;
    double now = cli_now();
    if (now - last < 0.05 && g_ui.drawn && !strcmp(g_ui.phase, phase))
        return;
    last = now;
    snprintf(g_ui.phase, sizeof g_ui.phase, "%s", phase);
    int width = 30, fill = (int)(frac * width + 0.5);
    char bar[40];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r\033[K%-12s [%s] %3d%%  %.1fs", phase, bar, (int)(frac * 100 + 0.5),
            cli_now() - g_ui.t_start);
    fflush(stderr);
    g_ui.drawn = 1;
}

static void ui_timing(void *user, cuzk_phase phase, double seconds)
{
    (void)user;
    if (!g_ui.verbose)
        return;
    ui_clear();
    fprintf(stderr, "CUZK_TIMING phase=%s ms=%.3f\n", cuzk_phase_name(phase), seconds * 1e3);
}

void cli_print_device_span(const cuzk_span *sp)
{
    fprintf(stderr, "CUZK_TIMING phase=gpu.%s ms=%.3f device=%d worker=%d stream=%s\n", sp->name,
            (sp->end - sp->start) * 1e3, sp->device, sp->worker, sp->stream ? "copy" : "compute");
}

/* Device intervals: a timing line with -v (host phases have theirs from
 * ui_timing; the host's calls for the device, stream 2, only in the trace);
 * every span to the trace. */
static void ui_span(void *user, const cuzk_span *sp)
{
    (void)user;
    if (g_ui.verbose && sp->device >= 0 && sp->stream != 2) {
        ui_clear();
        cli_print_device_span(sp);
    }
    cli_tracer_span(g_ui.trace, sp->device < 0 ? sp->worker : 0, sp); /* host: the operation's worker thread */
}

void cli_trace_to(cli_tracer *tr) { g_ui.trace = tr; }

void cli_phase_done(cuzk_phase phase, double t0, double t1)
{
    cuzk_span sp = {cuzk_phase_name(phase), phase, -1, 0, 0, t0, t1};
    ui_span(NULL, &sp);
    ui_timing(NULL, phase, t1 - t0);
}

void cli_progress_done(void) { ui_clear(); }

/* SIGINT / SIGTERM raise the context's cancel flag: the command stops at its
 * next check (cuzk_ctx_opts.cancelled), removes its temporary files and
 * exits 9 (cancelled). The handler is reset by the first signal, so a second
 * one kills at once. A closed pipe becomes a write error (EPIPE) instead of a
 * kill, so the temporary files of the other outputs are removed too. */
static volatile sig_atomic_t g_cancel;

static void on_signal(int sig)
{
    (void)sig;
    g_cancel = 1;
}

/* The context's cancellation callback. */
static int cli_cancelled(void *user)
{
    (void)user;
    return g_cancel != 0;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

cuzk_status cli_make_ctx(cuzk_ctx **ctx, const cli_common *common, cuzk_error *err)
{
    install_signals();
    g_ui.verbose = common->verbose;
    g_ui.bar = !common->quiet && isatty(STDERR_FILENO);
    g_ui.t_start = cli_now();
    cuzk_ctx_opts o = {0};
    o.threads = common->threads;
    o.progress = ui_progress;
    o.timing = ui_timing;
    o.cancelled = cli_cancelled;
    o.span = ui_span;
    return cuzk_ctx_create(ctx, &o, err);
}

int cli_fail(const cuzk_error *err)
{
    ui_clear();
    fprintf(stderr, "Error: %s\n", err->msg[0] ? err->msg : cuzk_status_name(err->code));
    return err->code ? (int)err->code : 1;
}

int cli_parse_stage_bases(const char *s, int *out, const char *usage)
{
    if (!s || !strcmp(s, "auto"))
        *out = 0;
    else if (!strcmp(s, "yes"))
        *out = 1;
    else if (!strcmp(s, "no"))
        *out = -1;
    else
        return cli_usage_error(usage, "--stage-bases takes auto, yes or no, got '%s'", s);
    return 0;
}

int cli_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double mul = 1;
    if (end != s) {
        switch (*end) {
        case 'k': case 'K': mul = 1024.0; end++; break;
        case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
        case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
        case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
        default: break;
        }
        if (mul > 1 && (!strcmp(end, "iB") || !strcmp(end, "B")))
            end += strlen(end);
    }
    double bytes = v * mul;
    if (end == s || *end || errno || !(bytes >= 1) || bytes >= 18e18)
        return 1;
    *out = (size_t)bytes;
    return 0;
}
