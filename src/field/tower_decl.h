/* Declaration "template" for the pairing tower over Fp2 = Fp[u]/(u^2 + 1):
 *   Fp6  = Fp2[v]/(v^3 - xi)      xi = 9+u (BN254), 1+u (BLS12-381)
 *   Fp12 = Fp6[w]/(w^2 - v)       so w^6 = xi
 *
 * Include with (after the curve's Fp and Fp2 declarations):
 *   #define TW_CURVE bn254       (uses bn254_fp, bn254_fp2; declares bn254_fp6_*, bn254_fp12_*)
 *   #include "field/tower_decl.h"
 * TW_CURVE is #undef'd at the end.
 *
 * Layout: fp6 {c0, c1, c2} = c0 + c1·v + c2·v^2; fp12 {c0, c1} = c0 + c1·w.
 * This is the tower of snarkjs (ffjavascript) and @noble/curves, so the 12
 * Fp coefficients in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1
 * are snarkjs's vk_alphabeta_12 flattened. Every output may alias an input. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/common.h"

#define TWD2_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp2), n)
#define TWD6_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp6), n)
#define TWD12_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp12), n)

typedef struct {
    TWD2_(t) c0, c1, c2;
} TWD6_(t);

typedef struct {
    TWD6_(t) c0, c1;
} TWD12_(t);

/* ---- Fp6 ---- */
void TWD6_(set_zero)(TWD6_(t) *r);
void TWD6_(set_one)(TWD6_(t) *r);
bool TWD6_(is_zero)(const TWD6_(t) *a);
bool TWD6_(is_one)(const TWD6_(t) *a);
bool TWD6_(eq)(const TWD6_(t) *a, const TWD6_(t) *b);
void TWD6_(add)(TWD6_(t) *r, const TWD6_(t) *a, const TWD6_(t) *b);
void TWD6_(sub)(TWD6_(t) *r, const TWD6_(t) *a, const TWD6_(t) *b);
void TWD6_(neg)(TWD6_(t) *r, const TWD6_(t) *a);
void TWD6_(mul)(TWD6_(t) *r, const TWD6_(t) *a, const TWD6_(t) *b);
void TWD6_(sqr)(TWD6_(t) *r, const TWD6_(t) *a);
void TWD6_(inv)(TWD6_(t) *r, const TWD6_(t) *a);           /* 0 -> 0 */
void TWD6_(mul_by_v)(TWD6_(t) *r, const TWD6_(t) *a);      /* r = a·v */
/* r = a^(p^k) for any k >= 0. */
void TWD6_(frobenius)(TWD6_(t) *r, const TWD6_(t) *a, unsigned k);

/* ---- Fp12 ---- */
void TWD12_(set_zero)(TWD12_(t) *r);
void TWD12_(set_one)(TWD12_(t) *r);
bool TWD12_(is_zero)(const TWD12_(t) *a);
bool TWD12_(is_one)(const TWD12_(t) *a);
bool TWD12_(eq)(const TWD12_(t) *a, const TWD12_(t) *b);
void TWD12_(add)(TWD12_(t) *r, const TWD12_(t) *a, const TWD12_(t) *b);
void TWD12_(sub)(TWD12_(t) *r, const TWD12_(t) *a, const TWD12_(t) *b);
void TWD12_(mul)(TWD12_(t) *r, const TWD12_(t) *a, const TWD12_(t) *b);
void TWD12_(sqr)(TWD12_(t) *r, const TWD12_(t) *a);
void TWD12_(inv)(TWD12_(t) *r, const TWD12_(t) *a);         /* 0 -> 0 */
/* r = c0 - c1·w = a^(p^6); on the cyclotomic subgroup (every pairing value)
 * this is the inverse ("unitary inverse"). */
void TWD12_(conj)(TWD12_(t) *r, const TWD12_(t) *a);
/* r = a^(p^k) for any k >= 0. */
void TWD12_(frobenius)(TWD12_(t) *r, const TWD12_(t) *a, unsigned k);
/* Granger–Scott squaring, valid only for a in the cyclotomic subgroup
 * (a^(p^4 - p^2 + 1) = 1: anything after the easy part of the final
 * exponentiation). About 2/3 of the cost of sqr. */
void TWD12_(cyclotomic_sqr)(TWD12_(t) *r, const TWD12_(t) *a);
/* r = a^e (e >= 0) for a in the cyclotomic subgroup (signed-digit chain,
 * using conj as the free inverse). */
void TWD12_(cyclotomic_exp)(TWD12_(t) *r, const TWD12_(t) *a, uint64_t e);
/* r = a^e, e a raw little-endian integer of e_limbs limbs (generic,
 * square-and-multiply; for tests and rare use). */
void TWD12_(pow)(TWD12_(t) *r, const TWD12_(t) *a, const uint64_t *e, size_t e_limbs);

/* Sparse products with Miller-loop lines (Fp2 coefficients of w^i):
 *   mul_by_034: line = d0 + d3·w + d4·w^3  (c0.c0, c1.c0, c1.c1; D-type twist)
 *   mul_by_014: line = d0 + d1·w^2 + d4·w^3 (c0.c0, c0.c1, c1.c1; M-type twist) */
void TWD12_(mul_by_034)(TWD12_(t) *f, const TWD2_(t) *d0, const TWD2_(t) *d3, const TWD2_(t) *d4);
void TWD12_(mul_by_014)(TWD12_(t) *f, const TWD2_(t) *d0, const TWD2_(t) *d1, const TWD2_(t) *d4);

/* The 12 standard-form coefficients as decimal strings, in snarkjs's
 * vk_alphabeta_12 order: out[k] for k = 6·i + 2·j + l is a.c<i>.c<j>.c<l>. */
void TWD12_(to_dec_array)(char out[12][128], const TWD12_(t) *a);
/* Inverse of to_dec_array (decimal values < p). false on a bad string. */
bool TWD12_(from_dec_array)(TWD12_(t) *r, const char *const in[12]);

#undef TWD2_
#undef TWD6_
#undef TWD12_
#undef TW_CURVE
