/* HTTP server of `cuzk serve` (libmicrohttpd).
 *
 * DESIGN
 * - One MHD daemon per listening socket (TCP, optional Unix socket), each with
 *   a thread per connection: a long-poll simply blocks its own thread (in
 *   one-second slices, so stop is prompt), and the connection limit bounds the
 *   threads. Every handler is a plain synchronous call into the engine.
 * - A witness body (POST /v1/jobs, not JSON) is streamed to a spool file as
 *   it arrives and hashed on the way (cuzk_engine_upload); the engine takes
 *   that file. It holds STREAM_RESERVE bytes of body_memory, what is in
 *   flight, whatever its size; a witness_path file is copied the same way.
 *   Other bodies (JSON) are read into memory within body_memory. Any body
 *   is at most max_request_bytes: a larger Content-Length is refused before
 *   the body is read (413), and a chunked body that grows past the limit is
 *   discarded and answered 413. A client
 *   that stops mid-request is dropped after request_timeout_s and whatever it
 *   sent is freed; nothing reaches the engine.
 * - Rate limit: a token bucket per client address (rate_limit requests/s,
 *   burst of 2 s worth) in a fixed open-addressed table, so memory stays
 *   bounded whatever the number of clients. Exceeding it answers 429 with
 *   Retry-After.
 * - Auth: with a token configured, every request needs
 *   "Authorization: Bearer <token>" (compared in constant time), else 401.
 *   Listening on a non-loopback address without a token refuses to start.
 * - Routes: see docs/API.md. Errors are JSON {"error":{code,status,message}}
 *   with the HTTP status mapped from the engine code (http_status_for). */
#include "server/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "server/server_internal.h"
#include "util/common.h"

enum { RATE_SLOTS = 4096, RATE_PROBE = 16 };
/* body_memory a streamed body holds: its bytes in flight (MHD's buffer, at
 * most 32 KiB by default, or the copy buffer of a witness_path file). */
#define STREAM_RESERVE ((uint64_t)64 << 10)
#define LONG_POLL_MAX_S 300.0

/* A connection, from accept to close (MHD_OPTION_NOTIFY_CONNECTION), and
 * where its current request stands: the reaper closes it when the request's
 * headers or body come too slowly, whoever the client is (before any
 * authentication). */
enum { CONN_HEADERS, CONN_BODY, CONN_HANDLER };
typedef struct conn {
    struct conn *prev, *next;
    int fd;
    unsigned char addr[16];     /* client address (IPv4 in the first 4 bytes; 0 = Unix socket) */
    int phase;                  /* CONN_*, under conn_mu */
    double t_phase;             /* when the phase began */
    _Atomic uint64_t body_got;  /* bytes of the body received so far */
    int closing;                /* shut down by us: waiting for MHD to close it */
} conn;

typedef struct rate_slot {
    unsigned char addr[16];
    int used;
    double tokens, last;
} rate_slot;

struct cuzk_server {
    cuzk_engine *engine;
    cuzk_config cfg;
    cuzk_engine_hooks log;
    struct MHD_Daemon *tcp, *unix_d;
    char url[300];
    char unix_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    atomic_int stopping;
    atomic_int in_flight;     /* requests between their headers and their answer's end */
    server_counters counters;
    pthread_mutex_t rate_mu;
    rate_slot *rate;
    /* Connections (both listeners) and the body-memory budget, under conn_mu. */
    pthread_mutex_t conn_mu;
    pthread_cond_t conn_cv;
    conn *conns;
    int n_conns;
    uint64_t body_used, body_budget;
    pthread_t reaper;
    int reaper_started;
    double closed_logged;       /* when the current second of http_closed lines began */
    int closed_lines;           /* lines logged in it (10 at most) */
    uint64_t closed_unlogged;   /* closes not logged since */
};

/* Per-request state, from the first handler call to the completion callback. */
typedef struct request {
    char *body;
    size_t len, cap;
    uint64_t reserved;  /* of the body-memory budget */
    cuzk_engine_upload *up; /* a witness body streamed to the spool */
    int up_failed;          /* writing it failed (up_err): the rest is dropped */
    cuzk_error up_err;
    const char *allow;  /* a 405's Allow header */
    int too_large, over_budget;
    double t0;
    unsigned status;
    char method[8];
    char path[120];
} request;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void slog(cuzk_server *s, const char *event, const char *fmt, ...) CUZK_PRINTF(3, 4);
static void slog(cuzk_server *s, const char *event, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cuzk_engine_vlog(&s->log, event, fmt, ap);
    va_end(ap);
}

/* ---- responses ------------------------------------------------------------ */

static enum MHD_Result send_text(cuzk_server *s, struct MHD_Connection *c, request *r, unsigned status,
                                 const char *ctype, char *text, size_t len, int owned)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        len, text, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!resp) {
        if (owned)
            free(text);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", ctype);
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    if (status == MHD_HTTP_TOO_MANY_REQUESTS || status == MHD_HTTP_SERVICE_UNAVAILABLE)
        MHD_add_response_header(resp, "Retry-After", "1");
    if (status == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED && r && r->allow)
        MHD_add_response_header(resp, "Allow", r->allow);
    enum MHD_Result ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    if (r)
        r->status = status;
    unsigned cls = status / 100;
    if (cls < 6)
        atomic_fetch_add(&s->counters.by_class[cls], 1);
    return ret;
}

static enum MHD_Result send_json(cuzk_server *s, struct MHD_Connection *c, request *r, unsigned status,
                                 cJSON *j)
{
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    if (!text)
        return MHD_NO;
    size_t n = strlen(text);
    text[n] = 0;
    return send_text(s, c, r, status, "application/json", text, n, 1);
}

static enum MHD_Result send_error(cuzk_server *s, struct MHD_Connection *c, request *r, int code,
                                  const char *fmt, ...) CUZK_PRINTF(5, 6);
static enum MHD_Result send_error(cuzk_server *s, struct MHD_Connection *c, request *r, int code,
                                  const char *fmt, ...)
{
    char msg[CUZK_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    text_scrub(msg); /* messages quote what clients sent: only text goes back */
    return send_json(s, c, r, http_status_for(code), json_error(code, msg));
}

static enum MHD_Result send_engine_error(cuzk_server *s, struct MHD_Connection *c, request *r,
                                         const cuzk_error *err)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    scrub_file_content(msg);
    return send_error(s, c, r, err->code ? (int)err->code : CUZK_ERR_INTERNAL, "%s", msg);
}

/* ---- rate limit ----------------------------------------------------------- */

