/* Variable-time Fp2 inversion ("template"): conj(a) / (c0^2 + c1^2) with the
 * base field's variable-time inversion (fp_inv_vt.h, same caveat: only for
 * code whose timing already depends on the data).
 *
 * Include after fp_inv_vt.h for the base and fp2_inline.h:
 *   #define FP2_PREFIX bn254_fp2
 *   #define FP2_BASE   bn254_fp
 *   #include "field/fp2_inv_vt.h"
 * Defines static (out of line: big, and it must not be inlined into the
 * register-hungry IFMA kernels) <prefix>_inv_vt(r, a) (0 -> 0). Both macros are
 * #undef'd at the end. */

#if defined(__GNUC__)
#define CUZK_IVT_FN static __attribute__((noinline, unused))
#else
#define CUZK_IVT_FN static
#endif
#define F2IV_(name) CUZK_NAME(FP2_PREFIX, name)
#define F2IVB_(name) CUZK_NAME(FP2_BASE, name)

CUZK_IVT_FN void F2IV_(inv_vt)(F2IV_(t) *r, const F2IV_(t) *a)
{
    F2IVB_(t) n, t;
    F2IVB_(mul_inl)(&n, &a->c0, &a->c0);
    F2IVB_(mul_inl)(&t, &a->c1, &a->c1);
    F2IVB_(add_inl)(&n, &n, &t); /* norm: u^2 = -1 */
    F2IVB_(inv_vt)(&n, &n);
    F2IVB_(mul_inl)(&r->c0, &a->c0, &n);
    F2IVB_(mul_inl)(&t, &a->c1, &n);
    F2IVB_(neg_inl)(&r->c1, &t);
}

#undef CUZK_IVT_FN
#undef F2IV_
#undef F2IVB_
#undef FP2_PREFIX
#undef FP2_BASE
