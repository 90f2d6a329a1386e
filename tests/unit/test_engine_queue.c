/* The job queue interface (src/engine/queue.h) on its SQLite backend, with
 * no engine around it: the contract a PostgreSQL backend must meet too.
 * Order (priority, then FIFO), claim once, (id, attempt, owner) fencing of
 * complete / finish, requeue up to max_attempts, cancel of queued and
 * running jobs, idempotency lookups, rescue at start, expiry with results and
 * stored witnesses, everything surviving a close and reopen, and group
 * commit (sync flushes what was committed, once, whoever asks). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/queue.h"

#include "fixture_util.h"

static char path[300];

static int setup(void **state)
{
    (void)state;
    fx_setup("queue");
    snprintf(path, sizeof path, "%s/journal.db", fx_tmpdir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return fx_teardown();
}

static eng_queue *qopen(void)
{
    eng_queue *q = NULL;
    cuzk_error err = {0};
    assert_int_equal(eng_queue_sqlite.open(&q, path, &err), CUZK_OK);
    return q;
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
        if (st || !mark || s->q->ops->sync(s->q, mark, &err))
            s->failures++;
    }
    return NULL;
}

/* Group commit: a mark after every commit, sync flushes up to it once (a
 * second sync of a covered mark does not flush), and concurrent submitters
 * each get a durable commit from at most one flush each. */
static void test_queue_sync(void **state)
{
    (void)state;
    eng_queue *q = qopen();
    cuzk_error err = {0};
    uint64_t m0 = q->ops->mark(q), f0 = q->ops->flushes(q);
    eng_job j = mkjob("s-1", 2, 1000);
    submit(q, &j, "wtns");
    uint64_t m1 = q->ops->mark(q);
    assert_true(m1 > m0); /* WAL journal: commits wait for sync to be durable */
    assert_int_equal(q->ops->sync(q, m1, &err), CUZK_OK);
    assert_int_equal(q->ops->flushes(q), f0 + 1);
    assert_int_equal(q->ops->sync(q, m1, &err), CUZK_OK); /* already durable */
    assert_int_equal(q->ops->sync(q, m0, &err), CUZK_OK);
    assert_int_equal(q->ops->flushes(q), f0 + 1);
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
    uint64_t flushed = q->ops->flushes(q) - (f0 + 1);
    assert_true(flushed >= 1 && flushed <= T * N);
    assert_int_equal(q->ops->mark(q), m1 + T * N);
    uint64_t fb = q->ops->flushes(q);
    assert_int_equal(q->ops->sync(q, q->ops->mark(q), &err), CUZK_OK); /* all covered */
    assert_int_equal(q->ops->flushes(q), fb);
    printf("group commit: %d concurrent commits, %llu flushes\n", T * N, (unsigned long long)flushed);
    q->ops->close(q);

    q = qopen(); /* every acknowledged job is there */
    uint64_t queued[CUZK_PRIO_COUNT], running = 0, bytes = 0;
    assert_int_equal(q->ops->stats(q, queued, &running, &bytes, &err), CUZK_OK);
    assert_int_equal(queued[0] + queued[1] + queued[2] + queued[3], T * N + 1);
    q->ops->close(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_queue_contract, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_sync, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
