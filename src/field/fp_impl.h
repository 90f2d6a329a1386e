/* Definition "template" for a prime field in Montgomery form: defines every
 * function and constant declared by fp_decl.h.
 *
 * Instantiate once per field in a .c file, after the declarations:
 *   #include "curve/bn254.h"
 *   #define FP_PREFIX bn254_fr
 *   #define FP_LIMBS  4
 *   #include "field/fp_impl.h"
 * Constants come from field/field_params.h. Both macros are #undef'd. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/bigint.h"
#include "util/common.h"

#define FP_INLINE_KEEP
#include "field/fp_inline.h"
#undef FP_INLINE_KEEP

#define FPN_(name) CUZK_NAME(FP_PREFIX, name)
#define FPP_(name) CUZK_NAME(FP_PREFIX, CUZK_CAT2(P_, name))

const FPN_(t) FPN_(MODULUS) = {FPP_(MODULUS)};
const FPN_(t) FPN_(ONE) = {FPP_(ONE)};
const FPN_(t) FPN_(R2) = {FPP_(R2)};
const uint64_t FPN_(INV) = FPP_(INV);
const unsigned FPN_(BITS) = FPP_(BITS);

void FPN_(set_zero)(FPN_(t) *r) { memset(r, 0, sizeof *r); }
void FPN_(set_one)(FPN_(t) *r) { *r = FPN_(ONE); }
bool FPN_(is_zero)(const FPN_(t) *a) { return FPN_(is_zero_inl)(a); }
bool FPN_(is_one)(const FPN_(t) *a) { return FPN_(eq_inl)(a, &FPN_(ONE)); }
bool FPN_(eq)(const FPN_(t) *a, const FPN_(t) *b) { return FPN_(eq_inl)(a, b); }

void FPN_(add)(FPN_(t) *r, const FPN_(t) *a, const FPN_(t) *b) { FPN_(add_inl)(r, a, b); }
void FPN_(sub)(FPN_(t) *r, const FPN_(t) *a, const FPN_(t) *b) { FPN_(sub_inl)(r, a, b); }
void FPN_(dbl)(FPN_(t) *r, const FPN_(t) *a) { FPN_(dbl_inl)(r, a); }
void FPN_(neg)(FPN_(t) *r, const FPN_(t) *a) { FPN_(neg_inl)(r, a); }
void FPN_(mul)(FPN_(t) *r, const FPN_(t) *a, const FPN_(t) *b) { FPN_(mul_inl)(r, a, b); }
void FPN_(sqr)(FPN_(t) *r, const FPN_(t) *a) { FPN_(sqr_inl)(r, a); }

void FPN_(half)(FPN_(t) *r, const FPN_(t) *a)
{
    /* a odd: (a + p)/2 — no overflow thanks to the spare top bit. */
    uint64_t mask = 0 - (a->l[0] & 1), carry = 0, t[FP_LIMBS];
    for (int i = 0; i < FP_LIMBS; i++)
        t[i] = cuzk_adc(a->l[i], FPN_(MODULUS).l[i] & mask, &carry);
    for (int i = 0; i < FP_LIMBS - 1; i++)
        r->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
    r->l[FP_LIMBS - 1] = t[FP_LIMBS - 1] >> 1;
}

void FPN_(pow)(FPN_(t) *r, const FPN_(t) *a, const uint64_t *e, size_t e_limbs)
{
    /* Left-to-right 4-bit fixed window; exponents are public here. */
    FPN_(t) tab[16], acc = FPN_(ONE);
    tab[0] = FPN_(ONE);
    tab[1] = *a;
    for (int i = 2; i < 16; i++)
        FPN_(mul_inl)(&tab[i], &tab[i - 1], a);
    bool started = false;
    for (size_t i = e_limbs; i-- > 0;) {
        for (int sh = 60; sh >= 0; sh -= 4) {
            unsigned w = (unsigned)(e[i] >> sh) & 15u;
            if (started) {
                for (int k = 0; k < 4; k++)
                    FPN_(sqr_inl)(&acc, &acc);
            }
            if (w) {
                FPN_(mul_inl)(&acc, &acc, &tab[w]);
                started = true;
            }
        }
    }
    *r = acc;
}

void FPN_(inv)(FPN_(t) *r, const FPN_(t) *a)
{
    /* Fermat: a^(p-2); maps 0 to 0 as required. */
    static const uint64_t pm2[FP_LIMBS] = FPP_(PM2);
    FPN_(pow)(r, a, pm2, FP_LIMBS);
}

void FPN_(batch_inv)(FPN_(t) *out, const FPN_(t) *in, size_t n, FPN_(t) *scratch)
{
    FPN_(t) *pre = scratch;
    if (!pre && n > 0)
        pre = cuzk_alloc(n, sizeof(FPN_(t)));
    if (!pre) {
        /* No memory for the prefix products: invert one by one (slow, correct). */
        for (size_t i = 0; i < n; i++)
            FPN_(inv)(&out[i], &in[i]);
        return;
    }
    /* Montgomery's trick: prefix products, one inversion, walk back. Zeros are
     * skipped so they neither poison the product nor get an inverse. */
    FPN_(t) acc = FPN_(ONE);
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (!FPN_(is_zero_inl)(&in[i]))
            FPN_(mul_inl)(&acc, &acc, &in[i]);
    }
    FPN_(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FPN_(is_zero_inl)(&in[i])) {
            FPN_(set_zero)(&out[i]);
            continue;
        }
        FPN_(t) x = in[i]; /* out may alias in */
        FPN_(mul_inl)(&out[i], &acc, &pre[i]);
        FPN_(mul_inl)(&acc, &acc, &x);
    }
    if (pre != scratch)
        cuzk_free(pre);
}

