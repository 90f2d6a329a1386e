/* The host-memory plan (include/cuzk/gpu_plan.h, cuzk_host_plan) beside the
 * device plan: every phase's sum recomputed here from the documented model
 * (items, workers, the key mapped or held), the resource that binds, and the
 * lowering of the worker count, at PoRep shapes 2^10..2^27, with small fake
 * memory sizes (opts.host.available), never this machine's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cuzk/dev.h"
#include "cuzk/gpu_plan.h"
#include "util/common.h"

#define GIB ((size_t)1 << 30)
#define MIB ((size_t)1 << 20)

static cuzk_gpu_key_shape porep(unsigned lg)
{
    cuzk_gpu_key_shape s;
    cuzk_error e = {0};
    assert_int_equal(cuzk_porep_key_shape(CUZK_CURVE_BLS12_381, lg, &s, &e), CUZK_OK);
    return s;
}

/* The phases from the items, as the header documents them. */
static void check_sums(const cuzk_host_plan *h)
{
    const size_t W = h->workers;
    assert_int_equal(h->phase_bytes[CUZK_HOST_PHASE_LOAD], h->runtime + h->key_anon);
    const size_t att = h->runtime + h->key_anon - h->key_freed_early + h->key_locked + h->key_upload_locked +
                       h->b_bases + h->csr_build +
                       h->csr_held + h->tables + W * h->pinned + h->bases_stage;
    const size_t copy = h->runtime + h->key_anon + h->b_bases;
    assert_int_equal(h->phase_bytes[CUZK_HOST_PHASE_ATTACH], att > copy ? att : copy);
    assert_true(h->key_freed_early <= h->key_freed && h->key_freed <= h->key_anon);
    const size_t base = h->runtime + h->key_anon - h->key_freed + h->key_locked;
    const size_t held = base + h->b_held + h->csr_held + h->tables + W * h->pinned + h->bases_stage;
    assert_int_equal(h->phase_bytes[CUZK_HOST_PHASE_ABC], held + W * (h->witness + h->vectors));
    assert_int_equal(h->phase_bytes[CUZK_HOST_PHASE_NTT], held + W * (h->witness + h->vectors));
    const size_t mv = h->gpu ? h->vectors : h->vectors / 3;
    assert_int_equal(h->phase_bytes[CUZK_HOST_PHASE_MSM], held + W * (h->witness + mv + h->scratch));
    size_t peak = 0;
    for (int p = 0; p < CUZK_HOST_PHASE_COUNT; p++)
        peak = h->phase_bytes[p] > peak ? h->phase_bytes[p] : peak;
    assert_int_equal(h->peak, peak);
    assert_true(h->peak <= h->budget);
    /* the key: all anonymous when held, nothing when mapped (its locked
     * pages apart) */
    assert_int_equal(h->key_anon, h->key_mapped ? 0 : h->key_data);
    assert_true(h->key_mapped || h->key_locked == 0);
    assert_true(h->key_mapped || h->key_upload_locked == 0);
    assert_true(h->key_upload_locked <= h->key_data);
    assert_true(!h->key_mapped || h->key_freed == 0);
    assert_true(h->gpu || h->key_freed == 0);
    assert_true(h->b_held <= h->b_bases);
}

/* GPU plans at 2^10..2^27 over device budgets that select each tier; the
 * host side follows the tier: page-locked CSR records when the coefficients
 * are streamed, the CPU's A/B plan and a, b, c per worker in tier 7 (the
 * plan a CSR when the records are not sorted, else its chunk tables). */
static const unsigned LGS[] = {10, 13, 16, 19, 22, 25, 27};

