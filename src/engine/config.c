/* The daemon's settings table: one row per setting (section, name, flag,
 * type, default, help, field), the only place a setting is declared. Defaults,
 * the INI file (libinih) and flags all go through cuzk_config_set. */
#include "engine/engine.h"
#include "engine/queue.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define F(field) offsetof(cuzk_config, field)
#define S(field) sizeof(((cuzk_config *)0)->field)

static const cuzk_setting SETTINGS[] = {
    {"server", "listen", "listen", CUZK_SET_STRING, "127.0.0.1:9820",
     "TCP address to listen on (ADDR:PORT); a bearer token is required beyond localhost",
     F(listen), S(listen)},
    {"server", "socket", "socket", CUZK_SET_STRING, "",
     "also listen on this Unix socket path (\"\" = none)", F(socket), S(socket)},
    {"server", "token", "token", CUZK_SET_STRING, "",
     "bearer token clients must send (Authorization: Bearer ...); visible in ps as a flag: prefer "
     "token_file or $CUZK_TOKEN", F(token), S(token)},
    {"server", "token_file", "token-file", CUZK_SET_STRING, "",
     "read the bearer token from this file (its first line); without token or token_file, cuzk serve "
     "takes $CUZK_TOKEN",
     F(token_file), S(token_file)},
    {"server", "max_request_bytes", "max-request-bytes", CUZK_SET_SIZE, "1G",
     "largest request body accepted (a witness upload)", F(max_request_bytes),
     S(max_request_bytes)},
    {"server", "rate_limit", "rate-limit", CUZK_SET_INT, "1000",
     "requests per second per client address, bursts of two seconds' worth (0 = unlimited)",
     F(rate_limit), S(rate_limit)},
    {"server", "max_connections", "max-connections", CUZK_SET_INT, "1024",
     "HTTP connections open at once (each long-poll holds one)", F(max_connections),
     S(max_connections)},
    {"server", "request_timeout", "request-timeout", CUZK_SET_DURATION, "60s",
     "a connection idle or stalled mid-request this long is closed", F(request_timeout_s),
     S(request_timeout_s)},
    {"server", "header_timeout", "header-timeout", CUZK_SET_DURATION, "10s",
     "a request's headers must all arrive within this (total, however slowly they trickle); "
     "also how long a body may take before body_min_rate applies",
     F(header_timeout_s), S(header_timeout_s)},
    {"server", "body_min_rate", "body-min-rate", CUZK_SET_SIZE, "64K",
     "bytes per second a request body must average once header_timeout has passed (0 = no minimum)",
     F(body_min_rate), S(body_min_rate)},
    {"server", "max_connections_per_address", "max-connections-per-address", CUZK_SET_INT, "256",
     "TCP connections open at once from one client address (0 = no limit)",
     F(max_connections_per_address), S(max_connections_per_address)},
    {"server", "body_memory", "body-memory", CUZK_SET_SIZE, "auto",
     "request bodies in memory at once, all requests (each counts twice; auto = 2 x max_request_bytes); "
     "one that does not fit now gets 503, one that never can 413",
     F(body_memory), S(body_memory)},
    {"server", "local_files", "local-files", CUZK_SET_BOOL, "true",
     "a client on this machine (the Unix socket, or TCP from a local address) may name any file its own "
     "user can read, besides keys.dirs and witness.dirs",
     F(local_files), S(local_files)},

    {"engine", "state_dir", "state-dir", CUZK_SET_STRING, "cuzk-state",
     "directory for the job journal (SQLite), the witness spool and the lock", F(state_dir),
     S(state_dir)},
    {"engine", "host_id", "host-id", CUZK_SET_STRING, "",
     "this host's name in the job queue (\"\" = the host name)", F(host_id), S(host_id)},
    {"engine", "cpu_workers", "cpu-workers", CUZK_SET_INT, "1",
     "CPU prover workers, used when there is no GPU", F(cpu_workers), S(cpu_workers)},
    {"engine", "threads", "threads", CUZK_SET_INT, "0",
     "CPU threads of the pool the workers share (0 = online CPUs)", F(threads), S(threads)},
    {"engine", "max_queued", "max-queued", CUZK_SET_INT, "10000",
     "jobs queued or running before new ones are refused (busy, HTTP 429)", F(max_queued),
     S(max_queued)},
    {"engine", "max_spool_bytes", "max-spool-bytes", CUZK_SET_SIZE, "16G",
     "witness bytes waiting in the spool before new jobs are refused", F(max_spool_bytes),
     S(max_spool_bytes)},
    {"engine", "max_attempts", "max-attempts", CUZK_SET_INT, "3",
     "a job interrupted (crash, drain) this many times fails instead of running again",
     F(max_attempts), S(max_attempts)},
    {"engine", "retention", "retention", CUZK_SET_DURATION, "1h",
     "how long finished jobs and their proofs stay retrievable", F(retention_s),
     S(retention_s)},
    {"engine", "drain_timeout", "drain-timeout", CUZK_SET_DURATION, "60s",
     "on SIGTERM, how long running jobs may take before they are stopped and requeued",
     F(drain_timeout_s), S(drain_timeout_s)},

    {"engine", "paused", "paused", CUZK_SET_BOOL, "false",
     "start with the workers paused: jobs are accepted and queued, none runs until "
     "POST /v1/workers/resume (cuzk workers resume)",
     F(paused), S(paused)},

    {"engine", "queue", "queue", CUZK_SET_STRING, "sqlite",
     "the job queue: \"sqlite\" (state_dir/journal.db, this host only) or a PostgreSQL "
     "postgresql:// URI or conninfo that several hosts share (docs/CLUSTER.md)",
     F(queue), S(queue)},
    {"engine", "lease", "lease", CUZK_SET_DURATION, "30s",
     "PostgreSQL queue: a claimed job is this host's for this long unless renewed; "
     "a dead host's jobs run elsewhere after it",
     F(lease_s), S(lease_s)},
    {"engine", "lease_renew", "lease-renew", CUZK_SET_DURATION, "5s",
     "PostgreSQL queue: how often this host renews its leases and rescues expired ones",
     F(lease_renew_s), S(lease_renew_s)},
    {"engine", "affinity_delay", "affinity-delay", CUZK_SET_DURATION, "5s",
     "PostgreSQL queue: a job whose key is loaded on another live host waits this long for "
     "that host before this one takes it and loads the key (critical jobs never wait; 0 = no affinity)",
     F(affinity_delay_s), S(affinity_delay_s)},
    {"engine", "notify", "notify", CUZK_SET_BOOL, "true",
     "PostgreSQL queue: wake idle workers with LISTEN/NOTIFY when a job is queued "
     "(false = polling only, as YugabyteDB without LISTEN/NOTIFY needs)",
     F(notify), S(notify)},

    {"cluster", "advertise_url", "advertise-url", CUZK_SET_STRING, "",
     "PostgreSQL queue: this host's API URL for the other hosts (auto = the address bound); "
     "witnesses over inline_witness_max then stay here, served by GET /v1/blobs",
     F(advertise_url), S(advertise_url)},
    {"cluster", "token", "cluster-token", CUZK_SET_STRING, "",
     "PostgreSQL queue: the token hosts send each other for witnesses (GET /v1/blobs); the same on "
     "every host; prefer token_file",
     F(cluster_token), S(cluster_token)},
    {"cluster", "token_file", "cluster-token-file", CUZK_SET_STRING, "",
     "read cluster.token from this file (its first line)", F(cluster_token_file),
     S(cluster_token_file)},
    {"cluster", "shared_dir", "shared-dir", CUZK_SET_STRING, "",
     "PostgreSQL queue: a directory all hosts mount: witnesses over inline_witness_max go to "
     "<shared_dir>/<host_id>/ and are read from there",
     F(shared_dir), S(shared_dir)},
    {"cluster", "inline_witness_max", "inline-witness-max", CUZK_SET_SIZE, "1M",
     "PostgreSQL queue with advertise_url or shared_dir: witnesses up to this size are stored in the "
     "database, larger ones stay on the accepting host",
     F(inline_witness_max), S(inline_witness_max)},
    {"cluster", "fetch_timeout", "fetch-timeout", CUZK_SET_DURATION, "10m",
     "PostgreSQL queue: the longest one fetch of a witness from another host may take",
     F(fetch_timeout_s), S(fetch_timeout_s)},

    {"memory", "host", "host-memory", CUZK_SET_SIZE, "auto",
     "host memory budget for resident keys and running jobs (auto = 90% of MemAvailable at start)",
     F(host_memory), S(host_memory)},
    {"memory", "device", "device-memory", CUZK_SET_SIZE, "auto",
     "device memory budget per GPU (auto = free memory at start - max(512M, 2 %))", F(device_memory),
     S(device_memory)},

    {"keys", "preload", "preload", CUZK_SET_STRING, "",
     "comma-separated .zkey paths registered and loaded at start", F(preload), S(preload)},
    {"keys", "dirs", "key-dirs", CUZK_SET_STRING, "",
     "comma-separated directories any client may name .zkey files in (key_path)", F(key_dirs), S(key_dirs)},

    {"witness", "dirs", "witness-dirs", CUZK_SET_STRING, "",
     "comma-separated directories any client may name .wtns files in (witness_path)", F(witness_dirs),
     S(witness_dirs)},

    {"gpu", "devices", "devices", CUZK_SET_STRING, "",
     "GPUs to use: \"\" = all, \"none\" = CPU only, or a list such as \"0,2\"", F(devices),
     S(devices)},
    {"gpu", "workers_per_device", "workers-per-device", CUZK_SET_INT, "2",
     "workers per GPU; they share the GPU's lock so one's CPU work overlaps another's kernels",
     F(workers_per_device), S(workers_per_device)},
    {"gpu", "msm_copies", "msm-copies", CUZK_SET_BOOL, "false",
     "copies of the H MSM's bases in the device memory a resident key's plan leaves (admitted with it): "
     "proofs a few % faster; for a GPU serving one key",
     F(msm_copies), S(msm_copies)},
    {"gpu", "stage_bases", "stage-bases", CUZK_SET_BOOL, "false",
     "streamed MSM bases copied through two page-locked chunks at each proof, not page-locked in the "
     "key file's mapping: less unreclaimable host memory (2^27 at 24G: 35 GiB)",
     F(stage_bases), S(stage_bases)},
};

