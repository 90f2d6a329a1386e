/* DESIGN — the scheduler: workers, claims, pause, drain and leases.
 *
 * One worker thread per CPU worker or per (GPU, workers_per_device). A
 * worker looks at the head of the queue (priority, then FIFO) and claims it
 * only when its memory fits: need = the job's host estimate + its key's size
 * if the key is not resident; room = budget - reserved jobs - resident keys
 * + idle keys that may be evicted (least recently used first, never one in
 * use). On a GPU worker the key must also be resident on that GPU or its
 * device plan (the GPU prover's, for the key and the GPU's W workers) fit
 * beside the plans of the keys in use there (devmem.h). A head that does not
 * fit waits (no lower-priority job overtakes it), so a critical job is never
 * starved by smaller ones; a job that could never fit is refused at submit
 * (TOO_LARGE), one whose key is gone or fits no GPU here is failed.
 *
 * Pause: no claim while e->paused (except e->admit more); a claimed job
 * waits on work_cv before its proof starts, until resume, cancel or a drain's
 * stop. Proofs under way finish.
 *
 * Cancel: a queued job is cancelled in the queue; a running one gets its
 * worker's cancel flag, which the prover polls at phase boundaries. A drain
 * uses the same flag with another reason: those jobs go back to the queue.
 * Every transition out of running is fenced on (id, attempt, owner), so a
 * job ends exactly once; a journal that cannot take an end is retried.
 *
 * Housekeeping (one thread): retention (expire), and on a shared queue the
 * lease renewal of this host's jobs, the rescue of expired leases (any
 * host's) and the re-read of the queue depth; idle workers poll a shared
 * queue every ENG_QUEUE_POLL_S (ENG_QUEUE_POLL_NOTIFY_S while a listener
 * thread hears the queue's wake-ups, engine.notify). Before it looks, a
 * worker publishes the keys resident here if they changed (keys_publish),
 * and so does the housekeeper at each renewal (a key loaded by a worker
 * now busy proving), so that this host's and the others' claims follow
 * key affinity. */
#include <limits.h>
#include <unistd.h>
#include <stdlib.h>

#include "engine/engine_internal.h"

/* ---- counters, timeline, phases (e->lock held) --------------------------------- */

static void phase_add(cuzk_engine *e, const char *name, double s)
{
    for (size_t i = 0; i < e->n_phases; i++)
        if (!strcmp(e->phases[i].name, name)) {
            e->phases[i].count++;
            e->phases[i].total_s += s;
            return;
        }
    if (e->n_phases < CUZK_PHASES_MAX) {
        cuzk_phase_stat *p = &e->phases[e->n_phases++];
        snprintf(p->name, sizeof p->name, "%s", name);
        p->count = 1;
        p->total_s = s;
    }
}

void on_phase_timing(void *user, const char *phase, double seconds)
{
    eng_worker *w = user;
    pthread_mutex_lock(&w->e->lock);
    phase_add(w->e, phase, seconds);
    pthread_mutex_unlock(&w->e->lock);
}

static void timeline_push(cuzk_engine *e, const eng_job *j, int worker, int device, int state,
                          int64_t started, int64_t finished)
{
    cuzk_timeline_entry *t = &e->timeline[e->tl_next];
    memset(t, 0, sizeof *t);
    memcpy(t->job_id, j->id, sizeof t->job_id);
    t->worker = worker;
    t->device = device;
    t->priority = (cuzk_priority)j->priority;
    t->state = (cuzk_job_state)state;
    t->started_ms = started;
    t->finished_ms = finished;
    e->tl_next = (e->tl_next + 1) % CUZK_TIMELINE_MAX;
    if (e->tl_n < CUZK_TIMELINE_MAX)
        e->tl_n++;
}

/* ---- workers ----------------------------------------------------------------- */

static size_t busy_workers(const cuzk_engine *e)
{
    size_t n = 0;
    for (size_t i = 0; i < e->n_workers; i++)
        n += e->workers[i].busy != 0;
    return n;
}

/* Ends a job (terminal or requeued) in the queue; returns the state it took
 * (-1 when fenced: another owner/attempt holds it). */
