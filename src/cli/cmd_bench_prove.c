/* cuzk bench prove: single-proof latency and steady-state throughput of a
 * prover (CPU or GPU) on one key and witness, with W concurrent workers, and
 * the per-phase split. Every proof is verified (the library's default). The
 * key and witness come from files, or (--porep) are the PoRep-shaped circuit
 * made in memory (cuzk_porep_make). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/gpu_plan.h"

#include "cli.h"
#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "groth16/insecure.h" /* the INSECURE setups: not in the public headers */


int cmd_bench_prove(int argc, char **argv);

static const char USAGE[] =
    "Usage: cuzk bench prove [--gpu[=D]] [--gpu-mem SIZE] [--host-mem SIZE] [--no-msm-copies] [--workers LIST]\n"
    "                        [--stage-bases auto|yes|no] [--proofs N] [--trace FILE] <zkey> <wtns>\n"
    "       cuzk bench prove --porep [--scale LG] [--curve C] [--seed S] [--porep-cache DIR] [--gpu[=D]]\n"
    "                        [--gpu-mem SIZE] [--host-mem SIZE] [--no-msm-copies] [--workers LIST] [--proofs N]\n"
    "                        [--stage-bases auto|yes|no] [--trace FILE]\n"
    "  Loads the key once per worker count, proves one warm-up proof, then\n"
    "  3 single proofs (latency: median; with --porep for the first W only)\n"
    "  and N proofs by W threads at once\n"
    "  (throughput: wall time / N), each verified. One row per W:\n"
    "    latency_ms, s_per_proof\n"
    "    kernels_ms  GPU: the single proof's device phases (abc, ntt, the five\n"
    "                MSMs up to the read-back of their sums) timed by CUDA events,\n"
    "                summed: its kernels run alone (median of the 3 proofs)\n"
    "    lat/kern    latency over kernels_ms\n"
    "    busy        GPU: the union of the compute streams' device intervals over\n"
    "                the throughput run's kernel window (first kernel start to last\n"
    "                kernel end)\n"
    "    plan_GiB, peak_GiB  GPU: the memory plan's peak and the measured one\n"
    "    tier        GPU: the plan's tier (1..7)\n"
    "    hplan_GiB   the host plan's peak (anonymous + page-locked; cuzk plan)\n"
    "    host_GiB    the measured host peak: the largest of the process's\n"
    "                anonymous resident size sampled every 10 ms and VmHWM less\n"
    "                its file-backed and shared pages at the row's end (page-locked\n"
    "                buffers of the CUDA driver may not show there: see sys)\n"
    "    sys_GiB     MemAvailable at start less its least sampled value: all the\n"
    "                host memory taken meanwhile, page-locked buffers included\n"
    "                (with --porep both count from the key made: its making's\n"
    "                own peak is printed on the line before the table)\n"
    "  then the per-phase means of the throughput run (ms per proof; host wall\n"
    "  times, and gpu.* device times).\n"
    "  --no-msm-copies GPU: no precomputed copies of the H MSM's bases (by default\n"
    "                  the plan gives them the memory its tier leaves when the key is\n"
    "                  resident, as `cuzk serve --msm-copies true`; made at key load)\n"
    CLI_STAGE_BASES_HELP
    "  --host-mem SIZE host memory the key and its proofs may use (anonymous +\n"
    "                  page-locked), a cap on MemAvailable (or the cgroup's\n"
    "                  room); the GPU tier is the first whose device and host\n"
    "                  plans fit, a worker count that fits none is lowered (a\n"
    "                  warning line) and nothing fitting is exit 6 before the key\n"
    "                  is loaded. A zkey file is used in its mapping\n"
    "  --workers LIST  comma-separated worker counts (default 1,2)\n"
    "  --proofs N      proofs per throughput run (default 4 x W)\n"
    "  --trace FILE    Chrome trace-event timeline (Perfetto) of every run, a lane\n"
    "                  group per run: host phases per worker, device work per stream\n"
    "  --porep         no files: a circuit with the shape of a Filecoin PoRep partition\n"
    "                  (130,278,869 constraints, 328 inputs, domain 2^27), its witness and an\n"
    "                  INSECURE dev key, made in memory once for all worker counts (the key's\n"
    "                  points on the GPU with --gpu); prints the shape and the time to make them.\n"
    "                  Made in memory, the full size needs ~110 GiB of host memory\n"
    "  --porep-cache DIR  write the key and witness once to DIR (the full size:\n"
    "                  a 95 GB zkey and a 4.2 GB witness; see cuzk plan --porep\n"
    "                  --porep-cache for its host plan) and use them from there,\n"
    "                  the key mapped from its file; later runs skip the making\n"
    "  --scale LG      domain 2^LG, the same shape scaled (10..27, default 27)\n"
    "  --curve C       bls12381 (default) or bn128\n"
    "  --seed S        circuit and witness seed (default: random)\n";

