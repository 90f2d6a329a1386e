/* The bellperson-mode API (include/cuzk/bellperson.h) on the CPU backend:
 * several circuits in one call, each proof verified by cuzk_bp_verify and
 * equal to a proof of the same circuit alone; start / finish equal to
 * prove, drop; every kind of bad assignment refused with a one-line error
 * naming the circuit and the output zeroed; parameters of another circuit;
 * verification of tampered proofs and inputs; the 192-byte encoding
 * decoded again by the bellperson proof reader; the phases and device
 * intervals it reports (spans). The proofs themselves are
 * checked byte for byte against an independent prover in
 * tests/interop/bp_prove.sh. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>

#include "cuzk/bellperson.h"
#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_plan.h"
#include "formats/bellperson.h"
#include "groth16/bp.h"
#include "groth16/bp_srs.h"
#include "groth16/ctx.h"
#include "groth16/insecure.h"
#include "util/rng.h"

typedef struct {
    char dir[64], r1cs[96], wtns[96], params[96], r1cs2[96], wtns2[96], params2[96];
    cuzk_ctx *ctx;
    cuzk_bp_srs *srs;
    cuzk_bp_circuit *c;
} fixture;

static fixture F;

static void gen(const char *r1cs, const char *wtns, const char *params, uint64_t cons, uint32_t pub, uint64_t seed)
{
    cuzk_error e = {0};
    cuzk_gen_opts go = {.curve = CUZK_CURVE_BLS12_381, .constraints = cons, .public_inputs = pub, .seed = seed};
    assert_int_equal(cuzk_gen_files(F.ctx, &go, r1cs, wtns, &e), CUZK_OK);
    assert_int_equal(cuzk_bp_setup_files(F.ctx, r1cs, params, NULL, &e), CUZK_OK);
}

static int setup_all(void **state)
{
    (void)state;
    strcpy(F.dir, "/tmp/cuzk_bp_XXXXXX");
    if (!mkdtemp(F.dir))
        return -1;
    snprintf(F.r1cs, sizeof F.r1cs, "%s/a.r1cs", F.dir);
    snprintf(F.wtns, sizeof F.wtns, "%s/a.wtns", F.dir);
    snprintf(F.params, sizeof F.params, "%s/a.params", F.dir);
    snprintf(F.r1cs2, sizeof F.r1cs2, "%s/b.r1cs", F.dir);
    snprintf(F.wtns2, sizeof F.wtns2, "%s/b.wtns", F.dir);
    snprintf(F.params2, sizeof F.params2, "%s/b.params", F.dir);
    cuzk_error e = {0};
    cuzk_ctx_opts co = {.threads = 2};
    if (cuzk_ctx_create(&F.ctx, &co, &e))
        return -1;
    gen(F.r1cs, F.wtns, F.params, 300, 3, 11);
    gen(F.r1cs2, F.wtns2, F.params2, 300, 3, 12); /* same sizes, another circuit */
    if (cuzk_bp_srs_load(&F.srs, F.ctx, F.params, NULL, &e) || cuzk_bp_circuit_load(&F.c, F.ctx, F.r1cs, F.wtns, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return -1;
    }
    return 0;
}

static int teardown_all(void **state)
{
    (void)state;
    cuzk_bp_circuit_free(F.c);
    cuzk_bp_srs_free(F.srs);
    cuzk_ctx_free(F.ctx);
    const char *files[] = {F.r1cs, F.wtns, F.params, F.r1cs2, F.wtns2, F.params2};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        unlink(files[i]);
    rmdir(F.dir);
    return 0;
}

/* A Montgomery scalar of a small integer. */
static cuzk_bp_fr fr_of(uint64_t v)
{
    cuzk_bp_fr x;
    bls12_381_fr_from_u64((bls12_381_fr_t *)x.l, v);
    return x;
}

static bool all_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