static void test_gpu_host_sums(void **state)
{
    (void)state;
    for (size_t li = 0; li < sizeof LGS / sizeof LGS[0]; li++) {
        const unsigned lg = LGS[li];
        cuzk_gpu_key_shape s = porep(lg);
        const size_t v = (size_t)32 << lg;
        for (int variant = 0; variant < 8; variant++) /* bit 0: the key mapped; bit 1: its records sorted;
                                                          bit 2: streamed bases staged (else the plan's
                                                          choice: locked, the host budget being unlimited) */
            for (unsigned W = 1; W <= 2; W++)
                for (size_t budget = (size_t)1 << 44; budget >= ((size_t)64 << 20); budget /= 3) {
                    cuzk_gpu_plan_opts o = {.budget = budget, .workers = W, .sm_count = 132, .device = -1};
                    o.host.budget = SIZE_MAX; /* device only: every tier's host side is checked here */
                    o.host.key_mapped = variant & 1;
                    s.coefs_sorted = (variant >> 1) & 1;
                    o.stage_bases = variant & 4 ? 1 : 0;
                    cuzk_gpu_plan p;
                    cuzk_error e = {0};
                    if (cuzk_gpu_plan_proof(&s, &o, &p, &e) != CUZK_OK) {
                        assert_int_equal(e.code, CUZK_ERR_NOMEM);
                        break;
                    }
                    const cuzk_host_plan *h = &p.host;
                    assert_int_equal(h->gpu, 1);
                    assert_int_equal(h->workers, W);
                    assert_int_equal(p.workers, W);
                    assert_int_equal(p.workers_asked, W);
                    check_sums(h);
                    assert_int_equal(h->pinned, p.host_pinned);
                    assert_int_equal(h->witness, s.n_vars * 32);
                    if (p.tier == CUZK_GPU_TIER_HOST_WITNESS) {
                        assert_true(h->pinned >= 3 * v + h->witness);
                        if (s.coefs_sorted)
                            assert_true(h->csr_held < ((size_t)1 << 20) && h->csr_build == 0);
                        else
                            assert_true(h->csr_held >= s.n_coefs * 40);
                    } else if (p.item[CUZK_GPU_ITEM_COEFS].streamed) {
                        assert_true(h->csr_held >= s.n_coefs * 36);
                    } else {
                        assert_true(h->csr_build >= s.n_coefs * 36);
                        assert_true(h->csr_held < s.n_coefs * 36 || s.n_coefs < 8);
                    }
                    /* streamed MSM bases staged through two page-locked chunks per handle when asked;
                     * else a mapped key's are page-locked whole, a held key's locked in place (counted
                     * in key_anon) */
                    size_t stage = 0; /* the largest streamed item's two chunks */
                    for (int id = CUZK_GPU_ITEM_MSM_H; id <= CUZK_GPU_ITEM_MSM_B2; id++)
                        if (p.item[id].streamed) {
                            const size_t n = p.item[id].chunk < ((size_t)1 << 22) ? p.item[id].chunk
                                                                                   : ((size_t)1 << 22);
                            const size_t b = 2 * n * (id == CUZK_GPU_ITEM_MSM_B2 ? 192 : 96);
                            stage = b > stage ? b : stage;
                        }
                    const bool staged = (variant & 4) != 0;
                    assert_int_equal(p.bases_staged, staged);
                    if (staged) { /* one stager a key, whatever the handles alive */
                        assert_int_equal(h->key_locked, 0);
                        assert_int_equal(h->bases_stage, stage);
                    } else {
                        assert_int_equal(h->bases_stage, 0);
                        if ((variant & 1) && p.item[CUZK_GPU_ITEM_MSM_H].streamed)
                            assert_true(h->key_locked >= p.item[CUZK_GPU_ITEM_MSM_H].data_bytes);
                    }
                    if (!p.item[CUZK_GPU_ITEM_MSM_B1].streamed && !p.item[CUZK_GPU_ITEM_MSM_B2].streamed)
                        assert_true(h->b_held < h->b_bases);
                    /* a held key keeps, once attached, only what its streamed items and tier 7 read:
                     * at tier 1 the IC alone (not among the key's data) */
                    if (!(variant & 1) && p.tier == CUZK_GPU_TIER_RESIDENT_PRESTAGED)
                        assert_int_equal(h->key_freed, h->key_data - (s.n_public + 1) * 96);
                    if (!(variant & 1) && p.tier == CUZK_GPU_TIER_HOST_WITNESS)
                        assert_true(h->key_anon - h->key_freed >= s.n_coefs * 44);
                }
    }
}

