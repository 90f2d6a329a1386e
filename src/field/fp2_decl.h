/* Declaration "template" for a quadratic extension Fp2 = Fp[u]/(u^2 + 1)
 * (u^2 = -1 on both BN254 and BLS12-381).
 *
 * Include with:
 *   #define FP2_PREFIX bn254_fp2
 *   #define FP2_BASE   bn254_fp     (base-field prefix, already declared)
 *   #include "field/fp2_decl.h"
 * Element = c0 + c1·u, both Montgomery. Layout {c0, c1} matches zkey G2
 * coordinates (x.c0 || x.c1). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/common.h"

#define F2N_(name) CUZK_NAME(FP2_PREFIX, name)
#define F2B_(name) CUZK_NAME(FP2_BASE, name)

typedef struct {
    F2B_(t) c0, c1;
} F2N_(t);

void F2N_(set_zero)(F2N_(t) *r);
void F2N_(set_one)(F2N_(t) *r);
bool F2N_(is_zero)(const F2N_(t) *a);
bool F2N_(is_one)(const F2N_(t) *a);
bool F2N_(eq)(const F2N_(t) *a, const F2N_(t) *b);
void F2N_(add)(F2N_(t) *r, const F2N_(t) *a, const F2N_(t) *b);
void F2N_(sub)(F2N_(t) *r, const F2N_(t) *a, const F2N_(t) *b);
void F2N_(dbl)(F2N_(t) *r, const F2N_(t) *a);
void F2N_(neg)(F2N_(t) *r, const F2N_(t) *a);
void F2N_(conj)(F2N_(t) *r, const F2N_(t) *a);        /* = Frobenius x -> x^p */
void F2N_(mul)(F2N_(t) *r, const F2N_(t) *a, const F2N_(t) *b);
void F2N_(sqr)(F2N_(t) *r, const F2N_(t) *a);
void F2N_(mul_fp)(F2N_(t) *r, const F2N_(t) *a, const F2B_(t) *b);
void F2N_(inv)(F2N_(t) *r, const F2N_(t) *a);          /* 0 -> 0 */
void F2N_(batch_inv)(F2N_(t) *out, const F2N_(t) *in, size_t n, F2N_(t) *scratch);
bool F2N_(sqrt)(F2N_(t) *r, const F2N_(t) *a);         /* false if non-square */
void F2N_(pow)(F2N_(t) *r, const F2N_(t) *a, const uint64_t *e, size_t e_limbs);
bool F2N_(random)(F2N_(t) *r);

#undef F2N_
#undef F2B_
#undef FP2_PREFIX
#undef FP2_BASE
