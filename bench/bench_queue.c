/* The job queue's own cost (src/engine/queue.h), SQLite against PostgreSQL:
 *
 *   bench_queue sqlite|postgresql|postgresql-nofsync [jobs] [claimers]
 *
 * 1. per job, one handle: what the engine does for one job with a small
 *    witness stored in the queue (submit + sync, peek, claim, input,
 *    complete + sync, get, result) — the queue's overhead per job;
 * 2. claim latency: `claimers` threads, each on its own handle (connection,
 *    as separate hosts are), drain `jobs` queued jobs with claim_next +
 *    complete; p50 / p99 / max of the claim call, and claims per second;
 * 3. claim latency at depth: `jobs` + 1000 jobs of one priority (normal)
 *    queued, the claimers take 1000 of them, so every claim sees between
 *    `jobs` and `jobs` + 1000 queued; p50 / p99 / max of the claim call.
 * "postgresql" starts a throwaway cluster (tests/unit/pg_fixture.h: Unix
 * socket; fsync and synchronous commits on, so both sides pay for durable
 * commits; "postgresql-nofsync": fsync off, the CPU and round-trip cost
 * alone); "sqlite" uses a file in /tmp (WAL, fdatasync on sync).
 * PostgreSQL handles run as the daemon's defaults do: notifications on
 * (every submit and end sends one), key affinity on (5 s) with the key
 * published as resident on every host, so peeks and claims pay for the
 * affinity test. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/queue.h"
#include "pg_fixture.h"

static const eng_queue_ops *OPS;
static char WHERE[400];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void die(const char *what, const cuzk_error *err)
{
    fprintf(stderr, "Error: %s: %s\n", what, err->msg);
    exit(10);
}

static eng_queue *qopen(const char *host)
{
    eng_queue *q = NULL;
    cuzk_error err = {0};
    eng_queue_opts o = {.host = host, .affinity_s = 5, .notify = 1};
    const char *keys[1] = {"k"};
    if (OPS->open(&q, WHERE, &o, &err) || q->ops->publish_keys(q, keys, 1, &err))
        die("open", &err);
    return q;
}

static eng_job mkjob(int i, int prio)
{
    eng_job j;
    memset(&j, 0, sizeof j);
    snprintf(j.id, sizeof j.id, "00000000-0000-4000-8000-%012d", i);
    memset(j.req_sha256, 7, 32);
    snprintf(j.key_id, sizeof j.key_id, "k");
    snprintf(j.key_path, sizeof j.key_path, "/k.zkey");
    j.priority = prio;
    j.enqueued_ms = 1000 + i;
    j.max_attempts = 3;
    j.input_bytes = 1024;
    return j;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct claimer {
    eng_queue *q;
    char host[16];
    double *lat;
    int n, cap;
    atomic_int *budget; /* claims left to all claimers; NULL = until the queue is empty */
} claimer;

static void *claim_thread(void *arg)
{
    claimer *c = arg;
    for (;;) {
        if (c->budget && atomic_fetch_sub(c->budget, 1) <= 0)
            break;
        eng_job j;
        int claimed = 0, fenced = 0;
        cuzk_error err = {0};
        double t0 = now_s();
        if (c->q->ops->claim_next(c->q, c->host, 0, -1, 5000, &j, &claimed, &err))
            die("claim", &err);
        double dt = now_s() - t0;
        if (!claimed)
            break;
        if (c->n < c->cap)
            c->lat[c->n++] = dt;
        if (c->q->ops->complete(c->q, j.id, j.attempt, c->host, "{}", "[]", 6000, &fenced, &err) ||
            fenced)
            die("complete", &err);
    }
    return NULL;
}

/* T claimers on their own handles claim up to cap jobs (all, or *budget of
 * them); prints the claim latencies; returns the number claimed. */
static int claim_round(const char *name, int T, int cap, atomic_int *budget, const char *what)
{
    claimer c[64];
    pthread_t th[64];
    for (int t = 0; t < T; t++) {
        memset(&c[t], 0, sizeof c[t]);
        snprintf(c[t].host, sizeof c[t].host, "host%d", t);
        c[t].q = qopen(c[t].host);
        c[t].cap = cap;
        c[t].lat = malloc((size_t)cap * sizeof(double));
        c[t].budget = budget;
    }
    double t0 = now_s();
    for (int t = 0; t < T; t++)
        pthread_create(&th[t], NULL, claim_thread, &c[t]);
    double *all = malloc((size_t)cap * sizeof(double));
    int n = 0;
    for (int t = 0; t < T; t++) {
        pthread_join(th[t], NULL);
        memcpy(all + n, c[t].lat, (size_t)c[t].n * sizeof(double));
        n += c[t].n;
        free(c[t].lat);
        c[t].q->ops->close(c[t].q);
    }
    double wall = now_s() - t0;
    if (!n) {
        free(all);
        return 0;
    }
    qsort(all, (size_t)n, sizeof *all, cmp_d);
    printf("%s: %d claimers %s %d jobs (claim_next + complete): %.0f jobs/s;"
           " claim latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
           name, T, what, n, n / wall, 1e3 * all[n / 2], 1e3 * all[(int)(0.99 * (n - 1))],
           1e3 * all[n - 1]);
    free(all);
    return n;
}

