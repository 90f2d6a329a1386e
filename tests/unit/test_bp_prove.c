/* The bellperson-mode API (include/cuzk/bellperson.h) on the CPU backend:
 * several circuits in one call, each proof verified by cuzk_bp_verify and
 * equal to a proof of the same circuit alone; start / finish equal to
 * prove, drop; every kind of bad assignment refused with a one-line error
 * naming the circuit and the output zeroed; parameters of another circuit;
 * verification of tampered proofs and inputs; the 192-byte encoding
 * decoded again by the bellperson proof reader. The proofs themselves are
 * checked byte for byte against an independent prover in
 * tests/interop/bp_prove.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "cuzk/bellperson.h"
#include "cuzk/dev.h"
#include "formats/bellperson.h"
#include "groth16/insecure.h"

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
        cmocka_unit_test(test_prove_files),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
