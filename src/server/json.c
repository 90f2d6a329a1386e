/* JSON renderings of engine objects for the HTTP API (docs/API.md), and the
 * mapping from engine / library codes to HTTP statuses. */
#include <stdio.h>
#include <string.h>

#include "server/server_internal.h"

#define OUTCOME(f) {#f, offsetof(cuzk_engine_counters, f)}
const job_outcome JOB_OUTCOMES[] = {
    OUTCOME(submitted), OUTCOME(deduplicated), OUTCOME(rejected_busy), OUTCOME(rejected_invalid),
    OUTCOME(completed), OUTCOME(failed),       OUTCOME(cancelled),     OUTCOME(verify_failed),
    OUTCOME(recovered), OUTCOME(expired),
};
#undef OUTCOME
const size_t JOB_OUTCOMES_N = sizeof JOB_OUTCOMES / sizeof JOB_OUTCOMES[0];

uint64_t job_outcome_count(const cuzk_engine_counters *c, size_t i)
{
    uint64_t v;
    memcpy(&v, (const char *)c + JOB_OUTCOMES[i].offset, sizeof v);
    return v;
}

unsigned http_status_for(int code)
{
    if (code >= 400 && code < 600) /* already an HTTP status (401, 405) */
        return (unsigned)code;
    switch (code) {
    case CUZK_OK: return 200;
    case CUZK_ERR_USAGE:
    case CUZK_ERR_FORMAT:
    case CUZK_ERR_MISMATCH:
    case CUZK_ERR_UNSUPPORTED: return 400;
    case CUZK_ERR_IO: return 400; /* a path the client named cannot be read */
    case CUZK_ERR_NOMEM: return 503;
    case CUZK_ERR_CANCELLED: return 409;
    case CUZK_ENGINE_NOT_FOUND: return 404;
    case CUZK_ENGINE_CONFLICT: return 409;
    case CUZK_ENGINE_BUSY: return 429;
    case CUZK_ENGINE_DRAINING: return 503;
    case CUZK_ENGINE_TOO_LARGE: return 413;
    case CUZK_ENGINE_FORBIDDEN: return 403;
    case CUZK_ENGINE_NO_SPACE: return 507;
    case CUZK_ENGINE_UNAVAILABLE: return 503;
    default: return 500;
    }
}

static const char *code_name(int code)
{
    switch (code) {
    case 401: return "unauthorized";
    case 405: return "method_not_allowed";
    default: return cuzk_engine_code_name(code);
    }
}

/* The member "error": {"code": name, "status": status, "message": msg}. */
static void add_error(cJSON *j, const char *name, int status, const char *msg)
{
    cJSON *e = cJSON_AddObjectToObject(j, "error");
    cJSON_AddStringToObject(e, "code", name);
    cJSON_AddNumberToObject(e, "status", status);
    cJSON_AddStringToObject(e, "message", msg);
}

cJSON *json_error(int code, const char *msg)
{
    cJSON *j = cJSON_CreateObject();
    add_error(j, code_name(code), code, msg);
    return j;
}

cJSON *json_key(const cuzk_engine_key_info *k)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "id", k->id);
    cJSON_AddStringToObject(j, "path", k->path);
    cJSON_AddStringToObject(j, "curve", cuzk_curve_name(k->curve));
    cJSON_AddNumberToObject(j, "n_vars", k->n_vars);
    cJSON_AddNumberToObject(j, "n_public", k->n_public);
    cJSON_AddNumberToObject(j, "domain_size", k->domain_size);
    cJSON_AddNumberToObject(j, "file_bytes", (double)k->file_bytes);
    cJSON_AddNumberToObject(j, "host_bytes", (double)k->host_bytes);
    cJSON_AddNumberToObject(j, "device_bytes", (double)k->device_bytes);
    cJSON_AddBoolToObject(j, "resident", k->resident);
    cJSON_AddStringToObject(j, "where", !k->resident ? "disk" : k->device < 0 ? "host" : "device");
    cJSON_AddNumberToObject(j, "device", k->device);
    cJSON_AddNumberToObject(j, "users", k->users);
    cJSON_AddNumberToObject(j, "jobs", (double)k->jobs);
    cJSON_AddNumberToObject(j, "last_used_ms", (double)k->last_used_ms);
    cJSON_AddBoolToObject(j, "preloaded", k->preloaded);
    return j;
}