static int rate_allow(cuzk_server *s, struct MHD_Connection *c)
{
    if (s->cfg.rate_limit <= 0)
        return 1;
    unsigned char key[16] = {0};
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            memcpy(key, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
        else if (sa->sa_family == AF_INET6)
            memcpy(key, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
    }
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < 16; i++)
        h = (h ^ key[i]) * 1099511628211ull;
    double rate = s->cfg.rate_limit, burst = 2.0 * rate, t = now_s();
    int ok;
    pthread_mutex_lock(&s->rate_mu);
    rate_slot *slot = NULL, *oldest = NULL;
    for (int p = 0; p < RATE_PROBE; p++) {
        rate_slot *q = &s->rate[(h + (uint64_t)p) % RATE_SLOTS];
        if (q->used && !memcmp(q->addr, key, 16)) {
            slot = q;
            break;
        }
        if (!oldest || !q->used || (oldest->used && q->last < oldest->last))
            oldest = q;
    }
    if (!slot) { /* new client: take a free or the least recently seen slot */
        slot = oldest;
        memcpy(slot->addr, key, 16);
        slot->used = 1;
        slot->tokens = burst;
        slot->last = t;
    }
    slot->tokens = fmin(burst, slot->tokens + (t - slot->last) * rate);
    slot->last = t;
    ok = slot->tokens >= 1.0;
    if (ok)
        slot->tokens -= 1.0;
    pthread_mutex_unlock(&s->rate_mu);
    return ok;
}

/* ---- connections: deadlines, eviction, body memory ----------------------- */

/* Shuts a connection's socket down (conn_mu held): its MHD thread sees the
 * end of the stream and closes it. MHD reports the close (notify_conn,
 * which takes conn_mu) before it closes the descriptor, so fd is still this
 * connection's here. */
static void conn_kill(cuzk_server *s, conn *cn, const char *why)
{
    if (cn->closing)
        return;
    cn->closing = 1;
    atomic_fetch_sub(&s->counters.connections, 1);
    shutdown(cn->fd, SHUT_RDWR);
    atomic_fetch_add(&s->counters.slow_closed, 1);
    double t = now_s();
    if (t - s->closed_logged >= 1.0) {
        s->closed_logged = t;
        s->closed_lines = 0;
    }
    if (++s->closed_lines > 10) { /* an attack must not flood the log */
        s->closed_unlogged++;
        return;
    }
    slog(s, "http_closed", "reason=%s phase=%s seconds=%.1f unlogged=%llu", why,
         cn->phase == CONN_HEADERS ? "headers" : cn->phase == CONN_BODY ? "body" : "handler", t - cn->t_phase,
         (unsigned long long)s->closed_unlogged);
    s->closed_unlogged = 0;
}

/* Is this connection's request too slow at time t? (conn_mu held) */
static const char *conn_too_slow(const cuzk_server *s, conn *cn, double t)
{
    double el = t - cn->t_phase, grace = s->cfg.header_timeout_s;
    if (grace <= 0 || cn->closing)
        return NULL;
    if (cn->phase == CONN_HEADERS && el > grace)
        return "header_timeout";
    if (cn->phase == CONN_BODY && s->cfg.body_min_rate && el > grace &&
        (double)atomic_load(&cn->body_got) < (double)s->cfg.body_min_rate * (el - grace))
        return "body_min_rate";
    return NULL;
}

/* Connections open from cn's address (conn_mu held). */
static int conn_same_addr(const cuzk_server *s, const conn *cn)
{
    int n = 0;
    for (const conn *o = s->conns; o; o = o->next)
        n += !o->closing && !memcmp(o->addr, cn->addr, 16);
    return n;
}

/* A new connection beyond max_connections: the connection least likely to
 * be a legitimate client makes room: one still sending its headers, from
 * the address with the most connections open, the oldest of those; else
 * the slowest body (below body_min_rate after a second); if none, the new
 * one is refused. (conn_mu held; O(connections) per new connection, and
 * only at the limit.) */
static void conn_make_room(cuzk_server *s, conn *fresh, double t)
{
    conn *victim = NULL;
    int victim_n = 0;
    double worst = 0;
    for (conn *cn = s->conns; cn; cn = cn->next) {
        if (cn == fresh || cn->closing)
            continue;
        if (cn->phase == CONN_HEADERS) {
            int n = victim && victim->phase == CONN_HEADERS && !memcmp(victim->addr, cn->addr, 16)
                        ? victim_n
                        : conn_same_addr(s, cn);
            if (!victim || victim->phase != CONN_HEADERS || n > victim_n ||
                (n == victim_n && cn->t_phase < victim->t_phase)) {
                victim = cn;
                victim_n = n;
            }
        } else if (cn->phase == CONN_BODY && (!victim || victim->phase != CONN_HEADERS)) {
            double el = t - cn->t_phase;
            double rate = el > 0 ? (double)atomic_load(&cn->body_got) / el : 0;
            if (el >= 1.0 && s->cfg.body_min_rate && rate < (double)s->cfg.body_min_rate &&
                (!victim || rate < worst)) {
                victim = cn;
                worst = rate;
            }
        }
    }
    /* No churn among equals: a connection from an address with as many
     * open evicts one only if that one has had a second for its headers. */
    if (victim && victim->phase == CONN_HEADERS && victim_n <= conn_same_addr(s, fresh) &&
        t - victim->t_phase < 1.0)
        victim = NULL;
    conn_kill(s, victim ? victim : fresh, "connection_limit");
}

static void notify_conn(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe)
{
    cuzk_server *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        conn *cn = calloc(1, sizeof *cn);
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = cn;
        if (!cn)
            return;
        cn->fd = ci ? ci->connect_fd : -1;
        const union MHD_ConnectionInfo *ai = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        if (ai && ai->client_addr) {
            const struct sockaddr *sa = ai->client_addr;
            if (sa->sa_family == AF_INET)
                memcpy(cn->addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
            else if (sa->sa_family == AF_INET6)
                memcpy(cn->addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
        }
        cn->phase = CONN_HEADERS;
        cn->t_phase = now_s();
        pthread_mutex_lock(&s->conn_mu);
        cn->next = s->conns;
        if (s->conns)
            s->conns->prev = cn;
        s->conns = cn;
        s->n_conns++;
        atomic_fetch_add(&s->counters.connections, 1);
        int limit = s->cfg.max_connections > 0 ? s->cfg.max_connections : 1024;
        int live = 0;
        for (conn *o = s->conns; o; o = o->next)
            live += !o->closing;
        if (live > limit && cn->fd >= 0)
            conn_make_room(s, cn, cn->t_phase);
        pthread_mutex_unlock(&s->conn_mu);
    } else if (*socket_context) {
        conn *cn = *socket_context;
        pthread_mutex_lock(&s->conn_mu);
        if (cn->prev)
            cn->prev->next = cn->next;
        else
            s->conns = cn->next;
        if (cn->next)
            cn->next->prev = cn->prev;
        s->n_conns--;
        if (!cn->closing)
            atomic_fetch_sub(&s->counters.connections, 1);
        pthread_mutex_unlock(&s->conn_mu);
        free(cn);
        *socket_context = NULL;
    }
}

static conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return ci ? ci->socket_context : NULL;
}

