/* Definition "template" for a prime field in Montgomery form: defines every
 * function and constant declared by fp_decl.h.
 *
 * Instantiate once per field in a .c file, after the field's declarations
 * (field/fp_decl.h, directly or through curve/<curve>.h):
 *   #define FP_PREFIX bn254_fr   (a prime field listed in field/instances.h)
 *   #include "field/fp_impl.h"
 * Defines, for FP_PREFIX f: every f_* of fp_decl.h, plus the static inline
 * core f_*_inl of fp_inline.h (included here). Constants come from
 * field/field_params.h (f_P_*). FP_PREFIX is #undef'd at the end. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "field/instances.h"
#include "util/bigint.h"
#include "util/common.h"
#include "util/templates.h"

#define FP_INLINE_KEEP
#include "field/fp_inline.h"
#undef FP_INLINE_KEEP

#define FP_(name) CUZK_NAME(FP_PREFIX, name)
#define FP_P_(name) CUZK_NAME(FP_PREFIX, CUZK_CAT2(P_, name))

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP_IMPL, FP_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

const FP_(t) FP_(MODULUS) = {FP_P_(MODULUS)};
const FP_(t) FP_(ONE) = {FP_P_(ONE)};
const FP_(t) FP_(R2) = {FP_P_(R2)};
const uint64_t FP_(INV) = FP_P_(INV);
const unsigned FP_(BITS) = FP_P_(BITS);

void FP_(set_zero)(FP_(t) *r) { memset(r, 0, sizeof *r); }
void FP_(set_one)(FP_(t) *r) { *r = FP_(ONE); }
bool FP_(is_zero)(const FP_(t) *a) { return FP_(is_zero_inl)(a); }
bool FP_(is_one)(const FP_(t) *a) { return FP_(eq_inl)(a, &FP_(ONE)); }
bool FP_(eq)(const FP_(t) *a, const FP_(t) *b) { return FP_(eq_inl)(a, b); }

void FP_(add)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b) { FP_(add_inl)(r, a, b); }
void FP_(sub)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b) { FP_(sub_inl)(r, a, b); }
void FP_(dbl)(FP_(t) *r, const FP_(t) *a) { FP_(dbl_inl)(r, a); }
void FP_(neg)(FP_(t) *r, const FP_(t) *a) { FP_(neg_inl)(r, a); }
void FP_(mul)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b) { FP_(mul_inl)(r, a, b); }
void FP_(sqr)(FP_(t) *r, const FP_(t) *a) { FP_(sqr_inl)(r, a); }

void FP_(half)(FP_(t) *r, const FP_(t) *a)
{
    /* a odd: (a + p)/2 — no overflow thanks to the spare top bit. */
    uint64_t mask = 0 - (a->l[0] & 1), carry = 0, t[FP_P_(LIMBS)];
    for (int i = 0; i < FP_P_(LIMBS); i++)
        t[i] = cuzk_adc(a->l[i], FP_(MODULUS).l[i] & mask, &carry);
    for (int i = 0; i < FP_P_(LIMBS) - 1; i++)
        r->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
    r->l[FP_P_(LIMBS) - 1] = t[FP_P_(LIMBS) - 1] >> 1;
}

void FP_(pow)(FP_(t) *r, const FP_(t) *a, const uint64_t *e, size_t e_limbs)
{
    /* Left-to-right 4-bit fixed window; exponents are public here. */
    FP_(t) tab[16], acc = FP_(ONE);
    tab[0] = FP_(ONE);
    tab[1] = *a;
    for (int i = 2; i < 16; i++)
        FP_(mul_inl)(&tab[i], &tab[i - 1], a);
    bool started = false;
    for (size_t i = e_limbs; i-- > 0;) {
        for (int sh = 60; sh >= 0; sh -= 4) {
            unsigned w = (unsigned)(e[i] >> sh) & 15u;
            if (started) {
                for (int k = 0; k < 4; k++)
                    FP_(sqr_inl)(&acc, &acc);
            }
            if (w) {
                FP_(mul_inl)(&acc, &acc, &tab[w]);
                started = true;
            }
        }
    }
    *r = acc;
}

void FP_(inv)(FP_(t) *r, const FP_(t) *a)
{
    /* Fermat: a^(p-2); maps 0 to 0 as required. */
    static const uint64_t pm2[FP_P_(LIMBS)] = FP_P_(PM2);
    FP_(pow)(r, a, pm2, FP_P_(LIMBS));
}

void FP_(batch_inv)(FP_(t) *out, const FP_(t) *in, size_t n, FP_(t) *scratch)
{
    FP_(t) *pre = scratch;
    if (!pre && n > 0)
        pre = cuzk_alloc(n, sizeof(FP_(t)));
    if (!pre) {
        /* No memory for the prefix products: invert one by one (slow, correct). */
        for (size_t i = 0; i < n; i++)
            FP_(inv)(&out[i], &in[i]);
        return;
    }
    /* Montgomery's trick: prefix products, one inversion, walk back. Zeros are
     * skipped so they neither poison the product nor get an inverse. */
    FP_(t) acc = FP_(ONE);
    for (size_t i = 0; i < n; i++) {
        pre[i] = acc;
        if (!FP_(is_zero_inl)(&in[i]))
            FP_(mul_inl)(&acc, &acc, &in[i]);
    }
    FP_(inv)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (FP_(is_zero_inl)(&in[i])) {
            FP_(set_zero)(&out[i]);
            continue;
        }
        FP_(t) x = in[i]; /* out may alias in */
        FP_(mul_inl)(&out[i], &acc, &pre[i]);
        FP_(mul_inl)(&acc, &acc, &x);
    }
    if (pre != scratch)
        cuzk_free(pre);
}

