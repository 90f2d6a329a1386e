/* Declaration "template" for an elliptic-curve group y^2 = x^3 + b over a
 * field F (Fp for G1, Fp2 for G2).
 *
 * Include with (after the declarations of its coordinate field):
 *   #define EC_PREFIX bn254_g1    (a group listed in curve/instances.h)
 *   #include "curve/ec_decl.h"
 * Declares, for EC_PREFIX g over the field F = g_C_F: the types g_affine_t,
 * g_jac_t, g_xyzz_t, the constants g_GENERATOR and g_B, and the functions
 * g_affine_*, g_jac_*, g_xyzz_* below. EC_PREFIX is #undef'd at the end.
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

#include "curve/instances.h"
#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define EC_(name) CUZK_NAME(EC_PREFIX, name)
#define EC_P_(name) CUZK_NAME(EC_PREFIX, CUZK_CAT2(C_, name))
#define EC_F_(name) CUZK_NAME(EC_P_(F), name)
#define EC_FR_(name) CUZK_NAME(EC_P_(FR), name)
#if !EC_FR_(P_LIMBS)
#error "ec_decl.h: EC_PREFIX must name a group listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_EC_DECL, EC_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct {
    EC_F_(t) x, y;
} EC_(affine_t);

typedef struct {
    EC_F_(t) x, y, z;
} EC_(jac_t);

typedef struct {
    EC_F_(t) x, y, zz, zzz;
} EC_(xyzz_t);

extern const EC_(affine_t) EC_(GENERATOR);
extern const EC_F_(t) EC_(B); /* curve constant b (Montgomery) */

/* Affine. */
void EC_(affine_set_inf)(EC_(affine_t) *p);
bool EC_(affine_is_inf)(const EC_(affine_t) *p);
bool EC_(affine_is_on_curve)(const EC_(affine_t) *p); /* infinity counts as on-curve */
bool EC_(affine_in_subgroup)(const EC_(affine_t) *p); /* r·P == O (fast check where available) */
bool EC_(affine_eq)(const EC_(affine_t) *a, const EC_(affine_t) *b);
void EC_(affine_neg)(EC_(affine_t) *r, const EC_(affine_t) *a);

/* Jacobian. */
void EC_(jac_set_inf)(EC_(jac_t) *p);
bool EC_(jac_is_inf)(const EC_(jac_t) *p);
void EC_(jac_from_affine)(EC_(jac_t) *r, const EC_(affine_t) *a);
void EC_(jac_to_affine)(EC_(affine_t) *r, const EC_(jac_t) *a);
/* Normalise n points with one inversion (Montgomery's trick). */
void EC_(jac_batch_to_affine)(EC_(affine_t) *out, const EC_(jac_t) *in, size_t n);
bool EC_(jac_eq)(const EC_(jac_t) *a, const EC_(jac_t) *b);
void EC_(jac_neg)(EC_(jac_t) *r, const EC_(jac_t) *a);
void EC_(jac_dbl)(EC_(jac_t) *r, const EC_(jac_t) *a);
void EC_(jac_add)(EC_(jac_t) *r, const EC_(jac_t) *a,
                  const EC_(jac_t) *b); /* complete: handles inf, a==b, a==-b */
void EC_(jac_add_affine)(EC_(jac_t) *r, const EC_(jac_t) *a,
                         const EC_(affine_t) *b); /* mixed, complete */
/* r = k·P, k raw little-endian limbs (any length, not reduced). */
void EC_(jac_mul)(EC_(jac_t) *r, const EC_(jac_t) *p, const uint64_t *k, size_t k_limbs);
void EC_(affine_mul)(EC_(jac_t) *r, const EC_(affine_t) *p, const uint64_t *k, size_t k_limbs);

/* XYZZ (bucket accumulators in MSM). All complete (handle inf / doubling). */
void EC_(xyzz_set_inf)(EC_(xyzz_t) *p);
bool EC_(xyzz_is_inf)(const EC_(xyzz_t) *p);
void EC_(xyzz_add_affine)(EC_(xyzz_t) *r, const EC_(xyzz_t) *a, const EC_(affine_t) *b);
void EC_(xyzz_sub_affine)(EC_(xyzz_t) *r, const EC_(xyzz_t) *a, const EC_(affine_t) *b);
void EC_(xyzz_add)(EC_(xyzz_t) *r, const EC_(xyzz_t) *a, const EC_(xyzz_t) *b);
void EC_(xyzz_dbl)(EC_(xyzz_t) *r, const EC_(xyzz_t) *a);
void EC_(xyzz_to_jac)(EC_(jac_t) *r, const EC_(xyzz_t) *a);

#endif /* per-instance guard */

#undef EC_
#undef EC_P_
#undef EC_F_
#undef EC_FR_
#undef EC_PREFIX
