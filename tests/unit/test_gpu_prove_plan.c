/* The device-memory plan of a GPU proof (include/cuzk/gpu_plan.h): pure
 * arithmetic, checked without a GPU. The per-item figures are recomputed here
 * from the documented model (CSR records of 36 bytes, domain vectors of 32
 * bytes per element, the MSM planner's figure less the host-scalar staging
 * except in tier 7, whose MSMs take host scalars),
 * the phases from the tier definition; the invariants (peak <= budget, tiers
 * only get worse as the budget shrinks) over budget sweeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cuzk/gpu.h"
#include "cuzk/gpu_plan.h"
#include "gpu/g16/wpack.h"

#define GIB ((size_t)1 << 30)

/* Filecoin's PoRep partition (issue 11): 130,278,869 constraints, 328 public
 * inputs, 130,169,893 private wires, A 2.4 / B 1.0 non-zeros per row. */
static const cuzk_gpu_key_shape POREP = {
    .curve = CUZK_CURVE_BLS12_381,
    .n_vars = 1 + 328 + 130169893ull,
    .n_public = 328,
    .log_domain = 27,
    .n_coefs = 442948155ull,
};

static const cuzk_gpu_key_shape SMALL = {
    .curve = CUZK_CURVE_BN254,
    .n_vars = 1000,
    .n_public = 3,
    .log_domain = 10,
    .n_coefs = 2500,
};

static cuzk_gpu_plan plan_ok(const cuzk_gpu_key_shape *s, size_t budget, unsigned workers)
{
    cuzk_gpu_plan_opts o = {.budget = budget, .workers = workers, .sm_count = 132, .host = {.budget = SIZE_MAX}};
    cuzk_gpu_plan p;
    cuzk_error e = {0};
    cuzk_status st = cuzk_gpu_plan_proof(s, &o, &p, &e);
    if (st)
        fail_msg("plan failed for budget %zu: %s", budget, e.msg);
    return p;
}

/* The same shape keeping only the wires with a B point: a quarter of the
 * private ones, and ONE (a PoRep partition's B density). */
static cuzk_gpu_key_shape b_kept(const cuzk_gpu_key_shape *s)
{
    cuzk_gpu_key_shape k = *s;
    k.n_b = 1 + (s->n_vars - s->n_public - 1) / 4;
    return k;
}

/* Bellperson mode's PoRep partition (include/cuzk/gpu_plan.h): 328 inputs,
 * the aux variables as above, A for the inputs and 99.7 % of the aux
 * variables, B for a quarter of them and ONE; a, b, c come with the proof. */
static const cuzk_gpu_key_shape BP_POREP = {
    .curve = CUZK_CURVE_BLS12_381,
    .n_vars = 328 + 130169893ull,
    .n_public = 327,
    .log_domain = 27,
    .bellperson = 1,
    .n_a = 328 + 129779383ull,
    .n_b = 1 + 130169893ull / 4,
};

/* The kept B wires' scalars gathered on the device (snarkjs keys only). */
static bool dropped(const cuzk_gpu_key_shape *s) { return !s->bellperson && s->n_b && s->n_b < s->n_vars; }

static size_t npoints_of(const cuzk_gpu_key_shape *s, int id)
{
    switch (id) {
    case CUZK_GPU_ITEM_MSM_H: return ((size_t)1 << s->log_domain) - (s->bellperson ? 1 : 0);
    case CUZK_GPU_ITEM_MSM_C: return s->n_vars - s->n_public - 1;
    case CUZK_GPU_ITEM_MSM_B1:
    case CUZK_GPU_ITEM_MSM_B2: return s->bellperson ? s->n_b : dropped(s) ? s->n_b : s->n_vars;
    case CUZK_GPU_ITEM_MSM_A: return s->bellperson ? s->n_a : s->n_vars;
    default: return s->n_vars;
    }
}

/* The raw scalars of a proof: the witness, and in bellperson mode's tier 7
 * A's and B's selections after it when they are not the whole witness. */
/* Bellperson mode, tiers 1-6: per selection (A's, B's when not the whole
 * witness) a bitmap of the wires and its words' offsets, 32-bit words,
 * beside the witness; the largest selection's scalars. */
