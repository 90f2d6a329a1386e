/* cuzk GPU prover: the device-memory plan of a Groth16 proof.
 *
 * Before the GPU prover allocates anything it computes, from the key's sizes,
 * the device and a budget, which buffers each phase of a proof holds on the
 * device and how big they are, and picks the best tier that fits. A proof
 * started under a plan therefore never runs out of device memory (as long as
 * nothing else takes the budgeted memory meanwhile). The plan is plain
 * arithmetic, compiled in every build: it needs no GPU when the budget is
 * given (`cuzk plan --gpu-mem SIZE`).
 *
 * What lives on the device:
 *  - the key, shared by the W workers of one GPU (they take the GPU's lock in
 *    turn for their device phases): the A and B coefficient records as CSR
 *    (abc is a sparse matrix-vector product on the device), the NTT twiddle
 *    tables, and five MSM handles (H, A, B1, C on G1, B2 on G2) with their
 *    workspaces. The coefficients and each MSM are RESIDENT (held as long
 *    as the key) or STREAMED: then held only during the phase(s) that use
 *    them, made at the phase start over the pinned host copy and uploaded in
 *    double-buffered chunks (an MSM handle in streamed mode, see the MSM
 *    "Memory plan" in gpu.h; it may keep a prefix on the device for the
 *    phase), so the five MSM workspaces are never live at once;
 *  - per proof ("job"): the witness (raw scalars: the SpMV input and the
 *    scalars of the A, B1, C, B2 MSMs; when the key drops the wires whose B
 *    points are at infinity, the kept B wires' scalars gathered beside it),
 *    and a, b, c over the domain; after
 *    the quotient only h (in a's buffer) stays; all of it is freed when the
 *    proof's device phases end;
 *  - per waiting worker, when the plan pre-stages: its next witness, uploaded
 *    on a copy stream while another worker's kernels run;
 *  - a fixed reserve for what the CUDA runtime takes beside the allocations
 *    (kernel modules and stacks loaded at first launch, allocation rounding).
 *
 * Tiers, best first (the first that fits the budget is chosen):
 *  key resident / streamed  x  witness pre-staged / uploaded at job start
 *  x  a, b, c as 3 vectors / as 2 (c = a.b is evaluated again from the
 *  coefficients after b's coset product, instead of being kept):
 *    1 resident, pre-staged, 3   2 resident, at start, 3   3 resident, at start, 2
 *    4 streamed, pre-staged, 3   5 streamed, at start, 3   6 streamed, at start, 2
 *    7 streamed, witness on the host, 1 vector at a time: a, b, c are
 *      evaluated by the CPU into pinned host memory (the coefficients never
 *      go to the device); each in turn is uploaded, taken to the odd coset
 *      and downloaded; the quotient is computed by the CPU; all five MSMs take
 *      host scalars (h, the witness), streamed in chunks by the MSM handles,
 *      whose staging buffers the plan then counts. Nothing of a proof is on
 *      the device outside the NTT phase but what the MSM handles hold; the
 *      GPU lock is taken per device phase, so one worker's CPU work overlaps
 *      another's kernels. For cards (8 GiB) where tier 6's witness and two
 *      vectors do not fit.
 * When the key is streamed, items are streamed in the order H (its MSM has
 * random scalars, so its upload hides behind its compute), coefficients, B2,
 * C, A, B1 until the rest fits; each streamed item gets what its phase
 * leaves of the budget (larger chunks, a prefix kept during the phase). */
#ifndef CUZK_GPU_PLAN_H_PUBLIC
#define CUZK_GPU_PLAN_H_PUBLIC

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sizes of a proving key that the plan depends on. */
typedef struct cuzk_gpu_key_shape {
    cuzk_curve curve;
    uint64_t n_vars;     /* wires, ONE included */
    uint64_t n_public;   /* public signals (ONE not counted) */
    unsigned log_domain; /* domain 2^log_domain */
    uint64_t n_coefs;    /* A and B coefficient records together */
    uint64_t n_b;        /* wires whose B1 / B2 bases are kept: those with a B point (the
                            others, at infinity, are dropped and their scalars never
                            gathered, src/groth16/b_density.h); 0: all n_vars (nothing
                            dropped, or not known: cuzk_gpu_key_shape_read reads headers
                            only, so its plan is an upper bound) */
} cuzk_gpu_key_shape;

/* Reads the shape from a .zkey's header sections (the coefficient and point
 * sections are size-checked, not read). Errors: CUZK_ERR_IO / _FORMAT with
 * the file named. */
CUZK_API cuzk_status cuzk_gpu_key_shape_read(const char *zkey_path, cuzk_gpu_key_shape *out, cuzk_error *err);

/* Key items (shared by the workers). */
typedef enum cuzk_gpu_plan_item_id {
    CUZK_GPU_ITEM_COEFS = 0, /* A, B coefficient records (CSR) */
    CUZK_GPU_ITEM_NTT,       /* NTT twiddle tables */
    CUZK_GPU_ITEM_MSM_H,
    CUZK_GPU_ITEM_MSM_A,
    CUZK_GPU_ITEM_MSM_B1,
    CUZK_GPU_ITEM_MSM_C,
    CUZK_GPU_ITEM_MSM_B2,
    CUZK_GPU_ITEM_B_INDEX,   /* the kept B wires' witness indices (n_b < n_vars; not in tier 7) */
    CUZK_GPU_ITEM_COUNT
} cuzk_gpu_plan_item_id;