static void conn_phase(cuzk_server *s, conn *cn, int phase)
{
    if (!cn)
        return;
    pthread_mutex_lock(&s->conn_mu);
    cn->phase = phase;
    cn->t_phase = now_s();
    atomic_store(&cn->body_got, 0);
    pthread_mutex_unlock(&s->conn_mu);
}

/* Reserves n more bytes of the body-memory budget for r; 0 if they do not fit now. */
static int body_reserve(cuzk_server *s, request *r, uint64_t n)
{
    pthread_mutex_lock(&s->conn_mu);
    int ok = s->body_used + n <= s->body_budget && s->body_used + n >= s->body_used;
    if (ok) {
        s->body_used += n;
        r->reserved += n;
        atomic_store(&s->counters.body_reserved, s->body_used);
    }
    pthread_mutex_unlock(&s->conn_mu);
    return ok;
}

static void body_release(cuzk_server *s, request *r)
{
    pthread_mutex_lock(&s->conn_mu);
    s->body_used -= r->reserved;
    r->reserved = 0;
    atomic_store(&s->counters.body_reserved, s->body_used);
    pthread_mutex_unlock(&s->conn_mu);
}

/* Closes connections whose headers or body are late, four times a second. */
static void *reaper_main(void *arg)
{
    cuzk_server *s = arg;
    pthread_mutex_lock(&s->conn_mu);
    while (!atomic_load(&s->stopping)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 250000000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&s->conn_cv, &s->conn_mu, &ts);
        double t = now_s();
        for (conn *cn = s->conns; cn; cn = cn->next) {
            const char *why = conn_too_slow(s, cn, t);
            if (why)
                conn_kill(s, cn, why);
        }
    }
    pthread_mutex_unlock(&s->conn_mu);
    return NULL;
}

/* ---- auth ----------------------------------------------------------------- */

/* GET /v1/blobs/... (witnesses for the other hosts of a shared queue) takes
 * the cluster token, and only it: without one configured, nobody. */
static int is_blob_url(const char *url)
{
    return !strncmp(url, "/v1/blobs/", 10);
}

static int auth_ok(cuzk_server *s, struct MHD_Connection *c, const char *url)
{
    const char *tok = is_blob_url(url) ? s->cfg.cluster_token : s->cfg.token;
    if (!tok[0])
        return !is_blob_url(url);
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (!h || strncmp(h, "Bearer ", 7))
        return 0;
    h += 7;
    size_t a = strlen(h), b = strlen(tok);
    unsigned char diff = (unsigned char)(a != b);
    for (size_t i = 0; i < b; i++)
        diff |= (unsigned char)(h[i < a ? i : 0] ^ tok[i]);
    return diff == 0;
}

/* ---- handlers ------------------------------------------------------------- */

static const char *query(struct MHD_Connection *c, const char *name)
{
    const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
    return v && *v ? v : NULL;
}

/* The first query argument or header value that is not text (UTF-8
 * without control characters), to refuse the request: NULL if none. */
typedef struct bad_arg {
    const char *name;
} bad_arg;
static enum MHD_Result find_bad(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    bad_arg *b = cls;
    (void)kind;
    if ((key && !text_ok(key, strlen(key))) || (value && !text_ok(value, strlen(value)))) {
        b->name = key ? key : "";
        return MHD_NO;
    }
    return MHD_YES;
}

/* Reads ?wait=SECONDS (bounded); -1 if malformed. */
static double wait_arg(struct MHD_Connection *c)
{
    const char *w = query(c, "wait");
    if (!w)
        return 0;
    char *end;
    double v = strtod(w, &end);
    if (*end || !(v >= 0) || !isfinite(v))
        return -1;
    return fmin(v, LONG_POLL_MAX_S);
}

/* Long-poll in one-second slices so a stopping server is not held up. */
static cuzk_status wait_job(cuzk_server *s, const char *id, double wait_s, cuzk_job_info *ji,
                            cuzk_error *err)
{
    double deadline = now_s() + wait_s;
    for (;;) {
        double left = deadline - now_s();
        double slice = left > 1.0 ? 1.0 : (left > 0 ? left : 0);
        cuzk_status st = cuzk_engine_job_wait(s->engine, id, slice, ji, err);
        if (st || cuzk_job_state_terminal(ji->state) || slice <= 0 || atomic_load(&s->stopping) ||
            now_s() >= deadline)
            return st;
    }
}

static enum MHD_Result h_status(cuzk_server *s, struct MHD_Connection *c, request *r, int metrics)
{
    cuzk_engine_snapshot *snap;
    cuzk_error err = {0};
    if (cuzk_engine_snapshot_get(s->engine, &snap, &err))
        return send_engine_error(s, c, r, &err);
    enum MHD_Result ret;
    if (metrics) {
        char *text = metrics_text(snap, &s->counters);
        ret = text ? send_text(s, c, r, 200, "text/plain; version=0.0.4; charset=utf-8", text, strlen(text), 1)
                   : MHD_NO;
    } else {
        cJSON *j = json_snapshot(snap);
        cJSON_AddStringToObject(j, "version", cuzk_version());
        ret = send_json(s, c, r, 200, j);
    }
    cuzk_engine_snapshot_free(snap);
    return ret;
}

static cJSON *parse_body(request *r)
{
    if (!r->body)
        return NULL;
    return cJSON_ParseWithLength(r->body, r->len);
}

/* A file the client named, resolved, checked and opened (paths.c): abs
 * gets its path, *fd the open file (to close). */
static cuzk_status client_named(cuzk_server *s, struct MHD_Connection *c, const char *path, const char *what,
                                uint64_t max_bytes, char abs[PATH_MAX], int *fd, uint64_t *size, cuzk_error *err)
{
    uid_t uid = 0;
    int have_user = 0;
    if (s->cfg.local_files) {
        const union MHD_ConnectionInfo *fi = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *di = MHD_get_connection_info(c, MHD_CONNECTION_INFO_DAEMON);
        const union MHD_ConnectionInfo *ai = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        int on_unix = di && di->daemon == s->unix_d && s->unix_d;
        have_user = fi && !client_local_user(fi->connect_fd, on_unix || !ai ? NULL : ai->client_addr, &uid);
    }
    int w = what[0] == 'w';
    return client_file(path, what, w ? s->cfg.witness_dirs : s->cfg.key_dirs, w ? "witness.dirs" : "keys.dirs",
                       have_user, uid, max_bytes, abs, fd, size, err);
}

