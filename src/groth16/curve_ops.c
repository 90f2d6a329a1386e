/* The operations tables of the supported curves (curve_ops.h): one
 * instantiation of curve_ops_impl.h per curve, and the one function that
 * picks a table for a curve. */
#include "groth16/curve_ops.h"

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "curve/curves.h"
#include "msm/msm.h"
#include "poly/ntt.h"

/* 8-lane Fr arithmetic for the h = a·b − c pass (run-time CPU check). */
#define FP_INLINE_KEEP
#define FP_PREFIX bn254_fr
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#define FP_PREFIX bls12_381_fr
#include "field/fp_inline.h"
#undef FP_INLINE_KEEP
#include "field/fp_ifma_inline.h"

#define OPS_DECLARE(id, e)                   \
    extern const cuzk_curve_desc id##_curve_desc; \
    extern const cuzk_curve_ops id##_curve_ops;
CUZK_CURVES(OPS_DECLARE)
#undef OPS_DECLARE

/* One instantiation per curve of curves.h. */

#define CURVE_OPS_CURVE bn254
#include "groth16/curve_ops_impl.h"
#define CURVE_OPS_CURVE bls12_381
#include "groth16/curve_ops_impl.h"

const cuzk_curve_ops *cuzk_curve_ops_get(cuzk_curve c)
{
    switch (c) {
#define OPS_CASE(id, e) \
    case e: return &id##_curve_ops;
        CUZK_CURVES(OPS_CASE)
#undef OPS_CASE
    default: return NULL;
    }
}
