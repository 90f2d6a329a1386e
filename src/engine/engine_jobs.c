/* DESIGN — the jobs API: submit, get, wait, result, cancel, list.
 *
 * Submit checks the request (priority, key, witness against the key's
 * shape, memory: TOO_LARGE when it could never run), answers a known
 * idempotency key with its job (CONFLICT when the request differs: the
 * request hash is over key id, priority and witness), refuses rather than
 * queues without bound (BUSY: max_queued, max_spool_bytes), stores the
 * witness (engine_spool.c) and journals the job; the answer leaves only
 * once the journal is durable up to it (group commit, queue.h), and a job
 * whose flush failed is cancelled, never run unacknowledged. Answers about
 * a job's end (a state, a proof) are likewise reported only once durable
 * (e->end_mark). Queue positions of a page come from one walk of the
 * queue's ready index. */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine_internal.h"

static void uuid4(char out[CUZK_JOB_ID_LEN + 1])
{
    uint8_t b[16];
    if (!cuzk_random_bytes(b, sizeof b)) { /* never expected; fall back to time + address */
        uint64_t t = (uint64_t)now_ms() ^ (uint64_t)(uintptr_t)out;
        for (int i = 0; i < 16; i++)
            b[i] = (uint8_t)(t >> (8 * (i % 8))) ^ (uint8_t)(i * 37);
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, CUZK_JOB_ID_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
             b[15]);
}

/* ---- jobs API -------------------------------------------------------------- */

/* pos: the queued job's position when known already, else NULL (a query). */
static void job_info_fill_at(cuzk_engine *e, const eng_job *j, cuzk_job_info *o, const uint64_t *known)
{
    memset(o, 0, sizeof *o);
    memcpy(o->id, j->id, sizeof o->id);
    memcpy(o->key_id, j->key_id, sizeof o->key_id);
    o->state = (cuzk_job_state)j->state;
    o->priority = (cuzk_priority)j->priority;
    o->worker = j->worker;
    o->device = j->device;
    o->attempt = j->attempt;
    o->submitted_ms = j->enqueued_ms;
    o->started_ms = j->state == CUZK_JOB_QUEUED ? 0 : j->started_ms;
    o->finished_ms = j->finished_ms;
    if (o->started_ms)
        o->queue_wait_s = 1e-3 * (double)(o->started_ms - o->submitted_ms);
    if (o->started_ms && o->finished_ms)
        o->prove_s = 1e-3 * (double)(o->finished_ms - o->started_ms);
    o->error_code = (cuzk_status)j->error_code;
    snprintf(o->error, sizeof o->error, "%s", j->error);
    o->cancel_requested = j->cancel_requested;
    o->host_bytes = j->host_bytes;
    o->seq = j->seq;
    if (j->state == CUZK_JOB_QUEUED) {
        uint64_t pos = 0;
        cuzk_error err = {0};
        if (known) {
            o->queue_position = *known;
        } else {
            pthread_mutex_lock(&e->dblock);
            if (!e->q->ops->position(e->q, j, &pos, &err))
                o->queue_position = pos;
            pthread_mutex_unlock(&e->dblock);
        }
        o->worker = o->device = -1;
    } else if (j->state == CUZK_JOB_RUNNING) {
        pthread_mutex_lock(&e->lock);
        for (size_t i = 0; i < e->n_workers; i++) {
            eng_worker *w = &e->workers[i];
            if (w->busy && !strcmp(w->job_id, j->id)) {
                const char *ph = atomic_load(&w->prog.phase);
                snprintf(o->phase, sizeof o->phase, "%s", ph ? ph : "");
                o->progress = atomic_load(&w->prog.fraction);
            }
        }
        pthread_mutex_unlock(&e->lock);
    }
}

static void job_info_fill(cuzk_engine *e, const eng_job *j, cuzk_job_info *o)
{
    job_info_fill_at(e, j, o, NULL);
}