static size_t select_bytes(const cuzk_gpu_key_shape *s)
{
    if (!s->bellperson)
        return 0;
    const size_t sel = (s->n_a < s->n_vars) + (s->n_b < s->n_vars);
    return sel * 2 * 4 * ((s->n_vars + 31) / 32);
}
static size_t select_scalars(const cuzk_gpu_key_shape *s)
{
    if (!s->bellperson)
        return 0;
    const size_t a = s->n_a < s->n_vars ? s->n_a : 0, b = s->n_b < s->n_vars ? s->n_b : 0;
    return a > b ? a : b;
}

/* Every figure of a plan against the model and its own invariants. */
static void check_plan(const cuzk_gpu_key_shape *s, const cuzk_gpu_plan *p)
{
    const size_t n = (size_t)1 << s->log_domain;
    assert_true(p->tier >= CUZK_GPU_TIER_FIRST && p->tier <= CUZK_GPU_TIER_LAST);
    const bool host = p->tier == CUZK_GPU_TIER_HOST_WITNESS;
    assert_int_equal(p->host_witness, host);
    const size_t ns = s->n_vars; /* tier 7 in bellperson mode selects into h's vector, not beside it */
    assert_int_equal(p->witness_bytes, ns * 32 + (host ? 0 : select_bytes(s)));
    const size_t bsb = dropped(s) ? s->n_b * 32 : 0; /* the kept B wires' scalars */
    assert_int_equal(p->b_scalar_bytes, bsb);
    assert_int_equal(p->vector_bytes, n * 32);
    /* bellperson mode: a, b, c uploaded with the witness (abc_in on the
     * device), staged through two page-locked chunks per worker, in every
     * tier; tier 7 page-locks a, b, c whole for snarkjs keys, one vector
     * (the cosets' product, then h) in bellperson mode */
    const size_t abc_in = s->bellperson ? 3 * n * 32 : 0;
    const size_t quarter = n >= 4 ? n / 4 : n; /* at least 4 chunks a vector, at most 2^22 values each */
    const size_t chunk = s->bellperson ? (quarter < ((size_t)1 << 22) ? quarter : (size_t)1 << 22) * 32 : 0;
    assert_int_equal(p->stage_bytes, chunk);
    /* bellperson: one vector, as large as the larger selection it holds after h */
    const size_t sel = select_scalars(s) * 32;
    const size_t host_vectors = s->bellperson ? (sel > n * 32 ? sel : n * 32) : 3 * n * 32;
    assert_int_equal(p->host_pinned,
                     p->witness_bytes + (host ? host_vectors + bsb : cuzk_wpack_index_bytes(ns)) + 2 * chunk);
    /* the kept B wires' index: held on the device, except in tier 7 (gathered on the host) */
    const cuzk_gpu_plan_item *bi = &p->item[CUZK_GPU_ITEM_B_INDEX];
    assert_int_equal(bi->data_bytes, dropped(s) ? s->n_b * 4 : 0);
    assert_int_equal(bi->device_bytes, host ? 0 : bi->data_bytes);
    assert_false(bi->streamed);
    /* coefficients: CSR rows + 36-byte records, or two chunks of them; none
     * on the device in tier 7 */
    const cuzk_gpu_plan_item *co = &p->item[CUZK_GPU_ITEM_COEFS];
    size_t rows = 2 * (n + 1) * 4;
    assert_int_equal(co->data_bytes, s->n_coefs * 36);
    if (host || s->bellperson)
        assert_true(co->device_bytes == 0 && !co->streamed);
    /* streamed: the rows held with the key when the budget has room for them beside the peak */
    else if (co->resident == s->n_coefs) /* whole (held with the key, or in its phases) */
        assert_int_equal(co->device_bytes, (co->rows_held ? 0 : rows) + s->n_coefs * 36);
    else
        assert_int_equal(co->device_bytes, (co->rows_held ? 0 : rows) + 2 * co->chunk * 36);
    assert_true(!co->rows_held || co->streamed);
    if (co->streamed && !co->rows_held) /* held whenever they fit beside the peak */
        assert_true(p->peak + rows > p->budget);
    assert_int_equal(p->item[CUZK_GPU_ITEM_NTT].device_bytes, cuzk_gpu_ntt_device_bytes(s->curve, s->log_domain));
    /* MSMs: the handle's own plan for msm_budget, less the staging of host
     * scalars the prover does not use (all of it in tier 7) */
    size_t held = 0, in_phase[CUZK_GPU_PHASE_COUNT] = {0};
    for (int id = 0; id < CUZK_GPU_ITEM_COUNT; id++) {
        const cuzk_gpu_plan_item *it = &p->item[id];
        if (!it->streamed)
            held += it->device_bytes;
        else if (id == CUZK_GPU_ITEM_COEFS) {
            in_phase[CUZK_GPU_PHASE_ABC] = in_phase[CUZK_GPU_PHASE_NTT] = it->device_bytes;
            held += it->rows_held ? rows : 0;
        }
        else /* its phase, and from the phase that makes it ahead (a prefetch) on */
            for (int ph = it->prefetch_from ? it->prefetch_from : CUZK_GPU_PHASE_MSM_H + (id - CUZK_GPU_ITEM_MSM_H);
                 ph <= CUZK_GPU_PHASE_MSM_H + (id - CUZK_GPU_ITEM_MSM_H); ph++)
                in_phase[ph] += it->device_bytes;
        if (id < CUZK_GPU_ITEM_MSM_H || id > CUZK_GPU_ITEM_MSM_B2)
            continue;
        size_t np = npoints_of(s, id);
        if (np == 0) { /* an empty MSM (bellperson without B points): nothing */
            assert_true(it->device_bytes == 0 && it->data_bytes == 0);
            continue;
        }
        cuzk_gpu_msm_plan mp;
        cuzk_error e = {0};
        cuzk_gpu_group g = id == CUZK_GPU_ITEM_MSM_B2 ? CUZK_GPU_G2 : CUZK_GPU_G1;
        /* as the backend creates them: copies only for H, key resident */
        assert_true(it->precompute == 1 || (id == CUZK_GPU_ITEM_MSM_H && !it->streamed && it->precompute > 1));
        const cuzk_gpu_msm_config cfg = {.precompute = it->precompute};
        assert_int_equal(cuzk_gpu_msm_plan_make(s->curve, g, np, &cfg, 132, it->msm_budget, &mp, &e), CUZK_OK);
        assert_int_equal(mp.precompute, it->precompute);
        assert_int_equal(mp.chunk_points, it->chunk);
        assert_int_equal(mp.resident_points, it->resident);
        if (!it->streamed)
            assert_int_equal(mp.streamed, 0);
        size_t staging = host ? 0 : mp.streamed ? 2 * mp.chunk_points * 32 : np * 32;
        assert_int_equal(mp.device_bytes - staging, it->device_bytes);
        size_t aff = (s->curve == CUZK_CURVE_BN254 ? 64 : 96) * (g == CUZK_GPU_G2 ? 2 : 1);
        assert_int_equal(it->data_bytes, np * aff);
        if (!mp.streamed)
            assert_true(it->device_bytes > it->data_bytes); /* bases + workspaces */
    }
    assert_int_equal(p->key_bytes, held);
    assert_int_equal(p->runtime_bytes, (size_t)384 << 20);
    /* the proof's buffers per phase, from the tier */
    const size_t w = p->witness_bytes + bsb, v = p->vector_bytes; /* the B scalars beside the witness */
    /* bellperson mode, pre-staged: a, b, c are uploaded with the witness */
    const size_t stage = p->prestage ? w + abc_in : w;
    /* bellperson mode: A's and B's selections in h's buffer, kept from the H MSM on (larger: their own too) */
    const size_t msm_v = sel > v ? v + sel : sel ? v : 0;
    const size_t job_dev[CUZK_GPU_PHASE_COUNT] = {stage, w + p->abc_vectors * v, w + p->abc_vectors * v,
                                                  w + (msm_v > v ? msm_v : v), w + msm_v, w + msm_v, w + msm_v,
                                                  w + msm_v};
    const size_t job_host[CUZK_GPU_PHASE_COUNT] = {0, 0, v, 0, 0, 0, 0, 0}; /* one vector, in the NTT phase */
    const size_t *want_job = host ? job_host : job_dev;
    assert_int_equal(p->abc_vectors, host ? 1 : p->tier == CUZK_GPU_TIER_RESIDENT_2VEC || p->tier == CUZK_GPU_TIER_STREAMED_2VEC ? 2 : 3);
    assert_int_equal(p->prestage, p->tier == CUZK_GPU_TIER_RESIDENT_PRESTAGED || p->tier == CUZK_GPU_TIER_STREAMED_PRESTAGED);
    assert_int_equal(p->others_bytes, p->prestage ? (p->workers - 1) * (w + abc_in) : 0);
    size_t peak = 0;
    for (int ph = 0; ph < CUZK_GPU_PHASE_COUNT; ph++) {
        assert_int_equal(p->job_bytes[ph], want_job[ph]);
        assert_int_equal(p->phase_bytes[ph], p->runtime_bytes + held + in_phase[ph] + want_job[ph] + p->others_bytes);
        if (p->phase_bytes[ph] > peak)
            peak = p->phase_bytes[ph];
    }
    assert_int_equal(p->peak, peak);
    assert_true(p->peak <= p->budget);
    /* prefetches: streamed MSM items only, from an earlier MSM phase (none
     * in tier 7); each starts as early as the peak allows: one phase
     * earlier would pass it (later items' prefetches only add to a phase) */
    size_t peak_own = 0; /* the peak without them: prefetches never raise it */
    for (int ph = 0; ph < CUZK_GPU_PHASE_COUNT; ph++) {
        size_t b = p->phase_bytes[ph];
        for (int id = CUZK_GPU_ITEM_MSM_H; id <= CUZK_GPU_ITEM_MSM_B2; id++) {
            const cuzk_gpu_plan_item *it = &p->item[id];
            if (it->prefetch_from && ph >= it->prefetch_from && ph < CUZK_GPU_PHASE_MSM_H + (id - CUZK_GPU_ITEM_MSM_H))
                b -= it->device_bytes;
        }
        peak_own = b > peak_own ? b : peak_own;
    }
    assert_int_equal(peak_own, p->peak);
    for (int id = CUZK_GPU_ITEM_MSM_H; id <= CUZK_GPU_ITEM_MSM_B2; id++) {
        const cuzk_gpu_plan_item *it = &p->item[id];
        const int own = CUZK_GPU_PHASE_MSM_H + (id - CUZK_GPU_ITEM_MSM_H);
        if (it->prefetch_from) {
            assert_true(it->streamed && !host && it->resident > 0);
            assert_true(it->prefetch_from >= CUZK_GPU_PHASE_MSM_H && it->prefetch_from < own);
        }
        const int before = (it->prefetch_from ? it->prefetch_from : own) - 1;
        if (it->streamed && !host && it->resident > 0 && before >= CUZK_GPU_PHASE_MSM_H)
            assert_true(p->phase_bytes[before] + it->device_bytes > p->peak);
    }
    assert_true(p->least_budget <= p->budget);
    assert_true(p->least_tier >= CUZK_GPU_TIER_STREAMED_PRESTAGED && p->least_tier <= CUZK_GPU_TIER_LAST);
    assert_true(p->tier <= p->least_tier);
    int streamed = 0;
    for (int i = 0; i < CUZK_GPU_ITEM_COUNT; i++)
        streamed |= p->item[i].streamed;
    assert_int_equal(p->key_streamed, streamed);
    assert_int_equal(p->key_streamed, p->tier >= CUZK_GPU_TIER_STREAMED_PRESTAGED);
}

