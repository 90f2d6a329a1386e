/* Declaration "template" for an elliptic-curve group y^2 = x^3 + b over a
 * field F (Fp for G1, Fp2 for G2).
 *
 * Include with:
 *   #define EC_PREFIX bn254_g1    (names become bn254_g1_affine_t, bn254_g1_jac_add, ...)
 *   #define EC_F      bn254_fp    (field prefix: EC_F_t, EC_F_mul, ... must be declared)
 *   #include "curve/ec_decl.h"
 * The header #undefs both at the end.
 *
 * Representations (coordinates in Montgomery form):
 *   affine: (x, y); the point at infinity is x = y = 0, the snarkjs/zkey
 *           convention (0,0 is never on these curves since b != 0), so zkey
 *           point arrays are directly arrays of affine_t;
 *   jac:    Jacobian (X, Y, Z), x = X/Z^2, y = Y/Z^3; infinity iff Z = 0;
 *   xyzz:   (X, Y, ZZ, ZZZ), x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; infinity iff ZZ = 0.
 * Scalars are raw (standard, non-Montgomery) little-endian 64-bit limbs. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/common.h"

#define ECN_(name) CUZK_NAME(EC_PREFIX, name)
#define ECF_(name) CUZK_NAME(EC_F, name)

typedef struct {
    ECF_(t) x, y;
} ECN_(affine_t);

typedef struct {
    ECF_(t) x, y, z;
} ECN_(jac_t);

typedef struct {
    ECF_(t) x, y, zz, zzz;
} ECN_(xyzz_t);

extern const ECN_(affine_t) ECN_(GENERATOR);
extern const ECF_(t) ECN_(B);  /* curve constant b (Montgomery) */

/* Affine. */
void ECN_(affine_set_inf)(ECN_(affine_t) *p);
bool ECN_(affine_is_inf)(const ECN_(affine_t) *p);
bool ECN_(affine_is_on_curve)(const ECN_(affine_t) *p);   /* infinity counts as on-curve */
bool ECN_(affine_in_subgroup)(const ECN_(affine_t) *p);   /* r·P == O (fast check where available) */
bool ECN_(affine_eq)(const ECN_(affine_t) *a, const ECN_(affine_t) *b);
void ECN_(affine_neg)(ECN_(affine_t) *r, const ECN_(affine_t) *a);

/* Jacobian. */
void ECN_(jac_set_inf)(ECN_(jac_t) *p);
bool ECN_(jac_is_inf)(const ECN_(jac_t) *p);
void ECN_(jac_from_affine)(ECN_(jac_t) *r, const ECN_(affine_t) *a);
void ECN_(jac_to_affine)(ECN_(affine_t) *r, const ECN_(jac_t) *a);
/* Normalise n points with one inversion (Montgomery's trick). */
void ECN_(jac_batch_to_affine)(ECN_(affine_t) *out, const ECN_(jac_t) *in, size_t n);
bool ECN_(jac_eq)(const ECN_(jac_t) *a, const ECN_(jac_t) *b);
void ECN_(jac_neg)(ECN_(jac_t) *r, const ECN_(jac_t) *a);
void ECN_(jac_dbl)(ECN_(jac_t) *r, const ECN_(jac_t) *a);
void ECN_(jac_add)(ECN_(jac_t) *r, const ECN_(jac_t) *a, const ECN_(jac_t) *b);      /* complete: handles inf, a==b, a==-b */
void ECN_(jac_add_affine)(ECN_(jac_t) *r, const ECN_(jac_t) *a, const ECN_(affine_t) *b); /* mixed, complete */
/* r = k·P, k raw little-endian limbs (any length, not reduced). */
void ECN_(jac_mul)(ECN_(jac_t) *r, const ECN_(jac_t) *p, const uint64_t *k, size_t k_limbs);
void ECN_(affine_mul)(ECN_(jac_t) *r, const ECN_(affine_t) *p, const uint64_t *k, size_t k_limbs);

/* XYZZ (bucket accumulators in MSM). All complete (handle inf / doubling). */
void ECN_(xyzz_set_inf)(ECN_(xyzz_t) *p);
bool ECN_(xyzz_is_inf)(const ECN_(xyzz_t) *p);
void ECN_(xyzz_add_affine)(ECN_(xyzz_t) *r, const ECN_(xyzz_t) *a, const ECN_(affine_t) *b);
void ECN_(xyzz_sub_affine)(ECN_(xyzz_t) *r, const ECN_(xyzz_t) *a, const ECN_(affine_t) *b);
void ECN_(xyzz_add)(ECN_(xyzz_t) *r, const ECN_(xyzz_t) *a, const ECN_(xyzz_t) *b);
void ECN_(xyzz_dbl)(ECN_(xyzz_t) *r, const ECN_(xyzz_t) *a);
void ECN_(xyzz_to_jac)(ECN_(jac_t) *r, const ECN_(xyzz_t) *a);

#undef ECN_
#undef ECF_
#undef EC_PREFIX
#undef EC_F
