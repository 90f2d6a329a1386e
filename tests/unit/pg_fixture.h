/* A throwaway PostgreSQL cluster for tests: initdb into a temporary
 * directory, listening on a Unix socket there only (no TCP port to collide),
 * fsync off (the tests crash processes, not machines) but synchronous
 * commits on (an acknowledged commit must survive a server crash), stopped
 * and removed at exit (pgfx_fsync = 1: fsync on, for benchmarks). As root the server runs as the `postgres` user
 * (runuser); otherwise as the current user. The server binaries come from
 * Debian's `postgresql` package (scripts/deps.sh); without them pgfx_start
 * fails and says what to install. */
#ifndef CUZK_TEST_PG_FIXTURE_H
#define CUZK_TEST_PG_FIXTURE_H

#include <glob.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char pgfx_dir[128];   /* the cluster's directory; its socket lives here */
static char pgfx_bin[256];   /* .../bin of the server */
static char pgfx_as[64];     /* "runuser -u postgres -- " as root, else "" */
static int pgfx_running;
static int pgfx_fsync;       /* set before pgfx_start: fsync on (benchmarks comparing durable commits) */

static inline int pgfx_sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}

static inline void pgfx_stop(void)
{
    if (!pgfx_dir[0])
        return;
    if (pgfx_running)
        pgfx_sh("%s%s/pg_ctl -D %s/data -m immediate -w stop >/dev/null 2>&1", pgfx_as, pgfx_bin,
                pgfx_dir);
    pgfx_running = 0;
    pgfx_sh("rm -rf '%s'", pgfx_dir);
    pgfx_dir[0] = 0;
}

static inline void pgfx_on_signal(int sig)
{
    pgfx_stop();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Starts the cluster; 0, or -1 after saying why on stderr. */
static inline int pgfx_start(void)
{
    glob_t g;
    if (glob("/usr/lib/postgresql/*/bin/initdb", 0, NULL, &g) || !g.gl_pathc) {
        fprintf(stderr, "Error: the PostgreSQL server is not installed (no "
                        "/usr/lib/postgresql/*/bin/initdb): install the Debian package "
                        "`postgresql` (scripts/deps.sh) to run the PostgreSQL queue tests\n");
        return -1;
    }
    snprintf(pgfx_bin, sizeof pgfx_bin, "%s", g.gl_pathv[g.gl_pathc - 1]);
    globfree(&g);
    *strrchr(pgfx_bin, '/') = 0;
    snprintf(pgfx_dir, sizeof pgfx_dir, "/tmp/cuzk-pg-XXXXXX");
    if (!mkdtemp(pgfx_dir)) {
        fprintf(stderr, "Error: /tmp: cannot make a directory for the test database\n");
        pgfx_dir[0] = 0;
        return -1;
    }
    if (geteuid() == 0) { /* initdb refuses root: the server runs as postgres */
        struct passwd *pw = getpwnam("postgres");
        if (!pw) {
            fprintf(stderr, "Error: running as root without a `postgres` user: install the "
                            "Debian package `postgresql` (scripts/deps.sh)\n");
            pgfx_stop();
            return -1;
        }
        if (chown(pgfx_dir, pw->pw_uid, pw->pw_gid)) {
            fprintf(stderr, "Error: %s: cannot hand it to the postgres user\n", pgfx_dir);
            pgfx_stop();
            return -1;
        }
        snprintf(pgfx_as, sizeof pgfx_as, "runuser -u postgres -- ");
    }
    atexit(pgfx_stop);
    signal(SIGTERM, pgfx_on_signal);
    signal(SIGINT, pgfx_on_signal);
    if (pgfx_sh("%s%s/initdb -D %s/data -A trust -U postgres -E UTF8 --no-sync --no-instructions"
                " >%s/initdb.log 2>&1",
                pgfx_as, pgfx_bin, pgfx_dir, pgfx_dir)) {
        fprintf(stderr, "Error: initdb failed:\n");
        pgfx_sh("cat %s/initdb.log >&2", pgfx_dir);
        pgfx_stop();
        return -1;
    }
    if (pgfx_sh("%s%s/pg_ctl -D %s/data -w -t 60 -l %s/log -o \"-k %s -c listen_addresses=''"
                " -c fsync=%s\" start >/dev/null",
                pgfx_as, pgfx_bin, pgfx_dir, pgfx_dir, pgfx_dir, pgfx_fsync ? "on" : "off")) {
        fprintf(stderr, "Error: the test PostgreSQL server did not start:\n");
        pgfx_sh("cat %s/log >&2", pgfx_dir);
        pgfx_stop();
        return -1;
    }
    pgfx_running = 1;
    return 0;
}

/* Crashes the server and starts it again (its clients lose their connections). */
static inline int pgfx_restart_immediate(void)
{
    return pgfx_sh("%s%s/pg_ctl -D %s/data -m immediate -w -t 60 -l %s/log restart >/dev/null",
                   pgfx_as, pgfx_bin, pgfx_dir, pgfx_dir);
}

/* The conninfo of database db in the cluster. */
static inline const char *pgfx_conninfo(const char *db)
{
    static char buf[4][300];
    static int k;
    char *b = buf[k++ & 3];
    snprintf(b, 300, "host=%s dbname=%s user=postgres", pgfx_dir, db);
    return b;
}

/* Runs sql on database db; 0 or -1 (said on stderr). With out: the first
 * column of the first row. */
static inline int pgfx_sql(const char *db, const char *sql, char *out, size_t cap)
{
    PGconn *c = PQconnectdb(pgfx_conninfo(db));
    int rc = -1;
    if (PQstatus(c) == CONNECTION_OK) {
        PGresult *r = PQexec(c, sql);
        ExecStatusType s = PQresultStatus(r);
        if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
            rc = 0;
            if (out && cap)
                snprintf(out, cap, "%s", PQntuples(r) ? PQgetvalue(r, 0, 0) : "");
        } else {
            fprintf(stderr, "pgfx: %s: %s", sql, PQresultErrorMessage(r));
        }
        PQclear(r);
    } else {
        fprintf(stderr, "pgfx: %s", PQerrorMessage(c));
    }
    PQfinish(c);
    return rc;
}

#endif