/* At least_budget the plan is least_tier; one byte less, nothing fits. */
static void check_least(const cuzk_gpu_key_shape *s, const cuzk_gpu_plan *p)
{
    cuzk_gpu_plan_opts lo = {.budget = p->least_budget, .workers = p->workers, .sm_count = p->sm_count, .host = {.budget = SIZE_MAX}};
    cuzk_gpu_plan pl;
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_plan_proof(s, &lo, &pl, &e), CUZK_OK);
    check_plan(s, &pl);
    assert_int_equal(pl.tier, p->least_tier);
    assert_int_equal(pl.least_budget, p->least_budget);
    lo.budget--;
    assert_int_equal(cuzk_gpu_plan_proof(s, &lo, &pl, &e), CUZK_ERR_NOMEM);
}

/* PoRep on an H200 (about 137 GiB for the proofs): all resident, pre-staged. */
static void test_porep_h200(void **state)
{
    (void)state;
    cuzk_gpu_plan p = plan_ok(&POREP, 137 * GIB, 2);
    check_plan(&POREP, &p);
    assert_int_equal(p.tier, 1);
    for (int i = 0; i < CUZK_GPU_ITEM_COUNT; i++)
        assert_int_equal(p.item[i].streamed, 0);
    /* the key data alone: 4 G1 MSMs of ~2^27 points, B2 on G2, 16 GB of records */
    assert_true(p.key_bytes > 90 * (size_t)1000000000);
}