static int job_end(cuzk_engine *e, const eng_job *j, cuzk_status st, const cuzk_error *perr,
                   const char *proof, const char *pub, int stop, uint64_t *mark, int *stored)
{
    *stored = 0;
    int64_t t = now_ms();
    int fenced = 0, state;
    cuzk_error err = {0};
    cuzk_status qst;
    pthread_mutex_lock(&e->dblock);
    if (!st) {
        state = CUZK_JOB_DONE;
        qst = e->q->ops->complete(e->q, j->id, j->attempt, e->host_id, proof, pub, t, &fenced, &err);
    } else if ((st == CUZK_ERR_CANCELLED && stop == STOP_DRAIN) || stop == STOP_RETRY) {
        state = CUZK_JOB_QUEUED;
        qst = e->q->ops->finish(e->q, j->id, j->attempt, e->host_id, state, 0, NULL, t, &fenced,
                                &err);
        if (!qst && !fenced) { /* it may have reached max_attempts */
            eng_job now;
            if (!e->q->ops->get(e->q, j->id, &now, &err))
                state = now.state;
        }
    } else {
        state = st == CUZK_ERR_CANCELLED && stop == STOP_CANCEL ? CUZK_JOB_CANCELLED
                                                                : CUZK_JOB_FAILED;
        qst = e->q->ops->finish(e->q, j->id, j->attempt, e->host_id, state, st,
                                state == CUZK_JOB_CANCELLED ? "cancelled while running" : perr->msg,
                                t, &fenced, &err);
    }
    *mark = journal_mark(e);
    if (!qst && !fenced)
        e->end_mark = *mark;
    pthread_mutex_unlock(&e->dblock);
    if (qst) {
        /* The journal cannot be written: the job stays running in it (the
         * caller retries; a restart rescues it). */
        elog(e, "journal_error", "job=%s error=\"%s\"", j->id, err.msg);
        return -1;
    }
    *stored = 1;
    return fenced ? -1 : state;
}

/* Holds a claimed job before its proof while the workers are paused; a
 * cancel or a drain's stop ends the hold. */
static cuzk_status hold_while_paused(eng_worker *w, cuzk_error *err)
{
    cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->lock);
    if (e->paused && !atomic_load(&w->prog.cancel)) {
        atomic_store(&w->prog.phase, "paused");
        elog(e, "job_held", "job=%s worker=%d", w->job_id, w->index);
        pthread_cond_broadcast(&e->change_cv);
        while (e->paused && !atomic_load(&w->prog.cancel) && !e->stopping)
            pthread_cond_wait(&e->work_cv, &e->lock);
    }
    int stop = atomic_load(&w->prog.cancel) || e->stopping;
    pthread_mutex_unlock(&e->lock);
    return stop ? cuzk_err_force(err, CUZK_ERR_CANCELLED, "cancelled") : CUZK_OK;
}