/* A key path the client named, checked (a FIFO or a device is refused
 * here, before the engine opens it): abs gets the resolved path to give the
 * engine, which opens it without following symbolic links. */
static cuzk_status key_path_for(cuzk_server *s, struct MHD_Connection *c, const char *path, const char *what,
                                char abs[PATH_MAX], cuzk_error *err)
{
    int fd = -1;
    uint64_t size = 0;
    cuzk_status st = client_named(s, c, path, what, UINT64_MAX, abs, &fd, &size, err);
    if (fd >= 0)
        close(fd);
    return st;
}

/* The witness file a client named, copied into a spool upload (r->up)
 * STREAM_RESERVE bytes at a time: at most max_request_bytes, never whole in
 * memory. */
static cuzk_status witness_file_spool(cuzk_server *s, struct MHD_Connection *c, request *r, const char *path,
                                      cuzk_error *err)
{
    char abs[PATH_MAX];
    int fd = -1;
    uint64_t size = 0;
    cuzk_status st = client_named(s, c, path, "witness_path", s->cfg.max_request_bytes, abs, &fd, &size, err);
    if (st)
        return st;
    char *buf = NULL;
    if (!body_reserve(s, r, STREAM_RESERVE)) {
        atomic_fetch_add(&s->counters.over_budget, 1);
        st = cuzk_err_force(err, CUZK_ERR_NOMEM,
                            "request bodies in memory are at their budget (server.body_memory): retry later");
    } else if (!(buf = malloc((size_t)STREAM_RESERVE))) {
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "witness_path: out of memory");
    } else {
        st = cuzk_engine_upload_open(s->engine, size, &r->up, err);
    }
    for (uint64_t got = 0; !st && got < size;) {
        size_t k = size - got < STREAM_RESERVE ? (size_t)(size - got) : (size_t)STREAM_RESERVE;
        ssize_t n = pread(fd, buf, k, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            st = cuzk_err_force(err, CUZK_ERR_IO, "witness_path '%.200s': %s", abs,
                                n < 0 ? strerror(errno) : "shorter than it was (changed while read)");
        else if (!(st = cuzk_engine_upload_write(r->up, buf, (size_t)n, err)))
            got += (uint64_t)n;
    }
    free(buf);
    close(fd);
    return st;
}

static enum MHD_Result h_key_register(cuzk_server *s, struct MHD_Connection *c, request *r)
{
    cJSON *body = parse_body(r);
    const char *path;
    int load;
    char msg[CUZK_ERROR_MSG_MAX];
    if (parse_key_body(body, &path, &load, msg, sizeof msg)) {
        cJSON_Delete(body);
        return send_error(s, c, r, CUZK_ERR_USAGE, "%s", msg);
    }
    cuzk_engine_key_info ki;
    cuzk_error err = {0};
    char abs[PATH_MAX];
    cuzk_status st = key_path_for(s, c, path, "path", abs, &err);
    if (!st)
        st = cuzk_engine_key_register(s->engine, abs, load, &ki, &err);
    cJSON_Delete(body);
    if (st)
        return send_engine_error(s, c, r, &err);
    return send_json(s, c, r, 200, json_key(&ki));
}

static enum MHD_Result h_key_list(cuzk_server *s, struct MHD_Connection *c, request *r)
{
    cuzk_engine_key_info *keys;
    size_t n;
    cuzk_error err = {0};
    if (cuzk_engine_key_list(s->engine, &keys, &n, &err))
        return send_engine_error(s, c, r, &err);
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, json_key(&keys[i]));
    free(keys);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "keys", arr);
    return send_json(s, c, r, 200, j);
}

static enum MHD_Result h_job_submit(cuzk_server *s, struct MHD_Connection *c, request *r)
{
    cuzk_job_request req = {.priority = CUZK_PRIO_NORMAL};
    const char *ctype = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    const char *prio = query(c, "priority");
    cJSON *body = NULL;
    req.idempotency_key = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Idempotency-Key");
    if (ctype && !strncmp(ctype, "application/json", 16)) {
        /* JSON form: every field in the body, the witness by path. */
        body = parse_body(r);
        submit_fields f;
        char msg[CUZK_ERROR_MSG_MAX];
        if (parse_submit_body(body, &f, msg, sizeof msg)) {
            cJSON_Delete(body);
            return send_error(s, c, r, CUZK_ERR_USAGE, "%s", msg);
        }
        req.key_id = f.key;
        req.key_path = f.key_path;
        req.witness_path = f.witness_path;
        if (f.priority)
            prio = f.priority;
        if (f.idempotency_key)
            req.idempotency_key = f.idempotency_key;
        cuzk_error ferr = {0};
        if (witness_file_spool(s, c, r, req.witness_path, &ferr)) {
            cJSON_Delete(body);
            return send_engine_error(s, c, r, &ferr);
        }
        req.witness_path = NULL;
        req.upload = r->up;
    } else {
        /* Binary form: the body is the .wtns; the rest in the query. */
        if (query(c, "key") && query(c, "key_path"))
            return send_error(s, c, r, CUZK_ERR_USAGE, "key or key_path, not both");
        req.key_id = query(c, "key");
        req.key_path = query(c, "key_path");
        if (query(c, "idempotency_key"))
            req.idempotency_key = query(c, "idempotency_key");
        if (!r->len || !r->up)
            return send_error(s, c, r, CUZK_ERR_USAGE, "request body: empty (expected the .wtns bytes)");
        req.upload = r->up; /* streamed to the spool as it came */
    }
    if (!req.key_id && !req.key_path) {
        cJSON_Delete(body);
        return send_error(s, c, r, CUZK_ERR_USAGE, "a key is required: \"key\" (id) or \"key_path\"");
    }
    char key_abs[PATH_MAX];
    if (!req.key_id && req.key_path) {
        cuzk_error kerr = {0};
        if (key_path_for(s, c, req.key_path, "key_path", key_abs, &kerr)) {
            cJSON_Delete(body);
            return send_engine_error(s, c, r, &kerr);
        }
        req.key_path = key_abs;
    }
    if (prio) {
        int p = cuzk_priority_parse(prio);
        if (p < 0) {
            enum MHD_Result ret = send_error(s, c, r, CUZK_ERR_USAGE,
                                             "priority '%.64s': expected critical, high, normal or low", prio);
            cJSON_Delete(body);
            return ret;
        }
        req.priority = (cuzk_priority)p;
    }
    if (req.idempotency_key && !req.idempotency_key[0])
        req.idempotency_key = NULL;
    cuzk_job_info ji;
    int existed = 0;
    cuzk_error err = {0};
    cuzk_status st = cuzk_engine_submit(s->engine, &req, &ji, &existed, &err);
    cJSON_Delete(body);
    if (st)
        return send_engine_error(s, c, r, &err);
    slog(s, "job_accepted", "job=%s key=%.16s priority=%s position=%llu existed=%d", ji.id, ji.key_id,
         cuzk_priority_name(ji.priority), (unsigned long long)ji.queue_position, existed);
    return send_json(s, c, r, existed ? 200 : 201, json_job(&ji));
}

