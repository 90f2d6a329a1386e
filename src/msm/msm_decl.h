/* Declaration "template" for the MSM of one group (included by msm/msm.h):
 *   #define MSM_G bn254_g1    (a group listed in curve/instances.h)
 *   #include "msm/msm_decl.h"
 * Declares, for MSM_G g with scalar field fr = g_C_FR: g_msm, g_msm_opts,
 * g_msm_plan, g_batch_mul_fixed. MSM_G is #undef'd at the end.
 *
 * Scalars are RAW (standard, non-Montgomery) integers < r in the limbs of
 * <fr>_t; values >= 2^bits(r) are not supported (their high bits are lost).
 * Bases are affine in Montgomery form; (0,0) is infinity and contributes
 * nothing. */

#include "curve/instances.h"
#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define MSM_(name) CUZK_NAME(MSM_G, name)
#define MSM_P_(name) CUZK_NAME(MSM_G, CUZK_CAT2(C_, name))
#define MSM_FR_(name) CUZK_NAME(MSM_P_(FR), name)
#define MSM_F_(name) CUZK_NAME(MSM_P_(F), name)
#if !MSM_FR_(P_LIMBS)
#error "msm_decl.h: MSM_G must name a group listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_MSM_DECL, MSM_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* out = sum_i scalars[i]·bases[i]. n = 0 gives infinity. Scalars 0 are
 * skipped and scalars 1 are summed directly (one pass classifies them);
 * the rest go through Pippenger (signed digits, XYZZ buckets). */
cuzk_status MSM_(msm)(MSM_(jac_t) *out, const MSM_(affine_t) *bases, const MSM_FR_(t) *scalars_raw,
                      size_t n, cuzk_pool *pool, cuzk_error *e);
/* Same with explicit window / split / fast-path choices (opts may be NULL). */
cuzk_status MSM_(msm_opts)(MSM_(jac_t) *out, const MSM_(affine_t) *bases,
                           const MSM_FR_(t) *scalars_raw, size_t n, const cuzk_msm_opts *opts,
                           cuzk_pool *pool, cuzk_error *e);
/* The plan <g>_msm would use for n non-trivial scalars with `threads` workers. */
void MSM_(msm_plan)(cuzk_msm_plan *p, size_t n, int threads);

/* out[i] = scalars_raw[i]·base for i < n (fixed base): a table of signed
 * 8-bit windows (k·2^(8w)·base, k = 1..128) makes each product ~32 mixed
 * additions; results are normalised to affine in batches. */
cuzk_status MSM_(batch_mul_fixed)(MSM_(affine_t) *out, const MSM_(affine_t) *base,
                                  const MSM_FR_(t) *scalars_raw, size_t n, cuzk_pool *pool,
                                  cuzk_error *e);

#endif /* per-instance guard */

#undef MSM_
#undef MSM_P_
#undef MSM_FR_
#undef MSM_F_
#undef MSM_G
