/* The handle API (cuzk_key, cuzk_witness, cuzk_prove, cuzk_proof, shared
 * pools, cancellation), checked against independent answers:
 *  - one key loaded once proves many witnesses of the snarkjs fixture circuit
 *    Mul(10) (tests/data/formats: circom + snarkjs), on both curves; every
 *    proof verifies against snarkjs's verification_key.json and the public
 *    signals are the circuit's outputs computed here;
 *  - two threads prove with one shared key and one shared pool, with fixed
 *    r, s: every proof equals the single-threaded one, byte for byte;
 *  - cancellation at every poll point ends with CUZK_ERR_CANCELLED;
 *  - a witness of another circuit or curve is refused with the file's name. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "cuzk/cuzk.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_plan.h"
#include "cuzk/dev.h"
#include "groth16/curve_ops.h"
#include "formats/formats.h"

#include "fixture_util.h"
#include "groth16/insecure.h"

static int setup(void **state)
{
    (void)state;
    return fx_setup("api");
}

static int teardown(void **state)
{
    (void)state;
    return fx_teardown();
}

static const char *CURVE_DIR[] = {"bn128", "bls12381"};

/* Mul(10) of tests/data/formats/mul.circom: wires [1, out, c, a, b, t0..t9]
 * with t0 = a·b, t_i = t_{i-1}·(a + i), out = t9·c (the order of snarkjs's
 * wtns.export.json). Small inputs keep every value below 2^64. */
static uint64_t mul_witness(cuzk_curve curve, uint64_t a, uint64_t b, uint64_t c, const char *path)
{
    uint64_t v[15] = {1, 0, c, a, b};
    v[5] = a * b;
    for (int i = 1; i < 10; i++)
        v[5 + i] = v[4 + i] * (a + (uint64_t)i);
    v[1] = v[14] * c;
    cuzk_wtns w = {0};
    cuzk_error err = {0};
    assert_int_equal(cuzk_wtns_alloc(&w, curve, 15, &err), CUZK_OK);
    memset(w.values.ptr, 0, 15 * 32);
    for (int i = 0; i < 15; i++)
        ((uint64_t *)w.values.ptr)[4 * i] = v[i];
    assert_int_equal(cuzk_wtns_write(&w, path, &err), CUZK_OK);
    cuzk_wtns_free(&w);
    return v[1];
}

static void test_phase_names(void **state)
{
    (void)state;
    assert_string_equal(cuzk_phase_name(CUZK_PHASE_LOAD_KEY), "load_zkey");
    assert_string_equal(cuzk_phase_name(CUZK_PHASE_LOAD_WITNESS), "load_wtns");
    assert_string_equal(cuzk_phase_name(CUZK_PHASE_MSM_H), "msm_h");
    assert_string_equal(cuzk_phase_name(CUZK_PHASE_MSM_B2), "msm_b2");
    assert_string_equal(cuzk_phase_name(CUZK_PHASE_GEN_WRITE), "gen_write");
    assert_string_equal(cuzk_phase_name(CUZK_PHASE_COUNT), "unknown");
    for (int p = 0; p < CUZK_PHASE_COUNT; p++)
        assert_string_not_equal(cuzk_phase_name((cuzk_phase)p), "unknown");
}

typedef struct {
    cuzk_phase seen[64];
    int n;
} phase_log;

static void log_timing(void *user, cuzk_phase phase, double seconds)
{
    phase_log *l = user;
    assert_true(seconds >= 0);
    if (l->n < 64)
        l->seen[l->n++] = phase;
}