/* The host binds: a host too small for tier 1's page-locked buffers... at
 * 2^16 with W = 2 the device fits tier 1 anyway; a host that holds the key
 * mapped but not the streamed tiers' CSR keeps tier 1; a host budget below
 * tier 1's host peak but above a later tier's is impossible to construct in
 * general, so check the choice against each tier's own host figure: the
 * chosen tier is the first (in device order) whose host peak fits. */
static void test_binding(void **state)
{
    (void)state;
    for (unsigned lg = 12; lg <= 27; lg += 3) {
        const cuzk_gpu_key_shape s = porep(lg);
        /* a device budget between tiers: tier 7's least budget x 1.5 */
        cuzk_gpu_plan_opts o = {.budget = 0, .workers = 2, .sm_count = 132, .device = -1};
        o.host.budget = SIZE_MAX;
        o.host.key_mapped = 1;
        cuzk_gpu_plan p0;
        cuzk_error e = {0};
        o.budget = (size_t)1 << 44;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p0, &e), CUZK_OK);
        assert_int_equal(p0.tier, 1);
        assert_int_equal(p0.host_skipped, 0);
        /* the host: exactly the tier-1 peak fits; one byte less does not fit tier 1
         * (the device then takes the first tier whose host side fits, or lowers W) */
        o.host.budget = 0;
        o.host.available = p0.host.peak;
        cuzk_gpu_plan p1;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p1, &e), CUZK_OK);
        assert_int_equal(p1.tier, 1);
        assert_int_equal(p1.host.peak, p0.host.peak);
        assert_int_equal(p1.host.budget, p0.host.peak);
        o.host.available = p0.host.peak - 1;
        cuzk_gpu_plan p2;
        cuzk_status st = cuzk_gpu_plan_proof(&s, &o, &p2, &e);
        if (st == CUZK_OK) {
            assert_true(p2.tier > 1 || p2.workers < 2);
            assert_true(p2.host.peak <= p0.host.peak - 1);
            assert_true(p2.host_skipped > 0 || p2.workers < p2.workers_asked);
        } else {
            assert_int_equal(st, CUZK_ERR_NOMEM);
            assert_non_null(strstr(e.msg, "host memory"));
        }
        /* a cap below the available memory binds the same way */
        o.host.available = (size_t)1 << 44;
        o.host.budget = p0.host.peak - 1;
        cuzk_gpu_plan p3;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p3, &e), st);
        if (!st)
            assert_int_equal(p3.tier, p2.tier);
    }
}

/* Streamed MSM bases of a mapped key: locked while the host plan fits with
 * them locked; a host between the staged and the locked peak keeps the tier
 * and the workers with them staged; --stage-bases no refuses to stage (the
 * workers are lowered or the tier changes instead); a held key never stages
 * on its own. 2^27 at 8G (tier 7) and 24G (tier 4), W = 2. */
