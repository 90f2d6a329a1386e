/* DESIGN — the proving engine (API and contracts in engine.h); this file:
 * its lifecycle (open, close), names, logging and the status snapshot. The
 * other rooms are listed in engine_internal.h.
 *
 * State lives in three places:
 *  - the queue (queue.h; SQLite, or PostgreSQL shared by several hosts:
 *    engine.queue): every job and its result, durable.
 *    Each transition commits before the engine reports it, and whatever an
 *    answer reports (an accepted job, a state, a proof) is flushed to disk
 *    before the answer leaves (journal_sync): a crash or power loss loses
 *    nothing that was acknowledged. Workers do not wait for flushes; the
 *    callers that need one share it (group commit, queue.h). At start, jobs
 *    left running (by this host) are requeued (rescue) and spool files
 *    without a live job are removed. A shared queue: workers poll it (a
 *    listener thread wakes them on NOTIFY), the housekeeper renews this
 *    host's leases and requeues expired ones, and the workers publish
 *    which keys are resident here (key affinity: queue_pg.c).
 *  - the witness of each queued/running job: up to 1 MiB in the queue with
 *    the job (one commit; any size in a shared queue), else a spool file
 *    written and fsynced (file and directory) before the job is journaled;
 *    deleted when the job ends.
 *  - memory, under e->lock: the key cache, the workers, counters, the
 *    timeline and the memory reservations.
 *
 * Scheduling, pause and cancel: engine_sched.c.
 *
 * Locks: e->lock (memory state) may be held while taking e->dblock (the
 * queue handle), never the reverse. Prover work runs with neither held. */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/gpu.h"
#include "engine/engine_internal.h"
#include "util/common.h"

/* ---- names ----------------------------------------------------------------- */

const char *cuzk_engine_code_name(int code)
{
    switch (code) {
    case CUZK_ENGINE_NOT_FOUND: return "not_found";
    case CUZK_ENGINE_CONFLICT: return "conflict";
    case CUZK_ENGINE_BUSY: return "busy";
    case CUZK_ENGINE_DRAINING: return "draining";
    case CUZK_ENGINE_TOO_LARGE: return "too_large";
    case CUZK_ENGINE_FORBIDDEN: return "forbidden";
    case CUZK_ENGINE_NO_SPACE: return "no_space";
    case CUZK_ENGINE_UNAVAILABLE: return "unavailable";
    default: return cuzk_status_name((cuzk_status)code);
    }
}

static const char *const PRIO[] = {"critical", "high", "normal", "low"};
static const char *const STATE[] = {"queued", "running", "done", "failed", "cancelled"};

const char *cuzk_priority_name(cuzk_priority p)
{
    return (unsigned)p < 4 ? PRIO[p] : "?";
}

int cuzk_priority_parse(const char *s)
{
    for (int i = 0; s && i < 4; i++)
        if (!strcmp(s, PRIO[i]))
            return i;
    return -1;
}

const char *cuzk_job_state_name(cuzk_job_state s)
{
    return (unsigned)s < 5 ? STATE[s] : "?";
}

int cuzk_job_state_parse(const char *s)
{
    for (int i = 0; s && i < 5; i++)
        if (!strcmp(s, STATE[i]))
            return i;
    return -1;
}

void cuzk_engine_vlog(const cuzk_engine_hooks *h, const char *event, const char *fmt, va_list ap)
{
    if (!h->log)
        return;
    char fields[1024], esc[4 * sizeof fields];
    vsnprintf(fields, sizeof fields, fmt, ap);
    /* One event, one line: control characters (a newline in a value a
     * client chose) are written as \xNN. */
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)fields; *p && o + 5 < sizeof esc; p++) {
        if (*p < 0x20 || *p == 0x7f)
            o += (size_t)snprintf(esc + o, sizeof esc - o, "\\x%02x", *p);
        else
            esc[o++] = (char)*p;
    }
    esc[o] = 0;
    h->log(h->user, event, esc);
}

/* ---- open / drain / close -------------------------------------------------- */

