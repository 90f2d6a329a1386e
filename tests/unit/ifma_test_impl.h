/* Test "template" for the 8-lane IFMA field code of one prime field: include
 * with IT (field prefix) and IT_LIMBS; defines IT_it_ops (a cmocka test).
 * Every vector operation is compared lane by lane, bit for bit, with the
 * scalar <prefix>_*_inl on random values and on edge values (0, 1, 2, R mod p,
 * p-1, p-2, (p±1)/2, values with all-ones / all-zero 52-bit limbs). The
 * vector code requires canonical inputs (< p), so no redundant forms. */

#define IT_(name) CUZK_NAME(IT, name)
#define IT_T_(name) CUZK_NAME(IT, CUZK_CAT2(it_, name))

#include "util/templates.h"
#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TEST_IFMA, CUZK_NAME(IT, P_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* Raw value -> Montgomery element (raw < p). */
static void IT_T_(from_raw)(IT_(t) *r, const uint64_t *raw)
{
    IT_(t) x;
    memcpy(x.l, raw, sizeof x.l);
    assert_true(IT_(raw_is_canonical)(&x));
    IT_(to_mont)(r, &x);
}

/* Pool of test values: edge cases first, then random ones. Elements are
 * stored as they are (a Montgomery-form element IS the integer in l[]), so
 * "edge" applies to the stored integer, which is what the vector code sees. */
static size_t IT_T_(values)(IT_(t) *v, size_t cap, test_rng *g)
{
    size_t n = 0;
    const IT_(t) *p = &IT_(MODULUS);
    memset(&v[n++], 0, sizeof *v);                         /* 0 */
    v[n] = IT_(ONE), n++;                                  /* R mod p */
    memset(&v[n], 0, sizeof *v), v[n].l[0] = 1, n++;       /* integer 1 */
    memset(&v[n], 0, sizeof *v), v[n].l[0] = 2, n++;       /* integer 2 */
    v[n] = *p, v[n].l[0] -= 1, n++;                         /* p - 1 */
    v[n] = *p, v[n].l[0] -= 2, n++;                         /* p - 2 */
    IT_(t) h = *p;                                         /* (p - 1)/2, (p + 1)/2 */
    for (int i = 0; i < IT_LIMBS - 1; i++)
        h.l[i] = (h.l[i] >> 1) | (h.l[i + 1] << 63);
    h.l[IT_LIMBS - 1] >>= 1;
    v[n++] = h;
    h.l[0] += 1;
    v[n++] = h;
    /* integers with all-ones 52-bit limbs below p: 2^(52k) - 1 */
    for (int k = 1; 52 * k < (int)IT_(BITS); k++) {
        memset(&v[n], 0, sizeof *v);
        for (int b = 0; b < 52 * k; b++)
            v[n].l[b / 64] |= (uint64_t)1 << (b % 64);
        n++;
    }
    /* powers 2^(52k) (a single set bit at a limb boundary) */
    for (int k = 1; 52 * k < (int)IT_(BITS); k++) {
        memset(&v[n], 0, sizeof *v);
        v[n].l[(52 * k) / 64] = (uint64_t)1 << ((52 * k) % 64);
        n++;
    }
    /* Montgomery images of small integers and of -1 */
    for (uint64_t s = 1; s <= 3; s++) {
        uint64_t raw[IT_LIMBS] = {0};
        raw[0] = s;
        IT_T_(from_raw)(&v[n++], raw);
    }
    IT_(neg)(&v[n], &IT_(ONE));
    n++;
    while (n < cap) {
        uint64_t raw[IT_LIMBS];
        for (;;) {
            for (int i = 0; i < IT_LIMBS; i++)
                raw[i] = rng_next(g);
            raw[IT_LIMBS - 1] &= (IT_(BITS) % 64) ? ((1ULL << (IT_(BITS) % 64)) - 1) : ~0ULL;
            IT_(t) x;
            memcpy(x.l, raw, sizeof raw);
            if (IT_(raw_is_canonical)(&x))
                break;
        }
        memcpy(v[n].l, raw, sizeof raw);
        n++;
    }
    return n;
}

static void IT_T_(check8)(const IT_(t) *got, const IT_(t) *want, const char *op, size_t at)
{
    for (int k = 0; k < 8; k++) {
        if (memcmp(&got[k], &want[k], sizeof got[k]) != 0) {
            fprintf(stderr, "%s: v8_%s lane %d (values from %zu) differs from scalar\n",
                    CUZK_STR(IT), op, k, at);
            fail();
        }
    }
}