/* Host memory measured while a row runs: the process's anonymous resident
 * size (sampled, and VmHWM less file-backed and shared pages at the end)
 * and the system's MemAvailable (its least value). */
typedef struct {
    pthread_t th;
    pthread_mutex_t mu;
    int stop, started;
    unsigned long long anon_max_kb, avail0_kb, avail_min_kb;
} host_sampler;

static unsigned long long proc_kb(const char *file, const char *key)
{
    FILE *f = fopen(file, "r");
    char line[256];
    unsigned long long v = 0;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':') {
            v = strtoull(line + n + 1, NULL, 10);
            break;
        }
    if (f)
        fclose(f);
    return v;
}

static void sample_once(host_sampler *h)
{
    unsigned long long a = proc_kb("/proc/self/status", "RssAnon"), m = proc_kb("/proc/meminfo", "MemAvailable");
    pthread_mutex_lock(&h->mu);
    if (a > h->anon_max_kb)
        h->anon_max_kb = a;
    if (m && m < h->avail_min_kb)
        h->avail_min_kb = m;
    pthread_mutex_unlock(&h->mu);
}

static void *sampler_main(void *arg)
{
    host_sampler *h = arg;
    for (;;) {
        pthread_mutex_lock(&h->mu);
        int stop = h->stop;
        pthread_mutex_unlock(&h->mu);
        if (stop)
            return NULL;
        sample_once(h);
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static void sampler_start(host_sampler *h)
{
    memset(h, 0, sizeof *h);
    pthread_mutex_init(&h->mu, NULL);
    h->avail0_kb = h->avail_min_kb = proc_kb("/proc/meminfo", "MemAvailable");
    h->started = pthread_create(&h->th, NULL, sampler_main, h) == 0;
}

static void sampler_stop(host_sampler *h)
{
    if (h->started) {
        pthread_mutex_lock(&h->mu);
        h->stop = 1;
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->th, NULL);
    }
    pthread_mutex_destroy(&h->mu);
}

/* After the PoRep-shaped key is made (a setup step with its own peak,
 * checked by preplan): the peaks start again from what is resident now, so
 * the rows measure the proofs against their plan. VmHWM is reset through
 * clear_refs (5); where the kernel refuses, the rows' VmHWM still holds the
 * making's peak and *hwm_reset says so. */
static void sampler_rebase(host_sampler *h, int *hwm_reset)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    *hwm_reset = f && fputs("5", f) >= 0;
    if (f && fclose(f) != 0)
        *hwm_reset = 0;
    unsigned long long a = proc_kb("/proc/self/status", "RssAnon"), m = proc_kb("/proc/meminfo", "MemAvailable");
    pthread_mutex_lock(&h->mu);
    h->anon_max_kb = a;
    if (m)
        h->avail_min_kb = m;
    pthread_mutex_unlock(&h->mu);
}

