/* Device-memory admission of the engine's GPU workers (src/engine/devmem.h),
 * without a GPU: plans computed by the GPU prover's planner for a given
 * budget and SM count, and admission decisions against them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cuzk/dev.h"
#include "engine/devmem.h"

#define GiB (1ull << 30)
#define SMS 70 /* a 16 GiB card's SM count */

static cuzk_gpu_key_shape shape(cuzk_curve c, unsigned log_domain)
{
    uint64_t n = (1ull << log_domain) - 8;
    return (cuzk_gpu_key_shape){.curve = c, .n_vars = n, .n_public = 2, .log_domain = log_domain,
                                .n_coefs = 3 * n};
}

static uint64_t plan(const cuzk_gpu_key_shape *s, uint64_t budget, unsigned workers)
{
    uint64_t b = 0;
    cuzk_error err = {0};
    assert_int_equal(eng_devmem_plan(s, budget, SMS, workers, 0, &b, &err), CUZK_OK);
    return b;
}

/* The plan is the planner's own for the key, the budget and W workers. */
static void test_plan(void **state)
{
    (void)state;
    cuzk_gpu_key_shape s20 = shape(CUZK_CURVE_BN254, 20), s24 = shape(CUZK_CURVE_BLS12_381, 24);
    cuzk_gpu_plan_opts o = {.budget = 16 * GiB, .device = -1, .sm_count = SMS, .workers = 2};
    cuzk_gpu_plan p;
    cuzk_error err = {0};
    assert_int_equal(cuzk_gpu_plan_proof(&s24, &o, &p, &err), CUZK_OK);
    assert_int_equal(plan(&s24, 16 * GiB, 2), p.peak);
    uint64_t b20 = plan(&s20, 16 * GiB, 2);
    assert_true(b20 > 0 && b20 < p.peak);
    /* a third worker pre-stages one more witness */
    assert_true(plan(&s20, 16 * GiB, 3) > b20);
    /* a smaller budget streams the key: a smaller plan that still fits */
    uint64_t tight = plan(&s24, p.peak / 2, 2);
    assert_true(tight <= p.peak / 2);
    /* nothing fits: an error saying what the smallest plan needs */
    uint64_t b = 7;
    assert_int_equal(eng_devmem_plan(&s24, 64ull << 20, SMS, 2, 0, &b, &err), CUZK_ERR_NOMEM);
    assert_int_equal(b, 0);
    assert_true(strlen(err.msg) > 0);
    printf("plans on 16 GiB, 2 workers: BN254 2^20 %.2f GiB, BLS12-381 2^24 %.2f GiB; "
           "2^24 within %.2f GiB: %.2f GiB (%s)\n", (double)b20 / GiB, (double)p.peak / GiB,
           (double)p.peak / 2 / GiB, (double)tight / GiB, err.msg);
}

/* Admission beside the keys on the GPU: fits, waits for keys in use, evicts
 * idle ones least recently used first and no more than needed. */