static cuzk_status mkdir_p(const char *dir, cuzk_error *err)
{
    char tmp[CUZK_CFG_STR_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            if (mkdir(tmp, 0755) && errno != EEXIST)
                return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", tmp, strerror(errno));
            *p = '/';
        }
    if (mkdir(tmp, 0700) && errno != EEXIST)
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", tmp, strerror(errno));
    return CUZK_OK;
}

/* gpu.devices: "" = every GPU (none when this build has no GPU prover),
 * "none" = CPU workers only, else a list of CUDA ordinals. */
static cuzk_status pick_devices(cuzk_engine *e, cuzk_error *err)
{
    const char *spec = e->cfg.devices;
    int count = cuzk_gpu_prover_built() ? cuzk_gpu_device_count() : 0;
    e->n_devices = 0;
    if (!strcmp(spec, "none"))
        return CUZK_OK;
    if (!spec[0]) {
        for (int d = 0; d < count && d < ENG_MAX_DEVICES; d++)
            e->devices[e->n_devices++] = d;
    } else {
        char list[sizeof e->cfg.devices], *save = NULL;
        snprintf(list, sizeof list, "%s", spec);
        for (char *p = strtok_r(list, ", ", &save); p; p = strtok_r(NULL, ", ", &save)) {
            char *end;
            long d = strtol(p, &end, 10);
            if (*end || d < 0 || d >= count || e->n_devices == ENG_MAX_DEVICES)
                return cuzk_err_force(err, CUZK_ERR_USAGE,
                                      "gpu.devices \"%s\": no GPU \"%s\" (%d usable%s)", spec, p,
                                      count, cuzk_gpu_prover_built() ? "" : ": built without the GPU prover");
            e->devices[e->n_devices++] = (int)d;
        }
    }
    for (int i = 0; i < e->n_devices; i++) {
        cuzk_device_info *di = &e->device_info[i];
        size_t total = 0;
        int sms = 0;
        cuzk_error derr = {0};
        di->index = e->devices[i];
        if (cuzk_gpu_device_info(di->index, di->name, sizeof di->name, &total, &sms, &derr))
            return cuzk_err_force(err, CUZK_ERR_GPU, "GPU %d: %s", di->index, derr.msg);
        di->memory_total = total;
        e->device_sms[i] = sms;
        /* Default: the GPU prover's own default budget (gpu_plan.h), the
         * free memory now minus max(512 MiB, 2 % of the device). */
        size_t free_now = 0, tot = 0;
        if (!e->cfg.device_memory && cuzk_gpu_mem_info(di->index, &free_now, &tot, &derr))
            return cuzk_err_force(err, CUZK_ERR_GPU, "GPU %d: %s", di->index, derr.msg);
        di->memory_budget = e->cfg.device_memory
                                ? e->cfg.device_memory
                                : cuzk_mem_after_margin(free_now, total, CUZK_MARGIN_DEVICE_MIN);
        di->workers = eng_workers_per_device(e);
    }
    return CUZK_OK;
}

static void engine_free(cuzk_engine *e)
{
    for (size_t i = 0; i < e->n_workers; i++)
        eng_worker_ctx_free(e->workers[i].wctx);
    free(e->workers);
    for (size_t i = 0; i < e->n_keys; i++)
    {
        for (int s = 0; s < ENG_SLOTS; s++)
            eng_key_free(e->keys[i]->slot[s].key);
        free(e->keys[i]);
    }
    free(e->keys);
    eng_backend_free(e->backend);
    if (e->q)
        e->q->ops->close(e->q);
    eng_keyreg_close(e->reg);
    if (e->lockfd >= 0)
        close(e->lockfd);
    pthread_mutex_destroy(&e->lock);
    pthread_mutex_destroy(&e->dblock);
    blob_teardown(e);
    pthread_mutex_destroy(&e->blob_mu);
    pthread_cond_destroy(&e->work_cv);
    pthread_cond_destroy(&e->change_cv);
    pthread_cond_destroy(&e->hk_cv);
    free(e);
}

