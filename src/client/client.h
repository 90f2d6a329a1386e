/* cuzk client — talks to a `cuzk serve` daemon over its HTTP API (libcurl):
 * the `cuzk submit / await / status / cancel / prove --remote / bench serve`
 * commands are built on it.
 *
 * A daemon URL is "http://HOST:PORT" or "unix:/path/to/socket". Errors are
 * values: the daemon's JSON error becomes a cuzk_error with the daemon's code
 * (a cuzk_status or cuzk_engine_code) and message; a daemon that cannot be
 * reached is CUZK_ERR_IO. One client is used by one thread at a time; use one
 * client per thread. */
#ifndef CUZK_CLIENT_H
#define CUZK_CLIENT_H

#include <stddef.h>

#include <cuzk/cuzk.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_client cuzk_client;

/* token may be NULL. timeout_s bounds each request (0 = 600 s); long-polls
 * add their wait to it. */
cuzk_status cuzk_client_open(cuzk_client **out, const char *url, const char *token, double timeout_s,
                             cuzk_error *err);
void cuzk_client_free(cuzk_client *c);

/* HTTP status of the last request's answer; 0 when the daemon could not be
 * reached (connection refused or reset, timeout): the case to retry. */
long cuzk_client_last_status(const cuzk_client *c);

/* One request. body may be NULL. On success (any HTTP status) *status gets the
 * HTTP status and *resp a malloc'd NUL-terminated body (free()), *resp_len its
 * length (may be NULL). CUZK_ERR_IO when the daemon cannot be reached. */
cuzk_status cuzk_client_call(cuzk_client *c, const char *method, const char *path, const char *content_type,
                             const void *body, size_t len, long *status, char **resp, size_t *resp_len,
                             cuzk_error *err);

/* A job as the daemon describes it (the fields the commands need). */
typedef struct cuzk_client_job {
    char id[64];
    char state[16];        /* queued / running / done / failed / cancelled */
    char priority[16];
    char phase[32];
    long position;         /* queued: jobs ahead */
    int worker, attempt;
    double queue_wait_s, prove_s;
    long long submitted_ms, started_ms, finished_ms;
    int error_code;        /* failed: the daemon's code */
    char error[CUZK_ERROR_MSG_MAX];
    int existed;           /* submit: an idempotent repeat */
} cuzk_client_job;

typedef struct cuzk_client_submit {
    const char *key_id;          /* a registered key's id, or NULL and: */
    const char *key_path;        /* a .zkey path on the daemon's machine */
    const void *witness;         /* .wtns bytes sent as the body, or NULL and: */
    size_t witness_len;
    const char *witness_path;    /* a .wtns path on the daemon's machine */
    const char *priority;        /* NULL = normal */
    const char *idempotency_key; /* may be NULL */
} cuzk_client_submit;

/* Submits a job; *job gets its id, state and queue position. */
cuzk_status cuzk_client_submit_job(cuzk_client *c, const cuzk_client_submit *req, cuzk_client_job *job,
                                   cuzk_error *err);

/* The job's state; wait_s > 0 long-polls until it is finished or wait_s
 * passes. */
cuzk_status cuzk_client_get_job(cuzk_client *c, const char *id, double wait_s, cuzk_client_job *job,
                                cuzk_error *err);

/* Waits until the job is finished, for up to timeout_s (< 0: forever). While
 * the daemon cannot be reached (restarting after a crash) it keeps retrying,
 * so a restart costs time, never the job. CUZK_ERR_IO on timeout. */
cuzk_status cuzk_client_await(cuzk_client *c, const char *id, double timeout_s, cuzk_client_job *job,
                              cuzk_error *err);

/* A done job's proof.json and public.json, written (pretty-printed, snarkjs
 * format) to the two paths atomically: each goes to a temporary file renamed
 * into place, so nothing partial is left on error. A job that failed returns
 * its error code and message. */
cuzk_status cuzk_client_fetch_proof(cuzk_client *c, const char *id, const char *proof_path,
                                    const char *public_path, cuzk_error *err);

/* Same as fetch_proof but returns the two JSON texts (malloc'd). */
cuzk_status cuzk_client_get_proof(cuzk_client *c, const char *id, char **proof_json, char **public_json,
                                  cuzk_error *err);

/* Cancels a job; *job (may be NULL) gets its state after the call. */
cuzk_status cuzk_client_cancel(cuzk_client *c, const char *id, cuzk_client_job *job, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