/* One key, many witnesses, both curves, key from a file and from a buffer. */
static void test_one_key_many_witnesses(void **state)
{
    (void)state;
    for (int ci = 0; ci < 2; ci++) {
        cuzk_curve curve = ci ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254;
        char zkey[512], vk[512];
        snprintf(zkey, sizeof zkey, "%s/%s/mul.zkey", FX_DIR, CURVE_DIR[ci]);
        snprintf(vk, sizeof vk, "%s/%s/verification_key.json", FX_DIR, CURVE_DIR[ci]);
        phase_log log = {0};
        cuzk_ctx *ctx = NULL;
        cuzk_error err = {0};
        cuzk_ctx_opts co = {.threads = 2, .timing = log_timing, .user = &log};
        assert_int_equal(cuzk_ctx_create(&ctx, &co, &err), CUZK_OK);
        for (int from_buffer = 0; from_buffer < 2; from_buffer++) {
            cuzk_key *key = NULL;
            log.n = 0;
            if (from_buffer) {
                size_t len;
                char *data = slurp(zkey, &len);
                assert_int_equal(cuzk_key_load_buffer(&key, ctx, data, len, "mem.zkey", NULL, &err), CUZK_OK);
                free(data); /* the key keeps its own copy */
            } else {
                assert_int_equal(cuzk_key_load(&key, ctx, zkey, NULL, &err), CUZK_OK);
            }
            /* load_zkey and prepare, each once. */
            assert_int_equal(log.n, 2);
            assert_int_equal(log.seen[0], CUZK_PHASE_LOAD_KEY);
            assert_int_equal(log.seen[1], CUZK_PHASE_PREPARE);
            cuzk_key_info in;
            cuzk_key_get_info(key, &in);
            assert_int_equal(in.curve, curve);
            assert_int_equal(in.backend, CUZK_BACKEND_CPU);
            assert_int_equal(in.n_vars, 15);
            assert_int_equal(in.n_public, 2);
            assert_true(in.log_domain >= 4);
            assert_true(in.n_coefs > 0);
            assert_true(in.host_bytes > 15 * 3 * 96);
            assert_int_equal(in.device_bytes, 0);

            static const uint64_t inputs[][3] = {{3, 11, 5}, {2, 7, 1}, {5, 20, 9}, {1, 1, 0}};
            for (size_t t = 0; t < 4; t++) {
                uint64_t out = mul_witness(curve, inputs[t][0], inputs[t][1], inputs[t][2], T("m.wtns"));
                cuzk_witness *w = NULL;
                if (t & 1) {
                    size_t len;
                    char *data = slurp(T("m.wtns"), &len);
                    assert_int_equal(cuzk_witness_load_buffer(&w, data, len, "mem.wtns", &err), CUZK_OK);
                    free(data);
                } else {
                    assert_int_equal(cuzk_witness_load(&w, T("m.wtns"), &err), CUZK_OK);
                }
                assert_int_equal(cuzk_witness_count(w), 15);
                assert_int_equal(cuzk_witness_curve(w), curve);
                cuzk_proof *p = NULL;
                log.n = 0;
                assert_int_equal(cuzk_prove(ctx, key, w, NULL, &p, &err), CUZK_OK);
                /* The proving phases in order, verification included (the default). */
                static const cuzk_phase order[] = {CUZK_PHASE_ABC,    CUZK_PHASE_NTT,      CUZK_PHASE_MSM_H,
                                                   CUZK_PHASE_MSM_A,  CUZK_PHASE_MSM_B1,   CUZK_PHASE_MSM_C,
                                                   CUZK_PHASE_MSM_B2, CUZK_PHASE_ASSEMBLE, CUZK_PHASE_VERIFY};
                assert_int_equal(log.n, 9);
                for (int i = 0; i < 9; i++)
                    assert_int_equal(log.seen[i], order[i]);
                assert_int_equal(cuzk_proof_curve(p), curve);
                /* Public signals: [out, c]. */
                char *pub;
                size_t len;
                assert_int_equal(cuzk_proof_public_json(p, CUZK_JSON_SNARKJS, &pub, &len, &err), CUZK_OK);
                char want[128];
                snprintf(want, sizeof want, "[\n \"%llu\",\n \"%llu\"\n]", (unsigned long long)out,
                         (unsigned long long)inputs[t][2]);
                assert_string_equal(pub, want);
                assert_int_equal(len, strlen(want));
                free(pub);
                /* Written files verify against snarkjs's verification key. */
                assert_int_equal(cuzk_proof_write_files(p, T("p.json"), T("u.json"), CUZK_JSON_SNARKJS, &err),
                                 CUZK_OK);
                assert_int_equal(cuzk_verify_files(ctx, vk, T("u.json"), T("p.json"), &err), CUZK_OK);
                /* to_json is the file's bytes. */
                char *pj, *file = slurp(T("p.json"), NULL);
                assert_int_equal(cuzk_proof_to_json(p, CUZK_JSON_SNARKJS, &pj, &len, &err), CUZK_OK);
                assert_string_equal(pj, file);
                free(pj);
                free(file);
                /* Bytes: size per curve; a short buffer says how much is needed. */
                uint8_t bytes[256], small[8];
                size_t blen;
                assert_int_equal(cuzk_proof_to_bytes(p, bytes, sizeof bytes, &blen, &err), CUZK_OK);
                assert_int_equal(blen, ci ? 192 : 256);
                assert_int_equal(cuzk_proof_to_bytes(p, small, sizeof small, &blen, &err), CUZK_ERR_USAGE);
                assert_int_equal(blen, ci ? 192 : 256);
                cuzk_err_clear(&err);
                if (ci) /* compressed, not infinity */
                    assert_int_equal(bytes[0] & 0xc0, 0x80);
                cuzk_proof_free(p);
                cuzk_witness_free(w);
            }
            cuzk_key_free(key);
        }
        cuzk_ctx_free(ctx);
    }
}