static void stop_threads(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    e->stopping = 1;
    pthread_cond_broadcast(&e->work_cv);
    pthread_cond_broadcast(&e->hk_cv);
    pthread_cond_broadcast(&e->change_cv);
    pthread_mutex_unlock(&e->lock);
    for (size_t i = 0; i < e->n_workers; i++)
        if (e->workers[i].started)
            pthread_join(e->workers[i].thread, NULL);
    if (e->hk_started)
        pthread_join(e->housekeeper, NULL);
    if (e->listener_started)
        pthread_join(e->listener, NULL);
}

cuzk_status cuzk_engine_open(cuzk_engine **out, const cuzk_config *cfg,
                             const cuzk_engine_hooks *hooks, cuzk_error *err)
{
    *out = NULL;
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: out of memory");
    e->cfg = *cfg;
    if (hooks)
        e->hooks = *hooks;
    e->lockfd = -1;
    e->paused = cfg->paused != 0;
    e->keys_dirty = 1; /* a shared queue hears what is resident here (nothing yet) */
    e->start_mono = cuzk_now();
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_init(&e->dblock, NULL);
    pthread_mutex_init(&e->blob_mu, NULL);
    pthread_cond_init(&e->work_cv, NULL);
    pthread_cond_init(&e->change_cv, NULL);
    pthread_cond_init(&e->hk_cv, NULL);
    cuzk_status st;
    const char *dir = cfg->state_dir[0] ? cfg->state_dir : ".";
    if (cfg->host_id[0])
        snprintf(e->host_id, sizeof e->host_id, "%s", cfg->host_id);
    else if (gethostname(e->host_id, sizeof e->host_id - 1))
        snprintf(e->host_id, sizeof e->host_id, "localhost");
    if (e->cfg.cpu_workers < 1)
        e->cfg.cpu_workers = 1;
    if (e->cfg.max_attempts < 1)
        e->cfg.max_attempts = 1;
    snprintf(e->spool, sizeof e->spool, "%s/spool", dir);
    if ((st = mkdir_p(dir, err)) || (st = mkdir_p(e->spool, err)))
        goto fail;
    char lockpath[CUZK_CFG_STR_MAX + 16];
    snprintf(lockpath, sizeof lockpath, "%s/lock", dir);
    e->lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (e->lockfd < 0) {
        st = cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", lockpath, strerror(errno));
        goto fail;
    }
    if (flock(e->lockfd, LOCK_EX | LOCK_NB)) {
        st = cuzk_err_force(err, CUZK_ERR_IO,
                            "%s: locked: another cuzk engine uses this state directory", dir);
        goto fail;
    }
    /* The holder's pid, for operators (a detached daemon prints it once). */
    if (ftruncate(e->lockfd, 0) == 0)
        dprintf(e->lockfd, "%d\n", (int)getpid());
    /* Private: the journal holds witnesses and proofs. Older state
     * directories are tightened too. */
    struct stat dsb;
    if (!stat(dir, &dsb) && (dsb.st_mode & 077)) {
        if (chmod(dir, 0700))
            elog(e, "state_dir_mode", "dir=%s error=\"%s\"", dir, strerror(errno));
        else
            elog(e, "state_dir_mode", "dir=%s mode=0700 was=0%o", dir, (unsigned)(dsb.st_mode & 0777));
    }
    chmod(e->spool, 0700);
    e->host_budget = cfg->host_memory ? cfg->host_memory : cuzk_host_mem_available() / 10 * 9;

    char journal[CUZK_CFG_STR_MAX + 16];
    snprintf(journal, sizeof journal, "%s/journal.db", dir);
    const eng_queue_ops *qops = eng_queue_backend(cfg->queue);
    if (!qops) {
        char safe[CUZK_CFG_STR_MAX];
        eng_queue_redact(cfg->queue, safe, sizeof safe);
        st = cuzk_err_force(err, CUZK_ERR_USAGE,
                            "engine.queue \"%s\": not \"sqlite\", a postgresql:// URI or a conninfo",
                            safe);
        goto fail;
    }
    if (qops->shared && cfg->lease_s > 0 && cfg->lease_renew_s * 2 > cfg->lease_s) {
        st = cuzk_err_force(err, CUZK_ERR_USAGE,
                            "engine.lease_renew (%gs) must be at most half of engine.lease (%gs):"
                            " leases would run out between renewals",
                            cfg->lease_renew_s, cfg->lease_s);
        goto fail;
    }
    if (qops == &eng_queue_sqlite) {
        /* SQLite gives its -wal and -shm files the journal's mode. */
        int jfd = open(journal, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (jfd < 0) {
            st = ecode(err, store_code(errno), "%s: %s", journal, strerror(errno));
            goto fail;
        }
        fchmod(jfd, 0600);
        close(jfd);
        char side[CUZK_CFG_STR_MAX + 32];
        snprintf(side, sizeof side, "%s-wal", journal);
        chmod(side, 0600);
        snprintf(side, sizeof side, "%s-shm", journal);
        chmod(side, 0600);
    }
    char keys[CUZK_CFG_STR_MAX + 16];
    snprintf(keys, sizeof keys, "%s/keys.db", dir);
    int kfd = open(keys, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600); /* private, as the journal */
    if (kfd < 0) {
        st = ecode(err, store_code(errno), "%s: %s", keys, strerror(errno));
        goto fail;
    }
    fchmod(kfd, 0600);
    close(kfd);
    if ((st = eng_keyreg_open(&e->reg, keys, journal, err)))
        goto fail;
    eng_queue_opts qopts = {.host = e->host_id,
                            .lease_s = cfg->lease_s,
                            .affinity_s = cfg->affinity_delay_s,
                            .notify = cfg->notify};
    if ((st = qops->open(&e->q, qops == &eng_queue_sqlite ? journal : cfg->queue, &qopts, err)))
        goto fail;
    uint64_t requeued = 0, failed = 0;
    if ((st = e->q->ops->rescue(e->q, e->host_id, now_ms(), &requeued, &failed, err)) ||
        (st = journal_sync(e, journal_mark(e), err)))
        goto fail;
    e->counters.recovered = requeued;
    if (requeued || failed)
        elog(e, "jobs_recovered", "requeued=%llu ended=%llu", (unsigned long long)requeued,
             (unsigned long long)failed);
    if ((st = blob_setup(e, err)))
        goto fail;
    spool_sweep(e);
    uint64_t queued[CUZK_PRIO_COUNT], running;
    if ((st = e->q->ops->stats(e->q, queued, &running, &e->spool_bytes, err)))
        goto fail;
    e->active_jobs = running;
    for (int i = 0; i < CUZK_PRIO_COUNT; i++)
        e->active_jobs += queued[i];

    if ((st = pick_devices(e, err)))
        goto fail;
    /* Known keys (not loaded until used or preloaded). */
    eng_key_rec *recs = NULL;
    size_t n_recs = 0;
    if ((st = eng_keyreg_all(e->reg, &recs, &n_recs, err)))
        goto fail;
    for (size_t i = 0; i < n_recs; i++) {
        eng_key_meta meta;
        cuzk_error kerr = {0};
        eng_kentry *k;
        if (eng_key_meta_read(recs[i].path, &meta, &kerr)) {
            elog(e, "key_unavailable", "key=%s path=%s error=\"%s\"", recs[i].id, recs[i].path,
                 kerr.msg);
            continue;
        }
        if (key_find(e, recs[i].id))
            continue;
        eng_kplan plan;
        key_plan(e, recs[i].path, &plan);
        if ((st = key_add(e, &recs[i], &meta, &plan, &k, err))) {
            free(recs);
            goto fail;
        }
    }
    free(recs);

    if ((st = eng_backend_create(&e->backend, cfg->threads, err)))
        goto fail;
    int per_device = eng_workers_per_device(e);
    e->n_workers = e->n_devices ? (size_t)(e->n_devices * per_device) : (size_t)e->cfg.cpu_workers;
    e->workers = calloc(e->n_workers, sizeof *e->workers);
    if (!e->workers) {
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < e->n_workers; i++) {
        eng_worker *w = &e->workers[i];
        w->e = e;
        w->index = (int)i;
        w->device = e->n_devices ? e->devices[i / (size_t)per_device] : -1;
        w->prog.timing = on_phase_timing;
        w->prog.user = w;
        if ((st = eng_worker_ctx_create(&w->wctx, e->backend, &w->prog, err)))
            goto fail;
    }

    /* The cluster view: what this host is (its URL follows when auto). */
    if (e->q->ops->shared && e->q->ops->describe_host) {
        cuzk_error derr = {0};
        pthread_mutex_lock(&e->dblock);
        if (e->q->ops->describe_host(e->q, atomic_load(&e->adv_ready) ? e->adv_url : "", e->n_devices,
                                     (int)e->n_workers, &derr))
            elog(e, "journal_error", "op=describe_host error=\"%s\"", derr.msg);
        pthread_mutex_unlock(&e->dblock);
    }

    /* Preload: register and load each listed key before accepting jobs. */
    if (cfg->preload[0]) {
        char list[CUZK_CFG_LIST_MAX], *save = NULL;
        snprintf(list, sizeof list, "%s", cfg->preload);
        for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            while (*p == ' ' || *p == '\t')
                p++;
            size_t L = strlen(p);
            while (L && (p[L - 1] == ' ' || p[L - 1] == '\t'))
                p[--L] = 0;
            if (!*p)
                continue;
            cuzk_engine_key_info ki;
            if ((st = cuzk_engine_key_register(e, p, 1, &ki, err)))
                goto fail;
            pthread_mutex_lock(&e->lock);
            eng_kentry *k = key_find(e, ki.id);
            if (k)
                k->preloaded = 1;
            pthread_mutex_unlock(&e->lock);
        }
    }

    for (size_t i = 0; i < e->n_workers; i++) {
        if (pthread_create(&e->workers[i].thread, NULL, worker_main, &e->workers[i])) {
            st = cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: cannot start a worker thread");
            stop_threads(e);
            goto fail;
        }
        e->workers[i].started = 1;
    }
    if (pthread_create(&e->housekeeper, NULL, housekeeper_main, e)) {
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: cannot start the housekeeping thread");
        stop_threads(e);
        goto fail;
    }
    e->hk_started = 1;
    if (e->q->ops->shared && e->q->ops->listen && cfg->notify) {
        if (pthread_create(&e->listener, NULL, listener_main, e)) {
            st = cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: cannot start the listener thread");
            stop_threads(e);
            goto fail;
        }
        e->listener_started = 1;
    }
    elog(e, "engine_started", "state_dir=%s host=%s queue=%s workers=%zu gpus=%d budget=%llu queued=%llu",
         dir, e->host_id, e->q->ops->name, e->n_workers, e->n_devices, (unsigned long long)e->host_budget,
         (unsigned long long)e->active_jobs);
    *out = e;
    return CUZK_OK;
fail:
    engine_free(e);
    return st;
}

