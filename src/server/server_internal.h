/* Internal pieces of the HTTP server: the JSON renderings of engine objects,
 * the Prometheus text, the status page and the request counters they share. */
#ifndef CUZK_SERVER_INTERNAL_H
#define CUZK_SERVER_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cJSON.h>

#include "engine/engine.h"

/* Responses by status class, for /metrics. */
typedef struct server_counters {
    atomic_uint_fast64_t by_class[6]; /* index status/100 (1xx..5xx) */
    atomic_uint_fast64_t rate_limited;
    atomic_uint_fast64_t too_large;
    atomic_uint_fast64_t aborted;     /* clients gone before the response */
    atomic_uint_fast64_t slow_closed; /* closed for late headers / slow bodies / the connection limit */
    atomic_uint_fast64_t over_budget; /* bodies refused: body_memory in use (503) */
    atomic_uint_fast64_t body_reserved; /* bytes of server.body_memory reserved now */
    atomic_int_fast64_t connections;  /* open now (both listeners), not counting ones being closed */
} server_counters;

/* The job counters by outcome, in the order /v1/status ("counters") and
 * /metrics (cuzk_jobs_total{outcome}) show them. */
typedef struct job_outcome {
    const char *name;
    size_t offset; /* of its uint64_t in cuzk_engine_counters */
} job_outcome;
extern const job_outcome JOB_OUTCOMES[];
extern const size_t JOB_OUTCOMES_N;
uint64_t job_outcome_count(const cuzk_engine_counters *c, size_t i);

/* HTTP status for an engine or library error code. */
unsigned http_status_for(int code);

/* {"error":{"code":"busy","status":102,"message":"..."}} */
cJSON *json_error(int code, const char *msg);
cJSON *json_key(const cuzk_engine_key_info *k);
cJSON *json_job(const cuzk_job_info *j);
cJSON *json_snapshot(const cuzk_engine_snapshot *s);

/* Prometheus text exposition of a snapshot and the server's counters
 * (malloc'd; free()). */
char *metrics_text(const cuzk_engine_snapshot *s, const server_counters *c);

/* ---- client-named files (paths.c) ---- */

/* The client's user on this machine: the peer credentials of a Unix-socket
 * connection (client NULL or AF_UNIX), else the owner of the client's TCP
 * socket when it is on this machine. 0 when known, -1 otherwise. */
int client_local_user(int fd, const struct sockaddr *client, uid_t *uid);

/* Resolves a path a client named into abs and opens it: allowed inside one
 * of the comma-separated dirs (opened beneath that directory's descriptor,
 * no symbolic link on the way, so a directory swapped after the check
 * cannot lead outside), or when have_user and that user can read it.
 * Refused (CUZK_ENGINE_FORBIDDEN): one message whether the file exists or
 * not. Opened without blocking: a regular file of at most max_bytes, else
 * CUZK_ERR_IO / CUZK_ENGINE_TOO_LARGE, nothing read. what names it in
 * messages ("key_path"), dirs_name is the setting ("keys.dirs"). *fd_out
 * (blocking again) to close. */
cuzk_status client_file(const char *path, const char *what, const char *dirs, const char *dirs_name,
                        int have_user, uid_t uid, uint64_t max_bytes, char abs[PATH_MAX], int *fd_out,
                        uint64_t *size, cuzk_error *err);
/* Opens rel (relative, no "." or "..") beneath the directory dirfd
 * following no symbolic link: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS
 * | RESOLVE_NO_MAGICLINKS), or, where the kernel lacks openat2 (or walk),
 * one component at a time with O_NOFOLLOW. An fd, or -1 with errno. */
int open_beneath(int dirfd, const char *rel, int flags, int walk);
cuzk_status client_read(int fd, const char *abs, const char *what, void *buf, uint64_t size, cuzk_error *err);

/* Drops file bytes that a parser's message quotes (a wrong magic number). */
void scrub_file_content(char *msg);

/* ---- request checks (request.c; pure, fuzzed) ---- */

/* n bytes of UTF-8 text without control characters? */
int text_ok(const char *s, size_t n);
/* Replaces bytes that are not UTF-8 text (invalid sequences, controls) with '?'. */
void text_scrub(char *s);

/* The fields of a JSON submission (pointers into body). */
typedef struct submit_fields {
    const char *key, *key_path, *witness_path, *priority, *idempotency_key;
} submit_fields;
/* Every member known, a string of text, given once; witness_path present;
 * not both key and key_path. 0, or -1 with a message. */
int parse_submit_body(const cJSON *body, submit_fields *out, char *msg, size_t cap);
/* POST /v1/keys: "path" (text, required), "load" (bool, default true). */
int parse_key_body(const cJSON *body, const char **path, int *load, char *msg, size_t cap);
/* "/v1/jobs/<id>[/<tail>]": 1 when url starts with prefix and a non-empty
 * id of fewer than cap bytes follows (copied to id; *tail = "" or "/..."). */
int split_path(const char *url, const char *prefix, char *id, size_t cap, const char **tail);
/* A decimal number in [min, max], nothing else: 0, or -1. */
int parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* The status page (static HTML + script that polls /v1/status). */
extern const char status_page_html[];

#endif
