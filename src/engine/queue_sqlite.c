/* The embedded job queue: one SQLite file in WAL mode. Commits use
 * synchronous=NORMAL (written to the WAL, not flushed: they survive a crash
 * of the process) and sync() flushes the WAL with fdatasync, so every
 * acknowledged transition survives a power loss too. Group commit: a sync
 * flushes everything committed before it started, callers arriving during a
 * flush wait for it and the next flush covers all of them at once, so
 * concurrent submits and finishes cost one fsync, not one each. Without WAL
 * (a file system that cannot share memory) every commit is synchronous and
 * sync has nothing to do. The schema
 * follows the scale-out design's cuzk_jobs / cuzk_attempts / cuzk_results
 * tables (SQLite types; times in unix ms), with a FIFO sequence number
 * instead of enqueue timestamps. One host owns the file, so the lease of the
 * PostgreSQL design reduces to "rescue at start". */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/queue.h"
#include "util/common.h"

#define SQ_STMTS 64

typedef struct sq_queue {
    eng_queue base;
    sqlite3 *db;
    char path[CUZK_CFG_STR_MAX];
    uint64_t next_seq;
    /* Group commit: commits counted under the engine's serialisation, read
     * by sync without it; sync's own state under sync_mu. */
    int walfd;                 /* the WAL file, -1 = commits are synchronous */
    _Atomic uint64_t written;  /* commits so far */
    pthread_mutex_t sync_mu;
    pthread_cond_t sync_cv;
    uint64_t synced;           /* commits known durable */
    int syncing;               /* a flush is in progress */
    int sync_errno;            /* a flush failed: the journal cannot be trusted */
    uint64_t n_flushes;
    /* Prepared statements, kept for the next call with the same SQL: a job
     * runs a few dozen, and parsing them anew was most of SQLite's time. */
    struct sq_stmt {
        const char *sql;
        sqlite3_stmt *s;
        int busy;
    } stmts[SQ_STMTS];
    int n_stmts;
} sq_queue;

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS cuzk_jobs ("
    " id TEXT PRIMARY KEY, seq INTEGER NOT NULL, idem_key TEXT UNIQUE, req_sha256 BLOB NOT NULL,"
    " kind TEXT NOT NULL DEFAULT 'groth16', key_id TEXT NOT NULL, key_path TEXT NOT NULL,"
    " priority INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'queued',"
    " enqueued_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER,"
    " attempt INTEGER NOT NULL DEFAULT 0, max_attempts INTEGER NOT NULL, owner TEXT,"
    " cancel_requested INTEGER NOT NULL DEFAULT 0, input_uri TEXT NOT NULL,"
    " input_bytes INTEGER NOT NULL, host_bytes INTEGER NOT NULL, device_bytes INTEGER NOT NULL,"
    " worker INTEGER, device INTEGER, error_code INTEGER, error TEXT);"
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_ready ON cuzk_jobs (priority, seq) WHERE state = 'queued';"
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_finished ON cuzk_jobs (finished_at)"
    " WHERE state IN ('done', 'failed', 'cancelled');"
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_state ON cuzk_jobs (state);"
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_seq ON cuzk_jobs (seq);"
    "CREATE INDEX IF NOT EXISTS cuzk_jobs_state_seq ON cuzk_jobs (state, seq);"
    "CREATE TABLE IF NOT EXISTS cuzk_attempts (job_id TEXT NOT NULL, attempt INTEGER NOT NULL,"
    " host_id TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER, outcome TEXT,"
    " PRIMARY KEY (job_id, attempt));"
    "CREATE TABLE IF NOT EXISTS cuzk_results (job_id TEXT PRIMARY KEY, attempt INTEGER NOT NULL,"
    " proof TEXT NOT NULL, public_json TEXT NOT NULL, verified INTEGER NOT NULL,"
    " created_at INTEGER NOT NULL);"
    "CREATE TABLE IF NOT EXISTS cuzk_inputs (job_id TEXT PRIMARY KEY, body BLOB NOT NULL);";
/* Forward-only migrations (PRAGMA user_version): migration i takes the
 * journal from version i to i + 1, in one transaction with the version's
 * bump; a journal newer than this build is refused. Version 0 is every
 * journal from before versions were kept (and a new file). */
#define SQ_SCHEMA_VERSION 1
static const char *const SQ_MIGRATIONS[SQ_SCHEMA_VERSION] = {
    /* 1: input_uri holds the witness's content id (blobref.h), never a file
     * name: "" (stored in the queue) becomes "inline:" and "<id>.wtns" (the
     * job's spool file, where it stays) "spool:", both without a hash (the
     * journal never had it). */
    "UPDATE cuzk_jobs SET input_uri = 'inline:' WHERE input_uri = '';"
    "UPDATE cuzk_jobs SET input_uri = 'spool:' WHERE input_uri = id || '.wtns';",
};

/* (Journals before the key registry had its own file (keyreg.h) also hold a
 * cuzk_keys table, which the registry imports once and nothing else reads.) */

#define JOB_COLS                                                                               \
    "id, seq, idem_key, req_sha256, key_id, key_path, priority, state, enqueued_at,"           \
    " started_at, finished_at, attempt, max_attempts, owner, cancel_requested, input_uri,"     \
    " input_bytes, host_bytes, device_bytes, worker, device, error_code, error"

static cuzk_status db_err(sq_queue *q, cuzk_error *err, const char *what)
{
    int rc = sqlite3_errcode(q->db);
    /* The journal is the server's: a full disk (507) or failing storage
     * (503), never the client's fault. */
    cuzk_status code = rc == SQLITE_FULL ? (cuzk_status)CUZK_ENGINE_NO_SPACE
                       : rc == SQLITE_IOERR || rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY
                           ? (cuzk_status)CUZK_ENGINE_UNAVAILABLE
                       : rc == SQLITE_NOMEM ? CUZK_ERR_NOMEM
                                            : CUZK_ERR_INTERNAL;
    return cuzk_err_force(err, code, "%s: %s: %s", q->path, what, sqlite3_errmsg(q->db));
}

static void cpy(char *dst, size_t cap, const unsigned char *src)
{
    snprintf(dst, cap, "%s", src ? (const char *)src : "");
}

static void read_job(sqlite3_stmt *s, eng_job *j)
{
    memset(j, 0, sizeof *j);
    cpy(j->id, sizeof j->id, sqlite3_column_text(s, 0));
    j->seq = (uint64_t)sqlite3_column_int64(s, 1);
    cpy(j->idem_key, sizeof j->idem_key, sqlite3_column_text(s, 2));
    if (sqlite3_column_bytes(s, 3) == 32)
        memcpy(j->req_sha256, sqlite3_column_blob(s, 3), 32);
    cpy(j->key_id, sizeof j->key_id, sqlite3_column_text(s, 4));
    cpy(j->key_path, sizeof j->key_path, sqlite3_column_text(s, 5));
    j->priority = sqlite3_column_int(s, 6);
    j->state = cuzk_job_state_parse((const char *)sqlite3_column_text(s, 7));
    j->enqueued_ms = sqlite3_column_int64(s, 8);
    j->started_ms = sqlite3_column_int64(s, 9);
    j->finished_ms = sqlite3_column_int64(s, 10);
    j->attempt = sqlite3_column_int(s, 11);
    j->max_attempts = sqlite3_column_int(s, 12);
    cpy(j->owner, sizeof j->owner, sqlite3_column_text(s, 13));
    j->cancel_requested = sqlite3_column_int(s, 14);
    cpy(j->witness, sizeof j->witness, sqlite3_column_text(s, 15));
    j->input_bytes = (uint64_t)sqlite3_column_int64(s, 16);
    j->host_bytes = (uint64_t)sqlite3_column_int64(s, 17);
    j->device_bytes = (uint64_t)sqlite3_column_int64(s, 18);
    j->worker = sqlite3_column_type(s, 19) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 19);
    j->device = sqlite3_column_type(s, 20) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 20);
    j->error_code = sqlite3_column_int(s, 21);
    cpy(j->error, sizeof j->error, sqlite3_column_text(s, 22));
}