cJSON *json_job(const cuzk_job_info *ji)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "id", ji->id);
    cJSON_AddStringToObject(j, "key", ji->key_id);
    cJSON_AddStringToObject(j, "state", cuzk_job_state_name(ji->state));
    cJSON_AddStringToObject(j, "priority", cuzk_priority_name(ji->priority));
    if (ji->state == CUZK_JOB_QUEUED)
        cJSON_AddNumberToObject(j, "position", (double)ji->queue_position);
    if (ji->state == CUZK_JOB_RUNNING) {
        cJSON_AddStringToObject(j, "phase", ji->phase);
        cJSON_AddNumberToObject(j, "progress", ji->progress);
    }
    cJSON_AddNumberToObject(j, "worker", ji->worker);
    cJSON_AddNumberToObject(j, "device", ji->device);
    cJSON_AddNumberToObject(j, "attempt", ji->attempt);
    cJSON_AddNumberToObject(j, "submitted_ms", (double)ji->submitted_ms);
    cJSON_AddNumberToObject(j, "started_ms", (double)ji->started_ms);
    cJSON_AddNumberToObject(j, "finished_ms", (double)ji->finished_ms);
    cJSON_AddNumberToObject(j, "queue_wait_s", ji->queue_wait_s);
    cJSON_AddNumberToObject(j, "prove_s", ji->prove_s);
    if (ji->cancel_requested)
        cJSON_AddBoolToObject(j, "cancel_requested", 1);
    if (ji->state == CUZK_JOB_FAILED || ji->error[0])
        add_error(j, cuzk_engine_code_name(ji->error_code), ji->error_code, ji->error);
    return j;
}

