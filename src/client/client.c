/* cuzk client over libcurl: see client.h. One easy handle per client, so
 * consecutive requests reuse the connection (keep-alive). */
#include "client/client.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cJSON.h>
#include <curl/curl.h>

#include "engine/engine.h" /* the daemon's error codes (header only) */
#include "util/common.h"

struct cuzk_client {
    CURL *curl;
    char base[512];
    char auth[1100];
    double timeout_s;
    long last_status;
    char errbuf[CURL_ERROR_SIZE];
};

long cuzk_client_last_status(const cuzk_client *c)
{
    return c->last_status;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

cuzk_status cuzk_client_open(cuzk_client **out, const char *url, const char *token, double timeout_s,
                             cuzk_error *err)
{
    *out = NULL;
    pthread_once(&curl_once, curl_init);
    cuzk_client *c = calloc(1, sizeof *c);
    if (!c)
        return cuzk_err(err, CUZK_ERR_NOMEM, "client: out of memory");
    c->timeout_s = timeout_s > 0 ? timeout_s : 600;
    if (!(c->curl = curl_easy_init())) {
        free(c);
        return cuzk_err(err, CUZK_ERR_INTERNAL, "client: curl_easy_init failed");
    }
    size_t ul = strlen(url);
    while (ul && url[ul - 1] == '/')
        ul--;
    if (!strncmp(url, "unix:", 5)) {
        char path[512];
        snprintf(path, sizeof path, "%.*s", (int)(ul - 5), url + 5);
        curl_easy_setopt(c->curl, CURLOPT_UNIX_SOCKET_PATH, path);
        snprintf(c->base, sizeof c->base, "http://localhost");
    } else if (!strncmp(url, "http://", 7) || !strncmp(url, "https://", 8)) {
        snprintf(c->base, sizeof c->base, "%.*s", (int)ul, url);
    } else {
        curl_easy_cleanup(c->curl);
        free(c);
        return cuzk_err(err, CUZK_ERR_USAGE, "daemon URL '%s': expected http://HOST:PORT or unix:/PATH", url);
    }
    if (token && *token)
        snprintf(c->auth, sizeof c->auth, "Authorization: Bearer %s", token);
    curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->errbuf);
    curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    *out = c;
    return CUZK_OK;
}

void cuzk_client_free(cuzk_client *c)
{
    if (!c)
        return;
    curl_easy_cleanup(c->curl);
    free(c);
}

typedef struct {
    char *b;
    size_t n, cap;
    int oom;
} rbuf;

static size_t on_data(char *p, size_t sz, size_t nm, void *u)
{
    rbuf *r = u;
    size_t n = sz * nm;
    if (r->n + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->n + n + 1)
            cap *= 2;
        char *nb = realloc(r->b, cap);
        if (!nb) {
            r->oom = 1;
            return 0;
        }
        r->b = nb;
        r->cap = cap;
    }
    memcpy(r->b + r->n, p, n);
    r->n += n;
    r->b[r->n] = 0;
    return n;
}

static cuzk_status call_t(cuzk_client *c, const char *method, const char *path, const char *ctype,
                          const void *body, size_t len, double extra_s, long *status, char **resp,
                          size_t *resp_len, cuzk_error *err)
{
    char url[1024];
    snprintf(url, sizeof url, "%s%s", c->base, path);
    rbuf r = {0};
    struct curl_slist *h = NULL;
    char ct[128];
    if (c->auth[0])
        h = curl_slist_append(h, c->auth);
    if (ctype) {
        snprintf(ct, sizeof ct, "Content-Type: %s", ctype);
        h = curl_slist_append(h, ct);
    }
    h = curl_slist_append(h, "Expect:"); /* no 100-continue round trip */
    CURL *e = c->curl;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)((c->timeout_s + extra_s) * 1000));
    curl_easy_setopt(e, CURLOPT_NOBODY, 0L);
    if (!strcmp(method, "GET")) {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    } else if (!strcmp(method, "POST")) {
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, body ? body : "");
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(body ? len : 0));
    } else {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
    }
    c->errbuf[0] = 0;
    c->last_status = 0;
    CURLcode rc = curl_easy_perform(e);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(h);
    if (rc != CURLE_OK || r.oom) {
        free(r.b);
        if (r.oom)
            return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory reading the response", url);
        char *q = strchr(url, '?'); /* name the endpoint, not the query */
        if (q)
            *q = 0;
        return cuzk_err(err, CUZK_ERR_IO, "%s: %s", url, c->errbuf[0] ? c->errbuf : curl_easy_strerror(rc));
    }
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
    c->last_status = *status;
    if (!r.b && !(r.b = calloc(1, 1)))
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    *resp = r.b;
    if (resp_len)
        *resp_len = r.n;
    return CUZK_OK;
}

cuzk_status cuzk_client_call(cuzk_client *c, const char *method, const char *path, const char *content_type,
                             const void *body, size_t len, long *status, char **resp, size_t *resp_len,
                             cuzk_error *err)
{
    return call_t(c, method, path, content_type, body, len, 0, status, resp, resp_len, err);
}

