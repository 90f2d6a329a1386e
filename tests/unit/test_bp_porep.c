/* The PoRep-shaped circuit in bellperson mode (bp_porep.c): the streamed
 * INSECURE parameters of cuzk_bp_setup_porep and the assignment of
 * cuzk_bp_circuit_porep.
 *  - The file equals, byte for byte, the in-memory bellperson setup of
 *    bp_setup.c (cuzk_bp_setup_build, itself checked against an independent
 *    prover in tests/interop/bp_prove.sh) run on the same circuit written as
 *    an r1cs (cuzk_porep_r1cs) with the same toxic waste; it loads in checked
 *    mode (every point in the subgroup) and its counts are those reported.
 *  - The assignment equals bp_setup.c's assignment of that r1cs and witness
 *    (cuzk_bp_circuit_make, which checks the witness against the r1cs);
 *    its proof verifies (cuzk_bp_prove, cuzk_bp_verify); the assignment of
 *    another seed is refused.
 *  - The file depends on the seed only: thread count and batch size do not
 *    change a byte; another seed changes it.
 *  - Host memory: the writer's peak (VmHWM of a child process) grows far
 *    less than the file between two sizes (a fixed ~15 MiB at small sizes:
 *    per-worker chunk buffers and one batch, in 2 MiB pages). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cuzk/bellperson.h"
#include "cuzk/gpu.h"
#include "groth16/bp_srs.h"
#include "groth16/porep.h"
#include "groth16/insecure.h"

static char DIR_[64];

static cuzk_ctx *mkctx(int threads)
{
    cuzk_ctx *ctx = NULL;
    cuzk_error e = {0};
    cuzk_ctx_opts co = {.threads = threads};
    if (cuzk_ctx_create(&ctx, &co, &e))
        fail_msg("%s", e.msg);
    return ctx;
}

static char *path(const char *name)
{
    static char buf[8][160];
    static int k;
    char *p = buf[k++ % 8];
    snprintf(p, 160, "%s/%s", DIR_, name);
    return p;
}

static uint8_t *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)sz + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)sz, f), (size_t)sz);
    fclose(f);
    *n = (size_t)sz;
    return b;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

static void setup_porep(cuzk_ctx *ctx, unsigned lg, uint64_t seed, uint64_t batch, const char *params,
                        const char *vk, cuzk_bp_porep_info *info)
{
    cuzk_error e = {0};
    cuzk_bp_porep_opts o = {.log_domain = lg, .seed = seed, .batch_points = batch};
    if (cuzk_bp_setup_porep(ctx, &o, params, vk, info, &e))
        fail_msg("%s", e.msg);
}

/* The streamed file = bp_setup.c's key of the same circuit and toxic waste. */
static void test_same_as_setup_build(void **st)
{
    (void)st;
    cuzk_ctx *ctx = mkctx(2);
    const unsigned lg = 13;
    const uint64_t seed = 21;
    cuzk_bp_porep_info in;
    setup_porep(ctx, lg, seed, 0, path("s.params"), path("s.vk"), &in);
    cuzk_porep_shape s;
    cuzk_r1cs r;
    cuzk_wtns w;
    cuzk_error e = {0};
    cuzk_bp_toxic tx;
    cuzk_bpk k;
    cuzk_bp_porep_toxic(&tx, seed, lg);
    if (cuzk_porep_shape_make(&s, CUZK_CURVE_BLS12_381, lg, &e) || cuzk_porep_r1cs(ctx, &s, seed, &r, &w, &e) ||
        cuzk_bp_setup_build(ctx, &r, &tx, &k, &e) || cuzk_bpk_write(&k, path("m.params"), path("m.vk"), ctx, &e))
        fail_msg("%s", e.msg);
    assert_true(same_file(path("s.params"), path("m.params")));
    assert_true(same_file(path("s.vk"), path("m.vk")));
    assert_int_equal(in.n_inputs, k.n_inp);
    assert_int_equal(in.n_l, k.n_aux);
    assert_int_equal(in.n_a, k.n_a);
    assert_int_equal(in.n_b, k.n_b);
    assert_int_equal(in.n_h, k.n - 1);
    struct stat sb;
    assert_int_equal(stat(path("s.params"), &sb), 0);
    assert_int_equal((uint64_t)sb.st_size, in.file_bytes);
    /* the PoRep profile: a_aux ~99.7 %, b_aux ~25 %, ONE the only input in B */
    const double da = (double)(in.n_a - in.n_inputs) / (double)in.n_l, db = (double)(in.n_b - 1) / (double)in.n_l;
    assert_true(da > 0.993 && da < 0.9995 && db > 0.23 && db < 0.27);

    /* the assignment = bp_setup.c's of the r1cs and witness */
    cuzk_bp_circuit *c1 = NULL, *c2 = NULL;
    if (cuzk_bp_circuit_make(&c1, ctx, &r, &w, "r", "w", &e) || cuzk_bp_circuit_porep(&c2, ctx, lg, seed, &e))
        fail_msg("%s", e.msg);
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(c1), *b = cuzk_bp_circuit_assignment(c2);
    assert_int_equal(a->abc_size, b->abc_size);
    assert_int_equal(a->inp_size, b->inp_size);
    assert_int_equal(a->aux_size, b->aux_size);
    assert_int_equal(a->a_aux_popcount, b->a_aux_popcount);
    assert_int_equal(a->b_inp_popcount, b->b_inp_popcount);
    assert_int_equal(a->b_aux_popcount, b->b_aux_popcount);
    assert_memory_equal(a->a, b->a, a->abc_size * 32);
    assert_memory_equal(a->b, b->b, a->abc_size * 32);
    assert_memory_equal(a->c, b->c, a->abc_size * 32);
    assert_memory_equal(a->inp, b->inp, a->inp_size * 32);
    assert_memory_equal(a->aux, b->aux, a->aux_size * 32);
    const size_t wa = (a->aux_size + 63) / 64, wi = (a->inp_size + 63) / 64;
    assert_memory_equal(a->a_aux_density, b->a_aux_density, wa * 8);
    assert_memory_equal(a->b_aux_density, b->b_aux_density, wa * 8);
    assert_memory_equal(a->b_inp_density, b->b_inp_density, wi * 8);
    cuzk_bp_circuit_free(c1);
    cuzk_bp_circuit_free(c2);
    cuzk_bpk_free(&k);
    cuzk_r1cs_free(&r);
    cuzk_wtns_free(&w);
    cuzk_ctx_free(ctx);
}

