/* Loop kernels for SASS opcode counts of the device field and curve code
 * (not built by CMake): a loop of mixed XYZZ additions on gathered bases
 * (as accumulate_kernel does) for BLS12-381 G1, BN254 G1 and BLS12-381 G2,
 * and loops of products on the NTT fields. Counted in docs/MSM.md:
 *   nvcc -O3 -std=c++17 -arch=sm_90 -cubin -Isrc -Iinclude -Xptxas -v \
 *     -o loops.cubin tools/sass_loops.cu
 *   tools/sass_opcount.py loops.cubin
 * (a kernel's section also holds its out-of-line callees, listed after it:
 * take their counts off the kernel's for the addition itself). */
#include "gpu/ec/gpu_ec.cuh"

using namespace cuzk_gpu;

template <class F, int MINB>
__global__ void __launch_bounds__(128, MINB) madd_loop(xyzz<F> *acc_io, const affine<F> *pts, const uint32_t *ent, int n)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    xyzz<F> acc = acc_io[t];
    for (int i = 0; i < n; i++) {
        const uint32_t e = ent[t * n + i];
        const affine<F> q = pts[e & 0x7fffffffu];
        xyzz_add_affine(acc, q, (e >> 31) != 0);
    }
    acc_io[t] = acc;
}
template __global__ void madd_loop<bls12_381_fp, 3>(xyzz<bls12_381_fp> *, const affine<bls12_381_fp> *, const uint32_t *, int);
template __global__ void madd_loop<bn254_fp, 3>(xyzz<bn254_fp> *, const affine<bn254_fp> *, const uint32_t *, int);
template __global__ void madd_loop<bls12_381_fp2, 1>(xyzz<bls12_381_fp2> *, const affine<bls12_381_fp2> *, const uint32_t *,
                                                       int);

/* two products a round */
template <class P> __global__ void mul_loop(fp<P> *io, int iters)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    fp<P> a = io[t], b = io[t + 1024];
    for (int i = 0; i < iters; i++) {
        a = a * b;
        b = b * a;
    }
    io[t] = a;
    io[t + 1024] = b;
}
template __global__ void mul_loop<bn254_fr_p>(fp<bn254_fr_p> *, int);
template __global__ void mul_loop<bls12_381_fr_p>(fp<bls12_381_fr_p> *, int);
