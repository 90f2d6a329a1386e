/* Declaration "template" for a prime field in Montgomery form.
 *
 * Include with:
 *   #define FP_PREFIX bn254_fr   (a prime field listed in field/instances.h)
 *   #include "field/fp_decl.h"
 * Declares, for FP_PREFIX f: the type f_t; the constants f_MODULUS, f_ONE,
 * f_R2, f_INV, f_BITS and the enum constant f_LIMBS (= f_P_LIMBS, the 64-bit
 * limbs of field/instances.h); the functions f_set_zero ... f_random below.
 * FP_PREFIX is #undef'd at the end (conventions: util/templates.h).
 *
 * Representation (shared with the GPU code and with snarkjs files):
 *   - an element is uint64_t l[f_P_LIMBS], least significant limb first;
 *   - "mont" values are a·R mod p with R = 2^(64·f_P_LIMBS). For BLS12-381 Fp
 *     (6 limbs) R = 2^384 and for every 4-limb field R = 2^256 — exactly the
 *     Montgomery convention of zkey/ptau points, so zkey bytes are our limbs;
 *   - "raw" values are the standard integer (canonical, < p) in the same limbs:
 *     witness values, r1cs coefficients, MSM scalars.
 * Unless a name says raw, functions take and return Montgomery form. Every
 * output pointer may alias an input. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#if !CUZK_NAME(FP_PREFIX, P_LIMBS)
#error "fp_decl.h: FP_PREFIX must name a prime field listed in field/instances.h"
#endif
#define FP_(name) CUZK_NAME(FP_PREFIX, name)
#define FP_P_(name) CUZK_NAME(FP_PREFIX, CUZK_CAT2(P_, name))

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP_DECL, FP_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct {
    uint64_t l[FP_P_(LIMBS)];
} FP_(t);

/* Constants (Montgomery form unless noted). */
extern const FP_(t) FP_(MODULUS); /* p, raw */
extern const FP_(t) FP_(ONE); /* R mod p */
extern const FP_(t) FP_(R2); /* R^2 mod p (raw limbs) */
extern const uint64_t FP_(INV); /* -p^-1 mod 2^64 */
enum { CUZK_CAT2(FP_PREFIX, _LIMBS) = FP_P_(LIMBS) };
extern const unsigned FP_(BITS); /* bit length of p */

void FP_(set_zero)(FP_(t) *r);
void FP_(set_one)(FP_(t) *r);
bool FP_(is_zero)(const FP_(t) *a);
bool FP_(is_one)(const FP_(t) *a);
bool FP_(eq)(const FP_(t) *a, const FP_(t) *b);

void FP_(add)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b);
void FP_(sub)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b);
void FP_(dbl)(FP_(t) *r, const FP_(t) *a);
void FP_(neg)(FP_(t) *r, const FP_(t) *a);
void FP_(half)(FP_(t) *r, const FP_(t) *a);
void FP_(mul)(FP_(t) *r, const FP_(t) *a, const FP_(t) *b);
void FP_(sqr)(FP_(t) *r, const FP_(t) *a);
/* r = a^e, e given as little-endian limbs (raw integer). */
void FP_(pow)(FP_(t) *r, const FP_(t) *a, const uint64_t *e, size_t e_limbs);
/* r = a^-1; inverse of 0 is 0. */
void FP_(inv)(FP_(t) *r, const FP_(t) *a);
/* out[i] = in[i]^-1 for all i (zeros stay zero). out may equal in.
 * scratch must hold n elements (NULL: allocated internally). */
void FP_(batch_inv)(FP_(t) *out, const FP_(t) *in, size_t n, FP_(t) *scratch);
/* Square root: returns false if a is not a square (r unspecified). */
bool FP_(sqrt)(FP_(t) *r, const FP_(t) *a);
/* Legendre symbol: 0, 1, or -1. */
int FP_(legendre)(const FP_(t) *a);

/* Conversions. */
void FP_(from_u64)(FP_(t) *r, uint64_t v); /* -> mont */
void FP_(to_mont)(FP_(t) *r, const FP_(t) *raw); /* raw (< p) -> mont */
void FP_(from_mont)(FP_(t) *raw, const FP_(t) *a); /* mont -> raw */
bool FP_(raw_is_canonical)(const FP_(t) *raw); /* raw < p ? */
/* Little-endian bytes (8·f_P_LIMBS of them) <-> limbs (no form change). */
void FP_(from_bytes_le)(FP_(t) *r, const uint8_t *bytes);
void FP_(to_bytes_le)(uint8_t *bytes, const FP_(t) *a);
/* Decimal string of the standard value of mont a. Returns length, or -1 if
 * cap is too small (cap >= 120 always suffices). */
int FP_(to_dec)(char *buf, size_t cap, const FP_(t) *a);
/* Parse a decimal string (no sign, value < p) into mont form. */
bool FP_(from_dec)(FP_(t) *r, const char *s);
/* Uniform random element from the OS CSPRNG (rejection sampling). */
bool FP_(random)(FP_(t) *r);

#endif /* per-instance guard */

#undef FP_
#undef FP_P_
#undef FP_PREFIX
