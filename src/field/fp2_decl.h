/* Declaration "template" for a quadratic extension Fp2 = Fp[u]/(u^2 + 1)
 * (u^2 = -1 on both BN254 and BLS12-381).
 *
 * Include with:
 *   #define FP2_PREFIX bn254_fp2   (an Fp2 listed in field/instances.h)
 *   #include "field/fp2_decl.h"
 * Element = c0 + c1·u, both Montgomery. Layout {c0, c1} matches zkey G2
 * coordinates (x.c0 || x.c1).
 * Declares, for FP2_PREFIX e over base field b = e_P_BASE: the type e_t
 * and the functions e_set_zero ... e_random below. FP2_PREFIX is #undef'd at
 * the end.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define FP2_(name) CUZK_NAME(FP2_PREFIX, name)
#define FP2_P_(name) CUZK_NAME(FP2_PREFIX, CUZK_CAT2(P_, name))
#define FP2_B_(name) CUZK_NAME(FP2_P_(BASE), name)
#if !FP2_B_(P_LIMBS)
#error "fp2_decl.h: FP2_PREFIX must name an Fp2 listed in field/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP2_DECL, FP2_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct {
    FP2_B_(t) c0, c1;
} FP2_(t);

void FP2_(set_zero)(FP2_(t) *r);
void FP2_(set_one)(FP2_(t) *r);
bool FP2_(is_zero)(const FP2_(t) *a);
bool FP2_(is_one)(const FP2_(t) *a);
bool FP2_(eq)(const FP2_(t) *a, const FP2_(t) *b);
void FP2_(add)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b);
void FP2_(sub)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b);
void FP2_(dbl)(FP2_(t) *r, const FP2_(t) *a);
void FP2_(neg)(FP2_(t) *r, const FP2_(t) *a);
void FP2_(conj)(FP2_(t) *r, const FP2_(t) *a); /* = Frobenius x -> x^p */
void FP2_(mul)(FP2_(t) *r, const FP2_(t) *a, const FP2_(t) *b);
void FP2_(sqr)(FP2_(t) *r, const FP2_(t) *a);
void FP2_(mul_fp)(FP2_(t) *r, const FP2_(t) *a, const FP2_B_(t) *b);
void FP2_(inv)(FP2_(t) *r, const FP2_(t) *a); /* 0 -> 0 */
void FP2_(batch_inv)(FP2_(t) *out, const FP2_(t) *in, size_t n, FP2_(t) *scratch);
bool FP2_(sqrt)(FP2_(t) *r, const FP2_(t) *a); /* false if non-square */
void FP2_(pow)(FP2_(t) *r, const FP2_(t) *a, const uint64_t *e, size_t e_limbs);
bool FP2_(random)(FP2_(t) *r);

#endif /* per-instance guard */

#undef FP2_
#undef FP2_B_
#undef FP2_P_
#undef FP2_PREFIX
