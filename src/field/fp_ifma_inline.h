/* 8-lane prime-field arithmetic with AVX-512 IFMA ("template").
 *
 * Eight independent elements ("lanes") per value, structure of arrays in
 * radix 2^52: limb j of all eight lanes is one __m512i, N = ceil(64·L/52)
 * limbs for an L-limb field (5 for the 254/255-bit fields, 8 for the 381-bit
 * BLS12-381 Fp). Values are the SAME residues as the scalar code's, i.e.
 * Montgomery form with R = 2^(64·L), always canonical (< p) between
 * operations, so conversion to and from the 64-bit limbs is a plain
 * re-slicing of bits and results are bit-identical to the scalar path.
 *
 * The Montgomery product divides by R = 2^(64L), not 2^(52N): N-1 reduction
 * rounds of 52 bits and a last one of r = 64L - 52(N-1) bits (48 resp. 20),
 * after which the result is shifted right by r. Bound: inputs < p give
 * (ab + mp)/R < p^2/R + p < 2p, then one conditional subtraction.
 *
 * Include after fp_inline.h for the same field:
 *   #define FP_PREFIX bn254_fr   (a prime field listed in field/instances.h)
 *   #include "field/fp_ifma_inline.h"
 * Defines, for FP_PREFIX f: the type f_v8_t and static inline f_v8_<op>
 * functions (conversions f_v8_from64/to64/gather/scatter/load(_stride)/store/
 * from_array/to_array, arithmetic f_v8_add/sub/neg/mul/sqr/csub, masks
 * f_v8_is_zero/set_one_mask/set_zero_mask/blend, constants f_v8_set1/p52/
 * one52) that may only be called from CUZK_IFMA_TARGET functions after
 * cuzk_ifma_enabled(). Nothing is defined without CUZK_IFMA. FP_PREFIX is
 * #undef'd at the end (unless FP_IFMA_KEEP is defined). */

#include <stddef.h>
#include <stdint.h>

#include "field/fp_ifma.h"
#include "field/instances.h"
#include "field/limb.h"
#include "util/common.h"
#include "util/templates.h"

#if !CUZK_NAME(FP_PREFIX, P_LIMBS)
#error "fp_ifma_inline.h: FP_PREFIX must name a prime field listed in field/instances.h"
#endif
#define FP_(name) CUZK_NAME(FP_PREFIX, name)
#define FP_P_(name) CUZK_NAME(FP_PREFIX, CUZK_CAT2(P_, name))

#if defined(CUZK_IFMA)

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP_IFMA_INLINE, FP_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* limbs of the radix-2^52 form, and the bits of the last reduction round */
#define FP_V_N ((64 * FP_P_(LIMBS) + 51) / 52)
#define FP_V_R (64 * FP_P_(LIMBS) - 52 * (FP_V_N - 1))

typedef struct {
    __m512i l[FP_V_N];
} FP_(v8_t);

#define FP_V_SET1(x) _mm512_set1_epi64((long long)(x))

/* radix-2^52 limb j of the modulus / of R mod p, as a broadcast constant */
CUZK_IFMA_INLINE __m512i FP_(v8_p52)(int j)
{
    static const uint64_t P64[FP_P_(LIMBS)] = FP_P_(MODULUS);
    return FP_V_SET1(cuzk_r52_limb(P64, FP_P_(LIMBS), j));
}

CUZK_IFMA_INLINE __m512i FP_(v8_one52)(int j)
{
    static const uint64_t O64[FP_P_(LIMBS)] = FP_P_(ONE);
    return FP_V_SET1(cuzk_r52_limb(O64, FP_P_(LIMBS), j));
}

/* 64-bit limbs (one vector per limb, 8 lanes) -> radix 2^52. */
CUZK_IFMA_INLINE void FP_(v8_from64)(FP_(v8_t) *r, const __m512i *x)
{
    const __m512i M = FP_V_SET1(CUZK_M52);
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++) {
        const int bit = 52 * j, w = bit >> 6, s = bit & 63;
        __m512i v = _mm512_srlv_epi64(x[w], FP_V_SET1(s));
        if (s > 12 && w + 1 < FP_P_(LIMBS))
            v = _mm512_or_si512(v, _mm512_sllv_epi64(x[w + 1], FP_V_SET1(64 - s)));
        r->l[j] = _mm512_and_si512(v, M);
    }
}