/* Fixed r, s give one proof; a different r another; r = s = 0 equals
 * insecure_zero_rs; r >= the field order is refused. */
static void test_fixed_rs(void **state)
{
    (void)state;
    cuzk_ctx *ctx = mkctx(NULL);
    cuzk_error err = {0};
    cuzk_key *key = NULL;
    assert_int_equal(cuzk_key_load(&key, ctx, FX_DIR "/bls12381/mul.zkey", NULL, &err), CUZK_OK);
    cuzk_witness *w = NULL;
    assert_int_equal(cuzk_witness_load(&w, FX_DIR "/bls12381/witness.wtns", &err), CUZK_OK);
    uint8_t r[32] = {1, 2, 3}, s[32] = {4, 5, 6}, zero[32] = {0}, big[32];
    memset(big, 0xff, sizeof big);
    char *json[4];
    size_t len;
    const cuzk_prove_opts opts[4] = {
        {.insecure_r = r, .insecure_s = s},
        {.insecure_r = r, .insecure_s = s, .no_verify = 1},
        {.insecure_r = zero, .insecure_s = zero},
        {.insecure_zero_rs = 1},
    };
    for (int i = 0; i < 4; i++) {
        cuzk_proof *p = NULL;
        assert_int_equal(cuzk_prove(ctx, key, w, &opts[i], &p, &err), CUZK_OK);
        assert_int_equal(cuzk_proof_to_json(p, CUZK_JSON_RAPIDSNARK, &json[i], &len, &err), CUZK_OK);
        cuzk_proof_free(p);
    }
    assert_string_equal(json[0], json[1]);
    assert_string_equal(json[2], json[3]);
    assert_string_not_equal(json[0], json[2]);
    for (int i = 0; i < 4; i++)
        free(json[i]);
    cuzk_proof *p = NULL;
    cuzk_prove_opts bad = {.insecure_r = big, .insecure_s = s};
    assert_int_equal(cuzk_prove(ctx, key, w, &bad, &p, &err), CUZK_ERR_USAGE);
    assert_null(p);
    cuzk_err_clear(&err);
    bad = (cuzk_prove_opts){.insecure_r = r};
    assert_int_equal(cuzk_prove(ctx, key, w, &bad, &p, &err), CUZK_ERR_USAGE);
    cuzk_witness_free(w);
    cuzk_key_free(key);
    cuzk_ctx_free(ctx);
}

typedef struct {
    cuzk_pool *pool;
    const cuzk_key *key;
    const cuzk_witness *w;
    const char *want; /* the single-threaded proof */
    int rounds;
    int ok;
} prover_job;

static void *prover_main(void *arg)
{
    prover_job *j = arg;
    cuzk_ctx *ctx = NULL;
    cuzk_error err = {0};
    cuzk_ctx_opts o = {.pool = j->pool};
    if (cuzk_ctx_create(&ctx, &o, &err))
        return NULL;
    uint8_t r[32] = {9, 8, 7}, s[32] = {6, 5, 4};
    cuzk_prove_opts po = {.insecure_r = r, .insecure_s = s};
    for (int i = 0; i < j->rounds; i++) {
        cuzk_proof *p = NULL;
        char *json = NULL;
        size_t len;
        if (cuzk_prove(ctx, j->key, j->w, &po, &p, &err) == CUZK_OK &&
            cuzk_proof_to_json(p, CUZK_JSON_SNARKJS, &json, &len, &err) == CUZK_OK && !strcmp(json, j->want))
            j->ok++;
        free(json);
        cuzk_proof_free(p);
    }
    cuzk_ctx_free(ctx);
    return NULL;
}

