/* cuzk serve: the proving daemon (engine + HTTP server) in one process.
 *
 * Settings: defaults, then --config FILE (INI), then flags; every setting of
 * the engine's table is also a flag (--listen, --state-dir, ...). Logs one
 * structured line per event on stderr: `ts=<UTC> event=<name> k=v ...`.
 * SIGTERM / SIGINT drain: new jobs are refused (503), running jobs get
 * engine.drain_timeout to finish, queued ones stay journaled for the next
 * start; then the process exits 0. Without --foreground the daemon detaches
 * once it listens (logging to <state_dir>/cuzk.log) and the command prints
 * its URL and pid.
 *
 * Memory: glibc gives threads up to 8 malloc arenas per core, and the HTTP
 * server starts a thread per connection, so a busy daemon spreads its small
 * allocations over dozens of arenas whose free space is not returned: RSS
 * rose 3.7 MB from 200 to 2200 jobs of the load test with the live heap
 * flat, 2.3 MB with four arenas, then flat (docs/DAEMON.md, measured with
 * MALLOC_ARENA_MAX); the provers make few, large allocations per proof,
 * so four arenas do not make them wait on each other. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Not only public headers: the engine, HTTP server and client are static
 * libraries of the cuzk executable (src/engine, src/server, src/client),
 * deliberately outside libcuzk and its public API, so that libcuzk needs no
 * SQLite, libmicrohttpd or libcurl; util/ supplies the clock and allocation
 * helpers they share. */
#include "cli.h"
#include "engine/engine.h"
#include "server/server.h"

static void log_line(void *user, const char *event, const char *fields)
{
    (void)user;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char ts[40];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    /* One fprintf per line: stdio locks the stream, so lines never interleave. */
    fprintf(stderr, "ts=%s.%03dZ event=%s%s%s\n", ts, (int)(tv.tv_usec / 1000), event,
            fields && *fields ? " " : "", fields ? fields : "");
}

static void print_settings_help(void)
{
    size_t n;
    const cuzk_setting *t = cuzk_config_settings(&n);
    static const char *types[] = {"TEXT", "N", "BOOL", "SIZE", "DURATION"};
    const char *section = "";
    for (size_t i = 0; i < n; i++) {
        if (strcmp(section, t[i].section)) {
            section = t[i].section;
            printf("\n[%s]\n", section);
        }
        char flag[96];
        snprintf(flag, sizeof flag, "--%s %s", t[i].flag, types[t[i].type]);
        printf("  %-30s %s (default: %s)\n", flag, t[i].help, t[i].def[0] ? t[i].def : "\"\"");
    }
}

static const char USAGE[] =
    "Usage: cuzk serve [--foreground] [--config FILE] [--SETTING VALUE ...]\n"
    "\n"
    "Runs the proving daemon: keys kept resident, a durable priority queue, workers,\n"
    "and the HTTP API (docs/API.md). With no options it listens on 127.0.0.1:9820\n"
    "and keeps its state in ./cuzk-state. Settings come from the defaults, then the\n"
    "config file (INI: [section] then name = value), then these flags.\n"
    "\n"
    "  --foreground       stay attached and log to stderr (for systemd, containers)\n"
    "                     (without it the daemon detaches once it listens and logs to\n"
    "                     <state_dir>/cuzk.log)\n"
    "  --config FILE      read settings from FILE\n"
    "  --print-config     print the effective settings as INI and exit\n"
    "\n"
    "Settings (also config-file names):\n";

/* Detaches: the parent waits until the child reports it listens (or why it
 * could not), prints that and exits. Returns the pipe's write end in the
 * child, or -1 in the parent after printing (ret_code set). */
static int detach(const char *log_path, int *ret_code)
{
    int p[2];
    if (pipe(p)) {
        fprintf(stderr, "Error: pipe: %s\n", strerror(errno));
        *ret_code = 2;
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "Error: fork: %s\n", strerror(errno));
        *ret_code = 2;
        return -1;
    }
    if (pid > 0) {
        close(p[1]);
        char buf[1024];
        ssize_t n, tot = 0;
        while (tot < (ssize_t)sizeof buf - 1 && (n = read(p[0], buf + tot, sizeof buf - 1 - (size_t)tot)) > 0)
            tot += n;
        buf[tot > 0 ? tot : 0] = 0;
        close(p[0]);
        if (!strncmp(buf, "ok ", 3)) {
            printf("cuzk serve: %s (pid %d, log %s)\n", buf + 3, (int)pid, log_path);
            *ret_code = 0;
        } else if (buf[0] == 'E') { /* "E<code> <message>" from the child */
            char *msg = strchr(buf, ' ');
            fprintf(stderr, "Error: %s", msg ? msg + 1 : buf);
            *ret_code = atoi(buf + 1) > 0 ? atoi(buf + 1) : 2;
        } else {
            fprintf(stderr, "Error: the daemon exited during start (see %s)\n", log_path);
            *ret_code = 2;
        }
        return -1;
    }
    close(p[0]);
    setsid();
    int nul = open("/dev/null", O_RDWR);
    int lf = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (nul >= 0) {
        dup2(nul, 0);
        dup2(nul, 1);
    }
    if (lf >= 0)
        dup2(lf, 2);
    if (nul > 2)
        close(nul);
    if (lf > 2)
        close(lf);
    return p[1];
}