static void test_prove_many(void **state)
{
    (void)state;
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_assignment as[3] = {*a, *a, *a};
    cuzk_bp_fr r[3] = {fr_of(5), fr_of(6), fr_of(0)}, s[3] = {fr_of(7), fr_of(8), fr_of(0)};
    cuzk_bp_proof out[3], one;
    cuzk_error e = {0};
    assert_int_equal(cuzk_bp_prove(F.ctx, F.srs, as, 3, r, s, out, NULL, &e), CUZK_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(cuzk_bp_verify(F.ctx, F.srs, &out[i], a->inp + 1, a->inp_size - 1, &e), CUZK_OK);
    assert_memory_not_equal(&out[0], &out[1], sizeof out[0]);
    /* the same circuit alone, the same r, s: the same proof */
    assert_int_equal(cuzk_bp_prove(F.ctx, F.srs, a, 1, &r[1], &s[1], &one, NULL, &e), CUZK_OK);
    assert_memory_equal(&one, &out[1], sizeof one);
    /* start / finish give the same proofs */
    cuzk_bp_pending *q = NULL;
    cuzk_bp_proof out2[3];
    assert_int_equal(cuzk_bp_prove_start(F.ctx, F.srs, as, 3, r, s, NULL, &q, &e), CUZK_OK);
    assert_non_null(q);
    assert_int_equal(cuzk_bp_prove_finish(q, out2, &e), CUZK_OK);
    assert_memory_equal(out, out2, sizeof out);
    /* drop discards */
    assert_int_equal(cuzk_bp_prove_start(F.ctx, F.srs, as, 2, r, s, NULL, &q, &e), CUZK_OK);
    cuzk_bp_prove_drop(q);
    cuzk_bp_prove_drop(NULL);
    /* evict is a no-op on the CPU; proving goes on */
    cuzk_bp_srs_evict(F.srs);
    assert_int_equal(cuzk_bp_prove(F.ctx, F.srs, a, 1, &r[1], &s[1], &one, NULL, &e), CUZK_OK);
    assert_memory_equal(&one, &out[1], sizeof one);
    cuzk_bp_srs_info in;
    cuzk_bp_srs_get_info(F.srs, &in);
    assert_int_equal(in.n_inputs, a->inp_size);
    assert_int_equal(in.n_l, a->aux_size);
    assert_int_equal(in.n_a, a->inp_size + a->a_aux_popcount);
    assert_int_equal(in.n_b, a->b_inp_popcount + a->b_aux_popcount);
    assert_int_equal(in.n_h + 1, (uint64_t)1 << in.log_domain);
    assert_int_equal(in.backend, CUZK_BACKEND_CPU);
}

/* One bad field in circuit 1 of 2: the error names circuit 1 and the
 * field, the output is zeroed. */
static void expect_bad(cuzk_bp_assignment *bad, const cuzk_bp_fr *r, const cuzk_bp_fr *s, cuzk_status want,
                       const char *needle)
{
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_assignment as[2] = {*a, *bad};
    cuzk_bp_fr rr[2] = {fr_of(1), r ? *r : fr_of(2)}, ss[2] = {fr_of(3), s ? *s : fr_of(4)};
    cuzk_bp_proof out[2];
    memset(out, 0xaa, sizeof out);
    cuzk_error e = {0};
    cuzk_status st = cuzk_bp_prove(F.ctx, F.srs, as, 2, rr, ss, out, NULL, &e);
    if (st != want || !strstr(e.msg, needle) || strchr(e.msg, '\n'))
        fail_msg("expected %d with '%s', got %d: %s", (int)want, needle, (int)st, e.msg);
    assert_true(all_zero(out, sizeof out));
    /* start refuses it at once */
    cuzk_bp_pending *q = (cuzk_bp_pending *)1;
    /* found while proving (verification, a value >= r) or by the checks before */
    const bool late = strstr(needle, "verification") || strstr(needle, "aux[") || strstr(needle, "c[");
    assert_int_equal(cuzk_bp_prove_start(F.ctx, F.srs, as, 2, rr, ss, NULL, &q, &e) == CUZK_OK, late);
    if (q && q != (cuzk_bp_pending *)1) {
        assert_int_equal(cuzk_bp_prove_finish(q, out, &e), want);
        assert_true(all_zero(out, sizeof out));
    }
}

static void test_bad_assignments(void **state)
{
    (void)state;
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_assignment b;
    /* sizes */
    b = *a, b.aux_size++, b.a_aux_bit_len++, b.b_aux_bit_len++;
    expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: aux_size");
    b = *a, b.inp_size--, b.b_inp_bit_len--;
    expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: inp_size");
    b = *a, b.abc_size = 1u << 20;
    expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: abc_size");
    b = *a, b.b_inp_bit_len++;
    expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: density bit lengths");
    /* popcounts */
    b = *a, b.a_aux_popcount++;
    expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: a_aux_popcount");
    b = *a, b.b_aux_popcount--;
    expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: b_aux_popcount");
    /* a density with the right popcount but another bit set: the proof fails verification */
    uint64_t *dens = malloc(((a->aux_size + 63) / 64) * 8);
    memcpy(dens, a->a_aux_density, ((a->aux_size + 63) / 64) * 8);
    size_t on = 0, off = 0;
    while (!((dens[on / 64] >> (on % 64)) & 1))
        on++;
    while ((dens[off / 64] >> (off % 64)) & 1)
        off++;
    if (off < a->aux_size) {
        dens[on / 64] ^= UINT64_C(1) << (on % 64);
        dens[off / 64] ^= UINT64_C(1) << (off % 64);
        b = *a, b.a_aux_density = dens;
        expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: the proof fails verification");
    }
    free(dens);
    /* NULL with a size */
    b = *a, b.aux = NULL;
    expect_bad(&b, NULL, NULL, CUZK_ERR_USAGE, "circuit 1: a NULL pointer");
    /* ONE */
    cuzk_bp_fr *inp = malloc(a->inp_size * sizeof *inp);
    memcpy(inp, a->inp, a->inp_size * sizeof *inp);
    inp[0] = fr_of(2);
    b = *a, b.inp = inp;
    expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: inp[0]");
    /* a public input changed: the assignment no longer satisfies the circuit */
    inp[0] = fr_of(1);
    bls12_381_fr_add((bls12_381_fr_t *)inp[1].l, (const bls12_381_fr_t *)inp[1].l, (const bls12_381_fr_t *)fr_of(1).l);
    expect_bad(&b, NULL, NULL, CUZK_ERR_MISMATCH, "circuit 1: the proof fails verification");
    free(inp);
    /* values not below r */
    cuzk_bp_fr *aux = malloc(a->aux_size * sizeof *aux);
    memcpy(aux, a->aux, a->aux_size * sizeof *aux);
    memcpy(aux[a->aux_size - 1].l, bls12_381_fr_MODULUS.l, 32);
    b = *a, b.aux = aux;
    expect_bad(&b, NULL, NULL, CUZK_ERR_USAGE, "circuit 1: aux[");
    free(aux);
    cuzk_bp_fr *cv = malloc(a->abc_size * sizeof *cv); /* and in c */
    memcpy(cv, a->c, a->abc_size * sizeof *cv);
    memset(cv[a->abc_size / 2].l, 0xff, 32);
    b = *a, b.c = cv;
    expect_bad(&b, NULL, NULL, CUZK_ERR_USAGE, "circuit 1: c[");
    free(cv);
    cuzk_bp_fr big;
    memset(big.l, 0xff, sizeof big.l);
    b = *a;
    expect_bad(&b, &big, NULL, CUZK_ERR_USAGE, "circuit 1: r or s");
}

static void test_other_circuit(void **state)
{
    (void)state;
    cuzk_bp_srs *other = NULL;
    cuzk_error e = {0};
    assert_int_equal(cuzk_bp_srs_load(&other, F.ctx, F.params2, NULL, &e), CUZK_OK);
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_fr r = fr_of(9), s = fr_of(10);
    cuzk_bp_proof out;
    cuzk_status st = cuzk_bp_prove(F.ctx, other, a, 1, &r, &s, &out, NULL, &e);
    assert_int_equal(st, CUZK_ERR_MISMATCH);
    assert_non_null(strstr(e.msg, "circuit 0: "));
    /* unverified, the proof is made and is invalid for the other key */
    cuzk_bp_prove_opts po = {.no_verify = 1};
    cuzk_status st2 = cuzk_bp_prove(F.ctx, other, a, 1, &r, &s, &out, &po, &e);
    if (st2 == CUZK_OK)
        assert_int_equal(cuzk_bp_verify(F.ctx, other, &out, a->inp + 1, a->inp_size - 1, &e), CUZK_ERR_INVALID_PROOF);
    cuzk_bp_srs_free(other);
    /* a file that is not there */
    assert_int_equal(cuzk_bp_srs_load(&other, F.ctx, "/nonexistent/x.params", NULL, &e), CUZK_ERR_IO);
    assert_null(other);
}

static void test_verify_and_bytes(void **state)
{
    (void)state;
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_fr r = fr_of(123), s = fr_of(456);
    cuzk_bp_proof p;
    cuzk_error e = {0};
    assert_int_equal(cuzk_bp_prove(F.ctx, F.srs, a, 1, &r, &s, &p, NULL, &e), CUZK_OK);
    size_t np = a->inp_size - 1;
    assert_int_equal(cuzk_bp_verify(F.ctx, F.srs, &p, a->inp + 1, np, &e), CUZK_OK);
    assert_int_equal(cuzk_bp_verify(F.ctx, F.srs, &p, a->inp + 1, np - 1, &e), CUZK_ERR_MISMATCH);
    cuzk_bp_fr *in = malloc(np * sizeof *in);
    memcpy(in, a->inp + 1, np * sizeof *in);
    in[np - 1] = fr_of(77);
    assert_int_equal(cuzk_bp_verify(F.ctx, F.srs, &p, in, np, &e), CUZK_ERR_INVALID_PROOF);
    free(in);
    cuzk_bp_proof t = p; /* A and C swapped: valid points, invalid proof */
    memcpy(t.a, p.c, sizeof t.a);
    memcpy(t.c, p.a, sizeof t.c);
    assert_int_equal(cuzk_bp_verify(F.ctx, F.srs, &t, a->inp + 1, np, &e), CUZK_ERR_INVALID_PROOF);
    t = p; /* off the curve */
    t.a[0] ^= 1;
    assert_int_equal(cuzk_bp_verify(F.ctx, F.srs, &t, a->inp + 1, np, &e), CUZK_ERR_INVALID_PROOF);
    uint8_t b[192];
    assert_int_equal(cuzk_bp_proof_to_bytes(&t, b, &e), CUZK_ERR_USAGE);
    /* the 192 bytes decode (with subgroup checks) to the same points */
    assert_int_equal(cuzk_bp_proof_to_bytes(&p, b, &e), CUZK_OK);
    cuzk_proof_points pt;
    assert_int_equal(cuzk_bp_proof_decode(&pt, b, "proof", 0, &e), CUZK_OK);
    assert_memory_equal(&pt.a.bls12_381, p.a, sizeof p.a);
    assert_memory_equal(&pt.b.bls12_381, p.b, sizeof p.b);
    assert_memory_equal(&pt.c.bls12_381, p.c, sizeof p.c);
}

/* Backend choice: GPU where there is none is refused with one line, AUTO
 * falls back to the CPU and proves the same proof. */
static void test_backends(void **state)
{
    (void)state;
    cuzk_error e = {0};
    cuzk_bp_srs *g = NULL;
    cuzk_bp_srs_opts o = {.backend = CUZK_BACKEND_GPU};
    cuzk_status st = cuzk_bp_srs_load(&g, F.ctx, F.params, &o, &e);
    if (st == CUZK_OK) { /* a machine with a GPU: the GPU proof equals the CPU proof */
        const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
        cuzk_bp_fr r = fr_of(31), s = fr_of(32);
        cuzk_bp_proof pg, pc;
        assert_int_equal(cuzk_bp_prove(F.ctx, g, a, 1, &r, &s, &pg, NULL, &e), CUZK_OK);
        assert_int_equal(cuzk_bp_prove(F.ctx, F.srs, a, 1, &r, &s, &pc, NULL, &e), CUZK_OK);
        assert_memory_equal(&pg, &pc, sizeof pg);
        cuzk_bp_srs_evict(g); /* the next proof prepares the device again */
        assert_int_equal(cuzk_bp_prove(F.ctx, g, a, 1, &r, &s, &pg, NULL, &e), CUZK_OK);
        assert_memory_equal(&pg, &pc, sizeof pg);
        /* a witness value not below r, met while the GPU packs it: one line naming it; the key goes on */
        cuzk_bp_fr *aux = malloc(a->aux_size * sizeof *aux);
        assert_non_null(aux);
        memcpy(aux, a->aux, a->aux_size * sizeof *aux);
        memcpy(aux[a->aux_size / 2].l, bls12_381_fr_MODULUS.l, 32);
        cuzk_bp_assignment b = *a;
        b.aux = aux;
        assert_int_equal(cuzk_bp_prove(F.ctx, g, &b, 1, &r, &s, &pg, NULL, &e), CUZK_ERR_USAGE);
        char want[64];
        snprintf(want, sizeof want, "circuit 0: aux[%zu] is not below", a->aux_size / 2);
        if (!strstr(e.msg, want))
            fail_msg("GPU, aux not below r: %s", e.msg);
        assert_null(strchr(e.msg, '\n'));
        free(aux);
        assert_int_equal(cuzk_bp_prove(F.ctx, g, a, 1, &r, &s, &pg, NULL, &e), CUZK_OK);
        assert_memory_equal(&pg, &pc, sizeof pg);
        cuzk_bp_srs_free(g);
    } else {
        assert_true(st == CUZK_ERR_UNSUPPORTED || st == CUZK_ERR_GPU);
        assert_null(g);
        assert_null(strchr(e.msg, '\n'));
    }
    o.backend = CUZK_BACKEND_AUTO;
    assert_int_equal(cuzk_bp_srs_load(&g, F.ctx, F.params, &o, &e), CUZK_OK);
    cuzk_bp_srs_free(g);
    o.backend = (cuzk_backend)7;
    assert_int_equal(cuzk_bp_srs_load(&g, F.ctx, F.params, &o, &e), CUZK_ERR_USAGE);
    assert_null(g);
}

/* On a GPU, tier 7 (the witness on the host; a, b, c staged into one
 * device vector, one page-locked domain vector per worker, the quotient on
 * the device): 3 circuits with 2 workers prove the CPU's proofs byte for
 * byte, twice (the slots' buffers reused), and a value of c not below r is
 * refused naming it (found while staging c). A 2^16 circuit: the smaller
 * ones' least budget is tier 6's, they never plan tier 7. The cap is the
 * least budget of the file's plan, tier 7's, with 2 workers; the loaded
 * parameters plan the same peak. Skipped without a GPU (the file is made
 * only then). */
static void test_gpu_tier7(void **state)
{
    (void)state;
    if (cuzk_gpu_device_count() == 0)
        skip();
    char r1cs[96], wtns[96], params[96];
    snprintf(r1cs, sizeof r1cs, "%s/t7.r1cs", F.dir);
    snprintf(wtns, sizeof wtns, "%s/t7.wtns", F.dir);
    snprintf(params, sizeof params, "%s/t7.params", F.dir);
    gen(r1cs, wtns, params, ((uint64_t)1 << 16) - 4, 3, 16);
    cuzk_error e = {0};
    cuzk_gpu_key_shape shape;
    assert_int_equal(cuzk_bp_key_shape_read(params, &shape, &e), CUZK_OK);
    /* the cap: the least budget any tier fits, which tier 7 is at 2^16 */
    cuzk_gpu_plan plan;
    cuzk_gpu_plan_opts po = {.device = 0, .budget = (size_t)2 << 30, .workers = 2};
    assert_int_equal(cuzk_gpu_plan_proof(&shape, &po, &plan, &e), CUZK_OK);
    assert_int_equal(plan.least_tier, CUZK_GPU_TIER_HOST_WITNESS);
    const uint64_t cap = plan.least_budget;
    po.budget = (size_t)cap;
    assert_int_equal(cuzk_gpu_plan_proof(&shape, &po, &plan, &e), CUZK_OK);
    assert_int_equal(plan.tier, CUZK_GPU_TIER_HOST_WITNESS);
    assert_int_equal(plan.workers, 2);
    const uint64_t peak = plan.peak;
    cuzk_bp_srs *g = NULL, *c = NULL;
    cuzk_bp_circuit *circ = NULL;
    cuzk_bp_srs_opts o = {.backend = CUZK_BACKEND_GPU, .device_budget = cap, .gpu_workers = 2};
    assert_int_equal(cuzk_bp_srs_load(&g, F.ctx, params, &o, &e), CUZK_OK);
    assert_int_equal(cuzk_bp_srs_load(&c, F.ctx, params, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_bp_circuit_load(&circ, F.ctx, r1cs, wtns, &e), CUZK_OK);
    cuzk_bp_srs_info in;
    cuzk_bp_srs_get_info(g, &in);
    assert_int_equal(in.device_bytes, peak);
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(circ);
    cuzk_bp_assignment as[3] = {*a, *a, *a};
    cuzk_bp_fr r[3] = {fr_of(5), fr_of(6), fr_of(7)}, s[3] = {fr_of(8), fr_of(9), fr_of(10)};
    cuzk_bp_proof pg[3], pc[3];
    assert_int_equal(cuzk_bp_prove(F.ctx, c, as, 3, r, s, pc, NULL, &e), CUZK_OK);
    for (int rep = 0; rep < 2; rep++) {
        memset(pg, 0, sizeof pg);
        if (cuzk_bp_prove(F.ctx, g, as, 3, r, s, pg, NULL, &e) != CUZK_OK)
            fail_msg("tier 7: %s", e.msg);
        assert_memory_equal(pg, pc, sizeof pg);
    }
    cuzk_bp_fr *cv = malloc(a->abc_size * sizeof *cv);
    assert_non_null(cv);
    memcpy(cv, a->c, a->abc_size * sizeof *cv);
    memcpy(cv[a->abc_size / 3].l, bls12_381_fr_MODULUS.l, 32);
    as[1].c = cv;
    assert_int_equal(cuzk_bp_prove(F.ctx, g, as, 3, r, s, pg, NULL, &e), CUZK_ERR_USAGE);
    char want[64];
    snprintf(want, sizeof want, "circuit 1: c[%zu] is not below", (size_t)(a->abc_size / 3));
    if (!strstr(e.msg, want))
        fail_msg("tier 7, c not below r: %s", e.msg);
    free(cv);
    cuzk_bp_circuit_free(circ);
    cuzk_bp_srs_free(c);
    cuzk_bp_srs_free(g);
    const char *files[] = {r1cs, wtns, params};
    for (int i = 0; i < 3; i++)
        unlink(files[i]);
}

/* Freeing parameters loaded without a file mapping (the CPU) closes no file
 * descriptor it does not own: fd 0 stays open (a stray close(0) let another
 * thread's next file take descriptor 0 and the next free close it). */
static void test_free_keeps_fds(void **state)
{
    (void)state;
    int dummy = -1;
    if (fcntl(0, F_GETFD) == -1) /* fd 0 closed already: give it a file to keep */
        assert_int_equal(dummy = open("/dev/null", O_RDONLY), 0);
    cuzk_error e = {0};
    cuzk_bp_srs *p = NULL;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(cuzk_bp_srs_load(&p, F.ctx, F.params, NULL, &e), CUZK_OK);
        cuzk_bp_srs_free(p);
        assert_int_not_equal(fcntl(0, F_GETFD), -1);
    }
    if (dummy == 0)
        close(dummy);
}

/* The spans a context receives (its callback may be called from W threads at once). */
typedef struct {
    pthread_mutex_t mu;
    size_t n, bad;
    unsigned host[CUZK_PHASE_COUNT], dev[CUZK_PHASE_COUNT], upload, calls; /* counts per phase; host calls */
    int max_worker, max_slot, device;
    unsigned worker_mask; /* host spans' workers seen (bit w) */
} span_log;

static void on_span(void *user, const cuzk_span *sp)
{
    span_log *l = user;
    pthread_mutex_lock(&l->mu);
    l->n++;
    if (!sp->name || (unsigned)sp->phase >= CUZK_PHASE_COUNT || !(sp->end >= sp->start) || sp->worker < 0)
        l->bad++;
    else if (sp->device < 0) {
        if (strcmp(sp->name, cuzk_phase_name(sp->phase)))
            l->bad++;
        l->host[sp->phase]++;
        if (sp->worker < 32)
            l->worker_mask |= 1u << sp->worker;
        if (sp->worker > l->max_worker)
            l->max_worker = sp->worker;
    } else if (sp->stream == 2) { /* a host call for the device work */
        if (!sp->name[0] || !strcmp(sp->name, cuzk_phase_name(sp->phase)))
            l->bad++;
        l->calls++;
    } else {
        if (!strcmp(sp->name, "upload_witness"))
            l->upload++;
        else if (strcmp(sp->name, cuzk_phase_name(sp->phase)))
            l->bad++;
        else
            l->dev[sp->phase]++;
        if (sp->worker > l->max_slot)
            l->max_slot = sp->worker;
        l->device = sp->device;
    }
    pthread_mutex_unlock(&l->mu);
}

/* What cuzk_bp_prove reports: per circuit the host phases prep_scalars ..
 * verify (named as cuzk_phase_name says, on worker 0 on the CPU); with a GPU
 * (2 workers, 4 circuits) also every device interval of every circuit, the
 * host spans on the worker threads 0 .. 1 and the device ones on slots 0 .. 1. */
static void test_spans(void **state)
{
    (void)state;
    static const cuzk_phase per_circuit[] = {CUZK_PHASE_PREP_SCALARS, CUZK_PHASE_ABC,    CUZK_PHASE_NTT,
                                             CUZK_PHASE_MSM_H,        CUZK_PHASE_MSM_A,  CUZK_PHASE_MSM_B1,
                                             CUZK_PHASE_MSM_C,        CUZK_PHASE_MSM_B2, CUZK_PHASE_ASSEMBLE,
                                             CUZK_PHASE_VERIFY};
    assert_string_equal(cuzk_phase_name(CUZK_PHASE_PREP_SCALARS), "prep_scalars");
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_assignment as[4] = {*a, *a, *a, *a};
    cuzk_bp_fr r[4] = {fr_of(1), fr_of(2), fr_of(3), fr_of(4)}, s[4] = {fr_of(5), fr_of(6), fr_of(7), fr_of(8)};
    cuzk_bp_proof out[4];
    cuzk_error e = {0};
    for (int gpu = 0; gpu < 2; gpu++) {
        span_log l = {.max_worker = -1, .max_slot = -1, .device = -1};
        pthread_mutex_init(&l.mu, NULL);
        cuzk_ctx *ctx = NULL;
        cuzk_ctx_opts co = {.threads = 2, .span = on_span, .user = &l};
        assert_int_equal(cuzk_ctx_create(&ctx, &co, &e), CUZK_OK);
        cuzk_bp_srs *p = F.srs;
        const size_t n = gpu ? 4 : 3;
        if (gpu) {
            cuzk_bp_srs_opts o = {.backend = CUZK_BACKEND_GPU, .gpu_workers = 2};
            if (cuzk_bp_srs_load(&p, ctx, F.params, &o, &e) != CUZK_OK) { /* no GPU here */
                cuzk_ctx_free(ctx);
                pthread_mutex_destroy(&l.mu);
                break;
            }
            memset(&l.host, 0, sizeof l.host); /* the load's phases */
        }
        assert_int_equal(cuzk_bp_prove(ctx, p, as, n, r, s, out, NULL, &e), CUZK_OK);
        assert_int_equal(l.bad, 0);
        for (size_t i = 0; i < sizeof per_circuit / sizeof *per_circuit; i++)
            if (l.host[per_circuit[i]] != n)
                fail_msg("%s: %u host spans for %zu circuits", cuzk_phase_name(per_circuit[i]),
                         l.host[per_circuit[i]], n);
        if (!gpu) {
            assert_int_equal(l.max_worker, 0);
            assert_int_equal(l.max_slot, -1); /* no device spans */
            assert_int_equal(l.calls, 0);
        } else {
            assert_true(l.max_worker >= 0 && l.max_worker <= 1);
            assert_true(l.max_slot >= 0 && l.max_slot <= 1);
            assert_int_equal(l.device, 0);
            assert_int_equal(l.upload, n);
            assert_true(l.calls >= 5 * n); /* per circuit at least a slot, a lock, a, b and c allocated */
            for (size_t i = 1; i < 8; i++) /* abc .. msm_b2 on the device */
                if (l.dev[per_circuit[i]] != n)
                    fail_msg("gpu.%s: %u device spans for %zu circuits", cuzk_phase_name(per_circuit[i]),
                             l.dev[per_circuit[i]], n);
            cuzk_bp_srs_free(p);
        }
        cuzk_ctx_free(ctx);
        pthread_mutex_destroy(&l.mu);
    }
}

/* Several devices (cuzk_bp_srs_opts.device_count, cuzk_bp_prove_opts
 * pin_device): counts out of range refused before any load with one line
 * naming the file; on the CPU one device, one worker, and a pinned device
 * refused (the output zeroed). With a GPU: the parameters prepared twice on
 * device 0 (cuzk_bp_srs_load_on: two devices' worth of plans and workers on
 * one card) prove 6 circuits with 4 threads, thread t first proving circuit
 * t (so both preparations prove: the host spans come from workers 0 .. 3,
 * threads 1 and 3 on the second), equal to the CPU's proofs byte for byte;
 * pinned to device 0 (both preparations) the same; pinned to device 1 (not
 * theirs) refused; a host budget for one and a half preparations refused
 * at the second, naming it (for two and a half, both prepared); device_count
 * -1 takes every visible device. */
static void test_devices(void **state)
{
    (void)state;
    cuzk_error e = {0};
    cuzk_bp_srs *g = NULL;
    const int counts[] = {-2, CUZK_BP_MAX_DEVICES + 1, CUZK_BP_MAX_DEVICES};
    cuzk_bp_srs_opts neg = {.backend = CUZK_BACKEND_GPU, .device = -1, .device_count = -1};
    assert_int_equal(cuzk_bp_srs_load(&g, F.ctx, F.params, &neg, &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "device -1 is not a CUDA device index"));
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        if (counts[i] == CUZK_BP_MAX_DEVICES && cuzk_gpu_device_count() >= CUZK_BP_MAX_DEVICES)
            continue;
        cuzk_bp_srs_opts o = {.backend = CUZK_BACKEND_GPU, .device_count = counts[i]};
        assert_int_equal(cuzk_bp_srs_load(&g, F.ctx, F.params, &o, &e), CUZK_ERR_USAGE);
        assert_null(g);
        if (!strstr(e.msg, F.params) || strchr(e.msg, '\n'))
            fail_msg("device_count %d: %s", counts[i], e.msg);
    }
    if (cuzk_gpu_device_count() == 0) { /* AUTO without a GPU: the CPU, whatever the count */
        cuzk_bp_srs_opts o = {.backend = CUZK_BACKEND_AUTO, .device_count = 4};
        assert_int_equal(cuzk_bp_srs_load(&g, F.ctx, F.params, &o, &e), CUZK_OK);
        cuzk_bp_srs_info ai;
        cuzk_bp_srs_get_info(g, &ai);
        assert_int_equal(ai.backend, CUZK_BACKEND_CPU);
        assert_int_equal(ai.n_devices, 1);
        cuzk_bp_srs_free(g);
        g = NULL;
    }
    cuzk_bp_srs_info in;
    cuzk_bp_srs_get_info(F.srs, &in);
    assert_int_equal(in.n_devices, 1);
    assert_int_equal(in.workers, 1);
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    enum { N = 6 };
    cuzk_bp_assignment as[N];
    cuzk_bp_fr r[N], s[N];
    cuzk_bp_proof pc[N], pg[N];
    for (int i = 0; i < N; i++) {
        as[i] = *a;
        r[i] = fr_of(40 + (uint64_t)i);
        s[i] = fr_of(50 + (uint64_t)i);
    }
    cuzk_bp_prove_opts pin = {.pin_device = 1, .device = 0};
    memset(pg, 0xff, sizeof pg);
    assert_int_equal(cuzk_bp_prove(F.ctx, F.srs, as, N, r, s, pg, &pin, &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "on the CPU"));
    assert_true(all_zero(pg, sizeof pg));
    assert_int_equal(cuzk_bp_prove(F.ctx, F.srs, as, N, r, s, pc, NULL, &e), CUZK_OK);

    cuzk_bp_srs_opts o = {.backend = CUZK_BACKEND_GPU, .gpu_workers = 2};
    const int twice[2] = {0, 0};
    if (cuzk_gpu_device_count() < 1 ||
        cuzk_bp_srs_load_on(&g, F.ctx, F.params, &o, twice, 2, &e) != CUZK_OK) /* no GPU here */
        return;
    cuzk_bp_srs_get_info(g, &in);
    assert_int_equal(in.n_devices, 2);
    assert_int_equal(in.workers, 4);
    span_log l = {.max_worker = -1, .max_slot = -1, .device = -1};
    pthread_mutex_init(&l.mu, NULL);
    cuzk_ctx *ctx = NULL;
    cuzk_ctx_opts co = {.threads = 2, .span = on_span, .user = &l};
    assert_int_equal(cuzk_ctx_create(&ctx, &co, &e), CUZK_OK);
    if (cuzk_bp_prove(ctx, g, as, N, r, s, pg, NULL, &e) != CUZK_OK)
        fail_msg("two preparations: %s", e.msg);
    assert_memory_equal(pg, pc, sizeof pg);
    assert_int_equal(l.bad, 0);
    assert_int_equal(l.worker_mask, 0xf);
    assert_int_equal(l.host[CUZK_PHASE_VERIFY], N);
    memset(pg, 0, sizeof pg);
    assert_int_equal(cuzk_bp_prove(ctx, g, as, N, r, s, pg, &pin, &e), CUZK_OK);
    assert_memory_equal(pg, pc, sizeof pg);
    cuzk_bp_pending *q = NULL;
    assert_int_equal(cuzk_bp_prove_start(ctx, g, as, N, r, s, &pin, &q, &e), CUZK_OK);
    memset(pg, 0, sizeof pg);
    assert_int_equal(cuzk_bp_prove_finish(q, pg, &e), CUZK_OK);
    assert_memory_equal(pg, pc, sizeof pg);
    pin.device = 1;
    assert_int_equal(cuzk_bp_prove(ctx, g, as, N, r, s, pg, &pin, &e), CUZK_ERR_USAGE);
    assert_non_null(strstr(e.msg, "device 1 pinned"));
    assert_int_equal(cuzk_bp_prove_start(ctx, g, as, N, r, s, &pin, &q, &e), CUZK_ERR_USAGE);
    assert_null(q);
    cuzk_bp_srs_free(g);
    cuzk_ctx_free(ctx);
    pthread_mutex_destroy(&l.mu);
    /* a host budget is shared: the second preparation plans within what the
     * first's host plan left (P: one preparation's planned peak, key mapped) */
    cuzk_gpu_key_shape shape;
    assert_int_equal(cuzk_bp_key_shape_read(F.params, &shape, &e), CUZK_OK);
    cuzk_gpu_plan plan;
    cuzk_gpu_plan_opts po = {.device = 0, .budget = (size_t)1 << 30, .workers = 2};
    po.host.budget = SIZE_MAX;
    po.host.key_mapped = 1;
    assert_int_equal(cuzk_gpu_plan_proof(&shape, &po, &plan, &e), CUZK_OK);
    const uint64_t P = plan.host.peak;
    o.device_budget = (uint64_t)1 << 30;
    o.host_budget = P * 5 / 2; /* both fit */
    assert_int_equal(cuzk_bp_srs_load_on(&g, F.ctx, F.params, &o, twice, 2, &e), CUZK_OK);
    cuzk_bp_srs_get_info(g, &in);
    assert_int_equal(in.workers, 4);
    cuzk_bp_srs_free(g);
    o.host_budget = P * 3 / 2; /* the first fits, the second has half of one plan left */
    assert_int_equal(cuzk_bp_srs_load_on(&g, F.ctx, F.params, &o, twice, 2, &e), CUZK_ERR_NOMEM);
    assert_null(g);
    if (!strstr(e.msg, "GPU 0 (device 2 of 2): ") || strchr(e.msg, '\n'))
        fail_msg("the second device over the shared host budget: %s", e.msg);
    o.device_budget = o.host_budget = 0;
    o.device_count = -1;
    assert_int_equal(cuzk_bp_srs_load(&g, F.ctx, F.params, &o, &e), CUZK_OK);
    cuzk_bp_srs_get_info(g, &in);
    assert_int_equal(in.n_devices, (unsigned)cuzk_gpu_device_count());
    memset(pg, 0, sizeof pg);
    assert_int_equal(cuzk_bp_prove(F.ctx, g, as, N, r, s, pg, NULL, &e), CUZK_OK);
    assert_memory_equal(pg, pc, sizeof pg);
    cuzk_bp_srs_free(g);
}

