/* GET /metrics: the engine snapshot and the server's request counters in the
 * Prometheus text exposition format (version 0.0.4). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"
#include "util/common.h"

typedef struct {
    char *b;
    size_t n, cap;
    int oom;
} sbuf;

static void put(sbuf *s, const char *fmt, ...) CUZK_PRINTF(2, 3);
static void put(sbuf *s, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(s->b + s->n, s->cap - s->n, fmt, ap);
        va_end(ap);
        if (k < 0 || s->oom)
            return;
        if ((size_t)k < s->cap - s->n) {
            s->n += (size_t)k;
            return;
        }
        size_t cap = s->cap * 2 + (size_t)k;
        char *nb = realloc(s->b, cap);
        if (!nb) {
            s->oom = 1;
            return;
        }
        s->b = nb;
        s->cap = cap;
    }
}

static void metric(sbuf *s, const char *name, const char *type, const char *help)
{
    put(s, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

char *metrics_text(const cuzk_engine_snapshot *sn, const server_counters *sc)
{
    sbuf s = {.cap = 8192};
    if (!(s.b = malloc(s.cap)))
        return NULL;
    s.b[0] = 0;
    const cuzk_engine_counters *c = &sn->counters;

    metric(&s, "cuzk_up", "gauge", "1 while the daemon serves.");
    put(&s, "cuzk_up 1\n");
    metric(&s, "cuzk_uptime_seconds", "gauge", "Seconds since the engine started.");
    put(&s, "cuzk_uptime_seconds %.3f\n", sn->uptime_s);
    metric(&s, "cuzk_draining", "gauge", "1 while shutting down (no new jobs).");
    put(&s, "cuzk_draining %d\n", sn->draining ? 1 : 0);
    metric(&s, "cuzk_paused", "gauge", "1 while the workers are paused (no job starts).");
    put(&s, "cuzk_paused %d\n", sn->paused ? 1 : 0);

    metric(&s, "cuzk_jobs_total", "counter", "Jobs by outcome since start.");
    for (size_t i = 0; i < JOB_OUTCOMES_N; i++)
        put(&s, "cuzk_jobs_total{outcome=\"%s\"} %llu\n", JOB_OUTCOMES[i].name,
            (unsigned long long)job_outcome_count(c, i));

    metric(&s, "cuzk_queue_depth", "gauge", "Queued jobs per priority.");
    for (int p = 0; p < CUZK_PRIO_COUNT; p++)
        put(&s, "cuzk_queue_depth{priority=\"%s\"} %llu\n", cuzk_priority_name((cuzk_priority)p),
            (unsigned long long)sn->queued[p]);
    metric(&s, "cuzk_jobs_running", "gauge", "Jobs running now.");
    put(&s, "cuzk_jobs_running %llu\n", (unsigned long long)sn->running);
    metric(&s, "cuzk_spool_bytes", "gauge", "Witness bytes in the spool.");
    put(&s, "cuzk_spool_bytes %llu\n", (unsigned long long)sn->spool_bytes);
    metric(&s, "cuzk_host_memory_budget_bytes", "gauge", "Host memory budget for keys and jobs.");
    put(&s, "cuzk_host_memory_budget_bytes %llu\n", (unsigned long long)sn->host_budget);
    metric(&s, "cuzk_host_memory_used_bytes", "gauge", "Host memory reserved by resident keys and jobs.");
    put(&s, "cuzk_host_memory_used_bytes %llu\n", (unsigned long long)sn->host_used);

    metric(&s, "cuzk_queue_wait_seconds_total", "counter", "Summed queue wait of started jobs.");
    put(&s, "cuzk_queue_wait_seconds_total %.6f\n", c->queue_wait_s_total);
    metric(&s, "cuzk_prove_seconds_total", "counter", "Summed proving time of finished jobs.");
    put(&s, "cuzk_prove_seconds_total %.6f\n", c->prove_s_total);
    metric(&s, "cuzk_phase_seconds_total", "counter", "Summed time per prover phase.");
    for (size_t i = 0; i < sn->n_phases; i++)
        put(&s, "cuzk_phase_seconds_total{phase=\"%s\"} %.6f\n", sn->phases[i].name, sn->phases[i].total_s);
    metric(&s, "cuzk_phase_runs_total", "counter", "Runs per prover phase.");
    for (size_t i = 0; i < sn->n_phases; i++)
        put(&s, "cuzk_phase_runs_total{phase=\"%s\"} %llu\n", sn->phases[i].name,
            (unsigned long long)sn->phases[i].count);

    metric(&s, "cuzk_keys_resident", "gauge", "Proving keys loaded now.");
    size_t resident = 0;
    for (size_t i = 0; i < sn->n_keys; i++)
        resident += sn->keys[i].resident != 0;
    put(&s, "cuzk_keys_resident %zu\n", resident);
    metric(&s, "cuzk_keys_registered", "gauge", "Proving keys known to the engine.");
    put(&s, "cuzk_keys_registered %zu\n", sn->n_keys);
    metric(&s, "cuzk_key_loads_total", "counter", "Key loads since start.");
    put(&s, "cuzk_key_loads_total %llu\n", (unsigned long long)c->keys_loaded);
    metric(&s, "cuzk_key_evictions_total", "counter", "Key evictions since start.");
    put(&s, "cuzk_key_evictions_total %llu\n", (unsigned long long)c->keys_evicted);
    metric(&s, "cuzk_journal_flushes_total", "counter",
           "Flushes of the job journal to disk (concurrent commits share one).");
    put(&s, "cuzk_journal_flushes_total %llu\n", (unsigned long long)c->journal_flushes);

    metric(&s, "cuzk_worker_busy", "gauge", "1 while the worker proves a job.");
    for (size_t i = 0; i < sn->n_workers; i++)
        put(&s, "cuzk_worker_busy{worker=\"%d\",device=\"%d\"} %d\n", sn->workers[i].index,
            sn->workers[i].device, sn->workers[i].job_id[0] ? 1 : 0);
    metric(&s, "cuzk_worker_jobs_total", "counter", "Jobs finished per worker.");
    for (size_t i = 0; i < sn->n_workers; i++)
        put(&s, "cuzk_worker_jobs_total{worker=\"%d\",device=\"%d\"} %llu\n", sn->workers[i].index,
            sn->workers[i].device, (unsigned long long)sn->workers[i].jobs_done);
    metric(&s, "cuzk_worker_busy_seconds_total", "counter", "Time spent proving per worker.");
    for (size_t i = 0; i < sn->n_workers; i++)
        put(&s, "cuzk_worker_busy_seconds_total{worker=\"%d\",device=\"%d\"} %.6f\n", sn->workers[i].index,
            sn->workers[i].device, sn->workers[i].busy_s);

    if (sn->n_devices) {
        metric(&s, "cuzk_device_memory_total_bytes", "gauge", "GPU memory per device.");
        for (size_t i = 0; i < sn->n_devices; i++)
            put(&s, "cuzk_device_memory_total_bytes{device=\"%d\"} %llu\n", sn->devices[i].index,
                (unsigned long long)sn->devices[i].memory_total);
        metric(&s, "cuzk_device_memory_free_bytes", "gauge", "Free GPU memory per device.");
        for (size_t i = 0; i < sn->n_devices; i++)
            put(&s, "cuzk_device_memory_free_bytes{device=\"%d\"} %llu\n", sn->devices[i].index,
                (unsigned long long)sn->devices[i].memory_free);
    }

    metric(&s, "cuzk_http_responses_total", "counter", "HTTP responses by status class.");
    static const char *cls[] = {"", "1xx", "2xx", "3xx", "4xx", "5xx"};
    for (int i = 1; i < 6; i++)
        put(&s, "cuzk_http_responses_total{class=\"%s\"} %llu\n", cls[i],
            (unsigned long long)atomic_load(&sc->by_class[i]));
    metric(&s, "cuzk_http_rate_limited_total", "counter", "Requests refused by the rate limit.");
    put(&s, "cuzk_http_rate_limited_total %llu\n", (unsigned long long)atomic_load(&sc->rate_limited));
    metric(&s, "cuzk_http_too_large_total", "counter", "Requests refused for their body size.");
    put(&s, "cuzk_http_too_large_total %llu\n", (unsigned long long)atomic_load(&sc->too_large));
    metric(&s, "cuzk_http_aborted_total", "counter", "Requests whose client went away before the answer.");
    put(&s, "cuzk_http_aborted_total %llu\n", (unsigned long long)atomic_load(&sc->aborted));
    metric(&s, "cuzk_http_slow_closed_total", "counter",
           "Connections closed for late headers, a slow body or to make room at the connection limit.");
    put(&s, "cuzk_http_slow_closed_total %llu\n", (unsigned long long)atomic_load(&sc->slow_closed));
    metric(&s, "cuzk_http_connections", "gauge", "HTTP connections open now.");
    put(&s, "cuzk_http_connections %lld\n", (long long)atomic_load(&sc->connections));
    metric(&s, "cuzk_http_body_bytes_reserved", "gauge", "Bytes of server.body_memory held by requests now.");
    put(&s, "cuzk_http_body_bytes_reserved %llu\n", (unsigned long long)atomic_load(&sc->body_reserved));
    metric(&s, "cuzk_http_over_budget_total", "counter", "Request bodies refused (503): body_memory in use.");
    put(&s, "cuzk_http_over_budget_total %llu\n", (unsigned long long)atomic_load(&sc->over_budget));
    if (s.oom) {
        free(s.b);
        return NULL;
    }
    return s.b;
}