static void test_staged_bases(void **state)
{
    (void)state;
    const cuzk_gpu_key_shape s = porep(27);
    const size_t caps[] = {8 * GIB, 24 * GIB};
    for (size_t ci = 0; ci < 2; ci++) {
        cuzk_gpu_plan_opts o = {.budget = caps[ci], .workers = 2, .sm_count = 132, .device = -1};
        o.host.key_mapped = 1;
        o.host.budget = SIZE_MAX;
        cuzk_gpu_plan lk, st, p;
        cuzk_error e = {0};
        o.stage_bases = -1;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &lk, &e), CUZK_OK);
        o.stage_bases = 1;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &st, &e), CUZK_OK);
        assert_int_equal(lk.tier, st.tier);
        assert_int_equal(lk.bases_staged, 0);
        assert_int_equal(st.bases_staged, 1);
        /* the 35.3 GiB of streamed H, A and C bases (B's are the kept wires' copies) */
        assert_true(lk.host.key_locked > 35 * GIB);
        assert_int_equal(st.host.key_locked, 0);
        assert_true(st.host.bases_stage > 0 && st.host.bases_stage <= 3 * GIB);
        assert_int_equal(lk.host.peak - lk.host.key_locked + st.host.bases_stage, st.host.peak);
        assert_true(st.host.peak <= 64 * GIB); /* issue 27's bound with two workers */
        /* auto, unlimited host: locked */
        o.stage_bases = 0;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_OK);
        assert_int_equal(p.bases_staged, 0);
        assert_int_equal(p.host.peak, lk.host.peak);
        /* auto, a host between the two peaks: staged, same tier and workers */
        o.host.budget = 0;
        o.host.available = (st.host.peak + lk.host.peak) / 2;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_OK);
        assert_int_equal(p.bases_staged, 1);
        assert_int_equal(p.tier, lk.tier);
        assert_int_equal(p.workers, 2);
        assert_int_equal(p.host.peak, st.host.peak);
        check_sums(&p.host);
        /* locked asked on that host: not two workers at this tier with the bases locked */
        o.stage_bases = -1;
        cuzk_status r = cuzk_gpu_plan_proof(&s, &o, &p, &e);
        assert_true(r == CUZK_ERR_NOMEM || (r == CUZK_OK && !p.bases_staged && p.host.peak <= o.host.available &&
                                            (p.workers < 2 || p.tier != lk.tier)));
        /* a held key: nothing of it to unlock, so auto never stages */
        o.stage_bases = 0;
        o.host.key_mapped = 0;
        o.host.budget = SIZE_MAX;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_OK);
        assert_int_equal(p.bases_staged, 0);
        assert_int_equal(p.host.key_locked, 0);
    }
}

/* Workers: a host that holds one worker's buffers but not four's lowers W
 * to what fits (the largest), or with fixed_workers refuses with NOMEM
 * naming the host. */
static void test_worker_lowering(void **state)
{
    (void)state;
    for (size_t li = 0; li < sizeof LGS / sizeof LGS[0]; li++) {
        const unsigned lg = LGS[li];
        const cuzk_gpu_key_shape s = porep(lg);
        cuzk_gpu_plan_opts o = {.budget = (size_t)1 << 44, .workers = 1, .sm_count = 132, .device = -1};
        o.host.budget = SIZE_MAX;
        o.host.key_mapped = 1;
        cuzk_gpu_plan p1, p4, p;
        cuzk_error e = {0};
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p1, &e), CUZK_OK);
        o.workers = 4;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p4, &e), CUZK_OK);
        assert_true(p4.host.peak > p1.host.peak);
        /* available: between W = 1 and W = 2 at tier 1 */
        o.host.budget = 0;
        o.host.available = p1.host.peak + (p4.host.peak - p1.host.peak) / 6;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_OK);
        assert_int_equal(p.workers_asked, 4);
        assert_true(p.workers < 4);
        assert_true(p.host.peak <= o.host.available);
        assert_int_equal(p.host.workers, p.workers);
        /* W + 1 would not have fit any tier (the largest W that fits is chosen) */
        cuzk_gpu_plan q;
        cuzk_gpu_plan_opts o2 = o;
        o2.workers = p.workers + 1;
        o2.fixed_workers = 1;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o2, &q, &e), CUZK_ERR_NOMEM);
        assert_non_null(strstr(e.msg, "host memory"));
        /* fixed: refused */
        o.fixed_workers = 1;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_ERR_NOMEM);
        /* below one worker's need: refused either way, naming what it lacks */
        o.fixed_workers = 0;
        o.host.available = 64 * MIB;
        assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &e), CUZK_ERR_NOMEM);
        assert_non_null(strstr(e.msg, "host memory"));
        assert_non_null(strstr(e.msg, "are available"));
    }
}

