/* The GPU operations tables of the supported curves (curve_ops.cuh): the
 * kernels' per-curve instantiations gathered per curve, and the one function
 * that picks a table for a curve. */
#include "gpu/curve_ops.cuh"
#include "gpu/gpu_ec.cuh"

extern "C" const cuzk_curve_desc bn254_curve_desc, bls12_381_curve_desc;

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

constexpr cuzk_gpu_curve_ops BN254 = table<bn254_fr_p, bn254_fp, bn254_fp2>(&bn254_curve_desc);
constexpr cuzk_gpu_curve_ops BLS12_381 = table<bls12_381_fr_p, bls12_381_fp, bls12_381_fp2>(&bls12_381_curve_desc);

} /* namespace */

const cuzk_gpu_curve_ops *cuzk_gpu_curve_ops_get(cuzk_curve c)
{
    static const cuzk_gpu_curve_ops *const ALL[] = {&BN254, &BLS12_381};
    for (size_t i = 0; i < sizeof ALL / sizeof ALL[0]; i++)
        if (ALL[i]->desc->curve == c) return ALL[i];
    return NULL;
}
