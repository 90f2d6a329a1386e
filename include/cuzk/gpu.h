/* cuzk GPU kernels: plain C API over the CUDA NTT and MSM.
 *
 * Built with CUDA: the real kernels. Built without CUDA: every function
 * exists, cuzk_gpu_device_count() returns 0 and the others return
 * CUZK_ERR_UNSUPPORTED ("built without CUDA").
 *
 * Representation is the CPU one (docs/ARCHITECTURE.md): field elements are
 * little-endian 64-bit limbs in Montgomery form (R = 2^(64*N)), affine points
 * {x, y} with (0,0) = infinity, Jacobian results {X, Y, Z}; scalars are raw
 * (standard form) 4 x u64, which must be canonical (< r). Buffers can be
 * copied bit-for-bit between the CPU types and the GPU.
 *
 * Handles are not thread-safe: one call at a time per handle (different
 * handles may run concurrently, also on the same device). No global state:
 * the library never changes the caller's current device (it restores it) and
 * never touches the device's memory pool settings. */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 without CUDA, driver or device. */
CUZK_API int cuzk_gpu_device_count(void);

/* 1 when this libcuzk has the GPU Groth16 prover (a CUDA build), else 0.
 * Says nothing about devices: cuzk_gpu_device_count() counts those. */
CUZK_API int cuzk_gpu_prover_built(void);

/* Name, memory and SM count of a device. */
CUZK_API cuzk_status cuzk_gpu_device_info(int device, char *name, size_t name_cap, size_t *total_mem,
                                          int *sm_count, cuzk_error *e);

/* ---- NTT over Fr --------------------------------------------------------
 * Size n = 2^lg, in place on a device buffer of n Montgomery Fr elements
 * (16-byte aligned), natural order in and out unless the op says otherwise
 * (_NR, _RN), the snarkjs roots
 * w[k] = 5^((r-1)/2^k) (cuzk_gpu_ntt_create_gen: those of another
 * generator): the result is bit-exact with the CPU NTT.
 * Let w = w[lg] and g = w[lg+1] (the Groth16 / snarkjs coset shift).
 *   FORWARD:        X[k] = sum_i x[i] w^(ik)
 *   INVERSE:        x[i] = n^-1 sum_k X[k] w^(-ik)
 *   COSET_FORWARD:  X[k] = sum_i x[i] g^i w^(ik)   (evaluations on g<w>)
 *   COSET_INVERSE:  inverse of COSET_FORWARD
 *   ODD_COSET:      INVERSE then COSET_FORWARD, fused (the Groth16 step that
 *                   turns evaluations on <w> into evaluations on g<w>); it
 *                   needs no bit-reversal pass.
 *   FORWARD_NR:     FORWARD without the bit-reversal permutation: natural
 *                   order in, bit-reversed order out (element k of the
 *                   result is X[rev(k)], rev = lg-bit reversal).
 *   INVERSE_RN:     INVERSE without the permutation: bit-reversed order in
 *                   (element k holds X[rev(k)]), natural order out, so
 *                   INVERSE_RN(FORWARD_NR(x)) = x. Pointwise work between
 *                   the two needs no permutation at all.
 * Coset operations need lg + 1 <= 2-adicity of r (lg <= 27 on BN254).
 * The work is queued on `stream` (a cudaStream_t; NULL = legacy default
 * stream) and the call returns without waiting; launch errors are reported,
 * execution errors surface at the caller's next synchronisation. */
typedef enum cuzk_gpu_ntt_op {
    CUZK_GPU_NTT_FORWARD = 0,
    CUZK_GPU_NTT_INVERSE = 1,
    CUZK_GPU_NTT_COSET_FORWARD = 2,
    CUZK_GPU_NTT_COSET_INVERSE = 3,
    CUZK_GPU_NTT_ODD_COSET = 4,
    CUZK_GPU_NTT_FORWARD_NR = 5,
    CUZK_GPU_NTT_INVERSE_RN = 6
} cuzk_gpu_ntt_op;

typedef struct cuzk_gpu_ntt cuzk_gpu_ntt;