static void test_admit(void **state)
{
    (void)state;
    /* a GPU that holds one big key and two small ones (their best plans) */
    cuzk_gpu_key_shape s20 = shape(CUZK_CURVE_BN254, 20), s24 = shape(CUZK_CURVE_BLS12_381, 24);
    uint64_t small = plan(&s20, 64 * GiB, 2), big = plan(&s24, 64 * GiB, 2);
    const uint64_t budget = big + 2 * small + small / 2;
    assert_int_equal(plan(&s24, budget, 2), big); /* the same plans within this budget */
    assert_int_equal(plan(&s20, budget, 2), small);
    assert_true(2 * big > budget);
    int evict[4];

    /* an empty GPU, and two small keys side by side */
    assert_int_equal(eng_devmem_admit(budget, NULL, 0, big, NULL), 1);
    eng_devmem_key one[1] = {{small, 1, 10}};
    assert_int_equal(eng_devmem_admit(budget, one, 1, small, evict), 1);
    assert_int_equal(evict[0], 0);

    /* a big key in use: the second big key waits, whatever is idle */
    eng_devmem_key busy[2] = {{big, 1, 10}, {small, 0, 5}};
    assert_int_equal(eng_devmem_admit(budget, busy, 2, big, evict), 0);
    assert_int_equal(evict[0] + evict[1], 0);
    assert_int_equal(eng_devmem_admit(budget, busy, 2, big, NULL), 0);
    /* ... and is admitted once that key is idle, evicting it (not the small one) */
    busy[0].in_use = 0;
    assert_int_equal(eng_devmem_admit(budget, busy, 2, big, evict), 1);
    assert_int_equal(evict[0], 1);
    assert_int_equal(evict[1], 0);

    /* idle keys go least recently used first, only as many as needed */
    eng_devmem_key idle[4] = {{big, 0, 30}, {small, 0, 10}, {small, 0, 20}, {small, 1, 5}};
    uint64_t need = budget - big - small; /* fits once two small keys or the big one go */
    assert_int_equal(eng_devmem_admit(budget, idle, 4, need, evict), 1);
    assert_int_equal(evict[0], 0);
    assert_int_equal(evict[1], 1);
    assert_int_equal(evict[2], 1);
    assert_int_equal(evict[3], 0);

    /* more than the budget never fits, even on an empty GPU */
    assert_int_equal(eng_devmem_admit(budget, NULL, 0, budget + 1, NULL), 0);
}

/* A real key's shape, read from its file, plans like any other. */
static void test_plan_file(void **state)
{
    (void)state;
    cuzk_gpu_key_shape s;
    cuzk_error err = {0};
    assert_int_equal(cuzk_gpu_key_shape_read(CUZK_TEST_DATA_DIR "/interop/bn128/mul.zkey", &s, &err),
                     CUZK_OK);
    uint64_t b = plan(&s, 1 * GiB, 2);
    assert_true(b > 0 && b <= 1 * GiB);
}

/* Host admission counts the host plan's figures: the key's part covers
 * every phase with no proof running, key + W jobs covers every proof phase
 * of the plan (less the process's reserve), at 2^12..2^27 on a 16 GiB card
 * and on the CPU. */
static void test_host_split(void **state)
{
    (void)state;
    for (unsigned lg = 12; lg <= 27; lg += 5) {
        cuzk_gpu_key_shape s;
        cuzk_error err = {0};
        assert_int_equal(cuzk_porep_key_shape(CUZK_CURVE_BLS12_381, lg, &s, &err), CUZK_OK);
        for (int gpu = 0; gpu < 2; gpu++) {
            cuzk_host_plan h;
            if (gpu) {
                cuzk_gpu_plan_opts o = {.budget = 16ull << 30, .device = -1, .sm_count = SMS, .workers = 2};
                o.host.budget = SIZE_MAX;
                o.host.key_mapped = 1;
                cuzk_gpu_plan p;
                assert_int_equal(cuzk_gpu_plan_proof(&s, &o, &p, &err), CUZK_OK);
                h = p.host;
            } else {
                cuzk_host_plan_opts ho = {.budget = SIZE_MAX, .key_mapped = 1};
                assert_int_equal(cuzk_host_plan_cpu(&s, 1, &ho, &h, &err), CUZK_OK);
            }
            uint64_t kb, jb, kb2, jb2;
            eng_hostmem_split(&h, &kb, &jb);
            assert_true(kb + h.runtime >= h.phase_bytes[CUZK_HOST_PHASE_ATTACH]);
            for (int ph = CUZK_HOST_PHASE_ABC; ph < CUZK_HOST_PHASE_COUNT; ph++)
                assert_true(kb + h.workers * jb + h.runtime >= h.phase_bytes[ph]);
            assert_int_equal(jb, (uint64_t)h.witness + h.vectors + h.scratch);
            /* the engine's own call: the same figures */
            assert_int_equal(eng_hostmem_plan(&s, gpu ? 16ull << 30 : 0, SMS, 2, 0, 0, &kb2, &jb2, &err), CUZK_OK);
            assert_int_equal(kb2, kb);
            assert_int_equal(jb2, jb);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_admit),
        cmocka_unit_test(test_plan_file),
        cmocka_unit_test(test_host_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