/* Removes a state directory this start created, with what the engine put
 * there (nothing else: it was new). */
static void remove_state_dir(const char *dir)
{
    static const char *const files[] = {"journal.db", "journal.db-wal", "journal.db-shm", "journal.db-journal",
                                        "keys.db",    "keys.db-wal",    "keys.db-shm",    "keys.db-journal",
                                        "lock",       "cuzk.log"};
    char p[CUZK_CFG_STR_MAX + 32];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/spool", dir);
    rmdir(p);
    rmdir(dir);
}

/* The options of `cuzk serve`: its own (below) and one per setting of the
 * engine's table (cuzk_config_settings: --state-dir, --listen, ...), so a
 * setting added there is a flag here. Parsed by getopt_long twice: first
 * every --config file is loaded, so that flags override it wherever they
 * appear; then the settings in order. A bool setting may stand alone
 * (--paused = --paused true) or take its value as the next argument. */
enum { SERVE_HELP = 200, SERVE_FOREGROUND, SERVE_PRINT_CONFIG, SERVE_CONFIG, SERVE_SETTING = 256 };

static int serve_pass(int argc, char **argv, const struct option *lo, const cuzk_setting *t, int load,
                      cuzk_config *cfg, int *foreground, int *print_config)
{
    opterr = 0;
    optind = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", lo, NULL)) != -1) {
        cuzk_error err = {0};
        if (c == '?' || c == ':') {
            char name[80];
            if (optopt >= SERVE_SETTING)
                snprintf(name, sizeof name, "--%s", t[optopt - SERVE_SETTING].flag);
            else if (optopt >= SERVE_HELP)
                snprintf(name, sizeof name, "--%s", lo[optopt - SERVE_HELP].name);
            else if (optopt > 0)
                snprintf(name, sizeof name, "-%c", optopt);
            else
                snprintf(name, sizeof name, "%.*s", (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
            return cli_usage_error(USAGE, c == ':'              ? "option '%s' needs a value"
                                          : optopt >= SERVE_HELP ? "option '%s' takes no value"
                                                                 : "unknown option '%s'", name);
        }
        if (c == 'h' || c == SERVE_HELP) {
            fputs(USAGE, stdout);
            print_settings_help();
            return 0;
        }
        if (c == SERVE_FOREGROUND)
            *foreground = 1;
        else if (c == SERVE_PRINT_CONFIG)
            *print_config = 1;
        else if (c == SERVE_CONFIG) {
            if (load && cuzk_config_load(cfg, optarg, &err))
                return cli_fail(&err);
        } else if (c >= SERVE_SETTING) {
            const cuzk_setting *st = &t[c - SERVE_SETTING];
            const char *value = optarg;
            if (st->type == CUZK_SET_BOOL && !value) /* both passes: the value is not an argument */
                value = optind < argc && argv[optind][0] != '-' ? argv[optind++] : "true";
            if (!load && cuzk_config_set(cfg, st->flag, value, &err))
                return cli_fail(&err);
        }
    }
    if (optind < argc)
        return cli_usage_error(USAGE, "unexpected argument '%s' (settings are --name value)", argv[optind]);
    return -1;
}

/* Returns -1 to go on, or the exit code to return now. */
static int serve_parse(int argc, char **argv, cuzk_config *cfg, int *foreground, int *print_config)
{
    size_t n;
    const cuzk_setting *t = cuzk_config_settings(&n);
    struct option *lo = calloc(n + 5, sizeof *lo);
    if (!lo) {
        fputs("Error: out of memory\n", stderr);
        return CUZK_ERR_NOMEM;
    }
    size_t k = 0;
    lo[k++] = (struct option){"help", no_argument, NULL, SERVE_HELP};
    lo[k++] = (struct option){"foreground", no_argument, NULL, SERVE_FOREGROUND};
    lo[k++] = (struct option){"print-config", no_argument, NULL, SERVE_PRINT_CONFIG};
    lo[k++] = (struct option){"config", required_argument, NULL, SERVE_CONFIG};
    for (size_t i = 0; i < n; i++)
        lo[k++] = (struct option){t[i].flag, t[i].type == CUZK_SET_BOOL ? optional_argument : required_argument,
                                  NULL, SERVE_SETTING + (int)i};
    int rc = serve_pass(argc, argv, lo, t, 1, cfg, foreground, print_config);
    if (rc < 0)
        rc = serve_pass(argc, argv, lo, t, 0, cfg, foreground, print_config);
    free(lo);
    return rc;
}

int cmd_serve(int argc, char **argv)
{
    cuzk_config cfg;
    cuzk_config_init(&cfg);
    int foreground = 0, print_config = 0;
    int prc = serve_parse(argc, argv, &cfg, &foreground, &print_config);
    if (prc >= 0)
        return prc;
    /* The token from a file or the environment: a flag shows in ps. */
    if (cfg.token_file[0]) {
        FILE *tf = fopen(cfg.token_file, "re");
        char line[CUZK_CFG_STR_MAX] = "";
        if (!tf || !fgets(line, sizeof line, tf)) {
            fprintf(stderr, "Error: %s: cannot read the token (server.token_file): %s\n", cfg.token_file,
                    tf ? "empty" : strerror(errno));
            if (tf)
                fclose(tf);
            return 2;
        }
        fclose(tf);
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) {
            fprintf(stderr, "Error: %s: the first line is empty (server.token_file)\n", cfg.token_file);
            return 1;
        }
        snprintf(cfg.token, sizeof cfg.token, "%s", line);
    } else if (!cfg.token[0] && getenv("CUZK_TOKEN") && *getenv("CUZK_TOKEN")) {
        snprintf(cfg.token, sizeof cfg.token, "%s", getenv("CUZK_TOKEN"));
    }
    if (cfg.cluster_token_file[0]) { /* the same for the hosts' token */
        FILE *tf = fopen(cfg.cluster_token_file, "re");
        char line[CUZK_CFG_STR_MAX] = "";
        if (!tf || !fgets(line, sizeof line, tf)) {
            fprintf(stderr, "Error: %s: cannot read the token (cluster.token_file): %s\n",
                    cfg.cluster_token_file, tf ? "empty" : strerror(errno));
            if (tf)
                fclose(tf);
            return 2;
        }
        fclose(tf);
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) {
            fprintf(stderr, "Error: %s: the first line is empty (cluster.token_file)\n",
                    cfg.cluster_token_file);
            return 1;
        }
        snprintf(cfg.cluster_token, sizeof cfg.cluster_token, "%s", line);
    }
    if (print_config) {
        char *text = cuzk_config_format(&cfg);
        if (text)
            fputs(text, stdout);
        free(text);
        return 0;
    }

    int ready_fd = -1;
    struct stat sdir;
    int made_state_dir = stat(cfg.state_dir, &sdir) != 0 && errno == ENOENT;
    if (!foreground) {
        if (mkdir(cfg.state_dir, 0700) && errno != EEXIST) {
            fprintf(stderr, "Error: %s: cannot create the state directory: %s\n", cfg.state_dir, strerror(errno));
            return 2;
        }
        char log_path[CUZK_CFG_STR_MAX + 16];
        snprintf(log_path, sizeof log_path, "%s/cuzk.log", cfg.state_dir);
        int rc;
        if ((ready_fd = detach(log_path, &rc)) < 0)
            return rc;
    }

    mallopt(M_ARENA_MAX, 4); /* before any thread starts (see the top) */

    /* Signals are taken by sigwait below: block them before any thread starts. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    cuzk_engine_hooks hooks = {.log = log_line, .user = NULL};
    cuzk_engine *eng = NULL;
    cuzk_server *srv = NULL;
    cuzk_error err = {0};
    if (cuzk_engine_open(&eng, &cfg, &hooks, &err) || cuzk_server_start(&srv, eng, &cfg, &hooks, &err)) {
        cuzk_engine_close(eng);
        log_line(NULL, "start_failed", err.msg);
        if (made_state_dir) /* a start that failed leaves nothing behind */
            remove_state_dir(cfg.state_dir);
        if (ready_fd >= 0) {
            dprintf(ready_fd, "E%d %s\n", (int)err.code, err.msg);
            close(ready_fd);
        }
        return cli_fail(&err);
    }
    log_line(NULL, "ready", "");
    if (ready_fd >= 0) {
        dprintf(ready_fd, "ok %s", cuzk_server_url(srv));
        close(ready_fd);
    }
    int sig = 0;
    do
        sigwait(&sigs, &sig);
    while (sig == SIGHUP); /* no reload: settings are read once */
    char f[64];
    snprintf(f, sizeof f, "signal=%s", sig == SIGTERM ? "TERM" : "INT");
    log_line(NULL, "draining", f);
    /* The API stays up while running jobs finish, so waiting clients get them. */
    cuzk_engine_drain(eng, -1);
    cuzk_server_stop(srv);
    cuzk_engine_close(eng);
    log_line(NULL, "stopped", "");
    return 0;
}