#define N_SETTINGS (sizeof SETTINGS / sizeof SETTINGS[0])

const cuzk_setting *cuzk_config_settings(size_t *n)
{
    if (n)
        *n = N_SETTINGS;
    return SETTINGS;
}

static void set_err(cuzk_error *err, cuzk_status code, const char *fmt, const char *a,
                    const char *b)
{
    if (!err)
        return;
    err->code = code;
    snprintf(err->msg, sizeof err->msg, fmt, a, b);
}

static const cuzk_setting *find_setting(const char *name)
{
    const char *dot = strchr(name, '.');
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const cuzk_setting *s = &SETTINGS[i];
        if (dot) {
            size_t sl = (size_t)(dot - name);
            if (strlen(s->section) == sl && !strncmp(s->section, name, sl) &&
                !strcmp(s->name, dot + 1))
                return s;
        } else if (!strcmp(s->flag, name)) {
            return s;
        }
    }
    if (!dot) /* a bare name, if it is unique */
        for (size_t i = 0, hits = 0; i < N_SETTINGS; i++)
            if (!strcmp(SETTINGS[i].name, name) && ++hits) {
                for (size_t j = i + 1; j < N_SETTINGS; j++)
                    if (!strcmp(SETTINGS[j].name, name))
                        return NULL;
                return &SETTINGS[i];
            }
    return NULL;
}