/* Keeping only the B wires with a point (a quarter of them) frees three
 * quarters of the B bases' device memory on the H200, and at 16 GiB three
 * quarters of the B bases' bus traffic per proof. */
static void test_porep_b_kept(void **state)
{
    (void)state;
    const cuzk_gpu_key_shape k = b_kept(&POREP);
    cuzk_gpu_plan all = plan_ok(&POREP, 137 * GIB, 2), kept = plan_ok(&k, 137 * GIB, 2);
    check_plan(&k, &kept);
    assert_int_equal(kept.tier, 1);
    const size_t b_all = all.item[CUZK_GPU_ITEM_MSM_B1].data_bytes + all.item[CUZK_GPU_ITEM_MSM_B2].data_bytes;
    const size_t b_kept_ = kept.item[CUZK_GPU_ITEM_MSM_B1].data_bytes + kept.item[CUZK_GPU_ITEM_MSM_B2].data_bytes;
    assert_true(b_kept_ * 4 <= b_all + 4 * 288);
    assert_true(kept.key_bytes + 20 * GIB < all.key_bytes);
    assert_int_equal(kept.b_scalar_bytes, k.n_b * 32);
    const size_t budgets[] = {16 * GIB, 8 * GIB};
    for (size_t i = 0; i < 2; i++) {
        cuzk_gpu_plan p = plan_ok(&k, budgets[i], 2);
        check_plan(&k, &p);
        assert_int_equal(p.tier, i ? 7 : 6);
    }
    cuzk_gpu_key_shape bad = POREP;
    bad.n_b = bad.n_vars + 1;
    cuzk_gpu_plan_opts o = {.budget = GIB, .host = {.budget = SIZE_MAX}};
    cuzk_gpu_plan p;
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_plan_proof(&bad, &o, &p, &e), CUZK_ERR_USAGE);
}