CUZK_IFMA_TARGET static void IT_T_(run)(void)
{
    enum { NV = 512 };
    static IT_(t) v[NV];
    test_rng g = {0x1f2e3d4c5b6a7988ULL ^ (uint64_t)IT_(BITS)};
    size_t nv = IT_T_(values)(v, NV, &g);
    size_t nedge = 40; /* every edge value meets every other one as a and b */
    /* index pairs: all edge x edge combinations, then random pairs */
    for (size_t round = 0; round < 2 * NV + nedge * nedge / 8 + 8; round++) {
        IT_(t) a[8], b[8], want[8], got[8];
        for (int k = 0; k < 8; k++) {
            size_t e = round * 8 + (size_t)k;
            size_t ia, ib;
            if (e < nedge * nedge) {
                ia = e / nedge;
                ib = e % nedge;
            } else {
                ia = (size_t)(rng_next(&g) % nv);
                ib = (size_t)(rng_next(&g) % nv);
            }
            a[k] = v[ia];
            b[k] = v[ib];
        }
        IT_(v8_t) va, vb, vr;
        IT_(v8_from_array)(&va, a);
        IT_(v8_from_array)(&vb, b);
        /* round trip */
        IT_(v8_to_array)(got, &va);
        IT_T_(check8)(got, a, "roundtrip", round * 8);

        IT_(v8_mul)(&vr, &va, &vb);
        IT_(v8_to_array)(got, &vr);
        for (int k = 0; k < 8; k++)
            IT_(mul_inl)(&want[k], &a[k], &b[k]);
        IT_T_(check8)(got, want, "mul", round * 8);

        IT_(v8_sqr)(&vr, &va);
        IT_(v8_to_array)(got, &vr);
        for (int k = 0; k < 8; k++)
            IT_(sqr_inl)(&want[k], &a[k]);
        IT_T_(check8)(got, want, "sqr", round * 8);

        IT_(v8_add)(&vr, &va, &vb);
        IT_(v8_to_array)(got, &vr);
        for (int k = 0; k < 8; k++)
            IT_(add_inl)(&want[k], &a[k], &b[k]);
        IT_T_(check8)(got, want, "add", round * 8);

        IT_(v8_sub)(&vr, &va, &vb);
        IT_(v8_to_array)(got, &vr);
        for (int k = 0; k < 8; k++)
            IT_(sub_inl)(&want[k], &a[k], &b[k]);
        IT_T_(check8)(got, want, "sub", round * 8);

        IT_(v8_neg)(&vr, &va);
        IT_(v8_to_array)(got, &vr);
        for (int k = 0; k < 8; k++)
            IT_(neg_inl)(&want[k], &a[k]);
        IT_T_(check8)(got, want, "neg", round * 8);

        __mmask8 z = IT_(v8_is_zero)(&va);
        for (int k = 0; k < 8; k++)
            assert_int_equal((z >> k) & 1, IT_(is_zero_inl)(&a[k]));

        /* masked one / blend */
        vr = va;
        IT_(v8_set_one_mask)(&vr, 0x5a);
        IT_(v8_blend)(&vr, 0x81, &vb);
        IT_(v8_to_array)(got, &vr);
        for (int k = 0; k < 8; k++)
            want[k] = (0x81 >> k) & 1 ? b[k] : (0x5a >> k) & 1 ? IT_(ONE) : a[k];
        IT_T_(check8)(got, want, "set_one_mask/blend", round * 8);
    }

    /* contiguous load/store, strided and reversed-stride loads, masked scatter */
    IT_(t) arr[64], back[64];
    for (int i = 0; i < 64; i++)
        arr[i] = v[(size_t)i * 7 % nv];
    IT_(v8_t) x;
    IT_(v8_load)(&x, &arr[3]);
    IT_(v8_store)(&back[0], &x);
    IT_T_(check8)(back, &arr[3], "load/store", 3);
    IT_(t) want[8], got[8];
    IT_(v8_load_stride)(&x, &arr[1], 7);
    IT_(v8_to_array)(got, &x);
    for (int k = 0; k < 8; k++)
        want[k] = arr[1 + 7 * k];
    IT_T_(check8)(got, want, "load_stride", 1);
    IT_(v8_load_rstride)(&x, &arr[63], 5);
    IT_(v8_to_array)(got, &x);
    for (int k = 0; k < 8; k++)
        want[k] = arr[63 - 5 * k];
    IT_T_(check8)(got, want, "load_rstride", 63);
    IT_(v8_load_rstride_mask)(&x, &arr[40], 5, 0xb6);
    IT_(v8_to_array)(got, &x);
    for (int k = 0; k < 8; k++) {
        memset(&want[k], 0, sizeof want[k]);
        if ((0xb6 >> k) & 1)
            want[k] = arr[40 - 5 * k];
    }
    IT_T_(check8)(got, want, "load_rstride_mask", 40);
    IT_(v8_set1)(&x, &arr[5]);
    IT_(v8_to_array)(got, &x);
    for (int k = 0; k < 8; k++)
        want[k] = arr[5];
    IT_T_(check8)(got, want, "set1", 5);
    void *ptr[8];
    for (int k = 0; k < 8; k++) {
        back[k] = v[0];
        ptr[k] = &back[7 - k];
    }
    IT_(v8_load)(&x, &arr[8]);
    IT_(v8_scatter)(ptr, 0, &x, 0x6d);
    for (int k = 0; k < 8; k++)
        want[7 - k] = (0x6d >> k) & 1 ? arr[8 + k] : v[0];
    IT_T_(check8)(back, want, "scatter", 8);
}

static void IT_T_(ops)(void **state)
{
    (void)state;
    if (!cuzk_ifma_supported())
        skip();
    IT_T_(run)();
}

#endif /* per-instance guard */

#undef IT_
#undef IT_T_
#undef IT
#undef IT_LIMBS
