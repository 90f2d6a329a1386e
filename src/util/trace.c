/* Chrome trace-event writer: see trace.h. One mutex serialises writes; each
 * event is formatted into a local buffer first so the lock is held only for
 * the fwrite. */
#include "util/trace.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"

struct cuzk_trace {
    pthread_mutex_t mu;
    FILE *f;
    char *path;
    uint64_t count;
    int failed;
};

/* A bounded output buffer: appends stop HEADROOM bytes before the end, so the
 * closing braces of an event always fit (over-long names are truncated). */
enum { EV_CAP = 4096, HEADROOM = 8, NAME_MAX_BYTES = 1024, ARG_MAX_BYTES = 512 };
typedef struct {
    char b[EV_CAP];
    size_t n;
} evbuf;

/* Appends at most max bytes of s, JSON-escaped. */
static void put_escaped(evbuf *e, const char *s, size_t max)
{
    size_t end = CUZK_MIN(EV_CAP, e->n + max + HEADROOM + 6);
    for (; s && *s && e->n + HEADROOM + 6 < end; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            e->b[e->n++] = '\\';
            e->b[e->n++] = (char)c;
        } else if (c < 0x20) {
            e->n += (size_t)snprintf(e->b + e->n, 7, "\\u%04x", c);
        } else {
            e->b[e->n++] = (char)c;
        }
    }
}

static void put_fmt(evbuf *e, const char *fmt, ...) CUZK_PRINTF(2, 3);
static void put_fmt(evbuf *e, const char *fmt, ...)
{
    size_t room = EV_CAP - HEADROOM - e->n;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(e->b + e->n, room, fmt, ap);
    va_end(ap);
    if (k > 0)
        e->n += CUZK_MIN((size_t)k, room - 1);
}

static void emit(cuzk_trace *t, const char *ev, size_t n)
{
    pthread_mutex_lock(&t->mu);
    if (t->f) {
        if (fputs(t->count ? ",\n" : "\n", t->f) < 0 || fwrite(ev, 1, n, t->f) != n)
            t->failed = 1;
        t->count++;
    }
    pthread_mutex_unlock(&t->mu);
}

cuzk_status cuzk_trace_open(cuzk_trace **out, const char *path, cuzk_error *err)
{
    *out = NULL;
    cuzk_trace *t = calloc(1, sizeof *t);
    if (!t || !(t->path = strdup(path))) {
        free(t);
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    }
    t->f = fopen(path, "w");
    if (!t->f) {
        cuzk_err(err, CUZK_ERR_IO, "%s: cannot create trace file: %s", path, strerror(errno));
        free(t->path);
        free(t);
        return CUZK_ERR_IO;
    }
    pthread_mutex_init(&t->mu, NULL);
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", t->f);
    *out = t;
    return CUZK_OK;
}

static void meta(cuzk_trace *t, const char *what, int pid, int tid, const char *name)
{
    if (!t)
        return;
    evbuf e = {.n = 0};
    put_fmt(&e, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"", what, pid, tid);
    put_escaped(&e, name, NAME_MAX_BYTES);
    memcpy(e.b + e.n, "\"}}", 3);
    emit(t, e.b, e.n + 3);
}

void cuzk_trace_name_process(cuzk_trace *t, int pid, const char *name)
{
    meta(t, "process_name", pid, 0, name);
}

void cuzk_trace_name_thread(cuzk_trace *t, int pid, int tid, const char *name)
{
    meta(t, "thread_name", pid, tid, name);
}

void cuzk_trace_complete(cuzk_trace *t, const char *name, const char *cat, int pid, int tid,
                         double ts_us, double dur_us, const char *const *args, int nargs)
{
    if (!t)
        return;
    evbuf e = {.n = 0};
    put_fmt(&e, "{\"ph\":\"X\",\"name\":\"");
    put_escaped(&e, name, NAME_MAX_BYTES);
    put_fmt(&e, "\",\"cat\":\"");
    put_escaped(&e, cat ? cat : "cuzk", 64);
    put_fmt(&e, "\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f", pid, tid, ts_us,
            dur_us < 0 ? 0 : dur_us);
    /* Arguments that do not fit whole are dropped (the braces always fit). */
    if (nargs > 0 && args) {
        put_fmt(&e, ",\"args\":{");
        for (int i = 0; i < nargs; i++) {
            size_t mark = e.n;
            put_fmt(&e, "%s\"", i ? "," : "");
            put_escaped(&e, args[2 * i], ARG_MAX_BYTES);
            put_fmt(&e, "\":\"");
            put_escaped(&e, args[2 * i + 1], ARG_MAX_BYTES);
            put_fmt(&e, "\"");
            if (e.n + HEADROOM + 8 >= EV_CAP || e.b[e.n - 1] != '"') {
                e.n = mark;
                break;
            }
        }
        e.b[e.n++] = '}';
    }
    e.b[e.n++] = '}';
    emit(t, e.b, e.n);
}

uint64_t cuzk_trace_count(cuzk_trace *t)
{
    if (!t)
        return 0;
    pthread_mutex_lock(&t->mu);
    uint64_t c = t->count;
    pthread_mutex_unlock(&t->mu);
    return c;
}

cuzk_status cuzk_trace_close(cuzk_trace *t, cuzk_error *err)
{
    if (!t)
        return CUZK_OK;
    cuzk_status st = CUZK_OK;
    if (fputs("\n]}\n", t->f) < 0 || fflush(t->f) != 0 || ferror(t->f))
        t->failed = 1;
    if (fclose(t->f) != 0)
        t->failed = 1;
    if (t->failed)
        st = cuzk_err(err, CUZK_ERR_IO, "%s: cannot write trace file", t->path);
    pthread_mutex_destroy(&t->mu);
    free(t->path);
    free(t);
    return st;
}