static enum MHD_Result h_job_list(cuzk_server *s, struct MHD_Connection *c, request *r)
{
    cuzk_job_filter f = {.state = -1, .limit = 100};
    const char *st = query(c, "state"), *lim = query(c, "limit");
    if (st && (f.state = cuzk_job_state_parse(st)) < 0)
        return send_error(s, c, r, CUZK_ERR_USAGE, "state '%.64s': expected queued, running, done, failed or cancelled", st);
    uint64_t v;
    if (lim) {
        if (parse_uint(lim, 1, 100000, &v))
            return send_error(s, c, r, CUZK_ERR_USAGE, "limit '%.32s': expected 1..100000", lim);
        f.limit = (size_t)v;
    }
    const char *before = query(c, "before");
    if (before) {
        if (parse_uint(before, 1, UINT64_MAX, &v))
            return send_error(s, c, r, CUZK_ERR_USAGE, "before '%.32s': expected the \"next\" of a previous page",
                              before);
        f.before = v;
    }
    cuzk_job_info *jobs;
    size_t n;
    cuzk_error err = {0};
    if (cuzk_engine_job_list(s->engine, &f, &jobs, &n, &err))
        return send_engine_error(s, c, r, &err);
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, json_job(&jobs[i]));
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "jobs", arr);
    if (n && n == f.limit) { /* a full page: the next one starts after its last job */
        char next[32];
        snprintf(next, sizeof next, "%llu", (unsigned long long)jobs[n - 1].seq);
        cJSON_AddStringToObject(j, "next", next);
    }
    free(jobs);
    return send_json(s, c, r, 200, j);
}

static enum MHD_Result h_job_get(cuzk_server *s, struct MHD_Connection *c, request *r, const char *id,
                                 int want_proof)
{
    double w = wait_arg(c);
    if (w < 0)
        return send_error(s, c, r, CUZK_ERR_USAGE, "wait: expected a number of seconds >= 0");
    cuzk_job_info ji;
    cuzk_error err = {0};
    if (wait_job(s, id, w, &ji, &err))
        return send_engine_error(s, c, r, &err);
    if (!want_proof)
        return send_json(s, c, r, 200, json_job(&ji));
    if (ji.state != CUZK_JOB_DONE) {
        if (!cuzk_job_state_terminal(ji.state)) /* not yet: the job, with 202 */
            return send_json(s, c, r, 202, json_job(&ji));
        return send_error(s, c, r, CUZK_ENGINE_CONFLICT, "job %s is %s%s%s: no proof", ji.id,
                          cuzk_job_state_name(ji.state), ji.error[0] ? ": " : "", ji.error);
    }
    char *proof, *pub;
    if (cuzk_engine_job_result(s->engine, id, &proof, &pub, &err))
        return send_engine_error(s, c, r, &err);
    /* Both are JSON documents already: splice them in as they are. */
    size_t n = strlen(proof) + strlen(pub) + 128;
    char *text = malloc(n);
    if (text)
        n = (size_t)snprintf(text, n, "{\"id\":\"%s\",\"state\":\"done\",\"proof\":%s,\"public\":%s}", ji.id,
                             proof, pub);
    free(proof);
    free(pub);
    if (!text)
        return send_error(s, c, r, CUZK_ERR_NOMEM, "out of memory");
    return send_text(s, c, r, 200, "application/json", text, n, 1);
}

static enum MHD_Result h_job_cancel(cuzk_server *s, struct MHD_Connection *c, request *r, const char *id)
{
    cuzk_job_info ji;
    cuzk_error err = {0};
    if (cuzk_engine_job_cancel(s->engine, id, &ji, &err))
        return send_engine_error(s, c, r, &err);
    slog(s, "job_cancel", "job=%s state=%s", ji.id, cuzk_job_state_name(ji.state));
    return send_json(s, c, r, 200, json_job(&ji));
}

/* POST /v1/workers/{pause,resume,admit}: the operator's hold (engine.h). */
static enum MHD_Result h_workers(cuzk_server *s, struct MHD_Connection *c, request *r, const char *what)
{
    cuzk_error err = {0};
    if (!strcmp(what, "pause")) {
        cuzk_engine_pause(s->engine);
    } else if (!strcmp(what, "resume")) {
        cuzk_engine_resume(s->engine);
    } else {
        const char *n = query(c, "jobs");
        char *end = NULL;
        unsigned long v = n ? strtoul(n, &end, 10) : 1;
        if (n && (!*n || *end || !v || v > 1000000))
            return send_error(s, c, r, CUZK_ERR_USAGE, "jobs '%.32s': expected 1..1000000", n);
        if (cuzk_engine_admit(s->engine, (unsigned)v, &err))
            return send_engine_error(s, c, r, &err);
    }
    slog(s, "workers", "action=%s", what);
    cuzk_engine_snapshot *sn;
    if (cuzk_engine_snapshot_get(s->engine, &sn, &err))
        return send_engine_error(s, c, r, &err);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddBoolToObject(j, "paused", sn->paused);
    cJSON_AddNumberToObject(j, "admit", (double)sn->admit);
    cJSON_AddNumberToObject(j, "running", (double)sn->running);
    cuzk_engine_snapshot_free(sn);
    return send_json(s, c, r, 200, j);
}

/* GET /v1/blobs/<sha256>: a witness this host keeps for another host's
 * worker, streamed from its file. The name must be 64 lowercase hex digits
 * (the engine checks it again); nothing else reaches the file system. */
