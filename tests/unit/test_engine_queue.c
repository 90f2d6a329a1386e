/* The conformance suite of the job queue interface (src/engine/queue.h): the
 * same tests against SQLite (`test_engine_queue`, or argument "sqlite") and
 * against PostgreSQL (argument "postgresql": a throwaway cluster the test
 * starts itself, one fresh database per test; it fails, saying what to
 * install, when the server binaries are missing). No engine around it.
 * Order (priority, then FIFO), claim once, SKIP LOCKED claims from several
 * connections at once (no job twice), (id, attempt, owner) fencing of
 * complete / finish, requeue up to max_attempts, cancel of queued and
 * running jobs, idempotency, rescue at start, lease expiry and renewal,
 * expiry with results and stored witnesses, everything surviving a close
 * and reopen, group commit (SQLite), and for PostgreSQL: reconnects after a
 * server crash and a killed backend, a database down at open (one line, no
 * password), concurrent migrations, the migration of witness references to
 * content ids and a schema newer than the build; for SQLite, a journal of
 * the schema before versions were kept (written by the test) migrated and
 * still working, and a journal newer than the build refused. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "engine/queue.h"

#include "fixture_util.h"
#include "pg_fixture.h"

static const eng_queue_ops *OPS = &eng_queue_sqlite;
static int PG;            /* the PostgreSQL half */
static char where[400];   /* the queue under test: a file or a conninfo */
static char dbname[64];
static int n_db;

static int setup(void **state)
{
    (void)state;
    fx_setup("queue");
    if (PG) {
        snprintf(dbname, sizeof dbname, "cuzk_t%d", ++n_db);
        char sql[128];
        snprintf(sql, sizeof sql, "CREATE DATABASE %s", dbname);
        assert_int_equal(pgfx_sql("postgres", sql, NULL, 0), 0);
        snprintf(where, sizeof where, "%s", pgfx_conninfo(dbname));
    } else {
        snprintf(where, sizeof where, "%s/journal.db", fx_tmpdir);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return fx_teardown();
}

static eng_queue *qopen_as(const char *host, double lease_s)
{
    eng_queue *q = NULL;
    cuzk_error err = {0};
    eng_queue_opts o = {.host = host, .lease_s = lease_s};
    cuzk_status st = OPS->open(&q, where, &o, &err);
    if (st)
        fprintf(stderr, "open: %s\n", err.msg);
    assert_int_equal(st, CUZK_OK);
    return q;
}

/* A handle with delay scheduling and notifications as given. */
static eng_queue *qopen_with(const char *host, double affinity_s, int notify)
{
    eng_queue *q = NULL;
    cuzk_error err = {0};
    eng_queue_opts o = {.host = host, .affinity_s = affinity_s, .notify = notify};
    cuzk_status st = OPS->open(&q, where, &o, &err);
    if (st)
        fprintf(stderr, "open: %s\n", err.msg);
    assert_int_equal(st, CUZK_OK);
    return q;
}

static eng_queue *qopen(void)
{
    return qopen_as("hostA", 0);
}

static eng_job mkjob(const char *id, int prio, int64_t t)
{
    eng_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.id, sizeof j.id, "%s", id);
    memset(j.req_sha256, prio + 1, 32);
    snprintf(j.key_id, sizeof j.key_id, "k");
    snprintf(j.key_path, sizeof j.key_path, "/k.zkey");
    j.priority = prio;
    j.enqueued_ms = t;
    j.max_attempts = 2;
    j.input_bytes = 4;
    j.host_bytes = 100;
    return j;
}

static void submit(eng_queue *q, const eng_job *j, const char *body)
{
    eng_job out;
    int existed = -1;
    cuzk_error err = {0};
    assert_int_equal(q->ops->submit(q, j, body, body ? strlen(body) : 0, &out, &existed, &err),
                     CUZK_OK);
    assert_int_equal(existed, 0);
    assert_int_equal(out.state, CUZK_JOB_QUEUED);
}