/* The wires' bitmaps of A and B from the densities: every bit against the
 * definition, for input counts below, at and across a word's 64 bits and aux
 * counts that end inside a word, with set bits past both lengths ignored. */
static void test_wire_bits(void **state)
{
    (void)state;
    static const size_t NI[] = {1, 3, 63, 64, 65, 130}, NX[] = {0, 1, 64, 100, 257};
    uint64_t seed = 9, inp[4], aux[8];
    for (size_t a = 0; a < sizeof NI / sizeof *NI; a++)
        for (size_t b = 0; b < sizeof NX / sizeof *NX; b++) {
            const size_t ni = NI[a], nx = NX[b], n = ni + nx;
            for (int k = 0; k < 4; k++)
                inp[k] = cuzk_splitmix64(&seed);
            for (int k = 0; k < 8; k++)
                aux[k] = cuzk_splitmix64(&seed);
            for (int all = 0; all < 2; all++) {
                uint64_t *w = cuzk_bp_wire_bits(all ? NULL : inp, ni, aux, nx);
                assert_non_null(w);
                for (size_t i = 0; i < (n + 63) / 64 * 64; i++) {
                    const bool got = (w[i / 64] >> (i % 64)) & 1;
                    bool want = false;
                    if (i < ni)
                        want = all || ((inp[i / 64] >> (i % 64)) & 1);
                    else if (i < n)
                        want = (aux[(i - ni) / 64] >> ((i - ni) % 64)) & 1;
                    if (got != want)
                        fail_msg("ni %zu nx %zu all %d: bit %zu is %d", ni, nx, all, i, (int)got);
                }
                free(w);
            }
        }
}