/* Checked load; the proof of the matching assignment verifies; another
 * seed's assignment is refused. */
static void test_prove(void **st)
{
    (void)st;
    cuzk_ctx *ctx = mkctx(2);
    cuzk_bp_porep_info in;
    setup_porep(ctx, 13, 4, 0, path("p.params"), NULL, &in);
    cuzk_error e = {0};
    cuzk_bp_srs *srs = NULL;
    cuzk_bp_srs_opts so = {.checked = 1};
    cuzk_bp_circuit *c = NULL, *c2 = NULL;
    if (cuzk_bp_srs_load(&srs, ctx, path("p.params"), &so, &e) || cuzk_bp_circuit_porep(&c, ctx, 13, 4, &e) ||
        cuzk_bp_circuit_porep(&c2, ctx, 13, 5, &e))
        fail_msg("%s", e.msg);
    cuzk_bp_srs_info si;
    cuzk_bp_srs_get_info(srs, &si);
    assert_int_equal(si.n_inputs, in.n_inputs);
    assert_int_equal(si.log_domain, 13);
    assert_int_equal(si.n_a, in.n_a);
    assert_int_equal(si.n_b, in.n_b);
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(c);
    cuzk_bp_fr r = {{3, 0, 0, 0}}, s = {{5, 0, 0, 0}};
    cuzk_bp_proof pf;
    if (cuzk_bp_prove(ctx, srs, a, 1, &r, &s, &pf, NULL, &e))
        fail_msg("%s", e.msg);
    assert_int_equal(cuzk_bp_verify(ctx, srs, &pf, a->inp + 1, a->inp_size - 1, &e), CUZK_OK);
    /* a tampered input fails */
    cuzk_bp_fr *inp = malloc(a->inp_size * sizeof *inp);
    assert_non_null(inp);
    memcpy(inp, a->inp, a->inp_size * sizeof *inp);
    inp[1].l[0] ^= 1;
    assert_int_equal(cuzk_bp_verify(ctx, srs, &pf, inp + 1, a->inp_size - 1, &e), CUZK_ERR_INVALID_PROOF);
    free(inp);
    /* another seed: other densities (or, were they equal, a failing proof) */
    assert_int_not_equal(cuzk_bp_prove(ctx, srs, cuzk_bp_circuit_assignment(c2), 1, &r, &s, &pf, NULL, &e), CUZK_OK);
    assert_int_equal(e.code, CUZK_ERR_MISMATCH);
    /* out-of-range sizes */
    cuzk_bp_circuit *bad = NULL;
    assert_int_equal(cuzk_bp_circuit_porep(&bad, ctx, 9, 1, &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_bp_circuit_porep(&bad, ctx, 28, 1, &e), CUZK_ERR_USAGE);
    cuzk_bp_porep_opts o = {.log_domain = 28};
    assert_int_equal(cuzk_bp_setup_porep(ctx, &o, path("x.params"), NULL, NULL, &e), CUZK_ERR_USAGE);
    assert_int_equal(access(path("x.params"), F_OK), -1);
    if (cuzk_gpu_device_count() == 0) { /* a GPU asked for where there is none */
        cuzk_bp_porep_opts g = {.log_domain = 10, .gpu = 1};
        assert_int_equal(cuzk_bp_setup_porep(ctx, &g, path("x.params"), NULL, NULL, &e), CUZK_ERR_GPU);
        assert_int_equal(access(path("x.params"), F_OK), -1);
    }
    cuzk_bp_circuit_free(c);
    cuzk_bp_circuit_free(c2);
    cuzk_bp_srs_free(srs);
    cuzk_ctx_free(ctx);
}

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1 /* slow, and its quarantine holds freed memory */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Threads and batch sizes do not change the file; the seed does. */
static void test_deterministic(void **st)
{
    (void)st;
    cuzk_ctx *c1 = mkctx(1), *c2 = mkctx(3);
    /* 2^15: several batches of 16384 points a section (not under the sanitizers: minutes there) */
    const unsigned lg = SANITIZED ? 12 : 15;
    setup_porep(c1, lg, 9, 0, path("d1.params"), NULL, NULL);
    setup_porep(c2, lg, 9, 16384, path("d2.params"), NULL, NULL);
    assert_true(same_file(path("d1.params"), path("d2.params")));
    setup_porep(c2, 12, 9, 0, path("d3.params"), NULL, NULL);
    setup_porep(c2, 12, 10, 0, path("d4.params"), NULL, NULL);
    assert_false(same_file(path("d3.params"), path("d4.params")));
    cuzk_ctx_free(c1);
    cuzk_ctx_free(c2);
}

static uint64_t status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    uint64_t v = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, strlen(key)))
            v = strtoull(line + strlen(key), NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* The writer's peak host memory over its start (a child process: VmHWM
 * starts at the RSS of the fork), in bytes. */