static void run_job(eng_worker *w, eng_job *j, eng_kentry *k)
{
    cuzk_engine *e = w->e;
    int slot = w->device + 1;
    double t0 = cuzk_now();
    elog(e, "job_started", "job=%s key=%s priority=%s attempt=%d worker=%d queue_ms=%lld", j->id,
         j->key_id, cuzk_priority_name((cuzk_priority)(j->priority & 3)), j->attempt, w->index,
         (long long)(j->started_ms - j->enqueued_ms));
    cuzk_error err = {0};
    char *proof = NULL, *pub = NULL;
    int blob_failed = 0, blob_gone = 0;
    cuzk_status st = key_acquire_loaded(e, k, slot, w->wctx, &err);
    if (!st) {
        char wp[CUZK_CFG_STR_MAX + 512];
        void *body = NULL;
        size_t len = 0;
        char bsha[65], sname[CUZK_JOB_ID_LEN + 8];
        int kind = witness_ref_kind(j->witness, bsha), in_spool = kind == WREF_SPOOL;
        if (!kind) {
            st = ecode(&err, CUZK_ERR_FORMAT, "job %s: malformed witness reference in the queue", j->id);
        } else if (kind == WREF_BLOB) { /* another host's spool, or a shared directory */
            atomic_store(&w->prog.phase, "fetch_witness");
            st = blob_fetch(e, j, &w->prog.cancel, &body, &len, &blob_gone, &err);
            if (st && st != CUZK_ERR_CANCELLED) {
                blob_failed = 1;
                snprintf(err.msg + strlen(err.msg), sizeof err.msg - strlen(err.msg), "%s",
                         blob_gone ? " (the witness is gone)" : "");
            }
        } else if (in_spool) { /* this host's file of the job */
            spool_file(j, sname, sizeof sname);
            spool_path(e, sname, wp, sizeof wp);
        } else {
            pthread_mutex_lock(&e->dblock);
            st = e->q->ops->input(e->q, j->id, &body, &len, &err);
            pthread_mutex_unlock(&e->dblock);
        }
        if (!st)
            st = hold_while_paused(w, &err);
        atomic_store(&w->prog.phase, "prove");
        if (!st)
            st = eng_prove(w->wctx, k->slot[slot].key, in_spool ? wp : NULL, body, len,
                           &proof, &pub, &err);
        free(body);
    }
    pthread_mutex_lock(&e->lock);
    int stop = w->stop;
    if (blob_failed) {
        elog(e, "witness_fetch_failed", "job=%s attempt=%d gone=%d error=\"%s\"", j->id, j->attempt,
             blob_gone, err.msg);
        /* Unreachable (the owner down, the network): another attempt,
         * here or elsewhere, unless this was the last; gone: fail now. */
        if (!blob_gone && j->attempt < j->max_attempts && stop == STOP_NONE)
            stop = STOP_RETRY;
    }
    pthread_mutex_unlock(&e->lock);
    uint64_t mark = 0;
    int state, stored;
    /* A journal that cannot take the end now (a full disk) is retried every
     * second, the job shown running in phase store_result, until it can:
     * the job is finished then, never left running with an idle worker. A
     * drain or close gives up: the job stays running in the journal and the
     * next start puts it back in the queue. */
    while ((state = job_end(e, j, st, &err, proof, pub, stop, &mark, &stored)) < 0 && !stored) {
        atomic_store(&w->prog.phase, "store_result");
        pthread_mutex_lock(&e->lock);
        if (!e->stopping && w->stop != STOP_DRAIN)
            cond_wait_s(&e->change_cv, &e->lock, 1.0);
        int give_up = e->stopping || w->stop == STOP_DRAIN;
        pthread_mutex_unlock(&e->lock);
        if (give_up)
            break;
    }
    free(proof);
    free(pub);
    double secs = cuzk_now() - t0;
    int64_t fin = now_ms();
    if (state >= 0 && cuzk_job_state_terminal((cuzk_job_state)state))
        spool_remove_durable(e, j, mark);

    pthread_mutex_lock(&e->lock);
    e->jobs_reserved -= j->host_bytes;
    k->slot[slot].users--;
    k->slot[slot].last_used_ms = fin;
    k->jobs++;
    w->busy = 0;
    w->stop = STOP_NONE;
    w->job_id[0] = 0;
    w->jobs_done++;
    w->busy_s += secs;
    atomic_store(&w->prog.cancel, 0);
    atomic_store(&w->prog.phase, (const char *)NULL);
    atomic_store(&w->prog.fraction, 0.0);
    e->counters.queue_wait_s_total += 1e-3 * (double)(j->started_ms - j->enqueued_ms);
    if (state >= 0)
        timeline_push(e, j, w->index, w->device, state, j->started_ms, fin);
    if (state >= 0 && cuzk_job_state_terminal((cuzk_job_state)state)) {
        active_sub(e, j->input_bytes);
        e->counters.prove_s_total += secs;
    }
    switch (state) {
    case CUZK_JOB_DONE:
        e->counters.completed++;
        elog(e, "job_done", "job=%s worker=%d ms=%.1f", j->id, w->index, 1e3 * secs);
        break;
    case CUZK_JOB_CANCELLED:
        e->counters.cancelled++;
        elog(e, "job_cancelled", "job=%s worker=%d running=1", j->id, w->index);
        break;
    case CUZK_JOB_FAILED:
        e->counters.failed++;
        if (st == CUZK_ERR_MISMATCH && strstr(err.msg, "verification"))
            e->counters.verify_failed++;
        elog(e, "job_failed", "job=%s worker=%d code=%s error=\"%s\"", j->id, w->index,
             cuzk_status_name(st), st ? err.msg : "interrupted too many times");
        break;
    case CUZK_JOB_QUEUED:
        e->counters.recovered++;
        elog(e, "job_requeued", "job=%s worker=%d reason=drain", j->id, w->index);
        break;
    default:
        elog(e, "job_fenced", "job=%s worker=%d attempt=%d", j->id, w->index, j->attempt);
    }
    pthread_cond_broadcast(&e->change_cv);
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->lock);
}

void cond_wait_s(pthread_cond_t *cv, pthread_mutex_t *m, double s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double t = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec + s;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    pthread_cond_timedwait(cv, m, &ts);
}