/* A statement for sql: the cached one when it is free, else a new one
 * (cached while there is room). Give it back with release(). */
static int prep(sq_queue *q, sqlite3_stmt **s, const char *sql)
{
    *s = NULL;
    for (int i = 0; i < q->n_stmts; i++) {
        struct sq_stmt *c = &q->stmts[i];
        if (c->sql == sql || !strcmp(c->sql, sql)) {
            if (c->busy) /* in use by the caller's caller: a private one */
                return sqlite3_prepare_v2(q->db, sql, -1, s, NULL);
            c->busy = 1;
            *s = c->s;
            return SQLITE_OK;
        }
    }
    if (q->n_stmts == SQ_STMTS)
        return sqlite3_prepare_v2(q->db, sql, -1, s, NULL);
    int rc = sqlite3_prepare_v3(q->db, sql, -1, SQLITE_PREPARE_PERSISTENT, s, NULL);
    if (rc == SQLITE_OK)
        q->stmts[q->n_stmts++] = (struct sq_stmt){sql, *s, 1};
    return rc;
}

/* Gives a statement from prep() back (NULL: nothing to do). */
static void release(sq_queue *q, sqlite3_stmt *s)
{
    if (!s)
        return;
    for (int i = 0; i < q->n_stmts; i++)
        if (q->stmts[i].s == s) {
            sqlite3_reset(s);
            sqlite3_clear_bindings(s);
            q->stmts[i].busy = 0;
            return;
        }
    sqlite3_finalize(s);
}

/* Runs one statement without results that matter (BEGIN, COMMIT, a PRAGMA);
 * 0 or the SQLite error. */
static int exec(sq_queue *q, const char *sql)
{
    sqlite3_stmt *s;
    int rc = prep(q, &s, sql);
    if (rc)
        return rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        ;
    release(q, s);
    return rc == SQLITE_DONE ? 0 : rc;
}

static void sq_close(eng_queue *base)
{
    sq_queue *q = (sq_queue *)base;
    if (!q)
        return;
    for (int i = 0; i < q->n_stmts; i++)
        sqlite3_finalize(q->stmts[i].s);
    sqlite3_close(q->db); /* checkpoints the WAL, flushing it */
    if (q->walfd >= 0)
        close(q->walfd);
    pthread_mutex_destroy(&q->sync_mu);
    pthread_cond_destroy(&q->sync_cv);
    free(q);
}

/* Commits the open transaction and counts it for sync(). */
static int commit(sq_queue *q)
{
    int rc = exec(q, "COMMIT");
    if (!rc)
        atomic_fetch_add(&q->written, 1);
    return rc;
}

/* WAL mode with NORMAL commits and our own flushes, else synchronous
 * commits. Returns non-zero on an SQLite error. */
static int set_durability(sq_queue *q)
{
    sqlite3_stmt *s = NULL;
    int wal = 0;
    if (prep(q, &s, "PRAGMA journal_mode=WAL"))
        return 1;
    if (sqlite3_step(s) == SQLITE_ROW)
        wal = !sqlite3_stricmp((const char *)sqlite3_column_text(s, 0), "wal");
    release(q, s);
    char wal_path[CUZK_CFG_STR_MAX + 8];
    snprintf(wal_path, sizeof wal_path, "%s-wal", q->path);
    q->walfd = wal ? open(wal_path, O_RDONLY | O_CLOEXEC) : -1;
    return exec(q, q->walfd >= 0 ? "PRAGMA synchronous=NORMAL" : "PRAGMA synchronous=FULL");
}

