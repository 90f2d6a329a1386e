/* The GPU operations tables of the supported curves (curve_ops.cuh): the
 * kernels' per-curve instantiations gathered per curve, and the one function
 * that picks a table for a curve. */
#include "curve/curves.h"
#include "gpu/ec/curve_ops.cuh"
#include "gpu/ec/gpu_ec.cuh"

#define GPU_DESC_DECLARE(id, e) extern "C" const cuzk_curve_desc id##_curve_desc;
CUZK_CURVES(GPU_DESC_DECLARE)
#undef GPU_DESC_DECLARE

namespace {

using namespace cuzk_gpu;

template <class F> constexpr cuzk_gpu_fixed_ops fixed_ops()
{
    return cuzk_gpu_fixed_ops{sizeof(affine<F>), sizeof(xyzz<F>), gpu_fixed_impl<F>::table, gpu_fixed_impl<F>::launch,
                              gpu_fixed_impl<F>::check};
}

/* The table of a curve from its Fr field and its G1 / G2 coordinate fields. */
template <class Fr, class G1, class G2> constexpr cuzk_gpu_curve_ops table(const cuzk_curve_desc *desc)
{
    return cuzk_gpu_curve_ops{
        desc,
        {gpu_msm_impl<G1>::issue, gpu_msm_impl<G1>::finish, gpu_msm_impl<G1>::precompute,
         gpu_msm_impl<G1>::decode_be},
        {gpu_msm_impl<G2>::issue, gpu_msm_impl<G2>::finish, gpu_msm_impl<G2>::precompute,
         gpu_msm_impl<G2>::decode_be},
        fixed_ops<G1>(),
        fixed_ops<G2>(),
        gpu_ntt_impl<Fr>::tables,
        gpu_ntt_impl<Fr>::run,
        gpu_g16_impl<Fr>::abc,
        gpu_g16_impl<Fr>::pointwise,
    };
}

/* One table per curve of curves.h: <id>_gpu_ops over the kernels' <id>_fr_p, <id>_fp, <id>_fp2. */
#define GPU_OPS_DEFINE(id, e) \
    constexpr cuzk_gpu_curve_ops id##_gpu_ops = table<id##_fr_p, id##_fp, id##_fp2>(&id##_curve_desc);
CUZK_CURVES(GPU_OPS_DEFINE)
#undef GPU_OPS_DEFINE

} /* namespace */

const cuzk_gpu_curve_ops *cuzk_gpu_curve_ops_get(cuzk_curve c)
{
    switch (c) {
#define GPU_OPS_CASE(id, e) \
    case e: return &id##_gpu_ops;
        CUZK_CURVES(GPU_OPS_CASE)
#undef GPU_OPS_CASE
    default: return NULL;
    }
}
