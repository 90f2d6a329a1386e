/* Declaration "template" for the pairing tower over Fp2 = Fp[u]/(u^2 + 1):
 *   Fp6  = Fp2[v]/(v^3 - xi)      xi = 9+u (BN254), 1+u (BLS12-381)
 *   Fp12 = Fp6[w]/(w^2 - v)       so w^6 = xi
 *
 * Include with (after the curve's Fp and Fp2 declarations):
 *   #define TW_CURVE bn254       (a tower listed in field/instances.h)
 *   #include "field/tower_decl.h"
 * Declares, for TW_CURVE c (over c_fp, c_fp2): the types c_fp6_t, c_fp12_t
 * and the functions c_fp6_* and c_fp12_* below. TW_CURVE is #undef'd at the
 * end.
 *
 * Layout: fp6 {c0, c1, c2} = c0 + c1·v + c2·v^2; fp12 {c0, c1} = c0 + c1·w.
 * This is the tower of snarkjs (ffjavascript) and @noble/curves, so the 12
 * Fp coefficients in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1
 * are snarkjs's vk_alphabeta_12 flattened. Every output may alias an input. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define TW_FP_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp), n)
#define TW_FP2_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp2), n)
#define TW_FP6_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp6), n)
#define TW_FP12_(n) CUZK_NAME(CUZK_CAT2(TW_CURVE, _fp12), n)
#define TW_P_(n) TW_FP12_(CUZK_CAT2(P_, n))
#if !TW_P_(XI_C0)
#error "tower_decl.h: TW_CURVE must name a tower listed in field/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TOWER_DECL, TW_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct {
    TW_FP2_(t) c0, c1, c2;
} TW_FP6_(t);

typedef struct {
    TW_FP6_(t) c0, c1;
} TW_FP12_(t);

/* ---- Fp6 ---- */
void TW_FP6_(set_zero)(TW_FP6_(t) *r);
void TW_FP6_(set_one)(TW_FP6_(t) *r);
bool TW_FP6_(is_zero)(const TW_FP6_(t) *a);
bool TW_FP6_(is_one)(const TW_FP6_(t) *a);
bool TW_FP6_(eq)(const TW_FP6_(t) *a, const TW_FP6_(t) *b);
void TW_FP6_(add)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b);
void TW_FP6_(sub)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b);
void TW_FP6_(neg)(TW_FP6_(t) *r, const TW_FP6_(t) *a);
void TW_FP6_(mul)(TW_FP6_(t) *r, const TW_FP6_(t) *a, const TW_FP6_(t) *b);
void TW_FP6_(sqr)(TW_FP6_(t) *r, const TW_FP6_(t) *a);
void TW_FP6_(inv)(TW_FP6_(t) *r, const TW_FP6_(t) *a); /* 0 -> 0 */
void TW_FP6_(mul_by_v)(TW_FP6_(t) *r, const TW_FP6_(t) *a); /* r = a·v */
/* r = a^(p^k) for any k >= 0. */
void TW_FP6_(frobenius)(TW_FP6_(t) *r, const TW_FP6_(t) *a, unsigned k);

/* ---- Fp12 ---- */
void TW_FP12_(set_zero)(TW_FP12_(t) *r);
void TW_FP12_(set_one)(TW_FP12_(t) *r);
bool TW_FP12_(is_zero)(const TW_FP12_(t) *a);
bool TW_FP12_(is_one)(const TW_FP12_(t) *a);
bool TW_FP12_(eq)(const TW_FP12_(t) *a, const TW_FP12_(t) *b);
void TW_FP12_(add)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const TW_FP12_(t) *b);
void TW_FP12_(sub)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const TW_FP12_(t) *b);
void TW_FP12_(mul)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const TW_FP12_(t) *b);
void TW_FP12_(sqr)(TW_FP12_(t) *r, const TW_FP12_(t) *a);
void TW_FP12_(inv)(TW_FP12_(t) *r, const TW_FP12_(t) *a); /* 0 -> 0 */
/* r = c0 - c1·w = a^(p^6); on the cyclotomic subgroup (every pairing value)
 * this is the inverse ("unitary inverse"). */
void TW_FP12_(conj)(TW_FP12_(t) *r, const TW_FP12_(t) *a);
/* r = a^(p^k) for any k >= 0. */
void TW_FP12_(frobenius)(TW_FP12_(t) *r, const TW_FP12_(t) *a, unsigned k);
/* Granger–Scott squaring, valid only for a in the cyclotomic subgroup
 * (a^(p^4 - p^2 + 1) = 1: anything after the easy part of the final
 * exponentiation). About 2/3 of the cost of sqr. */
void TW_FP12_(cyclotomic_sqr)(TW_FP12_(t) *r, const TW_FP12_(t) *a);
/* r = a^e (e >= 0) for a in the cyclotomic subgroup (signed-digit chain,
 * binary, NAF or width-4 NAF, whichever needs fewest operations for e, using
 * conj as the free inverse). */
void TW_FP12_(cyclotomic_exp)(TW_FP12_(t) *r, const TW_FP12_(t) *a, uint64_t e);
/* r = a^e, e a raw little-endian integer of e_limbs limbs (generic,
 * square-and-multiply; for tests and rare use). */
void TW_FP12_(pow)(TW_FP12_(t) *r, const TW_FP12_(t) *a, const uint64_t *e, size_t e_limbs);

/* Sparse products with Miller-loop lines (Fp2 coefficients of w^i):
 *   mul_by_034: line = d0 + d3·w + d4·w^3  (c0.c0, c1.c0, c1.c1; D-type twist)
 *   mul_by_014: line = d0 + d1·w^2 + d4·w^3 (c0.c0, c0.c1, c1.c1; M-type twist) */
void TW_FP12_(mul_by_034)(TW_FP12_(t) *f, const TW_FP2_(t) *d0, const TW_FP2_(t) *d3,
                          const TW_FP2_(t) *d4);
void TW_FP12_(mul_by_014)(TW_FP12_(t) *f, const TW_FP2_(t) *d0, const TW_FP2_(t) *d1,
                          const TW_FP2_(t) *d4);

/* The 12 standard-form coefficients as decimal strings, in snarkjs's
 * vk_alphabeta_12 order: out[k] for k = 6·i + 2·j + l is a.c<i>.c<j>.c<l>. */
void TW_FP12_(to_dec_array)(char out[12][128], const TW_FP12_(t) *a);
/* Inverse of to_dec_array (decimal values < p). false on a bad string. */
bool TW_FP12_(from_dec_array)(TW_FP12_(t) *r, const char *const in[12]);

#endif /* per-instance guard */

#undef TW_FP_
#undef TW_FP2_
#undef TW_FP6_
#undef TW_FP12_
#undef TW_P_
#undef TW_CURVE