/* Device memory the NTT tables need for sizes up to 2^max_lg (the data
 * buffer itself, n * 32 bytes, is the caller's); computed on the host, in
 * every build. 0 for an unknown curve or max_lg > 28. */
CUZK_API size_t cuzk_gpu_ntt_device_bytes(cuzk_curve curve, unsigned max_lg);
/* Builds the twiddle tables on `device` for sizes 2^0 .. 2^max_lg (<= 28). */
CUZK_API cuzk_status cuzk_gpu_ntt_create(cuzk_gpu_ntt **out, cuzk_curve curve, unsigned max_lg, int device,
                                         cuzk_error *e);
/* As cuzk_gpu_ntt_create, with the roots of unity w_k = g^((r-1)/2^k) of
 * another non-square g of the scalar field: cuzk_gpu_ntt_create uses 5
 * (snarkjs's roots); bellperson's BLS12-381 domains use 7, so its
 * evaluation j is at index j of these transforms. CUZK_ERR_USAGE when g is
 * a square (its powers are not primitive roots). */
CUZK_API cuzk_status cuzk_gpu_ntt_create_gen(cuzk_gpu_ntt **out, cuzk_curve curve, unsigned max_lg,
                                             uint64_t generator, int device, cuzk_error *e);
CUZK_API void cuzk_gpu_ntt_destroy(cuzk_gpu_ntt *t);
CUZK_API cuzk_status cuzk_gpu_ntt_run(cuzk_gpu_ntt *t, void *d_data, unsigned lg, cuzk_gpu_ntt_op op,
                                      void *stream, cuzk_error *e);

/* ---- MSM ----------------------------------------------------------------
 * sum_i k_i * P_i with the bases uploaded once and kept resident in the
 * handle. Pippenger with signed digits, bucket sort by counting sort, XYZZ
 * bucket accumulation, GPU bucket reduction. With split_ones (default) zero
 * scalars are skipped and scalars equal to 1 are summed by a batch addition,
 * so only the remaining ("significant") scalars go through Pippenger, and the
 * window size is chosen for their count. */
typedef enum cuzk_gpu_group { CUZK_GPU_G1 = 1, CUZK_GPU_G2 = 2 } cuzk_gpu_group;

/* Placement path of the bucket sort. Every path gives the same result; the
 * automatic choice is the fast one, the others exist so tests can check each
 * path against the CPU. */
typedef enum cuzk_gpu_msm_sort {
    CUZK_GPU_MSM_SORT_AUTO = 0,     /* WINDOW when at least half the scalars are significant, else SCATTER */
    CUZK_GPU_MSM_SORT_WINDOW = 1,   /* window-major coarse bins, then a shared-memory pass per bin */
    CUZK_GPU_MSM_SORT_SCATTER = 2,  /* one pass with global cursors */
    CUZK_GPU_MSM_SORT_OVERFLOW = 3  /* WINDOW with every bin through its overflow pass */
} cuzk_gpu_msm_sort;