/* Brings the journal to SQ_SCHEMA_VERSION (BEGIN IMMEDIATE: one writer). */
static cuzk_status sq_migrate(sq_queue *q, cuzk_error *err)
{
    sqlite3_stmt *s = NULL;
    int version = -1;
    if (sqlite3_exec(q->db, "BEGIN IMMEDIATE", NULL, NULL, NULL))
        return db_err(q, err, "cannot migrate the job journal");
    if (!prep(q, &s, "PRAGMA user_version") && sqlite3_step(s) == SQLITE_ROW)
        version = sqlite3_column_int(s, 0);
    release(q, s);
    if (version < 0 || version > SQ_SCHEMA_VERSION) {
        sqlite3_exec(q->db, "ROLLBACK", NULL, NULL, NULL);
        if (version < 0)
            return db_err(q, err, "cannot read the job journal's version");
        return cuzk_err_force(err, CUZK_ERR_UNSUPPORTED,
                              "%s: the job journal is at version %d, this cuzk knows up to %d:"
                              " upgrade cuzk (journals only move forward)",
                              q->path, version, SQ_SCHEMA_VERSION);
    }
    char bump[64];
    snprintf(bump, sizeof bump, "PRAGMA user_version = %d", SQ_SCHEMA_VERSION);
    int rc = 0;
    for (int v = version; v < SQ_SCHEMA_VERSION && !rc; v++)
        rc = sqlite3_exec(q->db, SQ_MIGRATIONS[v], NULL, NULL, NULL);
    if (!rc && version < SQ_SCHEMA_VERSION)
        rc = sqlite3_exec(q->db, bump, NULL, NULL, NULL);
    if (!rc)
        rc = sqlite3_exec(q->db, "COMMIT", NULL, NULL, NULL);
    if (rc) {
        cuzk_status st = db_err(q, err, "cannot migrate the job journal");
        sqlite3_exec(q->db, "ROLLBACK", NULL, NULL, NULL);
        return st;
    }
    return CUZK_OK;
}

static cuzk_status sq_open(eng_queue **out, const char *where, const eng_queue_opts *opts,
                           cuzk_error *err)
{
    (void)opts; /* one host: no leases, no reconnects */
    *out = NULL;
    sq_queue *q = calloc(1, sizeof *q);
    if (!q)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", where);
    q->base.ops = &eng_queue_sqlite;
    q->walfd = -1;
    pthread_mutex_init(&q->sync_mu, NULL);
    pthread_cond_init(&q->sync_cv, NULL);
    snprintf(q->path, sizeof q->path, "%s", where);
    if (sqlite3_open_v2(where, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                           SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        cuzk_status st = q->db ? db_err(q, err, "cannot open the job journal")
                               : cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", where);
        sqlite3_close(q->db);
        pthread_mutex_destroy(&q->sync_mu);
        pthread_cond_destroy(&q->sync_cv);
        free(q);
        return st;
    }
    sqlite3_busy_timeout(q->db, 5000);
    sqlite3_stmt *s = NULL;
    cuzk_status st = CUZK_OK;
    if (exec(q, "PRAGMA foreign_keys=ON") || exec(q, "PRAGMA journal_mode=WAL") ||
        sqlite3_exec(q->db, SCHEMA, NULL, NULL, NULL) || set_durability(q)) {
        st = db_err(q, err, "cannot set up the job journal");
    } else if ((st = sq_migrate(q, err))) {
        /* said why */
    } else if (prep(q, &s, "SELECT coalesce(max(seq), 0) FROM cuzk_jobs") ||
               sqlite3_step(s) != SQLITE_ROW) {
        st = db_err(q, err, "cannot read the job journal");
    } else {
        q->next_seq = (uint64_t)sqlite3_column_int64(s, 0) + 1;
    }
    release(q, s);
    if (st) {
        sq_close(&q->base);
        return st;
    }
    *out = &q->base;
    return CUZK_OK;
}

static uint64_t sq_mark(eng_queue *base)
{
    sq_queue *q = (sq_queue *)base;
    return q->walfd >= 0 ? atomic_load(&q->written) : 0;
}

static cuzk_status sq_sync(eng_queue *base, uint64_t mark, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    if (q->walfd < 0 || !mark)
        return CUZK_OK;
    pthread_mutex_lock(&q->sync_mu);
    while (q->synced < mark && !q->sync_errno) {
        if (q->syncing) { /* follower: the leader's flush may cover us */
            pthread_cond_wait(&q->sync_cv, &q->sync_mu);
            continue;
        }
        q->syncing = 1; /* leader: flush everything committed until now */
        uint64_t upto = atomic_load(&q->written);
        pthread_mutex_unlock(&q->sync_mu);
        int rc = fdatasync(q->walfd);
        int en = errno;
        pthread_mutex_lock(&q->sync_mu);
        q->syncing = 0;
        q->n_flushes++;
        if (rc)
            q->sync_errno = en ? en : EIO;
        else if (upto > q->synced)
            q->synced = upto;
        pthread_cond_broadcast(&q->sync_cv);
    }
    int en = q->sync_errno;
    pthread_mutex_unlock(&q->sync_mu);
    if (en)
        return cuzk_err_force(err, en == ENOSPC || en == EDQUOT ? (cuzk_status)CUZK_ENGINE_NO_SPACE
                                                                 : (cuzk_status)CUZK_ENGINE_UNAVAILABLE,
                              "%s: the job journal cannot be flushed to disk (%s); restart the daemon",
                              q->path, strerror(en));
    return CUZK_OK;
}

static uint64_t sq_flushes(eng_queue *base)
{
    sq_queue *q = (sq_queue *)base;
    pthread_mutex_lock(&q->sync_mu);
    uint64_t n = q->n_flushes;
    pthread_mutex_unlock(&q->sync_mu);
    return n;
}

/* One job by id into *out; CUZK_ENGINE_NOT_FOUND if absent. */
static cuzk_status get_job(sq_queue *q, const char *id, eng_job *out, cuzk_error *err)
{
    sqlite3_stmt *s = NULL;
    if (prep(q, &s, "SELECT " JOB_COLS " FROM cuzk_jobs WHERE id = ?"))
        return db_err(q, err, "get job");
    sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    cuzk_status st = CUZK_OK;
    if (rc == SQLITE_ROW)
        read_job(s, out);
    else if (rc == SQLITE_DONE)
        st = cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_NOT_FOUND, "job %s: no such job", id);
    else
        st = db_err(q, err, "get job");
    release(q, s);
    return st;
}