int FP_(legendre)(const FP_(t) *a)
{
    static const uint64_t e[FP_P_(LIMBS)] = FP_P_(PM1D2);
    FP_(t) t;
    if (FP_(is_zero_inl)(a))
        return 0;
    FP_(pow)(&t, a, e, FP_P_(LIMBS));
    return FP_(eq_inl)(&t, &FP_(ONE)) ? 1 : -1;
}

bool FP_(sqrt)(FP_(t) *r, const FP_(t) *a)
{
    /* Tonelli-Shanks with p - 1 = 2^S·T; for S = 1 (both base fields,
     * p = 3 mod 4) the loop never runs and this is a^((p+1)/4). */
    static const uint64_t tm1d2[FP_P_(LIMBS)] = FP_P_(TS_TM1D2);
    static const FP_(t) root = {FP_P_(TS_ROOT)};
    if (FP_(is_zero_inl)(a)) {
        FP_(set_zero)(r);
        return true;
    }
    FP_(t) x, b, z = root, t;
    FP_(pow)(&x, a, tm1d2, FP_P_(LIMBS)); /* a^((T-1)/2) */
    FP_(sqr_inl)(&b, &x);
    FP_(mul_inl)(&b, &b, a); /* b = a^T */
    FP_(mul_inl)(&x, &x, a); /* x = a^((T+1)/2), x^2 = a·b */
    int m = FP_P_(TS_S);
    while (!FP_(eq_inl)(&b, &FP_(ONE))) {
        /* least i with b^(2^i) = 1; i == m means a is a non-residue */
        int i = 0;
        t = b;
        while (!FP_(eq_inl)(&t, &FP_(ONE))) {
            FP_(sqr_inl)(&t, &t);
            if (++i == m)
                return false;
        }
        FP_(t) w = z;
        for (int k = 0; k < m - i - 1; k++)
            FP_(sqr_inl)(&w, &w);
        FP_(sqr_inl)(&z, &w);
        FP_(mul_inl)(&b, &b, &z);
        FP_(mul_inl)(&x, &x, &w);
        m = i;
    }
    *r = x;
    return true;
}

void FP_(from_u64)(FP_(t) *r, uint64_t v)
{
    FP_(t) raw = {{0}};
    raw.l[0] = v; /* < 2^64 < p for every field here */
    FP_(to_mont)(r, &raw);
}

void FP_(to_mont)(FP_(t) *r, const FP_(t) *raw) { FP_(mul_inl)(r, raw, &FP_(R2)); }

void FP_(from_mont)(FP_(t) *raw, const FP_(t) *a)
{
    static const FP_(t) one_raw = {{1}};
    FP_(mul_inl)(raw, a, &one_raw);
}

bool FP_(raw_is_canonical)(const FP_(t) *raw)
{
    uint64_t borrow = 0;
    for (int i = 0; i < FP_P_(LIMBS); i++)
        (void)cuzk_sbb(raw->l[i], FP_(MODULUS).l[i], &borrow);
    return borrow != 0;
}

void FP_(from_bytes_le)(FP_(t) *r, const uint8_t *bytes)
{
    for (int i = 0; i < FP_P_(LIMBS); i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = (v << 8) | bytes[8 * i + k];
        r->l[i] = v;
    }
}

void FP_(to_bytes_le)(uint8_t *bytes, const FP_(t) *a)
{
    for (int i = 0; i < FP_P_(LIMBS); i++)
        for (int k = 0; k < 8; k++)
            bytes[8 * i + k] = (uint8_t)(a->l[i] >> (8 * k));
}

int FP_(to_dec)(char *buf, size_t cap, const FP_(t) *a)
{
    FP_(t) raw;
    FP_(from_mont)(&raw, a);
    return cuzk_bn_to_dec(buf, cap, raw.l, FP_P_(LIMBS));
}

bool FP_(from_dec)(FP_(t) *r, const char *s)
{
    FP_(t) raw;
    if (!cuzk_bn_from_dec(raw.l, FP_P_(LIMBS), s) || !FP_(raw_is_canonical)(&raw))
        return false;
    FP_(to_mont)(r, &raw);
    return true;
}

bool FP_(random)(FP_(t) *r)
{
    /* Rejection sampling on BITS-bit integers: accepts with probability > 1/2. */
    const unsigned top = FP_P_(BITS) - 64 * (FP_P_(LIMBS) - 1);
    const uint64_t top_mask = top >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << top) - 1);
    for (int attempt = 0; attempt < 256; attempt++) {
        FP_(t) raw;
        if (!cuzk_random_bytes(raw.l, sizeof raw.l))
            return false;
        raw.l[FP_P_(LIMBS) - 1] &= top_mask;
        if (FP_(raw_is_canonical)(&raw)) {
            FP_(to_mont)(r, &raw);
            return true;
        }
    }
    return false;
}

#endif /* per-instance guard */

#undef FP_
#undef FP_P_
#undef FP_PREFIX
