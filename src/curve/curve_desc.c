/* The description of each supported curve (curve_desc.h). */
#include "curve/curve_desc.h"

#include <string.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "curve/curves.h"

/* Read directly only by the per-curve tables (curve_ops.c, fmt_curve.c,
 * gpu/ec/curve_ops.cu); everyone else goes through cuzk_curve_desc_get. */
#define DESC_DECLARE(id, e) extern const cuzk_curve_desc id##_curve_desc;
CUZK_CURVES(DESC_DECLARE)
#undef DESC_DECLARE

/* The file formats and the GPU code rely on these layouts. */
_Static_assert(sizeof(bn254_g1_affine_t) == 64 && sizeof(bn254_g2_affine_t) == 128,
               "bn254 affine layout must match zkey points");
_Static_assert(sizeof(bls12_381_g1_affine_t) == 96 && sizeof(bls12_381_g2_affine_t) == 192,
               "bls12-381 affine layout must match zkey points");
_Static_assert(sizeof(bn254_fr_t) == 32 && sizeof(bls12_381_fr_t) == 32, "Fr is 4 limbs");
_Static_assert(sizeof(bls12_381_g1_jac_t) == CUZK_MAX_G1_JAC && sizeof(bls12_381_g2_jac_t) == CUZK_MAX_G2_JAC &&
                   sizeof(bls12_381_g2_affine_t) == CUZK_MAX_G2_AFFINE,
               "the largest points are BLS12-381's");

static const char *const BN254_ALIASES[] = {"bn128", "bn254", "altbn128", NULL};
static const char *const BLS12_381_ALIASES[] = {"bls12381", NULL};

const cuzk_curve_desc bn254_curve_desc = {
    .curve = CUZK_CURVE_BN254,
    .id = "bn254",
    .snarkjs_name = "bn128",
    .aliases = BN254_ALIASES,
    .n8q = 32,
    .n8r = 32,
    .fq_limbs = 4,
    .fr_limbs = 4,
    .fq_bits = 254,
    .fr_bits = 254,
    .q = bn254_fp_MODULUS.l,
    .r = bn254_fr_MODULUS.l,
    .fr_two_adicity = 28,
    .g1_affine = sizeof(bn254_g1_affine_t),
    .g2_affine = sizeof(bn254_g2_affine_t),
    .g1_jac = sizeof(bn254_g1_jac_t),
    .g2_jac = sizeof(bn254_g2_jac_t),
    .g1_generator = &bn254_g1_GENERATOR,
    .g2_generator = &bn254_g2_GENERATOR,
    .proof_encoding = CUZK_PROOF_ENC_EVM_UNCOMPRESSED,
};

const cuzk_curve_desc bls12_381_curve_desc = {
    .curve = CUZK_CURVE_BLS12_381,
    .id = "bls12_381",
    .snarkjs_name = "bls12381",
    .aliases = BLS12_381_ALIASES,
    .n8q = 48,
    .n8r = 32,
    .fq_limbs = 6,
    .fr_limbs = 4,
    .fq_bits = 381,
    .fr_bits = 255,
    .q = bls12_381_fp_MODULUS.l,
    .r = bls12_381_fr_MODULUS.l,
    .fr_two_adicity = 32,
    .g1_affine = sizeof(bls12_381_g1_affine_t),
    .g2_affine = sizeof(bls12_381_g2_affine_t),
    .g1_jac = sizeof(bls12_381_g1_jac_t),
    .g2_jac = sizeof(bls12_381_g2_jac_t),
    .g1_generator = &bls12_381_g1_GENERATOR,
    .g2_generator = &bls12_381_g2_GENERATOR,
    .proof_encoding = CUZK_PROOF_ENC_ZCASH_COMPRESSED,
};

#define DESC_PTR(id, e) &id##_curve_desc,
static const cuzk_curve_desc *const DESCS[] = {CUZK_CURVES(DESC_PTR) NULL};
#undef DESC_PTR

const cuzk_curve_desc *const *cuzk_curve_descs(void) { return DESCS; }

const cuzk_curve_desc *cuzk_curve_desc_get(cuzk_curve c)
{
    switch (c) {
#define DESC_CASE(id, e) \
    case e: return &id##_curve_desc;
        CUZK_CURVES(DESC_CASE)
#undef DESC_CASE
    default: return NULL;
    }
}

const char *cuzk_curve_name(cuzk_curve c)
{
    const cuzk_curve_desc *d = cuzk_curve_desc_get(c);
    return d ? d->snarkjs_name : "unknown";
}

cuzk_curve cuzk_curve_from_name(const char *name)
{
    /* Lower case, letters and digits only: "BLS12-381" -> "bls12381". */
    char buf[32];
    size_t k = 0;
    for (const char *p = name; *p && k + 1 < sizeof buf; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            buf[k++] = c;
    }
    buf[k] = 0;
    for (const cuzk_curve_desc *const *d = DESCS; *d; d++)
        for (const char *const *a = (*d)->aliases; *a; a++)
            if (!strcmp(buf, *a))
                return (*d)->curve;
    return CUZK_CURVE_NONE;
}