static const char *skip_ws(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return s;
}

static int parse_bool(const char *v, int *out)
{
    static const char *yes[] = {"1", "true", "yes", "on"}, *no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < 4; i++) {
        if (!strcasecmp(v, yes[i])) { *out = 1; return 0; }
        if (!strcasecmp(v, no[i])) { *out = 0; return 0; }
    }
    return -1;
}

static int parse_int(const char *v, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *skip_ws(end) || errno || x < 0 || x > 1000000000)
        return -1;
    *out = (int)x;
    return 0;
}

/* "16G", "512MiB", "1.5GB", "4096", "auto" (= 0). */
static int parse_size(const char *v, uint64_t *out)
{
    if (!strcasecmp(v, "auto")) { *out = 0; return 0; }
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno || !(x >= 0))
        return -1;
    const char *u = skip_ws(end);
    double mul = 1;
    if (*u) {
        static const char units[] = "KMGTP";
        const char *p = strchr(units, toupper((unsigned char)*u));
        if (!p)
            return -1;
        mul = pow(1024.0, (double)(p - units + 1));
        u++;
        if (*u == 'i' || *u == 'I')
            u++;
        if (*u == 'b' || *u == 'B')
            u++;
        if (*skip_ws(u))
            return -1;
    }
    x *= mul;
    if (x >= 18446744073709551615.0)
        return -1;
    *out = (uint64_t)x;
    return 0;
}