static cuzk_status read_all(const char *path, uint8_t **data, size_t *len, cuzk_error *err)
{
    *data = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb)) {
        int en = errno;
        if (fd >= 0)
            close(fd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: %s", path, strerror(en));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    size_t cap = (size_t)sb.st_size;
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf) {
        close(fd);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t got = 0;
    while (got < cap) {
        ssize_t n = read(fd, buf + got, cap - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    *data = buf;
    *len = got;
    return CUZK_OK;
}

/* SHA-256 of the witness bytes. */
static void witness_digest(const void *w, size_t len, uint8_t out[32])
{
    unsigned dl = 0;
    if (!EVP_Digest(w, len, out, &dl, EVP_sha256(), NULL))
        memset(out, 0, 32);
}

/* What an idempotency key stands for: SHA-256 of the key id, the priority
 * and the witness's SHA-256 (which a streamed witness has as it arrives). */
static void req_hash(const char *key_id, int prio, const uint8_t wsha[32], uint8_t out[32])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    uint8_t p = (uint8_t)prio;
    unsigned dl = 0;
    if (!md || !EVP_DigestInit_ex(md, EVP_sha256(), NULL) ||
        !EVP_DigestUpdate(md, key_id, strlen(key_id)) || !EVP_DigestUpdate(md, &p, 1) ||
        !EVP_DigestUpdate(md, wsha, 32) || !EVP_DigestFinal_ex(md, out, &dl))
        memset(out, 0, 32);
    EVP_MD_CTX_free(md);
}

/* An idempotency key seen before: the same request gets the same job. */
static cuzk_status idem_answer(cuzk_engine *e, const eng_job *have, const uint8_t hash[32],
                               cuzk_job_info *out, int *existed, cuzk_error *err)
{
    if (memcmp(have->req_sha256, hash, 32))
        return ecode(err, CUZK_ENGINE_CONFLICT,
                     "idempotency key \"%.100s\" was used for a different request (job %s)",
                     have->idem_key, have->id);
    if (existed)
        *existed = 1;
    pthread_mutex_lock(&e->lock);
    e->counters.deduplicated++;
    pthread_mutex_unlock(&e->lock);
    job_info_fill(e, have, out);
    return CUZK_OK;
}

static cuzk_status invalid(cuzk_engine *e, cuzk_status st)
{
    pthread_mutex_lock(&e->lock);
    e->counters.rejected_invalid++;
    pthread_mutex_unlock(&e->lock);
    return st;
}

cuzk_status cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, cuzk_job_info *out,
                               int *existed, cuzk_error *err)
{
    if (existed)
        *existed = 0;
    memset(out, 0, sizeof *out);
    if (req->priority < CUZK_PRIO_CRITICAL || req->priority > CUZK_PRIO_LOW)
        return invalid(e, ecode(err, CUZK_ERR_USAGE, "priority %d: not one of critical, high, normal, low",
                                (int)req->priority));
    if (req->idempotency_key && strlen(req->idempotency_key) > CUZK_IDEM_KEY_MAX)
        return invalid(e, ecode(err, CUZK_ERR_USAGE, "idempotency key longer than %d bytes",
                                CUZK_IDEM_KEY_MAX));
    if (!req->witness && !req->witness_path && !req->upload)
        return invalid(e, ecode(err, CUZK_ERR_USAGE, "submit: no witness (body, path or upload)"));
    pthread_mutex_lock(&e->lock);
    int draining = e->draining;
    pthread_mutex_unlock(&e->lock);
    if (draining)
        return ecode(err, CUZK_ENGINE_DRAINING, "shutting down: not accepting jobs");

    /* The key. */
    eng_kentry *k = NULL;
    cuzk_status st;
    char key_id[CUZK_KEY_ID_LEN + 1], key_path[CUZK_CFG_STR_MAX];
    eng_key_meta meta;
    if (req->key_id && req->key_id[0]) {
        pthread_mutex_lock(&e->lock);
        k = key_find(e, req->key_id);
        pthread_mutex_unlock(&e->lock);
        if (!k)
            return invalid(e, ecode(err, CUZK_ENGINE_NOT_FOUND, "key %.80s: no such key",
                                    req->key_id));
    } else if (req->key_path && req->key_path[0]) {
        if ((st = key_identify(e, req->key_path, &k, err)))
            return invalid(e, st);
    } else {
        return invalid(e, ecode(err, CUZK_ERR_USAGE, "submit: no key (id or path)"));
    }
    pthread_mutex_lock(&e->lock);
    memcpy(key_id, k->id, sizeof key_id);
    memcpy(key_path, k->path, sizeof key_path);
    meta = k->meta;
    uint64_t key_bytes = key_estimate(k), plan_job = k->plan.host_job;
    int device_fits = !e->n_devices || key_fits_a_device(e, k);
    char device_why[CUZK_ERROR_MSG_MAX];
    snprintf(device_why, sizeof device_why, "%s", k->plan.why);
    pthread_mutex_unlock(&e->lock);
    if (!device_fits)
        return invalid(e, ecode(err, CUZK_ENGINE_TOO_LARGE, "%s: the key fits no GPU's memory budget: %s",
                                key_path, device_why));

    /* The witness: read, checked against the key, hashed. */
    uint8_t *owned = NULL;
    const void *wd = req->witness;
    size_t wl = req->witness_len;
    const char *wname = req->witness_path ? req->witness_path : "witness";
    uint8_t wsha[32];
    cuzk_engine_upload *up = req->witness ? NULL : req->upload;
    if (up) { /* already in the spool: checked there, 64 KiB at a time */
        wl = (size_t)cuzk_engine_upload_bytes(up);
        if ((st = eng_witness_check_file(upload_path(up), wname, &meta, err)))
            return invalid(e, st);
        upload_digest(up, wsha);
    } else {
        if (!wd) {
            if ((st = read_all(req->witness_path, &owned, &wl, err)))
                return invalid(e, st);
            wd = owned;
        }
        if ((st = eng_witness_check(wd, wl, wname, &meta, err))) {
            free(owned);
            return invalid(e, st);
        }
        witness_digest(wd, wl, wsha);
    }
    /* the host plan's figure for one proof (the older estimate without one) */
    uint64_t host_bytes = plan_job ? plan_job : eng_job_host_bytes(&meta, wl);
    if (host_bytes + key_bytes > e->host_budget) {
        free(owned);
        return invalid(e, ecode(err, CUZK_ENGINE_TOO_LARGE,
                                "%s: the job needs about %llu bytes with its key, more than the "
                                "memory budget (%llu)",
                                wname, (unsigned long long)(host_bytes + key_bytes),
                                (unsigned long long)e->host_budget));
    }
    eng_job j;
    memset(&j, 0, sizeof j);
    req_hash(key_id, req->priority, wsha, j.req_sha256);
    if (req->idempotency_key && req->idempotency_key[0]) {
        snprintf(j.idem_key, sizeof j.idem_key, "%s", req->idempotency_key);
        eng_job have;
        int found = 0;
        pthread_mutex_lock(&e->dblock);
        st = e->q->ops->by_idem(e->q, j.idem_key, &have, &found, err);
        uint64_t mark = e->submit_mark > e->end_mark ? e->submit_mark : e->end_mark;
        pthread_mutex_unlock(&e->dblock);
        if (!st && found) /* that job may still be on its way to the disk */
            st = journal_sync(e, mark, err);
        if (st || found) {
            free(owned);
            return st ? st : idem_answer(e, &have, j.req_sha256, out, existed, err);
        }
    }

    /* Back-pressure: refuse rather than queue without bound. */
    pthread_mutex_lock(&e->lock);
    if (e->active_jobs >= (uint64_t)e->cfg.max_queued ||
        e->spool_bytes + wl > e->cfg.max_spool_bytes) {
        e->counters.rejected_busy++;
        int full_jobs = e->active_jobs >= (uint64_t)e->cfg.max_queued;
        pthread_mutex_unlock(&e->lock);
        free(owned);
        return ecode(err, CUZK_ENGINE_BUSY, "queue full (%s): retry later",
                     full_jobs ? "max_queued jobs" : "max_spool_bytes of witnesses");
    }
    e->active_jobs++;
    e->spool_bytes += wl;
    pthread_mutex_unlock(&e->lock);

    uuid4(j.id);
    memcpy(j.key_id, key_id, sizeof j.key_id);
    memcpy(j.key_path, key_path, sizeof j.key_path);
    j.priority = req->priority;
    j.enqueued_ms = now_ms();
    j.max_attempts = e->cfg.max_attempts;
    /* Small witnesses go into the journal with the job (one fsync); larger
     * ones to a spool file (its fsyncs, then the journal's). A queue shared
     * by several hosts holds every witness, so that any host can run it. */
    int inline_body = wl <= ENG_INLINE_MAX || e->q->ops->shared;
    /* ... unless it places blobs (engine_blobs.c): then witnesses over
     * cluster.inline_witness_max stay on this host, named by their hash. */
    int blob = e->q->ops->shared && blob_ready(e) && wl > e->cfg.inline_witness_max;
    if (blob)
        inline_body = 0;
    /* The job names its witness by content (blobref.h); the blob store fills in a blob's. */
    char wsha_hex[65], spool_name[CUZK_JOB_ID_LEN + 8];
    for (int i = 0; i < 32; i++)
        snprintf(wsha_hex + 2 * i, 3, "%02x", wsha[i]);
    if (!blob)
        witness_ref_format(j.witness, sizeof j.witness, inline_body ? WREF_INLINE : WREF_SPOOL, wsha_hex);
    spool_file(&j, spool_name, sizeof spool_name);
    j.input_bytes = wl;
    j.host_bytes = host_bytes;
    j.worker = j.device = -1;
    st = CUZK_OK;
    if (up && inline_body) /* for the queue: its bytes (small, or a queue without blobs) */
        st = upload_read(up, &owned, &wl, err), wd = owned;
    if (!st && !inline_body)
        st = blob ? (up ? blob_store_upload(e, up, j.witness, sizeof j.witness, err) /* renamed, not read */
                        : blob_store(e, wd, wl, j.witness, sizeof j.witness, err))
             : up ? upload_commit(up, e->spool, spool_name, err)
                  : write_durable(e->spool, spool_name, wd, wl, err);
    eng_job saved;
    int dup = 0;
    if (!st) {
        pthread_mutex_lock(&e->dblock);
        st = e->q->ops->submit(e->q, &j, inline_body ? wd : NULL, wl, &saved, &dup, err);
        uint64_t mark = journal_mark(e);
        if (!st && !dup)
            e->submit_mark = mark;
        else
            mark = e->submit_mark > e->end_mark ? e->submit_mark : e->end_mark;
        pthread_mutex_unlock(&e->dblock);
        /* Journaled before acknowledged: concurrent submits share the flush. */
        if (!st && (st = journal_sync(e, mark, err)) && !dup) {
            eng_job gone;
            int dq = 0;
            cuzk_error cerr = {0};
            pthread_mutex_lock(&e->dblock); /* not acknowledged: do not run it */
            e->q->ops->cancel(e->q, j.id, now_ms(), &gone, &dq, &cerr);
            pthread_mutex_unlock(&e->dblock);
        }
    }
    free(owned);
    if (blob && j.witness[0]) /* committed or not, a sweep may judge it now */
        blob_unpin(e, j.witness + 5);
    if (st || dup) {
        spool_remove(e, &j);
        pthread_mutex_lock(&e->lock);
        active_sub(e, wl);
        pthread_mutex_unlock(&e->lock);
        return st ? st : idem_answer(e, &saved, j.req_sha256, out, existed, err);
    }
    char qk[2 * CUZK_IDEM_KEY_MAX + 3];
    pthread_mutex_lock(&e->lock);
    e->counters.submitted++;
    pthread_cond_broadcast(&e->work_cv);
    elog(e, "job_submitted", "job=%s key=%s priority=%s bytes=%zu%s%s", j.id, key_id,
         cuzk_priority_name((cuzk_priority)j.priority), wl, j.idem_key[0] ? " idempotency_key=" : "",
         j.idem_key[0] ? logq(qk, sizeof qk, j.idem_key) : "");
    pthread_mutex_unlock(&e->lock);
    job_info_fill(e, &saved, out);
    return CUZK_OK;
}

cuzk_status cuzk_engine_job_get(cuzk_engine *e, const char *job_id, cuzk_job_info *out,
                                cuzk_error *err)
{
    eng_job j;
    if (!job_id || strlen(job_id) != CUZK_JOB_ID_LEN)
        return ecode(err, CUZK_ENGINE_NOT_FOUND, "job %.80s: no such job", job_id ? job_id : "");
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->get(e->q, job_id, &j, err);
    uint64_t mark = e->end_mark;
    pthread_mutex_unlock(&e->dblock);
    /* An end (and its proof) is reported only once a crash cannot take it
     * back; queued / running may still change, durable or not. */
    if (!st && cuzk_job_state_terminal((cuzk_job_state)j.state))
        st = journal_sync(e, mark, err);
    if (!st)
        job_info_fill(e, &j, out);
    return st;
}

cuzk_status cuzk_engine_job_wait(cuzk_engine *e, const char *job_id, double timeout_s,
                                 cuzk_job_info *out, cuzk_error *err)
{
    double end = cuzk_now() + (timeout_s > 0 ? timeout_s : 0);
    for (;;) {
        cuzk_status st = cuzk_engine_job_get(e, job_id, out, err);
        if (st || cuzk_job_state_terminal(out->state))
            return st;
        double left = end - cuzk_now();
        if (left <= 0)
            return CUZK_OK;
        /* Another host may end the job: a shared queue is polled sooner. */
        pthread_mutex_lock(&e->lock);
        double step = e->q->ops->shared ? queue_poll_s(e) : 1;
        if (!e->stopping)
            cond_wait_s(&e->change_cv, &e->lock, left < step ? left : step);
        int stopping = e->stopping;
        pthread_mutex_unlock(&e->lock);
        if (stopping)
            return cuzk_engine_job_get(e, job_id, out, err);
    }
}

cuzk_status cuzk_engine_job_result(cuzk_engine *e, const char *job_id, char **proof_json,
                                   char **public_json, cuzk_error *err)
{
    *proof_json = *public_json = NULL;
    cuzk_job_info info;
    cuzk_status st = cuzk_engine_job_get(e, job_id, &info, err);
    if (st)
        return st;
    if (info.state != CUZK_JOB_DONE)
        return ecode(err, CUZK_ENGINE_CONFLICT, "job %s is %s, not done", job_id,
                     cuzk_job_state_name(info.state));
    pthread_mutex_lock(&e->dblock);
    st = e->q->ops->result(e->q, job_id, proof_json, public_json, err);
    pthread_mutex_unlock(&e->dblock);
    return st;
}

cuzk_status cuzk_engine_job_cancel(cuzk_engine *e, const char *job_id, cuzk_job_info *out,
                                   cuzk_error *err)
{
    eng_job j;
    int dequeued = 0;
    if (!job_id || strlen(job_id) != CUZK_JOB_ID_LEN)
        return ecode(err, CUZK_ENGINE_NOT_FOUND, "job %.80s: no such job", job_id ? job_id : "");
    pthread_mutex_lock(&e->lock);
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->cancel(e->q, job_id, now_ms(), &j, &dequeued, err);
    uint64_t mark = journal_mark(e);
    if (!st && dequeued)
        e->end_mark = mark;
    pthread_mutex_unlock(&e->dblock);
    if (!st && dequeued) {
        active_sub(e, j.input_bytes);
        e->counters.cancelled++;
        elog(e, "job_cancelled", "job=%s running=0", j.id);
        pthread_cond_broadcast(&e->change_cv);
        pthread_cond_broadcast(&e->work_cv);
    } else if (!st && j.state == CUZK_JOB_RUNNING) {
        for (size_t i = 0; i < e->n_workers; i++) {
            eng_worker *w = &e->workers[i];
            if (w->busy && !strcmp(w->job_id, j.id) && w->stop == STOP_NONE) {
                w->stop = STOP_CANCEL;
                atomic_store(&w->prog.cancel, 1);
                elog(e, "job_cancel_requested", "job=%s worker=%d", j.id, w->index);
            }
        }
        pthread_cond_broadcast(&e->work_cv); /* a job held by a pause */
    }
    pthread_mutex_unlock(&e->lock);
    if (!st)
        st = journal_sync(e, mark, err);
    if (!st && dequeued)
        spool_remove(e, &j);
    if (!st && out)
        job_info_fill(e, &j, out);
    return st;
}

cuzk_status cuzk_engine_job_list(cuzk_engine *e, const cuzk_job_filter *filter,
                                 cuzk_job_info **out, size_t *n, cuzk_error *err)
{
    int state = filter ? filter->state : -1;
    size_t limit = filter && filter->limit ? filter->limit : 1000;
    eng_job *v = NULL;
    size_t len = 0;
    *out = NULL;
    *n = 0;
    uint64_t *pos = NULL;
    pthread_mutex_lock(&e->dblock);
    cuzk_status st = e->q->ops->list(e->q, state, filter ? filter->before : 0, limit, &v, &len, err);
    if (!st && !(pos = malloc((len ? len : 1) * sizeof *pos)))
        st = cuzk_err_force(err, CUZK_ERR_NOMEM, "jobs: out of memory");
    if (!st)
        st = e->q->ops->positions(e->q, v, len, pos, err); /* one walk for the page */
    uint64_t mark = e->submit_mark > e->end_mark ? e->submit_mark : e->end_mark;
    pthread_mutex_unlock(&e->dblock);
    if (!st)
        st = journal_sync(e, mark, err);
    if (st) {
        free(v);
        free(pos);
        return st;
    }
    *out = calloc(len ? len : 1, sizeof **out);
    if (!*out) {
        free(v);
        free(pos);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "jobs: out of memory");
    }
    for (size_t i = 0; i < len; i++)
        job_info_fill_at(e, &v[i], &(*out)[i], &pos[i]);
    free(pos);
    *n = len;
    free(v);
    return CUZK_OK;
}