/* radix 2^52 (normalised limbs, value < 2^(64L)) -> 64-bit limbs. */
CUZK_IFMA_INLINE void FP_(v8_to64)(__m512i *x, const FP_(v8_t) *a)
{
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++) {
        __m512i v = _mm512_setzero_si512();
        CUZK_UNROLL
        for (int j = 0; j < FP_V_N; j++) {
            const int sh = 52 * j - 64 * w; /* where limb j lands in word w */
            if (sh <= -52 || sh >= 64)
                continue;
            if (sh >= 0)
                v = _mm512_or_si512(v, _mm512_sllv_epi64(a->l[j], FP_V_SET1(sh)));
            else
                v = _mm512_or_si512(v, _mm512_srlv_epi64(a->l[j], FP_V_SET1(-sh)));
        }
        x[w] = v;
    }
}

/* Lane k loads the element at (const char *)ptr[k] + off (64-bit limbs,
 * canonical Montgomery form). */
CUZK_IFMA_INLINE void FP_(v8_gather)(FP_(v8_t) *r, const void *const *ptr, size_t off)
{
    const char *base = (const char *)ptr[0] + off;
    const __m512i idx =
        _mm512_sub_epi64(_mm512_loadu_si512((const void *)ptr), FP_V_SET1((uintptr_t)ptr[0]));
    __m512i x[FP_P_(LIMBS)];
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        x[w] = _mm512_i64gather_epi64(idx, (const void *)(base + 8 * w), 1);
    FP_(v8_from64)(r, x);
}

/* Lanes whose bit is set in mask store to (char *)ptr[k] + off. */
CUZK_IFMA_INLINE void FP_(v8_scatter)(void *const *ptr, size_t off, const FP_(v8_t) *a,
                                      unsigned mask)
{
    __m512i x[FP_P_(LIMBS)];
    FP_(v8_to64)(x, a);
    uint64_t buf[FP_P_(LIMBS)][8] __attribute__((aligned(64)));
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        _mm512_store_si512((void *)buf[w], x[w]);
    for (int k = 0; k < 8; k++) {
        if (!((mask >> k) & 1))
            continue;
        uint64_t *d = (uint64_t *)((char *)ptr[k] + off);
        CUZK_UNROLL
        for (int w = 0; w < FP_P_(LIMBS); w++)
            d[w] = buf[w][k];
    }
}

/* Eight consecutive elements p[0..8). 4-limb fields: two 2-stage 64-bit
 * transposes of 4 registers; otherwise a strided gather. */
CUZK_IFMA_INLINE void FP_(v8_load)(FP_(v8_t) *r, const FP_(t) *p)
{
    __m512i x[FP_P_(LIMBS)];
#if FP_P_(LIMBS) == 4
    const __m512i *q = (const __m512i *)(const void *)p;
    __m512i z0 = _mm512_loadu_si512(q), z1 = _mm512_loadu_si512(q + 1);
    __m512i z2 = _mm512_loadu_si512(q + 2), z3 = _mm512_loadu_si512(q + 3);
    const __m512i i01 = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);
    const __m512i i23 = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
    /* t0 = limbs 0|1 of elements 0-3, t1 = limbs 2|3 of 0-3; t2, t3 for 4-7 */
    __m512i t0 = _mm512_permutex2var_epi64(z0, i01, z1);
    __m512i t1 = _mm512_permutex2var_epi64(z0, i23, z1);
    __m512i t2 = _mm512_permutex2var_epi64(z2, i01, z3);
    __m512i t3 = _mm512_permutex2var_epi64(z2, i23, z3);
    const __m512i lo = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
    const __m512i hi = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    x[0] = _mm512_permutex2var_epi64(t0, lo, t2);
    x[1] = _mm512_permutex2var_epi64(t0, hi, t2);
    x[2] = _mm512_permutex2var_epi64(t1, lo, t3);
    x[3] = _mm512_permutex2var_epi64(t1, hi, t3);
#else
    const long long s = (long long)sizeof(FP_(t));
    const __m512i idx = _mm512_set_epi64(7 * s, 6 * s, 5 * s, 4 * s, 3 * s, 2 * s, s, 0);
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        x[w] = _mm512_i64gather_epi64(idx, (const void *)&p->l[w], 1);
#endif
    FP_(v8_from64)(r, x);
}

