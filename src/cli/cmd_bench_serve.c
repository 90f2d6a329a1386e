/* cuzk bench serve: a load test against a daemon. C client threads each
 * submit, long-poll and fetch proofs until N jobs are done; prints throughput,
 * latency percentiles, queue wait, the daemon's per-phase means over the run,
 * and the client-side overhead per job (latency minus queue wait and proving
 * time). Optional: mixed priorities, cancelling every K-th job, the proofs
 * written to a directory, a Chrome trace of the run (one lane per daemon
 * worker, one per client thread). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cJSON.h>

/* Not only public headers: the engine, HTTP server and client are static
 * libraries of the cuzk executable (src/engine, src/server, src/client),
 * deliberately outside libcuzk and its public API, so that libcuzk needs no
 * SQLite, libmicrohttpd or libcurl; util/ supplies the clock and allocation
 * helpers they share. */
#include "cli.h"
#include "cli_remote.h"
#include "util/common.h"
#include "util/trace.h"

static const char USAGE[] =
    "Usage: cuzk bench serve [options] --key <circuit.zkey | KEY_ID> --witness <w.wtns>\n"
    "\n"
    "Load test of a running daemon: -c client threads submit -n jobs (witness sent in\n"
    "each request), wait for each and fetch its proof. Prints throughput, latency\n"
    "p50/p90/p99, queue wait, the daemon's per-phase means and the per-job overhead.\n"
    "\n"
    "  --url URL          daemon (default $CUZK_URL or http://127.0.0.1:9820)\n"
    "  --token TOKEN      bearer token (default $CUZK_TOKEN; a flag shows in ps)\n"
    "  --token-file FILE  bearer token from this file's first line\n"
    "  -n N               jobs (default 100)\n"
    "  -c C               concurrent clients (default 4)\n"
    "  --priority P       critical|high|normal|low, or 'mixed' (cycles through all four)\n"
    "  --cancel-every K   cancel every K-th job right after submitting it\n"
    "  --out DIR          write each proof as DIR/<i>.proof.json and DIR/<i>.public.json\n"
    "  --trace FILE       write a Chrome trace (chrome://tracing, Perfetto) of the run\n"
    "  --warmup W         jobs run (and not counted) before the measurement (default 0)\n"
    "Exit code 0 when every job ended as expected (done, or cancelled when asked),\n"
    "11 otherwise (a job failed or was lost).\n";

typedef struct job_rec {
    char id[64];
    char state[16];
    int worker, cancel_asked, ok;
    double t_submit, t_done;      /* client wall clock, s since the epoch */
    double queue_wait_s, prove_s;
    long long started_ms, finished_ms;
} job_rec;

typedef struct bench {
    const char *url, *token, *key, *out;
    char *witness;
    size_t wlen;
    const char *priority;
    int n, cancel_every;
    atomic_int next;
    job_rec *jobs;
    atomic_int errors;
} bench;

static double wall(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec * 1e-6;
}

static const char *prios[] = {"critical", "high", "normal", "low"};