static cuzk_status sq_get(eng_queue *base, const char *id, eng_job *out, cuzk_error *err)
{
    return get_job((sq_queue *)base, id, out, err);
}

static void rollback(sq_queue *q)
{
    exec(q, "ROLLBACK");
}

static cuzk_status sq_submit(eng_queue *base, const eng_job *j, const void *body, size_t body_len,
                             eng_job *out, int *existed, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    *existed = 0;
    if (exec(q, "BEGIN IMMEDIATE"))
        return db_err(q, err, "submit");
    cuzk_status st = CUZK_OK;
    sqlite3_stmt *s = NULL;
    if (j->idem_key[0]) {
        if (prep(q, &s, "SELECT " JOB_COLS " FROM cuzk_jobs WHERE idem_key = ?")) {
            st = db_err(q, err, "submit");
            goto out;
        }
        sqlite3_bind_text(s, 1, j->idem_key, -1, SQLITE_STATIC);
        int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW) {
            read_job(s, out);
            *existed = 1;
            goto out;
        } else if (rc != SQLITE_DONE) {
            st = db_err(q, err, "submit");
            goto out;
        }
        release(q, s);
        s = NULL;
    }
    if (prep(q, &s,
             "INSERT INTO cuzk_jobs (id, seq, idem_key, req_sha256, key_id, key_path, priority,"
             " state, enqueued_at, max_attempts, input_uri, input_bytes, host_bytes, device_bytes)"
             " VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)")) {
        st = db_err(q, err, "submit");
        goto out;
    }
    uint64_t seq = q->next_seq;
    sqlite3_bind_text(s, 1, j->id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)seq);
    if (j->idem_key[0])
        sqlite3_bind_text(s, 3, j->idem_key, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, 3);
    sqlite3_bind_blob(s, 4, j->req_sha256, 32, SQLITE_STATIC);
    sqlite3_bind_text(s, 5, j->key_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 6, j->key_path, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 7, j->priority);
    sqlite3_bind_int64(s, 8, j->enqueued_ms);
    sqlite3_bind_int(s, 9, j->max_attempts);
    sqlite3_bind_text(s, 10, j->witness, -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 11, (sqlite3_int64)j->input_bytes);
    sqlite3_bind_int64(s, 12, (sqlite3_int64)j->host_bytes);
    sqlite3_bind_int64(s, 13, (sqlite3_int64)j->device_bytes);
    if (sqlite3_step(s) != SQLITE_DONE) {
        st = db_err(q, err, "submit");
        goto out;
    }
    release(q, s);
    s = NULL;
    if (body) {
        if (prep(q, &s, "INSERT INTO cuzk_inputs (job_id, body) VALUES (?, ?)")) {
            st = db_err(q, err, "submit");
            goto out;
        }
        sqlite3_bind_text(s, 1, j->id, -1, SQLITE_STATIC);
        sqlite3_bind_blob64(s, 2, body, body_len, SQLITE_STATIC);
        if (sqlite3_step(s) != SQLITE_DONE) {
            st = db_err(q, err, "submit");
            goto out;
        }
        release(q, s);
        s = NULL;
    }
    if (commit(q)) {
        st = db_err(q, err, "submit (commit)");
        goto out;
    }
    q->next_seq = seq + 1;
    *out = *j;
    out->seq = seq;
    out->state = CUZK_JOB_QUEUED;
    out->worker = out->device = -1;
    return CUZK_OK;
out:
    release(q, s);
    rollback(q);
    return st;
}

static cuzk_status sq_peek(eng_queue *base, eng_job *out, int *found, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    *found = 0;
    if (prep(q, &s, "SELECT " JOB_COLS " FROM cuzk_jobs WHERE state = 'queued'"
                    " ORDER BY priority, seq LIMIT 1"))
        return db_err(q, err, "peek");
    int rc = sqlite3_step(s);
    cuzk_status st = CUZK_OK;
    if (rc == SQLITE_ROW) {
        read_job(s, out);
        *found = 1;
    } else if (rc != SQLITE_DONE) {
        st = db_err(q, err, "peek");
    }
    release(q, s);
    return st;
}

/* Runs one statement with bound values; returns the number of changed rows
 * or -1. Binds: 's' text, 'i' int64 (varargs). */