/* The process's anonymous peak so far and the MemAvailable drop, GiB. */
static void sampler_read(host_sampler *h, double *anon_gib, double *sys_gib)
{
    sample_once(h);
    unsigned long long hwm = proc_kb("/proc/self/status", "VmHWM"), file = proc_kb("/proc/self/status", "RssFile"),
                       shm = proc_kb("/proc/self/status", "RssShmem");
    unsigned long long a = hwm > file + shm ? hwm - file - shm : 0;
    if (h->anon_max_kb > a)
        a = h->anon_max_kb;
    *anon_gib = (double)a / (1024.0 * 1024.0);
    *sys_gib = (double)(h->avail0_kb - h->avail_min_kb) / (1024.0 * 1024.0);
}

static cuzk_status fail_with(cuzk_error *err, cuzk_status st, const char *msg);

/* The plans before anything is made or loaded: the GPU tier and workers
 * (device and host), or the CPU's host plan; the worker list clamped to what
 * fits (a warning line), nothing fitting: the error (exit 6). *hplan: the
 * host plan's peak for the largest count kept. */
static cuzk_status preplan(int porep, const char *scale, const char *curve, const char *seed, const char *cache,
                           const char *zkey, const cuzk_key_opts *ko, int *wl, int nw, double *hplan, cuzk_error *err)
{
    cuzk_gpu_key_shape shape;
    cuzk_status st = porep ? cuzk_porep_key_shape(curve ? cuzk_curve_from_name(curve) : CUZK_CURVE_NONE,
                                                  scale ? (unsigned)strtoul(scale, NULL, 10) : 27, &shape, err)
                           : cuzk_gpu_key_shape_read(zkey, &shape, err);
    if (st)
        return st;
    int wmax = 1;
    for (int k = 0; k < nw; k++)
        wmax = wl[k] > wmax ? wl[k] : wmax;
    const int mapped = !porep || cache;
    unsigned fit = (unsigned)wmax;
    const char *what = NULL;
    size_t key_data = 0;
    char line[256];
    if (ko->backend == CUZK_BACKEND_GPU) {
        cuzk_gpu_plan_opts po = {.budget = (size_t)ko->device_budget, .device = ko->device,
                                 .workers = (unsigned)wmax, .msm_copies = ko->gpu_msm_copies,
                                 .stage_bases = ko->gpu_stage_bases};
        po.host.budget = (size_t)ko->host_budget;
        po.host.key_mapped = mapped;
        cuzk_gpu_plan p;
        if ((st = cuzk_gpu_plan_proof(&shape, &po, &p, err)))
            return st;
        fit = p.workers;
        key_data = p.host.key_data;
        *hplan = (double)p.host.peak / (double)(1u << 30);
        snprintf(line, sizeof line, "plan: tier %u, %u worker%s: device %.2f of %.2f GiB, host %.2f of %.2f GiB (key %s)",
                 p.tier, p.workers, p.workers == 1 ? "" : "s", (double)p.peak / (1u << 30), (double)p.budget / (1u << 30),
                 (double)p.host.peak / (1u << 30), (double)p.host.budget / (1u << 30), mapped ? "mapped" : "held");
        what = "the GPU plans";
    } else {
        cuzk_host_plan_opts ho = {.budget = (size_t)ko->host_budget, .key_mapped = mapped};
        cuzk_host_plan h;
        cuzk_error e1 = {0};
        while ((st = cuzk_host_plan_cpu(&shape, fit, &ho, &h, fit == (unsigned)wmax ? err : &e1)) && fit > 1)
            fit--;
        if (st)
            return st;
        key_data = h.key_data;
        *hplan = (double)h.peak / (double)(1u << 30);
        snprintf(line, sizeof line, "plan: CPU, %u worker%s: host %.2f of %.2f GiB (key %s)", fit, fit == 1 ? "" : "s",
                 (double)h.peak / (1u << 30), (double)h.budget / (1u << 30), mapped ? "mapped" : "held");
        what = "the host plan";
    }
    /* --porep made in memory (no cache, or not yet in it): the whole key, the
     * witness and the setup's u, v, w scalars at once (porep_impl.h) */
    char zc[4200];
    snprintf(zc, sizeof zc, "%s/porep-2^%u-%s-s%s.zkey", cache ? cache : ".", shape.log_domain,
             cuzk_curve_name(shape.curve), seed && strtoull(seed, NULL, 10) ? seed : "1");
    if (porep && (!cache || access(zc, R_OK) != 0)) {
        const double make = (double)key_data + 4.0 * (double)shape.n_vars * 32 + (double)(1u << 30);
        double avail = (double)cuzk_host_mem_budget();
        if (ko->host_budget && (double)ko->host_budget < avail)
            avail = (double)ko->host_budget;
        if (make > avail) {
            char msg[512];
            snprintf(msg, sizeof msg,
                     "bench: making the PoRep-shaped key of 2^%u in memory needs %.2f GiB of host memory at once (the "
                     "key, its witness, the setup's scalars); %.2f GiB %s",
                     shape.log_domain, make / (double)(1u << 30), avail / (double)(1u << 30),
                     ko->host_budget && (double)ko->host_budget <= avail ? "is the cap" : "are available");
            return fail_with(err, CUZK_ERR_NOMEM, msg);
        }
    }
    if (fit < (unsigned)wmax) {
        fprintf(stderr, "Warning: %u workers do not fit %s; %u do\n", (unsigned)wmax, what, fit);
        for (int k = 0; k < nw; k++)
            if (wl[k] > (int)fit)
                wl[k] = (int)fit;
    }
    printf("%s\n", line);
    fflush(stdout);
    return CUZK_OK;
}