int FPN_(legendre)(const FPN_(t) *a)
{
    static const uint64_t e[FP_LIMBS] = FPP_(PM1D2);
    FPN_(t) t;
    if (FPN_(is_zero_inl)(a))
        return 0;
    FPN_(pow)(&t, a, e, FP_LIMBS);
    return FPN_(eq_inl)(&t, &FPN_(ONE)) ? 1 : -1;
}

bool FPN_(sqrt)(FPN_(t) *r, const FPN_(t) *a)
{
    /* Tonelli-Shanks with p - 1 = 2^S·T; for S = 1 (both base fields,
     * p = 3 mod 4) the loop never runs and this is a^((p+1)/4). */
    static const uint64_t tm1d2[FP_LIMBS] = FPP_(TS_TM1D2);
    static const FPN_(t) root = {FPP_(TS_ROOT)};
    if (FPN_(is_zero_inl)(a)) {
        FPN_(set_zero)(r);
        return true;
    }
    FPN_(t) x, b, z = root, t;
    FPN_(pow)(&x, a, tm1d2, FP_LIMBS); /* a^((T-1)/2) */
    FPN_(sqr_inl)(&b, &x);
    FPN_(mul_inl)(&b, &b, a);          /* b = a^T */
    FPN_(mul_inl)(&x, &x, a);          /* x = a^((T+1)/2), x^2 = a·b */
    int m = FPP_(TS_S);
    while (!FPN_(eq_inl)(&b, &FPN_(ONE))) {
        /* least i with b^(2^i) = 1; i == m means a is a non-residue */
        int i = 0;
        t = b;
        while (!FPN_(eq_inl)(&t, &FPN_(ONE))) {
            FPN_(sqr_inl)(&t, &t);
            if (++i == m)
                return false;
        }
        FPN_(t) w = z;
        for (int k = 0; k < m - i - 1; k++)
            FPN_(sqr_inl)(&w, &w);
        FPN_(sqr_inl)(&z, &w);
        FPN_(mul_inl)(&b, &b, &z);
        FPN_(mul_inl)(&x, &x, &w);
        m = i;
    }
    *r = x;
    return true;
}

void FPN_(from_u64)(FPN_(t) *r, uint64_t v)
{
    FPN_(t) raw = {{0}};
    raw.l[0] = v; /* < 2^64 < p for every field here */
    FPN_(to_mont)(r, &raw);
}

void FPN_(to_mont)(FPN_(t) *r, const FPN_(t) *raw)
{
    FPN_(mul_inl)(r, raw, &FPN_(R2));
}

void FPN_(from_mont)(FPN_(t) *raw, const FPN_(t) *a)
{
    static const FPN_(t) one_raw = {{1}};
    FPN_(mul_inl)(raw, a, &one_raw);
}

bool FPN_(raw_is_canonical)(const FPN_(t) *raw)
{
    uint64_t borrow = 0;
    for (int i = 0; i < FP_LIMBS; i++)
        (void)cuzk_sbb(raw->l[i], FPN_(MODULUS).l[i], &borrow);
    return borrow != 0;
}

void FPN_(from_bytes_le)(FPN_(t) *r, const uint8_t *bytes)
{
    for (int i = 0; i < FP_LIMBS; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = (v << 8) | bytes[8 * i + k];
        r->l[i] = v;
    }
}

void FPN_(to_bytes_le)(uint8_t *bytes, const FPN_(t) *a)
{
    for (int i = 0; i < FP_LIMBS; i++)
        for (int k = 0; k < 8; k++)
            bytes[8 * i + k] = (uint8_t)(a->l[i] >> (8 * k));
}

int FPN_(to_dec)(char *buf, size_t cap, const FPN_(t) *a)
{
    FPN_(t) raw;
    FPN_(from_mont)(&raw, a);
    return cuzk_bn_to_dec(buf, cap, raw.l, FP_LIMBS);
}

bool FPN_(from_dec)(FPN_(t) *r, const char *s)
{
    FPN_(t) raw;
    if (!cuzk_bn_from_dec(raw.l, FP_LIMBS, s) || !FPN_(raw_is_canonical)(&raw))
        return false;
    FPN_(to_mont)(r, &raw);
    return true;
}

bool FPN_(random)(FPN_(t) *r)
{
    /* Rejection sampling on BITS-bit integers: accepts with probability > 1/2. */
    const unsigned top = FPP_(BITS) - 64 * (FP_LIMBS - 1);
    const uint64_t top_mask = top >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << top) - 1);
    for (int attempt = 0; attempt < 256; attempt++) {
        FPN_(t) raw;
        if (!cuzk_random_bytes(raw.l, sizeof raw.l))
            return false;
        raw.l[FP_LIMBS - 1] &= top_mask;
        if (FPN_(raw_is_canonical)(&raw)) {
            FPN_(to_mont)(r, &raw);
            return true;
        }
    }
    return false;
}

#undef FPN_
#undef FPP_
#undef FP_PREFIX
#undef FP_LIMBS
