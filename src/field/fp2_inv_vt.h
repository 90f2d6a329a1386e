/* Variable-time Fp2 inversion ("template"): conj(a) / (c0^2 + c1^2) with the
 * base field's variable-time inversion (fp_inv_vt.h, same caveat: only for
 * code whose timing already depends on the data).
 *
 * Include after fp_inv_vt.h for the base and fp2_inline.h:
 *   #define FP2_PREFIX bn254_fp2   (an Fp2 listed in field/instances.h)
 *   #include "field/fp2_inv_vt.h"
 * Defines static (out of line: big, and it must not be inlined into the
 * register-hungry IFMA kernels) <prefix>_inv_vt(r, a) (0 -> 0). FP2_PREFIX is
 * #undef'd at the end.
 */

#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"

#define FP2_(name) CUZK_NAME(FP2_PREFIX, name)
#define FP2_P_(name) CUZK_NAME(FP2_PREFIX, CUZK_CAT2(P_, name))
#define FP2_B_(name) CUZK_NAME(FP2_P_(BASE), name)
#if !FP2_B_(P_LIMBS)
#error "fp2_inv_vt.h: FP2_PREFIX must name an Fp2 listed in field/instances.h"
#endif
#if defined(__GNUC__)
#define FP2_OUTLINE static __attribute__((noinline, unused))
#else
#define FP2_OUTLINE static
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_FP2_INV_VT, FP2_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

FP2_OUTLINE void FP2_(inv_vt)(FP2_(t) *r, const FP2_(t) *a)
{
    FP2_B_(t) n, t;
    FP2_B_(mul_inl)(&n, &a->c0, &a->c0);
    FP2_B_(mul_inl)(&t, &a->c1, &a->c1);
    FP2_B_(add_inl)(&n, &n, &t); /* norm: u^2 = -1 */
    FP2_B_(inv_vt)(&n, &n);
    FP2_B_(mul_inl)(&r->c0, &a->c0, &n);
    FP2_B_(mul_inl)(&t, &a->c1, &n);
    FP2_B_(neg_inl)(&r->c1, &t);
}

#endif /* per-instance guard */

#undef FP2_OUTLINE
#undef FP2_
#undef FP2_B_
#undef FP2_P_
#undef FP2_PREFIX
