/* The field instances: the one list of the fields the library compiles, with
 * the description every field template derives its parameters from. A field
 * template takes one parameter, the instance name (FP_PREFIX, FP2_PREFIX or
 * TW_CURVE), and reads the rest here as <name>_P_<what>; a name not listed
 * here is rejected with #error. Where each instance is compiled:
 *   prime fields  (field/fp_*.h)    bn254_fp bn254_fr bls12_381_fp bls12_381_fr
 *                                   declared in curve/<curve>.h, defined in
 *                                   field/<curve>_fields.c
 *   Fp2 = Fp[u]/(u^2 + 1) (field/fp2_*.h)   bn254_fp2 bls12_381_fp2
 *                                   declared in curve/<curve>.h, defined in
 *                                   field/<curve>_fields.c
 *   Fp6/Fp12 towers (field/tower_*.h)       bn254 bls12_381 (names <curve>_fp6,
 *                                   <curve>_fp12), declared in
 *                                   curve/<curve>_pairing.h, defined in
 *                                   curve/<curve>_pairing.c
 * Descriptions:
 *   prime field f:  f_P_LIMBS (64-bit limbs), f_P_ID (per-instance guard slot,
 *                   util/tmpl_once.h), and the constants of field_params.h;
 *   Fp2 e:          e_P_BASE (the prime field), e_P_ID;
 *   tower c:        c_fp12_P_XI_C0 (xi = XI_C0 + u: 9 or 1), c_fp12_P_FROB (the
 *                   Frobenius table the curve's pairing .c defines:
 *                   const c_fp2_t [3][5], [k-1][i-1] = xi^(i(p^k-1)/6)),
 *                   c_fp12_P_ID. */
#ifndef CUZK_FIELD_INSTANCES_H
#define CUZK_FIELD_INSTANCES_H

#include "field/field_params.h"

#define bn254_fp_P_LIMBS 4
#define bn254_fp_P_ID 0
#define bn254_fr_P_LIMBS 4
#define bn254_fr_P_ID 1
#define bls12_381_fp_P_LIMBS 6
#define bls12_381_fp_P_ID 2
#define bls12_381_fr_P_LIMBS 4
#define bls12_381_fr_P_ID 3

#define bn254_fp2_P_BASE bn254_fp
#define bn254_fp2_P_ID 0
#define bls12_381_fp2_P_BASE bls12_381_fp
#define bls12_381_fp2_P_ID 1

#define bn254_fp12_P_XI_C0 9
#define bn254_fp12_P_FROB BN254_FROB_GAMMA
#define bn254_fp12_P_ID 0
#define bls12_381_fp12_P_XI_C0 1
#define bls12_381_fp12_P_FROB BLS12_381_FROB_GAMMA
#define bls12_381_fp12_P_ID 1

#endif