/* With msm_copies, a resident key's H MSM takes precomputed copies from the
 * memory the tier leaves, when the cost model prefers them (BLS12-381 G1 and
 * BN254 G1 at every size); the rest of the plan is unchanged,
 * the peak still within the budget. A streamed key gets none. */
static void test_h_copies(void **state)
{
    (void)state;
    cuzk_gpu_key_shape bls = {.curve = CUZK_CURVE_BLS12_381, .n_vars = 1u << 24, .n_public = 3, .log_domain = 24,
                              .n_coefs = 3ull << 24};
    bls.n_b = 1 + (bls.n_vars - 4) / 4;
    cuzk_gpu_key_shape bn = bls;
    bn.curve = CUZK_CURVE_BN254;
    const struct {
        const cuzk_gpu_key_shape *s;
        size_t budget;
        bool copies;
    } cases[] = {{&bls, 137 * GIB, true}, {&bls, 48 * GIB, true}, {&bn, 137 * GIB, true}, {&bls, 16 * GIB, false}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_gpu_plan_opts o = {.budget = cases[i].budget, .workers = 2, .sm_count = 132, .host = {.budget = SIZE_MAX}};
        cuzk_gpu_plan without, with;
        cuzk_error e = {0};
        assert_int_equal(cuzk_gpu_plan_proof(cases[i].s, &o, &without, &e), CUZK_OK);
        o.msm_copies = 1;
        assert_int_equal(cuzk_gpu_plan_proof(cases[i].s, &o, &with, &e), CUZK_OK);
        check_plan(cases[i].s, &with);
        assert_int_equal(with.tier, without.tier);
        const cuzk_gpu_plan_item *h = &with.item[CUZK_GPU_ITEM_MSM_H], *h0 = &without.item[CUZK_GPU_ITEM_MSM_H];
        assert_int_equal(h0->precompute, 1);
        if (!cases[i].copies) {
            assert_int_equal(h->precompute, 1);
            assert_int_equal(with.peak, without.peak);
            continue;
        }
        assert_true(h->precompute > 1);
        assert_true(h->device_bytes > h0->device_bytes);
        assert_true(h->device_bytes >= (size_t)h->precompute * h->data_bytes); /* the copies at least */
        const size_t add = h->device_bytes - h0->device_bytes;
        assert_int_equal(with.key_bytes, without.key_bytes + add);
        assert_int_equal(with.peak, without.peak + add);
        assert_true(with.peak <= with.budget);
    }
}

/* PoRep at a 16 GiB cap: the key is streamed, the witness and 2 vectors
 * on the device (tier 6), and it still fits. */
/* PoRep on an H100's full memory (77.5 GiB for the proofs): H and B2
 * streamed; B2's handle is made at A's phase, its bases uploaded while A,
 * B1 and C compute (the plan's peak is H's phase); at 24 GiB nothing has
 * room to be made ahead. */
