/* cuzk bench prove: single-proof latency and steady-state throughput of a
 * prover (CPU or GPU) on one key and witness, with W concurrent workers, and
 * the per-phase split. Every proof is verified (the library's default). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/gpu.h"


int cmd_bench_prove(int argc, char **argv);

static const char USAGE[] =
    "Usage: cuzk bench prove [--gpu[=D]] [--gpu-mem SIZE] [--workers LIST] [--proofs N] <zkey> <wtns>\n"
    "  Loads the key once per worker count, proves one warm-up proof, then\n"
    "  3 single proofs (latency: median) and N proofs by W threads at once\n"
    "  (throughput: wall time / N), each verified. Prints one row per W with the\n"
    "  per-phase mean (ms per proof) and the key's planned device peak.\n"
    "  --workers LIST  comma-separated worker counts (default 1,2)\n"
    "  --proofs N      proofs per throughput run (default 4 x W)\n";

static cuzk_status fail_with(cuzk_error *err, cuzk_status st, const char *msg)
{
    err->code = st;
    snprintf(err->msg, sizeof err->msg, "%s", msg);
    return st;
}

typedef struct {
    pthread_mutex_t mu;
    double ms[CUZK_PHASE_COUNT];
    unsigned n[CUZK_PHASE_COUNT];
} phase_sums;

static void on_timing(void *user, cuzk_phase ph, double s)
{
    phase_sums *p = user;
    if ((unsigned)ph >= CUZK_PHASE_COUNT)
        return;
    pthread_mutex_lock(&p->mu);
    p->ms[ph] += s * 1e3;
    p->n[ph]++;
    pthread_mutex_unlock(&p->mu);
}

typedef struct {
    const cuzk_key *key;
    const cuzk_witness *w;
    cuzk_pool *pool;
    phase_sums *sums;
    int proofs;
    cuzk_status st;
    cuzk_error err;
} worker;

static void *worker_main(void *arg)
{
    worker *wk = arg;
    cuzk_ctx *ctx = NULL;
    cuzk_ctx_opts co = {.pool = wk->pool, .timing = wk->sums ? on_timing : NULL, .user = wk->sums};
    if ((wk->st = cuzk_ctx_create(&ctx, &co, &wk->err)))
        return NULL;
    for (int i = 0; i < wk->proofs && !wk->st; i++) {
        cuzk_proof *p = NULL;
        wk->st = cuzk_prove(ctx, wk->key, wk->w, NULL, &p, &wk->err);
        cuzk_proof_free(p);
    }
    cuzk_ctx_free(ctx);
    return NULL;
}

/* `proofs` proofs split over `threads` threads; wall seconds. */
static cuzk_status run(const cuzk_key *key, const cuzk_witness *w, cuzk_pool *pool, phase_sums *sums, int threads,
                       int proofs, double *secs, cuzk_error *err)
{
    worker wk[64];
    pthread_t th[64];
    double t0 = cli_now();
    for (int t = 0; t < threads; t++) {
        wk[t] = (worker){key, w, pool, sums, proofs / threads + (t < proofs % threads), CUZK_OK, {0}};
        if (pthread_create(&th[t], NULL, worker_main, &wk[t]))
            return fail_with(err, CUZK_ERR_NOMEM, "bench: cannot start a thread");
    }
    for (int t = 0; t < threads; t++)
        pthread_join(th[t], NULL);
    *secs = cli_now() - t0;
    for (int t = 0; t < threads; t++)
        if (wk[t].st) {
            *err = wk[t].err;
            return wk[t].st;
        }
    return CUZK_OK;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int cmd_bench_prove(int argc, char **argv)
{
    const char *gpu_mem = NULL, *workers = NULL, *proofs = NULL;
    cuzk_key_opts ko = {.backend = CUZK_BACKEND_CPU};
    /* --gpu[=D] */
    int out = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gpu") && strncmp(argv[i], "--gpu=", 6)) {
            argv[out++] = argv[i];
            continue;
        }
        ko.backend = CUZK_BACKEND_GPU;
        if (argv[i][5] == '=')
            ko.device = atoi(argv[i] + 6);
    }
    argc = out;
    const cli_opt opts[] = {
        {"gpu-mem", 0, 1, &gpu_mem, NULL},
        {"workers", 0, 1, &workers, NULL},
        {"proofs", 0, 1, &proofs, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    cli_common common;
    const char *pos[2];
    int r = cli_parse_exact(argc, argv, opts, &common, pos, 2, "bench prove", USAGE);
    if (r >= 0)
        return r;
    if (gpu_mem) {
        size_t b;
        if (cli_parse_size(gpu_mem, &b))
            return cli_usage_error(USAGE, "--gpu-mem must be " CLI_SIZE_HELP ", got '%s'", gpu_mem);
        ko.device_budget = b;
    }
    if (ko.backend == CUZK_BACKEND_GPU && cuzk_gpu_device_count() <= ko.device) {
        fprintf(stderr, "Error: --gpu: no CUDA device %d\n", ko.device);
        return CUZK_ERR_GPU;
    }
    int wl[16], nw = 0;
    for (const char *s = workers ? workers : "1,2"; *s && nw < 16;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 64 || (*end && *end != ','))
            return cli_usage_error(USAGE, "--workers takes counts from 1 to 64 separated by commas, got '%s'",
                                   workers);
        wl[nw++] = (int)v;
        s = *end ? end + 1 : end;
    }
    long nproofs = proofs ? strtol(proofs, NULL, 10) : 0;
    if (proofs && (nproofs < 1 || nproofs > 100000))
        return cli_usage_error(USAGE, "--proofs takes a count from 1 to 100000, got '%s'", proofs);
    cuzk_error err = {0};
    cuzk_pool *pool = cuzk_pool_create(common.threads);
    cuzk_ctx *ctx = NULL;
    cuzk_witness *w = NULL;
    cuzk_status st = pool ? CUZK_OK : fail_with(&err, CUZK_ERR_NOMEM, "bench: cannot start the thread pool");
    cuzk_ctx_opts co = {.pool = pool};
    if (!st)
        st = cuzk_ctx_create(&ctx, &co, &err);
    if (!st)
        st = cuzk_witness_load(&w, pos[1], &err);
    printf("%-4s %12s %14s %10s  %s\n", "W", "latency_ms", "s_per_proof", "plan_GiB", "per-phase ms per proof (throughput run)");
    for (int k = 0; k < nw && !st; k++) {
        cuzk_key *key = NULL;
        ko.gpu_workers = (unsigned)wl[k];
        if ((st = cuzk_key_load(&key, ctx, pos[0], &ko, &err)))
            break;
        cuzk_key_info info;
        cuzk_key_get_info(key, &info);
        double secs, lat[3];
        st = run(key, w, pool, NULL, 1, 1, &secs, &err); /* warm-up */
        for (int i = 0; i < 3 && !st; i++)
            st = run(key, w, pool, NULL, 1, 1, &lat[i], &err);
        phase_sums sums;
        memset(&sums, 0, sizeof sums);
        pthread_mutex_init(&sums.mu, NULL);
        int n = nproofs ? (int)nproofs : 4 * wl[k];
        if (!st)
            st = run(key, w, pool, &sums, wl[k], n, &secs, &err);
        if (!st) {
            qsort(lat, 3, sizeof lat[0], cmp_d);
            printf("%-4d %12.1f %14.4f %10.2f ", wl[k], lat[1] * 1e3, secs / n,
                   (double)info.device_bytes / (double)(1u << 30));
            for (int ph = 0; ph < CUZK_PHASE_COUNT; ph++)
                if (sums.n[ph])
                    printf(" %s=%.1f", cuzk_phase_name((cuzk_phase)ph), sums.ms[ph] / n);
            printf("\n");
            fflush(stdout);
        }
        pthread_mutex_destroy(&sums.mu);
        cuzk_key_free(key);
    }
    cuzk_witness_free(w);
    cuzk_ctx_free(ctx);
    cuzk_pool_destroy(pool);
    if (st)
        return cli_fail(&err);
    return 0;
}