/* vector `src` (m values) copied into dst (n values) in consecutive ranges
 * of the destination of `len` values (the last one shorter); the first bad
 * index any range reports. */
static size_t copy_in_ranges(uint8_t *dst, const cuzk_bp_fr *src, size_t m, size_t n, size_t len)
{
    memset(dst, 0xa5, n * 32); /* every value must be written, zeros too */
    for (size_t b = 0; b < n; b += len) {
        const size_t end = n - b < len ? n : b + len;
        const size_t bad = cuzk_bp_copy_range(dst + b * 32, src, m, b, end);
        if (bad != SIZE_MAX)
            return bad;
    }
    return SIZE_MAX;
}

/* a, b, c copied into the domain (bellperson's order: the NTTs take its
 * roots) whole, and in ranges of the destination (as the GPU stages them,
 * chunk by chunk), are the values then zeros, byte for byte: ranges of 1,
 * of an odd size, of a power of two, of abc_size (the zero padding starts
 * inside a range) and of the whole domain; a value not below r is reported
 * at the same index either way, the first one when there are several,
 * whichever range meets one first. */
static void test_copy_range(void **state)
{
    (void)state;
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_srs_info info;
    cuzk_bp_srs_get_info(F.srs, &info);
    const size_t n = (size_t)1 << info.log_domain, m = a->abc_size;
    assert_true(m > 8 && m < n); /* zero padding at the end */
    uint8_t *whole = malloc(n * 32), *parts = malloc(n * 32);
    assert_non_null(whole);
    assert_non_null(parts);
    const cuzk_bp_fr *vec[3] = {a->a, a->b, a->c};
    const size_t lens[] = {1, 7, 33, 64, m, n};
    for (int i = 0; i < 3; i++) {
        memset(whole, 0xa5, n * 32);
        assert_int_equal(cuzk_bp_copy_in(whole, vec[i], m, n, F.ctx->pool), SIZE_MAX);
        assert_memory_equal(whole, vec[i], m * 32);
        for (size_t j = m; j < n; j++)
            assert_true(all_zero(whole + j * 32, 32));
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
            assert_int_equal(copy_in_ranges(parts, vec[i], m, n, lens[l]), SIZE_MAX);
            assert_memory_equal(parts, whole, n * 32);
        }
    }
    assert_int_equal(cuzk_bp_copy_in(whole, a->c, m, n, NULL), SIZE_MAX); /* no pool */
    assert_memory_equal(whole, a->c, m * 32);
    /* values whose top limb is r's but below r (r - 1, r - 2^192) are good */
    cuzk_bp_fr *bad = malloc(m * sizeof *bad);
    assert_non_null(bad);
    memcpy(bad, a->b, m * sizeof *bad);
    memcpy(bad[1].l, bls12_381_fr_MODULUS.l, 32);
    bad[1].l[0] -= 1;
    memcpy(bad[m - 1].l, bls12_381_fr_MODULUS.l, 32);
    bad[m - 1].l[0] = bad[m - 1].l[1] = bad[m - 1].l[2] = 0;
    assert_int_equal(cuzk_bp_copy_in(whole, bad, m, n, F.ctx->pool), SIZE_MAX);
    assert_memory_equal(whole, bad, m * 32);
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
        assert_int_equal(copy_in_ranges(parts, bad, m, n, lens[l]), SIZE_MAX);
        assert_memory_equal(parts, whole, n * 32);
    }
    /* bad values: one, then two (the first is reported, though a range
     * holding only the later one may be read first) */
    memcpy(bad, a->b, m * sizeof *bad);
    const size_t j1 = m / 3, j2 = m - 2;
    memcpy(bad[j2].l, bls12_381_fr_MODULUS.l, 32);
    assert_int_equal(cuzk_bp_copy_in(whole, bad, m, n, F.ctx->pool), j2);
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
        assert_int_equal(copy_in_ranges(parts, bad, m, n, lens[l]), j2);
    memset(bad[j1].l, 0xff, 32);
    assert_int_equal(cuzk_bp_copy_in(whole, bad, m, n, F.ctx->pool), j1);
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
        assert_int_equal(copy_in_ranges(parts, bad, m, n, lens[l]), j1);
    /* a range that holds only j2 reports j1 too; one of good values passes */
    assert_int_equal(cuzk_bp_copy_range(parts, bad, m, j2, j2 + 1), j1);
    assert_int_equal(cuzk_bp_copy_range(parts, bad, m, 0, 1), SIZE_MAX);
    /* a range past m is zeros only */
    memset(parts, 0xa5, 64);
    assert_int_equal(cuzk_bp_copy_range(parts, bad, m, m, m + 2), SIZE_MAX);
    assert_true(all_zero(parts, 64));
    free(bad);
    free(whole);
    free(parts);
}