static int run(sq_queue *q, const char *sql, const char *types, ...)
{
    sqlite3_stmt *s = NULL;
    if (prep(q, &s, sql))
        return -1;
    va_list ap;
    va_start(ap, types);
    for (int i = 0; types[i]; i++) {
        if (types[i] == 's') {
            const char *v = va_arg(ap, const char *);
            if (v)
                sqlite3_bind_text(s, i + 1, v, -1, SQLITE_TRANSIENT);
            else
                sqlite3_bind_null(s, i + 1);
        } else {
            sqlite3_bind_int64(s, i + 1, va_arg(ap, int64_t));
        }
    }
    va_end(ap);
    int rc = sqlite3_step(s);
    release(q, s);
    return rc == SQLITE_DONE ? sqlite3_changes(q->db) : -1;
}

static cuzk_status claim_tx(sq_queue *q, const char *id, const char *owner, int worker,
                            int device, int64_t now_ms, int *claimed, cuzk_error *err);

static cuzk_status sq_claim(eng_queue *base, const char *id, const char *owner, int worker,
                            int device, int64_t now_ms, eng_job *out, int *claimed,
                            cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    *claimed = 0;
    cuzk_status st = claim_tx(q, id, owner, worker, device, now_ms, claimed, err);
    if (st || !*claimed)
        return st;
    return get_job(q, id, out, err);
}

static cuzk_status claim_tx(sq_queue *q, const char *id, const char *owner, int worker,
                            int device, int64_t now_ms, int *claimed, cuzk_error *err)
{
    if (exec(q, "BEGIN IMMEDIATE"))
        return db_err(q, err, "claim");
    int n = run(q,
                "UPDATE cuzk_jobs SET state = 'running', owner = ?, attempt = attempt + 1,"
                " started_at = ?, worker = ?, device = ? WHERE id = ? AND state = 'queued'",
                "siiis", owner, now_ms, (int64_t)worker, (int64_t)device, id);
    if (n < 0)
        goto fail;
    if (n == 0) {
        rollback(q);
        return CUZK_OK;
    }
    if (run(q,
            "INSERT OR REPLACE INTO cuzk_attempts (job_id, attempt, host_id, started_at)"
            " SELECT id, attempt, owner, started_at FROM cuzk_jobs WHERE id = ?",
            "s", id) < 0)
        goto fail;
    if (commit(q))
        goto fail;
    *claimed = 1;
    return CUZK_OK;
fail:;
    cuzk_status st = db_err(q, err, "claim");
    rollback(q);
    return st;
}

/* The head, claimed: another handle on the same file may claim it between
 * the look and the claim (then look again); the claim itself is guarded by
 * state = 'queued', so no job is claimed twice. */
static cuzk_status sq_claim_next(eng_queue *base, const char *owner, int worker, int device,
                                 int64_t now_ms, eng_job *out, int *claimed, cuzk_error *err)
{
    *claimed = 0;
    for (;;) {
        eng_job head;
        int found = 0;
        cuzk_status st = sq_peek(base, &head, &found, err);
        if (st || !found)
            return st;
        if ((st = sq_claim(base, head.id, owner, worker, device, now_ms, out, claimed, err)) ||
            *claimed)
            return st;
    }
}

static cuzk_status sq_renew(eng_queue *base, const char *owner, const char *const *ids, size_t n,
                            int *held, cuzk_error *err)
{
    (void)base, (void)owner, (void)ids, (void)err;
    for (size_t i = 0; i < n; i++)
        held[i] = 1; /* one host, no leases: nothing is ever taken away */
    return CUZK_OK;
}

static cuzk_status sq_rescue_expired(eng_queue *base, int64_t now_ms, uint64_t *requeued,
                                     uint64_t *ended, cuzk_error *err)
{
    (void)base, (void)now_ms, (void)err;
    *requeued = *ended = 0; /* no leases: `rescue` at start covers a crash */
    return CUZK_OK;
}

static cuzk_status sq_complete(eng_queue *base, const char *id, int attempt, const char *owner,
                               const char *proof_json, const char *public_json, int64_t now_ms,
                               int *fenced, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    *fenced = 0;
    if (exec(q, "BEGIN IMMEDIATE"))
        return db_err(q, err, "complete");
    int n = run(q,
                "UPDATE cuzk_jobs SET state = 'done', finished_at = ?, error_code = 0, error = NULL"
                " WHERE id = ? AND attempt = ? AND owner = ? AND state = 'running'",
                "isis", now_ms, id, (int64_t)attempt, owner);
    if (n < 0)
        goto fail;
    if (n == 0) {
        rollback(q);
        *fenced = 1;
        return CUZK_OK;
    }
    if (run(q, "DELETE FROM cuzk_inputs WHERE job_id = ?", "s", id) < 0 ||
        run(q,
            "INSERT INTO cuzk_results (job_id, attempt, proof, public_json, verified, created_at)"
            " VALUES (?, ?, ?, ?, 1, ?)",
            "sissi", id, (int64_t)attempt, proof_json, public_json, now_ms) < 0 ||
        run(q, "UPDATE cuzk_attempts SET ended_at = ?, outcome = 'done' WHERE job_id = ? AND attempt = ?",
            "isi", now_ms, id, (int64_t)attempt) < 0 ||
        commit(q))
        goto fail;
    return CUZK_OK;
fail:;
    cuzk_status st = db_err(q, err, "complete");
    rollback(q);
    return st;
}

