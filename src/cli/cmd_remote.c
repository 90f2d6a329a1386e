/* Client commands against a `cuzk serve` daemon: submit, await, status,
 * cancel and `prove --remote`. The daemon is --url (default $CUZK_URL, else
 * http://127.0.0.1:9820; "unix:/path" for a Unix socket) with --token,
 * else --token-file's first line, else $CUZK_TOKEN (read here, by the
 * CLI). Exit codes: a finished job's own code (0 ok, 5 invalid proof, 9
 * cancelled, ...); 2 when the daemon cannot be reached; 11
 * when the daemon refuses the request (unknown job or key, queue full,
 * draining, too large, conflict). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>

/* Not only public headers: the engine, HTTP server and client are static
 * libraries of the cuzk executable (src/engine, src/server, src/client),
 * deliberately outside libcuzk and its public API, so that libcuzk needs no
 * SQLite, libmicrohttpd or libcurl; util/ supplies the clock and allocation
 * helpers they share. */
#include "cli.h"
#include "cli_remote.h"
#include "client/client.h"
#include "engine/engine.h"
#include "util/common.h"

#define DEFAULT_URL REMOTE_DEFAULT_URL

int remote_fail(const cuzk_error *err)
{
    fprintf(stderr, "Error: %s\n", err->msg[0] ? err->msg : cuzk_status_name(err->code));
    if (err->code >= 100)
        return REMOTE_EXIT_REFUSED;
    return err->code ? (int)err->code : 1;
}

cuzk_status remote_open(cuzk_client **c, const char *url, const char *token, cuzk_error *err)
{
    if (!url)
        url = getenv("CUZK_URL");
    if (!token)
        token = getenv("CUZK_TOKEN");
    return cuzk_client_open(c, url && *url ? url : DEFAULT_URL, token, 0, err);
}

int remote_token_file(const char **token, const char *token_file, char *buf, size_t cap)
{
    if (*token || !token_file)
        return 0;
    FILE *f = fopen(token_file, "re");
    if (!f || !fgets(buf, (int)cap, f)) {
        fprintf(stderr, "Error: %s: cannot read the token (--token-file): %s\n", token_file,
                f ? "the file is empty" : strerror(errno));
        if (f)
            fclose(f);
        return CUZK_ERR_IO;
    }
    fclose(f);
    buf[strcspn(buf, "\r\n")] = 0;
    if (!buf[0]) {
        fprintf(stderr, "Error: %s: the first line is empty (--token-file)\n", token_file);
        return CUZK_ERR_IO;
    }
    *token = buf;
    return 0;
}