static void claim_head(eng_queue *q, const char *expect, const char *owner, eng_job *out)
{
    eng_job head;
    int found = 0, claimed = 0;
    cuzk_error err = {0};
    assert_int_equal(q->ops->peek(q, &head, &found, &err), CUZK_OK);
    assert_true(found);
    assert_string_equal(head.id, expect);
    assert_int_equal(q->ops->claim(q, head.id, owner, 0, -1, 1000, out, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_int_equal(out->state, CUZK_JOB_RUNNING);
    /* a second claim of the same job fails */
    eng_job again;
    assert_int_equal(q->ops->claim(q, head.id, "other", 1, -1, 1000, &again, &claimed, &err), CUZK_OK);
    assert_false(claimed);
}

static int64_t count_inputs(eng_queue *q, const char *id)
{
    void *body = NULL;
    size_t len = 0;
    cuzk_error err = {0};
    cuzk_status st = q->ops->input(q, id, &body, &len, &err);
    free(body);
    return st ? 0 : 1;
}

static void test_queue_contract(void **state)
{
    (void)state;
    eng_queue *q = qopen();
    cuzk_error err = {0};
    eng_job j, out;
    int fenced = -1, found = 0;

    /* order: priority first, FIFO within one */
    eng_job n1 = mkjob("00000000-0000-4000-8000-000000000001", CUZK_PRIO_NORMAL, 1);
    eng_job n2 = mkjob("00000000-0000-4000-8000-000000000002", CUZK_PRIO_NORMAL, 2);
    eng_job lo = mkjob("00000000-0000-4000-8000-000000000003", CUZK_PRIO_LOW, 3);
    eng_job cr = mkjob("00000000-0000-4000-8000-000000000004", CUZK_PRIO_CRITICAL, 4);
    snprintf(n2.idem_key, sizeof n2.idem_key, "porep-f01-7");
    submit(q, &n1, "wtn1");
    submit(q, &lo, NULL);
    submit(q, &n2, "wtn2");
    submit(q, &cr, NULL);
    void *wb = NULL;
    size_t wlen = 0;
    assert_int_equal(q->ops->input(q, n1.id, &wb, &wlen, &err), CUZK_OK); /* stored as given */
    assert_int_equal(wlen, 4);
    assert_memory_equal(wb, "wtn1", 4);
    free(wb);
    assert_int_equal(q->ops->get(q, n1.id, &j, &err), CUZK_OK);
    assert_memory_equal(j.req_sha256, n1.req_sha256, 32);
    assert_string_equal(j.key_path, n1.key_path);
    assert_int_equal(j.input_bytes, 4);
    assert_int_equal(j.host_bytes, 100);
    assert_int_equal(j.enqueued_ms, 1);
    uint64_t pos = 99;
    assert_int_equal(q->ops->get(q, n2.id, &j, &err), CUZK_OK);
    assert_int_equal(q->ops->position(q, &j, &pos, &err), CUZK_OK);
    assert_int_equal(pos, 2); /* behind the critical and n1 */

    /* idempotency: the key finds the job; a second insert with it returns it */
    assert_int_equal(q->ops->by_idem(q, "porep-f01-7", &j, &found, &err), CUZK_OK);
    assert_true(found);
    assert_string_equal(j.id, n2.id);
    eng_job dup = mkjob("00000000-0000-4000-8000-000000000005", CUZK_PRIO_HIGH, 5);
    snprintf(dup.idem_key, sizeof dup.idem_key, "porep-f01-7");
    int existed = 0;
    assert_int_equal(q->ops->submit(q, &dup, NULL, 0, &out, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 1);
    assert_string_equal(out.id, n2.id);
    assert_int_equal(q->ops->get(q, dup.id, &j, &err), CUZK_ENGINE_NOT_FOUND);

    claim_head(q, cr.id, "hostA", &j);
    assert_int_equal(j.attempt, 1);
    /* fencing: a wrong attempt or owner changes nothing */
    assert_int_equal(q->ops->complete(q, cr.id, 2, "hostA", "{}", "[]", 2000, &fenced, &err), CUZK_OK);
    assert_int_equal(fenced, 1);
    assert_int_equal(q->ops->complete(q, cr.id, 1, "hostB", "{}", "[]", 2000, &fenced, &err), CUZK_OK);
    assert_int_equal(fenced, 1);
    assert_int_equal(q->ops->finish(q, cr.id, 1, "hostB", CUZK_JOB_FAILED, CUZK_ERR_IO, "x", 2000,
                                    &fenced, &err), CUZK_OK);
    assert_int_equal(fenced, 1);
    assert_int_equal(q->ops->get(q, cr.id, &j, &err), CUZK_OK);
    assert_int_equal(j.state, CUZK_JOB_RUNNING);
    assert_int_equal(q->ops->complete(q, cr.id, 1, "hostA", "{\"p\":1}", "[\"3\"]", 2000, &fenced, &err),
                     CUZK_OK);
    assert_int_equal(fenced, 0);
    /* ends once: a second complete of the same attempt is fenced */
    assert_int_equal(q->ops->complete(q, cr.id, 1, "hostA", "{}", "[]", 2001, &fenced, &err), CUZK_OK);
    assert_int_equal(fenced, 1);
    char *proof, *pub;
    assert_int_equal(q->ops->result(q, cr.id, &proof, &pub, &err), CUZK_OK);
    assert_string_equal(proof, "{\"p\":1}");
    assert_string_equal(pub, "[\"3\"]");
    free(proof);
    free(pub);

    /* requeue (drain) up to max_attempts, then failed; the stored witness
     * stays while the job may run and goes with its end */
    claim_head(q, n1.id, "hostA", &j);
    assert_int_equal(count_inputs(q, n1.id), 1);
    assert_int_equal(q->ops->finish(q, n1.id, 1, "hostA", CUZK_JOB_QUEUED, 0, NULL, 3000, &fenced, &err),
                     CUZK_OK);
    assert_int_equal(fenced, 0);
    assert_int_equal(count_inputs(q, n1.id), 1);
    claim_head(q, n1.id, "hostA", &j); /* still first in FIFO order */
    assert_int_equal(j.attempt, 2);
    assert_int_equal(q->ops->finish(q, n1.id, 2, "hostA", CUZK_JOB_QUEUED, 0, NULL, 3000, &fenced, &err),
                     CUZK_OK);
    assert_int_equal(q->ops->get(q, n1.id, &j, &err), CUZK_OK);
    assert_int_equal(j.state, CUZK_JOB_FAILED);
    assert_int_equal(count_inputs(q, n1.id), 0);

    /* cancel: queued -> cancelled at once; running -> flag */
    int dequeued = 0;
    assert_int_equal(q->ops->cancel(q, lo.id, 4000, &j, &dequeued, &err), CUZK_OK);
    assert_true(dequeued);
    assert_int_equal(j.state, CUZK_JOB_CANCELLED);
    claim_head(q, n2.id, "hostA", &j);
    assert_int_equal(q->ops->cancel(q, n2.id, 4000, &j, &dequeued, &err), CUZK_OK);
    assert_false(dequeued);
    assert_int_equal(j.state, CUZK_JOB_RUNNING);
    assert_true(j.cancel_requested);
    assert_int_equal(q->ops->peek(q, &j, &found, &err), CUZK_OK);
    assert_false(found);

    uint64_t queued[CUZK_PRIO_COUNT], running, bytes;
    assert_int_equal(q->ops->stats(q, queued, &running, &bytes, &err), CUZK_OK);
    assert_int_equal(running, 1);
    assert_int_equal(queued[0] + queued[1] + queued[2] + queued[3], 0);
    q->ops->close(q);

    /* a crash: reopen and rescue; the running job had a cancel requested */
    q = qopen();
    eng_job more = mkjob("00000000-0000-4000-8000-000000000006", CUZK_PRIO_HIGH, 6);
    submit(q, &more, "wtn6");
    claim_head(q, more.id, "hostA", &j);
    uint64_t requeued = 0, ended = 0;
    assert_int_equal(q->ops->rescue(q, "hostA", 5000, &requeued, &ended, &err), CUZK_OK);
    assert_int_equal(requeued, 1);
    assert_int_equal(ended, 1);
    assert_int_equal(q->ops->get(q, n2.id, &j, &err), CUZK_OK);
    assert_int_equal(j.state, CUZK_JOB_CANCELLED);
    assert_int_equal(q->ops->get(q, more.id, &j, &err), CUZK_OK);
    assert_int_equal(j.state, CUZK_JOB_QUEUED);
    assert_int_equal(j.attempt, 1);
    /* the interrupted attempt's fencing token is dead */
    assert_int_equal(q->ops->complete(q, more.id, 1, "hostA", "{}", "[]", 5001, &fenced, &err), CUZK_OK);
    assert_int_equal(fenced, 1);
    claim_head(q, more.id, "hostA", &j);
    assert_int_equal(j.attempt, 2);
    assert_int_equal(q->ops->complete(q, more.id, 2, "hostA", "{}", "[]", 6000, &fenced, &err), CUZK_OK);
    assert_int_equal(fenced, 0);

    /* expiry: finished before the cut, with results and witnesses */
    eng_job *gone = NULL;
    size_t n = 0;
    assert_int_equal(q->ops->expire(q, 4500, 100, &gone, &n, &err), CUZK_OK);
    assert_int_equal(n, 3); /* cr (ended at 2000), n1 (3000), lo (4000); not n2 (5000) */
    free(gone);
    assert_int_equal(q->ops->get(q, cr.id, &j, &err), (cuzk_status)CUZK_ENGINE_NOT_FOUND);
    assert_int_equal(q->ops->result(q, cr.id, &proof, &pub, &err), (cuzk_status)CUZK_ENGINE_NOT_FOUND);
    assert_int_equal(q->ops->by_idem(q, "porep-f01-7", &j, &found, &err), CUZK_OK);
    assert_true(found); /* n2 is kept, so is its idempotency key */
    assert_int_equal(q->ops->expire(q, 5500, 100, &gone, &n, &err), CUZK_OK);
    assert_int_equal(n, 1);
    free(gone);
    assert_int_equal(q->ops->by_idem(q, "porep-f01-7", &j, &found, &err), CUZK_OK);
    assert_false(found);
    assert_int_equal(q->ops->get(q, more.id, &j, &err), CUZK_OK); /* finished at 6000: kept */
    assert_int_equal(j.state, CUZK_JOB_DONE);
    q->ops->close(q);
}

typedef struct syncer {
    eng_queue *q;
    pthread_mutex_t *mu; /* the engine's serialisation of everything but sync */
    int base, n, failures;
} syncer;

static void *sync_thread(void *arg)
{
    syncer *s = arg;
    for (int i = 0; i < s->n; i++) {
        char id[CUZK_JOB_ID_LEN + 1];
        snprintf(id, sizeof id, "g-%03d-%03d", s->base % 1000, i % 1000);
        eng_job j = mkjob(id, i % 4, 1000 + i), out;
        int existed = 0;
        cuzk_error err = {0};
        pthread_mutex_lock(s->mu);
        cuzk_status st = s->q->ops->submit(s->q, &j, "wtns", 4, &out, &existed, &err);
        uint64_t mark = s->q->ops->mark(s->q);
        pthread_mutex_unlock(s->mu);
        if (st || (!PG && !mark) || s->q->ops->sync(s->q, mark, &err))
            s->failures++;
    }
    return NULL;
}

/* Group commit: a mark after every commit, sync flushes up to it once (a
 * second sync of a covered mark does not flush), and concurrent submitters
 * each get a durable commit from at most one flush each. A backend whose
 * commits are durable by themselves (PostgreSQL) marks 0 and never flushes. */
static void test_queue_sync(void **state)
{
    (void)state;
    eng_queue *q = qopen();
    cuzk_error err = {0};
    uint64_t m0 = q->ops->mark(q), f0 = q->ops->flushes(q);
    eng_job j = mkjob("s-1", 2, 1000);
    submit(q, &j, "wtns");
    uint64_t m1 = q->ops->mark(q);
    if (PG) {
        assert_int_equal(m1, 0);
        assert_int_equal(q->ops->sync(q, m1, &err), CUZK_OK);
        assert_int_equal(q->ops->flushes(q), 0);
    } else {
        assert_true(m1 > m0); /* WAL journal: commits wait for sync to be durable */
        assert_int_equal(q->ops->sync(q, m1, &err), CUZK_OK);
        assert_int_equal(q->ops->flushes(q), f0 + 1);
        assert_int_equal(q->ops->sync(q, m1, &err), CUZK_OK); /* already durable */
        assert_int_equal(q->ops->sync(q, m0, &err), CUZK_OK);
        assert_int_equal(q->ops->flushes(q), f0 + 1);
    }
    eng_job r;
    assert_int_equal(q->ops->get(q, "s-1", &r, &err), CUZK_OK); /* reads do not commit */
    assert_int_equal(q->ops->mark(q), m1);

    enum { T = 8, N = 25 };
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    syncer sy[T];
    pthread_t th[T];
    for (int t = 0; t < T; t++) {
        sy[t] = (syncer){q, &mu, t, N, 0};
        assert_int_equal(pthread_create(&th[t], NULL, sync_thread, &sy[t]), 0);
    }
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(sy[t].failures, 0);
    }
    if (!PG) {
        uint64_t flushed = q->ops->flushes(q) - (f0 + 1);
        assert_true(flushed >= 1 && flushed <= T * N);
        assert_int_equal(q->ops->mark(q), m1 + T * N);
        uint64_t fb = q->ops->flushes(q);
        assert_int_equal(q->ops->sync(q, q->ops->mark(q), &err), CUZK_OK); /* all covered */
        assert_int_equal(q->ops->flushes(q), fb);
        printf("group commit: %d concurrent commits, %llu flushes\n", T * N, (unsigned long long)flushed);
    }
    q->ops->close(q);

    q = qopen(); /* every acknowledged job is there */
    uint64_t queued[CUZK_PRIO_COUNT], running = 0, bytes = 0;
    assert_int_equal(q->ops->stats(q, queued, &running, &bytes, &err), CUZK_OK);
    assert_int_equal(queued[0] + queued[1] + queued[2] + queued[3], T * N + 1);
    q->ops->close(q);
}

static void job_id(char out[CUZK_JOB_ID_LEN + 1], int i)
{
    snprintf(out, CUZK_JOB_ID_LEN + 1, "00000000-0000-4000-8000-%012d", i);
}

static int cmp_prio_time(const void *a, const void *b)
{
    const eng_job *x = a, *y = b;
    if (x->priority != y->priority)
        return x->priority - y->priority;
    return (x->enqueued_ms > y->enqueued_ms) - (x->enqueued_ms < y->enqueued_ms);
}

/* claim_next takes the head: lowest priority value, then the oldest
 * (SQLite: submit order; PostgreSQL: enqueue time, the submitters' clocks). */
static void test_queue_claim_order(void **state)
{
    (void)state;
    enum { N = 24 };
    eng_queue *q = qopen();
    cuzk_error err = {0};
    eng_job jobs[N];
    for (int i = 0; i < N; i++) {
        char id[CUZK_JOB_ID_LEN + 1];
        job_id(id, i);
        jobs[i] = mkjob(id, (i * 7 + i / 3) % 4, 1000 + i); /* priorities scrambled */
        submit(q, &jobs[i], i % 2 ? "w" : NULL);
    }
    qsort(jobs, N, sizeof *jobs, cmp_prio_time);
    for (int i = 0; i < N; i++) {
        eng_job j;
        int claimed = 0;
        assert_int_equal(q->ops->claim_next(q, "hostA", 0, -1, 5000, &j, &claimed, &err), CUZK_OK);
        assert_true(claimed);
        assert_string_equal(j.id, jobs[i].id);
        assert_int_equal(j.state, CUZK_JOB_RUNNING);
        assert_int_equal(j.attempt, 1);
        assert_string_equal(j.owner, "hostA");
    }
    eng_job j;
    int claimed = 1;
    assert_int_equal(q->ops->claim_next(q, "hostA", 0, -1, 5000, &j, &claimed, &err), CUZK_OK);
    assert_false(claimed);
    q->ops->close(q);
}

typedef struct claimer {
    eng_queue *q;
    char host[32];
    char (*ids)[CUZK_JOB_ID_LEN + 1];
    int n, cap, errors, fenced;
} claimer;

static void *claim_thread(void *arg)
{
    claimer *c = arg;
    for (;;) {
        eng_job j;
        int claimed = 0, fenced = 0;
        cuzk_error err = {0};
        if (c->q->ops->claim_next(c->q, c->host, 0, -1, 7000, &j, &claimed, &err)) {
            c->errors++;
            fprintf(stderr, "%s: %s\n", c->host, err.msg);
            break;
        }
        if (!claimed)
            break;
        if (c->n < c->cap)
            memcpy(c->ids[c->n++], j.id, CUZK_JOB_ID_LEN + 1);
        if (c->q->ops->complete(c->q, j.id, j.attempt, c->host, "{}", "[]", 7001, &fenced, &err))
            c->errors++;
        c->fenced += fenced;
    }
    return NULL;
}

/* Several claimers, each on its own handle (connection), drain one queue at
 * once: every job is claimed exactly once and completes unfenced. */
static void test_queue_concurrent_claims(void **state)
{
    (void)state;
    enum { T = 4, N = 200 };
    eng_queue *q = qopen();
    for (int i = 0; i < N; i++) {
        char id[CUZK_JOB_ID_LEN + 1];
        job_id(id, i);
        eng_job j = mkjob(id, i % 4, 1000 + i);
        submit(q, &j, NULL);
    }
    claimer c[T];
    pthread_t th[T];
    for (int t = 0; t < T; t++) {
        memset(&c[t], 0, sizeof c[t]);
        snprintf(c[t].host, sizeof c[t].host, "host%d", t);
        c[t].q = qopen_as(c[t].host, 0);
        c[t].cap = N;
        c[t].ids = calloc(N, sizeof *c[t].ids);
    }
    for (int t = 0; t < T; t++)
        assert_int_equal(pthread_create(&th[t], NULL, claim_thread, &c[t]), 0);
    int seen[N] = {0}, total = 0;
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(c[t].errors, 0);
        assert_int_equal(c[t].fenced, 0);
        for (int i = 0; i < c[t].n; i++)
            seen[atoi(c[t].ids[i] + 24)]++;
        total += c[t].n;
        printf("claimer %s: %d jobs\n", c[t].host, c[t].n);
        free(c[t].ids);
        c[t].q->ops->close(c[t].q);
    }
    assert_int_equal(total, N);
    for (int i = 0; i < N; i++)
        assert_int_equal(seen[i], 1);
    cuzk_error err = {0};
    uint64_t queued[CUZK_PRIO_COUNT], running = 9, bytes;
    assert_int_equal(q->ops->stats(q, queued, &running, &bytes, &err), CUZK_OK);
    assert_int_equal(running + queued[0] + queued[1] + queued[2] + queued[3], 0);
    q->ops->close(q);
}

/* Leases: a host that stops renewing loses its job to any other host once
 * the lease has run out (attempt closed, job requeued), its late complete
 * and finish are fenced and its renewal reports the loss; a job with a long
 * lease is never touched. SQLite (one host, no leases): renew keeps all,
 * rescue_expired finds nothing. Waits for the database clock, never races it. */
static void test_queue_leases(void **state)
{
    (void)state;
    cuzk_error err = {0};
    eng_queue *a = qopen_as("hostA", 0.05), *b = qopen_as("hostB", 3600);
    eng_job j1 = mkjob("00000000-0000-4000-8000-0000000000a1", CUZK_PRIO_NORMAL, 1);
    eng_job j2 = mkjob("00000000-0000-4000-8000-0000000000a2", CUZK_PRIO_NORMAL, 2);
    eng_job j3 = mkjob("00000000-0000-4000-8000-0000000000a3", CUZK_PRIO_NORMAL, 3);
    submit(a, &j1, "w1");
    submit(a, &j2, NULL);
    submit(a, &j3, NULL);
    eng_job ja, jb, j;
    int claimed = 0, fenced = 0, dq = 0;
    assert_int_equal(a->ops->claim_next(a, "hostA", 0, -1, 10, &ja, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_string_equal(ja.id, j1.id);
    assert_int_equal(b->ops->claim_next(b, "hostB", 0, -1, 11, &jb, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_string_equal(jb.id, j2.id);
    uint64_t requeued = 0, ended = 0;
    int held = -1;
    const char *ids[] = {ja.id};
    assert_int_equal(a->ops->renew(a, "hostA", ids, 1, &held, &err), CUZK_OK);
    assert_int_equal(held, 1);
    if (!PG) {
        assert_int_equal(b->ops->rescue_expired(b, 20, &requeued, &ended, &err), CUZK_OK);
        assert_int_equal(requeued + ended, 0);
        a->ops->close(a);
        b->ops->close(b);
        return;
    }
    /* A claims j3 too and asks for its cancel: at expiry it ends cancelled */
    eng_job jc;
    assert_int_equal(a->ops->claim_next(a, "hostA", 1, -1, 12, &jc, &claimed, &err), CUZK_OK);
    assert_string_equal(jc.id, j3.id);
    assert_int_equal(b->ops->cancel(b, j3.id, 13, &j, &dq, &err), CUZK_OK);
    assert_false(dq);
    int held2[2] = {-1, -1};
    const char *ids2[] = {jc.id, ja.id};
    assert_int_equal(a->ops->renew(a, "hostA", ids2, 2, held2, &err), CUZK_OK);
    assert_int_equal(held2[0], 2); /* held, and B asked for its cancel */
    assert_int_equal(held2[1], 1);
    /* A stops renewing: B rescues both once A's 50 ms leases have passed */
    uint64_t total_rq = 0, total_end = 0;
    for (int i = 0; i < 1000 && total_rq + total_end < 2; i++) {
        assert_int_equal(b->ops->rescue_expired(b, 20, &requeued, &ended, &err), CUZK_OK);
        total_rq += requeued;
        total_end += ended;
        if (total_rq + total_end < 2)
            usleep(10000);
    }
    assert_int_equal(total_rq, 1);
    assert_int_equal(total_end, 1);
    assert_int_equal(b->ops->get(b, j3.id, &j, &err), CUZK_OK);
    assert_int_equal(j.state, CUZK_JOB_CANCELLED);
    assert_int_equal(b->ops->get(b, j2.id, &j, &err), CUZK_OK); /* B's long lease: untouched */
    assert_int_equal(j.state, CUZK_JOB_RUNNING);
    assert_string_equal(j.owner, "hostB");
    assert_int_equal(b->ops->get(b, j1.id, &j, &err), CUZK_OK);
    assert_int_equal(j.state, CUZK_JOB_QUEUED);
    assert_int_equal(count_inputs(b, j1.id), 1); /* the witness stays with the queued job */
    /* B runs j1 as attempt 2 */
    eng_job jb1;
    assert_int_equal(b->ops->claim_next(b, "hostB", 0, -1, 30, &jb1, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_string_equal(jb1.id, j1.id);
    assert_int_equal(jb1.attempt, 2);
    /* A wakes up: its renewal and its results are refused */
    assert_int_equal(a->ops->renew(a, "hostA", ids, 1, &held, &err), CUZK_OK);
    assert_int_equal(held, 0);
    assert_int_equal(a->ops->complete(a, j1.id, 1, "hostA", "{\"late\":1}", "[]", 40, &fenced, &err),
                     CUZK_OK);
    assert_int_equal(fenced, 1);
    assert_int_equal(a->ops->finish(a, j1.id, 1, "hostA", CUZK_JOB_FAILED, CUZK_ERR_IO, "x", 40,
                                    &fenced, &err), CUZK_OK);
    assert_int_equal(fenced, 1);
    assert_int_equal(b->ops->complete(b, j1.id, 2, "hostB", "{\"p\":2}", "[]", 50, &fenced, &err),
                     CUZK_OK);
    assert_int_equal(fenced, 0);
    char *proof, *pub;
    assert_int_equal(a->ops->result(a, j1.id, &proof, &pub, &err), CUZK_OK);
    assert_string_equal(proof, "{\"p\":2}");
    free(proof);
    free(pub);
    /* the attempts log: attempt 1 expired on A, attempt 2 done on B */
    char v[64];
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT string_agg(attempt || ':' || host_id || ':' || outcome, ',' ORDER BY attempt)"
             " FROM cuzk.attempts WHERE job_id = '%s'", j1.id);
    assert_int_equal(pgfx_sql(dbname, sql, v, sizeof v), 0);
    assert_string_equal(v, "1:hostA:lease_expired,2:hostB:done");
    a->ops->close(a);
    b->ops->close(b);
}

/* The idempotency key: a second submit with it (from another handle, with
 * another id) returns the first job, whatever its body; its request hash
 * lets the caller tell a retry from a conflict. */
static void test_queue_idempotency(void **state)
{
    (void)state;
    cuzk_error err = {0};
    eng_queue *a = qopen_as("hostA", 0), *b = qopen_as("hostB", 0);
    eng_job j1 = mkjob("00000000-0000-4000-8000-0000000000b1", CUZK_PRIO_HIGH, 1), out;
    snprintf(j1.idem_key, sizeof j1.idem_key, "porep-f01000-42");
    submit(a, &j1, "w");
    eng_job j2 = mkjob("00000000-0000-4000-8000-0000000000b2", CUZK_PRIO_LOW, 2);
    snprintf(j2.idem_key, sizeof j2.idem_key, "porep-f01000-42");
    int existed = 0;
    assert_int_equal(b->ops->submit(b, &j2, "other", 5, &out, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 1);
    assert_string_equal(out.id, j1.id);
    assert_memory_equal(out.req_sha256, j1.req_sha256, 32);
    assert_memory_not_equal(out.req_sha256, j2.req_sha256, 32);
    assert_int_equal(out.priority, CUZK_PRIO_HIGH);
    /* the same submit again (a retry after a lost answer) is the same job */
    assert_int_equal(a->ops->submit(a, &j1, "w", 1, &out, &existed, &err), CUZK_OK);
    assert_string_equal(out.id, j1.id);
    uint64_t queued[CUZK_PRIO_COUNT], running, bytes;
    assert_int_equal(a->ops->stats(a, queued, &running, &bytes, &err), CUZK_OK);
    assert_int_equal(queued[0] + queued[1] + queued[2] + queued[3], 1);
    a->ops->close(a);
    b->ops->close(b);
}

static void test_queue_redact(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"postgresql://cuzk:s3cret@db1:5433/curio?sslmode=require",
         "postgresql://cuzk:***@db1:5433/curio?sslmode=require"},
        {"postgres://cuzk@db1/x?password=s3cret&connect_timeout=3",
         "postgres://cuzk@db1/x?password=***&connect_timeout=3"},
        {"host=db1 user=cuzk password=s3cret dbname=x", "host=db1 user=cuzk password=*** dbname=x"},
        {"host=db1 password = 's3 cr\\'et' dbname=x", "host=db1 password = *** dbname=x"},
        {"host=db1 dbname=x", "host=db1 dbname=x"},
        {"sqlite", "sqlite"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[200];
        eng_queue_redact(cases[i][0], out, sizeof out);
        assert_string_equal(out, cases[i][1]);
    }
    assert_ptr_equal(eng_queue_backend("sqlite"), &eng_queue_sqlite);
    assert_ptr_equal(eng_queue_backend(""), &eng_queue_sqlite);
    assert_ptr_equal(eng_queue_backend("postgresql://h/db"), &eng_queue_postgres);
    assert_ptr_equal(eng_queue_backend("host=/tmp dbname=x"), &eng_queue_postgres);
    assert_null(eng_queue_backend("mysql"));
}

/* ---- PostgreSQL only ---- */

static void publish(eng_queue *q, const char *key)
{
    cuzk_error err = {0};
    const char *ids[1] = {key};
    assert_int_equal(q->ops->publish_keys(q, ids, key ? 1 : 0, &err), CUZK_OK);
}

/* The job q would run next ("" = none). */
static const char *peek_id(eng_queue *q)
{
    static char id[CUZK_JOB_ID_LEN + 1];
    eng_job j;
    int found = 0;
    cuzk_error err = {0};
    assert_int_equal(q->ops->peek(q, &j, &found, &err), CUZK_OK);
    snprintf(id, sizeof id, "%s", found ? j.id : "");
    return id;
}

static eng_job keyjob(const char *id, int prio, int64_t t, const char *key)
{
    eng_job j = mkjob(id, prio, t);
    snprintf(j.key_id, sizeof j.key_id, "%s", key);
    return j;
}

static void claim_id(eng_queue *q, const char *id, const char *owner)
{
    eng_job j;
    int claimed = 0;
    cuzk_error err = {0};
    assert_int_equal(q->ops->claim(q, id, owner, 0, -1, 100, &j, &claimed, &err), CUZK_OK);
    assert_true(claimed);
}

/* Delay scheduling: a job whose key is resident on another live host waits
 * for it (here: an hour, so nothing the test does can outlast it), except a
 * critical one; a job whose key no live host has runs anywhere; a host
 * takes its resident keys' jobs first within a priority. The delay's end
 * and a host's death are set in the database (queued_at, last_seen), not
 * waited for. */
static void test_pg_affinity(void **state)
{
    (void)state;
    cuzk_error err = {0};
    eng_queue *a = qopen_with("hostA", 3600, 0), *b = qopen_with("hostB", 3600, 0);
    publish(a, "k1");
    publish(b, NULL);
    eng_job j1 = keyjob("00000000-0000-4000-8000-0000000000a1", CUZK_PRIO_NORMAL, 1, "k1");
    eng_job j2 = keyjob("00000000-0000-4000-8000-0000000000a2", CUZK_PRIO_NORMAL, 2, "k2");
    eng_job j3 = keyjob("00000000-0000-4000-8000-0000000000a3", CUZK_PRIO_CRITICAL, 3, "k1");
    eng_job j4 = keyjob("00000000-0000-4000-8000-0000000000a4", CUZK_PRIO_NORMAL, 4, "k1");
    eng_job j5 = keyjob("00000000-0000-4000-8000-0000000000a5", CUZK_PRIO_NORMAL, 0, "k9");
    submit(a, &j1, "w");
    submit(a, &j2, "w");
    submit(a, &j3, "w");
    /* critical: never waits, though its key is on A */
    assert_string_equal(peek_id(b), j3.id);
    claim_id(b, j3.id, "hostB");
    /* j1 (older, key on A) waits: B gets j2, by peek and by claim_next */
    assert_string_equal(peek_id(b), j2.id);
    eng_job got;
    int claimed = 0;
    assert_int_equal(b->ops->claim_next(b, "hostB", 0, -1, 100, &got, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_string_equal(got.id, j2.id);
    assert_string_equal(peek_id(b), "");
    claimed = 1;
    assert_int_equal(b->ops->claim_next(b, "hostB", 0, -1, 100, &got, &claimed, &err), CUZK_OK);
    assert_false(claimed);
    assert_string_equal(peek_id(a), j1.id);
    /* A prefers its resident key over an older job; B takes that one */
    submit(a, &j5, "w");
    assert_string_equal(peek_id(a), j1.id);
    assert_string_equal(peek_id(b), j5.id);
    claim_id(b, j5.id, "hostB");
    assert_string_equal(peek_id(b), "");
    /* the delay ran out (database clock): anyone takes j1 */
    char sql[256];
    snprintf(sql, sizeof sql,
             "UPDATE cuzk.jobs SET queued_at = now() - interval '2 hours' WHERE id = '%s'", j1.id);
    assert_int_equal(pgfx_sql(dbname, sql, NULL, 0), 0);
    assert_string_equal(peek_id(b), j1.id);
    claim_id(a, j1.id, "hostA");
    submit(a, &j4, "w");
    assert_string_equal(peek_id(b), "");
    /* A's heartbeat is older than a lease: A counts as dead, j4 is B's */
    assert_int_equal(pgfx_sql(dbname, "UPDATE cuzk.hosts SET last_seen = now() - interval '2 hours'"
                                      " WHERE host_id = 'hostA'", NULL, 0), 0);
    assert_string_equal(peek_id(b), j4.id);
    publish(a, "k1"); /* alive again, with k1 */
    assert_string_equal(peek_id(b), "");
    publish(a, NULL); /* k1 evicted on A */
    assert_string_equal(peek_id(b), j4.id);
    publish(a, "k1");
    /* no delay: every host takes any job */
    eng_queue *c = qopen_with("hostC", 0, 0);
    assert_string_equal(peek_id(c), j4.id);
    /* a cold job is passed over for resident ones only until its delay ends */
    eng_job j7 = keyjob("00000000-0000-4000-8000-0000000000a7", CUZK_PRIO_NORMAL, 1, "k8");
    submit(a, &j7, "w");
    assert_string_equal(peek_id(a), j4.id);
    snprintf(sql, sizeof sql,
             "UPDATE cuzk.jobs SET queued_at = now() - interval '2 hours' WHERE id = '%s'", j7.id);
    assert_int_equal(pgfx_sql(dbname, sql, NULL, 0), 0);
    assert_string_equal(peek_id(a), j7.id);
    assert_string_equal(peek_id(c), j7.id); /* no delay: plain FIFO */
    char n[32];
    assert_int_equal(pgfx_sql(dbname, "SELECT count(*) FROM cuzk.host_keys WHERE host_id = 'hostA'",
                              n, sizeof n), 0);
    assert_string_equal(n, "1");
    a->ops->close(a);
    b->ops->close(b);
    c->ops->close(c);
}

/* The cluster view and missing keys: describe_host / hosts read back what
 * each host said, its leases and resident keys, and `alive` follows its
 * heartbeat (set back in the database, not waited for); skip_keys makes
 * peek pass over the jobs of keys this host cannot find, and only those. */
static void test_pg_hosts_and_skip(void **state)
{
    (void)state;
    cuzk_error err = {0};
    eng_queue *a = qopen_with("hostA", 0, 0), *b = qopen_with("hostB", 0, 0);
    assert_int_equal(a->ops->describe_host(a, "http://a:9820", 2, 4, &err), CUZK_OK);
    assert_int_equal(b->ops->describe_host(b, "", 0, 1, &err), CUZK_OK);
    publish(b, "k2");
    eng_job j1 = keyjob("00000000-0000-4000-8000-0000000000b1", CUZK_PRIO_NORMAL, 1, "k1");
    eng_job j2 = keyjob("00000000-0000-4000-8000-0000000000b2", CUZK_PRIO_NORMAL, 2, "k2");
    eng_job j3 = keyjob("00000000-0000-4000-8000-0000000000b3", CUZK_PRIO_NORMAL, 3, "k1");
    submit(a, &j1, "w");
    submit(a, &j2, "w");
    submit(a, &j3, "w");
    claim_id(a, j1.id, "hostA");
    /* A lacks k1: it passes over j3 (k1), not over j2 */
    const char *skip[1] = {"k1"};
    assert_int_equal(a->ops->skip_keys(a, skip, 1, &err), CUZK_OK);
    assert_string_equal(peek_id(a), j2.id);
    claim_id(b, j2.id, "hostB");
    assert_string_equal(peek_id(a), "");
    assert_string_equal(peek_id(b), j3.id);
    assert_int_equal(a->ops->skip_keys(a, NULL, 0, &err), CUZK_OK);
    assert_string_equal(peek_id(a), j3.id);

    assert_int_equal(pgfx_sql(dbname, "UPDATE cuzk.hosts SET last_seen = now() - interval '2 hours'"
                                      " WHERE host_id = 'hostB'", NULL, 0), 0);
    cuzk_cluster_host *h = NULL;
    size_t n = 0;
    assert_int_equal(a->ops->hosts(a, 30, &h, &n, &err), CUZK_OK); /* leases of 30 s */
    assert_int_equal(n, 2);
    assert_string_equal(h[0].host_id, "hostA");
    assert_string_equal(h[0].url, "http://a:9820");
    assert_int_equal(h[0].gpus, 2);
    assert_int_equal(h[0].slots, 4);
    assert_true(h[0].alive);
    assert_int_equal(h[0].running, 1);
    assert_true(h[0].lease_left_s > 0 && h[0].lease_left_s <= 30);
    assert_string_equal(h[0].keys, "");
    assert_string_equal(h[1].host_id, "hostB");
    assert_string_equal(h[1].url, "");
    assert_false(h[1].alive);
    assert_true(h[1].silent_s > 7000);
    assert_int_equal(h[1].running, 1);
    assert_string_equal(h[1].keys, "k2");
    free(h);
    a->ops->close(a);
    b->ops->close(b);
}

/* Wakes one listener with (channel, payload) or fails after 10 s. */
static void next_notify(PGconn *l, const char *channel, const char *payload)
{
    for (int i = 0; i < 100; i++) {
        PQconsumeInput(l);
        PGnotify *n = PQnotifies(l);
        if (n) {
            assert_string_equal(n->relname, channel);
            assert_string_equal(n->extra, payload);
            PQfreemem(n);
            return;
        }
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fail_msg("no notification on %s", channel);
}

/* Notifications: a handle with notify sends them (submit -> cuzk_jobs,
 * complete -> cuzk_done, payload the job id), one without sends none (its
 * submit commits first, so a notification of it would come first); listen
 * reports a (re)connect as RESCAN, then the wake-ups, and comes back after
 * its backend is killed. */
static void test_pg_notify(void **state)
{
    (void)state;
    cuzk_error err = {0};
    PGconn *l = PQconnectdb(pgfx_conninfo(dbname));
    assert_int_equal(PQstatus(l), CONNECTION_OK);
    PGresult *r = PQexec(l, "LISTEN cuzk_jobs; LISTEN cuzk_done");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    eng_queue *quiet = qopen_with("hostQ", 0, 0), *loud = qopen_with("hostN", 0, 1);
    eng_job jq = mkjob("00000000-0000-4000-8000-0000000000b1", CUZK_PRIO_NORMAL, 1);
    eng_job jn = mkjob("00000000-0000-4000-8000-0000000000b2", CUZK_PRIO_NORMAL, 2);
    submit(quiet, &jq, "w");
    submit(loud, &jn, "w");
    next_notify(l, "cuzk_jobs", jn.id);
    unsigned ev = 0;
    assert_int_equal(quiet->ops->listen(quiet, 0, &ev, &err), CUZK_ERR_UNSUPPORTED);

    eng_queue *lq = qopen_with("hostL", 0, 1);
    assert_int_equal(lq->ops->listen(lq, 0, &ev, &err), CUZK_OK);
    assert_int_equal(ev, ENG_WAKE_RESCAN);
    eng_job j;
    int claimed = 0, fenced = 1;
    assert_int_equal(loud->ops->claim(loud, jn.id, "hostN", 0, -1, 10, &j, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_int_equal(loud->ops->complete(loud, jn.id, j.attempt, "hostN", "{}", "[]", 20, &fenced, &err),
                     CUZK_OK);
    assert_false(fenced);
    next_notify(l, "cuzk_done", jn.id);
    unsigned seen = 0;
    for (int i = 0; i < 100 && !(seen & ENG_WAKE_DONE); i++) { /* returns as soon as it arrives */
        assert_int_equal(lq->ops->listen(lq, 0.1, &ev, &err), CUZK_OK);
        seen |= ev;
    }
    assert_true(seen & ENG_WAKE_DONE);
    /* its backend killed: an error, then a new connection (RESCAN) */
    assert_int_equal(pgfx_sql("postgres",
                              "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                              " WHERE application_name = 'cuzk@hostL/listen'", NULL, 0), 0);
    seen = 0;
    int errors = 0;
    for (int i = 0; i < 100 && !(seen & ENG_WAKE_RESCAN); i++) {
        cuzk_status st = lq->ops->listen(lq, 0.1, &ev, &err);
        errors += st != CUZK_OK;
        seen |= st ? 0 : ev;
    }
    assert_true(seen & ENG_WAKE_RESCAN);
    assert_true(errors >= 1);
    eng_job j3 = mkjob("00000000-0000-4000-8000-0000000000b3", CUZK_PRIO_NORMAL, 3);
    j3.max_attempts = 10;
    submit(loud, &j3, "w");
    seen = 0;
    for (int i = 0; i < 100 && !(seen & ENG_WAKE_JOBS); i++) {
        assert_int_equal(lq->ops->listen(lq, 0.1, &ev, &err), CUZK_OK);
        seen |= ev;
    }
    assert_true(seen & ENG_WAKE_JOBS);
    /* every statement that queues or ends a job, with its payload */
    next_notify(l, "cuzk_jobs", j3.id);
    assert_int_equal(loud->ops->claim(loud, j3.id, "hostN", 0, -1, 30, &j, &claimed, &err), CUZK_OK);
    assert_int_equal(loud->ops->finish(loud, j3.id, j.attempt, "hostN", CUZK_JOB_QUEUED, 0, NULL, 31,
                                       &fenced, &err), CUZK_OK); /* requeue (a drain) */
    next_notify(l, "cuzk_jobs", j3.id);
    assert_int_equal(loud->ops->claim(loud, j3.id, "hostN", 0, -1, 32, &j, &claimed, &err), CUZK_OK);
    uint64_t rq = 0, ended = 0;
    assert_int_equal(loud->ops->rescue(loud, "hostN", 33, &rq, &ended, &err), CUZK_OK); /* a restart */
    assert_int_equal(rq, 1);
    next_notify(l, "cuzk_jobs", j3.id);
    assert_int_equal(loud->ops->claim(loud, j3.id, "hostN", 0, -1, 34, &j, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_int_equal(pgfx_sql(dbname, "UPDATE cuzk.jobs SET lease_until = now() - interval '1 hour'"
                                      " WHERE state = 'running'", NULL, 0), 0);
    assert_int_equal(loud->ops->rescue_expired(loud, 35, &rq, &ended, &err), CUZK_OK);
    assert_int_equal(rq, 1);
    next_notify(l, "cuzk_jobs", j3.id);
    assert_int_equal(loud->ops->claim(loud, j3.id, "hostN", 0, -1, 36, &j, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_int_equal(loud->ops->finish(loud, j3.id, j.attempt, "hostN", CUZK_JOB_FAILED, CUZK_ERR_IO,
                                       "bad", 37, &fenced, &err), CUZK_OK);
    assert_false(fenced);
    next_notify(l, "cuzk_done", j3.id);
    eng_job j4 = mkjob("00000000-0000-4000-8000-0000000000b4", CUZK_PRIO_NORMAL, 4);
    submit(loud, &j4, "w");
    next_notify(l, "cuzk_jobs", j4.id);
    int dq = 0;
    assert_int_equal(loud->ops->cancel(loud, j4.id, 40, &j, &dq, &err), CUZK_OK);
    assert_true(dq);
    next_notify(l, "cuzk_done", j4.id);
    PQfinish(l);
    quiet->ops->close(quiet);
    loud->ops->close(loud);
    lq->ops->close(lq);
}

/* A crashed server (pg_ctl restart -m immediate) and a killed backend: the
 * next call reconnects, prepares again and works; nothing committed is lost. */
static void test_pg_reconnect(void **state)
{
    (void)state;
    cuzk_error err = {0};
    eng_queue *q = qopen();
    eng_job j1 = mkjob("00000000-0000-4000-8000-0000000000c1", CUZK_PRIO_NORMAL, 1), j;
    eng_job j2 = mkjob("00000000-0000-4000-8000-0000000000c2", CUZK_PRIO_NORMAL, 2);
    submit(q, &j1, "w");
    int claimed = 0, fenced = 0;
    assert_int_equal(q->ops->claim_next(q, "hostA", 0, -1, 10, &j, &claimed, &err), CUZK_OK);
    /* A claim commits without waiting for the WAL flush; the next
     * synchronous commit (this submit) makes it durable too. */
    submit(q, &j2, "w");
    assert_int_equal(pgfx_restart_immediate(), 0);
    cuzk_status st = q->ops->complete(q, j1.id, 1, "hostA", "{\"p\":1}", "[]", 20, &fenced, &err);
    if (st)
        fprintf(stderr, "after restart: %s\n", err.msg);
    assert_int_equal(st, CUZK_OK);
    assert_int_equal(fenced, 0);
    assert_int_equal(pgfx_sql("postgres",
                              "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                              " WHERE application_name = 'cuzk@hostA'", NULL, 0), 0);
    assert_int_equal(q->ops->claim_next(q, "hostA", 0, -1, 30, &j, &claimed, &err), CUZK_OK);
    assert_true(claimed);
    assert_string_equal(j.id, j2.id);
    assert_int_equal(q->ops->get(q, j1.id, &j, &err), CUZK_OK);
    assert_int_equal(j.state, CUZK_JOB_DONE);
    q->ops->close(q);
}

/* A database that is down at open: CUZK_ERR_IO after the retry time, one
 * line naming the database, never its password. */
static void test_pg_down_at_open(void **state)
{
    (void)state;
    static const char *const down[] = {
        "host=/nonexistent/cuzk-no-db port=5999 dbname=x user=cuzk password=s3cret-pw",
        "postgresql://cuzk:s3cret-pw@/x?host=/nonexistent/cuzk-no-db&port=5999",
    };
    for (int i = 0; i < 2; i++) {
        eng_queue *q = NULL;
        cuzk_error err = {0};
        eng_queue_opts o = {.host = "hostA", .retry_s = 0.3};
        assert_int_equal(eng_queue_postgres.open(&q, down[i], &o, &err), CUZK_ERR_IO);
        assert_null(q);
        printf("down at open: %s\n", err.msg);
        assert_null(strchr(err.msg, '\n'));
        assert_null(strstr(err.msg, "s3cret"));
        assert_non_null(strstr(err.msg, "***"));
        assert_non_null(strstr(err.msg, "cannot reach the database"));
    }
}

static void *open_thread(void *arg)
{
    eng_queue *q = NULL;
    cuzk_error err = {0};
    eng_queue_opts o = {.host = "m"};
    cuzk_status st = eng_queue_postgres.open(&q, where, &o, &err);
    if (!st)
        q->ops->close(q);
    else
        fprintf(stderr, "concurrent open: %s\n", err.msg);
    *(cuzk_status *)arg = st;
    return NULL;
}

/* Hosts starting together migrate one after the other (the version row is
 * locked); a schema newer than this build is refused. */
static void test_pg_schema_version(void **state)
{
    (void)state;
    enum { T = 4 };
    pthread_t th[T];
    cuzk_status st[T];
    for (int t = 0; t < T; t++)
        assert_int_equal(pthread_create(&th[t], NULL, open_thread, &st[t]), 0);
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        assert_int_equal(st[t], CUZK_OK);
    }
    char v[32];
    assert_int_equal(pgfx_sql(dbname, "SELECT version FROM cuzk.schema_version", v, sizeof v), 0);
    assert_string_equal(v, "4");
    /* 3 -> 4: a witness stored in the queue was named "", now inline:<sha256>. */
    assert_int_equal(pgfx_sql(dbname,
                              "INSERT INTO cuzk.jobs (id, req_sha256, key_id, key_path, priority,"
                              " enqueued_at, max_attempts, input_uri, input_bytes, host_bytes, device_bytes)"
                              " VALUES ('old', '\\x00', 'k', '/k', 2, 1, 2, '', 4, 1, 0)",
                              NULL, 0),
                     0);
    assert_int_equal(pgfx_sql(dbname, "UPDATE cuzk.schema_version SET version = 3", NULL, 0), 0);
    eng_queue *q3 = qopen();
    q3->ops->close(q3);
    assert_int_equal(pgfx_sql(dbname, "SELECT input_uri || ' ' || (SELECT version FROM cuzk.schema_version)"
                                      " FROM cuzk.jobs WHERE id = 'old'", v, sizeof v), 0);
    assert_string_equal(v, "inline: 4");
    assert_int_equal(pgfx_sql(dbname, "UPDATE cuzk.schema_version SET version = 99", NULL, 0), 0);
    eng_queue *q = NULL;
    cuzk_error err = {0};
    assert_int_equal(eng_queue_postgres.open(&q, where, NULL, &err), CUZK_ERR_UNSUPPORTED);
    printf("newer schema: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "version 99"));
    assert_null(q);
}

/* The journal as cuzk wrote it before its versions were kept (version 0):
 * the schema of then, and rows as that code wrote them: a witness in the
 * queue named "", one in the spool named "<job id>.wtns". */
static const char OLD_SCHEMA_V0[] =
    "CREATE TABLE cuzk_jobs ("
    " id TEXT PRIMARY KEY, seq INTEGER NOT NULL, idem_key TEXT UNIQUE, req_sha256 BLOB NOT NULL,"
    " kind TEXT NOT NULL DEFAULT 'groth16', key_id TEXT NOT NULL, key_path TEXT NOT NULL,"
    " priority INTEGER NOT NULL, state TEXT NOT NULL DEFAULT 'queued',"
    " enqueued_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER,"
    " attempt INTEGER NOT NULL DEFAULT 0, max_attempts INTEGER NOT NULL, owner TEXT,"
    " cancel_requested INTEGER NOT NULL DEFAULT 0, input_uri TEXT NOT NULL,"
    " input_bytes INTEGER NOT NULL, host_bytes INTEGER NOT NULL, device_bytes INTEGER NOT NULL,"
    " worker INTEGER, device INTEGER, error_code INTEGER, error TEXT);"
    "CREATE INDEX cuzk_jobs_ready ON cuzk_jobs (priority, seq) WHERE state = 'queued';"
    "CREATE INDEX cuzk_jobs_finished ON cuzk_jobs (finished_at)"
    " WHERE state IN ('done', 'failed', 'cancelled');"
    "CREATE INDEX cuzk_jobs_state ON cuzk_jobs (state);"
    "CREATE INDEX cuzk_jobs_seq ON cuzk_jobs (seq);"
    "CREATE INDEX cuzk_jobs_state_seq ON cuzk_jobs (state, seq);"
    "CREATE TABLE cuzk_attempts (job_id TEXT NOT NULL, attempt INTEGER NOT NULL,"
    " host_id TEXT NOT NULL, started_at INTEGER NOT NULL, ended_at INTEGER, outcome TEXT,"
    " PRIMARY KEY (job_id, attempt));"
    "CREATE TABLE cuzk_results (job_id TEXT PRIMARY KEY, attempt INTEGER NOT NULL,"
    " proof TEXT NOT NULL, public_json TEXT NOT NULL, verified INTEGER NOT NULL,"
    " created_at INTEGER NOT NULL);"
    "CREATE TABLE cuzk_inputs (job_id TEXT PRIMARY KEY, body BLOB NOT NULL);"
    "INSERT INTO cuzk_jobs (id, seq, req_sha256, key_id, key_path, priority, state, enqueued_at,"
    " max_attempts, input_uri, input_bytes, host_bytes, device_bytes) VALUES"
    " ('00000000-0000-4000-8000-000000000001', 1, x'00', 'k', '/k.zkey', 2, 'queued', 10, 2, '', 4, 100, 0),"
    " ('00000000-0000-4000-8000-000000000002', 2, x'00', 'k', '/k.zkey', 2, 'queued', 11, 2,"
    "  '00000000-0000-4000-8000-000000000002.wtns', 4, 100, 0);"
    "INSERT INTO cuzk_jobs (id, seq, req_sha256, key_id, key_path, priority, state, enqueued_at,"
    " finished_at, attempt, max_attempts, owner, input_uri, input_bytes, host_bytes, device_bytes)"
    " VALUES ('00000000-0000-4000-8000-000000000003', 3, x'00', 'k', '/k.zkey', 2, 'done', 5, 6, 1, 2,"
    " 'hostA', '', 4, 100, 0);"
    "INSERT INTO cuzk_inputs (job_id, body) VALUES ('00000000-0000-4000-8000-000000000001', 'wtn1');"
    "INSERT INTO cuzk_results (job_id, attempt, proof, public_json, verified, created_at)"
    " VALUES ('00000000-0000-4000-8000-000000000003', 1, '{}', '[]', 1, 6);";

static int sq_user_version(void)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *s = NULL;
    int v = -1;
    assert_int_equal(sqlite3_open(where, &db), SQLITE_OK);
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* A journal written before content ids (version 0) opens and keeps
 * working: its witness references become content ids without a hash
 * ("" -> inline:, "<id>.wtns" -> spool:, where the file stays), the stored
 * witness and the finished job's result are still there, its jobs run;
 * reopening changes nothing; a journal newer than the build is refused. */
static void test_sqlite_migration(void **state)
{
    (void)state;
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(where, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, OLD_SCHEMA_V0, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(sq_user_version(), 0);
    const char *ids[3] = {"00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002",
                          "00000000-0000-4000-8000-000000000003"};
    for (int round = 0; round < 2; round++) { /* the migration, then a plain reopen */
        eng_queue *q = qopen();
        assert_int_equal(sq_user_version(), 1);
        cuzk_error err = {0};
        eng_job j;
        const char *want[3] = {"inline:", "spool:", "inline:"};
        for (int i = 0; i < 3; i++) {
            assert_int_equal(q->ops->get(q, ids[i], &j, &err), CUZK_OK);
            assert_string_equal(j.witness, want[i]);
        }
        void *body = NULL;
        size_t len = 0;
        assert_int_equal(q->ops->input(q, ids[0], &body, &len, &err), CUZK_OK);
        assert_int_equal(len, 4);
        assert_memory_equal(body, "wtn1", 4);
        free(body);
        char *proof = NULL, *pub = NULL;
        assert_int_equal(q->ops->result(q, ids[2], &proof, &pub, &err), CUZK_OK);
        assert_string_equal(proof, "{}");
        free(proof);
        free(pub);
        eng_live_input *live = NULL;
        size_t n = 0;
        assert_int_equal(q->ops->live_inputs(q, &live, &n, &err), CUZK_OK);
        assert_int_equal(n, 1); /* the spool job: its host keeps <id>.wtns for it */
        assert_string_equal(live[0].id, ids[1]);
        assert_string_equal(live[0].witness, "spool:");
        free(live);
        if (round == 1) { /* the old jobs run as any other */
            eng_job out;
            int fenced = 1;
            claim_head(q, ids[0], "hostA", &out);
            assert_int_equal(q->ops->complete(q, ids[0], out.attempt, "hostA", "{\"p\":1}", "[]", 50,
                                              &fenced, &err),
                             CUZK_OK);
            assert_false(fenced);
            claim_head(q, ids[1], "hostA", &out);
            assert_string_equal(out.witness, "spool:");
        }
        q->ops->close(q);
    }
    assert_int_equal(sqlite3_open(where, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    eng_queue *q = NULL;
    cuzk_error err = {0};
    assert_int_equal(eng_queue_sqlite.open(&q, where, NULL, &err), CUZK_ERR_UNSUPPORTED);
    printf("newer journal: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "version 99"));
    assert_null(q);
}

int main(int argc, char **argv)
{
    PG = argc > 1 && !strcmp(argv[1], "postgresql");
    if (argc > 1 && !PG && strcmp(argv[1], "sqlite")) {
        fprintf(stderr, "usage: %s [sqlite|postgresql]\n", argv[0]);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_queue_contract, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_sync, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_claim_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_concurrent_claims, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_leases, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_idempotency, setup, teardown),
        cmocka_unit_test(test_queue_redact),
    };
    const struct CMUnitTest pg_tests[] = {
        cmocka_unit_test_setup_teardown(test_pg_reconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pg_affinity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pg_hosts_and_skip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pg_notify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pg_down_at_open, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pg_schema_version, setup, teardown),
    };
    const struct CMUnitTest sqlite_tests[] = {
        cmocka_unit_test_setup_teardown(test_sqlite_migration, setup, teardown),
    };
    if (!PG)
        return cmocka_run_group_tests_name("queue on sqlite", tests, NULL, NULL) +
               cmocka_run_group_tests_name("sqlite only", sqlite_tests, NULL, NULL);
    OPS = &eng_queue_postgres;
    if (pgfx_start())
        return 1; /* said why: never a silent pass */
    int rc = cmocka_run_group_tests_name("queue on postgresql", tests, NULL, NULL);
    rc += cmocka_run_group_tests_name("postgresql only", pg_tests, NULL, NULL);
    pgfx_stop();
    return rc;
}