/* The witness for the GPU's packing: raw values straight from the
 * assignment, Montgomery 0 and 1 by their shortcut, every value equal to
 * its conversion by the field's from_mont, in ranges of any length; the
 * first bad value reported whatever the range. */
static void test_witness_range(void **state)
{
    (void)state;
    const cuzk_bp_assignment *a0 = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_assignment a = *a0;
    const size_t ni = a.inp_size, nx = a.aux_size, n = ni + nx;
    assert_true(nx >= 8);
    cuzk_bp_fr *aux = malloc(nx * sizeof *aux);
    uint8_t *got = malloc(n * 32), *want = malloc(n * 32);
    assert_non_null(aux);
    assert_non_null(got);
    assert_non_null(want);
    memcpy(aux, a.aux, nx * sizeof *aux);
    memset(aux[1].l, 0, 32);                       /* zero */
    memcpy(aux[2].l, &bls12_381_fr_ONE, 32);       /* one */
    memcpy(aux[3].l, bls12_381_fr_MODULUS.l, 32);  /* r - 1 (below r) */
    aux[3].l[0] -= 1;
    a.aux = aux;
    for (size_t i = 0; i < n; i++)
        bls12_381_fr_from_mont((bls12_381_fr_t *)(want + 32 * i),
                               (const bls12_381_fr_t *)(i < ni ? a.inp[i].l : aux[i - ni].l));
    assert_int_equal(want[32 * (ni + 2)], 1);
    const size_t lens[] = {1, 3, 64, n};
    for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
        memset(got, 0xa5, n * 32);
        for (size_t b = 0; b < n; b += lens[l])
            assert_int_equal(cuzk_bp_witness_range(&a, b, b + lens[l] < n ? b + lens[l] : n, got + 32 * b), SIZE_MAX);
        assert_memory_equal(got, want, n * 32);
    }
    /* bad values: aux[5], then aux[4] too: the first is reported from any range */
    memcpy(aux[5].l, bls12_381_fr_MODULUS.l, 32);
    assert_int_equal(cuzk_bp_witness_range(&a, ni + 5, ni + 6, got), ni + 5);
    memset(aux[4].l, 0xff, 32);
    assert_int_equal(cuzk_bp_witness_range(&a, ni + 5, n, got), ni + 4);
    assert_int_equal(cuzk_bp_witness_range(&a, 0, ni + 4, got), SIZE_MAX);
    free(aux);
    free(got);
    free(want);
}

