/* The PoRep-shaped development circuit, key and witness (include/cuzk/dev.h
 * cuzk_porep_make, src/groth16/porep_impl.h):
 *  - the circuit, written out as an r1cs, is satisfied by its witness
 *    (cuzk_r1cs_check_witness) and has the PoRep shape (terms a row, B
 *    density, 0/1 share of the witness, sizes);
 *  - the key made in memory equals, byte for byte, the key `cuzk setup`
 *    makes from that r1cs with the same toxic waste, and so does the witness;
 *  - proofs with the key verify (CPU backend; the GPU backend too when a
 *    device is present), and a witness with one value changed is refused;
 *  - with a device: points made by cuzk_gpu_fixed equal the CPU's (edge
 *    scalars; G1 and G2 of both curves) and the
 *    GPU-made key equals the CPU-made one;
 *  - errors: sizes and curves out of range. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "cuzk/cuzk.h"
#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "formats/formats.h"
#include "groth16/b_density.h"
#include "groth16/backend.h"
#include "groth16/handles.h"
#include "groth16/porep.h"
#include "groth16/ctx.h"
#include "groth16/curve_ops.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "msm/msm.h"
#include "util/rng.h"

#include "fixture_util.h"
#include "groth16/insecure.h"

static const cuzk_curve CURVES[2] = {CUZK_CURVE_BN254, CUZK_CURVE_BLS12_381};

static void shape(cuzk_porep_shape *s, cuzk_curve c, unsigned lg)
{
    cuzk_error e = {0};
    if (cuzk_porep_shape_make(s, c, lg, &e))
        fail_msg("%s", e.msg);
}

/* Every array and header point of two keys equal. */
static void assert_same_key(const cuzk_zkey *a, const cuzk_zkey *b)
{
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(a->curve);
    assert_int_equal(a->curve, b->curve);
    assert_int_equal(a->n_vars, b->n_vars);
    assert_int_equal(a->n_public, b->n_public);
    assert_int_equal(a->domain_size, b->domain_size);
    assert_int_equal(a->n_coefs, b->n_coefs);
    const size_t g1 = cp->g1_affine, g2 = cp->g2_affine, nv = a->n_vars, np = a->n_public;
    assert_memory_equal(&a->alpha_1, &b->alpha_1, g1);
    assert_memory_equal(&a->beta_1, &b->beta_1, g1);
    assert_memory_equal(&a->delta_1, &b->delta_1, g1);
    assert_memory_equal(&a->beta_2, &b->beta_2, g2);
    assert_memory_equal(&a->gamma_2, &b->gamma_2, g2);
    assert_memory_equal(&a->delta_2, &b->delta_2, g2);
    assert_memory_equal(a->ic.ptr, b->ic.ptr, (np + 1) * g1);
    assert_memory_equal(a->coef_matrix, b->coef_matrix, a->n_coefs * 4);
    assert_memory_equal(a->coef_constraint, b->coef_constraint, a->n_coefs * 4);
    assert_memory_equal(a->coef_signal, b->coef_signal, a->n_coefs * 4);
    assert_memory_equal(a->coef_value.ptr, b->coef_value.ptr, a->n_coefs * cp->n8r);
    assert_memory_equal(a->a.ptr, b->a.ptr, nv * g1);
    assert_memory_equal(a->b1.ptr, b->b1.ptr, nv * g1);
    assert_memory_equal(a->b2.ptr, b->b2.ptr, nv * g2);
    assert_memory_equal(a->c.ptr, b->c.ptr, (nv - np - 1) * g1);
    assert_memory_equal(a->h.ptr, b->h.ptr, (size_t)a->domain_size * g1);
}