static enum MHD_Result h_blob(cuzk_server *s, struct MHD_Connection *c, request *r, const char *sha)
{
    int fd;
    uint64_t size;
    cuzk_error err = {0};
    if (cuzk_engine_blob_open(s->engine, sha, &fd, &size, &err))
        return send_engine_error(s, c, r, &err);
    struct MHD_Response *resp = MHD_create_response_from_fd64(size, fd);
    if (!resp) {
        close(fd);
        return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", "application/octet-stream");
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    enum MHD_Result ret = MHD_queue_response(c, 200, resp);
    MHD_destroy_response(resp);
    r->status = 200;
    atomic_fetch_add(&s->counters.by_class[2], 1);
    slog(s, "blob_served", "sha256=%.64s bytes=%llu", sha, (unsigned long long)size);
    return ret;
}

static enum MHD_Result route(cuzk_server *s, struct MHD_Connection *c, request *r, const char *url,
                             const char *m)
{
    int get = !strcmp(m, "GET") || !strcmp(m, "HEAD"), post = !strcmp(m, "POST"), del = !strcmp(m, "DELETE");
    char id[CUZK_KEY_ID_LEN + 8];
    const char *tail;
    if (!strcmp(url, "/") && get)
        return send_text(s, c, r, 200, "text/html; charset=utf-8", (char *)status_page_html,
                         strlen(status_page_html), 0);
    if (!strcmp(url, "/metrics") && get)
        return h_status(s, c, r, 1);
    if (!strcmp(url, "/v1/status") && get)
        return h_status(s, c, r, 0);
    if (is_blob_url(url)) {
        if (get)
            return h_blob(s, c, r, url + 10);
        r->allow = "GET, HEAD";
        return send_error(s, c, r, 405, "%.8s /v1/blobs/...: method not allowed (allowed: GET, HEAD)", m);
    }
    if (!strcmp(url, "/v1/keys")) {
        if (get)
            return h_key_list(s, c, r);
        if (post)
            return h_key_register(s, c, r);
    } else if (split_path(url, "/v1/keys/", id, sizeof id, &tail) && !*tail) {
        cuzk_engine_key_info ki;
        cuzk_error err = {0};
        if (get) {
            if (cuzk_engine_key_get(s->engine, id, &ki, &err))
                return send_engine_error(s, c, r, &err);
            return send_json(s, c, r, 200, json_key(&ki));
        }
        if (del) {
            if (cuzk_engine_key_evict(s->engine, id, &err) || cuzk_engine_key_get(s->engine, id, &ki, &err))
                return send_engine_error(s, c, r, &err);
            slog(s, "key_evict", "key=%.16s", id);
            return send_json(s, c, r, 200, json_key(&ki));
        }
    } else if (!strcmp(url, "/v1/workers/pause") || !strcmp(url, "/v1/workers/resume") ||
               !strcmp(url, "/v1/workers/admit")) {
        if (post)
            return h_workers(s, c, r, url + strlen("/v1/workers/"));
    } else if (!strcmp(url, "/v1/jobs")) {
        if (get)
            return h_job_list(s, c, r);
        if (post)
            return h_job_submit(s, c, r);
    } else if (split_path(url, "/v1/jobs/", id, sizeof id, &tail)) {
        if (!*tail && get)
            return h_job_get(s, c, r, id, 0);
        if (!*tail && del)
            return h_job_cancel(s, c, r, id);
        if (!strcmp(tail, "/proof") && get)
            return h_job_get(s, c, r, id, 1);
        if (!strcmp(tail, "/cancel") && post)
            return h_job_cancel(s, c, r, id);
        if (*tail && strcmp(tail, "/proof") && strcmp(tail, "/cancel"))
            return send_error(s, c, r, CUZK_ENGINE_NOT_FOUND, "%s: no such endpoint", url);
    } else if (strcmp(url, "/") && strcmp(url, "/metrics") && strcmp(url, "/v1/status")) {
        return send_error(s, c, r, CUZK_ENGINE_NOT_FOUND, "%s: no such endpoint", url);
    }
    /* A known endpoint, another method: 405 with what it takes. */
    const char *allow = "GET, HEAD";
    if (!strcmp(url, "/v1/keys") || !strcmp(url, "/v1/jobs"))
        allow = "GET, HEAD, POST";
    else if (!strncmp(url, "/v1/keys/", 9) || (!strncmp(url, "/v1/jobs/", 9) && !strchr(url + 9, '/')))
        allow = "GET, HEAD, DELETE";
    else if (strstr(url, "/cancel") || !strncmp(url, "/v1/workers/", 12))
        allow = "POST";
    r->allow = allow;
    return send_error(s, c, r, 405, "%.8s %s: method not allowed (allowed: %s)", m, url, allow);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    cuzk_server *s = cls;
    request *r = *con_cls;
    (void)version;
    if (!r) {
        /* First call: headers only. Refuse early what needs no body. */
        if (!(r = calloc(1, sizeof *r)))
            return MHD_NO;
        atomic_fetch_add(&s->in_flight, 1);
        r->t0 = now_s();
        snprintf(r->method, sizeof r->method, "%s", method);
        snprintf(r->path, sizeof r->path, "%s", url);
        for (char *p = r->path; *p; p++) /* log fields hold no spaces, quotes or controls */
            if ((unsigned char)*p <= ' ' || *p == '"' || (unsigned char)*p >= 0x7f)
                *p = '_';
        *con_cls = r;
        conn_phase(s, conn_of(c), CONN_BODY); /* the headers are in: the body's clock starts */
        if (atomic_load(&s->stopping))
            return send_error(s, c, r, CUZK_ENGINE_DRAINING, "the daemon is shutting down: retry later");
        if (!auth_ok(s, c, url))
            return send_error(s, c, r, 401,
                              is_blob_url(url) ? "missing or wrong cluster token (Authorization: Bearer ...)"
                                               : "missing or wrong bearer token (Authorization: Bearer ...)");
        if (!rate_allow(s, c)) {
            atomic_fetch_add(&s->counters.rate_limited, 1);
            return send_error(s, c, r, CUZK_ENGINE_BUSY, "rate limit exceeded (%d requests/s): retry later",
                              s->cfg.rate_limit);
        }
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        unsigned long long clv = cl ? strtoull(cl, NULL, 10) : 0;
        if (cl && clv > s->cfg.max_request_bytes) {
            atomic_fetch_add(&s->counters.too_large, 1);
            return send_error(s, c, r, CUZK_ENGINE_TOO_LARGE, "request body of %llu bytes is over the limit of %llu",
                              clv, (unsigned long long)s->cfg.max_request_bytes);
        }
        const char *ctype = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
        if (!strcmp(method, "POST") && !strcmp(url, "/v1/jobs") &&
            !(ctype && !strncmp(ctype, "application/json", 16))) {
            /* A witness body: streamed to the spool, holding only what is in flight. */
            if (!body_reserve(s, r, STREAM_RESERVE)) {
                atomic_fetch_add(&s->counters.over_budget, 1);
                return send_error(s, c, r, CUZK_ERR_NOMEM,
                                  "request bodies in memory are at their budget (server.body_memory, %llu "
                                  "bytes): retry later",
                                  (unsigned long long)s->body_budget);
            }
            cuzk_error uerr = {0};
            if (cuzk_engine_upload_open(s->engine, clv, &r->up, &uerr))
                return send_engine_error(s, c, r, &uerr);
            return MHD_YES;
        }
        if (clv && 2 * (uint64_t)clv + 2 > s->body_budget) {
            atomic_fetch_add(&s->counters.too_large, 1);
            return send_error(s, c, r, CUZK_ENGINE_TOO_LARGE,
                              "request body of %llu bytes can never fit server.body_memory (%llu bytes, each body "
                              "counting twice)",
                              clv, (unsigned long long)s->body_budget);
        }
        if (clv) {
            /* The body and the copy the witness check parses, reserved up
             * front: memory for bodies never grows past body_memory. */
            if (!body_reserve(s, r, 2 * (uint64_t)clv + 2)) {
                atomic_fetch_add(&s->counters.over_budget, 1);
                return send_error(s, c, r, CUZK_ERR_NOMEM,
                                  "request bodies in memory are at their budget (server.body_memory, %llu "
                                  "bytes): retry later",
                                  (unsigned long long)s->body_budget);
            }
            if (!(r->body = malloc((size_t)clv + 1)))
                return MHD_NO;
            r->cap = (size_t)clv + 1;
        }
        return MHD_YES;
    }
    if (r->status) { /* already answered (refused early): drop any body */
        conn *cn = conn_of(c);
        if (cn) /* still counted: a body dropped promptly is not a slow one */
            atomic_fetch_add(&cn->body_got, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        conn *cn = conn_of(c);
        if (cn)
            atomic_fetch_add(&cn->body_got, n);
        if (r->up || r->up_failed) { /* streamed: written as it comes, nothing kept */
            r->len += n;
            if (r->len > s->cfg.max_request_bytes)
                r->too_large = 1;
            if (!r->too_large && !r->up_failed && cuzk_engine_upload_write(r->up, upload, n, &r->up_err))
                r->up_failed = 1;
            if (r->too_large || r->up_failed) { /* the file goes now; the rest is dropped */
                cuzk_engine_upload_free(r->up);
                r->up = NULL;
            }
            return MHD_YES;
        }
        if (r->too_large || r->over_budget || r->len + n > s->cfg.max_request_bytes) {
            r->too_large |= !r->over_budget;
            free(r->body);
            r->body = NULL;
            r->len = r->cap = 0;
            body_release(s, r);
            return MHD_YES;
        }
        if (r->len + n + 1 > r->cap) { /* no Content-Length (chunked): grow within the budget */
            size_t cap = r->cap ? r->cap : 65536;
            while (cap < r->len + n + 1)
                cap *= 2;
            char *nb = NULL;
            if (2 * (uint64_t)cap > r->reserved && !body_reserve(s, r, 2 * (uint64_t)cap - r->reserved)) {
                r->over_budget = 1;
            } else if (!(nb = realloc(r->body, cap))) {
                return MHD_NO;
            }
            if (r->over_budget) {
                free(r->body);
                r->body = NULL;
                r->len = r->cap = 0;
                body_release(s, r);
                return MHD_YES;
            }
            r->body = nb;
            r->cap = cap;
        }
        memcpy(r->body + r->len, upload, n);
        r->len += n;
        r->body[r->len] = 0;
        return MHD_YES;
    }
    conn_phase(s, conn_of(c), CONN_HANDLER);
    if (r->too_large) {
        atomic_fetch_add(&s->counters.too_large, 1);
        return send_error(s, c, r, CUZK_ENGINE_TOO_LARGE, "request body is over the limit of %llu bytes",
                          (unsigned long long)s->cfg.max_request_bytes);
    }
    if (r->up_failed)
        return send_engine_error(s, c, r, &r->up_err);
    if (r->over_budget) {
        atomic_fetch_add(&s->counters.over_budget, 1);
        return send_error(s, c, r, CUZK_ERR_NOMEM,
                          "request bodies in memory are at their budget (server.body_memory, %llu bytes): "
                          "retry later",
                          (unsigned long long)s->body_budget);
    }
    bad_arg bad = {NULL};
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, find_bad, &bad);
    if (!bad.name) {
        const char *ik = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Idempotency-Key");
        if (ik && !text_ok(ik, strlen(ik)))
            bad.name = "Idempotency-Key";
    }
    if (bad.name)
        return send_error(s, c, r, CUZK_ERR_USAGE, "'%.64s': not UTF-8 text (or holds control characters)",
                          bad.name);
    return route(s, c, r, url, method);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    cuzk_server *s = cls;
    request *r = *con_cls;
    if (!r)
        return;
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char addr[INET6_ADDRSTRLEN] = "unix";
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, addr, sizeof addr);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, addr, sizeof addr);
    }
    if (toe != MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        atomic_fetch_add(&s->counters.aborted, 1);
        slog(s, "http_aborted", "client=%s method=%s path=%s bytes_in=%zu reason=%d", addr, r->method, r->path,
             r->len, (int)toe);
    } else {
        slog(s, "http", "client=%s method=%s path=%s status=%u bytes_in=%zu ms=%.2f", addr, r->method, r->path,
             r->status, r->len,
             (now_s() - r->t0) * 1e3);
    }
    free(r->body);
    cuzk_engine_upload_free(r->up);
    body_release(s, r);
    free(r);
    *con_cls = NULL;
    conn_phase(s, conn_of(c), CONN_HEADERS); /* the next request's headers are due */
    atomic_fetch_sub(&s->in_flight, 1);
}