/* Registers the key at path (hashing it unless the registry knows the
 * file) and says whether it is the key id. */
static eng_kentry *key_try_path(cuzk_engine *e, const char *path, const char *id)
{
    pthread_mutex_unlock(&e->lock);
    cuzk_error err = {0};
    eng_kentry *nk = NULL;
    cuzk_status st = access(path, R_OK) ? CUZK_ERR_IO : key_identify(e, path, &nk, &err);
    pthread_mutex_lock(&e->lock);
    if (st || strcmp(nk->id, id))
        return NULL;
    return key_find(e, id);
}

/* A queued job's key by its content id: registered here already, else at
 * the path the job names (where it was registered on the accepting host),
 * else a file of the same name in one of this host's keys.dirs; each found
 * by path and used only if its content id is the job's. NULL if none. */
static eng_kentry *key_for_job(cuzk_engine *e, const eng_job *j)
{
    eng_kentry *k = key_find(e, j->key_id);
    if (k || (k = key_try_path(e, j->key_path, j->key_id)))
        return k;
    const char *base = strrchr(j->key_path, '/');
    base = base ? base + 1 : j->key_path;
    char dirs[CUZK_CFG_LIST_MAX];
    snprintf(dirs, sizeof dirs, "%s", e->cfg.key_dirs);
    for (char *save = NULL, *d = strtok_r(dirs, ",", &save); d && *base; d = strtok_r(NULL, ",", &save)) {
        while (*d == ' ')
            d++;
        char p[CUZK_CFG_STR_MAX + CUZK_CFG_LIST_MAX + 2];
        snprintf(p, sizeof p, "%s/%s", d, base);
        if (*d && strcmp(p, j->key_path) && (k = key_try_path(e, p, j->key_id)))
            return k;
    }
    return NULL;
}

/* Tells the queue the keys this host passes over now (e->lock held). */
static void skip_publish(cuzk_engine *e)
{
    const char *ids[ENG_KEY_SKIP_MAX];
    for (size_t i = 0; i < e->n_skip; i++)
        ids[i] = e->skip[i].id;
    cuzk_error err = {0};
    pthread_mutex_lock(&e->dblock);
    e->q->ops->skip_keys(e->q, ids, e->n_skip, &err);
    pthread_mutex_unlock(&e->dblock);
}

/* A shared queue: this host has not the key of a job; its peeks pass over
 * the key's jobs for ENG_KEY_SKIP_S (then it looks for the key again), so
 * another host with the key runs them (e->lock held). */
static void key_skip(cuzk_engine *e, const eng_job *j)
{
    double t = cuzk_now();
    size_t w = 0;
    for (size_t i = 0; i < e->n_skip; i++) /* expired ones go */
        if (t - e->skip[i].since < ENG_KEY_SKIP_S && strcmp(e->skip[i].id, j->key_id))
            e->skip[w++] = e->skip[i];
    e->n_skip = w;
    if (e->n_skip < ENG_KEY_SKIP_MAX) {
        snprintf(e->skip[e->n_skip].id, sizeof e->skip[e->n_skip].id, "%s", j->key_id);
        e->skip[e->n_skip++].since = t;
        elog(e, "key_missing", "job=%s key=%s path=%s skipped_s=%g", j->id, j->key_id, j->key_path,
             (double)ENG_KEY_SKIP_S);
    }
    skip_publish(e);
}

/* Drops the skips that expired (e->lock held). */
static void key_skip_expire(cuzk_engine *e)
{
    double t = cuzk_now();
    int any = 0;
    for (size_t i = 0; i < e->n_skip && !any; i++)
        any = t - e->skip[i].since >= ENG_KEY_SKIP_S;
    if (!any)
        return;
    size_t w = 0;
    for (size_t i = 0; i < e->n_skip; i++)
        if (t - e->skip[i].since < ENG_KEY_SKIP_S)
            e->skip[w++] = e->skip[i];
    e->n_skip = w;
    skip_publish(e);
}

/* Fails a queued job that can never run here (its key is gone, or no plan
 * of it fits this GPU), with why. */