typedef struct cuzk_gpu_msm_config {
    unsigned window_bits;  /* 0 = automatic; else fixed c in [4, 22] */
    size_t batch_points;   /* points per sort batch; 0 = automatic (2^24) */
    int no_split_ones;     /* nonzero: no 0/1 special path (for testing) */
    /* Device memory the handle may use, create + run together (bytes).
     * 0 = the free memory cudaMemGetInfo reports at create minus a safety
     * margin of max(256 MiB, 2 % of the device). See "Memory plan". */
    size_t device_budget;
    /* Streamed handles with host bases: nonzero page-locks the caller's
     * bases (cudaHostRegister) for the handle's lifetime, so the chunk
     * uploads are DMA straight from them; zero: the handle allocates two
     * page-locked chunks (at most 2^22 bases each) and stages every upload
     * through them (host threads copy one chunk while the other crosses the
     * bus, ahead of the run and without blocking the caller), so the
     * caller's pages stay pageable and reclaimable (a mapped file's); or
     * uses `stager`'s. */
    int pin_host_bases;
    /* Precomputed bases: t shifted copies of the bases (t x their memory; copy j
     * is 2^(j c Wg) P, made on the device at create) so a run accumulates and
     * reduces only Wg = ceil(W/t) bucket sets; the window c is fixed at
     * create (a run with few significant scalars, for which that costs more,
     * does without the copies). t >= 2: that many (clamped to the window
     * count; NOMEM when they do not fit the budget). 1: none. 0 (default):
     * automatic: the most copies whose resident plan fits the budget, if
     * the cost model prefers them (on the H200: G1 BLS12-381 at every size,
     * G1 BN254 up to 2^21, G2 at every size); none with no limit (budget SIZE_MAX in
     * cuzk_gpu_msm_plan_make, cuzk_gpu_msm_device_bytes without a
     * device_budget), so those give the least resident figure. Making the
     * copies costs about (bits + c) doublings per base: seconds for 2^26
     * bases, once per handle. */
    unsigned precompute;
    cuzk_gpu_msm_sort sort; /* bucket-sort path (0: automatic) */
    /* Nonzero: the caller's bases are in bellperson's `.params` encoding
     * (uncompressed zcash: big-endian standard-form coordinates, G2's c1
     * first, the infinity flag 0x40 in the first byte; BLS12-381, the same
     * sizes as the affine form), e.g. a mapped file's section: every range
     * is converted on the device right after its upload (resident bases at
     * create, streamed chunks per run). Host-side callers must not pass
     * bases already on the device. */
    int bases_be;
    /* Nonzero, for a handle made for one run over host bases (the prover's
     * per-phase handles): the bases are uploaded by the first run, chunk by
     * chunk (batch_points) on the handle's copy stream beside that run's
     * computation, all of them kept when they fit the budget, instead of
     * all at create before the run (a 2^27 G1 set: 12.9 GB, 0.24 s at the
     * bus's rate with the GPU idle). The plan is then a streamed one
     * (cuzk_gpu_msm_plan: streamed 1, resident_points up to every point);
     * no effect with precomputed copies or bases on the device. */
    int upload_in_run;
    /* Staged uploads (pin_host_bases 0): the caller's stager, shared by
     * the handles made with it (NULL: the handle makes its own at create,
     * two page-locked chunks: for a handle made per proof, a page-locking
     * of hundreds of MiB at every proof). */
    struct cuzk_gpu_msm_stager *stager;
} cuzk_gpu_msm_config;

typedef struct cuzk_gpu_msm cuzk_gpu_msm;

/* Two page-locked host chunks of chunk_bytes and a fill stream through
 * which streamed handles stage their uploads of host bases (pin_host_bases
 * 0): 8 host threads copy into one chunk (a host function on the fill
 * stream, ordered after that chunk's last copy to the device) while the
 * other chunk's DMA runs on the uploading handle's copy stream. Handles
 * sharing one stager take its chunks in the order they queue uploads (a
 * mutex orders concurrent callers): a handle's run depends only on its own
 * uploads, so a later handle's queued copies never hold up an earlier one,
 * but they start only once the earlier ones are done (a prefetch queued
 * beside a run waits for the run's copies). Bases of a mapped file that
 * are not in the page cache are read from the disk by the fills. Destroy
 * after every handle using it. */
typedef struct cuzk_gpu_msm_stager cuzk_gpu_msm_stager;
CUZK_API cuzk_status cuzk_gpu_msm_stager_create(cuzk_gpu_msm_stager **out, size_t chunk_bytes, int device,
                                                cuzk_error *e);
CUZK_API void cuzk_gpu_msm_stager_destroy(cuzk_gpu_msm_stager *s);

