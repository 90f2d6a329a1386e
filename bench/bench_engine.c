/* Engine overhead: the same warm-key proofs made back to back by a plain
 * cuzk_prove loop (key loaded once, loading excluded) and through the engine
 * (journal, spool, scheduler, key cache), one worker each, same thread count.
 *
 *   bench_engine circuit.zkey witness.wtns [-n N] [-t THREADS] [--state DIR]
 *
 * Prints the per-proof time of both (median and mean), the engine's
 * throughput, its overhead per job, and the submit latency. Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_stats.h"
#include "cuzk/cuzk.h"
#include "engine/engine.h"

static void die(const char *what, const cuzk_error *e)
{
    fprintf(stderr, "Error: %s: %s\n", what, e->msg);
    exit(1);
}

int main(int argc, char **argv)
{
    const char *zkey = NULL, *wtns = NULL, *state = NULL;
    int n = 20, threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--state") && i + 1 < argc)
            state = argv[++i];
        else if (!zkey)
            zkey = argv[i];
        else if (!wtns)
            wtns = argv[i];
    }
    if (!zkey || !wtns || n < 2) {
        fprintf(stderr, "usage: bench_engine circuit.zkey witness.wtns [-n N>=2] [-t THREADS] "
                        "[--state DIR]\n");
        return 1;
    }
    char tmpl[] = "/tmp/cuzk_bench_engine_XXXXXX";
    if (!state && !(state = mkdtemp(tmpl))) {
        perror("mkdtemp");
        return 1;
    }
    double *t = calloc((size_t)n, sizeof *t);
    cuzk_error e = {0};

    /* Direct: key loaded once, then witness load + prove + JSON per proof. */
    cuzk_pool *pool = cuzk_pool_create(threads);
    cuzk_ctx *ctx;
    cuzk_key *key;
    if (!pool || cuzk_ctx_create(&ctx, &(cuzk_ctx_opts){.pool = pool}, &e))
        die("context", &e);
    if (cuzk_key_load(&key, ctx, zkey, NULL, &e))
        die(zkey, &e);
    for (int i = 0; i < n; i++) {
        double t0 = bench_clock(CLOCK_MONOTONIC);
        cuzk_witness *w;
        cuzk_proof *p;
        char *pj, *pub;
        size_t len;
        if (cuzk_witness_load(&w, wtns, &e) || cuzk_prove(ctx, key, w, NULL, &p, &e) ||
            cuzk_proof_to_json(p, CUZK_JSON_SNARKJS, &pj, &len, &e) ||
            cuzk_proof_public_json(p, CUZK_JSON_SNARKJS, &pub, &len, &e))
            die("prove", &e);
        free(pj);
        free(pub);
        cuzk_proof_free(p);
        cuzk_witness_free(w);
        t[i] = bench_clock(CLOCK_MONOTONIC) - t0;
    }
    double d_mean = bench_mean(t, n), d_med = bench_median(t, n);
    cuzk_key_free(key);
    cuzk_ctx_free(ctx);
    cuzk_pool_destroy(pool);

    /* Engine: key preloaded, n jobs submitted at once, one worker. */
    cuzk_config c;
    cuzk_config_init(&c);
    snprintf(c.state_dir, sizeof c.state_dir, "%s", state);
    snprintf(c.preload, sizeof c.preload, "%s", zkey);
    c.cpu_workers = 1;
    c.threads = threads;
    c.max_queued = n + 1;
    cuzk_engine *eng;
    if (cuzk_engine_open(&eng, &c, NULL, &e))
        die("engine", &e);
    cuzk_job_info *jobs = calloc((size_t)n, sizeof *jobs);
    double *sub = calloc((size_t)n, sizeof *sub);
    double t_start = bench_clock(CLOCK_MONOTONIC);
    for (int i = 0; i < n; i++) {
        cuzk_job_request r = {.key_path = zkey, .witness_path = wtns, .priority = CUZK_PRIO_NORMAL};
        double t0 = bench_clock(CLOCK_MONOTONIC);
        if (cuzk_engine_submit(eng, &r, &jobs[i], NULL, &e))
            die("submit", &e);
        sub[i] = bench_clock(CLOCK_MONOTONIC) - t0;
    }
    for (int i = 0; i < n; i++) {
        cuzk_job_info info;
        if (cuzk_engine_job_wait(eng, jobs[i].id, 3600, &info, &e))
            die("wait", &e);
        if (info.state != CUZK_JOB_DONE) {
            fprintf(stderr, "Error: job %s ended %s: %s\n", info.id,
                    cuzk_job_state_name(info.state), info.error);
            return 1;
        }
        jobs[i] = info;
    }
    double wall = bench_clock(CLOCK_MONOTONIC) - t_start;
    /* Per-job time in the engine: from one job's end to the next one's end
     * (the worker is never idle: all jobs were queued up front). */
    for (int i = 1; i < n; i++)
        t[i - 1] = 1e-3 * (double)(jobs[i].finished_ms - jobs[i - 1].finished_ms);
    double e_mean = bench_mean(t, n - 1), e_med = bench_median(t, n - 1);
    cuzk_engine_close(eng);

    printf("bench_engine: %s, %d proofs, %d threads\n", zkey, n,
           threads > 0 ? threads : (int)sysconf(_SC_NPROCESSORS_ONLN));
    printf("  direct cuzk_prove (warm key):  median %8.2f ms  mean %8.2f ms\n", 1e3 * d_med,
           1e3 * d_mean);
    printf("  through the engine (per job):  median %8.2f ms  mean %8.2f ms  (%.2f proofs/s)\n",
           1e3 * e_med, 1e3 * e_mean, n / wall);
    printf("  engine overhead per job:       median %+8.2f ms  (%+.1f%%)\n", 1e3 * (e_med - d_med),
           100.0 * (e_med - d_med) / d_med);
    printf("  submit latency:                median %8.2f ms  mean %8.2f ms\n",
           1e3 * bench_median(sub, n), 1e3 * bench_mean(sub, n));
    free(t);
    free(sub);
    free(jobs);
    return 0;
}