static void test_porep_h100(void **state)
{
    (void)state;
    const cuzk_gpu_key_shape k = b_kept(&POREP); /* as `bench prove --porep` makes it */
    cuzk_gpu_plan p = plan_ok(&k, 155 * GIB / 2, 2);
    check_plan(&k, &p);
    assert_int_equal(p.tier, 4);
    assert_true(p.item[CUZK_GPU_ITEM_MSM_H].streamed && p.item[CUZK_GPU_ITEM_MSM_B2].streamed);
    assert_int_equal(p.item[CUZK_GPU_ITEM_MSM_B2].prefetch_from, CUZK_GPU_PHASE_MSM_A);
    assert_true(p.item[CUZK_GPU_ITEM_COEFS].streamed && p.item[CUZK_GPU_ITEM_COEFS].rows_held);
    assert_int_equal(p.item[CUZK_GPU_ITEM_MSM_H].prefetch_from, 0);
    assert_int_equal(p.peak, p.phase_bytes[CUZK_GPU_PHASE_MSM_H]);
    for (int ph = CUZK_GPU_PHASE_MSM_A; ph <= CUZK_GPU_PHASE_MSM_B2; ph++)
        assert_int_equal(p.phase_bytes[ph], p.phase_bytes[CUZK_GPU_PHASE_MSM_B2]);
    cuzk_gpu_plan q = plan_ok(&k, 24 * GIB, 2);
    check_plan(&k, &q);
    for (int id = CUZK_GPU_ITEM_MSM_H; id <= CUZK_GPU_ITEM_MSM_B2; id++)
        assert_int_equal(q.item[id].prefetch_from, 0);
    assert_false(q.item[CUZK_GPU_ITEM_COEFS].rows_held);
}

static void test_porep_16g(void **state)
{
    (void)state;
    cuzk_gpu_plan p = plan_ok(&POREP, 16 * GIB, 2);
    check_plan(&POREP, &p);
    assert_int_equal(p.tier, 6);
    assert_true(p.item[CUZK_GPU_ITEM_MSM_H].streamed);
    assert_true(p.item[CUZK_GPU_ITEM_COEFS].streamed);
}

/* PoRep at 8 GiB: the witness and two domain vectors alone are ~12 GiB,
 * so tier 6 (which needs 13.31 GiB) does not fit; tier 7 (witness on the
 * host) does, also with two workers and on a consumer card's 8 GiB less the
 * planner's margin of 512 MiB. Its least budget is the NTT phase: the
 * runtime reserve + the NTT tables + one domain vector (its MSM phases can
 * stream in less); below that, NOMEM with a message naming tier 7 and the
 * figure, not a plan that would run out. */
static void test_porep_8g(void **state)
{
    (void)state;
    const size_t budgets[] = {8 * GIB, 8 * GIB - ((size_t)512 << 20)};
    for (size_t i = 0; i < 2; i++) {
        cuzk_gpu_plan p = plan_ok(&POREP, budgets[i], 2);
        check_plan(&POREP, &p);
        assert_int_equal(p.tier, 7);
        assert_int_equal(p.job_bytes[CUZK_GPU_PHASE_NTT], (size_t)32 << 27);
        for (int id = CUZK_GPU_ITEM_MSM_H; id <= CUZK_GPU_ITEM_MSM_B2; id++)
            assert_true(p.item[id].streamed);
        const size_t need = p.runtime_bytes + cuzk_gpu_ntt_device_bytes(CUZK_CURVE_BLS12_381, 27) + ((size_t)32 << 27);
        assert_int_equal(p.least_budget, need);
        assert_int_equal(p.least_tier, 7);
        assert_true(p.budget - p.least_budget > 3 * GIB); /* 3.6 / 3.1 GiB to spare */
        check_least(&POREP, &p);
    }
    /* 13.5 GiB: tier 6 still (13.31 GiB) */
    cuzk_gpu_plan p13 = plan_ok(&POREP, 27 * GIB / 2, 2);
    check_plan(&POREP, &p13);
    assert_int_equal(p13.tier, 6);
    /* just below tier 7's need, and 4 GiB: nothing fits */
    cuzk_gpu_plan p8 = plan_ok(&POREP, 8 * GIB, 2);
    const size_t below[] = {p8.least_budget - 1, 4 * GIB};
    for (size_t i = 0; i < 2; i++) {
        cuzk_gpu_plan_opts o = {.budget = below[i], .sm_count = 132, .host = {.budget = SIZE_MAX}};
        cuzk_gpu_plan p;
        cuzk_error e = {0};
        assert_int_equal(cuzk_gpu_plan_proof(&POREP, &o, &p, &e), CUZK_ERR_NOMEM);
        assert_non_null(strstr(e.msg, "does not fit"));
        assert_non_null(strstr(e.msg, "needs at least 4.42 GiB (with tier 7; the smallest tier, 7,"));
        assert_null(strchr(e.msg, '\n'));
    }
}