/* Memory plan. A handle is RESIDENT when bases + workspaces (+ the n * 32
 * byte staging of host scalars) fit the budget: the bases are copied to the
 * device once, with as many precomputed copies as the budget holds (see
 * precompute). Otherwise it is STREAMED: a prefix of the bases
 * (resident_points, possibly 0) stays on the device and the rest is
 * uploaded per run in chunks of chunk_points (= one sort batch) into two
 * device buffers on a second stream, ordered by events, so chunk k+1 is
 * uploaded while chunk k is sorted and accumulated into the persistent
 * buckets. Host scalars go through two chunk-sized device buffers the same
 * way (no n * 32 staging; pinned host scalars make those uploads
 * asynchronous). The chunk is the largest of batch_points (or
 * 2^24), halved, whose chunk buffers take at most half of what the fixed
 * workspaces (buckets, reduction) leave of the budget; the rest holds the
 * resident prefix (whole chunks). create fails with
 * CUZK_ERR_NOMEM only when even chunks of 1024 points with no resident base
 * do not fit. A streamed handle keeps the caller's `bases` pointer: the
 * bases must stay valid and unchanged until destroy. Results are the same
 * group elements as a resident handle's; a streamed run chooses the window
 * from n (a resident one from the count of scalars other than 0 and 1). */
typedef struct cuzk_gpu_msm_plan {
    int streamed;            /* 0: all bases resident; 1: streamed */
    size_t chunk_points;     /* points per sort batch / uploaded chunk */
    size_t resident_points;  /* bases kept on the device (npoints when resident) */
    size_t device_bytes;     /* device memory of create + run, exactly */
    size_t budget;           /* the budget the plan was made for */
    unsigned precompute;     /* copies of the bases held (1: none; see cuzk_gpu_msm_config) */
} cuzk_gpu_msm_plan;

/* The plan cuzk_gpu_msm_create makes, computed on the host without a device
 * (every build, also without CUDA): for a GPU with sm_count SMs
 * (cuzk_gpu_device_info reports it; the ones-sum workspace scales with it)
 * and a device budget of `budget` bytes (SIZE_MAX: no limit, the resident
 * plan). cfg may be NULL (defaults); its device_budget is not read here.
 * CUZK_ERR_NOMEM when nothing fits the budget, CUZK_ERR_USAGE for a bad
 * curve, group, size, SM count or window, CUZK_ERR_UNSUPPORTED past 2^31-1
 * points (precomputed copies included). On error *out is zeroed. */
CUZK_API cuzk_status cuzk_gpu_msm_plan_make(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                            const cuzk_gpu_msm_config *cfg, int sm_count, size_t budget,
                                            cuzk_gpu_msm_plan *out, cuzk_error *e);

/* Device memory of a handle for npoints bases (bases + all workspaces,
 * including the staging of host scalars) on a GPU with sm_count SMs: the
 * device_bytes of cuzk_gpu_msm_plan_make with budget = cfg->device_budget
 * (0 or cfg NULL: no limit, the resident figure). 0 when the arguments are
 * bad or nothing fits. */
CUZK_API size_t cuzk_gpu_msm_device_bytes(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                          const cuzk_gpu_msm_config *cfg, int sm_count);

/* The plan create would make on `device` now: its SM count, and the free
 * memory minus the margin when cfg->device_budget is 0. CUZK_ERR_NOMEM
 * when nothing fits; CUZK_ERR_UNSUPPORTED without CUDA. */
CUZK_API cuzk_status cuzk_gpu_msm_plan_for(cuzk_curve curve, cuzk_gpu_group group, size_t npoints,
                                           const cuzk_gpu_msm_config *cfg, int device, cuzk_gpu_msm_plan *out,
                                           cuzk_error *e);
/* The plan of a handle. */
CUZK_API void cuzk_gpu_msm_get_plan(const cuzk_gpu_msm *m, cuzk_gpu_msm_plan *out);

/* bases: npoints affine points of the curve's G1/G2 affine type (e.g.
 * bls12_381_g1_affine_t), in host memory (bases_on_device = 0) or device
 * memory (copied when resident; streamed handles read them at every run,
 * see the memory plan). */
CUZK_API cuzk_status cuzk_gpu_msm_create(cuzk_gpu_msm **out, cuzk_curve curve, cuzk_gpu_group group,
                                         const void *bases, size_t npoints, int bases_on_device, int device,
                                         const cuzk_gpu_msm_config *cfg, cuzk_error *e);
