/* The proving engine (src/engine), CPU workers even where a GPU is present
 * (the scheduling checks below count on them; the engine's GPU backend is
 * load-tested on the device, bench/bench_daemon.sh -g), with keys made here
 * by the library's generator and development setup on both curves. Every proof the
 * engine returns is checked by the verifier against the exported
 * verification key (independently of the engine's own check). Covered:
 * proofs on both curves, priorities (a critical job behind many normal ones
 * runs next; FIFO within a priority), cancel of queued and running jobs,
 * idempotency keys, bad requests (nothing left in the spool), back-pressure,
 * kill -9 of a child process running the engine then restart (every job done
 * exactly once, read from the journal), drain and restart, retention, key
 * eviction (LRU within the budget, never a key in use), memory flat over
 * many jobs. */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "cuzk/cuzk.h"
#include "cuzk/dev.h"
#include "engine/engine.h"

#include "fixture_util.h"
#include "groth16/insecure.h"

static int n_state; /* state directories handed out (fixtures: in fx_tmpdir) */

typedef struct fixture {
    const char *name;
    const char *curve;
    uint64_t constraints;
    char zkey[320], wtns[320], vk[320];
} fixture;

/* A, B: 2^8 on each curve; C: another BN254 circuit; L: a larger one (memory
 * estimates). Tests that need a job queued or running hold it there with the
 * workers' pause (hold_next), never with a job sized to be slow. */
static fixture FX[] = {
    {"a", "bn254", 256, "", "", ""},
    {"b", "bls12381", 256, "", "", ""},
    {"c", "bn254", 1024, "", "", ""},
    {"l", "bn254", 1u << 15, "", "", ""},
};
enum { A, B, C, L };

static int setup_fixtures(void **state)
{
    (void)state;
    fx_setup("engine");
    cuzk_ctx *ctx;
    cuzk_error e = {0};
    if (cuzk_ctx_create(&ctx, &(cuzk_ctx_opts){.threads = 0}, &e))
        return -1;
    for (size_t i = 0; i < sizeof FX / sizeof FX[0]; i++) {
        fixture *f = &FX[i];
        char r1cs[320];
        snprintf(r1cs, sizeof r1cs, "%s/%s.r1cs", fx_tmpdir, f->name);
        snprintf(f->zkey, sizeof f->zkey, "%s/%s.zkey", fx_tmpdir, f->name);
        snprintf(f->wtns, sizeof f->wtns, "%s/%s.wtns", fx_tmpdir, f->name);
        snprintf(f->vk, sizeof f->vk, "%s/%s.vk.json", fx_tmpdir, f->name);
        cuzk_gen_opts g = {.curve = cuzk_curve_from_name(f->curve), .constraints = f->constraints,
                           .public_inputs = 2, .seed = 1 + i};
        if (cuzk_gen_files(ctx, &g, r1cs, f->wtns, &e) || cuzk_setup_files(ctx, r1cs, f->zkey, &e) ||
            cuzk_export_vk_files(ctx, f->zkey, f->vk, &e)) {
            fprintf(stderr, "fixture %s: %s\n", f->name, e.msg);
            return -1;
        }
    }
    cuzk_ctx_free(ctx);
    return 0;
}

static int teardown_fixtures(void **state)
{
    (void)state;
    return fx_teardown();
}

static void new_state_dir(char *out, size_t cap)
{
    snprintf(out, cap, "%s/state%d", fx_tmpdir, n_state++);
}

static void base_config(cuzk_config *c, const char *dir, int workers)
{
    cuzk_config_init(c);
    snprintf(c->state_dir, sizeof c->state_dir, "%s", dir);
    c->cpu_workers = workers;
    snprintf(c->devices, sizeof c->devices, "none");
    c->threads = 2;
    c->host_memory = 4ull << 30;
    c->retention_s = 3600;
    c->drain_timeout_s = 30;
}

/* base_config over a new state directory (c->state_dir). */
static void fresh_config(cuzk_config *c, int workers)
{
    char dir[300];
    new_state_dir(dir, sizeof dir);
    base_config(c, dir, workers);
}

static cuzk_engine *open_engine(const cuzk_config *c)
{
    cuzk_engine *e = NULL;
    cuzk_error err = {0};
    cuzk_status st = cuzk_engine_open(&e, c, NULL, &err);
    if (st)
        fprintf(stderr, "open: %s\n", err.msg);
    assert_int_equal(st, CUZK_OK);
    return e;
}

static void submit_ok(cuzk_engine *e, int fxi, cuzk_priority prio, const char *idem,
                      cuzk_job_info *out)
{
    cuzk_error err = {0};
    cuzk_job_request r = {.key_path = FX[fxi].zkey, .witness_path = FX[fxi].wtns,
                          .priority = prio, .idempotency_key = idem};
    cuzk_status st = cuzk_engine_submit(e, &r, out, NULL, &err);
    if (st)
        fprintf(stderr, "submit: %s\n", err.msg);
    assert_int_equal(st, CUZK_OK);
}

static void wait_done(cuzk_engine *e, const char *id, cuzk_job_info *out, double timeout)
{
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_job_wait(e, id, timeout, out, &err), CUZK_OK);
    if (!cuzk_job_state_terminal(out->state))
        fail_msg("job %s still %s after %g s", id, cuzk_job_state_name(out->state), timeout);
}

/* With the workers paused: admits the next job and waits until it is held
 * running before its proof (phase "paused"). */
