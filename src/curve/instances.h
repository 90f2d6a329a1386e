/* The curve instances: the one list of the groups and pairings the library
 * compiles, with the description every curve template derives its parameters
 * from. A curve template takes one parameter, the instance name (EC_PREFIX or
 * PAIRING_CURVE), and reads the rest here as <name>_C_<what>; a name not
 * listed here is rejected with #error. Where each instance is compiled:
 *   groups y^2 = x^3 + b (curve/ec_*.h)   bn254_g1 bn254_g2
 *                                         bls12_381_g1 bls12_381_g2
 *       declared in curve/<curve>.h, defined in curve/<curve>_groups.c
 *   optimal-ate pairings (curve/pairing_*.h)   bn254 bls12_381
 *       declared in curve/<curve>_pairing.h, defined in curve/<curve>_pairing.c
 * (the fields they are built on: field/instances.h).
 * Descriptions:
 *   group g:   g_C_F (coordinate field), g_C_FR (scalar field, whose modulus
 *              is the group order r), g_C_COFACTOR_ONE (1: every point of the
 *              curve is in the group, so no subgroup check), g_C_ID
 *              (per-instance guard slot, util/tmpl_once.h), and the constants
 *              g_C_B, g_C_GEN of curve/curve_params.h;
 *   curve c:   c_C_FR (scalar field, read by the NTT and MSM templates),
 *              c_C_ID (guard slot of the per-curve templates);
 *   pairing c: c_C_FAMILY_BN (1: BN, 0: BLS12), c_C_TWIST_D (1: D-type twist
 *              E': y^2 = x^3 + b/xi; 0: M-type, y^2 = x^3 + b·xi), c_C_X_ABS
 *              (|x|, the curve seed), c_C_X_NEG (1 if x < 0); its tower is
 *              c_fp6/c_fp12 of field/instances.h.
 * This is the compile-time list the templates read; the run-time description
 * of each curve (names, sizes, moduli) is curve/curve_desc.h. */
#ifndef CUZK_CURVE_INSTANCES_H
#define CUZK_CURVE_INSTANCES_H

#include "curve/curve_params.h"

#define bn254_g1_C_F bn254_fp
#define bn254_g1_C_FR bn254_fr
#define bn254_g1_C_COFACTOR_ONE 1 /* E(Fp) has prime order r */
#define bn254_g1_C_ID 0
#define bn254_g2_C_F bn254_fp2
#define bn254_g2_C_FR bn254_fr
#define bn254_g2_C_COFACTOR_ONE 0
#define bn254_g2_C_ID 1
#define bls12_381_g1_C_F bls12_381_fp
#define bls12_381_g1_C_FR bls12_381_fr
#define bls12_381_g1_C_COFACTOR_ONE 0
#define bls12_381_g1_C_ID 2
#define bls12_381_g2_C_F bls12_381_fp2
#define bls12_381_g2_C_FR bls12_381_fr
#define bls12_381_g2_C_COFACTOR_ONE 0
#define bls12_381_g2_C_ID 3

#define bn254_C_FR bn254_fr
#define bn254_C_ID 0
#define bn254_C_FAMILY_BN 1
#define bn254_C_TWIST_D 1
#define bn254_C_X_ABS 4965661367192848881ULL
#define bn254_C_X_NEG 0
#define bls12_381_C_FR bls12_381_fr
#define bls12_381_C_ID 1
#define bls12_381_C_FAMILY_BN 0
#define bls12_381_C_TWIST_D 0
#define bls12_381_C_X_ABS 0xd201000000010000ULL
#define bls12_381_C_X_NEG 1

#endif