/* The CPU prover: held when it fits, else mapped (key_mapped < 0), sums
 * per phase, NOMEM with the figures otherwise. */
static void test_cpu(void **state)
{
    (void)state;
    for (unsigned lg = 10; lg <= 27; lg++) {
        const cuzk_gpu_key_shape s = porep(lg);
        cuzk_host_plan_opts o = {.budget = SIZE_MAX, .threads = 16};
        cuzk_host_plan held, mapped, h;
        cuzk_error e = {0};
        assert_int_equal(cuzk_host_plan_cpu(&s, 2, &o, &held, &e), CUZK_OK);
        o.key_mapped = 1;
        assert_int_equal(cuzk_host_plan_cpu(&s, 2, &o, &mapped, &e), CUZK_OK);
        check_sums(&held);
        check_sums(&mapped);
        assert_int_equal(held.gpu, 0);
        assert_int_equal(held.vectors, (size_t)3 * 32 << lg);
        assert_int_equal(held.peak - mapped.peak, held.key_data);
        /* auto: held at its peak, mapped one byte below */
        o.key_mapped = -1;
        o.budget = 0;
        o.available = held.peak;
        assert_int_equal(cuzk_host_plan_cpu(&s, 2, &o, &h, &e), CUZK_OK);
        assert_int_equal(h.key_mapped, 0);
        o.available = held.peak - 1;
        assert_int_equal(cuzk_host_plan_cpu(&s, 2, &o, &h, &e), CUZK_OK);
        assert_int_equal(h.key_mapped, 1);
        o.available = mapped.peak - 1;
        assert_int_equal(cuzk_host_plan_cpu(&s, 2, &o, &h, &e), CUZK_ERR_NOMEM);
        assert_non_null(strstr(e.msg, "need"));
        /* held memory of the caller counts as available */
        o.available = mapped.peak - 4096;
        o.held = 4096;
        assert_int_equal(cuzk_host_plan_cpu(&s, 2, &o, &h, &e), CUZK_OK);
        /* records sorted by constraint (the PoRep-shaped key's): no CSR, the
         * chunk tables alone; not sorted: the CSR and its cursors */
        assert_int_equal(s.coefs_sorted, 1);
        assert_int_equal(held.csr_build, 0);
        assert_true(held.csr_held < ((size_t)1 << 20));
        cuzk_gpu_key_shape u = s;
        u.coefs_sorted = 0;
        o = (cuzk_host_plan_opts){.budget = SIZE_MAX, .threads = 16};
        assert_int_equal(cuzk_host_plan_cpu(&u, 2, &o, &h, &e), CUZK_OK);
        check_sums(&h);
        assert_true(h.csr_held >= u.n_coefs * 40 && h.csr_build >= ((size_t)8 << lg));
        assert_true(h.peak - held.peak >= h.csr_held - held.csr_held &&
                    h.peak - held.peak <= h.csr_held - held.csr_held + h.csr_build);
    }
}

/* The one margin of the default budgets: max(floor, 2 % of the total). */
static void test_margins(void **state)
{
    (void)state;
    const uint64_t G = (uint64_t)1 << 30, M = (uint64_t)1 << 20;
    /* 2 % of 100 GiB is 2 GiB, above the 1 GiB floor */
    assert_int_equal(cuzk_mem_margin(100 * G, CUZK_MARGIN_HOST_MIN), 2 * G);
    assert_int_equal(cuzk_mem_after_margin(10 * G, 100 * G, CUZK_MARGIN_HOST_MIN), 8 * G);
    /* 2 % of 16 GiB is 327.68 MiB: the 512 MiB device floor, the 256 MiB MSM floor loses to 2 % */
    assert_int_equal(cuzk_mem_after_margin(16 * G, 16 * G, CUZK_MARGIN_DEVICE_MIN), 16 * G - 512 * M);
    assert_int_equal(cuzk_mem_after_margin(16 * G, 16 * G, CUZK_MARGIN_MSM_MIN), 16 * G - 16 * G / 50);
    /* less free than the margin: nothing */
    assert_int_equal(cuzk_mem_after_margin(511 * M, 16 * G, CUZK_MARGIN_DEVICE_MIN), 0);
    assert_int_equal(cuzk_mem_after_margin(512 * M, 16 * G, CUZK_MARGIN_DEVICE_MIN), 0);
    /* this host's margin */
    const uint64_t total = cuzk_host_mem_total(), keep = cuzk_mem_margin(total, CUZK_MARGIN_HOST_MIN);
    assert_true(total > 0 && keep >= G && keep >= total / 50);
}