static void hold_next(cuzk_engine *e, const char *id)
{
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_admit(e, 1, &err), CUZK_OK);
    cuzk_job_info info;
    for (int t = 0; t < 6000; t++) {
        assert_int_equal(cuzk_engine_job_get(e, id, &info, &err), CUZK_OK);
        if (info.state == CUZK_JOB_RUNNING && !strcmp(info.phase, "paused"))
            return;
        assert_false(cuzk_job_state_terminal(info.state));
        usleep(5000);
    }
    fail_msg("job %s was not held running (%s, phase %s)", id, cuzk_job_state_name(info.state), info.phase);
}

/* The proof of a done job verifies against the fixture's verification key. */
static void check_proof(cuzk_engine *e, const char *id, int fxi)
{
    char *proof = NULL, *pub = NULL;
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_job_result(e, id, &proof, &pub, &err), CUZK_OK);
    char pp[320], pubp[320];
    snprintf(pp, sizeof pp, "%s/check.proof.json", fx_tmpdir);
    snprintf(pubp, sizeof pubp, "%s/check.public.json", fx_tmpdir);
    FILE *f = fopen(pp, "w");
    fputs(proof, f);
    fclose(f);
    f = fopen(pubp, "w");
    fputs(pub, f);
    fclose(f);
    cuzk_ctx *ctx;
    assert_int_equal(cuzk_ctx_create(&ctx, &(cuzk_ctx_opts){.threads = 1}, &err), CUZK_OK);
    cuzk_status st = cuzk_verify_files(ctx, FX[fxi].vk, pubp, pp, &err);
    if (st)
        fprintf(stderr, "verify %s: %s\n", id, err.msg);
    assert_int_equal(st, CUZK_OK);
    /* and the check can fail: the same proof against another circuit's key */
    int other = fxi == A ? C : A;
    if (FX[other].curve == FX[fxi].curve)
        assert_int_not_equal(cuzk_verify_files(ctx, FX[other].vk, pubp, pp, &err), CUZK_OK);
    cuzk_ctx_free(ctx);
    free(proof);
    free(pub);
}

static int journal_int(const char *dir, const char *sql)
{
    char p[400];
    snprintf(p, sizeof p, "%s/journal.db", dir);
    sqlite3 *db;
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    int v = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
}

/* Witnesses the engine holds: spool files plus those stored in the journal. */
static size_t spool_files(const char *dir)
{
    char p[400];
    snprintf(p, sizeof p, "%s/spool", dir);
    DIR *d = opendir(p);
    size_t n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n + (size_t)journal_int(dir, "SELECT count(*) FROM cuzk_inputs");
}

/* ---- tests ---------------------------------------------------------------- */