/* ---- start / stop --------------------------------------------------------- */

/* Parses "HOST:PORT" / "[V6]:PORT" into a socket address; *loopback says
 * whether it is a local-only address. */
static cuzk_status parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len, int *loopback,
                                cuzk_error *err)
{
    char host[256];
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || !colon[1])
        return cuzk_err(err, CUZK_ERR_USAGE, "listen '%s': expected ADDRESS:PORT", spec);
    size_t hl = (size_t)(colon - spec);
    if (spec[0] == '[' && hl >= 2 && spec[hl - 1] == ']') {
        spec++;
        hl -= 2;
    }
    if (hl >= sizeof host)
        return cuzk_err(err, CUZK_ERR_USAGE, "listen '%s': address too long", spec);
    memcpy(host, spec, hl);
    host[hl] = 0;
    char *end;
    unsigned long port = strtoul(colon + 1, &end, 10);
    if (*end || port > 65535)
        return cuzk_err(err, CUZK_ERR_USAGE, "listen '%s': bad port", spec);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai;
    int rc = getaddrinfo(host, NULL, &hints, &ai);
    if (rc)
        return cuzk_err(err, CUZK_ERR_USAGE, "listen '%s': %s", spec, gai_strerror(rc));
    memcpy(ss, ai->ai_addr, ai->ai_addrlen);
    *len = ai->ai_addrlen;
    freeaddrinfo(ai);
    if (ss->ss_family == AF_INET) {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        in->sin_port = htons((uint16_t)port);
        *loopback = (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
        in6->sin6_port = htons((uint16_t)port);
        *loopback = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
    return CUZK_OK;
}

static struct MHD_Daemon *start_mhd(cuzk_server *s, int fd, const struct sockaddr *sa)
{
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                     MHD_USE_ERROR_LOG;
    if (sa && sa->sa_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    unsigned timeout = s->cfg.request_timeout_s > 0 ? (unsigned)ceil(s->cfg.request_timeout_s) : 0;
    /* MHD's own limit leaves headroom: notify_conn keeps the connections
     * at max_connections by closing the likeliest attacker (conn_make_room). */
    unsigned limit = (s->cfg.max_connections > 0 ? (unsigned)s->cfg.max_connections : 1024) + 32;
    unsigned per_ip = s->cfg.max_connections_per_address > 0 ? (unsigned)s->cfg.max_connections_per_address : 0;
    if (fd >= 0)
        return MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_LISTEN_SOCKET, fd,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeout, MHD_OPTION_CONNECTION_LIMIT, limit,
                                MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION,
                                notify_conn, s, MHD_OPTION_END);
    return MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, sa,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout, MHD_OPTION_CONNECTION_LIMIT, limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip, MHD_OPTION_NOTIFY_COMPLETED,
                            on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, notify_conn, s,
                            MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)512, MHD_OPTION_END);
}