/* A non-2xx answer as an error: the daemon's {"error":{...}} when present. */
static cuzk_status http_error(long status, const char *body, cuzk_error *err)
{
    cJSON *j = cJSON_Parse(body);
    cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "status");
    cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");
    int cd = cJSON_IsNumber(code) ? code->valueint : CUZK_ERR_IO;
    if (cd <= 0 || (cd >= 400 && cd < 600)) /* HTTP-level refusals (401, 405) */
        cd = status == 401 ? CUZK_ERR_USAGE : CUZK_ERR_IO;
    cuzk_err(err, (cuzk_status)cd, "daemon answered %ld: %s", status,
             cJSON_IsString(msg) ? msg->valuestring : (body && *body ? body : "(no message)"));
    cJSON_Delete(j);
    return (cuzk_status)cd;
}

static void copy_str(char *dst, size_t cap, cJSON *o, const char *name)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    snprintf(dst, cap, "%s", cJSON_IsString(v) ? v->valuestring : "");
}

static double num(cJSON *o, const char *name)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static cuzk_status parse_job(const char *body, cuzk_client_job *job, cuzk_error *err)
{
    memset(job, 0, sizeof *job);
    cJSON *j = cJSON_Parse(body);
    if (!cJSON_IsObject(j)) {
        cJSON_Delete(j);
        return cuzk_err(err, CUZK_ERR_FORMAT, "daemon: malformed job JSON");
    }
    copy_str(job->id, sizeof job->id, j, "id");
    copy_str(job->state, sizeof job->state, j, "state");
    copy_str(job->priority, sizeof job->priority, j, "priority");
    copy_str(job->phase, sizeof job->phase, j, "phase");
    job->position = (long)num(j, "position");
    job->worker = (int)num(j, "worker");
    job->attempt = (int)num(j, "attempt");
    job->queue_wait_s = num(j, "queue_wait_s");
    job->prove_s = num(j, "prove_s");
    job->submitted_ms = (long long)num(j, "submitted_ms");
    job->started_ms = (long long)num(j, "started_ms");
    job->finished_ms = (long long)num(j, "finished_ms");
    cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "error");
    if (cJSON_IsObject(e)) {
        job->error_code = (int)num(e, "status");
        copy_str(job->error, sizeof job->error, e, "message");
    }
    cJSON_Delete(j);
    if (!job->id[0] || !job->state[0])
        return cuzk_err(err, CUZK_ERR_FORMAT, "daemon: job JSON without id or state");
    return CUZK_OK;
}

/* Appends name=value (URL-escaped) to a query string. */
static void add_query(CURL *e, char *q, size_t cap, const char *name, const char *value)
{
    if (!value)
        return;
    char *v = curl_easy_escape(e, value, 0);
    size_t n = strlen(q);
    snprintf(q + n, cap - n, "%s%s=%s", n ? "&" : "?", name, v ? v : "");
    curl_free(v);
}

cuzk_status cuzk_client_submit_job(cuzk_client *c, const cuzk_client_submit *req, cuzk_client_job *job,
                                   cuzk_error *err)
{
    long status;
    char *resp = NULL;
    cuzk_status st;
    if (req->witness) {
        char path[3072] = "";
        add_query(c->curl, path, sizeof path, "key", req->key_id);
        add_query(c->curl, path, sizeof path, "key_path", req->key_path);
        add_query(c->curl, path, sizeof path, "priority", req->priority);
        add_query(c->curl, path, sizeof path, "idempotency_key", req->idempotency_key);
        char full[3200];
        snprintf(full, sizeof full, "/v1/jobs%s", path);
        st = call_t(c, "POST", full, "application/octet-stream", req->witness, req->witness_len, 0, &status,
                    &resp, NULL, err);
    } else {
        cJSON *j = cJSON_CreateObject();
        if (req->key_id)
            cJSON_AddStringToObject(j, "key", req->key_id);
        if (req->key_path)
            cJSON_AddStringToObject(j, "key_path", req->key_path);
        if (req->witness_path)
            cJSON_AddStringToObject(j, "witness_path", req->witness_path);
        if (req->priority)
            cJSON_AddStringToObject(j, "priority", req->priority);
        if (req->idempotency_key)
            cJSON_AddStringToObject(j, "idempotency_key", req->idempotency_key);
        char *body = cJSON_PrintUnformatted(j);
        cJSON_Delete(j);
        if (!body)
            return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
        st = call_t(c, "POST", "/v1/jobs", "application/json", body, strlen(body), 0, &status, &resp, NULL, err);
        free(body);
    }
    if (st)
        return st;
    if (status != 200 && status != 201)
        st = http_error(status, resp, err);
    else if (!(st = parse_job(resp, job, err)))
        job->existed = status == 200;
    free(resp);
    return st;
}

