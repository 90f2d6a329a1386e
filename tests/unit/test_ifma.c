/* AVX-512 IFMA paths against the scalar paths, bit for bit:
 *  - the 8-lane field arithmetic (fp_ifma_inline.h, fp2_ifma_inline.h) of all
 *    four prime fields and both Fp2, on edge and random values;
 *  - the MSM (batch-affine bucket additions) and the NTT run once with the
 *    vector code and once with CUZK_NO_IFMA semantics (cuzk_ifma_set(false)),
 *    on inputs that hit the tails, conflicts and the doubling / cancellation
 *    cases of the bucket kernel.
 * Skipped (exit 77 via cmocka skip) on CPUs without AVX-512 IFMA. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "field/fp_ifma.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/common.h"
#include "test_util.h"

#if defined(CUZK_IFMA)

#define FP_INLINE_KEEP
#define FP_IFMA_KEEP
#define FP_PREFIX bn254_fp
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#include "field/fp_inv_vt.h"
#define FP_PREFIX bn254_fr
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#include "field/fp_inv_vt.h"
#define FP_PREFIX bls12_381_fp
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#include "field/fp_inv_vt.h"
#define FP_PREFIX bls12_381_fr
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#include "field/fp_inv_vt.h"
#undef FP_INLINE_KEEP
#undef FP_IFMA_KEEP

#define FP2_INLINE_KEEP
#define FP2_IFMA_KEEP
#define FP2_PREFIX bn254_fp2
#include "field/fp2_inline.h"
#include "field/fp2_ifma_inline.h"
#include "field/fp2_inv_vt.h"
#define FP2_PREFIX bls12_381_fp2
#include "field/fp2_inline.h"
#include "field/fp2_ifma_inline.h"
#include "field/fp2_inv_vt.h"
#undef FP2_INLINE_KEEP
#undef FP2_IFMA_KEEP

#define IT bn254_fp
#define IT_LIMBS 4
#include "ifma_test_impl.h"
#define IT bn254_fr
#define IT_LIMBS 4
#include "ifma_test_impl.h"
#define IT bls12_381_fp
#define IT_LIMBS 6
#include "ifma_test_impl.h"
#define IT bls12_381_fr
#define IT_LIMBS 4
#include "ifma_test_impl.h"

/* Fp2: Karatsuba product, complex square, add/sub/neg on random elements
 * whose components include edge values. */
