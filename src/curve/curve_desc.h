/* One description per supported curve: names, sizes, moduli, two-adicity,
 * generators. Plain C data (no per-curve types), so every layer reads the
 * same facts: the CPU code, the file formats and the GPU code.
 *
 * cuzk_curve_desc_get(curve) is the one place that maps the cuzk_curve enum
 * to a curve; cuzk_curve_ops_get (groth16/curve_ops.h) maps it to operations.
 * The lookups of a curve by what a file or a user gives (a name, a modulus)
 * are here too (curve_desc.c), each one walk over the list. */
#ifndef CUZK_CURVE_CURVE_DESC_H
#define CUZK_CURVE_CURVE_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" { /* also read by the CUDA code */
#endif

/* Largest sizes over the supported curves, for stack buffers. */
#define CUZK_MAX_FR_BYTES 32
#define CUZK_MAX_FQ_LIMBS 6
#define CUZK_MAX_G1_AFFINE 96
#define CUZK_MAX_G1_JAC 144
#define CUZK_MAX_G2_AFFINE 192
#define CUZK_MAX_G2_JAC 288
#define CUZK_MAX_FQ12 576

/* How cuzk_proof_to_bytes encodes a proof of the curve (cuzk.h documents both). */
typedef enum cuzk_proof_encoding {
    CUZK_PROOF_ENC_ZCASH_COMPRESSED = 0, /* BLS12-381: bellman / Filecoin, 192 bytes */
    CUZK_PROOF_ENC_EVM_UNCOMPRESSED = 1  /* BN254: Solidity verifier calldata, 256 bytes */
} cuzk_proof_encoding;

typedef struct cuzk_curve_desc {
    cuzk_curve curve;
    const char *id;             /* our code prefix: "bn254" / "bls12_381" */
    const char *snarkjs_name;   /* written into JSON files: "bn128" / "bls12381" */
    const char *const *aliases; /* accepted names (lower case, letters and digits only), NULL-ended */
    uint32_t n8q, n8r;          /* bytes of an Fq / Fr element (32|48, 32) */
    uint32_t fq_limbs, fr_limbs;/* 64-bit limbs (4|6, 4) */
    uint32_t fq_bits, fr_bits;  /* bit lengths of q and r */
    const uint64_t *q, *r;      /* moduli, little-endian limbs (raw) */
    uint32_t fr_two_adicity;    /* 2^s divides r - 1: 28 (BN254) / 32 (BLS12-381); domains < 2^s */
    /* Point sizes in bytes, our layouts (Montgomery coordinates; affine =
     * zkey bytes, infinity x = y = 0; Jacobian X, Y, Z, infinity Z = 0). */
    size_t g1_affine, g2_affine, g1_jac, g2_jac;
    const void *g1_generator;   /* affine, Montgomery */
    const void *g2_generator;
    cuzk_proof_encoding proof_encoding;
} cuzk_curve_desc;

/* NULL for CUZK_CURVE_NONE or an unknown value. */
const cuzk_curve_desc *cuzk_curve_desc_get(cuzk_curve c);
/* Every supported curve, in enum order, ended by NULL. */
const cuzk_curve_desc *const *cuzk_curve_descs(void);

/* The curve whose scalar field modulus r (resp. base field modulus q) is
 * the integer of the n8 little-endian bytes le (as a file header writes it;
 * longer or shorter encodings match when the value does); CUZK_CURVE_NONE
 * if none. By name: cuzk_curve_from_name (cuzk.h). */
cuzk_curve cuzk_curve_from_r_bytes(const uint8_t *le, size_t n8);
cuzk_curve cuzk_curve_from_q_bytes(const uint8_t *le, size_t n8);

#ifdef __cplusplus
}
#endif

#endif