static cuzk_status fail_with(cuzk_error *err, cuzk_status st, const char *msg)
{
    err->code = st;
    snprintf(err->msg, sizeof err->msg, "%s", msg);
    return st;
}

/* What the workers of one run report (their contexts' callbacks). */
typedef struct {
    pthread_mutex_t mu;
    double ms[CUZK_PHASE_COUNT];    /* host wall ms per phase, summed */
    unsigned n[CUZK_PHASE_COUNT];
    double dev_ms[CUZK_PHASE_COUNT]; /* device (compute stream) ms per phase, summed */
    double *iv;                     /* compute intervals: start, end pairs */
    size_t niv, cap;
    cli_tracer *trace;
} run_stats;

typedef struct {
    run_stats *rs;
    int index;
} worker_ref;

static void on_timing(void *user, cuzk_phase ph, double s)
{
    run_stats *p = ((worker_ref *)user)->rs;
    if ((unsigned)ph >= CUZK_PHASE_COUNT)
        return;
    pthread_mutex_lock(&p->mu);
    p->ms[ph] += s * 1e3;
    p->n[ph]++;
    pthread_mutex_unlock(&p->mu);
}

static void on_span(void *user, const cuzk_span *sp)
{
    worker_ref *w = user;
    run_stats *p = w->rs;
    cli_tracer_span(p->trace, w->index, sp);
    if (sp->device < 0 || sp->stream != 0 || (unsigned)sp->phase >= CUZK_PHASE_COUNT)
        return;
    pthread_mutex_lock(&p->mu);
    p->dev_ms[sp->phase] += (sp->end - sp->start) * 1e3;
    if (p->niv == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        double *iv = realloc(p->iv, cap * 2 * sizeof *iv);
        if (iv) {
            p->iv = iv;
            p->cap = cap;
        }
    }
    if (p->niv < p->cap) {
        p->iv[2 * p->niv] = sp->start;
        p->iv[2 * p->niv + 1] = sp->end;
        p->niv++;
    }
    pthread_mutex_unlock(&p->mu);
}