/* Shrinking the budget never improves the tier, never exceeds the budget,
 * and ends in NOMEM; every plan on the way checks out. */
static void sweep(const cuzk_gpu_key_shape *s, size_t hi, unsigned workers)
{
    unsigned last_tier = 1;
    int planned = 0;
    for (size_t b = hi; b > 0; b = b / 10 * 9) {
        cuzk_gpu_plan_opts o = {.budget = b, .workers = workers, .sm_count = 132, .host = {.budget = SIZE_MAX}};
        cuzk_gpu_plan p;
        cuzk_error e = {0};
        cuzk_status st = cuzk_gpu_plan_proof(s, &o, &p, &e);
        if (st) {
            assert_int_equal(st, CUZK_ERR_NOMEM);
            last_tier = 8;
            continue;
        }
        assert_true(last_tier <= 7); /* no plan after a NOMEM at a larger budget */
        check_plan(s, &p);
        assert_true(p.tier >= last_tier);
        if (!planned)
            check_least(s, &p);
        last_tier = p.tier;
        planned++;
    }
    assert_int_equal(last_tier, 8);
    assert_true(planned > 3);
}

static void test_sweep_porep(void **state)
{
    (void)state;
    sweep(&POREP, 200 * GIB, 2);
    sweep(&POREP, 200 * GIB, 3);
    const cuzk_gpu_key_shape k = b_kept(&POREP);
    sweep(&k, 200 * GIB, 2);
}

/* Bellperson mode: no coefficients, H one point less, the selections'
 * bitmaps beside the witness (tier 7: their scalars), a, b, c uploaded per
 * proof; every tier reachable, and the same invariants. */
static void test_bellperson(void **state)
{
    (void)state;
    cuzk_gpu_plan p = plan_ok(&BP_POREP, 137 * GIB, 2);
    check_plan(&BP_POREP, &p);
    assert_int_equal(p.tier, 1);
    assert_int_equal(p.item[CUZK_GPU_ITEM_COEFS].data_bytes, 0);
    assert_int_equal(p.item[CUZK_GPU_ITEM_MSM_H].data_bytes, (((size_t)1 << 27) - 1) * 96);
    assert_int_equal(p.item[CUZK_GPU_ITEM_MSM_A].data_bytes, BP_POREP.n_a * 96);
    assert_int_equal(p.item[CUZK_GPU_ITEM_MSM_B2].data_bytes, BP_POREP.n_b * 192);
    /* a, b, c staged through two 128 MiB chunks, not page-locked whole (12 GiB a worker) */
    assert_int_equal(p.stage_bytes, (size_t)128 << 20);
    /* A's and B's scalars selected on the device: the witness and two bitmaps with their offsets */
    assert_int_equal(p.witness_bytes, BP_POREP.n_vars * 32 + 2 * 8 * ((BP_POREP.n_vars + 31) / 32));
    assert_true(p.host_pinned < p.witness_bytes + p.witness_bytes / 8 + ((size_t)256 << 20));
    sweep(&BP_POREP, 200 * GIB, 2);
    sweep(&BP_POREP, 200 * GIB, 1);
    /* full densities: the scalars are the witness alone */
    cuzk_gpu_key_shape f = BP_POREP;
    f.n_a = f.n_b = f.n_vars;
    p = plan_ok(&f, 137 * GIB, 2);
    check_plan(&f, &p);
    assert_int_equal(p.witness_bytes, f.n_vars * 32);
    /* the shapes bench/bp_gpu.sh proves (`cuzk gen --constraints 2^k - 4
     * --public 3`: about 2^k wires), swept down to NOMEM, and the tiers its
     * --gpu-mem caps give (sm 132: H100 / H200) */
    for (unsigned k = 10; k <= 20; k += 2) {
        cuzk_gpu_key_shape b = {.curve = CUZK_CURVE_BLS12_381, .n_vars = ((size_t)1 << k) - 4, .n_public = 3,
                                .log_domain = k, .bellperson = 1};
        b.n_a = 4 + (b.n_vars - 4) * 997 / 1000;
        b.n_b = 1 + (b.n_vars - 4) / 4;
        sweep(&b, 8 * GIB, 2);
        b.n_b = 0; /* no B point at all */
        sweep(&b, 8 * GIB, 1);
    }
    /* a bellperson shape must have no coefficients and A at least its inputs */
    cuzk_gpu_key_shape bad = BP_POREP;
    bad.n_coefs = 1;
    cuzk_gpu_plan_opts o = {.budget = GIB, .sm_count = 132, .host = {.budget = SIZE_MAX}};
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_plan_proof(&bad, &o, &p, &e), CUZK_ERR_USAGE);
    bad = BP_POREP;
    bad.n_a = 3;
    assert_int_equal(cuzk_gpu_plan_proof(&bad, &o, &p, &e), CUZK_ERR_USAGE);
}