static void fail_unclaimable(cuzk_engine *e, eng_worker *w, const eng_job *head,
                             const cuzk_error *why)
{
    /* Claim it, then fail it, so the failure is fenced like any other end. */
    eng_job j;
    int claimed = 0;
    cuzk_error err = {0};
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->claim(e->q, head->id, e->host_id, w->index, w->device, now_ms(), &j,
                                      &claimed, &err);
    pthread_mutex_unlock(&e->dblock);
    if (st || !claimed)
        return;
    uint64_t mark = 0;
    int stored = 0;
    int state = job_end(e, &j, why->code, why, NULL, NULL, STOP_NONE, &mark, &stored);
    if (state == CUZK_JOB_FAILED) {
        pthread_mutex_unlock(&e->lock);
        spool_remove_durable(e, &j, mark);
        pthread_mutex_lock(&e->lock);
        active_sub(e, j.input_bytes);
        e->counters.failed++;
        elog(e, "job_failed", "job=%s code=%s error=\"%s\"", j.id, cuzk_status_name(why->code), why->msg);
        pthread_cond_broadcast(&e->change_cv);
    }
}

void *worker_main(void *arg)
{
    eng_worker *w = arg;
    cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping) {
        if (e->draining || (e->paused && !e->admit)) {
            pthread_cond_wait(&e->work_cv, &e->lock);
            continue;
        }
        eng_job head;
        int found = 0;
        cuzk_error err = {0};
        keys_publish(e); /* the claims here and elsewhere see what is resident */
        if (e->n_skip)
            key_skip_expire(e);
        pthread_mutex_lock(&e->dblock);
        cuzk_status st = e->q->ops->peek(e->q, &head, &found, &err);
        pthread_mutex_unlock(&e->dblock);
        if (st) {
            elog(e, "journal_error", "op=peek error=\"%s\"", err.msg);
            cond_wait_s(&e->work_cv, &e->lock, 1.0);
            continue;
        }
        if (!found) {
            if (e->q->ops->shared) /* other hosts submit too: poll */
                cond_wait_s(&e->work_cv, &e->lock, queue_poll_s(e));
            else
                pthread_cond_wait(&e->work_cv, &e->lock);
            continue;
        }
        eng_kentry *k = key_for_job(e, &head);
        if (e->stopping || e->draining || (e->paused && !e->admit))
            continue;
        if (!k && e->q->ops->shared && e->q->ops->skip_keys && e->n_skip < ENG_KEY_SKIP_MAX) {
            key_skip(e, &head); /* another host may have it */
            continue;
        }
        if (!k) {
            cuzk_error why = {0};
            cuzk_err_force(&why, CUZK_ERR_IO, "%s: the key of this job (%s) cannot be found",
                           head.key_path, head.key_id);
            fail_unclaimable(e, w, &head, &why);
            continue;
        }
        int slot = w->device + 1;
        if (slot > 0 && !key_fits_a_device(e, k)) {
            cuzk_error why = {0};
            cuzk_err_force(&why, CUZK_ERR_NOMEM, "%s: the key does not fit GPU %d: %s", k->path,
                           w->device, k->plan.why);
            fail_unclaimable(e, w, &head, &why);
            continue;
        }
        uint64_t need = head.host_bytes + key_need(k, slot);
        if (!fits(e, k, slot, need)) {
            /* Head of line waits for memory: a finished job or an idle key
             * wakes us. The timeout re-reads the queue (a cancelled head). */
            cond_wait_s(&e->work_cv, &e->lock, 1.0);
            continue;
        }
        eng_job j;
        int claimed = 0;
        pthread_mutex_lock(&e->dblock);
        st = e->q->ops->claim(e->q, head.id, e->host_id, w->index, w->device, now_ms(), &j,
                              &claimed, &err);
        pthread_mutex_unlock(&e->dblock);
        if (st) {
            elog(e, "journal_error", "op=claim job=%s error=\"%s\"", head.id, err.msg);
            cond_wait_s(&e->work_cv, &e->lock, 1.0);
            continue;
        }
        if (!claimed)
            continue;
        if (e->paused && e->admit)
            e->admit--;
        make_room(e, k, slot, need);
        e->jobs_reserved += j.host_bytes;
        k->slot[slot].users++;
        w->busy = 1;
        w->stop = STOP_NONE;
        memcpy(w->job_id, j.id, sizeof w->job_id);
        atomic_store(&w->prog.cancel, 0);
        /* The phase it is really in: a resident key is not loaded again. */
        atomic_store(&w->prog.phase, k->slot[slot].state == KEY_RESIDENT ? "prove" : "load_key");
        atomic_store(&w->prog.fraction, 0.0);
        pthread_cond_broadcast(&e->change_cv);
        pthread_mutex_unlock(&e->lock);
        run_job(w, &j, k);
        pthread_mutex_lock(&e->lock);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* A shared queue (several hosts): renews the leases of the jobs this host
 * runs, requeues jobs whose lease ran out (a dead host's), and re-reads the
 * queue depth, which other hosts change too. Called with e->lock held. */
static void hk_leases(cuzk_engine *e)
{
    keys_publish(e); /* a key loaded by a worker now busy proving */
    const char **ids = calloc(e->n_workers + 1, sizeof *ids);
    char (*copy)[CUZK_JOB_ID_LEN + 1] = calloc(e->n_workers + 1, sizeof *copy);
    size_t n = 0;
    for (size_t i = 0; ids && copy && i < e->n_workers; i++)
        if (e->workers[i].busy && e->workers[i].job_id[0]) {
            memcpy(copy[n], e->workers[i].job_id, sizeof copy[n]);
            ids[n] = copy[n];
            n++;
        }
    pthread_mutex_unlock(&e->lock);
    uint64_t requeued = 0, ended = 0, queued[CUZK_PRIO_COUNT], running = 0, bytes = 0;
    int *held = calloc(e->n_workers + 1, sizeof *held);
    cuzk_error err = {0};
    pthread_mutex_lock(&e->dblock);
    cuzk_status rst = ids && copy && held ? e->q->ops->renew(e->q, e->host_id, ids, n, held, &err)
                                          : CUZK_ERR_NOMEM;
    if (rst)
        elog(e, "journal_error", "op=renew error=\"%s\"", err.msg);
    cuzk_status st;
    if ((st = e->q->ops->rescue_expired(e->q, now_ms(), &requeued, &ended, &err)))
        elog(e, "journal_error", "op=rescue_expired error=\"%s\"", err.msg);
    else if (requeued || ended)
        elog(e, "leases_expired", "requeued=%llu ended=%llu", (unsigned long long)requeued,
             (unsigned long long)ended);
    cuzk_status sst = e->q->ops->stats(e->q, queued, &running, &bytes, &err);
    pthread_mutex_unlock(&e->dblock);
    free(ids);
    pthread_mutex_lock(&e->lock);
    /* A job lost to another host (its end would be fenced) or cancelled
     * from another host: stop its worker, if it still runs that job. */
    for (size_t k = 0; !rst && k < n; k++) { /* only what the renewal said */
        if (held[k] == 1)
            continue;
        for (size_t i = 0; i < e->n_workers; i++) {
            eng_worker *w = &e->workers[i];
            if (w->busy && !strcmp(w->job_id, copy[k]) && w->stop == STOP_NONE) {
                w->stop = STOP_CANCEL;
                atomic_store(&w->prog.cancel, 1);
                elog(e, held[k] ? "job_cancel_requested" : "lease_lost", "job=%s worker=%d",
                     copy[k], w->index);
            }
        }
        pthread_cond_broadcast(&e->work_cv); /* a job held by a pause */
    }
    free(held);
    free(copy);
    if (!sst) {
        e->active_jobs = running;
        for (int i = 0; i < CUZK_PRIO_COUNT; i++)
            e->active_jobs += queued[i];
        e->spool_bytes = bytes;
    }
    if (requeued)
        pthread_cond_broadcast(&e->work_cv);
}

/* A shared queue with notifications: wakes idle workers when a job is
 * queued anywhere and waiters when one ends; after a (re)connect both look
 * again (a wake-up may have been missed). Polling goes on beside it, less
 * often while it listens. */
void *listener_main(void *arg)
{
    cuzk_engine *e = arg;
    int down = 0;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping) {
        pthread_mutex_unlock(&e->lock);
        unsigned ev = 0;
        cuzk_error err = {0};
        cuzk_status st = e->q->ops->listen(e->q, 0.25, &ev, &err);
        pthread_mutex_lock(&e->lock);
        if (st == CUZK_ERR_UNSUPPORTED)
            break;
        if (st) {
            if (!down)
                elog(e, "notify_lost", "error=\"%s\"", err.msg);
            down = 1;
            e->listening = 0;
            continue;
        }
        if (ev & ENG_WAKE_RESCAN) {
            if (down)
                elog(e, "notify_listening", "reconnected=1");
            down = 0;
            e->listening = 1;
        }
        if (ev & (ENG_WAKE_JOBS | ENG_WAKE_RESCAN))
            pthread_cond_broadcast(&e->work_cv);
        if (ev & (ENG_WAKE_DONE | ENG_WAKE_RESCAN))
            pthread_cond_broadcast(&e->change_cv);
    }
    e->listening = 0;
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

void *housekeeper_main(void *arg)
{
    cuzk_engine *e = arg;
    double period = e->cfg.retention_s / 4;
    period = period < 0.05 ? 0.05 : period > 10 ? 10 : period;
    double renew = e->cfg.lease_renew_s > 0 ? e->cfg.lease_renew_s : 5;
    if (e->q->ops->shared && renew < period)
        period = renew;
    pthread_mutex_lock(&e->lock);
    while (!e->stopping) {
        cond_wait_s(&e->hk_cv, &e->lock, period);
        if (e->stopping)
            break;
        if (e->q->ops->shared)
            hk_leases(e);
        pthread_mutex_unlock(&e->lock);
        blob_sweep(e); /* witnesses no live job of the cluster names any more */
        int64_t before = now_ms() - (int64_t)(e->cfg.retention_s * 1000);
        size_t total = 0;
        for (;;) {
            eng_job *v = NULL;
            size_t n = 0;
            cuzk_error err = {0};
            pthread_mutex_lock(&e->dblock);
            cuzk_status st = e->q->ops->expire(e->q, before, 256, &v, &n, &err);
            pthread_mutex_unlock(&e->dblock);
            if (st) {
                elog(e, "journal_error", "op=expire error=\"%s\"", err.msg);
                break;
            }
            for (size_t i = 0; i < n; i++)
                spool_remove(e, &v[i]); /* normally gone already */
            free(v);
            total += n;
            if (n < 256)
                break;
        }
        pthread_mutex_lock(&e->lock);
        if (total) {
            e->counters.expired += total;
            elog(e, "jobs_expired", "count=%zu", total);
        }
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

void cuzk_engine_pause(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    if (!e->paused)
        elog(e, "workers_paused", "running=%zu", busy_workers(e));
    e->paused = 1;
    e->admit = 0;
    pthread_cond_broadcast(&e->change_cv);
    pthread_mutex_unlock(&e->lock);
}

void cuzk_engine_resume(cuzk_engine *e)
{
    pthread_mutex_lock(&e->lock);
    if (e->paused)
        elog(e, "workers_resumed", "running=%zu", busy_workers(e));
    e->paused = 0;
    e->admit = 0;
    pthread_cond_broadcast(&e->work_cv);
    pthread_cond_broadcast(&e->change_cv);
    pthread_mutex_unlock(&e->lock);
}

cuzk_status cuzk_engine_admit(cuzk_engine *e, unsigned n, cuzk_error *err)
{
    pthread_mutex_lock(&e->lock);
    if (!e->paused) {
        pthread_mutex_unlock(&e->lock);
        return ecode(err, CUZK_ENGINE_CONFLICT, "the workers are not paused: nothing to admit");
    }
    e->admit = n > UINT_MAX - e->admit ? UINT_MAX : e->admit + n;
    elog(e, "workers_admit", "jobs=%u", n);
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->lock);
    return CUZK_OK;
}

void cuzk_engine_drain(cuzk_engine *e, double timeout_s)
{
    if (!e)
        return;
    if (timeout_s < 0)
        timeout_s = e->cfg.drain_timeout_s;
    pthread_mutex_lock(&e->lock);
    if (!e->draining)
        elog(e, "draining", "running=%zu timeout_s=%g", busy_workers(e), timeout_s);
    e->draining = 1;
    pthread_cond_broadcast(&e->work_cv);
    double end = cuzk_now() + timeout_s;
    while (busy_workers(e) && cuzk_now() < end)
        cond_wait_s(&e->change_cv, &e->lock, end - cuzk_now() < 0.5 ? end - cuzk_now() : 0.5);
    if (busy_workers(e)) {
        for (size_t i = 0; i < e->n_workers; i++)
            if (e->workers[i].busy) {
                e->workers[i].stop = STOP_DRAIN;
                atomic_store(&e->workers[i].prog.cancel, 1);
            }
        pthread_cond_broadcast(&e->work_cv); /* held jobs */
        while (busy_workers(e))
            pthread_cond_wait(&e->change_cv, &e->lock);
    }
    e->drained = 1;
    pthread_mutex_unlock(&e->lock);
}