static cuzk_status sq_finish(eng_queue *base, const char *id, int attempt, const char *owner,
                             int state, int code, const char *msg, int64_t now_ms, int *fenced,
                             cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    *fenced = 0;
    const char *name = cuzk_job_state_name((cuzk_job_state)state);
    if (exec(q, "BEGIN IMMEDIATE"))
        return db_err(q, err, "finish");
    int n;
    if (state == CUZK_JOB_QUEUED)
        n = run(q,
                "UPDATE cuzk_jobs SET"
                " state = CASE WHEN attempt >= max_attempts THEN 'failed' ELSE 'queued' END,"
                " finished_at = CASE WHEN attempt >= max_attempts THEN ? ELSE NULL END,"
                " error_code = CASE WHEN attempt >= max_attempts THEN ? ELSE 0 END,"
                " error = CASE WHEN attempt >= max_attempts THEN ? ELSE NULL END, owner = NULL"
                " WHERE id = ? AND attempt = ? AND owner = ? AND state = 'running'",
                "iissis", now_ms, (int64_t)CUZK_ERR_CANCELLED,
                "interrupted too many times (max_attempts)", id, (int64_t)attempt, owner);
    else
        n = run(q,
                "UPDATE cuzk_jobs SET state = ?, finished_at = ?, error_code = ?, error = ?"
                " WHERE id = ? AND attempt = ? AND owner = ? AND state = 'running'",
                "siissis", name, now_ms, (int64_t)code, msg, id, (int64_t)attempt, owner);
    if (n < 0)
        goto fail;
    if (n == 0) {
        rollback(q);
        *fenced = 1;
        return CUZK_OK;
    }
    if (run(q, "UPDATE cuzk_attempts SET ended_at = ?, outcome = ? WHERE job_id = ? AND attempt = ?",
            "issi", now_ms, state == CUZK_JOB_QUEUED ? "requeued" : name, id, (int64_t)attempt) < 0 ||
        run(q,
            "DELETE FROM cuzk_inputs WHERE job_id = ? AND job_id IN"
            " (SELECT id FROM cuzk_jobs WHERE id = ? AND state IN ('done', 'failed', 'cancelled'))",
            "ss", id, id) < 0 ||
        commit(q))
        goto fail;
    return CUZK_OK;
fail:;
    cuzk_status st = db_err(q, err, "finish");
    rollback(q);
    return st;
}

static cuzk_status sq_cancel(eng_queue *base, const char *id, int64_t now_ms, eng_job *out,
                             int *dequeued, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    *dequeued = 0;
    if (exec(q, "BEGIN IMMEDIATE"))
        return db_err(q, err, "cancel");
    int n = run(q,
                "UPDATE cuzk_jobs SET state = 'cancelled', finished_at = ?, error_code = ?,"
                " error = 'cancelled while queued' WHERE id = ? AND state = 'queued'",
                "iis", now_ms, (int64_t)CUZK_ERR_CANCELLED, id);
    if (n < 0 || (n > 0 && run(q, "DELETE FROM cuzk_inputs WHERE job_id = ?", "s", id) < 0) ||
        run(q, "UPDATE cuzk_jobs SET cancel_requested = 1 WHERE id = ? AND state = 'running'",
            "s", id) < 0 ||
        commit(q)) {
        cuzk_status st = db_err(q, err, "cancel");
        rollback(q);
        return st;
    }
    *dequeued = n > 0;
    return get_job(q, id, out, err);
}

static cuzk_status sq_by_idem(eng_queue *base, const char *idem_key, eng_job *out, int *found,
                              cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    *found = 0;
    if (prep(q, &s, "SELECT " JOB_COLS " FROM cuzk_jobs WHERE idem_key = ?"))
        return db_err(q, err, "idempotency lookup");
    sqlite3_bind_text(s, 1, idem_key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        read_job(s, out);
        *found = 1;
    }
    release(q, s);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? CUZK_OK : db_err(q, err, "idempotency lookup");
}

/* One host owns the SQLite file (the engine holds its lock), so every job
 * left running was this host's: all of them are rescued, whatever owner name
 * they carry. */
static cuzk_status sq_rescue(eng_queue *base, const char *owner, int64_t now_ms,
                             uint64_t *requeued, uint64_t *failed, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    (void)owner;
    *requeued = *failed = 0;
    if (exec(q, "BEGIN IMMEDIATE"))
        return db_err(q, err, "rescue");
    int a = run(q,
                "UPDATE cuzk_attempts SET ended_at = ?, outcome = 'interrupted' WHERE ended_at IS NULL",
                "i", now_ms);
    int c = a < 0 ? -1
                  : run(q,
                        "UPDATE cuzk_jobs SET state = 'cancelled', finished_at = ?, error_code = ?,"
                        " error = 'cancelled while running' WHERE state = 'running'"
                        " AND cancel_requested = 1",
                        "ii", now_ms, (int64_t)CUZK_ERR_CANCELLED);
    int f = c < 0 ? -1
                  : run(q,
                        "UPDATE cuzk_jobs SET state = 'failed', finished_at = ?, error_code = ?,"
                        " error = 'interrupted too many times (max_attempts)' WHERE state = 'running'"
                        " AND attempt >= max_attempts",
                        "ii", now_ms, (int64_t)CUZK_ERR_CANCELLED);
    int r = f < 0 ? -1
                  : run(q, "UPDATE cuzk_jobs SET state = 'queued', owner = NULL WHERE state = 'running'",
                        "");
    if (r < 0 || commit(q)) {
        cuzk_status st = db_err(q, err, "rescue");
        rollback(q);
        return st;
    }
    *requeued = (uint64_t)r;
    *failed = (uint64_t)f + (uint64_t)c;
    return CUZK_OK;
}

