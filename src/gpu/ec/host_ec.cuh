/* The host's half of a device MSM: the sums read back (bucket-row sums per
 * window, the ones partials) are combined on the CPU by the CPU library's
 * XYZZ formulas over its assembly field code, not by the device formulas
 * compiled for the host (portable 32-bit limbs: about 4x slower). Both
 * sides keep field elements canonical in the same Montgomery form (R =
 * 2^(32 N) = 2^(64 N/2), limbs little-endian), so a device xyzz<F> and the
 * CPU <g>_xyzz_t hold the same bytes and the results are bit-identical.
 * host_ec<F> names the CPU functions of the group whose coordinates are F. */
#ifndef CUZK_GPU_HOST_EC_CUH
#define CUZK_GPU_HOST_EC_CUH

#include <string.h>

#include "gpu/ec/gpu_ec.cuh"

extern "C" {
#include "curve/bls12_381.h"
#include "curve/bn254.h"
}

namespace cuzk_gpu {

template <class F> struct host_ec;

#define CUZK_HOST_EC(F, G)                                                                                         \
    template <> struct host_ec<F> {                                                                                \
        typedef G##_xyzz_t T;                                                                                      \
        static_assert(sizeof(T) == sizeof(xyzz<F>), "device and CPU XYZZ differ");                                 \
        static void dbl(T &p) { G##_xyzz_dbl(&p, &p); }                                                            \
        static void add(T &p, const T &q) { G##_xyzz_add(&p, &p, &q); }                                            \
        static void set_inf(T &p) { G##_xyzz_set_inf(&p); }                                                        \
    }
CUZK_HOST_EC(bn254_fp, bn254_g1);
CUZK_HOST_EC(bn254_fp2, bn254_g2);
CUZK_HOST_EC(bls12_381_fp, bls12_381_g1);
CUZK_HOST_EC(bls12_381_fp2, bls12_381_g2);
#undef CUZK_HOST_EC

/* Between the two types by memcpy (a host buffer of device points is
 * aligned for the device type only). */
template <class F> typename host_ec<F>::T host_of(const xyzz<F> &p)
{
    typename host_ec<F>::T r;
    memcpy(&r, &p, sizeof r);
    return r;
}

template <class F> xyzz<F> device_of(const typename host_ec<F>::T &p)
{
    xyzz<F> r;
    memcpy(&r, &p, sizeof r);
    return r;
}

} /* namespace cuzk_gpu */

#endif
