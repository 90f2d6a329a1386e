/* Helpers of the host builds of the GPU arithmetic headers
 * (tests/unit/host_gpu_*.cpp). */
#ifndef CUZK_TESTS_HOST_GPU_UTIL_H
#define CUZK_TESTS_HOST_GPU_UTIL_H

#include "gpu/field/gpu_field.cuh"
#include "util/rng.h"

/* Uniform value below p: random words, the top one cut to p's bit length,
 * rejected when >= p. */
template <class P> static cuzk_gpu::fp<P> host_rand_below_p(uint64_t *s)
{
    for (;;) {
        cuzk_gpu::fp<P> a;
        for (int j = 0; j < P::N; j++) a.v[j] = (uint32_t)cuzk_splitmix64(s);
        a.v[P::N - 1] >>= __builtin_clz(P::mod(P::N - 1));
        cuzk_gpu::fp<P> t = a;
        cuzk_gpu::fp_reduce_once<P>(t.v);
        if (cuzk_gpu::fp_eq(t, a)) return a; /* a < p */
    }
}

#endif