static void test_sweep_small(void **state)
{
    (void)state;
    sweep(&SMALL, GIB, 2);
    cuzk_gpu_key_shape s = SMALL;
    s.curve = CUZK_CURVE_BLS12_381;
    s.log_domain = 20;
    s.n_vars = 900000;
    s.n_coefs = 3000000;
    sweep(&s, 8 * GIB, 1);
    sweep(&s, 8 * GIB, 4);
    const cuzk_gpu_key_shape k = b_kept(&s);
    sweep(&k, 8 * GIB, 2);
}

/* More workers: more pre-staged witnesses, same key and job. */
static void test_workers(void **state)
{
    (void)state;
    cuzk_gpu_plan p1 = plan_ok(&POREP, 160 * GIB, 1), p3 = plan_ok(&POREP, 160 * GIB, 3);
    check_plan(&POREP, &p1);
    check_plan(&POREP, &p3);
    assert_int_equal(p1.tier, 1);
    assert_int_equal(p3.tier, 1);
    assert_int_equal(p1.others_bytes, 0);
    assert_int_equal(p3.others_bytes, 2 * p3.witness_bytes);
    assert_int_equal(p3.peak - p1.peak, 2 * p3.witness_bytes);
}

static void test_bad_shape(void **state)
{
    (void)state;
    cuzk_gpu_plan_opts o = {.budget = GIB, .host = {.budget = SIZE_MAX}};
    cuzk_gpu_plan p;
    cuzk_error e = {0};
    cuzk_gpu_key_shape s = SMALL;
    s.n_public = s.n_vars;
    assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_ERR_USAGE);
    s = SMALL;
    s.log_domain = 28; /* BN254: 2-adicity 28, no odd coset */
    assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_ERR_USAGE);
    s = SMALL;
    s.curve = CUZK_CURVE_NONE;
    assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_gpu_plan_proof(NULL, &o, &p, &e), CUZK_ERR_USAGE);
}

/* Without a budget the device is asked; without a device that is an error
 * that says what to do. */
static void test_no_device(void **state)
{
    (void)state;
    if (cuzk_gpu_device_count() > 0)
        skip();
    cuzk_gpu_plan p;
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_plan_proof(&SMALL, NULL, &p, &e), CUZK_ERR_UNSUPPORTED);
    assert_non_null(strstr(e.msg, "--gpu-mem"));
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(cuzk_gpu_plan_item_name(CUZK_GPU_ITEM_MSM_B2), "msm_b2");
    assert_string_equal(cuzk_gpu_plan_item_name(CUZK_GPU_ITEM_B_INDEX), "b_index");
    assert_string_equal(cuzk_gpu_plan_phase_name(CUZK_GPU_PHASE_NTT), "ntt");
    assert_string_equal(cuzk_gpu_plan_phase_name(CUZK_GPU_PHASE_COUNT), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_porep_h200),  cmocka_unit_test(test_porep_b_kept), cmocka_unit_test(test_h_copies),
        cmocka_unit_test(test_porep_h100), cmocka_unit_test(test_porep_16g),
        cmocka_unit_test(test_porep_8g), cmocka_unit_test(test_sweep_porep),
        cmocka_unit_test(test_sweep_small), cmocka_unit_test(test_workers),
        cmocka_unit_test(test_bad_shape),   cmocka_unit_test(test_no_device),
        cmocka_unit_test(test_names),       cmocka_unit_test(test_bellperson),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