void cuzk_engine_close(cuzk_engine *e)
{
    if (!e)
        return;
    if (!e->drained)
        cuzk_engine_drain(e, -1);
    stop_threads(e);
    cuzk_error err = {0};
    if (e->q->ops->shared && e->q->ops->publish_keys) { /* nothing resident here any more */
        pthread_mutex_lock(&e->dblock);
        if (e->q->ops->publish_keys(e->q, NULL, 0, &err))
            elog(e, "journal_error", "op=publish_keys error=\"%s\"", err.msg);
        pthread_mutex_unlock(&e->dblock);
    }
    if (journal_sync(e, journal_mark(e), &err))
        elog(e, "journal_error", "op=sync error=\"%s\"", err.msg);
    elog(e, "engine_stopped", "completed=%llu", (unsigned long long)e->counters.completed);
    engine_free(e);
}

/* ---- status ---------------------------------------------------------------- */

cuzk_status cuzk_engine_snapshot_get(cuzk_engine *e, cuzk_engine_snapshot **out, cuzk_error *err)
{
    cuzk_engine_snapshot *s = calloc(1, sizeof *s);
    if (!s)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "status: out of memory");
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->stats(e->q, s->queued, &s->running, &s->spool_bytes, err);
    pthread_mutex_unlock(&e->dblock);
    if (st) {
        free(s);
        return st;
    }
    if (e->q->ops->shared && e->q->ops->hosts) {
        s->shared = 1;
        pthread_mutex_lock(&e->dblock);
        st = e->q->ops->hosts(e->q, e->cfg.lease_s > 0 ? e->cfg.lease_s : 30, &s->hosts, &s->n_hosts,
                              err);
        pthread_mutex_unlock(&e->dblock);
        if (st) {
            free(s);
            return st;
        }
    }
    pthread_mutex_lock(&e->lock);
    s->uptime_s = cuzk_now() - e->start_mono;
    s->pid = (int)getpid();
    s->draining = e->draining;
    s->paused = e->paused;
    s->admit = e->admit;
    snprintf(s->host_id, sizeof s->host_id, "%s", e->host_id);
    s->host_budget = e->host_budget;
    s->host_used = e->jobs_reserved + keys_resident_bytes(e);
    s->counters = e->counters;
    s->counters.journal_flushes = e->q->ops->flushes(e->q);
    s->workers = calloc(e->n_workers ? e->n_workers : 1, sizeof *s->workers);
    s->keys = calloc(e->n_keys ? e->n_keys : 1, sizeof *s->keys);
    s->timeline = calloc(e->tl_n ? e->tl_n : 1, sizeof *s->timeline);
    s->phases = calloc(e->n_phases ? e->n_phases : 1, sizeof *s->phases);
    s->devices = calloc(e->n_devices ? (size_t)e->n_devices : 1, sizeof *s->devices);
    if (s->workers && s->keys && s->timeline && s->phases && s->devices) {
        s->n_workers = e->n_workers;
        for (size_t i = 0; i < e->n_workers; i++) {
            const eng_worker *w = &e->workers[i];
            cuzk_worker_info *o = &s->workers[i];
            o->index = w->index;
            o->device = w->device;
            if (w->busy) {
                memcpy(o->job_id, w->job_id, sizeof o->job_id);
                const char *ph = atomic_load(&w->prog.phase);
                snprintf(o->phase, sizeof o->phase, "%s", ph ? ph : "");
                o->progress = atomic_load(&w->prog.fraction);
            }
            o->jobs_done = w->jobs_done;
            o->busy_s = w->busy_s;
        }
        s->n_keys = e->n_keys;
        for (size_t i = 0; i < e->n_keys; i++)
            key_info_fill(e, e->keys[i], &s->keys[i]);
        s->n_timeline = e->tl_n;
        size_t first = (e->tl_next + CUZK_TIMELINE_MAX - e->tl_n) % CUZK_TIMELINE_MAX;
        for (size_t i = 0; i < e->tl_n; i++)
            s->timeline[i] = e->timeline[(first + i) % CUZK_TIMELINE_MAX];
        s->n_phases = e->n_phases;
        memcpy(s->phases, e->phases, e->n_phases * sizeof *s->phases);
        s->n_devices = (size_t)e->n_devices;
        for (int i = 0; i < e->n_devices; i++) {
            s->devices[i] = e->device_info[i];
            /* what the keys resident there planned for (the driver's free
             * memory is the GPU backend's to read) */
            uint64_t used = 0;
            for (size_t k = 0; k < e->n_keys; k++)
                used += e->keys[k]->slot[e->devices[i] + 1].device_bytes;
            s->devices[i].memory_free = used < s->devices[i].memory_budget
                                            ? s->devices[i].memory_budget - used
                                            : 0;
        }
    } else {
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "status: out of memory");
    }
    pthread_mutex_unlock(&e->lock);
    if (st) {
        cuzk_engine_snapshot_free(s);
        return st;
    }
    *out = s;
    return CUZK_OK;
}

void cuzk_engine_snapshot_free(cuzk_engine_snapshot *s)
{
    if (!s)
        return;
    free(s->workers);
    free(s->devices);
    free(s->keys);
    free(s->timeline);
    free(s->phases);
    free(s->hosts);
    free(s);
}
