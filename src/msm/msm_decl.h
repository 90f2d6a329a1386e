/* Declaration "template" for the MSM of one group (included by msm/msm.h):
 *   #define MSM_G  bn254_g1   (group prefix: bn254_g1_affine_t, ...)
 *   #define MSM_FR bn254_fr   (scalar field prefix)
 * Both macros are #undef'd at the end.
 *
 * Scalars are RAW (standard, non-Montgomery) integers < r in the limbs of
 * <fr>_t; values >= 2^bits(r) are not supported (their high bits are lost).
 * Bases are affine in Montgomery form; (0,0) is infinity and contributes
 * nothing. */

#define MSG_(name) CUZK_NAME(MSM_G, name)
#define MSF_(name) CUZK_NAME(MSM_FR, name)

/* out = sum_i scalars[i]·bases[i]. n = 0 gives infinity. Scalars 0 are
 * skipped and scalars 1 are summed directly (one pass classifies them);
 * the rest go through Pippenger (signed digits, XYZZ buckets). */
cuzk_status MSG_(msm)(MSG_(jac_t) *out, const MSG_(affine_t) *bases, const MSF_(t) *scalars_raw,
                      size_t n, cuzk_pool *pool, cuzk_error *e);
/* Same with explicit window / split / fast-path choices (opts may be NULL). */
cuzk_status MSG_(msm_opts)(MSG_(jac_t) *out, const MSG_(affine_t) *bases,
                           const MSF_(t) *scalars_raw, size_t n, const cuzk_msm_opts *opts,
                           cuzk_pool *pool, cuzk_error *e);
/* The plan <g>_msm would use for n non-trivial scalars with `threads` workers. */
void MSG_(msm_plan)(cuzk_msm_plan *p, size_t n, int threads);

/* out[i] = scalars_raw[i]·base for i < n (fixed base): a table of signed
 * 8-bit windows (k·2^(8w)·base, k = 1..128) makes each product ~32 mixed
 * additions; results are normalised to affine in batches. */
cuzk_status MSG_(batch_mul_fixed)(MSG_(affine_t) *out, const MSG_(affine_t) *base,
                                  const MSF_(t) *scalars_raw, size_t n, cuzk_pool *pool,
                                  cuzk_error *e);

#undef MSG_
#undef MSF_
#undef MSM_G
#undef MSM_FR