CUZK_API void cuzk_gpu_msm_destroy(cuzk_gpu_msm *m);

/* result: one Jacobian point of the curve/group's jac type (e.g.
 * bls12_381_g1_jac_t). scalars: n <= npoints raw 4 x u64 scalars (< r), in
 * host memory (pinned is fastest) or device memory (scalars_on_device != 0);
 * they pair with bases[0 .. n). Runs on `stream` and waits for it before
 * returning (the result is on the host). */
CUZK_API cuzk_status cuzk_gpu_msm_run(cuzk_gpu_msm *m, void *result, const uint64_t *scalars, size_t n,
                                      int scalars_on_device, void *stream, cuzk_error *e);

/* count MSMs against the same bases: results[i] (count consecutive jac
 * points) = sum_j scalars[i][j] * P_j, j < n[i]. The window sums of MSM i
 * are read back into a pinned double buffer (an event marks them) and
 * combined on the host while the GPU already runs MSM i+1, so the GPU does
 * not wait for the host between them. Results are the same points as
 * count run() calls. Waits for `stream` before returning. */
CUZK_API cuzk_status cuzk_gpu_msm_run_many(cuzk_gpu_msm *m, void *results, const uint64_t *const *scalars,
                                           const size_t *n, size_t count, int scalars_on_device, void *stream,
                                           cuzk_error *e);

/* Queues now, on the handle's copy stream, the upload of the bases the
 * handle keeps on the device that its first run would otherwise upload
 * beside its computation (a handle made with upload_in_run over host
 * bases), and returns without waiting: the next run's computation waits for
 * it. The prover calls it for the next phase's handle while the phases
 * before run (when its memory plan has room for both), so the bus carries
 * those bases while the GPU computes. Nothing to do (CUZK_OK) when no
 * upload is pending. */
CUZK_API cuzk_status cuzk_gpu_msm_prefetch(cuzk_gpu_msm *m, cuzk_error *e);

/* Window size the last run used (for benchmarks), 0 before any run. */
CUZK_API unsigned cuzk_gpu_msm_last_window(const cuzk_gpu_msm *m);

/* ---- Fixed-base batch multiplication -------------------------------------
 * out[i] = scalars[i] * base for one base point and many raw scalars (< r):
 * the point sections of development keys (cuzk setup --gpu, the in-memory
 * PoRep-shaped key of include/cuzk/dev.h). create builds the base's table of
 * signed 16-bit windows on `device` (48 MiB for BLS12-381 G1, twice that for
 * G2); run takes host scalars and writes host affine points (x = y = 0 for a
 * zero scalar), the same bytes as the CPU's fixed-base multiplication, in
 * chunks that fit a quarter of the device's free memory; it returns when
 * every point is in `out`. Two points of every chunk are computed again on
 * the host: a difference fails the run (CUZK_ERR_GPU), so a device fault
 * cannot make a wrong key silently. Both groups of both curves. */
typedef struct cuzk_gpu_fixed cuzk_gpu_fixed;
CUZK_API cuzk_status cuzk_gpu_fixed_create(cuzk_gpu_fixed **out, cuzk_curve curve, cuzk_gpu_group group,
                                           const void *base, int device, cuzk_error *e);
CUZK_API cuzk_status cuzk_gpu_fixed_run(cuzk_gpu_fixed *f, const void *scalars, size_t n, void *out,
                                        cuzk_error *e);
CUZK_API void cuzk_gpu_fixed_destroy(cuzk_gpu_fixed *f);

/* ---- host memory (device memory, copies and streams are the CUDA runtime's) */
/* Pinned host memory (fast, asynchronous uploads). */
CUZK_API cuzk_status cuzk_gpu_host_alloc(void **p, size_t bytes, cuzk_error *e);
CUZK_API void cuzk_gpu_host_free(void *p);
/* Free and total device memory (cudaMemGetInfo) of `device`. */
CUZK_API cuzk_status cuzk_gpu_mem_info(int device, size_t *free_bytes, size_t *total_bytes, cuzk_error *e);

#ifdef __cplusplus
}
#endif

#endif