static void test_prove_both_curves(void **state)
{
    cuzk_config c;
    fresh_config(&c, 2);
    cuzk_engine *e = open_engine(&c);
    cuzk_job_info ja, jb, info;
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &ja);
    submit_ok(e, B, CUZK_PRIO_NORMAL, NULL, &jb);
    assert_int_equal(strlen(ja.id), CUZK_JOB_ID_LEN);
    assert_string_not_equal(ja.id, jb.id);
    wait_done(e, ja.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    assert_int_equal(info.attempt, 1);
    assert_true(info.finished_ms >= info.started_ms && info.started_ms >= info.submitted_ms);
    check_proof(e, ja.id, A);
    wait_done(e, jb.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    check_proof(e, jb.id, B);

    /* by key id, witness as bytes */
    cuzk_engine_key_info ki;
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_key_register(e, FX[A].zkey, 0, &ki, &err), CUZK_OK);
    assert_int_equal(strlen(ki.id), 64);
    assert_int_equal(ki.curve, CUZK_CURVE_BN254);
    assert_true(ki.resident); /* loaded by the job above */
    assert_true(ki.jobs >= 1);
    FILE *f = fopen(FX[A].wtns, "rb");
    uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cuzk_job_request r = {.key_id = ki.id, .witness = buf, .witness_len = n,
                          .priority = CUZK_PRIO_HIGH};
    assert_int_equal(cuzk_engine_submit(e, &r, &info, NULL, &err), CUZK_OK);
    wait_done(e, info.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    check_proof(e, info.id, A);

    cuzk_engine_snapshot *s;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_int_equal(s->counters.completed, 3);
    assert_int_equal(s->counters.submitted, 3);
    assert_int_equal(s->n_workers, 2);
    assert_int_equal(s->n_timeline, 3);
    assert_int_equal(s->n_keys, 2);
    assert_true(s->n_phases > 0);
    cuzk_engine_snapshot_free(s);
    cuzk_engine_close(e);
    assert_int_equal(spool_files(c.state_dir), 0);
}

static int timeline_index(const cuzk_engine_snapshot *s, const char *id)
{
    for (size_t i = 0; i < s->n_timeline; i++)
        if (!strcmp(s->timeline[i].job_id, id))
            return (int)i;
    return -1;
}

/* One worker: a critical job submitted behind N normal ones runs as soon as
 * the job running at that moment ends; normal jobs keep FIFO order. (The
 * snapshot right after the submit names the running job, so the check holds
 * however fast the machine is.) */
static void test_priorities(void **state)
{
    cuzk_config c;
    fresh_config(&c, 1);
    c.paused = 1; /* everything is queued before the one worker starts */
    cuzk_engine *e = open_engine(&c);
    enum { N = 50 };
    cuzk_job_info normal[N], crit, low, info;
    cuzk_error err = {0};
    submit_ok(e, A, CUZK_PRIO_LOW, NULL, &low);
    for (int i = 0; i < N; i++)
        submit_ok(e, i % 2 ? A : B, CUZK_PRIO_NORMAL, NULL, &normal[i]);
    submit_ok(e, A, CUZK_PRIO_CRITICAL, NULL, &crit);
    assert_int_equal(cuzk_engine_job_get(e, crit.id, &info, &err), CUZK_OK);
    assert_int_equal(info.state, CUZK_JOB_QUEUED);
    assert_int_equal(info.queue_position, 0);
    assert_int_equal(cuzk_engine_job_get(e, low.id, &info, &err), CUZK_OK);
    assert_int_equal(info.queue_position, N + 1);
    cuzk_engine_snapshot *s;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_true(s->paused);
    assert_int_equal(s->running, 0);
    cuzk_engine_snapshot_free(s);
    cuzk_engine_resume(e);
    wait_done(e, low.id, &info, 120);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    check_proof(e, crit.id, A);

    /* Priority first, then FIFO within a priority. */
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_int_equal(s->n_timeline, N + 2);
    assert_int_equal(timeline_index(s, crit.id), 0);
    for (int i = 0; i < N; i++)
        assert_int_equal(timeline_index(s, normal[i].id), i + 1);
    assert_int_equal(timeline_index(s, low.id), N + 1);
    cuzk_engine_snapshot_free(s);
    cuzk_engine_close(e);
}

static void test_cancel(void **state)
{
    cuzk_config c;
    fresh_config(&c, 1);
    c.paused = 1;
    cuzk_engine *e = open_engine(&c);
    cuzk_job_info run, q1, q2, info;
    cuzk_error err = {0};
    submit_ok(e, L, CUZK_PRIO_NORMAL, NULL, &run);
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &q1);
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &q2);
    hold_next(e, run.id);
    /* queued: removed at once, its witness gone */
    assert_int_equal(cuzk_engine_job_cancel(e, q1.id, &info, &err), CUZK_OK);
    assert_int_equal(info.state, CUZK_JOB_CANCELLED);
    assert_int_equal(spool_files(c.state_dir), 2);
    /* running: stops at the next phase boundary */
    assert_int_equal(cuzk_engine_job_cancel(e, run.id, &info, &err), CUZK_OK);
    assert_true(info.cancel_requested);
    wait_done(e, run.id, &info, 30);
    assert_int_equal(info.state, CUZK_JOB_CANCELLED);
    assert_int_equal(info.error_code, CUZK_ERR_CANCELLED);
    char *p, *pub;
    assert_int_equal(cuzk_engine_job_result(e, run.id, &p, &pub, &err), CUZK_ENGINE_CONFLICT);
    /* nothing else ran while paused; once resumed, the next job runs */
    assert_int_equal(cuzk_engine_job_get(e, q2.id, &info, &err), CUZK_OK);
    assert_int_equal(info.state, CUZK_JOB_QUEUED);
    cuzk_engine_resume(e);
    assert_int_equal(cuzk_engine_admit(e, 1, &err), CUZK_ENGINE_CONFLICT); /* not paused */
    wait_done(e, q2.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    check_proof(e, q2.id, A);
    assert_int_equal(cuzk_engine_job_get(e, q1.id, &info, &err), CUZK_OK);
    assert_int_equal(info.state, CUZK_JOB_CANCELLED);
    assert_int_equal(info.started_ms, 0); /* never ran */
    /* cancelling a finished job changes nothing */
    assert_int_equal(cuzk_engine_job_cancel(e, q2.id, &info, &err), CUZK_OK);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    assert_int_equal(cuzk_engine_job_cancel(e, "00000000-0000-4000-8000-000000000000", &info, &err),
                     CUZK_ENGINE_NOT_FOUND);
    cuzk_engine_snapshot *s;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_int_equal(s->counters.cancelled, 2);
    assert_int_equal(s->host_used - s->keys[0].host_bytes - (s->n_keys > 1 ? s->keys[1].host_bytes : 0), 0);
    cuzk_engine_snapshot_free(s);
    cuzk_engine_close(e);
    assert_int_equal(spool_files(c.state_dir), 0);
}