static void *client_thread(void *arg)
{
    bench *b = arg;
    cuzk_client *c;
    cuzk_error err = {0};
    if (remote_open(&c, b->url, b->token, &err)) {
        fprintf(stderr, "Error: %s\n", err.msg);
        atomic_fetch_add(&b->errors, 1);
        return NULL;
    }
    char keybuf[4096];
    cuzk_client_submit req = {.witness = b->witness, .witness_len = b->wlen};
    if (access(b->key, R_OK) == 0 && realpath(b->key, keybuf))
        req.key_path = keybuf;
    else
        req.key_id = b->key;
    for (int i; (i = atomic_fetch_add(&b->next, 1)) < b->n;) {
        job_rec *j = &b->jobs[i];
        char idem[64];
        random_token(idem, sizeof idem);
        req.idempotency_key = idem;
        req.priority = b->priority && !strcmp(b->priority, "mixed") ? prios[i % 4] : b->priority;
        cuzk_client_job job;
        j->t_submit = wall();
        cuzk_error e = {0};
        if (cuzk_client_submit_job(c, &req, &job, &e)) {
            fprintf(stderr, "job %d: submit: %s\n", i, e.msg);
            atomic_fetch_add(&b->errors, 1);
            continue;
        }
        snprintf(j->id, sizeof j->id, "%s", job.id);
        if (b->cancel_every > 0 && i % b->cancel_every == b->cancel_every - 1) {
            j->cancel_asked = 1;
            if (cuzk_client_cancel(c, job.id, NULL, &e))
                fprintf(stderr, "job %d (%s): cancel: %s\n", i, job.id, e.msg);
        }
        if (cuzk_client_await(c, job.id, -1, &job, &e)) {
            fprintf(stderr, "job %d (%s): await: %s\n", i, j->id, e.msg);
            atomic_fetch_add(&b->errors, 1);
            continue;
        }
        if (!strcmp(job.state, "done")) {
            char *proof, *pub;
            if (cuzk_client_get_proof(c, job.id, &proof, &pub, &e)) {
                fprintf(stderr, "job %d (%s): proof: %s\n", i, j->id, e.msg);
                atomic_fetch_add(&b->errors, 1);
                continue;
            }
            if (b->out) {
                char p1[4096], p2[4096];
                snprintf(p1, sizeof p1, "%s/%d.proof.json", b->out, i);
                snprintf(p2, sizeof p2, "%s/%d.public.json", b->out, i);
                FILE *f1 = fopen(p1, "w"), *f2 = fopen(p2, "w");
                if (!f1 || !f2 || fputs(proof, f1) < 0 || fputs(pub, f2) < 0)
                    atomic_fetch_add(&b->errors, 1);
                if (f1)
                    fclose(f1);
                if (f2)
                    fclose(f2);
            }
            free(proof);
            free(pub);
        }
        j->t_done = wall();
        snprintf(j->state, sizeof j->state, "%s", job.state);
        j->worker = job.worker;
        j->queue_wait_s = job.queue_wait_s;
        j->prove_s = job.prove_s;
        j->started_ms = job.started_ms;
        j->finished_ms = job.finished_ms;
        j->ok = !strcmp(job.state, "done") || (j->cancel_asked && !strcmp(job.state, "cancelled"));
        if (!j->ok)
            fprintf(stderr, "job %d (%s): %s: %s\n", i, j->id, job.state, job.error);
    }
    cuzk_client_free(c);
    return NULL;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const double *sorted, int n, double p)
{
    if (n <= 0)
        return 0;
    int i = (int)ceil(p / 100.0 * n) - 1;
    return sorted[i < 0 ? 0 : (i >= n ? n - 1 : i)];
}

/* The daemon's per-phase totals (name -> count, seconds) from /v1/status. */
static cJSON *get_phases(const char *url, const char *token)
{
    cuzk_client *c;
    cuzk_error err = {0};
    if (remote_open(&c, url, token, &err))
        return NULL;
    long status;
    char *body;
    cJSON *phases = NULL;
    if (!cuzk_client_call(c, "GET", "/v1/status", NULL, NULL, 0, &status, &body, NULL, &err)) {
        cJSON *j = cJSON_Parse(body);
        phases = cJSON_DetachItemFromObject(j, "phases");
        cJSON_Delete(j);
        free(body);
    }
    cuzk_client_free(c);
    return phases;
}

static int run_jobs(bench *b, int threads)
{
    pthread_t *th = calloc((size_t)threads, sizeof *th);
    if (!th)
        return -1;
    int started = 0;
    for (int t = 0; t < threads; t++)
        if (!pthread_create(&th[t], NULL, client_thread, b))
            started++;
        else
            break;
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    free(th);
    return started;
}

