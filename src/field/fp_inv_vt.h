/* Variable-time inversion for a prime field ("template"): binary extended
 * Euclid on the integer in the limbs, then one Montgomery product to get
 * back to Montgomery form. 1.5-2x cheaper than the Fermat power of
 * <prefix>_inv (bench_cpu --only field: bn254 Fr 3.5 vs 7.2 us, BLS Fp 11.4
 * vs 16.7 us), but its running time depends on the value: only for
 * code whose timing already depends on the data (the MSM bucket kernel's
 * batch inversion: bucket indices come from the scalars anyway).
 *
 * Include after fp_inline.h for the same field (needs <prefix>_mul_inl):
 *   #define FP_PREFIX bn254_fp   (a prime field listed in field/instances.h)
 *   #include "field/fp_inv_vt.h"
 * Defines, for FP_PREFIX f: static (out of line: big, and it must not be
 * inlined into the register-hungry IFMA kernels) f_inv_vt(r, a): r = a^-1
 * (0 -> 0), a canonical; and its static inline helpers f_ivt_*. FP_PREFIX is
 * #undef'd at the end. */

#include <stdbool.h>
#include <stdint.h>

#include "field/instances.h"
#include "field/limb.h"
#include "util/common.h"
#include "util/templates.h"

#if !CUZK_NAME(FP_PREFIX, P_LIMBS)
#error "fp_inv_vt.h: FP_PREFIX must name a prime field listed in field/instances.h"
#endif
#define FP_(name) CUZK_NAME(FP_PREFIX, name)
#define FP_P_(name) CUZK_NAME(FP_PREFIX, CUZK_CAT2(P_, name))
#if defined(__GNUC__)
#define FP_OUTLINE static __attribute__((noinline, unused))
#else
#define FP_OUTLINE static
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP_INV_VT, FP_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* x = x/2 mod p for x < p (x + p < 2^(64N): every modulus has a spare bit). */
CUZK_INLINE void FP_(ivt_half)(uint64_t *x)
{
    static const uint64_t P[FP_P_(LIMBS)] = FP_P_(MODULUS);
    uint64_t mask = 0 - (x[0] & 1), carry = 0, t[FP_P_(LIMBS)];
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        t[i] = cuzk_adc(x[i], P[i] & mask, &carry);
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS) - 1; i++)
        x[i] = (t[i] >> 1) | (t[i + 1] << 63);
    x[FP_P_(LIMBS) - 1] = t[FP_P_(LIMBS) - 1] >> 1;
}

/* x = x - y mod p for x, y < p. */
CUZK_INLINE void FP_(ivt_subm)(uint64_t *x, const uint64_t *y)
{
    static const uint64_t P[FP_P_(LIMBS)] = FP_P_(MODULUS);
    uint64_t borrow = 0, carry = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        x[i] = cuzk_sbb(x[i], y[i], &borrow);
    uint64_t mask = 0 - borrow;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        x[i] = cuzk_adc(x[i], P[i] & mask, &carry);
}

/* u -= v if u >= v (returns true), else v -= u. */
CUZK_INLINE bool FP_(ivt_sub_smaller)(uint64_t *u, uint64_t *v)
{
    uint64_t d[FP_P_(LIMBS)], borrow = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        d[i] = cuzk_sbb(u[i], v[i], &borrow);
    if (!borrow) {
        CUZK_UNROLL
        for (int i = 0; i < FP_P_(LIMBS); i++)
            u[i] = d[i];
        return true;
    }
    borrow = 0;
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS); i++)
        v[i] = cuzk_sbb(v[i], u[i], &borrow);
    return false;
}

CUZK_INLINE bool FP_(ivt_is_one)(const uint64_t *u)
{
    uint64_t acc = u[0] ^ 1;
    CUZK_UNROLL
    for (int i = 1; i < FP_P_(LIMBS); i++)
        acc |= u[i];
    return acc == 0;
}

CUZK_INLINE void FP_(ivt_shr1)(uint64_t *u)
{
    CUZK_UNROLL
    for (int i = 0; i < FP_P_(LIMBS) - 1; i++)
        u[i] = (u[i] >> 1) | (u[i + 1] << 63);
    u[FP_P_(LIMBS) - 1] >>= 1;
}

FP_OUTLINE void FP_(inv_vt)(FP_(t) *r, const FP_(t) *a)
{
    static const FP_(t) R2 = {FP_P_(R2)};
    if (FP_(is_zero_inl)(a)) {
        *r = *a;
        return;
    }
    /* Invariants: x1·x = u, x2·x = v (mod p), x the integer a->l. */
    uint64_t u[FP_P_(LIMBS)], v[FP_P_(LIMBS)] = FP_P_(MODULUS), x1[FP_P_(LIMBS)] = {1},
                              x2[FP_P_(LIMBS)] = {0};
    for (int i = 0; i < FP_P_(LIMBS); i++)
        u[i] = a->l[i];
    while (!FP_(ivt_is_one)(u) && !FP_(ivt_is_one)(v)) {
        while (!(u[0] & 1)) {
            FP_(ivt_shr1)(u);
            FP_(ivt_half)(x1);
        }
        while (!(v[0] & 1)) {
            FP_(ivt_shr1)(v);
            FP_(ivt_half)(x2);
        }
        if (FP_(ivt_sub_smaller)(u, v))
            FP_(ivt_subm)(x1, x2);
        else
            FP_(ivt_subm)(x2, x1);
    }
    /* y = x^-1 = (aR)^-1; a^-1·R = y·R^2 = mont(y, R^3), R^3 = mont(R2, R2) */
    FP_(t) y, r3;
    for (int i = 0; i < FP_P_(LIMBS); i++)
        y.l[i] = FP_(ivt_is_one)(u) ? x1[i] : x2[i];
    FP_(mul_inl)(&r3, &R2, &R2);
    FP_(mul_inl)(r, &y, &r3);
}

#endif /* per-instance guard */

#undef FP_OUTLINE
#undef FP_
#undef FP_P_
#undef FP_PREFIX
