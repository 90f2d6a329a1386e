/* Declaration "template" for a prime field in Montgomery form.
 *
 * Include with:
 *   #define FP_PREFIX bn254_fr   (names become bn254_fr_t, bn254_fr_mul, ...)
 *   #define FP_LIMBS  4          (64-bit limbs, little-endian limb order)
 *   #include "field/fp_decl.h"
 * The header #undefs both at the end, so it can be included once per field.
 *
 * Representation (shared with the GPU code and with snarkjs files):
 *   - an element is uint64_t l[FP_LIMBS], least significant limb first;
 *   - "mont" values are a·R mod p with R = 2^(64·FP_LIMBS). For BLS12-381 Fp
 *     (6 limbs) R = 2^384 and for every 4-limb field R = 2^256 — exactly the
 *     Montgomery convention of zkey/ptau points, so zkey bytes are our limbs;
 *   - "raw" values are the standard integer (canonical, < p) in the same limbs:
 *     witness values, r1cs coefficients, MSM scalars.
 * Unless a name says raw, functions take and return Montgomery form. Every
 * output pointer may alias an input. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/common.h"

#define FPN_(name) CUZK_NAME(FP_PREFIX, name)

typedef struct {
    uint64_t l[FP_LIMBS];
} FPN_(t);

/* Constants (Montgomery form unless noted). */
extern const FPN_(t) FPN_(MODULUS);  /* p, raw */
extern const FPN_(t) FPN_(ONE);      /* R mod p */
extern const FPN_(t) FPN_(R2);       /* R^2 mod p (raw limbs) */
extern const uint64_t FPN_(INV);     /* -p^-1 mod 2^64 */
enum { CUZK_CAT2(FP_PREFIX, _LIMBS) = FP_LIMBS };
extern const unsigned FPN_(BITS);    /* bit length of p */

void FPN_(set_zero)(FPN_(t) *r);
void FPN_(set_one)(FPN_(t) *r);
bool FPN_(is_zero)(const FPN_(t) *a);
bool FPN_(is_one)(const FPN_(t) *a);
bool FPN_(eq)(const FPN_(t) *a, const FPN_(t) *b);

void FPN_(add)(FPN_(t) *r, const FPN_(t) *a, const FPN_(t) *b);
void FPN_(sub)(FPN_(t) *r, const FPN_(t) *a, const FPN_(t) *b);
void FPN_(dbl)(FPN_(t) *r, const FPN_(t) *a);
void FPN_(neg)(FPN_(t) *r, const FPN_(t) *a);
void FPN_(half)(FPN_(t) *r, const FPN_(t) *a);
void FPN_(mul)(FPN_(t) *r, const FPN_(t) *a, const FPN_(t) *b);
void FPN_(sqr)(FPN_(t) *r, const FPN_(t) *a);
/* r = a^e, e given as little-endian limbs (raw integer). */
void FPN_(pow)(FPN_(t) *r, const FPN_(t) *a, const uint64_t *e, size_t e_limbs);
/* r = a^-1; inverse of 0 is 0. */
void FPN_(inv)(FPN_(t) *r, const FPN_(t) *a);
/* out[i] = in[i]^-1 for all i (zeros stay zero). out may equal in.
 * scratch must hold n elements (NULL: allocated internally). */
void FPN_(batch_inv)(FPN_(t) *out, const FPN_(t) *in, size_t n, FPN_(t) *scratch);
/* Square root: returns false if a is not a square (r unspecified). */
bool FPN_(sqrt)(FPN_(t) *r, const FPN_(t) *a);
/* Legendre symbol: 0, 1, or -1. */
int FPN_(legendre)(const FPN_(t) *a);

/* Conversions. */
void FPN_(from_u64)(FPN_(t) *r, uint64_t v);            /* -> mont */
void FPN_(to_mont)(FPN_(t) *r, const FPN_(t) *raw);     /* raw (< p) -> mont */
void FPN_(from_mont)(FPN_(t) *raw, const FPN_(t) *a);   /* mont -> raw */
bool FPN_(raw_is_canonical)(const FPN_(t) *raw);         /* raw < p ? */
/* Little-endian bytes (FP_LIMBS*8 of them) <-> limbs (no form change). */
void FPN_(from_bytes_le)(FPN_(t) *r, const uint8_t *bytes);
void FPN_(to_bytes_le)(uint8_t *bytes, const FPN_(t) *a);
/* Decimal string of the standard value of mont a. Returns length, or -1 if
 * cap is too small (cap >= 120 always suffices). */
int FPN_(to_dec)(char *buf, size_t cap, const FPN_(t) *a);
/* Parse a decimal string (no sign, value < p) into mont form. */
bool FPN_(from_dec)(FPN_(t) *r, const char *s);
/* Uniform random element from the OS CSPRNG (rejection sampling). */
bool FPN_(random)(FPN_(t) *r);

#undef FPN_
#undef FP_PREFIX
#undef FP_LIMBS