static void stats_init(run_stats *p, cli_tracer *trace)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    p->trace = trace;
}

static void stats_free(run_stats *p)
{
    pthread_mutex_destroy(&p->mu);
    free(p->iv);
}

static int cmp_iv(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Union of the compute intervals over [first start, last end]; 0 without any. */
static double busy_fraction(run_stats *p)
{
    if (!p->niv)
        return 0;
    qsort(p->iv, p->niv, 2 * sizeof *p->iv, cmp_iv);
    double lo = p->iv[0], hi = p->iv[1], covered = 0, end = p->iv[1];
    for (size_t i = 0; i < p->niv; i++) {
        double s = p->iv[2 * i], e = p->iv[2 * i + 1];
        if (s > hi) {
            covered += hi - lo;
            lo = s;
            hi = e;
        } else if (e > hi) {
            hi = e;
        }
        if (e > end)
            end = e;
    }
    covered += hi - lo;
    double win = end - p->iv[0];
    return win > 0 ? covered / win : 0;
}

static double dev_total(const run_stats *p)
{
    double t = 0;
    for (int ph = 0; ph < CUZK_PHASE_COUNT; ph++)
        t += p->dev_ms[ph];
    return t;
}

typedef struct {
    const cuzk_key *key;
    const cuzk_witness *w;
    cuzk_pool *pool;
    worker_ref ref;
    int proofs;
    cuzk_status st;
    cuzk_error err;
} worker;

/* A cancel poll as a daemon's job has one (it changes how the GPU prover
 * waits for its device work); it never cancels. */
static int never_cancelled(void *user)
{
    (void)user;
    return 0;
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    cuzk_ctx *ctx = NULL;
    cuzk_ctx_opts co = {.pool = wk->pool, .timing = on_timing, .span = on_span, .cancelled = never_cancelled,
                        .user = &wk->ref};
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

/* `proofs` proofs split over `threads` threads, reporting to rs; wall seconds. */
static cuzk_status run(const cuzk_key *key, const cuzk_witness *w, cuzk_pool *pool, run_stats *rs, int threads,
                       int proofs, double *secs, cuzk_error *err)
{
    worker wk[64];
    pthread_t th[64];
    double t0 = cli_now();
    int started = 0;
    cuzk_status st = CUZK_OK;
    for (int t = 0; t < threads; t++) {
        wk[t] = (worker){key, w, pool, {rs, t}, proofs / threads + (t < proofs % threads), CUZK_OK, {0}};
        if (pthread_create(&th[t], NULL, worker_main, &wk[t])) {
            st = fail_with(err, CUZK_ERR_NOMEM, "bench: cannot start a thread");
            break;
        }
        started++;
    }
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    *secs = cli_now() - t0;
    for (int t = 0; t < started && !st; t++)
        if (wk[t].st) {
            *err = wk[t].err;
            st = wk[t].st;
        }
    return st;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

/* The PoRep-shaped key and witness (--porep): made once, with room for the
 * largest worker count; prints the shape and what making them took. */
static cuzk_status make_porep(cuzk_ctx *ctx, const char *scale, const char *curve, const char *seed,
                              const char *cache, const cuzk_key_opts *ko, cuzk_key **key, cuzk_witness **w,
                              cuzk_error *err)
{
    cuzk_porep_opts po = {0};
    po.cache_dir = cache;
    po.curve = cuzk_curve_from_name(curve ? curve : "bls12381");
    po.log_domain = scale ? (unsigned)strtoul(scale, NULL, 10) : 27;
    po.seed = seed ? strtoull(seed, NULL, 10) : 0;
    po.gpu_setup = ko->backend == CUZK_BACKEND_GPU;
    po.device = ko->device;
    cuzk_porep_info in;
    double t0 = cli_now(), c0 = cpu_seconds();
    cuzk_status st = cuzk_porep_make(ctx, &po, ko, key, w, &in, err);
    if (st)
        return st;
    double wall = cli_now() - t0, cpu = cpu_seconds() - c0;
    if (in.from_cache) {
        printf("porep 2^%u %s: %llu wires (%u public) from the cache %s, the key mapped from its file: "
               "%.1f s wall\n",
               in.log_domain, cuzk_curve_name(po.curve), (unsigned long long)in.n_vars, in.n_public, cache, wall);
        fflush(stdout);
        return CUZK_OK;
    }
    const double m = (double)in.constraints;
    const uint64_t n_aux = in.n_vars - in.n_public - 1;
    printf("porep 2^%u %s: %llu constraints + %u public inputs, %llu wires; terms a row A %.2f B %.2f C %.2f; "
           "private wires in B %.1f %%; witness 0/1 %.1f %%\n",
           in.log_domain, cuzk_curve_name(po.curve), (unsigned long long)in.constraints, in.n_public,
           (unsigned long long)in.n_vars, (double)in.nnz[0] / m, (double)in.nnz[1] / m, (double)in.nnz[2] / m,
           100.0 * (double)in.b_private / (double)n_aux, 100.0 * (double)in.bits / (double)n_aux);
    printf("porep key + witness: %.1f s wall (circuit and scalars %.1f s, points on the %s %.1f s, prepare %.1f s), "
           "%.1f s CPU\n",
           wall, in.circuit_seconds, po.gpu_setup ? "GPU" : "CPU", in.points_seconds,
           wall - in.circuit_seconds - in.points_seconds, cpu);
    fflush(stdout);
    return CUZK_OK;
}

int cmd_bench_prove(int argc, char **argv)
{
    const char *gpu_mem = NULL, *workers = NULL, *proofs = NULL, *trace = NULL, *scale = NULL, *curve = NULL,
               *seed = NULL, *host_mem = NULL, *cache = NULL, *stage = NULL;
    int porep = 0, no_copies = 0;
    cuzk_key_opts ko = {.backend = CUZK_BACKEND_CPU};
    int on_gpu = 0;
    const char *gpu_s = NULL;
    const cli_opt opts[] = {
        {"gpu", 0, CLI_OPTIONAL, &gpu_s, NULL},
        {"gpu-mem", 0, 1, &gpu_mem, NULL},
        {"workers", 0, 1, &workers, NULL},
        {"proofs", 0, 1, &proofs, NULL},
        {"trace", 0, 1, &trace, NULL},
        {"porep", 0, 0, NULL, &porep},
        {"no-msm-copies", 0, 0, NULL, &no_copies},
        {"scale", 0, 1, &scale, NULL},
        {"curve", 0, 1, &curve, NULL},
        {"seed", 0, 1, &seed, NULL},
        {"host-mem", 0, 1, &host_mem, NULL},
        {"porep-cache", 0, 1, &cache, NULL},
        {"stage-bases", 0, 1, &stage, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    cli_common common;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    int r = cli_parse(argc, argv, opts, &common, pos, 2, &npos, USAGE);
    if (r)
        return r == 2 ? 0 : r;
    if (cli_gpu_arg(gpu_s, 0, &on_gpu, &ko.device, USAGE))
        return 1;
    if (on_gpu)
        ko.backend = CUZK_BACKEND_GPU;
    if (npos != (porep ? 0 : 2))
        return cli_usage_error(USAGE, porep ? "--porep takes no files" : "expected <zkey> <wtns>");
    if (!porep && (scale || curve || seed || cache))
        return cli_usage_error(USAGE, "--scale, --curve, --seed and --porep-cache go with --porep");
    if (host_mem) {
        size_t b;
        if (cli_parse_size(host_mem, &b) || !b)
            return cli_usage_error(USAGE, "--host-mem must be " CLI_SIZE_HELP ", got '%s'", host_mem);
        ko.host_budget = b;
    }
    ko.map_in_place = 1; /* a zkey file is used in its mapping */
    if (scale) {
        char *end;
        unsigned long v = strtoul(scale, &end, 10);
        if (*end || end == scale || v < 10 || v > 27)
            return cli_usage_error(USAGE, "--scale takes 10..27 (domain 2^LG), got '%s'", scale);
    }
    if (curve && cuzk_curve_from_name(curve) == CUZK_CURVE_NONE)
        return cli_usage_error(USAGE, "unknown curve '%s' (use bls12381 or bn128)", curve);
    if (seed) {
        char *end;
        strtoull(seed, &end, 10);
        if (*end || end == seed)
            return cli_usage_error(USAGE, "--seed takes a decimal number, got '%s'", seed);
    }
    if (gpu_mem) {
        size_t b;
        if (cli_parse_size(gpu_mem, &b))
            return cli_usage_error(USAGE, "--gpu-mem must be " CLI_SIZE_HELP ", got '%s'", gpu_mem);
        ko.device_budget = b;
    }
    ko.gpu_msm_copies = !no_copies;
    if (cli_parse_stage_bases(stage, &ko.gpu_stage_bases, USAGE))
        return 1;
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
    double hplan = 0;
    if (preplan(porep, scale, curve, seed, cache, pos[0], &ko, wl, nw, &hplan, &err))
        return cli_fail(&err);
    cli_tracer *tr = NULL;
    if (trace && cli_tracer_open(&tr, trace, &err))
        return cli_fail(&err);
    host_sampler hs;
    sampler_start(&hs);
    cuzk_pool *pool = cuzk_pool_create(common.threads);
    cuzk_ctx *ctx = NULL;
    cuzk_witness *w = NULL;
    cuzk_status st = pool ? CUZK_OK : fail_with(&err, CUZK_ERR_NOMEM, "bench: cannot start the thread pool");
    cuzk_ctx_opts co = {.pool = pool};
    if (!st)
        st = cuzk_ctx_create(&ctx, &co, &err);
    int wmax = 1;
    for (int k = 0; k < nw; k++)
        wmax = wl[k] > wmax ? wl[k] : wmax;
    cuzk_key *pkey = NULL; /* --porep: one key for every worker count */
    if (!st && porep) { /* its own context: progress bar, -v timing lines, Ctrl-C */
        cuzk_ctx *mctx = NULL;
        ko.gpu_workers = (unsigned)wmax;
        if (!(st = cli_make_ctx(&mctx, &common, &err)))
            st = make_porep(mctx, scale, curve, seed, cache, &ko, &pkey, &w, &err);
        cuzk_ctx_free(mctx);
        cli_progress_done();
        if (!st) { /* the making's peak, then the rows' peaks from here */
            double ha, hsys;
            int reset;
            sampler_read(&hs, &ha, &hsys);
            sampler_rebase(&hs, &reset);
            printf("porep key + witness: host peak %.2f GiB while making them (system %.2f GiB)%s\n", ha, hsys,
                   reset ? "" : "; VmHWM could not be reset, so host_GiB below includes it");
            fflush(stdout);
        }
    } else if (!st) {
        st = cuzk_witness_load(&w, pos[1], &err);
    }
    printf("%-4s %11s %12s %11s %9s %6s %9s %9s %4s %9s %8s %7s  %s\n", "W", "latency_ms", "s_per_proof", "kernels_ms",
           "lat/kern", "busy", "plan_GiB", "peak_GiB", "tier", "hplan_GiB", "host_GiB", "sys_GiB",
           "per-phase ms per proof (throughput run)");
    for (int k = 0; k < nw && !st; k++) {
        cuzk_key *key = pkey;
        ko.gpu_workers = (unsigned)wl[k];
        if (!key && (st = cuzk_key_load(&key, ctx, pos[0], &ko, &err)))
            break;
        char label[64];
        double secs, lat[3] = {0, 0, 0}, kern[3] = {0, 0, 0};
        /* warm-up and latency; with --porep once (the key is the same for every W) */
        const int single = !(pkey && k > 0);
        if (single) {
            run_stats warm;
            stats_init(&warm, NULL);
            st = run(key, w, pool, &warm, 1, 1, &secs, &err);
            stats_free(&warm);
        }
        for (int i = 0; i < 3 && !st && single; i++) {
            run_stats one;
            snprintf(label, sizeof label, "W=%d single proof %d", wl[k], i + 1);
            cli_tracer_section(tr, label);
            stats_init(&one, tr);
            st = run(key, w, pool, &one, 1, 1, &lat[i], &err);
            kern[i] = dev_total(&one);
            stats_free(&one);
        }
        run_stats sums;
        snprintf(label, sizeof label, "W=%d throughput", wl[k]);
        cli_tracer_section(tr, label);
        stats_init(&sums, tr);
        int n = nproofs ? (int)nproofs : 4 * wl[k];
        if (!st)
            st = run(key, w, pool, &sums, wl[k], n, &secs, &err);
        if (!st) {
            cuzk_key_info info;
            cuzk_key_get_info(key, &info);
            const int gpu = info.backend == CUZK_BACKEND_GPU;
            qsort(lat, 3, sizeof lat[0], cmp_d);
            qsort(kern, 3, sizeof kern[0], cmp_d);
            char kc[16] = "-", rc[16] = "-", bc[16] = "-", pc[16] = "-", mc[16] = "-";
            char lc[16] = "-";
            if (single)
                snprintf(lc, sizeof lc, "%.1f", lat[1] * 1e3);
            if (gpu && single) {
                snprintf(kc, sizeof kc, "%.1f", kern[1]);
                if (kern[1] > 0)
                    snprintf(rc, sizeof rc, "%.2f", lat[1] * 1e3 / kern[1]);
            }
            if (gpu) {
                snprintf(bc, sizeof bc, "%.0f%%", 100 * busy_fraction(&sums));
                snprintf(pc, sizeof pc, "%.2f", (double)info.device_bytes / (double)(1u << 30));
                snprintf(mc, sizeof mc, "%.2f", (double)info.device_peak / (double)(1u << 30));
            }
            char tc[8] = "-";
            if (gpu)
                snprintf(tc, sizeof tc, "%u", info.gpu_tier);
            double hp = gpu ? (double)info.host_plan / (double)(1u << 30) : hplan, ha, hsys;
            sampler_read(&hs, &ha, &hsys);
            printf("%-4d %11s %12.4f %11s %9s %6s %9s %9s %4s %9.2f %8.2f %7.2f ", wl[k], lc, secs / n, kc, rc, bc, pc,
                   mc, tc, hp, ha, hsys);
            for (int ph = 0; ph < CUZK_PHASE_COUNT; ph++)
                if (sums.n[ph])
                    printf(" %s=%.1f", cuzk_phase_name((cuzk_phase)ph), sums.ms[ph] / n);
            for (int ph = 0; ph < CUZK_PHASE_COUNT; ph++)
                if (sums.dev_ms[ph] > 0)
                    printf(" gpu.%s=%.1f", cuzk_phase_name((cuzk_phase)ph), sums.dev_ms[ph] / n);
            printf("\n");
            fflush(stdout);
        }
        stats_free(&sums);
        if (key != pkey)
            cuzk_key_free(key);
    }
    sampler_stop(&hs);
    cuzk_key_free(pkey);
    cuzk_witness_free(w);
    cuzk_ctx_free(ctx);
    cuzk_pool_destroy(pool);
    cuzk_error terr = {0};
    cuzk_status tst = cli_tracer_close(tr, &terr);
    if (st)
        return cli_fail(&err);
    if (tst)
        return cli_fail(&terr);
    if (trace)
        printf("trace: %s\n", trace);
    return 0;
}