int main(int argc, char **argv)
{
    int pg = argc > 1 && !strncmp(argv[1], "postgresql", 10);
    if (argc < 2 || (strcmp(argv[1], "sqlite") && strcmp(argv[1], "postgresql") &&
                     strcmp(argv[1], "postgresql-nofsync"))) {
        fprintf(stderr, "usage: %s sqlite|postgresql|postgresql-nofsync [jobs] [claimers]\n", argv[0]);
        return 1;
    }
    int jobs = argc > 2 ? atoi(argv[2]) : 2000, T = argc > 3 ? atoi(argv[3]) : 3;
    if (jobs < 1 || T < 1 || T > 64)
        return 1;
    char tmp[] = "/tmp/cuzk-bench-queue-XXXXXX";
    if (pg) {
        OPS = &eng_queue_postgres;
        pgfx_fsync = !strcmp(argv[1], "postgresql");
        if (pgfx_start())
            return 2;
        snprintf(WHERE, sizeof WHERE, "%s", pgfx_conninfo("postgres"));
    } else {
        OPS = &eng_queue_sqlite;
        if (!mkdtemp(tmp))
            return 2;
        snprintf(WHERE, sizeof WHERE, "%s/journal.db", tmp);
    }
    cuzk_error err = {0};
    char body[1024];
    memset(body, 'w', sizeof body);

    /* 1. the engine's calls for one job, one at a time */
    eng_queue *q = qopen("hostA");
    int n1 = jobs < 1000 ? jobs : 1000;
    double t0 = now_s();
    for (int i = 0; i < n1; i++) {
        eng_job j = mkjob(i, i % 4), out, head;
        int existed, found, claimed, fenced;
        void *b;
        size_t len;
        char *proof, *pub;
        if (q->ops->submit(q, &j, body, sizeof body, &out, &existed, &err) ||
            q->ops->sync(q, q->ops->mark(q), &err) || q->ops->peek(q, &head, &found, &err) || !found ||
            q->ops->claim(q, head.id, "hostA", 0, -1, 2000, &out, &claimed, &err) || !claimed ||
            q->ops->input(q, head.id, &b, &len, &err))
            die("job", &err);
        free(b);
        if (q->ops->complete(q, head.id, out.attempt, "hostA", "{\"pi_a\":[]}", "[\"1\"]", 3000,
                             &fenced, &err) ||
            fenced || q->ops->sync(q, q->ops->mark(q), &err) || q->ops->get(q, head.id, &out, &err) ||
            q->ops->result(q, head.id, &proof, &pub, &err))
            die("job", &err);
        free(proof);
        free(pub);
    }
    double per_job = (now_s() - t0) / n1;
    const char *name = argv[1];
    printf("%s: per job (submit+sync, peek, claim, input, complete+sync, get, result): %.3f ms"
           " (%d jobs, 1 KiB witness in the queue)\n",
           name, 1e3 * per_job, n1);
    eng_job *gone = NULL;
    size_t ng = 0;
    while (!q->ops->expire(q, 1LL << 60, 10000, &gone, &ng, &err) && ng) /* empty it */
        free(gone);
    free(gone);

    /* 2. claim latency with T claimers on their own handles */
    for (int i = 0; i < jobs; i++) {
        eng_job j = mkjob(100000 + i, i % 4), out;
        int existed;
        if (q->ops->submit(q, &j, NULL, 0, &out, &existed, &err))
            die("submit", &err);
    }
    q->ops->sync(q, q->ops->mark(q), &err);
    int n = claim_round(name, T, jobs, NULL, "drained");

    /* 3. claim latency with jobs .. jobs + 1000 queued */
    int extra = 1000;
    for (int i = 0; i < jobs + extra; i++) {
        eng_job j = mkjob(200000 + i, 2), out;
        int existed;
        if (q->ops->submit(q, &j, NULL, 0, &out, &existed, &err))
            die("submit", &err);
    }
    q->ops->sync(q, q->ops->mark(q), &err);
    atomic_int budget = extra;
    char what[64];
    snprintf(what, sizeof what, "with %d..%d queued (normal) claimed", jobs, jobs + extra);
    int n3 = claim_round(name, T, extra, &budget, what);
    q->ops->close(q);
    if (pg)
        pgfx_stop();
    else {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
        if (system(cmd))
            return 2;
    }
    return n == jobs && n3 == extra ? 0 : 10;
}