/* Sizes of the full partition and of the scaled ones. */
static void test_shape_sizes(void **st)
{
    (void)st;
    cuzk_porep_shape s;
    shape(&s, CUZK_CURVE_BLS12_381, 27);
    assert_int_equal(s.m + s.n_pub + 1, 130278869ull); /* rows, as bellperson counts them */
    assert_int_equal(s.n_pub, 327);
    assert_int_equal(s.n_aux, 130169893ull);
    assert_int_equal(s.n_vars, 1 + 327 + 130169893ull);
    for (unsigned lg = CUZK_POREP_MIN_LOG; lg <= 27; lg++) {
        shape(&s, CUZK_CURVE_BN254, lg);
        assert_true(s.m + s.n_pub < (1ull << lg));       /* the domain holds every row */
        assert_true(s.m + s.n_pub >= (1ull << (lg - 1))); /* and is not larger than needed */
        assert_true(s.n_aux <= s.m && s.n_pub >= 1);
        if (lg >= 19)
            assert_int_equal(s.n_pub, 327);
    }
    cuzk_error e = {0};
    assert_int_equal(cuzk_porep_shape_make(&s, CUZK_CURVE_BN254, CUZK_POREP_MIN_LOG - 1, &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_porep_shape_make(&s, CUZK_CURVE_BN254, 28, &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_porep_shape_make(&s, (cuzk_curve)7, 20, &e), CUZK_ERR_USAGE);
}

/* The circuit is satisfied and has the PoRep profile. */
static void test_circuit_shape(void **st)
{
    (void)st;
    cuzk_ctx *ctx = mkctx(NULL);
    for (int c = 0; c < 2; c++) {
        cuzk_porep_shape s;
        shape(&s, CURVES[c], 16);
        cuzk_r1cs r;
        cuzk_wtns w;
        cuzk_error e = {0};
        if (cuzk_porep_r1cs(ctx, &s, 99 + c, &r, &w, &e) || cuzk_r1cs_check_witness(&r, &w, NULL, "r", "w", &e))
            fail_msg("%s", e.msg);
        assert_int_equal(r.n_constraints, s.m);
        assert_int_equal(r.n_wires, s.n_vars);
        assert_int_equal(cuzk_r1cs_n_public(&r), s.n_pub);
        const double m = (double)s.m;
        double per_row[3];
        for (int t = 0; t < 3; t++)
            per_row[t] = (double)r.m[t].nnz / m;
        assert_true(per_row[0] > 2.35 && per_row[0] < 2.45);
        assert_true(per_row[1] == 1.0);
        assert_true(per_row[2] > 2.15 && per_row[2] < 2.25);
        /* private wires in B: about a quarter; ONE the only public one */
        uint8_t *inb = calloc(r.n_wires, 1);
        assert_non_null(inb);
        for (uint64_t k = 0; k < r.m[1].nnz; k++)
            inb[r.m[1].wire[k]] = 1;
        uint64_t priv = 0;
        for (uint32_t i = 1 + s.n_pub; i < r.n_wires; i++)
            priv += inb[i];
        assert_true(inb[0]);
        for (uint32_t i = 1; i <= s.n_pub; i++)
            assert_false(inb[i]);
        const double dens = (double)priv / (double)s.n_aux;
        assert_true(dens > 0.23 && dens < 0.27);
        free(inb);
        /* witness: most private values 0 or 1, some full field elements */
        uint64_t bits = 0;
        const size_t n8 = 32;
        for (uint32_t i = 1 + s.n_pub; i < w.n_witness; i++) {
            const uint8_t *v = (const uint8_t *)w.values.ptr + (size_t)i * n8;
            bool small = v[0] <= 1;
            for (size_t b = 1; b < n8 && small; b++)
                small = v[b] == 0;
            bits += small;
        }
        const double frac = (double)bits / (double)s.n_aux;
        assert_true(frac > 0.93 && frac < 0.97);
        /* a changed witness value breaks a constraint */
        ((uint8_t *)w.values.ptr)[(size_t)(r.n_wires - 1) * n8 + 1] ^= 1;
        assert_int_equal(cuzk_r1cs_check_witness(&r, &w, NULL, "r", "w", &e), CUZK_ERR_MISMATCH);
        cuzk_r1cs_free(&r);
        cuzk_wtns_free(&w);
    }
    cuzk_ctx_free(ctx);
}

/* The in-memory key is `cuzk setup` of the circuit's r1cs. */
static void test_key_equals_setup(void **st)
{
    (void)st;
    cuzk_ctx *ctx = mkctx(NULL);
    for (int c = 0; c < 2; c++)
        for (unsigned lg = CUZK_POREP_MIN_LOG; lg <= 12; lg += 2) {
            cuzk_porep_shape s;
            shape(&s, CURVES[c], lg);
            cuzk_r1cs r;
            cuzk_wtns w1, w2;
            cuzk_zkey ref, ours;
            cuzk_porep_info info;
            cuzk_error e = {0};
            if (cuzk_porep_r1cs(ctx, &s, 7 + lg, &r, &w1, &e) || cuzk_setup_build(ctx, &r, &TOXIC, &ref, &e) ||
                cuzk_porep_build(ctx, &s, 7 + lg, &TOXIC, -1, &ours, &w2, &info, &e))
                fail_msg("%s", e.msg);
            assert_same_key(&ours, &ref);
            assert_int_equal(w1.n_witness, w2.n_witness);
            assert_memory_equal(w1.values.ptr, w2.values.ptr, (size_t)w1.n_witness * 32);
            for (int t = 0; t < 3; t++)
                assert_int_equal(info.nnz[t], r.m[t].nnz);
            assert_int_equal(info.constraints, s.m);
            assert_int_equal(info.n_vars, s.n_vars);
            cuzk_zkey_free(&ref);
            cuzk_zkey_free(&ours);
            cuzk_r1cs_free(&r);
            cuzk_wtns_free(&w1);
            cuzk_wtns_free(&w2);
        }
    cuzk_ctx_free(ctx);
}

/* The pipeline with the MSMs asked for H last, as the GPU backend asks for
 * them where every MSM is resident (its assembly in two halves, all but
 * pi_H before H): on the CPU backend the proof points equal the default
 * order's and verify, the progress of a plan in the default order still
 * only grows (its steps laid out in the order run) and the plan is the
 * caller's again after; an order that is not one of each MSM is refused. */
typedef struct {
    double last;
    int back, n;
} prog_log;
static void on_progress(void *user, cuzk_phase ph, double f)
{
    (void)ph;
    prog_log *l = user;
    if (f < l->last)
        l->back++;
    l->last = f;
    l->n++;
}
static const cuzk_progress_step PLAN[] = {
    {CUZK_PHASE_ABC, 0.00, 0.04},    {CUZK_PHASE_NTT, 0.04, 0.27},    {CUZK_PHASE_MSM_H, 0.27, 0.57},
    {CUZK_PHASE_MSM_A, 0.57, 0.65},  {CUZK_PHASE_MSM_B1, 0.65, 0.73}, {CUZK_PHASE_MSM_C, 0.73, 0.82},
    {CUZK_PHASE_MSM_B2, 0.82, 0.97}, {CUZK_PHASE_ASSEMBLE, 0.97, 0.98}, {0, 0, 0}};
static const cuzk_g16_msm H_LAST[CUZK_G16_MSM_COUNT] = {CUZK_G16_MSM_B1, CUZK_G16_MSM_B2, CUZK_G16_MSM_C,
                                                        CUZK_G16_MSM_A, CUZK_G16_MSM_H};
static void order_h_last(const void *job, cuzk_g16_msm order[CUZK_G16_MSM_COUNT])
{
    (void)job;
    memcpy(order, H_LAST, sizeof H_LAST);
}
static void order_twice(const void *job, cuzk_g16_msm order[CUZK_G16_MSM_COUNT])
{
    order_h_last(job, order);
    order[1] = CUZK_G16_MSM_B1;
}

/* The proof's verification with the key prepared (cuzk_g16_vk_prepare),
 * begun while H's MSM runs (ic.begun: H last) or not (the default order),
 * on a pool of 2 or on this thread: the proof p0 verifies, and a changed C,
 * A, B or public input is refused, as by the unprepared check. */
static void verify_under_h(cuzk_ctx *ctx, const cuzk_g16_backend *last, void *state, const cuzk_zkey *zk, cuzk_vk *vk,
                           const void *w, const cuzk_proof_points *p0)
{
    const cuzk_curve_ops *ops = cuzk_curve_ops_get(zk->curve);
    const cuzk_g16_backend *cpu = cuzk_g16_backend_cpu();
    const size_t fr = ops->desc->n8r;
    static const uint8_t r[32] = {5, 4, 3}, sv[32] = {9, 8, 7};
    cuzk_error e = {0};
    const uint8_t *pub = (const uint8_t *)w + fr;
    assert_true(vk->n_public >= 1);
    uint8_t *pub2 = malloc(vk->n_public * fr);
    assert_non_null(pub2);
    memcpy(pub2, pub, vk->n_public * fr);
    pub2[0] ^= 1; /* still < r */
    cuzk_proof_points bad[3];
    for (int k = 0; k < 3; k++)
        bad[k] = *p0;
    ops->g1_affine_neg(&bad[0].c, &p0->c);
    ops->g1_affine_neg(&bad[1].a, &p0->a);
    bad[2].b = vk->gamma_2;
    cuzk_ctx *pctx = NULL;
    cuzk_ctx_opts co = {.threads = 2};
    assert_int_equal(cuzk_ctx_create(&pctx, &co, &e), CUZK_OK);
    for (int prep = 0; prep < 2; prep++) {
        if (prep)
            assert_int_equal(cuzk_g16_vk_prepare(ops, vk, &e), CUZK_OK);
        assert_true((vk->prep != NULL) == (prep == 1));
        for (int k = 0; k < 3; k++) {
            assert_int_equal(cuzk_g16_verify(ops, vk, pub, &bad[k], NULL, &e), CUZK_ERR_INVALID_PROOF);
            assert_int_equal(cuzk_g16_verify(ops, vk, pub, &bad[k], pctx->pool, &e), CUZK_ERR_INVALID_PROOF);
        }
        assert_int_equal(cuzk_g16_verify(ops, vk, pub2, p0, pctx->pool, &e), CUZK_ERR_INVALID_PROOF);
        assert_int_equal(cuzk_g16_verify(ops, vk, pub, p0, NULL, &e), CUZK_OK);
        assert_int_equal(cuzk_g16_verify(ops, vk, pub, p0, pctx->pool, &e), CUZK_OK);
    }
    for (int be = 0; be < 2; be++)
        for (int pc = 0; pc < 2; pc++) {
            cuzk_ctx *c = pc ? pctx : ctx;
            const cuzk_g16_backend *b = be ? last : cpu;
            cuzk_proof_points p;
            cuzk_g16_ic_job ic = {.ops = ops, .vk = vk, .pub = pub};
            if (cuzk_g16_prove(c, b, state, zk, ops, w, r, sv, cuzk_g16_ic_run, &ic, &p, &e))
                fail_msg("%s", e.msg);
            assert_memory_equal(&p, p0, sizeof p);
            assert_true(ic.begun == (be == 1)); /* begun only where H runs last */
            assert_int_equal(cuzk_g16_verify_made(c, &ic, &p, &e), CUZK_OK);
            if (ic.begun) /* the tail alone, on this thread and in two parts on the pool */
                for (int k = 0; k < 2; k++) {
                    cuzk_pool *pl = k ? pctx->pool : NULL;
                    assert_true(ops->verify_finish(vk->prep, ic.f, &p.c, pl));
                    assert_false(ops->verify_finish(vk->prep, ic.f, &bad[0].c, pl));
                    assert_false(ops->verify_finish(vk->prep, ic.f, &p.a, pl));
                }
            for (int k = 0; k < 3; k++) /* begun with A and B: a changed A or B takes the whole check */
                assert_int_equal(cuzk_g16_verify_made(c, &ic, &bad[k], &e), CUZK_ERR_INVALID_PROOF);
            cuzk_g16_ic_job ic2 = {.ops = ops, .vk = vk, .pub = pub2};
            if (cuzk_g16_prove(c, b, state, zk, ops, w, r, sv, cuzk_g16_ic_run, &ic2, &p, &e))
                fail_msg("%s", e.msg);
            assert_true(ic2.begun == (be == 1));
            assert_int_equal(cuzk_g16_verify_made(c, &ic2, &p, &e), CUZK_ERR_INVALID_PROOF);
        }
    cuzk_ctx_free(pctx);
    free(pub2);
}

static void test_msm_order(void **st)
{
    (void)st;
    cuzk_ctx *ctx = mkctx(NULL);
    for (int c = 0; c < 2; c++) {
        cuzk_porep_shape s;
        shape(&s, CURVES[c], 10);
        cuzk_zkey zk;
        cuzk_wtns wt;
        cuzk_error e = {0};
        if (cuzk_porep_build(ctx, &s, 9, &TOXIC, -1, &zk, &wt, NULL, &e))
            fail_msg("%s", e.msg);
        const cuzk_curve_ops *ops = cuzk_curve_ops_get(zk.curve);
        const cuzk_g16_backend *cpu = cuzk_g16_backend_cpu();
        cuzk_g16_backend last = *cpu, twice = *cpu;
        last.msm_order = order_h_last;
        twice.msm_order = order_twice;
        void *state = NULL;
        uint64_t hb = 0, db = 0;
        cuzk_key_opts ko = {0};
        if (cpu->key_attach(cpu, ctx, &zk, ops, &ko, &state, &hb, &db, &e))
            fail_msg("%s", e.msg);
        static const uint8_t r[32] = {5, 4, 3}, sv[32] = {9, 8, 7};
        cuzk_proof_points p0, p1, p2;
        prog_log pl = {0};
        cuzk_ctx *pctx = NULL;
        cuzk_ctx_opts co = {.threads = 2, .progress = on_progress, .user = &pl};
        assert_int_equal(cuzk_ctx_create(&pctx, &co, &e), CUZK_OK);
        cuzk_progress_plan(pctx, PLAN);
        if (cuzk_g16_prove(ctx, cpu, state, &zk, ops, wt.values.ptr, r, sv, NULL, NULL, &p0, &e) ||
            cuzk_g16_prove(pctx, &last, state, &zk, ops, wt.values.ptr, r, sv, NULL, NULL, &p1, &e))
            fail_msg("%s", e.msg);
        assert_memory_equal(&p0, &p1, sizeof p0);
        assert_true(pl.n >= 14); /* begin and end of abc, ntt, five MSMs */
        assert_int_equal(pl.back, 0);
        assert_true(pl.last > 0.979 && pl.last < 0.981); /* H, last, ends where the assembly did */
        assert_ptr_equal(pctx->plan, PLAN);
        cuzk_ctx_free(pctx);
        cuzk_vk vk;
        if (cuzk_vk_from_zkey(&vk, &zk, &e))
            fail_msg("%s", e.msg);
        const uint8_t *pub = (const uint8_t *)wt.values.ptr + ops->desc->n8r;
        assert_int_equal(cuzk_g16_verify(ops, &vk, pub, &p1, NULL, &e), CUZK_OK);
        assert_int_equal(cuzk_g16_prove(ctx, &twice, state, &zk, ops, wt.values.ptr, r, sv, NULL, NULL, &p2, &e),
                         CUZK_ERR_INTERNAL);
        assert_non_null(strstr(e.msg, "MSM order"));
        verify_under_h(ctx, &last, state, &zk, &vk, wt.values.ptr, &p0);
        cuzk_vk_free(&vk);
        cpu->key_detach(state);
        cuzk_zkey_free(&zk);
        cuzk_wtns_free(&wt);
    }
    cuzk_ctx_free(ctx);
}

/* cuzk_porep_make: a key and witness that prove and verify, on the CPU and
 * (when present) on the GPU; one changed witness value is refused. */
static void test_make_and_prove(void **st)
{
    (void)st;
    cuzk_ctx *ctx = mkctx(NULL);
    const int ngpu = cuzk_gpu_device_count();
    for (int c = 0; c < 2; c++)
        for (int be = 0; be < (ngpu ? 2 : 1); be++) {
            cuzk_porep_opts po = {CURVES[c], 12, 5, be, 0, NULL};
            cuzk_key_opts ko = {0};
            ko.backend = be ? CUZK_BACKEND_GPU : CUZK_BACKEND_CPU;
            cuzk_key *key = NULL;
            cuzk_witness *w = NULL;
            cuzk_porep_info info;
            cuzk_error e = {0};
            if (cuzk_porep_make(ctx, &po, &ko, &key, &w, &info, &e))
                fail_msg("%s", e.msg);
            cuzk_key_info ki;
            cuzk_key_get_info(key, &ki);
            assert_int_equal(ki.backend, ko.backend);
            assert_int_equal(ki.log_domain, 12);
            assert_int_equal(ki.n_vars, info.n_vars);
            assert_int_equal(cuzk_witness_count(w), info.n_vars);
            cuzk_proof *p = NULL;
            if (cuzk_prove(ctx, key, w, NULL, &p, &e))
                fail_msg("%s", e.msg);
            cuzk_proof_free(p);
            cuzk_key_free(key);
            cuzk_witness_free(w);
        }
    /* One key on both backends, the same r and s: the GPU's proof is the
     * CPU's byte for byte (its B MSMs run over the wires with a B point
     * only, a quarter of them: src/groth16/b_density.h), with the key
     * resident, at the least budget, tier 7 (the kept B wires' scalars
     * gathered on the host), and resident with the H MSM's precomputed
     * copies. */
    for (int c = 0; c < 2 && ngpu; c++) {
        cuzk_porep_shape s;
        shape(&s, CURVES[c], 12);
        uint8_t bytes[4][1024];
        size_t len[4] = {0, 0, 0, 0}, least_peak = 0;
        uint64_t dev[4] = {0, 0, 0, 0};
        for (int be = 0; be < 4; be++) {
            cuzk_zkey zk;
            cuzk_wtns wt;
            cuzk_porep_info info;
            cuzk_error e = {0};
            if (cuzk_porep_build(ctx, &s, 9, &TOXIC, -1, &zk, &wt, &info, &e))
                fail_msg("%s", e.msg);
            assert_true(info.b_private * 3 < info.n_vars); /* most wires have no B point */
            cuzk_key *key = NULL;
            cuzk_witness *w = NULL;
            cuzk_key_opts ko = {0};
            ko.backend = be ? CUZK_BACKEND_GPU : CUZK_BACKEND_CPU;
            ko.gpu_msm_copies = be == 3;
            if (be == 2) { /* the least budget of the key as the prover plans it (B wires dropped) */
                const cuzk_curve_desc *cd = cuzk_curve_desc_get(zk.curve);
                cuzk_b_density bd;
                cuzk_gpu_key_shape ks;
                cuzk_g16_key_shape(&ks, &zk);
                if (cuzk_b_density_make(&bd, zk.b1.ptr, zk.b2.ptr, zk.n_vars, cd->g1_affine, cd->g2_affine, NULL,
                                        &e))
                    fail_msg("%s", e.msg);
                assert_non_null(bd.index);
                ks.n_b = bd.n;
                cuzk_b_density_free(&bd);
                cuzk_gpu_plan_opts po = {.budget = (size_t)64 << 30, .sm_count = 132};
                cuzk_gpu_plan pl;
                if (cuzk_gpu_plan_proof(&ks, &po, &pl, &e))
                    fail_msg("%s", e.msg);
                assert_int_equal(pl.least_tier, 7);
                ko.device_budget = pl.least_budget;
                po.budget = pl.least_budget;
                if (cuzk_gpu_plan_proof(&ks, &po, &pl, &e))
                    fail_msg("%s", e.msg);
                assert_int_equal(pl.tier, 7);
                least_peak = pl.peak;
            }
            if (cuzk_key_adopt(&key, ctx, &zk, "k", &ko, &e) || cuzk_witness_adopt(&w, &wt, "w", &e))
                fail_msg("%s", e.msg);
            cuzk_key_info ki;
            cuzk_key_get_info(key, &ki);
            dev[be] = ki.device_bytes;
            if (be == 2) /* the prover made that plan */
                assert_int_equal(ki.device_bytes, least_peak);
            static const uint8_t r[32] = {5, 4, 3}, sv[32] = {9, 8, 7};
            cuzk_prove_opts o = {0};
            o.insecure_r = r;
            o.insecure_s = sv;
            cuzk_proof *p = NULL;
            if (cuzk_prove(ctx, key, w, &o, &p, &e) || cuzk_proof_to_bytes(p, bytes[be], sizeof bytes[be], &len[be], &e))
                fail_msg("%s", e.msg);
            cuzk_proof_free(p);
            cuzk_key_free(key);
            cuzk_witness_free(w);
        }
        assert_true(dev[3] > dev[1]); /* the copies were made */
        for (int be = 1; be < 4; be++) {
            assert_int_equal(len[0], len[be]);
            assert_memory_equal(bytes[0], bytes[be], len[0]);
        }
    }
    /* the same circuit with one witness value changed: no valid proof */
    {
        cuzk_porep_shape s;
        shape(&s, CUZK_CURVE_BLS12_381, 11);
        cuzk_zkey zk;
        cuzk_wtns wt;
        cuzk_error e = {0};
        if (cuzk_porep_build(ctx, &s, 3, NULL, -1, &zk, &wt, NULL, &e))
            fail_msg("%s", e.msg);
        ((uint8_t *)wt.values.ptr)[(size_t)(wt.n_witness - 2) * 32] ^= 1;
        cuzk_key *key = NULL;
        cuzk_witness *w = NULL;
        cuzk_key_opts ko = {0};
        if (cuzk_key_adopt(&key, ctx, &zk, "k", &ko, &e) || cuzk_witness_adopt(&w, &wt, "w", &e))
            fail_msg("%s", e.msg);
        cuzk_proof *p = NULL;
        assert_int_equal(cuzk_prove(ctx, key, w, NULL, &p, &e), CUZK_ERR_MISMATCH);
        assert_null(p);
        cuzk_key_free(key);
        cuzk_witness_free(w);
    }
    cuzk_error e = {0};
    cuzk_key *key = NULL;
    cuzk_witness *w = NULL;
    cuzk_porep_opts bad = {CUZK_CURVE_BN254, 9, 1, 0, 0, NULL};
    assert_int_equal(cuzk_porep_make(ctx, &bad, NULL, &key, &w, NULL, &e), CUZK_ERR_USAGE);
    assert_null(key);
    assert_null(w);
    cuzk_porep_opts nodev = {CUZK_CURVE_BN254, 12, 1, 1, ngpu, NULL};
    e = (cuzk_error){0};
    assert_int_equal(cuzk_porep_make(ctx, &nodev, NULL, &key, &w, NULL, &e), CUZK_ERR_GPU);
    cuzk_ctx_free(ctx);
}

/* GPU fixed-base points = CPU fixed-base points; GPU-made key = CPU-made key. */
#define CHECK_FIXED(C, G, GG)                                                                                \
    do {                                                                                                     \
        const size_t n = 3000;                                                                               \
        C##_fr_t *k = calloc(n, sizeof *k);                                                                  \
        C##_##G##_affine_t *cpu = calloc(n, sizeof *cpu), *gpu = calloc(n, sizeof *gpu);                     \
        assert_true(k && cpu && gpu);                                                                        \
        uint64_t x = 12345;                                                                                  \
        for (size_t i = 0; i < n; i++) {                                                                     \
            for (int l = 0; l < 4; l++)                                                                      \
                k[i].l[l] = cuzk_splitmix64(&x);                                                             \
            k[i].l[3] >>= 3; /* < 2^253 < r */                                                               \
        }                                                                                                    \
        memset(&k[0], 0, sizeof k[0]);                 /* 0: infinity */                                     \
        k[1].l[0] = 1, k[1].l[1] = k[1].l[2] = k[1].l[3] = 0; /* 1 */                                        \
        k[2] = C##_fr_MODULUS;                                                                               \
        k[2].l[0] -= 1;                                /* r - 1 */                                           \
        for (int l = 0; l < 4; l++)                                                                          \
            k[3].l[l] = 0x8001ffff8000fffeull;         /* digits that carry */                               \
        k[3].l[3] &= 0x0fffffffffffffffull;                                                                  \
        cuzk_error e = {0};                                                                                  \
        cuzk_gpu_fixed *f = NULL;                                                                            \
        if (C##_##G##_batch_mul_fixed(cpu, &C##_##G##_GENERATOR, k, n, NULL, &e) ||                          \
            cuzk_gpu_fixed_create(&f, curve, GG, &C##_##G##_GENERATOR, 0, &e) ||                             \
            cuzk_gpu_fixed_run(f, k, n, gpu, &e))                                                            \
            fail_msg("%s", e.msg);                                                                           \
        cuzk_gpu_fixed_destroy(f);                                                                           \
        assert_memory_equal(cpu, gpu, n * sizeof *cpu);                                                      \
        free(k);                                                                                             \
        free(cpu);                                                                                           \
        free(gpu);                                                                                           \
    } while (0)

static void test_gpu_points(void **st)
{
    (void)st;
    if (cuzk_gpu_device_count() == 0) {
        cuzk_error e = {0};
        cuzk_gpu_fixed *f = NULL;
        assert_int_not_equal(cuzk_gpu_fixed_create(&f, CUZK_CURVE_BN254, CUZK_GPU_G1, &bn254_g1_GENERATOR, 0, &e),
                             CUZK_OK);
        assert_null(f);
        skip();
    }
    cuzk_curve curve = CUZK_CURVE_BN254;
    CHECK_FIXED(bn254, g1, CUZK_GPU_G1);
    CHECK_FIXED(bn254, g2, CUZK_GPU_G2);
    curve = CUZK_CURVE_BLS12_381;
    CHECK_FIXED(bls12_381, g1, CUZK_GPU_G1);
    CHECK_FIXED(bls12_381, g2, CUZK_GPU_G2);
    cuzk_ctx *ctx = mkctx(NULL);
    for (int c = 0; c < 2; c++) {
        cuzk_porep_shape s;
        shape(&s, CURVES[c], 13);
        cuzk_zkey a, b;
        cuzk_wtns wa, wb;
        cuzk_error e = {0};
        if (cuzk_porep_build(ctx, &s, 11, &TOXIC, -1, &a, &wa, NULL, &e) ||
            cuzk_porep_build(ctx, &s, 11, &TOXIC, 0, &b, &wb, NULL, &e))
            fail_msg("%s", e.msg);
        assert_same_key(&a, &b);
        cuzk_zkey_free(&a);
        cuzk_zkey_free(&b);
        cuzk_wtns_free(&wa);
        cuzk_wtns_free(&wb);
    }
    cuzk_ctx_free(ctx);
}

/* cache_dir: the key and witness are written once, then used from the
 * files (the key mapped); the second make reads them back (from_cache) and
 * proves. Truncating the mapped key file under the loaded key ends the next
 * proof with CUZK_ERR_IO naming the file, not SIGBUS; the key is freed
 * cleanly and loading the truncated file is a one-line error too. */
static void test_cache_and_truncation(void **st)
{
    (void)st;
    cuzk_ctx *ctx = mkctx(NULL);
    char dir[] = "/tmp/cuzk_porep_cache_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char zpath[256], wpath[256];
    snprintf(zpath, sizeof zpath, "%s/porep-2^12-bn128-s7.zkey", dir);
    snprintf(wpath, sizeof wpath, "%s/porep-2^12-bn128-s7.wtns", dir);
    for (int round = 0; round < 2; round++) {
        cuzk_porep_opts po = {CUZK_CURVE_BN254, 12, 7, 0, 0, dir};
        cuzk_key_opts ko = {0};
        cuzk_key *key = NULL;
        cuzk_witness *w = NULL;
        cuzk_porep_info info;
        cuzk_error e = {0};
        if (cuzk_porep_make(ctx, &po, &ko, &key, &w, &info, &e))
            fail_msg("%s", e.msg);
        assert_int_equal(info.from_cache, round);
        assert_int_equal(access(zpath, R_OK), 0);
        assert_int_equal(access(wpath, R_OK), 0);
        cuzk_key_info ki;
        cuzk_key_get_info(key, &ki);
        assert_int_equal(ki.n_vars, info.n_vars);
        cuzk_proof *p = NULL;
        if (cuzk_prove(ctx, key, w, NULL, &p, &e))
            fail_msg("%s", e.msg);
        cuzk_proof_free(p);
        if (round == 1) { /* the file shrinks under the loaded key */
            assert_int_equal(truncate(zpath, 4096), 0);
            p = NULL;
            assert_int_equal(cuzk_prove(ctx, key, w, NULL, &p, &e), CUZK_ERR_IO);
            assert_null(p);
            assert_non_null(strstr(e.msg, zpath));
            assert_non_null(strstr(e.msg, "truncated"));
            assert_null(strchr(e.msg, '\n'));
            /* and stays unusable */
            assert_int_equal(cuzk_prove(ctx, key, w, NULL, &p, &e), CUZK_ERR_IO);
        }
        cuzk_key_free(key);
        cuzk_witness_free(w);
    }
    /* the truncated file: refused at load, one line */
    cuzk_key *key = NULL;
    cuzk_key_opts ko = {.map_in_place = 1};
    cuzk_error e = {0};
    cuzk_status s = cuzk_key_load(&key, ctx, zpath, &ko, &e);
    assert_true(s == CUZK_ERR_IO || s == CUZK_ERR_FORMAT);
    assert_null(key);
    unlink(zpath);
    unlink(wpath);
    rmdir(dir);
    cuzk_ctx_free(ctx);
}

/* The verification's IC(pub) = IC[0] + Σ pub_i·IC[i+1], as the prover's
 * side job computes it (from 128 inputs on a pool of its own: a PoRep has
 * 327) and on one thread: the same point, for input counts below, at and
 * above that step, an input of 0 among them. */
static void test_ic_pool(void **st)
{
    (void)st;
    static const uint32_t COUNTS[] = {1, 63, 127, 128, 191, 255, 256, 327, 401};
    uint64_t rng = 0x1c5eed;
    for (int c = 0; c < 2; c++) {
        const cuzk_curve_ops *ops = cuzk_curve_ops_get(CURVES[c]);
        const size_t g1a = ops->desc->g1_affine;
        const void *gen = CURVES[c] == CUZK_CURVE_BN254 ? (const void *)&bn254_g1_GENERATOR
                                                        : (const void *)&bls12_381_g1_GENERATOR;
        for (size_t k = 0; k < sizeof COUNTS / sizeof COUNTS[0]; k++) {
            const uint32_t n = COUNTS[k];
            cuzk_vk vk;
            memset(&vk, 0, sizeof vk);
            vk.curve = CURVES[c];
            vk.n_public = n;
            vk.ic.ptr = malloc((n + 1) * g1a);
            uint64_t *pub = calloc(n ? n : 1, 32);
            assert_non_null(vk.ic.ptr);
            assert_non_null(pub);
            for (uint32_t i = 0; i <= n; i++) {
                uint64_t m = cuzk_splitmix64(&rng) | 1, j[CUZK_MAX_G1_JAC / 8];
                ops->g1_mul_affine(j, gen, &m, 1);
                ops->g1_to_affine((uint8_t *)vk.ic.ptr + i * g1a, j);
            }
            for (uint32_t i = 0; i < n; i++) {
                for (int l = 0; l < 4; l++)
                    pub[4 * i + l] = cuzk_splitmix64(&rng);
                pub[4 * i + 3] >>= 4; /* below r on both curves */
            }
            if (n > 5)
                memset(pub + 4 * 5, 0, 32);
            cuzk_g16_ic_job job;
            memset(&job, 0, sizeof job);
            job.ops = ops;
            job.vk = &vk;
            job.pub = pub;
            cuzk_g16_ic_run(&job);
            assert_int_equal(job.st, CUZK_OK);
            uint64_t one[CUZK_MAX_G1_JAC / 8];
            cuzk_error e = {0};
            assert_int_equal(cuzk_g16_verify_ic(ops, &vk, pub, one, NULL, &e), CUZK_OK);
            uint8_t a0[CUZK_MAX_G1_AFFINE], a1[CUZK_MAX_G1_AFFINE];
            ops->g1_to_affine(a0, job.acc);
            ops->g1_to_affine(a1, one);
            if (memcmp(a0, a1, g1a))
                fail_msg("%s, %u inputs: the side job's IC(pub) differs from one thread's", ops->desc->snarkjs_name, n);
            free(vk.ic.ptr);
            free(pub);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ic_pool),
        cmocka_unit_test(test_shape_sizes),
        cmocka_unit_test(test_msm_order),
        cmocka_unit_test(test_circuit_shape),
        cmocka_unit_test(test_key_equals_setup),
        cmocka_unit_test(test_make_and_prove),
        cmocka_unit_test(test_gpu_points),
        cmocka_unit_test(test_cache_and_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