CUZK_IFMA_INLINE void FP_(v8_store)(FP_(t) *p, const FP_(v8_t) *a)
{
    __m512i x[FP_P_(LIMBS)];
    FP_(v8_to64)(x, a);
#if FP_P_(LIMBS) == 4
    /* inverse of the transpose in v8_load */
    const __m512i lo = _mm512_set_epi64(11, 10, 9, 8, 3, 2, 1, 0);
    const __m512i hi = _mm512_set_epi64(15, 14, 13, 12, 7, 6, 5, 4);
    __m512i t0 = _mm512_permutex2var_epi64(x[0], lo, x[1]);
    __m512i t2 = _mm512_permutex2var_epi64(x[0], hi, x[1]);
    __m512i t1 = _mm512_permutex2var_epi64(x[2], lo, x[3]);
    __m512i t3 = _mm512_permutex2var_epi64(x[2], hi, x[3]);
    /* t0 = (l0 | l1 of elements 0-3), t1 = (l2 | l3 of 0-3), t2, t3 for 4-7;
     * the same index pattern as the first stage of the load gathers them */
    const __m512i j0 = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0);
    const __m512i j1 = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
    __m512i *q = (__m512i *)(void *)p;
    _mm512_storeu_si512(q, _mm512_permutex2var_epi64(t0, j0, t1));
    _mm512_storeu_si512(q + 1, _mm512_permutex2var_epi64(t0, j1, t1));
    _mm512_storeu_si512(q + 2, _mm512_permutex2var_epi64(t2, j0, t3));
    _mm512_storeu_si512(q + 3, _mm512_permutex2var_epi64(t2, j1, t3));
#else
    uint64_t buf[FP_P_(LIMBS)][8] __attribute__((aligned(64)));
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        _mm512_store_si512((void *)buf[w], x[w]);
    for (int k = 0; k < 8; k++)
        CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        p[k].l[w] = buf[w][k];
#endif
}

/* Lane k = p[k·stride] (twiddle tables). */
CUZK_IFMA_INLINE void FP_(v8_load_stride)(FP_(v8_t) *r, const FP_(t) *p, size_t stride)
{
    const long long s = (long long)(stride * sizeof(FP_(t)));
    const __m512i idx = _mm512_set_epi64(7 * s, 6 * s, 5 * s, 4 * s, 3 * s, 2 * s, s, 0);
    __m512i x[FP_P_(LIMBS)];
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        x[w] = _mm512_i64gather_epi64(idx, (const void *)&p->l[w], 1);
    FP_(v8_from64)(r, x);
}

/* Lane k = p[-k·stride] (inverse twiddles, read backwards). */
CUZK_IFMA_INLINE void FP_(v8_load_rstride)(FP_(v8_t) *r, const FP_(t) *p, size_t stride)
{
    const long long s = -(long long)(stride * sizeof(FP_(t)));
    const __m512i idx = _mm512_set_epi64(7 * s, 6 * s, 5 * s, 4 * s, 3 * s, 2 * s, s, 0);
    __m512i x[FP_P_(LIMBS)];
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        x[w] = _mm512_i64gather_epi64(idx, (const void *)&p->l[w], 1);
    FP_(v8_from64)(r, x);
}

/* Lane k = p[-k·stride] for the lanes in m, zero for the others (their
 * addresses are not read). */
CUZK_IFMA_INLINE void FP_(v8_load_rstride_mask)(FP_(v8_t) *r, const FP_(t) *p, size_t stride,
                                                __mmask8 m)
{
    const long long s = -(long long)(stride * sizeof(FP_(t)));
    const __m512i idx = _mm512_set_epi64(7 * s, 6 * s, 5 * s, 4 * s, 3 * s, 2 * s, s, 0);
    __m512i x[FP_P_(LIMBS)];
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        x[w] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), m, idx,
                                           (const void *)&p->l[w], 1);
    FP_(v8_from64)(r, x);
}

/* All lanes = the scalar element c. */
CUZK_IFMA_INLINE void FP_(v8_set1)(FP_(v8_t) *r, const FP_(t) *c)
{
    __m512i x[FP_P_(LIMBS)];
    CUZK_UNROLL
    for (int w = 0; w < FP_P_(LIMBS); w++)
        x[w] = FP_V_SET1(c->l[w]);
    FP_(v8_from64)(r, x);
}

