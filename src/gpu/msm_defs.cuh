/* MSM building blocks shared by the stage headers (msm_sort.cuh,
 * msm_accumulate.cuh, msm_reduce.cuh) and the driver (msm_impl.cuh): tuning
 * constants, scalar and affine loads, the optional phase profiler. */
#ifndef CUZK_GPU_MSM_DEFS_CUH
#define CUZK_GPU_MSM_DEFS_CUH

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_common.cuh"
#include "gpu/gpu_ec.cuh"
#include "gpu/plan.h"

using namespace cuzk_gpu;

namespace {

/* The constants the memory plan also needs (MSM_SEG, SCAN_TILE, EC_THREADS,
 * ...) are in gpu/plan.h. */
constexpr unsigned MSM_RED_FAN = 8;        /* fan-in of the sum kernels */
constexpr uint32_t KEY_NONE = 0xffffffffu;

/* ---- scalar helpers ----------------------------------------------------- */

struct scalar8 {
    uint32_t w[8];
};

__device__ __forceinline__ scalar8 load_scalar(const uint64_t *s, size_t i)
{
    const uint4 *p = reinterpret_cast<const uint4 *>(s + 4 * i);
    uint4 a = p[0], b = p[1];
    scalar8 r;
    r.w[0] = a.x; r.w[1] = a.y; r.w[2] = a.z; r.w[3] = a.w;
    r.w[4] = b.x; r.w[5] = b.y; r.w[6] = b.z; r.w[7] = b.w;
    return r;
}

__device__ __forceinline__ bool scalar_is_zero(const scalar8 &s)
{
    uint32_t t = 0;
CUZK_UNROLL
    for (int i = 0; i < 8; i++) t |= s.w[i];
    return t == 0;
}

__device__ __forceinline__ bool scalar_is_one(const scalar8 &s)
{
    uint32_t t = s.w[0] ^ 1u;
CUZK_UNROLL
    for (int i = 1; i < 8; i++) t |= s.w[i];
    return t == 0;
}

template <class F> __device__ __forceinline__ affine<F> load_affine(const affine<F> *p)
{
    static_assert(sizeof(affine<F>) % 16 == 0, "affine size");
    affine<F> r;
    const uint4 *src = reinterpret_cast<const uint4 *>(p);
    uint4 *dst = reinterpret_cast<uint4 *>(&r);
CUZK_UNROLL
    for (int i = 0; i < (int)(sizeof(affine<F>) / 16); i++) dst[i] = __ldg(src + i);
    return r;
}

template <class F> struct is_fp2 {
    static constexpr bool value = false;
};
template <class P> struct is_fp2<fp2<P>> {
    static constexpr bool value = true;
};

/* Phase timing for tuning (CUZK_GPU_MSM_PROFILE=1): CUDA events between the
 * pipeline stages, summed over batches, printed on stderr. Off by default:
 * no events are created. */
enum { PROF_SLOTS = 11 };
struct msm_prof {
    bool on;
    cudaEvent_t ev[PROF_SLOTS][64];
    unsigned cnt[PROF_SLOTS];
    void init()
    {
        on = getenv("CUZK_GPU_MSM_PROFILE") != NULL;
        for (int i = 0; i < PROF_SLOTS; i++) cnt[i] = 0;
    }
    void mark(cudaStream_t st, int slot)
    {
        if (!on || cnt[slot] >= 64) return;
        cudaEvent_t e;
        if (cudaEventCreate(&e) != cudaSuccess) return;
        cudaEventRecord(e, st);
        ev[slot][cnt[slot]++] = e;
    }
    float span(int a, int b, unsigned i)
    {
        float ms = 0;
        if (i < cnt[a] && i < cnt[b]) cudaEventElapsedTime(&ms, ev[a][i], ev[b][i]);
        return ms;
    }
    void destroy()
    {
        for (int s = 0; s < PROF_SLOTS; s++)
            for (unsigned i = 0; i < cnt[s]; i++) cudaEventDestroy(ev[s][i]);
        on = false;
    }
    /* slots: 6..7 classify+ones; per batch 0 sort start, 8 histogram done,
     * 9 scan done, 10 coarse pass done (two-pass placement), 1 placement done, 2 accumulate done, 3 fix-up done; 4..5
     * reduction. */
    void report(size_t n, size_t nsig, unsigned c)
    {
        if (!on) return;
        cudaEventSynchronize(ev[5][0]);
        float sort = 0, hist = 0, scan = 0, coarse = 0, acc = 0, fix = 0;
        for (unsigned i = 0; i < cnt[0]; i++) {
            sort += span(0, 1, i);
            hist += span(0, 8, i);
            scan += span(8, 9, i);
            coarse += span(9, 10, i);
            acc += span(1, 2, i);
            fix += span(2, 3, i);
        }
        fprintf(stderr,
                "msm-prof n=%zu sig=%zu c=%u batches=%u: classify+ones %.3f | sort %.3f (hist %.3f scan %.3f scatter %.3f "
                "[coarse %.3f]) | accumulate %.3f | fixup %.3f | reduce %.3f ms\n",
                n, nsig, c, cnt[0], span(6, 7, 0), sort, hist, scan, sort - hist - scan, coarse, acc, fix, span(4, 5, 0));
        destroy();
    }
    ~msm_prof()
    {
        if (on) destroy();
    }
};

} /* namespace */

#endif