/* "90", "250ms", "30s", "5m", "2h", "7d". */
static int parse_duration(const char *v, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno || !(x >= 0) || isinf(x))
        return -1;
    const char *u = skip_ws(end);
    double mul = 1;
    if (!strncmp(u, "ms", 2)) { mul = 1e-3; u += 2; }
    else if (*u == 's') { u++; }
    else if (*u == 'm') { mul = 60; u++; }
    else if (*u == 'h') { mul = 3600; u++; }
    else if (*u == 'd') { mul = 86400; u++; }
    if (*skip_ws(u))
        return -1;
    *out = x * mul;
    return 0;
}

static const char *type_name(cuzk_setting_type t)
{
    switch (t) {
    case CUZK_SET_STRING: return "a string";
    case CUZK_SET_INT: return "a non-negative integer";
    case CUZK_SET_BOOL: return "true or false";
    case CUZK_SET_SIZE: return "a size such as 512M or 16G";
    case CUZK_SET_DURATION: return "a duration such as 30s, 5m or 1h";
    }
    return "?";
}

static cuzk_status apply(cuzk_config *cfg, const cuzk_setting *s, const char *value,
                         cuzk_error *err)
{
    char *field = (char *)cfg + s->offset;
    int bad = 0;
    switch (s->type) {
    case CUZK_SET_STRING:
        if (strlen(value) >= s->cap) {
            char lim[32];
            snprintf(lim, sizeof lim, "%zu", s->cap - 1);
            set_err(err, CUZK_ERR_USAGE, "setting %s: longer than %s bytes", s->name, lim);
            return CUZK_ERR_USAGE;
        }
        memcpy(field, value, strlen(value) + 1);
        return CUZK_OK;
    case CUZK_SET_INT: bad = parse_int(value, (int *)(void *)field); break;
    case CUZK_SET_BOOL: bad = parse_bool(value, (int *)(void *)field); break;
    case CUZK_SET_SIZE: bad = parse_size(value, (uint64_t *)(void *)field); break;
    case CUZK_SET_DURATION: bad = parse_duration(value, (double *)(void *)field); break;
    }
    if (bad) {
        char what[160];
        snprintf(what, sizeof what, "%s.%s: \"%.60s\" is not %s", s->section, s->name, value,
                 type_name(s->type));
        set_err(err, CUZK_ERR_USAGE, "setting %s%s", what, "");
        return CUZK_ERR_USAGE;
    }
    return CUZK_OK;
}

void cuzk_config_init(cuzk_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < N_SETTINGS; i++) {
        cuzk_status st = apply(cfg, &SETTINGS[i], SETTINGS[i].def, NULL);
        (void)st; /* the table's defaults parse (checked by test_engine_config) */
    }
}