/* The CLI's whole path: two partitions written as files, read back by the
 * bellperson verifier; nothing written when an input is bad. */
static void test_prove_files(void **state)
{
    (void)state;
    char proof[128], pub[128], raw[128];
    snprintf(proof, sizeof proof, "%s/p.bin", F.dir);
    snprintf(pub, sizeof pub, "%s/p.json", F.dir);
    snprintf(raw, sizeof raw, "%s/p.raw", F.dir);
    uint8_t r[32] = {5}, s[32] = {6};
    cuzk_bp_prove_files_opts o = {.insecure_r = r, .insecure_s = s, .raw_proof_path = raw, .partitions = 2};
    cuzk_error e = {0};
    assert_int_equal(cuzk_bp_prove_files(F.ctx, F.params, F.r1cs, F.wtns, proof, pub, &o, &e), CUZK_OK);
    FILE *f = fopen(proof, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    assert_int_equal(ftell(f), 384);
    fclose(f);
    f = fopen(raw, "rb");
    assert_non_null(f);
    cuzk_bp_proof rp[2];
    assert_int_equal(fread(rp, sizeof rp[0], 2, f), 2);
    fclose(f);
    /* partition 1 is the API's proof with r + 1, s + 1 */
    const cuzk_bp_assignment *a = cuzk_bp_circuit_assignment(F.c);
    cuzk_bp_fr r1 = fr_of(6), s1 = fr_of(7);
    cuzk_bp_proof one;
    assert_int_equal(cuzk_bp_prove(F.ctx, F.srs, a, 1, &r1, &s1, &one, NULL, &e), CUZK_OK);
    assert_memory_equal(&one, &rp[1], sizeof one);
    /* the bellperson verifier (a .params holds the verifying key) accepts the file */
    assert_int_equal(cuzk_bp_verify_files(F.ctx, F.params, pub, proof, &e), CUZK_OK);
    unlink(proof), unlink(pub), unlink(raw);
    /* a witness of another circuit: an error, no file */
    assert_int_equal(cuzk_bp_prove_files(F.ctx, F.params, F.r1cs, F.wtns2, proof, pub, &o, &e), CUZK_ERR_MISMATCH);
    assert_int_equal(access(proof, F_OK), -1);
    assert_int_equal(access(pub, F_OK), -1);
    assert_int_equal(access(raw, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prove_many),
        cmocka_unit_test(test_bad_assignments),
        cmocka_unit_test(test_other_circuit),
        cmocka_unit_test(test_verify_and_bytes),
        cmocka_unit_test(test_backends),
        cmocka_unit_test(test_gpu_tier7),
        cmocka_unit_test(test_prove_files),
        cmocka_unit_test(test_copy_range),
        cmocka_unit_test(test_witness_range),
        cmocka_unit_test(test_wire_bits),
        cmocka_unit_test(test_spans),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_free_keeps_fds),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