static cuzk_status sq_result(eng_queue *base, const char *id, char **proof_json,
                             char **public_json, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    *proof_json = *public_json = NULL;
    if (prep(q, &s, "SELECT proof, public_json FROM cuzk_results WHERE job_id = ?"))
        return db_err(q, err, "result");
    sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    cuzk_status st = CUZK_OK;
    if (rc == SQLITE_ROW) {
        *proof_json = strdup((const char *)sqlite3_column_text(s, 0));
        *public_json = strdup((const char *)sqlite3_column_text(s, 1));
        if (!*proof_json || !*public_json) {
            free(*proof_json);
            free(*public_json);
            *proof_json = *public_json = NULL;
            st = cuzk_err_force(err, CUZK_ERR_NOMEM, "job %s: out of memory", id);
        }
    } else if (rc == SQLITE_DONE) {
        st = cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_NOT_FOUND, "job %s: no proof", id);
    } else {
        st = db_err(q, err, "result");
    }
    release(q, s);
    return st;
}

/* Reads every row of a prepared job query into a growing array. */
static cuzk_status collect(sq_queue *q, sqlite3_stmt *s, eng_job **out, size_t *n,
                           cuzk_error *err, const char *what)
{
    size_t cap = 0, len = 0;
    eng_job *v = NULL;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (len == cap) {
            cap = cap ? 2 * cap : 16;
            eng_job *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                free(v);
                release(q, s);
                return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", what);
            }
            v = nv;
        }
        read_job(s, &v[len++]);
    }
    release(q, s);
    if (rc != SQLITE_DONE) {
        free(v);
        return db_err(q, err, what);
    }
    *out = v;
    *n = len;
    return CUZK_OK;
}

static cuzk_status sq_list(eng_queue *base, int state, uint64_t before_seq, size_t limit, eng_job **out,
                           size_t *n, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    *out = NULL;
    *n = 0;
    if (prep(q, &s, state < 0 ? "SELECT " JOB_COLS " FROM cuzk_jobs WHERE seq < ?3 ORDER BY seq DESC LIMIT ?2"
                              : "SELECT " JOB_COLS " FROM cuzk_jobs WHERE state = ?1 AND seq < ?3"
                                " ORDER BY seq DESC LIMIT ?2"))
        return db_err(q, err, "list");
    if (state >= 0)
        sqlite3_bind_text(s, 1, cuzk_job_state_name((cuzk_job_state)state), -1, SQLITE_STATIC);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)limit);
    sqlite3_bind_int64(s, 3, before_seq && before_seq <= INT64_MAX ? (sqlite3_int64)before_seq : INT64_MAX);
    return collect(q, s, out, n, err, "list");
}

static int by_queue_order(const void *a, const void *b)
{
    const eng_job *x = *(const eng_job *const *)a, *y = *(const eng_job *const *)b;
    if (x->priority != y->priority)
        return x->priority < y->priority ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static cuzk_status sq_positions(eng_queue *base, const eng_job *v, size_t n, uint64_t *pos, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    memset(pos, 0, n * sizeof *pos);
    const eng_job **o = malloc((n ? n : 1) * sizeof *o);
    if (!o)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "positions: out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].state == CUZK_JOB_QUEUED)
            o[m++] = &v[i];
    qsort(o, m, sizeof *o, by_queue_order);
    /* Queued jobs between consecutive ones in queue order, summed: the
     * index range walked ends at the last of them. */
    uint64_t ahead = 0;
    int pp = -1;
    int64_t ps = 0;
    cuzk_status st = CUZK_OK;
    for (size_t k = 0; k < m && !st; k++) {
        sqlite3_stmt *s = NULL;
        if (prep(q, &s, "SELECT count(*) FROM cuzk_jobs INDEXED BY cuzk_jobs_ready WHERE state = 'queued'"
                        " AND (priority, seq) >= (?1, ?2) AND (priority, seq) < (?3, ?4)")) {
            st = db_err(q, err, "positions");
            break;
        }
        sqlite3_bind_int(s, 1, pp);
        sqlite3_bind_int64(s, 2, ps);
        sqlite3_bind_int(s, 3, o[k]->priority);
        sqlite3_bind_int64(s, 4, (sqlite3_int64)o[k]->seq);
        if (sqlite3_step(s) == SQLITE_ROW)
            ahead += (uint64_t)sqlite3_column_int64(s, 0);
        else
            st = db_err(q, err, "positions");
        release(q, s);
        pos[o[k] - v] = ahead;
        pp = o[k]->priority;
        ps = (int64_t)o[k]->seq;
    }
    free(o);
    return st;
}

static cuzk_status sq_position(eng_queue *base, const eng_job *j, uint64_t *pos, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    *pos = 0;
    /* The ready index holds (priority, seq) of queued jobs only: a count of
     * index entries. Named, because the planner prefers the state index,
     * which reads every queued row. */
    if (prep(q, &s, "SELECT count(*) FROM cuzk_jobs INDEXED BY cuzk_jobs_ready WHERE state = 'queued' AND"
                    " (priority, seq) < (?1, ?2)"))
        return db_err(q, err, "position");
    sqlite3_bind_int(s, 1, j->priority);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)j->seq);
    cuzk_status st = CUZK_OK;
    if (sqlite3_step(s) == SQLITE_ROW)
        *pos = (uint64_t)sqlite3_column_int64(s, 0);
    else
        st = db_err(q, err, "position");
    release(q, s);
    return st;
}

static cuzk_status sq_stats(eng_queue *base, uint64_t queued[CUZK_PRIO_COUNT], uint64_t *running,
                            uint64_t *spool_bytes, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    memset(queued, 0, CUZK_PRIO_COUNT * sizeof *queued);
    *running = *spool_bytes = 0;
    if (prep(q, &s, "SELECT state, priority, count(*), sum(input_bytes) FROM cuzk_jobs"
                    " WHERE state IN ('queued', 'running') GROUP BY state, priority"))
        return db_err(q, err, "stats");
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int state = cuzk_job_state_parse((const char *)sqlite3_column_text(s, 0));
        int prio = sqlite3_column_int(s, 1);
        uint64_t cnt = (uint64_t)sqlite3_column_int64(s, 2);
        if (state == CUZK_JOB_QUEUED && prio >= 0 && prio < CUZK_PRIO_COUNT)
            queued[prio] += cnt;
        else if (state == CUZK_JOB_RUNNING)
            *running += cnt;
        *spool_bytes += (uint64_t)sqlite3_column_int64(s, 3);
    }
    release(q, s);
    return rc == SQLITE_DONE ? CUZK_OK : db_err(q, err, "stats");
}