cuzk_status cuzk_client_get_job(cuzk_client *c, const char *id, double wait_s, cuzk_client_job *job,
                                cuzk_error *err)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/jobs/%s%s", id, wait_s > 0 ? "?wait=" : "");
    if (wait_s > 0) {
        size_t n = strlen(path);
        snprintf(path + n, sizeof path - n, "%.3f", wait_s);
    }
    long status;
    char *resp;
    cuzk_status st = call_t(c, "GET", path, NULL, NULL, 0, wait_s, &status, &resp, NULL, err);
    if (st)
        return st;
    st = status == 200 ? parse_job(resp, job, err) : http_error(status, resp, err);
    free(resp);
    return st;
}

static int terminal(const char *state)
{
    return !strcmp(state, "done") || !strcmp(state, "failed") || !strcmp(state, "cancelled");
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

cuzk_status cuzk_client_await(cuzk_client *c, const char *id, double timeout_s, cuzk_client_job *job,
                              cuzk_error *err)
{
    double t0 = cuzk_now(), backoff = 0.1;
    for (;;) {
        double left = timeout_s < 0 ? 60 : timeout_s - (cuzk_now() - t0);
        if (left <= 0)
            return cuzk_err_force(err, CUZK_ERR_IO, "job %s: not finished after %.0f s", id, timeout_s);
        cuzk_error e = {0};
        cuzk_status st = cuzk_client_get_job(c, id, left < 60 ? left : 60, job, &e);
        if (st == CUZK_OK) {
            backoff = 0.1;
            if (terminal(job->state))
                return CUZK_OK;
            continue;
        }
        /* Daemon unreachable, draining (503) or rate-limiting (429): it is
         * restarting or busy; the job is in its journal, so wait and ask
         * again. Anything else (unknown job, bad token) is final. */
        long hs = c->last_status;
        if (hs != 0 && hs != 429 && hs != 503) {
            if (err)
                *err = e;
            return st;
        }
        sleep_s(backoff);
        backoff = backoff * 2 > 2 ? 2 : backoff * 2;
    }
}

cuzk_status cuzk_client_get_proof(cuzk_client *c, const char *id, char **proof_json, char **public_json,
                                  cuzk_error *err)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/jobs/%s/proof", id);
    long status;
    char *resp;
    cuzk_status st = call_t(c, "GET", path, NULL, NULL, 0, 0, &status, &resp, NULL, err);
    if (st)
        return st;
    if (status != 200) {
        if (status == 202) {
            free(resp);
            return cuzk_err(err, (cuzk_status)CUZK_ENGINE_CONFLICT, "job %s: not finished yet", id);
        }
        st = http_error(status, resp, err);
        free(resp);
        return st;
    }
    cJSON *j = cJSON_Parse(resp);
    free(resp);
    cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "proof"), *pub = cJSON_GetObjectItemCaseSensitive(j, "public");
    if (!cJSON_IsObject(p) || !cJSON_IsArray(pub)) {
        cJSON_Delete(j);
        return cuzk_err(err, CUZK_ERR_FORMAT, "job %s: the daemon's proof answer is malformed", id);
    }
    *proof_json = cJSON_Print(p);
    *public_json = cJSON_Print(pub);
    cJSON_Delete(j);
    if (!*proof_json || !*public_json) {
        free(*proof_json);
        free(*public_json);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    }
    return CUZK_OK;
}

/* Writes text to path through a temporary file in the same directory. */
static cuzk_status write_tmp(const char *path, const char *text, char *tmp, size_t cap, cuzk_error *err)
{
    snprintf(tmp, cap, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f)
        return cuzk_err(err, CUZK_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    size_t n = strlen(text);
    int bad = fwrite(text, 1, n, f) != n || fputc('\n', f) == EOF;
    bad |= fclose(f) != 0;
    if (bad) {
        unlink(tmp);
        return cuzk_err(err, CUZK_ERR_IO, "%s: write failed", path);
    }
    return CUZK_OK;
}

cuzk_status cuzk_client_fetch_proof(cuzk_client *c, const char *id, const char *proof_path,
                                    const char *public_path, cuzk_error *err)
{
    char *proof, *pub;
    cuzk_status st = cuzk_client_get_proof(c, id, &proof, &pub, err);
    if (st)
        return st;
    char t1[4200], t2[4200];
    if (!(st = write_tmp(proof_path, proof, t1, sizeof t1, err))) {
        if (!(st = write_tmp(public_path, pub, t2, sizeof t2, err))) {
            if (rename(t1, proof_path) || rename(t2, public_path)) {
                st = cuzk_err(err, CUZK_ERR_IO, "%s: cannot rename into place: %s", proof_path, strerror(errno));
                unlink(t2);
                unlink(proof_path);
            }
        }
        unlink(t1);
    }
    free(proof);
    free(pub);
    return st;
}

cuzk_status cuzk_client_cancel(cuzk_client *c, const char *id, cuzk_client_job *job, cuzk_error *err)
{
    char path[256];
    snprintf(path, sizeof path, "/v1/jobs/%s/cancel", id);
    long status;
    char *resp;
    cuzk_status st = call_t(c, "POST", path, NULL, "", 0, 0, &status, &resp, NULL, err);
    if (st)
        return st;
    cuzk_client_job tmp;
    st = status == 200 ? parse_job(resp, job ? job : &tmp, err) : http_error(status, resp, err);
    free(resp);
    return st;
}