static void test_idempotency(void **state)
{
    cuzk_config c;
    fresh_config(&c, 1);
    cuzk_engine *e = open_engine(&c);
    cuzk_job_info j1, j2, info;
    cuzk_error err = {0};
    int existed = -1;
    cuzk_job_request r = {.key_path = FX[A].zkey, .witness_path = FX[A].wtns,
                          .priority = CUZK_PRIO_NORMAL, .idempotency_key = "porep-f01-42"};
    assert_int_equal(cuzk_engine_submit(e, &r, &j1, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 0);
    assert_int_equal(cuzk_engine_submit(e, &r, &j2, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 1);
    assert_string_equal(j1.id, j2.id);
    /* the same key for another request: conflict */
    cuzk_job_request other = r;
    other.witness_path = FX[C].wtns;
    other.key_path = FX[C].zkey;
    assert_int_equal(cuzk_engine_submit(e, &other, &j2, NULL, &err), CUZK_ENGINE_CONFLICT);
    assert_non_null(strstr(err.msg, "porep-f01-42"));
    wait_done(e, j1.id, &info, 60);
    /* after it finished: still the same job (no second proof) */
    assert_int_equal(cuzk_engine_submit(e, &r, &j2, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 1);
    assert_string_equal(j1.id, j2.id);
    assert_int_equal(j2.state, CUZK_JOB_DONE);
    cuzk_engine_snapshot *s;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_int_equal(s->counters.submitted, 1);
    assert_int_equal(s->counters.completed, 1);
    assert_int_equal(s->counters.deduplicated, 2);
    cuzk_engine_snapshot_free(s);
    cuzk_engine_close(e);
    /* and across a restart */
    e = open_engine(&c);
    assert_int_equal(cuzk_engine_submit(e, &r, &j2, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 1);
    assert_string_equal(j1.id, j2.id);
    cuzk_engine_close(e);
}

/* Reads a whole file (malloc'd). */
static uint8_t *slurp_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

/* Files in the spool whose name starts with ".upload-" (uploads not taken). */
static size_t upload_files(const char *dir)
{
    char p[1100];
    snprintf(p, sizeof p, "%s/spool", dir);
    DIR *d = opendir(p);
    size_t n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)))
        n += !strncmp(de->d_name, ".upload-", 8);
    if (d)
        closedir(d);
    return n;
}

/* Submits data as an upload written in three pieces. */
static cuzk_status submit_upload(cuzk_engine *e, int fxi, const uint8_t *data, size_t len, const char *idem,
                                 cuzk_job_info *out, int *existed, cuzk_error *err)
{
    memset(err, 0, sizeof *err); /* the first error is kept: start afresh */
    cuzk_engine_upload *u;
    assert_int_equal(cuzk_engine_upload_open(e, len, &u, err), CUZK_OK);
    size_t a = len / 3, b = 2 * len / 3;
    assert_int_equal(cuzk_engine_upload_write(u, data, a, err), CUZK_OK);
    assert_int_equal(cuzk_engine_upload_write(u, data + a, b - a, err), CUZK_OK);
    assert_int_equal(cuzk_engine_upload_write(u, data + b, len - b, err), CUZK_OK);
    assert_int_equal(cuzk_engine_upload_bytes(u), len);
    cuzk_job_request r = {.key_path = FX[fxi].zkey, .upload = u, .priority = CUZK_PRIO_NORMAL,
                          .idempotency_key = idem};
    cuzk_status st = cuzk_engine_submit(e, &r, out, existed, err);
    cuzk_engine_upload_free(u);
    return st;
}

/* A witness streamed in pieces (cuzk_engine_upload): a large one becomes the
 * job's spool file, a small one goes to the journal; both prove. The same
 * request by bytes, by path and by upload is one request (idempotency).
 * A bad upload (not a witness, a value >= r, another circuit's) is refused
 * and leaves no file. */
static void test_upload(void **state)
{
    (void)state;
    cuzk_config c;
    fresh_config(&c, 1);
    cuzk_engine *e = open_engine(&c);
    cuzk_error err = {0};
    cuzk_job_info j1, j2, jsmall, info;
    int existed = -1;
    size_t len, slen;
    uint8_t *w = slurp_file(FX[L].wtns, &len), *small = slurp_file(FX[A].wtns, &slen);
    assert_true(len > (1u << 20)); /* larger than what the journal holds: a spool file */
    cuzk_status st = submit_upload(e, L, w, len, "up-1", &j1, &existed, &err);
    if (st)
        fprintf(stderr, "upload: %s\n", err.msg);
    assert_int_equal(st, CUZK_OK);
    assert_int_equal(existed, 0);
    char p[1100];
    snprintf(p, sizeof p, "%s/spool/%s.wtns", c.state_dir, j1.id);
    assert_int_equal(access(p, R_OK), 0);
    assert_int_equal(upload_files(c.state_dir), 0);
    /* the same request by bytes and by path: the same job */
    cuzk_job_request r = {.key_path = FX[L].zkey, .witness = w, .witness_len = len,
                          .priority = CUZK_PRIO_NORMAL, .idempotency_key = "up-1"};
    assert_int_equal(cuzk_engine_submit(e, &r, &j2, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 1);
    assert_string_equal(j1.id, j2.id);
    r.witness = NULL;
    r.witness_path = FX[L].wtns;
    assert_int_equal(cuzk_engine_submit(e, &r, &j2, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 1);
    /* by upload again, another priority: a different request */
    cuzk_engine_upload *u;
    assert_int_equal(cuzk_engine_upload_open(e, len, &u, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_upload_write(u, w, len, &err), CUZK_OK);
    cuzk_job_request hi = {.key_path = FX[L].zkey, .upload = u, .priority = CUZK_PRIO_HIGH,
                           .idempotency_key = "up-1"};
    memset(&err, 0, sizeof err);
    assert_int_equal(cuzk_engine_submit(e, &hi, &j2, &existed, &err), CUZK_ENGINE_CONFLICT);
    cuzk_engine_upload_free(u);
    /* a small witness by upload: in the journal */
    assert_int_equal(submit_upload(e, A, small, slen, NULL, &jsmall, NULL, &err), CUZK_OK);
    /* refused uploads leave nothing */
    size_t held = spool_files(c.state_dir);
    uint8_t junk[4096];
    memset(junk, 'x', sizeof junk);
    assert_int_equal(submit_upload(e, A, junk, sizeof junk, NULL, &j2, NULL, &err), CUZK_ERR_FORMAT);
    w[len - 1] = 0xff; /* the last value >= r (its top byte) */
    assert_int_equal(submit_upload(e, L, w, len, NULL, &j2, NULL, &err), CUZK_ERR_FORMAT);
    assert_non_null(strstr(err.msg, ">= r"));
    assert_int_equal(submit_upload(e, C, small, slen, NULL, &j2, NULL, &err), CUZK_ERR_MISMATCH);
    assert_int_equal(upload_files(c.state_dir), 0);
    assert_int_equal(spool_files(c.state_dir), held);
    wait_done(e, j1.id, &info, 120);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    wait_done(e, jsmall.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    check_proof(e, jsmall.id, A);
    free(w);
    free(small);
    cuzk_engine_close(e);
}

/* Uploads under way count against max_spool_bytes: a second one that would
 * pass it is refused at once (BUSY), and counts no more once freed. */
static void test_upload_spool_limit(void **state)
{
    (void)state;
    cuzk_config c;
    fresh_config(&c, 1);
    c.max_spool_bytes = 3u << 20;
    cuzk_engine *e = open_engine(&c);
    cuzk_error err = {0};
    cuzk_engine_upload *u1, *u2;
    static uint8_t mib[1u << 20];
    assert_int_equal(cuzk_engine_upload_open(e, 2u << 20, &u1, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_upload_write(u1, mib, sizeof mib, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_upload_write(u1, mib, sizeof mib, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_upload_open(e, 2u << 20, &u2, &err), CUZK_ENGINE_BUSY);
    assert_non_null(strstr(err.msg, "max_spool_bytes"));
    cuzk_engine_upload_free(u1);
    memset(&err, 0, sizeof err);
    assert_int_equal(cuzk_engine_upload_open(e, 2u << 20, &u2, &err), CUZK_OK);
    cuzk_engine_upload_free(u2);
    assert_int_equal(upload_files(c.state_dir), 0);
    cuzk_engine_close(e);
}

static void test_bad_requests(void **state)
{
    cuzk_config c;
    fresh_config(&c, 1);
    cuzk_engine *e = open_engine(&c);
    cuzk_job_info info;
    cuzk_error err = {0};
    /* witness of another circuit */
    cuzk_job_request r = {.key_path = FX[A].zkey, .witness_path = FX[C].wtns};
    assert_int_equal(cuzk_engine_submit(e, &r, &info, NULL, &err), CUZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, FX[C].wtns));
    /* witness of the other curve */
    r.witness_path = FX[B].wtns;
    assert_int_equal(cuzk_engine_submit(e, &r, &info, NULL, &err), CUZK_ERR_MISMATCH);
    /* not a witness */
    r.witness_path = NULL;
    r.witness = "not a witness";
    r.witness_len = 13;
    assert_int_not_equal(cuzk_engine_submit(e, &r, &info, NULL, &err), CUZK_OK);
    /* unknown key id, missing files, bad priority, no witness */
    cuzk_job_request r2 = {.key_id = "00ff", .witness_path = FX[A].wtns};
    assert_int_equal(cuzk_engine_submit(e, &r2, &info, NULL, &err), CUZK_ENGINE_NOT_FOUND);
    cuzk_job_request r3 = {.key_path = "/nonexistent.zkey", .witness_path = FX[A].wtns};
    assert_int_equal(cuzk_engine_submit(e, &r3, &info, NULL, &err), CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent.zkey"));
    cuzk_job_request r4 = {.key_path = FX[A].zkey, .witness_path = "/nonexistent.wtns"};
    assert_int_equal(cuzk_engine_submit(e, &r4, &info, NULL, &err), CUZK_ERR_IO);
    cuzk_job_request r5 = {.key_path = FX[A].zkey, .witness_path = FX[A].wtns, .priority = 9};
    assert_int_equal(cuzk_engine_submit(e, &r5, &info, NULL, &err), CUZK_ERR_USAGE);
    cuzk_job_request r6 = {.key_path = FX[A].zkey};
    assert_int_equal(cuzk_engine_submit(e, &r6, &info, NULL, &err), CUZK_ERR_USAGE);
    /* a witness file as the key */
    cuzk_job_request r7 = {.key_path = FX[A].wtns, .witness_path = FX[A].wtns};
    assert_int_not_equal(cuzk_engine_submit(e, &r7, &info, NULL, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_job_get(e, "nope", &info, &err), CUZK_ENGINE_NOT_FOUND);
    assert_int_equal(cuzk_engine_key_evict(e, "nope", &err), CUZK_ENGINE_NOT_FOUND);

    cuzk_engine_snapshot *s;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_int_equal(s->counters.submitted, 0);
    assert_int_equal(s->counters.rejected_invalid, 9);
    assert_int_equal(s->queued[CUZK_PRIO_NORMAL] + s->queued[CUZK_PRIO_CRITICAL], 0);
    cuzk_engine_snapshot_free(s);
    assert_int_equal(spool_files(c.state_dir), 0);
    /* the engine still works */
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &info);
    wait_done(e, info.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    cuzk_engine_close(e);

    /* a second engine on the same state directory is refused */
    e = open_engine(&c);
    cuzk_engine *e2 = NULL;
    assert_int_equal(cuzk_engine_open(&e2, &c, NULL, &err), CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "locked"));
    assert_null(e2);
    cuzk_engine_close(e);

    /* a GPU that is not there (CPU build, or no such ordinal) */
    snprintf(c.devices, sizeof c.devices, "7");
    assert_int_equal(cuzk_engine_open(&e2, &c, NULL, &err), CUZK_ERR_USAGE);
    assert_non_null(strstr(err.msg, "gpu.devices"));
    assert_null(e2);
    snprintf(c.devices, sizeof c.devices, "none");
    e = open_engine(&c);
    cuzk_engine_snapshot *s2;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s2, &err), CUZK_OK);
    assert_int_equal(s2->n_devices, 0);
    assert_int_equal(s2->n_workers, 1);
    assert_int_equal(s2->workers[0].device, -1);
    cuzk_engine_snapshot_free(s2);
    cuzk_engine_close(e);
}

static void test_backpressure(void **state)
{
    cuzk_config c;
    fresh_config(&c, 1);
    c.max_queued = 3;
    cuzk_engine *e = open_engine(&c);
    cuzk_job_info j[3], info;
    cuzk_error err = {0};
    submit_ok(e, L, CUZK_PRIO_NORMAL, NULL, &j[0]);
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &j[1]);
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &j[2]);
    cuzk_job_request r = {.key_path = FX[A].zkey, .witness_path = FX[A].wtns};
    assert_int_equal(cuzk_engine_submit(e, &r, &info, NULL, &err), CUZK_ENGINE_BUSY);
    assert_int_equal(spool_files(c.state_dir), 3);
    for (int i = 0; i < 3; i++)
        wait_done(e, j[i].id, &info, 60);
    assert_int_equal(cuzk_engine_submit(e, &r, &info, NULL, &err), CUZK_OK);
    wait_done(e, info.id, &info, 60);
    /* a job that can never fit the memory budget */
    cuzk_engine_close(e);
    c.host_memory = 1 << 20;
    e = open_engine(&c);
    cuzk_job_request big = {.key_path = FX[L].zkey, .witness_path = FX[L].wtns};
    assert_int_equal(cuzk_engine_submit(e, &big, &info, NULL, &err), CUZK_ENGINE_TOO_LARGE);
    cuzk_engine_snapshot *s;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_int_equal(s->counters.rejected_invalid, 1);
    cuzk_engine_snapshot_free(s);
    cuzk_engine_close(e);
}

/* Reads the journal directly: per job, results rows and attempts that ended done. */
static void journal_counts(const char *dir, const char *id, int *results, int *done_attempts,
                           int *attempts)
{
    char p[400];
    snprintf(p, sizeof p, "%s/journal.db", dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    const char *q[3] = {"SELECT count(*) FROM cuzk_results WHERE job_id = ?",
                        "SELECT count(*) FROM cuzk_attempts WHERE job_id = ? AND outcome = 'done'",
                        "SELECT count(*) FROM cuzk_attempts WHERE job_id = ?"};
    int *out[3] = {results, done_attempts, attempts};
    for (int i = 0; i < 3; i++) {
        sqlite3_stmt *s;
        assert_int_equal(sqlite3_prepare_v2(db, q[i], -1, &s, NULL), SQLITE_OK);
        sqlite3_bind_text(s, 1, id, -1, SQLITE_STATIC);
        assert_int_equal(sqlite3_step(s), SQLITE_ROW);
        *out[i] = sqlite3_column_int(s, 0);
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
}

static void test_kill9_restart(void **state)
{
    char dir[300], ids_path[400];
    new_state_dir(dir, sizeof dir);
    snprintf(ids_path, sizeof ids_path, "%s.ids", dir);
    enum { N = 12 };
    int pfd[2];
    assert_int_equal(pipe(pfd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* The child: an engine with jobs queued and one running, then killed. */
        close(pfd[0]);
        cuzk_config c;
        base_config(&c, dir, 1);
        c.paused = 1; /* the first job is held running, the others queued */
        cuzk_engine *e = NULL;
        cuzk_error err = {0};
        if (cuzk_engine_open(&e, &c, NULL, &err))
            _exit(2);
        FILE *ids = fopen(ids_path, "w");
        cuzk_job_info info, first;
        for (int i = 0; i < N; i++) {
            int fxi = i % 2 ? A : B;
            cuzk_job_request r = {.key_path = FX[fxi].zkey, .witness_path = FX[fxi].wtns,
                                  .priority = (cuzk_priority)(i % 4)};
            if (cuzk_engine_submit(e, &r, &info, NULL, &err))
                _exit(3);
            /* acknowledged: recorded as the client would */
            fprintf(ids, "%s %d\n", info.id, fxi);
            fflush(ids);
            if (i == 0)
                first = info;
        }
        fclose(ids);
        if (cuzk_engine_admit(e, 1, &err))
            _exit(5);
        for (int t = 0;; t++) { /* held: running, before its proof */
            if (t == 60000)
                _exit(6);
            if (!cuzk_engine_job_get(e, first.id, &info, &err) && info.state == CUZK_JOB_RUNNING &&
                !strcmp(info.phase, "paused"))
                break;
            usleep(1000);
        }
        if (write(pfd[1], "r", 1) != 1)
            _exit(4);
        for (;;)
            pause();
    }
    close(pfd[1]);
    char ch;
    assert_int_equal(read(pfd[0], &ch, 1), 1);
    close(pfd[0]);
    kill(pid, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFSIGNALED(status));

    char ids[N][CUZK_JOB_ID_LEN + 1];
    int fxs[N], n = 0;
    FILE *f = fopen(ids_path, "r");
    assert_non_null(f);
    while (n < N && fscanf(f, "%36s %d", ids[n], &fxs[n]) == 2)
        n++;
    fclose(f);
    assert_int_equal(n, N);

    cuzk_config c;
    base_config(&c, dir, 2);
    cuzk_engine *e = open_engine(&c);
    cuzk_engine_snapshot *s;
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_true(s->counters.recovered >= 1); /* the running one */
    cuzk_engine_snapshot_free(s);
    for (int i = 0; i < N; i++) {
        cuzk_job_info info;
        wait_done(e, ids[i], &info, 120);
        assert_int_equal(info.state, CUZK_JOB_DONE);
        check_proof(e, ids[i], fxs[i]);
    }
    cuzk_engine_close(e);
    for (int i = 0; i < N; i++) {
        int results, done, attempts;
        journal_counts(dir, ids[i], &results, &done, &attempts);
        assert_int_equal(results, 1);
        assert_int_equal(done, 1);
        assert_int_equal(attempts, i == 0 ? 2 : 1); /* the running one ran again, once */
    }
    assert_int_equal(spool_files(dir), 0);
}

static void test_drain_restart(void **state)
{
    cuzk_config c;
    fresh_config(&c, 1);
    c.paused = 1;
    cuzk_engine *e = open_engine(&c);
    cuzk_job_info run, q, info;
    cuzk_error err = {0};
    submit_ok(e, L, CUZK_PRIO_NORMAL, NULL, &run);
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &q);
    hold_next(e, run.id);
    cuzk_engine_drain(e, 0); /* no time: the running job is stopped and requeued */
    cuzk_job_request r = {.key_path = FX[A].zkey, .witness_path = FX[A].wtns};
    assert_int_equal(cuzk_engine_submit(e, &r, &info, NULL, &err), CUZK_ENGINE_DRAINING);
    assert_int_equal(cuzk_engine_job_get(e, run.id, &info, &err), CUZK_OK);
    assert_int_equal(info.state, CUZK_JOB_QUEUED);
    assert_int_equal(cuzk_engine_job_get(e, q.id, &info, &err), CUZK_OK);
    assert_int_equal(info.state, CUZK_JOB_QUEUED);
    cuzk_engine_close(e);
    assert_int_equal(spool_files(c.state_dir), 2);

    c.paused = 0;
    e = open_engine(&c);
    wait_done(e, run.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    assert_int_equal(info.attempt, 2);
    check_proof(e, run.id, L);
    wait_done(e, q.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    assert_int_equal(info.attempt, 1);
    /* a drain with time lets the running job finish */
    cuzk_engine_pause(e);
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &q);
    hold_next(e, q.id);
    cuzk_engine_resume(e);
    cuzk_engine_drain(e, 60);
    assert_int_equal(cuzk_engine_job_get(e, q.id, &info, &err), CUZK_OK);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    cuzk_engine_close(e);
}

static void test_retention(void **state)
{
    cuzk_config c;
    fresh_config(&c, 1);
    c.retention_s = 2;
    cuzk_engine *e = open_engine(&c);
    cuzk_job_info j, info;
    cuzk_error err = {0};
    submit_ok(e, A, CUZK_PRIO_NORMAL, "retained", &j);
    wait_done(e, j.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    check_proof(e, j.id, A);
    cuzk_status st = CUZK_OK;
    for (int t = 0; t < 1500 && !st; t++) {
        usleep(10000);
        st = cuzk_engine_job_get(e, j.id, &info, &err);
    }
    assert_int_equal(st, CUZK_ENGINE_NOT_FOUND);
    char *p, *pub;
    assert_int_equal(cuzk_engine_job_result(e, j.id, &p, &pub, &err), CUZK_ENGINE_NOT_FOUND);
    int results, done, attempts;
    journal_counts(c.state_dir, j.id, &results, &done, &attempts);
    assert_int_equal(results + done + attempts, 0);
    uint64_t expired = 0;
    for (int t = 0; t < 500 && !expired; t++) { /* counted just after the delete */
        cuzk_engine_snapshot *s;
        assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
        expired = s->counters.expired;
        cuzk_engine_snapshot_free(s);
        usleep(10000);
    }
    assert_int_equal(expired, 1);
    /* the idempotency key is free again once its job expired */
    int existed = 1;
    cuzk_job_request r = {.key_path = FX[A].zkey, .witness_path = FX[A].wtns,
                          .idempotency_key = "retained"};
    assert_int_equal(cuzk_engine_submit(e, &r, &info, &existed, &err), CUZK_OK);
    assert_int_equal(existed, 0);
    assert_string_not_equal(info.id, j.id);
    cuzk_engine_close(e);
}

static void test_eviction(void **state)
{
    cuzk_config c;
    fresh_config(&c, 1);
    cuzk_engine *e = open_engine(&c);
    cuzk_engine_key_info ka, kc, kl;
    cuzk_error err = {0};
    assert_int_equal(cuzk_engine_key_register(e, FX[A].zkey, 0, &ka, &err), CUZK_OK);
    assert_false(ka.resident);
    assert_int_equal(ka.host_bytes, 0);
    /* loaded once, each key's size is known (and remembered across restarts) */
    assert_int_equal(cuzk_engine_key_register(e, FX[A].zkey, 1, &ka, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_key_register(e, FX[C].zkey, 1, &kc, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_key_register(e, FX[L].zkey, 1, &kl, &err), CUZK_OK);
    assert_string_not_equal(ka.id, kc.id);
    assert_true(ka.resident && kc.resident && kl.resident);
    assert_true(ka.host_bytes > 0 && kc.host_bytes > 0 && kl.host_bytes > 0);
    cuzk_job_info j, info;
    submit_ok(e, L, CUZK_PRIO_NORMAL, NULL, &j); /* for its memory estimate */
    uint64_t need_l = j.host_bytes + kl.host_bytes;
    assert_true(j.host_bytes > 0);
    assert_int_equal(cuzk_engine_job_cancel(e, j.id, NULL, &err), CUZK_OK);
    cuzk_engine_close(e);

    /* A budget that holds L's job with L and C, but not A too. */
    c.host_memory = need_l + kc.host_bytes + ka.host_bytes / 2;
    snprintf(c.preload, sizeof c.preload, "%s, %s", FX[A].zkey, FX[C].zkey);
    e = open_engine(&c);
    assert_int_equal(cuzk_engine_key_get(e, ka.id, &ka, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_key_get(e, kc.id, &kc, &err), CUZK_OK);
    assert_true(ka.preloaded && kc.preloaded && ka.resident && kc.resident);
    /* An L job needs room: A goes (preloaded first, so least recently
     * used), C stays. */
    submit_ok(e, L, CUZK_PRIO_NORMAL, NULL, &j);
    wait_done(e, j.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    check_proof(e, j.id, L);
    assert_int_equal(cuzk_engine_key_get(e, ka.id, &ka, &err), CUZK_OK);
    assert_false(ka.resident);
    assert_int_equal(cuzk_engine_key_get(e, kc.id, &kc, &err), CUZK_OK);
    assert_true(kc.resident);
    assert_int_equal(cuzk_engine_key_get(e, kl.id, &kl, &err), CUZK_OK);
    assert_true(kl.resident);
    /* never a key in use */
    cuzk_engine_pause(e);
    submit_ok(e, L, CUZK_PRIO_NORMAL, NULL, &j);
    hold_next(e, j.id);
    assert_int_equal(cuzk_engine_key_evict(e, kl.id, &err), CUZK_ENGINE_CONFLICT);
    cuzk_engine_resume(e);
    wait_done(e, j.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    /* explicit evict of an idle key */
    assert_int_equal(cuzk_engine_key_evict(e, kl.id, &err), CUZK_OK);
    assert_int_equal(cuzk_engine_key_get(e, kl.id, &kl, &err), CUZK_OK);
    assert_false(kl.resident);
    cuzk_engine_snapshot *s;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    assert_true(s->counters.keys_evicted >= 2);
    assert_true(s->host_used <= s->host_budget);
    cuzk_engine_snapshot_free(s);
    /* A is loaded again on use */
    submit_ok(e, A, CUZK_PRIO_NORMAL, NULL, &j);
    wait_done(e, j.id, &info, 60);
    assert_int_equal(info.state, CUZK_JOB_DONE);
    cuzk_engine_close(e);

    /* a preload that cannot be read fails the start */
    snprintf(c.preload, sizeof c.preload, "/nonexistent.zkey");
    cuzk_engine *bad = NULL;
    assert_int_equal(cuzk_engine_open(&bad, &c, NULL, &err), CUZK_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent.zkey"));
}

#if defined(__SANITIZE_ADDRESS__)
/* Under ASan freed blocks wait in its quarantine (and their shadow with them),
 * so RSS grows with the number of frees, not with what the engine holds: measure
 * the live heap ASan's allocator reports instead (exported by libasan). */
size_t __sanitizer_get_current_allocated_bytes(void);
#define MEM_WHAT "live heap"
static long mem_kib(void) { return (long)(__sanitizer_get_current_allocated_bytes() / 1024); }
#else
/* RSS depends on how glibc spreads worker threads over arenas and when it
 * trims them; what the engine holds is the live heap malloc reports. */
#include <malloc.h>
#define MEM_WHAT "live heap"
static long mem_kib(void)
{
    struct mallinfo2 m = mallinfo2();
    return (long)((m.uordblks + m.hblkhd) / 1024);
}
#endif

static void test_memory_flat(void **state)
{
    cuzk_config c;
    fresh_config(&c, 2);
    c.retention_s = 0.5;
    cuzk_engine *e = open_engine(&c);
    enum { WARM = 200, N = 1000, BATCH = 10 };
    long rss_warm = 0;
    cuzk_error err = {0};
    for (int done = 0; done < N; done += BATCH) {
        cuzk_job_info j[BATCH], info;
        for (int i = 0; i < BATCH; i++)
            submit_ok(e, (done + i) % 3 ? A : B, (cuzk_priority)(i % 4), NULL, &j[i]);
        if (done == BATCH) /* cancel a few queued ones too */
            for (int i = BATCH - 3; i < BATCH; i++)
                cuzk_engine_job_cancel(e, j[i].id, NULL, &err);
        for (int i = 0; i < BATCH; i++) {
            /* finished, or finished and already past the retention */
            cuzk_status st = cuzk_engine_job_wait(e, j[i].id, 60, &info, &err);
            assert_true(st == (cuzk_status)CUZK_ENGINE_NOT_FOUND ||
                        (!st && (info.state == CUZK_JOB_DONE || info.state == CUZK_JOB_CANCELLED)));
        }
        if (done + BATCH == WARM)
            rss_warm = mem_kib();
    }
    long rss_end = mem_kib();
    usleep(1200000); /* past the retention */
    cuzk_engine_snapshot *s;
    assert_int_equal(cuzk_engine_snapshot_get(e, &s, &err), CUZK_OK);
    printf("memory: " MEM_WHAT " %ld KiB after %d jobs, %ld KiB after %d (%+.1f%%); completed %llu, "
           "cancelled %llu, expired %llu\n",
           rss_warm, WARM, rss_end, N, 100.0 * (double)(rss_end - rss_warm) / (double)rss_warm,
           (unsigned long long)s->counters.completed, (unsigned long long)s->counters.cancelled,
           (unsigned long long)s->counters.expired);
    assert_int_equal(s->counters.completed + s->counters.cancelled, N);
    assert_true(s->counters.expired > N / 2); /* finished jobs do not pile up */
    cuzk_engine_snapshot_free(s);
    assert_true(rss_end <= rss_warm + rss_warm / 20);
    cuzk_engine_close(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prove_both_curves),
        cmocka_unit_test(test_priorities),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_idempotency),
        cmocka_unit_test(test_bad_requests),
        cmocka_unit_test(test_backpressure),
        cmocka_unit_test(test_kill9_restart),
        cmocka_unit_test(test_drain_restart),
        cmocka_unit_test(test_upload),
        cmocka_unit_test(test_upload_spool_limit),
        cmocka_unit_test(test_retention),
        cmocka_unit_test(test_eviction),
        cmocka_unit_test(test_memory_flat),
    };
    return cmocka_run_group_tests(tests, setup_fixtures, teardown_fixtures);
}