/* Bellperson mode's 2^27 PoRep partition (328 inputs, A for 99.7 % of the
 * aux variables, B for a quarter): a, b, c come from the caller's memory
 * and are staged through two page-locked chunks per worker in every tier;
 * tier 7 page-locks one domain vector beside them (the cosets' product,
 * then h), not a, b, c whole. */
static void test_bellperson_staging(void **state)
{
    (void)state;
    const cuzk_gpu_key_shape s = {.curve = CUZK_CURVE_BLS12_381, .n_vars = 328 + 130169893ull, .n_public = 327,
                                  .log_domain = 27, .bellperson = 1, .n_a = 328 + 129779383ull,
                                  .n_b = 1 + 130169893ull / 4};
    const size_t v = (size_t)32 << 27;
    bool staged = false, whole = false;
    for (size_t budget = 80 * GIB; budget >= 4 * GIB; budget -= 4 * GIB) {
        cuzk_gpu_plan_opts o = {.budget = budget, .workers = 2, .sm_count = 132, .device = -1};
        o.host.budget = SIZE_MAX;
        o.host.key_mapped = 1;
        cuzk_gpu_plan p;
        cuzk_error e = {0};
        if (cuzk_gpu_plan_proof(&s, &o, &p, &e) != CUZK_OK)
            break;
        const cuzk_host_plan *h = &p.host;
        check_sums(h);
        assert_int_equal(h->pinned, p.host_pinned);
        /* at every budget, with 2 workers: within 64 GiB of anonymous and page-locked memory */
        assert_true(h->peak <= 64 * GIB);
        /* no raw copy of the witness: it is packed (tier 7: copied raw) from the assignment into the
         * page-locked slot; in anonymous memory the two wire bitmaps alone */
        const size_t wraw = s.n_vars * 32;
        assert_int_equal(h->witness, 2 * 4 * ((s.n_vars + 31) / 32));
        if (p.tier == CUZK_GPU_TIER_HOST_WITNESS) {
            whole = true;
            assert_int_equal(p.stage_bytes, 128 * MIB);
            /* page-locked: the raw witness, one vector (h, then the A and B selections: as large as the
             * larger), the two chunks (not a, b, c whole, nor the selections beside the witness) */
            const size_t sel = (s.n_a > s.n_b ? s.n_a : s.n_b) * 32;
            assert_int_equal(h->pinned, wraw + (sel > v ? sel : v) + 256 * MIB);
        } else {
            staged = true;
            assert_int_equal(p.stage_bytes, 128 * MIB);
            /* the witness (packed: plus its codes, < 1/8 of it) and the two chunks; no domain vector */
            assert_true(h->pinned >= wraw + 256 * MIB);
            assert_true(h->pinned < wraw + wraw / 8 + 256 * MIB);
        }
    }
    assert_true(staged && whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_margins),
        cmocka_unit_test(test_gpu_host_sums),
        cmocka_unit_test(test_bellperson_staging),
        cmocka_unit_test(test_binding),
        cmocka_unit_test(test_worker_lowering),
        cmocka_unit_test(test_staged_bases),
        cmocka_unit_test(test_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