/* r = s - p if s >= p else s, for normalised s < 2p. */
CUZK_IFMA_INLINE void FP_(v8_csub)(FP_(v8_t) *r, const __m512i *s)
{
    const __m512i M = FP_V_SET1(CUZK_M52);
    __m512i d[FP_V_N], c = _mm512_setzero_si512();
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++) {
        __m512i u = _mm512_add_epi64(_mm512_sub_epi64(s[j], FP_(v8_p52)(j)), c);
        c = _mm512_srai_epi64(u, 52);
        d[j] = _mm512_and_si512(u, M);
    }
    __mmask8 lt = _mm512_cmplt_epi64_mask(c, _mm512_setzero_si512()); /* s < p */
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++)
        r->l[j] = _mm512_mask_blend_epi64(lt, d[j], s[j]);
}

/* a + b: the plain sum and the sum minus p in two independent carry chains
 * (signed carries for the latter), then a select. */
CUZK_IFMA_INLINE void FP_(v8_add)(FP_(v8_t) *r, const FP_(v8_t) *a, const FP_(v8_t) *b)
{
    const __m512i M = FP_V_SET1(CUZK_M52);
    __m512i s[FP_V_N], d[FP_V_N], cs = _mm512_setzero_si512(), cd = cs;
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++) {
        __m512i u = _mm512_add_epi64(a->l[j], b->l[j]);
        __m512i v = _mm512_add_epi64(u, cs);
        cs = _mm512_srli_epi64(v, 52);
        s[j] = _mm512_and_si512(v, M);
        __m512i e = _mm512_add_epi64(_mm512_sub_epi64(u, FP_(v8_p52)(j)), cd);
        cd = _mm512_srai_epi64(e, 52);
        d[j] = _mm512_and_si512(e, M);
    }
    __mmask8 lt = _mm512_cmplt_epi64_mask(cd, _mm512_setzero_si512()); /* a + b < p */
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++)
        r->l[j] = _mm512_mask_blend_epi64(lt, d[j], s[j]);
}

/* a - b: the plain difference and the difference plus p, then a select. */
CUZK_IFMA_INLINE void FP_(v8_sub)(FP_(v8_t) *r, const FP_(v8_t) *a, const FP_(v8_t) *b)
{
    const __m512i M = FP_V_SET1(CUZK_M52);
    __m512i s[FP_V_N], d[FP_V_N], cs = _mm512_setzero_si512(), cd = cs;
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++) {
        __m512i u = _mm512_sub_epi64(a->l[j], b->l[j]);
        __m512i v = _mm512_add_epi64(u, cs);
        cs = _mm512_srai_epi64(v, 52);
        s[j] = _mm512_and_si512(v, M);
        __m512i e = _mm512_add_epi64(_mm512_add_epi64(u, FP_(v8_p52)(j)), cd);
        cd = _mm512_srai_epi64(e, 52);
        d[j] = _mm512_and_si512(e, M);
    }
    __mmask8 lt = _mm512_cmplt_epi64_mask(cs, _mm512_setzero_si512()); /* a < b */
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++)
        r->l[j] = _mm512_mask_blend_epi64(lt, s[j], d[j]);
}

CUZK_IFMA_INLINE void FP_(v8_neg)(FP_(v8_t) *r, const FP_(v8_t) *a)
{
    FP_(v8_t) z;
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++)
        z.l[j] = _mm512_setzero_si512();
    FP_(v8_sub)(r, &z, a);
}

/* Montgomery product a·b/R (a, b < p), operand scanning over the limbs of b:
 * per limb, a·b_i and m·p are accumulated as low and high 52-bit halves in
 * 64-bit lanes (no carries needed: < 2^58 per lane), then the zero low limb
 * is dropped and its carry moved up. */