/* Two threads, one key, one pool of 3 threads: identical proofs, all verified. */
static void test_shared_key_and_pool(void **state)
{
    (void)state;
    cuzk_pool *pool = cuzk_pool_create(3);
    assert_non_null(pool);
    assert_int_equal(cuzk_pool_size(pool), 3);
    cuzk_ctx *ctx = mkctx(pool);
    assert_int_equal(cuzk_ctx_threads(ctx), 3);
    cuzk_error err = {0};
    /* A circuit big enough for many parallel chunks. */
    cuzk_gen_opts go = {.curve = CUZK_CURVE_BN254, .constraints = 6000, .public_inputs = 2, .seed = 5};
    assert_int_equal(cuzk_gen_files(ctx, &go, T("s.r1cs"), T("s.wtns"), &err), CUZK_OK);
    assert_int_equal(cuzk_setup_files(ctx, T("s.r1cs"), T("s.zkey"), &err), CUZK_OK);
    cuzk_key *key = NULL;
    assert_int_equal(cuzk_key_load(&key, ctx, T("s.zkey"), NULL, &err), CUZK_OK);
    cuzk_witness *w = NULL;
    assert_int_equal(cuzk_witness_load(&w, T("s.wtns"), &err), CUZK_OK);
    uint8_t r[32] = {9, 8, 7}, s[32] = {6, 5, 4};
    cuzk_prove_opts po = {.insecure_r = r, .insecure_s = s};
    cuzk_proof *p = NULL;
    assert_int_equal(cuzk_prove(ctx, key, w, &po, &p, &err), CUZK_OK);
    char *want;
    size_t len;
    assert_int_equal(cuzk_proof_to_json(p, CUZK_JSON_SNARKJS, &want, &len, &err), CUZK_OK);
    cuzk_proof_free(p);
    cuzk_ctx_free(ctx); /* the borrowed pool stays */

    prover_job jobs[2] = {{pool, key, w, want, 4, 0}, {pool, key, w, want, 4, 0}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, prover_main, &jobs[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(jobs[0].ok, 4);
    assert_int_equal(jobs[1].ok, 4);
    free(want);
    cuzk_witness_free(w);
    cuzk_key_free(key);
    cuzk_pool_destroy(pool);
}

/* The GPU prover's smallest tier (7: witness, a, b, c and the quotient on
 * the host, one domain vector on the device), forced by a budget of exactly
 * what it needs: on both curves, two workers proving twice each give the
 * CPU's proof bit for bit (same r, s), each verified before it is returned. */
static void test_gpu_tier7(void **state)
{
    (void)state;
    if (cuzk_gpu_device_count() == 0)
        skip();
    cuzk_pool *pool = cuzk_pool_create(4);
    assert_non_null(pool);
    for (int c = 0; c < 2; c++) {
        cuzk_ctx *ctx = mkctx(pool);
        cuzk_error err = {0};
        cuzk_gen_opts go = {.curve = c ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254, .constraints = 3000,
                            .public_inputs = 2, .seed = 11 + c};
        assert_int_equal(cuzk_gen_files(ctx, &go, T("t7.r1cs"), T("t7.wtns"), &err), CUZK_OK);
        assert_int_equal(cuzk_setup_files(ctx, T("t7.r1cs"), T("t7.zkey"), &err), CUZK_OK);
        cuzk_key *cpu = NULL, *gpu = NULL;
        cuzk_witness *w = NULL;
        assert_int_equal(cuzk_key_load(&cpu, ctx, T("t7.zkey"), NULL, &err), CUZK_OK);
        assert_int_equal(cuzk_witness_load(&w, T("t7.wtns"), &err), CUZK_OK);
        uint8_t r[32] = {9, 8, 7}, s[32] = {6, 5, 4}; /* as prover_main */
        cuzk_prove_opts po = {.insecure_r = r, .insecure_s = s};
        cuzk_proof *p = NULL;
        assert_int_equal(cuzk_prove(ctx, cpu, w, &po, &p, &err), CUZK_OK);
        char *want;
        size_t len;
        assert_int_equal(cuzk_proof_to_json(p, CUZK_JSON_SNARKJS, &want, &len, &err), CUZK_OK);
        cuzk_proof_free(p);
        cuzk_key_free(cpu);
        /* the least budget any tier fits: there only tier 7 fits */
        cuzk_gpu_key_shape shape;
        assert_int_equal(cuzk_gpu_key_shape_read(T("t7.zkey"), &shape, &err), CUZK_OK);
        cuzk_gpu_plan_opts plo = {.budget = (size_t)1 << 40, .workers = 2};
        cuzk_gpu_plan plan;
        assert_int_equal(cuzk_gpu_plan_proof(&shape, &plo, &plan, &err), CUZK_OK);
        assert_int_equal(plan.least_tier, 7);
        cuzk_key_opts ko = {.backend = CUZK_BACKEND_GPU, .device_budget = plan.least_budget, .gpu_workers = 2};
        if (cuzk_key_load(&gpu, ctx, T("t7.zkey"), &ko, &err))
            fail_msg("tier-7 key: %s", err.msg);
        prover_job jobs[2] = {{pool, gpu, w, want, 2, 0}, {pool, gpu, w, want, 2, 0}};
        pthread_t th[2];
        for (int i = 0; i < 2; i++)
            assert_int_equal(pthread_create(&th[i], NULL, prover_main, &jobs[i]), 0);
        for (int i = 0; i < 2; i++)
            pthread_join(th[i], NULL);
        assert_int_equal(jobs[0].ok, 2);
        assert_int_equal(jobs[1].ok, 2);
        cuzk_key_info ki;
        cuzk_key_get_info(gpu, &ki);
        assert_int_equal(ki.backend, CUZK_BACKEND_GPU);
        assert_true(ki.device_bytes <= plan.least_budget);
        assert_true(ki.device_peak > 0 && ki.device_peak <= ki.device_bytes);
        free(want);
        cuzk_witness_free(w);
        cuzk_key_free(gpu);
        cuzk_ctx_free(ctx);
    }
    cuzk_pool_destroy(pool);
}

typedef struct {
    int polls, stop_at;
} cancel_state;

static int cancel_after(void *user)
{
    cancel_state *c = user;
    return ++c->polls > c->stop_at;
}

/* Cancelling at the k-th poll, for every k until the proof completes: each
 * run ends CANCELLED (nothing returned) and the last one proves. */
static void test_cancel(void **state)
{
    (void)state;
    cuzk_error err = {0};
    cancel_state cs = {0, 1 << 30};
    cuzk_ctx *ctx = NULL;
    cuzk_ctx_opts o = {.threads = 2, .cancelled = cancel_after, .user = &cs};
    assert_int_equal(cuzk_ctx_create(&ctx, &o, &err), CUZK_OK);
    cuzk_key *key = NULL;
    assert_int_equal(cuzk_key_load(&key, ctx, FX_DIR "/bn128/mul.zkey", NULL, &err), CUZK_OK);
    cuzk_witness *w = NULL;
    assert_int_equal(cuzk_witness_load(&w, FX_DIR "/bn128/witness.wtns", &err), CUZK_OK);
    int cancelled = 0;
    for (int k = 0;; k++) {
        cs.polls = 0;
        cs.stop_at = k;
        cuzk_proof *p = NULL;
        cuzk_err_clear(&err);
        cuzk_status st = cuzk_prove(ctx, key, w, NULL, &p, &err);
        if (st == CUZK_OK) {
            assert_non_null(p);
            cuzk_proof_free(p);
            break;
        }
        assert_int_equal(st, CUZK_ERR_CANCELLED);
        assert_null(p);
        /* The message names the witness ("Error: cancelled" named nothing). */
        if (strcmp(err.msg, FX_DIR "/bn128/witness.wtns: cancelled; nothing written"))
            fail_msg("cancelled at poll %d: '%s'", k, err.msg);
        cancelled++;
        assert_true(k < 100);
    }
    /* Between every phase of the proof at least (abc .. msm_b2, and within ntt). */
    assert_true(cancelled >= 8);
    /* Key loading is cancellable too. */
    cs.polls = 0;
    cs.stop_at = 0;
    cuzk_key *k2 = NULL;
    cuzk_err_clear(&err);
    assert_int_equal(cuzk_key_load(&k2, ctx, FX_DIR "/bn128/mul.zkey", NULL, &err), CUZK_ERR_CANCELLED);
    assert_null(k2);
    assert_string_equal(err.msg, FX_DIR "/bn128/mul.zkey: cancelled; nothing written");
    /* And a file prove: the witness again. */
    cs.polls = 0;
    cs.stop_at = 3;
    cuzk_err_clear(&err);
    assert_int_equal(cuzk_prove_files(ctx, FX_DIR "/bn128/mul.zkey", FX_DIR "/bn128/witness.wtns", "/tmp/cuzk-test-cancel-p.json",
                                      "/tmp/cuzk-test-cancel-pub.json", NULL, &err),
                     CUZK_ERR_CANCELLED);
    assert_non_null(strstr(err.msg, ": cancelled; nothing written"));
    assert_true(strncmp(err.msg, FX_DIR "/bn128/", strlen(FX_DIR "/bn128/")) == 0);
    assert_int_equal(access("/tmp/cuzk-test-cancel-p.json", F_OK), -1);
    cuzk_witness_free(w);
    cuzk_key_free(key);
    cuzk_ctx_free(ctx);
}

/* A witness of another circuit or curve: CUZK_ERR_MISMATCH naming it; the
 * GPU backend is not built here. */
static void test_wrong_witness(void **state)
{
    (void)state;
    cuzk_ctx *ctx = mkctx(NULL);
    cuzk_error err = {0};
    cuzk_key *key = NULL;
    assert_int_equal(cuzk_key_load(&key, ctx, FX_DIR "/lin/lin.zkey", NULL, &err), CUZK_OK);
    cuzk_witness *w = NULL;
    assert_int_equal(cuzk_witness_load(&w, FX_DIR "/bn128/witness.wtns", &err), CUZK_OK);
    cuzk_proof *p = NULL;
    cuzk_key_info in;
    cuzk_key_get_info(key, &in);
    char want[256];
    snprintf(want, sizeof want, FX_DIR "/bn128/witness.wtns: Invalid witness length. Circuit: %u, witness: 15",
             in.n_vars);
    assert_int_equal(cuzk_prove(ctx, key, w, NULL, &p, &err), CUZK_ERR_MISMATCH);
    assert_null(p);
    assert_string_equal(err.msg, want);
    cuzk_witness_free(w);
    cuzk_err_clear(&err);
    assert_int_equal(cuzk_witness_load(&w, FX_DIR "/bls12381/witness.wtns", &err), CUZK_OK);
    assert_int_equal(cuzk_prove(ctx, key, w, NULL, &p, &err), CUZK_ERR_MISMATCH);
    assert_non_null(strstr(err.msg, "bls12381/witness.wtns"));
    cuzk_witness_free(w);
    cuzk_key_free(key);
    cuzk_err_clear(&err);
    /* The GPU backend: absent from a build without CUDA; with CUDA but no
     * device the load fails as a GPU error (the CLI's exit 8); with a device
     * the key loads. */
    cuzk_key_opts ko = {.backend = CUZK_BACKEND_GPU};
    cuzk_status want_gpu = CUZK_ERR_UNSUPPORTED;
#ifdef CUZK_HAVE_CUDA
    want_gpu = cuzk_gpu_device_count() > 0 ? CUZK_OK : CUZK_ERR_GPU;
#endif
    assert_int_equal(cuzk_key_load(&key, ctx, FX_DIR "/lin/lin.zkey", &ko, &err), want_gpu);
    if (want_gpu == CUZK_OK) {
        cuzk_key_info ki;
        cuzk_key_get_info(key, &ki);
        assert_int_equal(ki.backend, CUZK_BACKEND_GPU);
        cuzk_key_free(key);
        key = NULL;
    }
    assert_null(key);
    cuzk_ctx_free(ctx);
}

/* The table's Fr addition, batch multiplication and NTT entries (what the
 * GPU self-test takes its references from) against answers worked out
 * independently: small sums, single multiplications, transforms of a delta,
 * of a constant, round trips, and the odd-coset step against the coset NTT. */
static void check_ops_kernels(const cuzk_curve_ops *ops)
{
    const cuzk_curve_desc *d = ops->desc;
    uint64_t a[4] = {7}, b[4] = {UINT64_MAX}, am[4], bm[4], sm[4], sum[4];
    ops->fr_to_mont(am, a);
    ops->fr_to_mont(bm, b);
    ops->fr_add(sm, am, bm);
    ops->fr_from_mont(sum, sm);
    assert_true(sum[0] == 6 && sum[1] == 1 && sum[2] == 0 && sum[3] == 0);

    /* k·G for k = 0, 1, 2^64 + 3 in G1 and G2: batch against one at a time */
    uint64_t k[3][4] = {{0}, {1}, {3, 1}};
    uint8_t got[3 * CUZK_MAX_G2_AFFINE], one[CUZK_MAX_G2_AFFINE], jac[CUZK_MAX_G2_JAC];
    cuzk_error err = {0};
    assert_int_equal(ops->g1_batch_mul(got, d->g1_generator, k, 3, NULL, &err), CUZK_OK);
    for (int i = 0; i < 3; i++) {
        ops->g1_mul_affine(jac, d->g1_generator, k[i], 4);
        ops->g1_to_affine(one, jac);
        assert_memory_equal(got + i * d->g1_affine, one, d->g1_affine);
    }
    assert_memory_equal(got + d->g1_affine, d->g1_generator, d->g1_affine);
    assert_int_equal(ops->g2_batch_mul(got, d->g2_generator, k, 3, NULL, &err), CUZK_OK);
    for (int i = 0; i < 3; i++) {
        ops->g2_mul_affine(jac, d->g2_generator, k[i], 4);
        ops->g2_to_affine(one, jac);
        assert_memory_equal(got + i * d->g2_affine, one, d->g2_affine);
    }
    assert_memory_equal(got + d->g2_affine, d->g2_generator, d->g2_affine);

    enum { LG = 4, N = 1 << LG };
    void *dom = NULL;
    assert_int_equal(ops->ntt_domain_create(&dom, LG, 0, NULL, &err), CUZK_OK);
    uint64_t v[N][4], w[N][4], x[N][4], c[4] = {12345}, cm[4], ncm[4], zero[4] = {0}, onem[4];
    uint64_t one_raw[4] = {1}, n_raw[4] = {N * 12345};
    ops->fr_to_mont(cm, c);
    ops->fr_to_mont(ncm, n_raw);
    ops->fr_to_mont(onem, one_raw);
    for (int coset = 0; coset < 2; coset++) {
        /* delta at 0 -> all ones (plain and coset) */
        memset(v, 0, sizeof v);
        memcpy(v[0], onem, 32);
        ops->ntt(dom, v, false, coset, NULL);
        for (int i = 0; i < N; i++) assert_memory_equal(v[i], onem, 32);
        ops->ntt(dom, v, true, coset, NULL);
        for (int i = 0; i < N; i++) assert_memory_equal(v[i], i ? zero : onem, 32);
    }
    /* a constant -> N·c at 0 and zeros (plain) */
    for (int i = 0; i < N; i++) memcpy(v[i], cm, 32);
    ops->ntt(dom, v, false, false, NULL);
    for (int i = 0; i < N; i++) assert_memory_equal(v[i], i ? zero : ncm, 32);
    /* random coefficients: round trips; odd coset of the evaluations = coset NTT */
    for (int i = 0; i < N; i++) {
        uint64_t r[4] = {(uint64_t)i * 0x9e3779b97f4a7c15u, (uint64_t)i, 0, 0};
        ops->fr_to_mont(v[i], r);
    }
    memcpy(w, v, sizeof v);
    memcpy(x, v, sizeof v);
    ops->ntt(dom, w, false, false, NULL);
    ops->ntt(dom, x, false, true, NULL);
    assert_int_equal(ops->ntt_coset_odd(dom, w, NULL, &err), CUZK_OK);
    assert_memory_equal(w, x, sizeof w);
    ops->ntt(dom, x, true, true, NULL);
    assert_memory_equal(x, v, sizeof x);
    ops->ntt_domain_free(dom);
}

typedef struct {
    cuzk_span s[64];
    int n;
} span_log;

static void log_span(void *user, const cuzk_span *sp)
{
    span_log *l = user;
    if (l->n < 64)
        l->s[l->n++] = *sp;
}

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Spans: every prove phase once on the host, in order (on the GPU the MSMs
 * and assemble in the job's order between ntt and verify), inside the call on
 * CLOCK_MONOTONIC; with a GPU, the device intervals of abc, the NTT, the
 * five MSMs and the witness upload, converted to the same clock (inside
 * the call, give or take a millisecond), and a measured device peak no
 * larger than the planned one. */
static void test_spans(void **state)
{
    (void)state;
    for (int gpu = 0; gpu < 2; gpu++) {
        if (gpu && cuzk_gpu_device_count() == 0)
            break;
        span_log log = {0};
        cuzk_ctx *ctx = NULL;
        cuzk_error err = {0};
        cuzk_ctx_opts co = {.threads = 2, .span = log_span, .user = &log};
        assert_int_equal(cuzk_ctx_create(&ctx, &co, &err), CUZK_OK);
        cuzk_key_opts ko = {.backend = gpu ? CUZK_BACKEND_GPU : CUZK_BACKEND_CPU};
        cuzk_key *key = NULL;
        cuzk_witness *w = NULL;
        assert_int_equal(cuzk_key_load(&key, ctx, FX_DIR "/bn128/mul.zkey", &ko, &err), CUZK_OK);
        assert_int_equal(cuzk_witness_load(&w, FX_DIR "/bn128/witness.wtns", &err), CUZK_OK);
        log.n = 0;
        cuzk_proof *p = NULL;
        const double t0 = mono_now();
        assert_int_equal(cuzk_prove(ctx, key, w, NULL, &p, &err), CUZK_OK);
        const double t1 = mono_now();
        static const cuzk_phase host[] = {CUZK_PHASE_ABC,    CUZK_PHASE_NTT,   CUZK_PHASE_MSM_H,
                                          CUZK_PHASE_MSM_A,  CUZK_PHASE_MSM_B1, CUZK_PHASE_MSM_C,
                                          CUZK_PHASE_MSM_B2, CUZK_PHASE_ASSEMBLE, CUZK_PHASE_VERIFY};
        int next = 0, dev = 0, calls = 0;
        unsigned seen = 0; /* phases of the host spans (bit per phase) */
        double prev_end = t0;
        for (int i = 0; i < log.n; i++) {
            const cuzk_span *sp = &log.s[i];
            assert_true(sp->start <= sp->end);
            if (sp->device < 0) {
                assert_true(next < (int)(sizeof host / sizeof host[0]));
                /* the CPU in this order; the GPU runs the MSMs in its job's order (H last when they
                 * are pipelined) with assemble before the last: abc, ntt first, verify last,
                 * each phase once */
                const bool ends = next < 2 || next == (int)(sizeof host / sizeof host[0]) - 1;
                if (!gpu || ends)
                    assert_int_equal(sp->phase, host[next]);
                else
                    assert_true(sp->phase >= CUZK_PHASE_MSM_H && sp->phase <= CUZK_PHASE_ASSEMBLE);
                assert_false(seen & (1u << sp->phase));
                seen |= 1u << sp->phase;
                assert_string_equal(sp->name, cuzk_phase_name(sp->phase));
                assert_true(sp->start >= prev_end && sp->end <= t1);
                prev_end = sp->end;
                next++;
            } else if (sp->stream == 2) { /* a host call for the device work: named, inside the proof */
                assert_int_equal(sp->device, 0);
                assert_true(sp->start >= t0 && sp->end <= t1);
                assert_true(sp->name && sp->name[0] && strcmp(sp->name, cuzk_phase_name(sp->phase)));
                calls++;
            } else {
                assert_int_equal(sp->device, 0);
                assert_true(sp->start >= t0 - 1e-3 && sp->end <= t1 + 1e-3);
                assert_true(sp->stream == (strcmp(sp->name, "upload_witness") == 0));
                dev++;
            }
        }
        assert_int_equal(next, (int)(sizeof host / sizeof host[0]));
        assert_int_equal(dev, gpu ? 8 : 0); /* upload, abc, ntt, five MSMs */
        assert_true(gpu ? calls >= 5 : calls == 0); /* at least a slot, a lock, a, b and c allocated */
        cuzk_key_info ki;
        cuzk_key_get_info(key, &ki);
        if (gpu)
            assert_true(ki.device_peak > 0 && ki.device_peak <= ki.device_bytes);
        else
            assert_true(ki.device_peak == 0);
        cuzk_proof_free(p);
        cuzk_witness_free(w);
        cuzk_key_free(key);
        cuzk_ctx_free(ctx);
    }
}

/* The curve descriptions and operations tables agree with each other and
 * with the public names; sizes follow from the moduli. */
static void test_curve_tables(void **state)
{
    (void)state;
    int n = 0;
    for (const cuzk_curve_desc *const *dp = cuzk_curve_descs(); *dp; dp++, n++) {
        const cuzk_curve_desc *d = *dp;
        assert_ptr_equal(cuzk_curve_desc_get(d->curve), d);
        const cuzk_curve_ops *ops = cuzk_curve_ops_get(d->curve);
        assert_non_null(ops);
        assert_ptr_equal(ops->desc, d);
        assert_string_equal(cuzk_curve_name(d->curve), d->snarkjs_name);
        for (const char *const *a = d->aliases; *a; a++)
            assert_int_equal(cuzk_curve_from_name(*a), d->curve);
        assert_int_equal(cuzk_curve_from_name(d->snarkjs_name), d->curve);
        assert_int_equal(d->n8q, 8 * d->fq_limbs);
        assert_int_equal(d->g1_affine, 2 * d->n8q);
        assert_int_equal(d->g2_affine, 4 * d->n8q);
        assert_int_equal(d->g1_jac, 3 * d->n8q);
        assert_int_equal(d->g2_jac, 6 * d->n8q);
        /* bit lengths of the moduli */
        unsigned qb = 64 * d->fq_limbs, rb = 64 * d->fr_limbs;
        while (!(d->q[(qb - 1) / 64] >> ((qb - 1) % 64) & 1))
            qb--;
        while (!(d->r[(rb - 1) / 64] >> ((rb - 1) % 64) & 1))
            rb--;
        assert_int_equal(qb, d->fq_bits);
        assert_int_equal(rb, d->fr_bits);
        /* 2^s divides r - 1 exactly (r is odd: r - 1 clears bit 0 only). */
        unsigned s2 = 1;
        while (!(d->r[s2 / 64] >> (s2 % 64) & 1))
            s2++;
        assert_int_equal(s2, d->fr_two_adicity);
        /* Fr round trip through the ops table. */
        _Alignas(8) uint8_t raw[32] = {5, 4, 3, 2, 1}, mont[32], back[32]; /* limb-aligned */
        ops->fr_to_mont(mont, raw);
        ops->fr_from_mont(back, mont);
        assert_memory_equal(raw, back, 32);
        check_ops_kernels(ops);
    }
    assert_int_equal(n, 2);
    assert_null(cuzk_curve_desc_get(CUZK_CURVE_NONE));
    assert_null(cuzk_curve_ops_get(CUZK_CURVE_NONE));
    assert_int_equal(cuzk_curve_from_name("BLS12-381"), CUZK_CURVE_BLS12_381);
    assert_int_equal(cuzk_curve_from_name("alt_bn128"), CUZK_CURVE_BN254);
    assert_int_equal(cuzk_curve_from_name("secp256k1"), CUZK_CURVE_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phase_names),
        cmocka_unit_test(test_curve_tables),
        cmocka_unit_test(test_one_key_many_witnesses),
        cmocka_unit_test(test_fixed_rs),
        cmocka_unit_test(test_shared_key_and_pool),
        cmocka_unit_test(test_gpu_tier7),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_spans),
        cmocka_unit_test(test_wrong_witness),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