cuzk_status cuzk_config_set(cuzk_config *cfg, const char *name, const char *value,
                            cuzk_error *err)
{
    const cuzk_setting *s = find_setting(name);
    if (!s) {
        set_err(err, CUZK_ERR_USAGE, "unknown setting \"%.100s\"%s", name, "");
        return CUZK_ERR_USAGE;
    }
    return apply(cfg, s, value, err);
}

typedef struct ini_state {
    cuzk_config *cfg;
    const char *path;
    int failed;
    char msg[CUZK_ERROR_MSG_MAX];
} ini_state;

/* libinih returns the first failing line's number; the message is kept here
 * until then. */
static int ini_cb(void *user, const char *section, const char *name, const char *value)
{
    ini_state *st = user;
    if (st->failed)
        return 0;
    char full[256];
    snprintf(full, sizeof full, "%s.%s", section, name);
    cuzk_error e = {0};
    if (!*section || !strchr(full, '.') || cuzk_config_set(st->cfg, full, value, &e)) {
        if (!*section)
            snprintf(e.msg, sizeof e.msg, "setting \"%s\" outside a [section]", name);
        snprintf(st->msg, sizeof st->msg, "%s", e.msg);
        st->failed = 1;
        return 0;
    }
    return 1;
}

cuzk_status cuzk_config_load(cuzk_config *cfg, const char *path, cuzk_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        set_err(err, CUZK_ERR_IO, "%.300s: %s", path, strerror(errno));
        return CUZK_ERR_IO;
    }
    cuzk_config *tmp = malloc(sizeof *tmp);
    if (!tmp) {
        fclose(f);
        set_err(err, CUZK_ERR_NOMEM, "%.300s: out of memory%s", path, "");
        return CUZK_ERR_NOMEM;
    }
    *tmp = *cfg;
    ini_state st = {.cfg = tmp, .path = path};
    int rc = ini_parse_file(f, ini_cb, &st);
    fclose(f);
    if (rc != 0) {
        if (err) {
            err->code = CUZK_ERR_USAGE;
            snprintf(err->msg, sizeof err->msg, "%.200s:%d: %.280s", path, rc,
                     st.failed ? st.msg : rc < 0 ? "cannot read" : "malformed line");
        }
        st.failed = 1;
    }
    if (!st.failed)
        *cfg = *tmp;
    free(tmp);
    return st.failed ? CUZK_ERR_USAGE : CUZK_OK;
}

char *cuzk_config_format(const cuzk_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    const char *section = "";
    for (size_t i = 0; i < N_SETTINGS; i++) {
        const cuzk_setting *s = &SETTINGS[i];
        const char *field = (const char *)cfg + s->offset;
        if (strcmp(section, s->section)) {
            fprintf(f, "%s[%s]\n", *section ? "\n" : "", s->section);
            section = s->section;
        }
        fprintf(f, "; %s\n%s = ", s->help, s->name);
        switch (s->type) {
        case CUZK_SET_STRING:
            if (!strcmp(s->name, "queue")) { /* a conninfo may carry a password */
                char safe[CUZK_CFG_STR_MAX];
                eng_queue_redact(field, safe, sizeof safe);
                fputs(safe, f);
            } else {
                fputs(!strcmp(s->name, "token") && *field ? "***" : field, f);
            }
            break;
        case CUZK_SET_INT: fprintf(f, "%d", *(const int *)(const void *)field); break;
        case CUZK_SET_BOOL:
            fputs(*(const int *)(const void *)field ? "true" : "false", f);
            break;
        case CUZK_SET_SIZE: {
            uint64_t v = *(const uint64_t *)(const void *)field;
            if (!v)
                fputs("auto", f);
            else
                fprintf(f, "%llu", (unsigned long long)v);
            break;
        }
        case CUZK_SET_DURATION:
            fprintf(f, "%gs", *(const double *)(const void *)field);
            break;
        }
        fputc('\n', f);
    }
    fclose(f);
    return buf;
}
