/* Curve parameters as seen by the file formats, the per-curve operation
 * table, and small shared helpers of the formats layer. */
#include <stdatomic.h>

#include "formats/fmt_internal.h"

static const cuzk_curve_params params_bn254 = {
    .curve = CUZK_CURVE_BN254,
    .name = "bn128",
    .n8q = 32,
    .n8r = 32,
    .fq_limbs = 4,
    .g1_size = sizeof(bn254_g1_affine_t),
    .g2_size = sizeof(bn254_g2_affine_t),
    .q = bn254_fp_MODULUS.l,
    .r = bn254_fr_MODULUS.l,
    .fr_two_adicity = 28,
};

static const cuzk_curve_params params_bls12_381 = {
    .curve = CUZK_CURVE_BLS12_381,
    .name = "bls12381",
    .n8q = 48,
    .n8r = 32,
    .fq_limbs = 6,
    .g1_size = sizeof(bls12_381_g1_affine_t),
    .g2_size = sizeof(bls12_381_g2_affine_t),
    .q = bls12_381_fp_MODULUS.l,
    .r = bls12_381_fr_MODULUS.l,
    .fr_two_adicity = 32,
};

/* The file layouts rely on our point types being exactly the zkey bytes. */
_Static_assert(sizeof(bn254_g1_affine_t) == 64 && sizeof(bn254_g2_affine_t) == 128,
               "bn254 affine layout must match zkey points");
_Static_assert(sizeof(bls12_381_g1_affine_t) == 96 && sizeof(bls12_381_g2_affine_t) == 192,
               "bls12-381 affine layout must match zkey points");
_Static_assert(sizeof(bn254_fr_t) == 32 && sizeof(bls12_381_fr_t) == 32, "Fr is 4 limbs");

/* 8-lane IFMA field cores for the vectorised on-curve checks. */
#define FP_INLINE_KEEP
#define FP2_INLINE_KEEP
#define FP_PREFIX bn254_fp
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#define FP2_PREFIX bn254_fp2
#include "field/fp2_inline.h"
#undef FP2_INLINE_KEEP
#include "field/fp2_ifma_inline.h"
#undef FP_PREFIX
#define FP2_INLINE_KEEP
#define FP_PREFIX bls12_381_fp
#include "field/fp_inline.h"
#undef FP_INLINE_KEEP
#include "field/fp_ifma_inline.h"
#define FP2_PREFIX bls12_381_fp2
#include "field/fp2_inline.h"
#undef FP2_INLINE_KEEP
#include "field/fp2_ifma_inline.h"

#define FC_CURVE bn254
#define FC_PARAMS (&params_bn254)
#include "formats/fmt_curve_impl.h"

#define FC_CURVE bls12_381
#define FC_PARAMS (&params_bls12_381)
#include "formats/fmt_curve_impl.h"

const cuzk_curve_params *cuzk_curve_params_get(cuzk_curve c)
{
    switch (c) {
    case CUZK_CURVE_BN254: return &params_bn254;
    case CUZK_CURVE_BLS12_381: return &params_bls12_381;
    default: return NULL;
    }
}

const fmt_ops *fmt_ops_get(cuzk_curve c)
{
    switch (c) {
    case CUZK_CURVE_BN254: return &bn254_fmt_ops;
    case CUZK_CURVE_BLS12_381: return &bls12_381_fmt_ops;
    default: return NULL;
    }
}

/* Integer equality of an n8-byte LE string with a modulus of `limbs` limbs
 * (shorter or longer encodings are fine as long as the value matches). */
static bool bytes_eq_limbs(const uint8_t *le, size_t n8, const uint64_t *m, size_t limbs)
{
    for (size_t i = 0; i < n8 || i < limbs * 8; i++) {
        uint8_t a = i < n8 ? le[i] : 0;
        uint8_t b = i < limbs * 8 ? (uint8_t)(m[i / 8] >> (8 * (i % 8))) : 0;
        if (a != b)
            return false;
    }
    return true;
}

cuzk_curve cuzk_curve_from_r_bytes(const uint8_t *le, size_t n8)
{
    if (bytes_eq_limbs(le, n8, params_bn254.r, 4))
        return CUZK_CURVE_BN254;
    if (bytes_eq_limbs(le, n8, params_bls12_381.r, 4))
        return CUZK_CURVE_BLS12_381;
    return CUZK_CURVE_NONE;
}

cuzk_curve cuzk_curve_from_q_bytes(const uint8_t *le, size_t n8)
{
    if (bytes_eq_limbs(le, n8, params_bn254.q, 4))
        return CUZK_CURVE_BN254;
    if (bytes_eq_limbs(le, n8, params_bls12_381.q, 6))
        return CUZK_CURVE_BLS12_381;
    return CUZK_CURVE_NONE;
}

const char *fmt_pt_reason(int why)
{
    switch (why) {
    case FMT_PT_RANGE: return "has a coordinate >= q";
    case FMT_PT_CURVE: return "is not on the curve";
    case FMT_PT_SUBGROUP: return "is not in the prime-order subgroup";
    default: return "is invalid";
    }
}

bool fmt_is_decimal(const char *s, size_t max_digits)
{
    if (!s || !*s)
        return false;
    size_t n = 0;
    for (; s[n]; n++)
        if (s[n] < '0' || s[n] > '9' || n >= max_digits)
            return false;
    return true;
}

typedef struct {
    fmt_item_fn item;
    void *ctx;
    atomic_size_t bad;
} scan_job;

static void scan_range(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    scan_job *j = p;
    for (size_t i = lo; i < hi; i++) {
        /* Later items cannot become the first failure: stop early. */
        if ((i & 63) == 0 && i >= atomic_load_explicit(&j->bad, memory_order_relaxed))
            return;
        if (j->item(j->ctx, i)) {
            size_t cur = atomic_load_explicit(&j->bad, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak(&j->bad, &cur, i))
                ;
            return;
        }
    }
}

void fmt_par_scan(cuzk_pool *pool, size_t n, size_t grain, fmt_item_fn item, void *ctx,
                  size_t *bad, int *why)
{
    scan_job j = {item, ctx, n};
    if (n)
        cuzk_parallel_for(pool, n, grain ? grain : 1, scan_range, &j);
    *bad = atomic_load(&j.bad);
    /* Items are pure checks (or idempotent copies): re-run for the reason. */
    *why = *bad < n ? item(ctx, *bad) : 0;
}