/* Device phases of one proof. */
typedef enum cuzk_gpu_plan_phase {
    CUZK_GPU_PHASE_STAGE = 0, /* witness upload */
    CUZK_GPU_PHASE_ABC,       /* a, b, c = A.w, B.w, a.b */
    CUZK_GPU_PHASE_NTT,       /* three odd-coset NTTs and h = a.b - c */
    CUZK_GPU_PHASE_MSM_H,
    CUZK_GPU_PHASE_MSM_A,
    CUZK_GPU_PHASE_MSM_B1,
    CUZK_GPU_PHASE_MSM_C,
    CUZK_GPU_PHASE_MSM_B2,
    CUZK_GPU_PHASE_COUNT
} cuzk_gpu_plan_phase;

typedef struct cuzk_gpu_plan_item {
    size_t device_bytes;  /* device memory the item holds (bases/records + workspaces; in tier 7
                             the MSMs' host-scalar staging too; the coefficients: 0 in tier 7) */
    size_t data_bytes;    /* the item's data on the host (bases or records) */
    int streamed;         /* 0: held with the key; 1: held only in its phase(s), data streamed */
    size_t chunk;         /* streamed: points / records per uploaded chunk */
    size_t resident;      /* points / records kept on the device (all when resident) */
    size_t msm_budget;    /* MSM items: the device_budget to create the handle with (its plan
                             is then exactly this one); 0 for the others */
    unsigned precompute;  /* MSM items: shifted copies of the bases the handle holds (see
                             cuzk_gpu_msm_config.precompute; 1: none); 0 for the others */
} cuzk_gpu_plan_item;

typedef struct cuzk_gpu_plan_opts {
    /* Device memory the proofs may use, all workers together. 0: the free
     * memory of `device` minus a margin of max(512 MiB, 2 % of the device)
     * (cuzk_gpu_mem_info). With a device present a non-zero budget is capped
     * by that figure too. */
    size_t budget;
    int device;
    /* SM count the MSM workspaces are sized for; 0: the device's, or 132
     * (an H100/H200) when there is none. */
    int sm_count;
    unsigned workers;     /* workers sharing the device (0 = 2) */
    /* Nonzero: once the tier is chosen, and only when it keeps the key
     * resident, the H MSM (random scalars: the one that gains most) gets
     * precomputed copies of its bases from the device memory the tier
     * leaves, if the MSM cost model prefers them. They are made at attach
     * (seconds for 2^26 bases) and make every proof's H MSM a few % faster:
     * for keys that serve many proofs (the daemon, benchmarks). */
    int msm_copies;
} cuzk_gpu_plan_opts;

typedef struct cuzk_gpu_plan {
    cuzk_gpu_key_shape shape;
    size_t budget;         /* the budget planned for */
    size_t device_free, device_total; /* as queried (0 when not queried) */
    int sm_count;
    unsigned workers;
    unsigned tier;         /* 1..7, see the list above */
    int key_streamed;      /* some key item is streamed */
    int prestage;          /* waiting workers hold their next witness on the device */
    int host_witness;      /* tier 7: witness, a, b, c and the quotient on the host */
    unsigned abc_vectors;  /* domain vectors on the device at once: 3 or 2; 1 in tier 7 */
    cuzk_gpu_plan_item item[CUZK_GPU_ITEM_COUNT];
    size_t key_bytes;      /* the items held with the key (the resident ones) */
    size_t witness_bytes;  /* n_vars x 32 */
    size_t b_scalar_bytes; /* the kept B wires' scalars gathered from the witness, n_b x 32 when
                              wires are dropped (else 0): beside the witness on the device
                              (counted with it in job_bytes and others_bytes), or in tier 7
                              page-locked per worker (counted in host_pinned) */
    size_t host_pinned;    /* page-locked host memory per worker: the witness (packed for the
                              bus: its 2-bit codes and tile offsets too), and in tier 7 the
                              a, b, c vectors (the witness raw) */
    size_t vector_bytes;   /* one domain vector, 2^log_domain x 32 */
    size_t job_bytes[CUZK_GPU_PHASE_COUNT];   /* the running proof's own buffers per phase */
    size_t others_bytes;   /* the other workers' pre-staged witnesses ((W-1) x witness, or 0) */
    size_t runtime_bytes;  /* reserved for the CUDA runtime: kernel modules, kernel stacks, allocation rounding */
    size_t phase_bytes[CUZK_GPU_PHASE_COUNT]; /* runtime + key + streamed items of the phase + job + others */
    size_t peak;           /* max of phase_bytes: <= budget */
    size_t least_budget;   /* the least budget (bytes) any tier fits: a proof with this key needs
                              at least this much; budget - least_budget is the headroom (the
                              streamed items grow into whatever is given) */
    unsigned least_tier;   /* the tier chosen at least_budget: 7, or (small keys, where tier 7's
                              MSM host-scalar staging outweighs a witness and two vectors) a
                              key-streamed tier 4-6 */
} cuzk_gpu_plan;

/* Name of an item / phase ("coefs", "ntt", "msm_h", ...; "stage", "abc", ...). */
CUZK_API const char *cuzk_gpu_plan_item_name(cuzk_gpu_plan_item_id id);
CUZK_API const char *cuzk_gpu_plan_phase_name(cuzk_gpu_plan_phase p);

/* Computes the plan for a key of `shape` (opts may be NULL: defaults).
 * Touches the GPU only to query free memory / the SM count when opts leave
 * them 0. CUZK_ERR_USAGE for a bad shape, CUZK_ERR_NOMEM with a one-line
 * message saying the least budget that fits (least_budget) when nothing does,
 * CUZK_ERR_UNSUPPORTED / CUZK_ERR_GPU when a device had to be queried and
 * could not be. */
CUZK_API cuzk_status cuzk_gpu_plan_proof(const cuzk_gpu_key_shape *shape, const cuzk_gpu_plan_opts *opts,
                                cuzk_gpu_plan *out, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