static uint64_t writer_peak(unsigned lg, const char *params)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        uint64_t rss0 = status_kb("VmRSS:");
        cuzk_ctx *ctx = NULL;
        cuzk_error e = {0};
        cuzk_ctx_opts co = {.threads = 1};
        cuzk_bp_porep_opts o = {.log_domain = lg, .seed = 2, .batch_points = 16384};
        uint64_t grow = UINT64_MAX;
        if (!cuzk_ctx_create(&ctx, &co, &e) && !cuzk_bp_setup_porep(ctx, &o, params, NULL, NULL, &e))
            grow = (status_kb("VmHWM:") - rss0) * 1024;
        if (write(fd[1], &grow, sizeof grow) != sizeof grow)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    uint64_t grow = UINT64_MAX;
    assert_int_equal(read(fd[0], &grow, sizeof grow), (ssize_t)sizeof grow);
    close(fd[0]);
    int ws;
    waitpid(pid, &ws, 0);
    assert_true(grow != UINT64_MAX);
    return grow;
}

static void test_memory(void **st)
{
    (void)st;
    if (SANITIZED)
        skip(); /* the sanitizer's shadow and quarantine are in the peak */
    const uint64_t p12 = writer_peak(12, path("m12.params")), p16 = writer_peak(16, path("m16.params"));
    struct stat s12, s16;
    assert_int_equal(stat(path("m12.params"), &s12), 0);
    assert_int_equal(stat(path("m16.params"), &s16), 0);
    const uint64_t f12 = (uint64_t)s12.st_size, f16 = (uint64_t)s16.st_size;
    print_message("writer peak over its start: 2^12 %.1f MiB (file %.1f MiB), 2^16 %.1f MiB (file %.1f MiB)\n",
                  p12 / 1048576.0, f12 / 1048576.0, p16 / 1048576.0, f16 / 1048576.0);
    /* A fixed part (per-worker chunk buffers, one batch: their first touch
     * maps 2 MiB pages, cuzk_alloc) and nothing that grows with the file: a
     * writer holding the key would grow by at least f16 - f12; half of it
     * leaves room for the threads' scheduling on a loaded machine. */
    assert_true(p16 < p12 + (f16 - f12) / 2);
}

static int setup_dir(void **state)
{
    (void)state;
    strcpy(DIR_, "/tmp/cuzk_bpp_XXXXXX");
    return mkdtemp(DIR_) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", DIR_);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_setup_build),
        cmocka_unit_test(test_prove),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_memory),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