#define FP2_IT_(f2, fb)                                                                         \
    CUZK_IFMA_TARGET static void f2##_it_run(void)                                              \
    {                                                                                           \
        test_rng g = {0x77aa55ee33cc1100ULL};                                                   \
        fb##_t edge[6];                                                                         \
        memset(edge, 0, sizeof edge);                                                           \
        edge[1] = fb##_ONE;                                                                     \
        edge[2] = fb##_MODULUS;                                                                 \
        edge[2].l[0] -= 1;                                                                      \
        fb##_neg(&edge[3], &fb##_ONE);                                                          \
        edge[4].l[0] = 1;                                                                       \
        edge[5] = fb##_MODULUS;                                                                 \
        edge[5].l[0] -= 2;                                                                      \
        for (int round = 0; round < 400; round++) {                                             \
            f2##_t a[8], b[8], want[8], got[8];                                                 \
            for (int k = 0; k < 8; k++) {                                                       \
                fb##_t *c[4] = {&a[k].c0, &a[k].c1, &b[k].c0, &b[k].c1};                        \
                for (int q = 0; q < 4; q++) {                                                   \
                    uint64_t r = rng_next(&g);                                                  \
                    if (round < 40 && r % 3 == 0)                                               \
                        *c[q] = edge[(r >> 8) % 6];                                             \
                    else                                                                        \
                        assert_true(fb##_random(c[q]));                                         \
                }                                                                               \
            }                                                                                   \
            f2##_v8_t va, vb, vr;                                                               \
            f2##_v8_from_array(&va, a);                                                         \
            f2##_v8_from_array(&vb, b);                                                         \
            f2##_v8_mul(&vr, &va, &vb);                                                         \
            f2##_v8_to_array(got, &vr);                                                         \
            for (int k = 0; k < 8; k++)                                                         \
                f2##_mul_inl(&want[k], &a[k], &b[k]);                                           \
            assert_memory_equal(got, want, sizeof got);                                         \
            f2##_v8_sqr(&vr, &va);                                                              \
            f2##_v8_to_array(got, &vr);                                                         \
            for (int k = 0; k < 8; k++)                                                         \
                f2##_sqr_inl(&want[k], &a[k]);                                                  \
            assert_memory_equal(got, want, sizeof got);                                         \
            f2##_v8_sub(&vr, &va, &vb);                                                         \
            f2##_v8_add(&vr, &vr, &va);                                                         \
            f2##_v8_neg(&vr, &vr);                                                              \
            f2##_v8_to_array(got, &vr);                                                         \
            for (int k = 0; k < 8; k++) {                                                       \
                f2##_sub_inl(&want[k], &a[k], &b[k]);                                           \
                f2##_add_inl(&want[k], &want[k], &a[k]);                                        \
                f2##_neg_inl(&want[k], &want[k]);                                               \
            }                                                                                   \
            assert_memory_equal(got, want, sizeof got);                                         \
        }                                                                                       \
    }                                                                                           \
    static void f2##_it_ops(void **state)                                                       \
    {                                                                                           \
        (void)state;                                                                            \
        if (!cuzk_ifma_supported())                                                             \
            skip();                                                                             \
        f2##_it_run();                                                                          \
    }
FP2_IT_(bn254_fp2, bn254_fp)
FP2_IT_(bls12_381_fp2, bls12_381_fp)

/* Variable-time inversion of the MSM batches (fp_inv_vt.h, fp2_inv_vt.h)
 * against the Fermat inversion, on edge and random values. */
#define INV_IT_(f, base, randfn)                                                                \
    static void f##_it_inv_vt(void **state)                                                     \
    {                                                                                           \
        (void)state;                                                                            \
        for (int i = 0; i < 3000; i++) {                                                        \
            f##_t a, want, got;                                                                 \
            memset(&a, 0, sizeof a);                                                            \
            switch (i) {                                                                        \
            case 0: break;                   /* 0 -> 0 */                                       \
            case 1: f##_set_one(&a); break;                                                     \
            case 2: f##_set_one(&a); f##_neg(&a, &a); break;                                    \
            case 3: f##_set_one(&a); f##_add(&a, &a, &a); break;                                \
            case 4: memcpy(&a, &base##_MODULUS, sizeof base##_MODULUS);                         \
                    ((base##_t *)(void *)&a)->l[0] -= 1; break; /* integer p - 1 */             \
            case 5: ((base##_t *)(void *)&a)->l[0] = 1; break; /* integer 1 */                  \
            default: assert_true(randfn(&a));                                                   \
            }                                                                                   \
            f##_inv(&want, &a);                                                                 \
            f##_inv_vt(&got, &a);                                                               \
            assert_memory_equal(&got, &want, sizeof got);                                       \
        }                                                                                       \
    }
INV_IT_(bn254_fp, bn254_fp, bn254_fp_random)
INV_IT_(bn254_fr, bn254_fr, bn254_fr_random)
INV_IT_(bls12_381_fp, bls12_381_fp, bls12_381_fp_random)
INV_IT_(bls12_381_fr, bls12_381_fr, bls12_381_fr_random)
INV_IT_(bn254_fp2, bn254_fp, bn254_fp2_random)
INV_IT_(bls12_381_fp2, bls12_381_fp, bls12_381_fp2_random)

#endif /* CUZK_IFMA */

/* ---- MSM: vector vs scalar bucket kernel ---------------------------------- */

/* Points: a walk k·G + i·S with repeats and negations mixed in (bucket ==
 * ±point: the doubling and cancellation cases), a few at infinity. Scalars:
 * random, small, 0/1, and runs of equal scalars (bucket conflicts). */
#define MSM_IT_(g, fr)                                                                          \
    static void g##_it_inputs(g##_affine_t *pts, fr##_t *sc, size_t n, test_rng *r)             \
    {                                                                                           \
        g##_jac_t *j = malloc(n * sizeof *j), step, cur;                                        \
        assert_non_null(j);                                                                     \
        uint64_t k[4] = {rng_next(r), rng_next(r), rng_next(r), rng_next(r) >> 8};              \
        g##_affine_mul(&step, &g##_GENERATOR, k, 4);                                            \
        k[0] = rng_next(r);                                                                     \
        g##_affine_mul(&cur, &g##_GENERATOR, k, 4);                                             \
        for (size_t i = 0; i < n; i++) {                                                        \
            g##_jac_add(&cur, &cur, &step);                                                     \
            j[i] = cur;                                                                         \
        }                                                                                       \
        g##_jac_batch_to_affine(pts, j, n);                                                     \
        free(j);                                                                                \
        for (size_t i = 0; i < n; i++) {                                                        \
            uint64_t v = rng_next(r);                                                           \
            memset(&sc[i], 0, sizeof sc[i]);                                                    \
            switch (v % 8) {                                                                    \
            case 0:                                                                             \
                sc[i].l[0] = v >> 40; /* small */                                               \
                break;                                                                          \
            case 1:                                                                             \
                sc[i].l[0] = (v >> 8) & 1; /* 0 or 1 */                                         \
                break;                                                                          \
            default:                                                                            \
                for (int q = 0; q < 4; q++)                                                     \
                    sc[i].l[q] = rng_next(r);                                                   \
                sc[i].l[3] &= 0x0fffffffffffffffULL; /* < r for both curves */                  \
            }                                                                                   \
            if (i >= 8 && v % 13 == 0) {                                                        \
                pts[i] = pts[i - 8]; /* same point, same scalar: doubling */                    \
                sc[i] = sc[i - 8];                                                              \
            } else if (i >= 8 && v % 13 == 1) {                                                 \
                g##_affine_neg(&pts[i], &pts[i - 5]); /* cancellation */                        \
                sc[i] = sc[i - 5];                                                              \
            } else if (i >= 8 && v % 13 == 2) {                                                 \
                sc[i] = sc[i - 1]; /* conflict: same bucket in a row */                         \
            } else if (v % 97 == 3) {                                                           \
                g##_affine_set_inf(&pts[i]);                                                    \
            }                                                                                   \
        }                                                                                       \
    }                                                                                           \
    static void g##_it_msm(void **state)                                                        \
    {                                                                                           \
        (void)state;                                                                            \
        if (!cuzk_ifma_supported())                                                             \
            skip();                                                                             \
        test_rng r = {0x5eed0000ULL ^ sizeof(g##_affine_t)};                                    \
        const size_t n = 3001;                                                                  \
        g##_affine_t *pts = malloc(n * sizeof *pts);                                            \
        fr##_t *sc = malloc(n * sizeof *sc);                                                    \
        assert_true(pts && sc);                                                                 \
        g##_it_inputs(pts, sc, n, &r);                                                          \
        cuzk_pool *pool = cuzk_pool_create(2);                                                  \
        assert_non_null(pool);                                                                  \
        const unsigned cs[] = {0, 10, 11, 13};                                                  \
        const size_t ns[] = {n, 700, 65, 9};                                                    \
        for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++) {                              \
            for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++) {                          \
                cuzk_msm_opts o;                                                                \
                memset(&o, 0, sizeof o);                                                        \
                o.c = cs[ci];                                                                   \
                g##_jac_t rj[2];                                                                \
                g##_affine_t ra[2];                                                             \
                for (int v = 0; v < 2; v++) {                                                   \
                    cuzk_ifma_set(v == 1);                                                      \
                    assert_int_equal(g##_msm_opts(&rj[v], pts, sc, ns[ni], &o, pool, NULL),     \
                                     CUZK_OK);                                                  \
                    g##_jac_to_affine(&ra[v], &rj[v]);                                          \
                }                                                                               \
                if (memcmp(&ra[0], &ra[1], sizeof ra[0]) != 0) {                                \
                    fprintf(stderr, "%s: msm c=%u n=%zu: IFMA != scalar\n", #g, cs[ci],         \
                            ns[ni]);                                                            \
                    fail();                                                                     \
                }                                                                               \
            }                                                                                   \
        }                                                                                       \
        cuzk_ifma_set(true);                                                                    \
        cuzk_pool_destroy(pool);                                                                \
        free(pts);                                                                              \
        free(sc);                                                                               \
    }
MSM_IT_(bn254_g1, bn254_fr)
MSM_IT_(bn254_g2, bn254_fr)
MSM_IT_(bls12_381_g1, bls12_381_fr)
MSM_IT_(bls12_381_g2, bls12_381_fr)

/* ---- NTT: vector vs scalar butterflies ------------------------------------ */

#define NTT_IT_(c, fr)                                                                          \
    static void c##_it_ntt(void **state)                                                        \
    {                                                                                           \
        (void)state;                                                                            \
        if (!cuzk_ifma_supported())                                                             \
            skip();                                                                             \
        cuzk_pool *pool = cuzk_pool_create(2);                                                  \
        assert_non_null(pool);                                                                  \
        for (unsigned L = 1; L <= 15; L++) {                                                    \
            c##_ntt_domain *d = NULL;                                                           \
            assert_int_equal(c##_ntt_domain_create(&d, L, pool, NULL), CUZK_OK);                \
            size_t n = (size_t)1 << L;                                                          \
            fr##_t *in = malloc(n * sizeof *in), *x[2];                                         \
            x[0] = malloc(n * sizeof *in);                                                      \
            x[1] = malloc(n * sizeof *in);                                                      \
            assert_true(in && x[0] && x[1]);                                                    \
            for (size_t i = 0; i < n; i++) {                                                    \
                assert_true(fr##_random(&in[i]));                                               \
                if (i % 29 == 3)                                                                \
                    fr##_set_zero(&in[i]);                                                      \
                else if (i % 31 == 4)                                                           \
                    fr##_neg(&in[i], &fr##_ONE);                                                \
            }                                                                                   \
            for (int op = 0; op < 5; op++) {                                                    \
                for (int v = 0; v < 2; v++) {                                                   \
                    cuzk_ifma_set(v == 1);                                                      \
                    memcpy(x[v], in, n * sizeof *in);                                           \
                    switch (op) {                                                               \
                    case 0: c##_ntt(d, x[v], pool); break;                                      \
                    case 1: c##_intt(d, x[v], pool); break;                                     \
                    case 2: c##_ntt_nr(d, x[v], pool); break;                                   \
                    case 3: c##_intt_rn(d, x[v], pool); break;                                  \
                    default:                                                                    \
                        assert_int_equal(c##_ntt_coset_odd(d, x[v], pool, NULL), CUZK_OK);      \
                    }                                                                           \
                }                                                                               \
                if (memcmp(x[0], x[1], n * sizeof *in) != 0) {                                  \
                    fprintf(stderr, "%s: ntt op %d log n %u: IFMA != scalar\n", #c, op, L);     \
                    fail();                                                                     \
                }                                                                               \
            }                                                                                   \
            cuzk_ifma_set(true);                                                                \
            free(in);                                                                           \
            free(x[0]);                                                                         \
            free(x[1]);                                                                         \
            c##_ntt_domain_free(d);                                                             \
        }                                                                                       \
        cuzk_pool_destroy(pool);                                                                \
    }
NTT_IT_(bn254, bn254_fr)
NTT_IT_(bls12_381, bls12_381_fr)

static void test_dispatch(void **state)
{
    (void)state;
    /* the switch must be able to turn the vector code off and back on */
    cuzk_ifma_set(false);
    assert_false(cuzk_ifma_enabled());
    cuzk_ifma_set(true);
    assert_int_equal(cuzk_ifma_enabled(), cuzk_ifma_supported());
#if !defined(CUZK_IFMA)
    assert_false(cuzk_ifma_supported());
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dispatch),
#if defined(CUZK_IFMA)
        cmocka_unit_test(bn254_fp_it_ops),
        cmocka_unit_test(bn254_fr_it_ops),
        cmocka_unit_test(bls12_381_fp_it_ops),
        cmocka_unit_test(bls12_381_fr_it_ops),
        cmocka_unit_test(bn254_fp2_it_ops),
        cmocka_unit_test(bls12_381_fp2_it_ops),
        cmocka_unit_test(bn254_fp_it_inv_vt),
        cmocka_unit_test(bn254_fr_it_inv_vt),
        cmocka_unit_test(bls12_381_fp_it_inv_vt),
        cmocka_unit_test(bls12_381_fr_it_inv_vt),
        cmocka_unit_test(bn254_fp2_it_inv_vt),
        cmocka_unit_test(bls12_381_fp2_it_inv_vt),
#endif
        cmocka_unit_test(bn254_g1_it_msm),
        cmocka_unit_test(bn254_g2_it_msm),
        cmocka_unit_test(bls12_381_g1_it_msm),
        cmocka_unit_test(bls12_381_g2_it_msm),
        cmocka_unit_test(bn254_it_ntt),
        cmocka_unit_test(bls12_381_it_ntt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