cJSON *json_snapshot(const cuzk_engine_snapshot *s)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "host", s->host_id);
    cJSON_AddNumberToObject(j, "uptime_s", s->uptime_s);
    cJSON_AddNumberToObject(j, "pid", s->pid);
    cJSON_AddBoolToObject(j, "draining", s->draining);
    cJSON_AddBoolToObject(j, "paused", s->paused);
    if (s->paused)
        cJSON_AddNumberToObject(j, "admit", (double)s->admit);
    cJSON *q = cJSON_AddObjectToObject(j, "queue");
    uint64_t total = 0;
    for (int p = 0; p < CUZK_PRIO_COUNT; p++) {
        cJSON_AddNumberToObject(q, cuzk_priority_name((cuzk_priority)p), (double)s->queued[p]);
        total += s->queued[p];
    }
    cJSON_AddNumberToObject(q, "total", (double)total);
    cJSON_AddNumberToObject(j, "running", (double)s->running);
    cJSON_AddNumberToObject(j, "spool_bytes", (double)s->spool_bytes);
    cJSON *mem = cJSON_AddObjectToObject(j, "host_memory");
    cJSON_AddNumberToObject(mem, "budget", (double)s->host_budget);
    cJSON_AddNumberToObject(mem, "used", (double)s->host_used);

    if (s->shared) { /* the whole cluster, from the database */
        cJSON *cl = cJSON_AddObjectToObject(j, "cluster");
        cJSON *hs = cJSON_AddArrayToObject(cl, "hosts");
        uint64_t leases = 0;
        for (size_t i = 0; i < s->n_hosts; i++) {
            const cuzk_cluster_host *h = &s->hosts[i];
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "id", h->host_id);
            if (h->url[0])
                cJSON_AddStringToObject(o, "url", h->url);
            else
                cJSON_AddNullToObject(o, "url");
            cJSON_AddBoolToObject(o, "alive", h->alive);
            cJSON_AddNumberToObject(o, "last_renewal_s", h->silent_s);
            cJSON_AddNumberToObject(o, "gpus", h->gpus);
            cJSON_AddNumberToObject(o, "slots", h->slots);
            cJSON_AddNumberToObject(o, "leases", (double)h->running);
            if (h->running)
                cJSON_AddNumberToObject(o, "lease_left_s", h->lease_left_s);
            cJSON *ks = cJSON_AddArrayToObject(o, "keys");
            char buf[sizeof h->keys];
            snprintf(buf, sizeof buf, "%s", h->keys);
            for (char *save = NULL, *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save))
                cJSON_AddItemToArray(ks, cJSON_CreateString(k));
            cJSON_AddItemToArray(hs, o);
            leases += h->running;
        }
        cJSON_AddNumberToObject(cl, "leases", (double)leases);
    }

    const cuzk_engine_counters *c = &s->counters;
    cJSON *cj = cJSON_AddObjectToObject(j, "counters");
    for (size_t i = 0; i < JOB_OUTCOMES_N; i++)
        cJSON_AddNumberToObject(cj, JOB_OUTCOMES[i].name, (double)job_outcome_count(c, i));
    cJSON_AddNumberToObject(cj, "keys_loaded", (double)c->keys_loaded);
    cJSON_AddNumberToObject(cj, "keys_evicted", (double)c->keys_evicted);
    cJSON_AddNumberToObject(cj, "journal_flushes", (double)c->journal_flushes);
    cJSON_AddNumberToObject(cj, "queue_wait_s_total", c->queue_wait_s_total);
    cJSON_AddNumberToObject(cj, "prove_s_total", c->prove_s_total);

    cJSON *dev = cJSON_AddArrayToObject(j, "devices");
    for (size_t i = 0; i < s->n_devices; i++) {
        const cuzk_device_info *d = &s->devices[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", d->index);
        cJSON_AddStringToObject(o, "name", d->name);
        cJSON_AddNumberToObject(o, "memory_total", (double)d->memory_total);
        cJSON_AddNumberToObject(o, "memory_free", (double)d->memory_free);
        cJSON_AddNumberToObject(o, "memory_budget", (double)d->memory_budget);
        cJSON_AddNumberToObject(o, "workers", d->workers);
        cJSON_AddItemToArray(dev, o);
    }
    cJSON *wk = cJSON_AddArrayToObject(j, "workers");
    for (size_t i = 0; i < s->n_workers; i++) {
        const cuzk_worker_info *w = &s->workers[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", w->index);
        cJSON_AddNumberToObject(o, "device", w->device);
        if (w->job_id[0]) {
            cJSON_AddStringToObject(o, "job", w->job_id);
            cJSON_AddStringToObject(o, "phase", w->phase);
            cJSON_AddNumberToObject(o, "progress", w->progress);
        } else {
            cJSON_AddNullToObject(o, "job");
        }
        cJSON_AddNumberToObject(o, "jobs_done", (double)w->jobs_done);
        cJSON_AddNumberToObject(o, "busy_s", w->busy_s);
        cJSON_AddItemToArray(wk, o);
    }
    cJSON *keys = cJSON_AddArrayToObject(j, "keys");
    for (size_t i = 0; i < s->n_keys; i++)
        cJSON_AddItemToArray(keys, json_key(&s->keys[i]));
    cJSON *tl = cJSON_AddArrayToObject(j, "timeline");
    for (size_t i = 0; i < s->n_timeline; i++) {
        const cuzk_timeline_entry *t = &s->timeline[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "job", t->job_id);
        cJSON_AddNumberToObject(o, "worker", t->worker);
        cJSON_AddNumberToObject(o, "device", t->device);
        cJSON_AddStringToObject(o, "priority", cuzk_priority_name(t->priority));
        cJSON_AddStringToObject(o, "state", cuzk_job_state_name(t->state));
        cJSON_AddNumberToObject(o, "started_ms", (double)t->started_ms);
        cJSON_AddNumberToObject(o, "finished_ms", (double)t->finished_ms);
        cJSON_AddItemToArray(tl, o);
    }
    cJSON *ph = cJSON_AddArrayToObject(j, "phases");
    for (size_t i = 0; i < s->n_phases; i++) {
        const cuzk_phase_stat *p = &s->phases[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", p->name);
        cJSON_AddNumberToObject(o, "count", (double)p->count);
        cJSON_AddNumberToObject(o, "total_s", p->total_s);
        cJSON_AddNumberToObject(o, "mean_s", p->count ? p->total_s / (double)p->count : 0);
        cJSON_AddItemToArray(ph, o);
    }
    return j;
}