static cuzk_status sq_expire(eng_queue *base, int64_t before_ms, size_t max, eng_job **ids,
                             size_t *n, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    *ids = NULL;
    *n = 0;
    if (prep(q, &s, "SELECT " JOB_COLS " FROM cuzk_jobs WHERE state IN ('done', 'failed', 'cancelled')"
                    " AND finished_at < ? ORDER BY finished_at LIMIT ?"))
        return db_err(q, err, "expire");
    sqlite3_bind_int64(s, 1, before_ms);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)max);
    eng_job *v;
    size_t len;
    cuzk_status st = collect(q, s, &v, &len, err, "expire");
    if (st || !len) {
        if (!st)
            free(v);
        return st;
    }
    if (exec(q, "BEGIN IMMEDIATE")) {
        free(v);
        return db_err(q, err, "expire");
    }
    for (size_t i = 0; i < len; i++)
        if (run(q, "DELETE FROM cuzk_results WHERE job_id = ?", "s", v[i].id) < 0 ||
            run(q, "DELETE FROM cuzk_inputs WHERE job_id = ?", "s", v[i].id) < 0 ||
            run(q, "DELETE FROM cuzk_attempts WHERE job_id = ?", "s", v[i].id) < 0 ||
            run(q, "DELETE FROM cuzk_jobs WHERE id = ?", "s", v[i].id) < 0) {
            st = db_err(q, err, "expire");
            rollback(q);
            free(v);
            return st;
        }
    if (commit(q)) {
        st = db_err(q, err, "expire");
        rollback(q);
        free(v);
        return st;
    }
    *ids = v;
    *n = len;
    return CUZK_OK;
}

static cuzk_status sq_live_inputs(eng_queue *base, eng_live_input **out, size_t *n, cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    *out = NULL;
    *n = 0;
    if (prep(q, &s, "SELECT id, input_uri FROM cuzk_jobs WHERE state IN ('queued', 'running')"
                    " AND input_uri != '' AND input_uri NOT LIKE 'inline:%'"))
        return db_err(q, err, "spool scan");
    size_t cap = 0, len = 0;
    eng_live_input *v = NULL;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (len == cap) {
            cap = cap ? 2 * cap : 16;
            eng_live_input *nv = realloc(v, cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        cpy(v[len].id, sizeof v[len].id, sqlite3_column_text(s, 0));
        cpy(v[len].witness, sizeof v[len].witness, sqlite3_column_text(s, 1));
        len++;
    }
    release(q, s);
    if (rc != SQLITE_DONE) {
        free(v);
        return rc == SQLITE_ROW ? cuzk_err_force(err, CUZK_ERR_NOMEM, "spool scan: out of memory")
                                : db_err(q, err, "spool scan");
    }
    *out = v;
    *n = len;
    return CUZK_OK;
}

static cuzk_status sq_input(eng_queue *base, const char *id, void **body, size_t *len,
                            cuzk_error *err)
{
    sq_queue *q = (sq_queue *)base;
    sqlite3_stmt *s = NULL;
    *body = NULL;
    *len = 0;
    if (prep(q, &s, "SELECT body FROM cuzk_inputs WHERE job_id = ?"))
        return db_err(q, err, "input");
    sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    cuzk_status st = CUZK_OK;
    if (rc == SQLITE_ROW) {
        size_t n = (size_t)sqlite3_column_bytes(s, 0);
        if (!(*body = malloc(n ? n : 1)))
            st = cuzk_err_force(err, CUZK_ERR_NOMEM, "job %s: out of memory", id);
        else {
            memcpy(*body, sqlite3_column_blob(s, 0), n);
            *len = n;
        }
    } else if (rc == SQLITE_DONE) {
        st = cuzk_err_force(err, (cuzk_status)CUZK_ENGINE_NOT_FOUND, "job %s: no witness", id);
    } else {
        st = db_err(q, err, "input");
    }
    release(q, s);
    return st;
}

static cuzk_status sq_publish_keys(eng_queue *base, const char *const *key_ids, size_t n,
                                   cuzk_error *err)
{
    (void)base, (void)key_ids, (void)n, (void)err; /* one host: nobody to tell */
    return CUZK_OK;
}

const eng_queue_ops eng_queue_sqlite = {
    .name = "sqlite",
    .open = sq_open,
    .close = sq_close,
    .submit = sq_submit,
    .peek = sq_peek,
    .claim = sq_claim,
    .claim_next = sq_claim_next,
    .renew = sq_renew,
    .rescue_expired = sq_rescue_expired,
    .complete = sq_complete,
    .finish = sq_finish,
    .cancel = sq_cancel,
    .by_idem = sq_by_idem,
    .rescue = sq_rescue,
    .get = sq_get,
    .result = sq_result,
    .list = sq_list,
    .position = sq_position,
    .positions = sq_positions,
    .stats = sq_stats,
    .expire = sq_expire,
    .live_inputs = sq_live_inputs,
    .publish_keys = sq_publish_keys,
    .input = sq_input,
    .mark = sq_mark,
    .sync = sq_sync,
    .flushes = sq_flushes,
};