int cmd_bench_serve(int argc, char **argv)
{
    const char *key = NULL, *wit = NULL, *n_s = NULL, *c_s = NULL, *prio = NULL;
    const char *cancel_s = NULL, *out = NULL, *trace_path = NULL, *warm_s = NULL;
    const cli_opt opts[] = {
        {"key", 0, 1, &key, NULL},
        {"witness", 0, 1, &wit, NULL},       {"jobs", 'n', 1, &n_s, NULL},    {"clients", 'c', 1, &c_s, NULL},
        {"priority", 0, 1, &prio, NULL},     {"cancel-every", 0, 1, &cancel_s, NULL},
        {"out", 0, 1, &out, NULL},           {"trace", 0, 1, &trace_path, NULL},
        {"warmup", 0, 1, &warm_s, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    remote_conn conn;
    cli_common common;
    const char *pos[1];
    int npos;
    int r = remote_parse(argc, argv, opts, &conn, &common, pos, 1, &npos, USAGE);
    if (r >= 0)
        return r;
    const char *url = conn.url, *token = conn.token;
    if (npos != 0 || !key || !wit)
        return cli_usage_error(USAGE, "bench serve needs --key and --witness");
    int n = n_s ? atoi(n_s) : 100, threads = c_s ? atoi(c_s) : 4, cancel_every = cancel_s ? atoi(cancel_s) : 0;
    int warm = warm_s ? atoi(warm_s) : 0;
    if (n < 1 || n > 10000000 || threads < 1 || threads > 4096 || cancel_every < 0 || warm < 0) {
        fprintf(stderr, "Error: -n must be >= 1, -c 1..4096, --cancel-every and --warmup >= 0\n");
        return 1;
    }
    if (prio && strcmp(prio, "mixed") && strcmp(prio, "critical") && strcmp(prio, "high") &&
        strcmp(prio, "normal") && strcmp(prio, "low")) {
        fprintf(stderr, "Error: --priority must be critical, high, normal, low or mixed, got '%s'\n", prio);
        return 1;
    }
    if (out && mkdir(out, 0755) && access(out, W_OK)) {
        fprintf(stderr, "Error: %s: cannot create the output directory\n", out);
        return CUZK_ERR_IO;
    }
    bench b = {.url = url, .token = token, .key = key, .priority = prio, .cancel_every = cancel_every};
    cuzk_error err = {0};
    if (read_file_all(wit, &b.witness, &b.wlen, &err))
        return cli_fail(&err);
    if (warm) { /* loads the key, warms the caches; not measured */
        b.n = warm;
        b.jobs = calloc((size_t)warm, sizeof *b.jobs);
        run_jobs(&b, threads < warm ? threads : warm);
        free(b.jobs);
        atomic_store(&b.next, 0);
        atomic_store(&b.errors, 0);
    }
    b.n = n;
    b.out = out;
    b.jobs = calloc((size_t)n, sizeof *b.jobs);
    if (!b.jobs) {
        free(b.witness);
        fprintf(stderr, "Error: out of memory\n");
        return CUZK_ERR_NOMEM;
    }
    cJSON *ph0 = get_phases(url, token);
    double t0 = wall();
    if (run_jobs(&b, threads) < 1) {
        fprintf(stderr, "Error: cannot start client threads\n");
        return CUZK_ERR_INTERNAL;
    }
    double t1 = wall();
    cJSON *ph1 = get_phases(url, token);

    int done = 0, cancelled = 0, failed = 0, lost = 0, bad = 0;
    double *lat = calloc((size_t)n, sizeof *lat), *qw = calloc((size_t)n, sizeof *qw);
    double sum_prove = 0, sum_over = 0, sum_qw = 0;
    for (int i = 0; i < n; i++) {
        job_rec *j = &b.jobs[i];
        if (!j->state[0]) {
            lost++;
            continue;
        }
        bad += !j->ok;
        if (!strcmp(j->state, "cancelled")) {
            cancelled++;
            continue;
        }
        if (strcmp(j->state, "done")) {
            failed++;
            continue;
        }
        double l = j->t_done - j->t_submit;
        lat[done] = l;
        qw[done] = j->queue_wait_s;
        sum_prove += j->prove_s;
        sum_qw += j->queue_wait_s;
        sum_over += l - j->queue_wait_s - j->prove_s;
        done++;
    }
    qsort(lat, (size_t)done, sizeof *lat, cmp_d);
    qsort(qw, (size_t)done, sizeof *qw, cmp_d);
    double el = t1 - t0;
    printf("jobs %d: done %d, cancelled %d, failed %d, lost %d, in %.3f s with %d clients\n", n, done, cancelled,
           failed, lost, el, threads);
    printf("throughput %.2f proofs/s\n", done / el);
    if (done) {
        printf("latency ms: p50 %.2f  p90 %.2f  p99 %.2f  max %.2f\n", pct(lat, done, 50) * 1e3,
               pct(lat, done, 90) * 1e3, pct(lat, done, 99) * 1e3, lat[done - 1] * 1e3);
        printf("queue wait ms: mean %.2f  p50 %.2f  p99 %.2f\n", sum_qw / done * 1e3, pct(qw, done, 50) * 1e3,
               pct(qw, done, 99) * 1e3);
        printf("prove ms (daemon): mean %.3f\n", sum_prove / done * 1e3);
        printf("overhead ms per job (latency - queue wait - prove): mean %.3f\n", sum_over / done * 1e3);
    }
    if (ph1) {
        printf("phases (daemon, mean ms over this run):");
        cJSON *p;
        cJSON_ArrayForEach(p, ph1) {
            const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(p, "name"));
            double cnt = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "count"));
            double tot = cJSON_GetNumberValue(cJSON_GetObjectItem(p, "total_s"));
            cJSON *q;
            cJSON_ArrayForEach(q, ph0) {
                if (name && !strcmp(name, cJSON_GetStringValue(cJSON_GetObjectItem(q, "name")))) {
                    cnt -= cJSON_GetNumberValue(cJSON_GetObjectItem(q, "count"));
                    tot -= cJSON_GetNumberValue(cJSON_GetObjectItem(q, "total_s"));
                }
            }
            if (name && cnt > 0)
                printf(" %s=%.3f", name, tot / cnt * 1e3);
        }
        printf("\n");
    }
    cJSON_Delete(ph0);
    cJSON_Delete(ph1);

    int rc = (bad || lost || atomic_load(&b.errors)) ? REMOTE_EXIT_REFUSED : 0;
    if (trace_path) {
        cuzk_trace *t;
        if (cuzk_trace_open(&t, trace_path, &err)) {
            rc = cli_fail(&err);
        } else {
            cuzk_trace_name_process(t, 1, "daemon workers");
            cuzk_trace_name_process(t, 2, "clients");
            for (int i = 0; i < n; i++) {
                job_rec *j = &b.jobs[i];
                if (!j->state[0])
                    continue;
                const char *args[] = {"job", j->id, "state", j->state};
                double us0 = t0 * 1e6;
                cuzk_trace_complete(t, "job", "client", 2, i % threads, j->t_submit * 1e6 - us0,
                                    (j->t_done - j->t_submit) * 1e6, args, 2);
                if (j->started_ms && j->finished_ms)
                    cuzk_trace_complete(t, "prove", "worker", 1, j->worker, (double)j->started_ms * 1e3 - us0,
                                        (double)(j->finished_ms - j->started_ms) * 1e3, args, 2);
            }
            if (cuzk_trace_close(t, &err))
                rc = cli_fail(&err);
            else
                printf("trace: %s\n", trace_path);
        }
    }
    free(lat);
    free(qw);
    free(b.jobs);
    free(b.witness);
    return rc;
}