CUZK_IFMA_INLINE void FP_(v8_mul)(FP_(v8_t) *r, const FP_(v8_t) *a, const FP_(v8_t) *b)
{
    const __m512i M = FP_V_SET1(CUZK_M52);
    const __m512i PINV = FP_V_SET1(FP_P_(INV) & CUZK_M52);
    const __m512i Z = _mm512_setzero_si512();
    __m512i A[FP_V_N], t[FP_V_N + 1];
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++) {
        A[j] = a->l[j];
        t[j] = Z;
    }
    t[FP_V_N] = Z;
    CUZK_UNROLL
    for (int i = 0; i < FP_V_N; i++) {
        const __m512i bi = b->l[i];
        CUZK_UNROLL
        for (int j = 0; j < FP_V_N; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], A[j], bi);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], A[j], bi);
        }
        __m512i m = _mm512_madd52lo_epu64(Z, t[0], PINV);
        if (i == FP_V_N - 1 && FP_V_R < 52)
            m = _mm512_and_si512(m, FP_V_SET1(((uint64_t)1 << (FP_V_R % 52)) - 1));
        CUZK_UNROLL
        for (int j = 0; j < FP_V_N; j++) {
            const __m512i pj = FP_(v8_p52)(j);
            t[j] = _mm512_madd52lo_epu64(t[j], m, pj);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, pj);
        }
        if (i < FP_V_N - 1) {
            t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
            CUZK_UNROLL
            for (int j = 0; j < FP_V_N; j++)
                t[j] = t[j + 1];
            t[FP_V_N] = Z;
        }
    }
    /* normalise, then drop the r zero bits of the last round */
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        t[j] = _mm512_and_si512(t[j], M);
    }
    __m512i s[FP_V_N];
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++) {
#if FP_V_R == 52
        s[j] = t[j + 1];
#else
        s[j] = _mm512_or_si512(_mm512_srli_epi64(t[j], FP_V_R),
                               _mm512_and_si512(_mm512_slli_epi64(t[j + 1], 52 - FP_V_R), M));
#endif
    }
    FP_(v8_csub)(r, s);
}

CUZK_IFMA_INLINE void FP_(v8_sqr)(FP_(v8_t) *r, const FP_(v8_t) *a) { FP_(v8_mul)(r, a, a); }

/* Lanes equal to zero. */
CUZK_IFMA_INLINE __mmask8 FP_(v8_is_zero)(const FP_(v8_t) *a)
{
    __m512i o = a->l[0];
    CUZK_UNROLL
    for (int j = 1; j < FP_V_N; j++)
        o = _mm512_or_si512(o, a->l[j]);
    return _mm512_cmpeq_epi64_mask(o, _mm512_setzero_si512());
}

/* Lanes in m become one (R mod p) resp. zero. */
CUZK_IFMA_INLINE void FP_(v8_set_one_mask)(FP_(v8_t) *a, __mmask8 m)
{
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++)
        a->l[j] = _mm512_mask_blend_epi64(m, a->l[j], FP_(v8_one52)(j));
}

CUZK_IFMA_INLINE void FP_(v8_set_zero_mask)(FP_(v8_t) *a, __mmask8 m)
{
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++)
        a->l[j] = _mm512_maskz_mov_epi64((__mmask8)~m, a->l[j]);
}

/* Lanes in m get b's value. */
CUZK_IFMA_INLINE void FP_(v8_blend)(FP_(v8_t) *a, __mmask8 m, const FP_(v8_t) *b)
{
    CUZK_UNROLL
    for (int j = 0; j < FP_V_N; j++)
        a->l[j] = _mm512_mask_blend_epi64(m, a->l[j], b->l[j]);
}

/* Eight scalars <-> lanes. */
CUZK_IFMA_INLINE void FP_(v8_from_array)(FP_(v8_t) *r, const FP_(t) *x)
{
    const void *ptr[8];
    for (int k = 0; k < 8; k++)
        ptr[k] = &x[k];
    FP_(v8_gather)(r, ptr, 0);
}

CUZK_IFMA_INLINE void FP_(v8_to_array)(FP_(t) *x, const FP_(v8_t) *a)
{
    void *ptr[8];
    for (int k = 0; k < 8; k++)
        ptr[k] = &x[k];
    FP_(v8_scatter)(ptr, 0, a, 0xff);
}

#undef FP_V_N
#undef FP_V_R
#undef FP_V_SET1

#endif /* per-instance guard */
#endif /* CUZK_IFMA */

#undef FP_
#undef FP_P_
#ifndef FP_IFMA_KEEP
#undef FP_PREFIX
#endif
