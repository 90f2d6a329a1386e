/* Declaration "template" for the radix-2 NTT over a curve's scalar field.
 *
 * Include (after the field's declarations, e.g. curve/bn254.h) with:
 *   #define NTT_CURVE bn254        (a curve listed in curve/instances.h)
 *   #include "poly/ntt_decl.h"
 * Declares, for NTT_CURVE c over its scalar field fr = c_C_FR: the type
 * c_ntt_domain and the functions c_ntt_domain_init ... c_bit_reverse below.
 * NTT_CURVE is #undef'd at the end. Use poly/ntt.h for both curves.
 *
 * Roots of unity are exactly snarkjs/ffjavascript's: w[k] = 5^((r-1)/2^k)
 * (5 = smallest quadratic non-residue of Fr), so w[k-1] = w[k]^2. A size-2^L
 * domain uses omega = w[L]. All values are Montgomery form. Every transform
 * is in place on n = 2^L elements and runs on `pool` (NULL = serial). */

#include <stddef.h>

#include "curve/instances.h"
#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"
#include "util/threadpool.h"

#define NTT_(name) CUZK_NAME(NTT_CURVE, name)
#define NTT_P_(name) CUZK_NAME(NTT_CURVE, CUZK_CAT2(C_, name))
#define NTT_FR_(name) CUZK_NAME(NTT_P_(FR), name)
#if !NTT_FR_(P_LIMBS)
#error "ntt_decl.h: NTT_CURVE must name a curve listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_NTT_DECL, NTT_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

typedef struct NTT_(ntt_domain) {
    unsigned log_n;
    size_t n;
    NTT_FR_(t) omega; /* w[log_n]: primitive n-th root of unity */
    NTT_FR_(t) omega_inv; /* omega^-1 */
    NTT_FR_(t) n_inv; /* 1/n */
    NTT_FR_(t) omega_2n; /* w[log_n + 1] (odd-coset generator); zero if log_n is the 2-adicity */
    NTT_FR_(t) *tw; /* tw[j] = omega^j for j < n/2 (forward twiddles; the
                     * inverse ones are -tw[n/2 - j], so one table serves both) */
    NTT_FR_(t) *stw; /* stage tables for small stages t: stw[2^t + j] = w[t+1]^j,
                      * j < 2^t, contiguous for cache locality */
    unsigned stw_stages; /* number of stages t covered by stw */
} NTT_(ntt_domain);

/* 2-adicity of r: the largest supported log_n. */
unsigned NTT_(ntt_max_log)(void);
/* r_out = w[k] = 5^((r-1)/2^k). k <= 2-adicity, else returns false. */
bool NTT_(ntt_root_of_unity)(NTT_FR_(t) *r_out, unsigned k);
/* The same for the generator g: g^((r-1)/2^k) (bellperson's domains: 7). */
bool NTT_(ntt_root_of_unity_gen)(NTT_FR_(t) *r_out, unsigned k, uint64_t g);

/* Precomputes the twiddles of the size-2^log_n domain (n/2 + O(min(n, 2^16))
 * field elements). The twiddle table is filled on `pool`. */
cuzk_status NTT_(ntt_domain_create)(NTT_(ntt_domain) **d, unsigned log_n, cuzk_pool *pool,
                                    cuzk_error *e);
/* The same with the roots of the generator g, a non-square (CUZK_ERR_USAGE
 * otherwise): omega = g^((r-1)/n), omega_2n = g^((r-1)/2n); the 5 of
 * ntt_domain_create is snarkjs's, bellperson's is 7. */
cuzk_status NTT_(ntt_domain_create_gen)(NTT_(ntt_domain) **d, unsigned log_n, uint64_t g, cuzk_pool *pool,
                                        cuzk_error *e);
void NTT_(ntt_domain_free)(NTT_(ntt_domain) *d);

/* Forward NTT: coefficients (natural order) -> evaluations a'[k] = sum a[i] omega^(ik)
 * (natural order). */
void NTT_(ntt)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool);
/* Inverse NTT including the 1/n factor: evaluations -> coefficients, natural order. */
void NTT_(intt)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool);
/* Forward NTT, natural order in, bit-reversed order out (no permutation pass). */
void NTT_(ntt_nr)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool);
/* Inverse NTT including 1/n, bit-reversed order in, natural order out. */
void NTT_(intt_rn)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool);

/* Groth16 H step (snarkjs-formats.md §5 step 2): a holds evaluations over the
 * domain <omega>; on return it holds the evaluations of the same polynomial
 * (degree < n) at the odd coset points g·omega^j, g = w[log_n + 1] = omega_2n,
 * natural order in j. Equivalent to iNTT, a[i] *= g^i, NTT; done as a DIF
 * iNTT (bit-reversed out), one fused scaling (1/n and g^i), and a DIT NTT
 * (bit-reversed in), with no permutation pass.
 * Fails (CUZK_ERR_UNSUPPORTED) when log_n equals the 2-adicity (no w[log_n+1];
 * snarkjs then uses a shift of 25 — see ntt_coset), or on allocation failure. */
cuzk_status NTT_(ntt_coset_odd)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool,
                                cuzk_error *e);

/* Coset NTT with an arbitrary shift: coefficients -> evaluations at
 * shift·omega^k (natural order). */
void NTT_(ntt_coset)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, const NTT_FR_(t) *shift,
                     cuzk_pool *pool);
/* Inverse of ntt_coset: evaluations at shift·omega^k -> coefficients. */
void NTT_(intt_coset)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, const NTT_FR_(t) *shift,
                      cuzk_pool *pool);

/* In-place bit-reversal permutation of 2^log_n elements (cache-blocked). */
void NTT_(bit_reverse)(NTT_FR_(t) *a, unsigned log_n, cuzk_pool *pool);

#endif /* per-instance guard */

#undef NTT_
#undef NTT_P_
#undef NTT_FR_
#undef NTT_CURVE