static cuzk_status open_unix(cuzk_server *s, const char *path, int *fd_out, cuzk_error *err)
{
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof un.sun_path)
        return cuzk_err(err, CUZK_ERR_USAGE, "socket '%s': path too long (max %zu bytes)", path,
                        sizeof un.sun_path - 1);
    strcpy(un.sun_path, path);
    struct stat st;
    /* A stale socket from a crashed daemon is replaced; any other file is not. */
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return cuzk_err(err, CUZK_ERR_IO, "socket '%s': exists and is not a socket", path);
        int probe = socket(AF_UNIX, SOCK_STREAM, 0);
        int live = probe >= 0 && connect(probe, (struct sockaddr *)&un, sizeof un) == 0;
        if (probe >= 0)
            close(probe);
        if (live)
            return cuzk_err(err, CUZK_ERR_IO, "socket '%s': another daemon is listening there", path);
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&un, sizeof un) || chmod(path, 0660) || listen(fd, 512)) {
        cuzk_err(err, CUZK_ERR_IO, "socket '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return CUZK_ERR_IO;
    }
    strcpy(s->unix_path, path);
    *fd_out = fd;
    return CUZK_OK;
}

cuzk_status cuzk_server_start(cuzk_server **out, cuzk_engine *e, const cuzk_config *cfg,
                              const cuzk_engine_hooks *log, cuzk_error *err)
{
    *out = NULL;
    struct sockaddr_storage ss;
    socklen_t sl;
    int loopback = 0;
    cuzk_status st = parse_listen(cfg->listen, &ss, &sl, &loopback, err);
    if (st)
        return st;
    if (!loopback && !cfg->token[0])
        return cuzk_err(err, CUZK_ERR_USAGE,
                        "listen '%s': a bearer token is required beyond localhost (set server.token / --token)",
                        cfg->listen);
    cuzk_server *s = calloc(1, sizeof *s);
    if (!s || !(s->rate = calloc(RATE_SLOTS, sizeof *s->rate))) {
        free(s);
        return cuzk_err(err, CUZK_ERR_NOMEM, "server: out of memory");
    }
    s->engine = e;
    s->cfg = *cfg;
    if (log)
        s->log = *log;
    pthread_mutex_init(&s->rate_mu, NULL);
    pthread_mutex_init(&s->conn_mu, NULL);
    pthread_cond_init(&s->conn_cv, NULL);
    s->body_budget = cfg->body_memory ? cfg->body_memory : 2 * cfg->max_request_bytes + 2;
    if (pthread_create(&s->reaper, NULL, reaper_main, s)) {
        cuzk_err(err, CUZK_ERR_NOMEM, "server: cannot start a thread");
        goto fail;
    }
    s->reaper_started = 1;
    s->tcp = start_mhd(s, -1, (struct sockaddr *)&ss);
    if (!s->tcp) {
        cuzk_err(err, CUZK_ERR_IO, "listen '%s': cannot bind (in use or not a local address?)", cfg->listen);
        goto fail;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(s->tcp, MHD_DAEMON_INFO_BIND_PORT);
    char host[INET6_ADDRSTRLEN] = "127.0.0.1";
    if (ss.ss_family == AF_INET)
        inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof host);
    else
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof host);
    snprintf(s->url, sizeof s->url, ss.ss_family == AF_INET6 ? "http://[%s]:%u" : "http://%s:%u", host,
             di ? (unsigned)di->port : 0);
    if ((st = cuzk_engine_advertise(e, s->url, err)))
        goto fail;
    if (cfg->socket[0]) {
        int fd = -1;
        if (open_unix(s, cfg->socket, &fd, err))
            goto fail;
        if (!(s->unix_d = start_mhd(s, fd, NULL))) {
            close(fd);
            cuzk_err(err, CUZK_ERR_IO, "socket '%s': cannot serve", cfg->socket);
            goto fail;
        }
    }
    slog(s, "listening", "url=%s socket=%s auth=%s max_request_bytes=%llu rate_limit=%d", s->url,
         cfg->socket[0] ? cfg->socket : "-", cfg->token[0] ? "bearer" : "none",
         (unsigned long long)cfg->max_request_bytes, cfg->rate_limit);
    *out = s;
    return CUZK_OK;
fail:
    cuzk_server_stop(s);
    return err ? err->code : CUZK_ERR_IO;
}

const char *cuzk_server_url(const cuzk_server *s)
{
    return s->url;
}

void cuzk_server_stop(cuzk_server *s)
{
    if (!s)
        return;
    atomic_store(&s->stopping, 1);
    /* Answers already under way are sent before the listeners close (long
     * polls see `stopping` within a second); bounded, so a stuck client
     * cannot hold the shutdown. */
    for (int i = 0; i < 500 && atomic_load(&s->in_flight) > 0; i++)
        nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    if (s->tcp)
        MHD_stop_daemon(s->tcp);
    if (s->unix_d)
        MHD_stop_daemon(s->unix_d);
    if (s->unix_path[0])
        unlink(s->unix_path);
    if (s->reaper_started) {
        pthread_mutex_lock(&s->conn_mu);
        pthread_cond_broadcast(&s->conn_cv);
        pthread_mutex_unlock(&s->conn_mu);
        pthread_join(s->reaper, NULL);
    }
    pthread_mutex_destroy(&s->conn_mu);
    pthread_cond_destroy(&s->conn_cv);
    pthread_mutex_destroy(&s->rate_mu);
    free(s->rate);
    free(s);
}