int remote_parse(int argc, char **argv, const cli_opt *opts, remote_conn *rc, cli_common *common,
                 const char **pos, int max_pos, int *npos, const char *usage)
{
    rc->url = rc->token = rc->token_file = NULL;
    const cli_opt conn[] = {
        {"url", 0, CLI_VALUE, &rc->url, NULL},
        {"token", 0, CLI_VALUE, &rc->token, NULL},
        {"token-file", 0, CLI_VALUE, &rc->token_file, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    const cli_opt *tables[] = {conn, opts};
    int r = cli_parse_tables(argc, argv, tables, opts ? 2 : 1, common, pos, max_pos, npos, usage);
    if (r)
        return r == 2 ? 0 : 1;
    if ((r = remote_token_file(&rc->token, rc->token_file, rc->tokbuf, sizeof rc->tokbuf)))
        return r;
    return -1;
}

cuzk_status read_file_all(const char *path, char **out, size_t *len, cuzk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return cuzk_err(err, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        fclose(f);
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory (%lld bytes)", path, (long long)st.st_size);
    }
    size_t n = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    if (n != (size_t)st.st_size) {
        free(buf);
        return cuzk_err(err, CUZK_ERR_IO, "%s: read failed", path);
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return CUZK_OK;
}

void random_token(char *out, size_t cap)
{
    unsigned char b[16];
    if (!cuzk_random_bytes(b, sizeof b)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(out, cap, "%lx-%lx-%d", (long)ts.tv_sec, ts.tv_nsec, (int)getpid());
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < sizeof b && n + 3 < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%02x", b[i]);
}

/* The key argument: 64 hex digits name a registered key; anything else is a
 * .zkey path, sent absolute (the daemon reads it on the same machine), so a
 * missing file is reported like `cuzk prove` reports it. */
static int is_key_id(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!strchr("0123456789abcdefABCDEF", s[n]))
            return 0;
    return n == 64;
}

static void key_arg(const char *arg, char *abs, size_t cap, cuzk_client_submit *req)
{
    if (is_key_id(arg) && access(arg, F_OK) != 0) {
        snprintf(abs, cap, "%s", arg);
        req->key_id = abs;
    } else {
        if (!realpath(arg, abs))
            snprintf(abs, cap, "%s", arg);
        req->key_path = abs;
    }
}

/* Submits with retries while the daemon is unreachable; the idempotency key
 * makes a retry after a lost answer return the same job. */
static cuzk_status submit_retrying(cuzk_client *c, const cuzk_client_submit *req, double timeout_s,
                                   cuzk_client_job *job, cuzk_error *err)
{
    double t0 = cuzk_now(), backoff = 0.1;
    for (int tries = 0;; tries++) {
        cuzk_error e = {0};
        cuzk_status st = cuzk_client_submit_job(c, req, job, &e);
        long hs = cuzk_client_last_status(c); /* 0: no answer (daemon down) */
        int retry = st && (hs == 0 || hs == 429 || hs == 503);
        if (!st || !retry || (timeout_s >= 0 && cuzk_now() - t0 > timeout_s)) {
            if (st && err)
                *err = e;
            return st;
        }
        if (tries == 0)
            fprintf(stderr, "cuzk: %s; retrying for up to %.0f s\n", e.msg, timeout_s);
        struct timespec ts = {0, (long)(backoff * 1e9)};
        nanosleep(&ts, NULL);
        backoff = backoff * 2 > 0.9 ? 0.9 : backoff * 2;
    }
}

static int job_exit(const cuzk_client_job *j)
{
    if (!strcmp(j->state, "done"))
        return 0;
    if (!strcmp(j->state, "cancelled")) {
        fprintf(stderr, "Error: job %s was cancelled\n", j->id);
        return CUZK_ERR_CANCELLED;
    }
    fprintf(stderr, "Error: job %s failed: %s\n", j->id, j->error[0] ? j->error : "(no message)");
    return j->error_code > 0 && j->error_code < 100 ? j->error_code : REMOTE_EXIT_REFUSED;
}

int cli_prove_remote(const char *url, const char *token, const char *priority, const char *zkey,
                     const char *wtns, const char *proof_path, const char *public_path, int verbose)
{
    cuzk_error err = {0};
    char *wit;
    size_t wlen;
    if (read_file_all(wtns, &wit, &wlen, &err))
        return cli_fail(&err);
    cuzk_client *c;
    if (remote_open(&c, url, token, &err)) {
        free(wit);
        return cli_fail(&err);
    }
    char keybuf[4096], idem[64];
    random_token(idem, sizeof idem);
    cuzk_client_submit req = {.witness = wit, .witness_len = wlen, .priority = priority, .idempotency_key = idem};
    key_arg(zkey, keybuf, sizeof keybuf, &req);
    cuzk_client_job job;
    double t0 = cuzk_now();
    /* A daemon restarting costs time, never the proof: submit and wait retry. */
    cuzk_status st = submit_retrying(c, &req, 600, &job, &err);
    free(wit);
    int rc = 0;
    if (st)
        rc = remote_fail(&err);
    else if ((st = cuzk_client_await(c, job.id, -1, &job, &err)))
        rc = remote_fail(&err);
    else if ((rc = job_exit(&job)) == 0) {
        if ((st = cuzk_client_fetch_proof(c, job.id, proof_path, public_path, &err)))
            rc = remote_fail(&err);
    }
    if (verbose && !rc)
        fprintf(stderr, "CUZK_TIMING phase=queue_wait ms=%.3f\nCUZK_TIMING phase=prove ms=%.3f\n"
                        "CUZK_TIMING phase=total ms=%.3f\n",
                job.queue_wait_s * 1e3, job.prove_s * 1e3, (cuzk_now() - t0) * 1e3);
    cuzk_client_free(c);
    return rc;
}

/* ---- submit ---------------------------------------------------------------- */

static const char SUBMIT_USAGE[] =
    "Usage: cuzk submit [options] <circuit.zkey | KEY_ID> <witness.wtns>\n"
    "\n"
    "Queues a proof on the daemon and prints its job id. The witness is sent in the\n"
    "request; the key is sent by absolute path (the daemon reads it on the same\n"
    "machine) or named by a registered key id.\n"
    "\n"
    "  --url URL              daemon (default $CUZK_URL or " DEFAULT_URL ")\n"
    "  --token TOKEN          bearer token (default $CUZK_TOKEN; a flag shows in ps)\n"
    "  --token-file FILE      bearer token from this file's first line\n"
    "  --priority P           critical, high, normal (default) or low\n"
    "  --idempotency-key K    the same K returns the same job (safe retries)\n"
    "  --witness-path         send the witness by path instead of its bytes\n";

int cmd_submit(int argc, char **argv)
{
    const char *prio = NULL, *idem = NULL;
    int by_path = 0;
    const cli_opt opts[] = {
        {"priority", 0, CLI_VALUE, &prio, NULL},
        {"idempotency-key", 0, CLI_VALUE, &idem, NULL},
        {"witness-path", 0, CLI_FLAG, NULL, &by_path},
        {NULL, 0, 0, NULL, NULL},
    };
    remote_conn rc;
    cli_common common;
    const char *pos[2];
    int npos;
    int r = remote_parse(argc, argv, opts, &rc, &common, pos, 2, &npos, SUBMIT_USAGE);
    if (r >= 0)
        return r;
    if (npos != 2)
        return cli_usage_error(SUBMIT_USAGE, "submit needs 2 arguments, got %d", npos);
    cuzk_error err = {0};
    cuzk_client_submit req = {.priority = prio, .idempotency_key = idem};
    char keybuf[4096], wpath[4096];
    char *wit = NULL;
    key_arg(pos[0], keybuf, sizeof keybuf, &req);
    if (by_path) {
        if (!realpath(pos[1], wpath)) {
            fprintf(stderr, "Error: %s: %s\n", pos[1], strerror(errno));
            return CUZK_ERR_IO;
        }
        req.witness_path = wpath;
    } else {
        if (read_file_all(pos[1], &wit, &req.witness_len, &err))
            return cli_fail(&err);
        req.witness = wit;
    }
    cuzk_client *c;
    if (remote_open(&c, rc.url, rc.token, &err)) {
        free(wit);
        return cli_fail(&err);
    }
    cuzk_client_job job;
    cuzk_status st = cuzk_client_submit_job(c, &req, &job, &err);
    free(wit);
    cuzk_client_free(c);
    if (st)
        return remote_fail(&err);
    printf("%s\n", job.id);
    if (common.verbose)
        fprintf(stderr, "job %s: %s, priority %s, position %ld%s\n", job.id, job.state, job.priority,
                job.position, job.existed ? " (existing job for this idempotency key)" : "");
    return 0;
}

/* ---- await ----------------------------------------------------------------- */

static const char AWAIT_USAGE[] =
    "Usage: cuzk await [options] <JOB_ID> [proof.json public.json]\n"
    "\n"
    "Waits for a job to finish (across daemon restarts) and, given the two paths,\n"
    "writes its proof and public signals (snarkjs format). Exits with the job's\n"
    "code: 0 done, 9 cancelled, the prover's code when it failed.\n"
    "\n"
    REMOTE_CONN_HELP
    "  --timeout S      give up after S seconds (exit 2; default: wait forever)\n";

int cmd_await(int argc, char **argv)
{
    const char *timeout = NULL;
    const cli_opt opts[] = {{"timeout", 0, CLI_VALUE, &timeout, NULL}, {NULL, 0, 0, NULL, NULL}};
    remote_conn conn;
    cli_common common;
    const char *pos[3];
    int npos;
    int r = remote_parse(argc, argv, opts, &conn, &common, pos, 3, &npos, AWAIT_USAGE);
    if (r >= 0)
        return r;
    if (npos != 1 && npos != 3)
        return cli_usage_error(AWAIT_USAGE, "await needs a job id and optionally proof.json and public.json");
    double tmo = -1;
    if (timeout) {
        char *end;
        tmo = strtod(timeout, &end);
        if (*end || !(tmo >= 0))
            return cli_usage_error(AWAIT_USAGE, "--timeout must be a number of seconds, got '%s'", timeout);
    }
    cuzk_error err = {0};
    cuzk_client *c;
    if (remote_open(&c, conn.url, conn.token, &err))
        return cli_fail(&err);
    cuzk_client_job job;
    int rc;
    if (cuzk_client_await(c, pos[0], tmo, &job, &err))
        rc = remote_fail(&err);
    else if ((rc = job_exit(&job)) == 0 && npos == 3 && cuzk_client_fetch_proof(c, job.id, pos[1], pos[2], &err))
        rc = remote_fail(&err);
    if (common.verbose && !rc)
        fprintf(stderr, "job %s: done by worker %d in %.3f s after %.3f s queued\n", job.id, job.worker,
                job.prove_s, job.queue_wait_s);
    cuzk_client_free(c);
    return rc;
}

/* ---- status / cancel ------------------------------------------------------- */

static const char STATUS_USAGE[] =
    "Usage: cuzk status [options] [JOB_ID]\n"
    "\n"
    "Prints the daemon's status (GET /v1/status), or one job's, as JSON.\n"
    "\n"
    REMOTE_CONN_HELP;

static int get_and_print(const char *url, const char *token, const char *method, const char *path)
{
    cuzk_error err = {0};
    cuzk_client *c;
    if (remote_open(&c, url, token, &err))
        return cli_fail(&err);
    long status;
    char *body;
    cuzk_status st = cuzk_client_call(c, method, path, NULL, NULL, 0, &status, &body, NULL, &err);
    cuzk_client_free(c);
    if (st)
        return remote_fail(&err);
    cJSON *j = cJSON_Parse(body);
    char *pretty = j ? cJSON_Print(j) : NULL;
    int rc = 0;
    if (status != 200) {
        cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
        cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "message");
        fprintf(stderr, "Error: daemon answered %ld: %s\n", status, cJSON_IsString(m) ? m->valuestring : body);
        rc = REMOTE_EXIT_REFUSED;
    } else {
        puts(pretty ? pretty : body);
    }
    free(pretty);
    cJSON_Delete(j);
    free(body);
    return rc;
}

int cmd_status(int argc, char **argv)
{
    remote_conn rc;
    cli_common common;
    const char *pos[1];
    int npos;
    int r = remote_parse(argc, argv, NULL, &rc, &common, pos, 1, &npos, STATUS_USAGE);
    if (r >= 0)
        return r;
    char path[256] = "/v1/status";
    if (npos == 1)
        snprintf(path, sizeof path, "/v1/jobs/%s", pos[0]);
    return get_and_print(rc.url, rc.token, "GET", path);
}

static const char CANCEL_USAGE[] =
    "Usage: cuzk cancel [options] <JOB_ID>\n"
    "\n"
    "Cancels a job: a queued one is removed, a running one stops at its next phase\n"
    "boundary. Prints the job (JSON). A finished job is left as it is.\n"
    "\n"
    REMOTE_CONN_HELP;

int cmd_cancel(int argc, char **argv)
{
    remote_conn rc;
    cli_common common;
    const char *pos[1];
    int npos;
    int r = remote_parse(argc, argv, NULL, &rc, &common, pos, 1, &npos, CANCEL_USAGE);
    if (r >= 0)
        return r;
    if (npos != 1)
        return cli_usage_error(CANCEL_USAGE, "cancel needs 1 argument, got %d", npos);
    char path[256];
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", pos[0]);
    return get_and_print(rc.url, rc.token, "POST", path);
}

static const char WORKERS_USAGE[] =
    "Usage: cuzk workers [options] pause|resume|admit [N]\n"
    "\n"
    "Holds or releases the daemon's workers (POST /v1/workers/...):\n"
    "  pause     no job starts; a claimed job waits before its proof (phase \"paused\");\n"
    "            proofs under way finish. Jobs are still accepted and queued.\n"
    "  resume    jobs run again.\n"
    "  admit N   while paused: the next N jobs (default 1) are claimed in queue order\n"
    "            and held before their proofs (their keys loaded), until resume.\n"
    "Prints {paused, admit, running} (JSON).\n"
    "\n"
    REMOTE_CONN_HELP;

int cmd_workers(int argc, char **argv)
{
    remote_conn rc;
    cli_common common;
    const char *pos[2];
    int npos;
    int r = remote_parse(argc, argv, NULL, &rc, &common, pos, 2, &npos, WORKERS_USAGE);
    if (r >= 0)
        return r;
    if (npos < 1)
        return cli_usage_error(WORKERS_USAGE, "expected pause, resume or admit");
    const char *what = pos[0];
    char path[128];
    if (!strcmp(what, "pause") || !strcmp(what, "resume")) {
        if (npos != 1)
            return cli_usage_error(WORKERS_USAGE, "'%s' takes no argument", what);
        snprintf(path, sizeof path, "/v1/workers/%s", what);
    } else if (!strcmp(what, "admit")) {
        const char *n = npos == 2 ? pos[1] : "1";
        char *end;
        unsigned long v = strtoul(n, &end, 10);
        if (!*n || *end || !v || v > 1000000)
            return cli_usage_error(WORKERS_USAGE, "admit '%s': expected a number of jobs 1..1000000", n);
        snprintf(path, sizeof path, "/v1/workers/admit?jobs=%lu", v);
    } else {
        return cli_usage_error(WORKERS_USAGE, "unknown action '%s' (pause, resume or admit)", what);
    }
    return get_and_print(rc.url, rc.token, "POST", path);
}
