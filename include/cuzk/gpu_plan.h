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
 *  - bellperson mode (cuzk_gpu_key_shape.bellperson): no coefficients; a
 *    proof's a, b, c come from the caller's memory, staged through two
 *    page-locked chunks per worker (stage_bytes each, counted in
 *    host_pinned; tier 7 too, with one page-locked domain vector per
 *    worker for the cosets' product and h, the quotient on the device) and
 *    uploaded with the witness (pre-staged tiers: the waiting workers'
 *    a, b, c are counted on the device too); A's and B's scalars are
 *    selected from the witness on the device, by per-proof wire bitmaps
 *    uploaded beside it, into the buffer of h once its MSM is issued
 *    (tier 7: on the host, following the witness);
 *  - a fixed reserve for what the CUDA runtime takes beside the allocations
 *    (kernel modules and stacks loaded at first launch, allocation rounding).
 *
 * Tiers, best first (the first that fits the budget is chosen; named by
 * cuzk_gpu_tier, described by cuzk_gpu_tier_get):
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
 *      vectors do not fit. Bellperson mode: a, b, c are the caller's,
 *      staged in turn into the device vector; one page-locked domain
 *      vector per worker takes a's coset, then the cosets' product (read in
 *      place by the kernel), then h: the quotient is computed on the device.
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

/* The tiers of the list above, best first. The values are the numbers
 * `cuzk plan`, `cuzk bench prove` and the documentation print. */
typedef enum cuzk_gpu_tier {
    CUZK_GPU_TIER_RESIDENT_PRESTAGED = 1, /* key resident, witness pre-staged, a/b/c as 3 vectors */
    CUZK_GPU_TIER_RESIDENT = 2,           /* key resident, witness uploaded at job start, 3 vectors */
    CUZK_GPU_TIER_RESIDENT_2VEC = 3,      /* key resident, witness uploaded at job start, 2 vectors */
    CUZK_GPU_TIER_STREAMED_PRESTAGED = 4, /* key partly streamed, witness pre-staged, 3 vectors */
    CUZK_GPU_TIER_STREAMED = 5,           /* key partly streamed, witness uploaded at job start, 3 vectors */
    CUZK_GPU_TIER_STREAMED_2VEC = 6,      /* key partly streamed, witness uploaded at job start, 2 vectors */
    CUZK_GPU_TIER_HOST_WITNESS = 7,       /* key partly streamed, witness, a, b, c and the quotient on the host */
} cuzk_gpu_tier;
#define CUZK_GPU_TIER_FIRST CUZK_GPU_TIER_RESIDENT_PRESTAGED
#define CUZK_GPU_TIER_LAST CUZK_GPU_TIER_HOST_WITNESS

/* Bellperson mode, tiers 1-6: the most values (32 bytes each) of one of a
 * worker's two page-locked chunks through which a proof's a, b, c are
 * staged to the device: 128 MiB; a quarter of the domain when that is less
 * (every domain of 4 values or more is staged in 4 chunks or more). */
#define CUZK_GPU_BP_STAGE_VALUES ((size_t)1 << 22)

/* What a tier is: the one table of the tiers (src/groth16/gpu_plan.c), from
 * which the plan takes their shapes and `cuzk plan` its descriptions. */
typedef struct cuzk_gpu_tier_desc {
    cuzk_gpu_tier tier;
    const char *name;      /* "resident-prestaged", ..., "host-witness" */
    int key_streamed;      /* the key's items may be streamed */
    int prestage;          /* waiting workers hold their next witness on the device */
    int host_witness;      /* witness, a, b, c and the quotient on the host */
    unsigned abc_vectors;  /* domain vectors on the device at once: 3, 2, or 1 */
    const char *what;      /* one line: "key resident, witness pre-staged by waiting workers, ..." */
} cuzk_gpu_tier_desc;

/* The description of tier t (CUZK_GPU_TIER_FIRST..LAST), or NULL for any
 * other value. */
CUZK_API const cuzk_gpu_tier_desc *cuzk_gpu_tier_get(unsigned t);

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
                            only, so its plan is an upper bound); bellperson mode: the
                            exact count (0: no B point) */
    /* Bellperson mode (include/cuzk/bellperson.h): a proof's a, b, c come
     * from the host (no coefficients: n_coefs 0), H has 2^log_domain - 1
     * points, A has n_a points (the inputs and the aux variables with an A
     * point), C (bellperson's L) the aux variables; a proof's scalars are the
     * witness (inputs ++ aux), A's (when n_a < n_vars) and B's (when n_b <
     * n_vars) selected from it (gpu/g16/g16_shape.h). 0 for snarkjs keys. */
    int bellperson;
    uint64_t n_a;        /* bellperson mode: A points */
    /* The coefficient records are non-decreasing by constraint (as snarkjs
     * and cuzk write them), so the CPU's evaluation of a and b (the CPU
     * prover, tier 7) reads them in place instead of building a per-row CSR;
     * 0: not known (cuzk_gpu_key_shape_read reads headers only) or not
     * sorted, and the host plan counts the CSR. */
    int coefs_sorted;
} cuzk_gpu_key_shape;

/* Reads the shape from a .zkey's header sections (the coefficient and point
 * sections are size-checked, not read). Errors: CUZK_ERR_IO / _FORMAT with
 * the file named. */
CUZK_API cuzk_status cuzk_gpu_key_shape_read(const char *zkey_path, cuzk_gpu_key_shape *out, cuzk_error *err);

/* The shape of a bellperson `.params` file in bellperson mode (the header
 * and section counts; the points are not read). Errors: CUZK_ERR_IO /
 * _FORMAT with the file named. */
CUZK_API cuzk_status cuzk_bp_key_shape_read(const char *params_path, cuzk_gpu_key_shape *out, cuzk_error *err);

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
    int rows_held;        /* streamed coefficients: their row pointers stay on the device from
                             attach on (counted in key_bytes; device_bytes is then the chunk
                             buffers only), where the plan's peak leaves room for them */
    int prefetch_from;    /* streamed MSM items: the MSM phase (cuzk_gpu_plan_phase) at whose
                             start the item's handle is made and the bases it keeps start
                             crossing the bus, beside the phases before its own (which count
                             its device_bytes); 0: made at its own phase */
} cuzk_gpu_plan_item;

/* ---- Host memory plan ---------------------------------------------------
 * Beside the device plan, before anything is allocated: what the key and W
 * concurrent proofs hold in host memory, per phase. Counted are anonymous
 * memory and page-locked memory (neither can be reclaimed: together they are
 * what the out-of-memory killer sees); the pages of a key mapped from its file
 * are page cache (reclaimable, re-read when needed) and are counted only
 * where they are page-locked for DMA (the streamed MSM bases of the GPU
 * prover). Phases: LOAD (the key read: held in anonymous memory, or mapped),
 * ATTACH (the backend's key state being made: the B wires kept, the
 * coefficient CSR built, the page-locked buffers; its transients counted at
 * once; a held key's arrays the GPU prover no longer reads are freed there), then the proof phases with all W workers in that phase at once (an
 * upper bound): ABC (witness, a, b, c), NTT, MSM (witness, h, the CPU MSM's
 * workspace or, on the GPU, the CPU finish). */
typedef enum cuzk_host_plan_phase {
    CUZK_HOST_PHASE_LOAD = 0,
    CUZK_HOST_PHASE_ATTACH,
    CUZK_HOST_PHASE_ABC,
    CUZK_HOST_PHASE_NTT,
    CUZK_HOST_PHASE_MSM,
    CUZK_HOST_PHASE_COUNT
} cuzk_host_plan_phase;

typedef struct cuzk_host_plan {
    int gpu;              /* 1: the GPU prover's host side (device tier `tier`); 0: the CPU prover */
    int key_mapped;       /* the key's points and records used in its file mapping (0: a copy) */
    unsigned workers;     /* concurrent proofs planned for */
    size_t budget;        /* host bytes the plan had to fit (SIZE_MAX: not checked) */
    size_t available;     /* of which measured available now (MemAvailable, cgroup; 0 when given) */
    size_t runtime;       /* the process beside the plan: code, libraries, thread stacks, the CUDA
                             driver's own host memory (GPU) */
    size_t key_data;      /* the key's points and coefficient records */
    size_t key_anon;      /* of which in anonymous memory (all of it when copied; 0 when mapped) */
    size_t key_locked;    /* mapped key pages page-locked for DMA (GPU: streamed MSM bases, unless
                             staged) */
    size_t bases_stage;   /* GPU, streamed MSM bases staged (cuzk_gpu_plan.bases_staged): the key's
                             two page-locked chunks every streamed MSM handle copies them through */
    size_t key_upload_locked; /* GPU, mapped key: the largest resident MSM item's bases, page-locked
                                 while they are uploaded at attach */
    size_t key_freed_early; /* GPU, held key: the original B bases freed once the kept B wires are
                               copied, before the device key is made (the GPU asked for explicitly) */
    size_t key_freed;     /* GPU, held key: all the arrays freed once the device key is made (those
                             early, the bases of resident MSM items, the coefficient records but in
                             tier 7): the key holds key_anon - key_freed while it proves */
    size_t b_bases;       /* GPU: the kept B wires' B1 / B2 bases (a copy) and index, at attach */
    size_t b_held;        /* of which held after attach (while a B item is streamed; the index) */
    size_t csr_build;     /* attach transients: the coefficient CSR built on the host (resident
                             coefficients: freed once uploaded), the counting sort's cursors */
    size_t csr_held;      /* held: the streamed coefficients' page-locked CSR (GPU tiers 4-6), or
                             the CPU's A/B evaluation plan (CPU prover, GPU tier 7: its chunk
                             tables alone when the records are sorted, coefs_sorted) */
    size_t tables;        /* CPU prover: the NTT domain's twiddles */
    size_t pinned;        /* per worker: page-locked buffers (cuzk_gpu_plan.host_pinned) */
    size_t witness;       /* per worker: the proof's witness (n_vars x 32) */
    size_t vectors;       /* per worker: a, b, c on the host (CPU prover: 3 domain vectors;
                             GPU tier 7: in `pinned`; bellperson mode: the caller's) */
    size_t scratch;       /* per worker: the CPU MSM's index lists and bucket arrays (CPU prover),
                             or the host finish of a GPU proof */
    size_t phase_bytes[CUZK_HOST_PHASE_COUNT]; /* anonymous + page-locked bytes per phase */
    size_t peak;          /* max of phase_bytes */
    size_t file_bytes;    /* file-backed pages a mapped key can occupy (reclaimable unless locked) */
} cuzk_host_plan;

/* Name of a host phase ("load", "attach", "abc", "ntt", "msm"). */
CUZK_API const char *cuzk_host_plan_phase_name(cuzk_host_plan_phase p);

/* Host memory available to a new allocation: MemAvailable, or the cgroup's
 * memory.max minus memory.current when that is lower (Linux; elsewhere the
 * physical memory), less a margin of max(1 GiB, 2 % of the physical memory). */
CUZK_API size_t cuzk_host_mem_budget(void);

/* Options of the host side of a plan (the GPU plan's host_* fields and the
 * CPU plan's). */
typedef struct cuzk_host_plan_opts {
    /* Host bytes (anonymous + page-locked) the key and its proofs may use. 0:
     * available = cuzk_host_mem_budget() + held; nonzero: at most that (a cap, as
     * `--host-mem`). SIZE_MAX: not checked. */
    size_t budget;
    size_t available;     /* tests: taken as the available memory instead of measuring it (0: measure) */
    size_t held;          /* bytes of the plan already allocated by the caller (a key read into
                             memory): added to the measured available memory */
    int key_mapped;       /* the key is (to be) used in its file mapping */
    unsigned threads;     /* CPU threads (the CPU MSM's bucket arrays); 0: the online CPUs */
} cuzk_host_plan_opts;

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
    /* The host side: the tier chosen is the first whose device AND host
     * peaks fit (host.budget = SIZE_MAX: device only). When no tier fits W
     * workers, W is lowered until one does (`workers_asked` keeps the
     * request) unless fixed_workers; nothing fits one worker: NOMEM. */
    cuzk_host_plan_opts host;
    int fixed_workers;
    /* Streamed MSM items' host bases: 1: staged, each MSM copying them
     * through two page-locked chunks (host threads fill one while the other
     * crosses the bus); -1: page-locked whole for the key's life (DMA
     * straight from the pages; the lock takes seconds at attach and the
     * memory stays unreclaimable); 0: automatic: locked, unless the key is
     * used in its file mapping (host.key_mapped) and the host plan with
     * them locked does not fit the host budget, where staging keeps the
     * tier and the workers (a held key's pages are counted already). */
    int stage_bases;
} cuzk_gpu_plan_opts;

typedef struct cuzk_gpu_plan {
    cuzk_gpu_key_shape shape;
    size_t budget;         /* the budget planned for */
    size_t device_free, device_total; /* as queried (0 when not queried) */
    int sm_count;
    unsigned workers;
    unsigned tier;         /* a cuzk_gpu_tier, 1..7, see the list above */
    int key_streamed;      /* some key item is streamed */
    int prestage;          /* waiting workers hold their next witness on the device */
    int host_witness;      /* tier 7: witness, a, b, c and the quotient on the host (bellperson
                              mode: a, b, c the caller's, staged; the quotient on the device) */
    unsigned abc_vectors;  /* domain vectors on the device at once: 3 or 2; 1 in tier 7 */
    int bases_staged;      /* streamed MSM items copy their host bases through page-locked chunks
                              instead of page-locking them (cuzk_gpu_plan_opts.stage_bases) */
    cuzk_gpu_plan_item item[CUZK_GPU_ITEM_COUNT];
    size_t key_bytes;      /* the items held with the key (the resident ones) */
    size_t witness_bytes;  /* n_vars x 32; bellperson mode: tiers 1-6 with the bitmaps and offsets
                              of A's and B's selections (made on the device from the witness into
                              the buffer of h), tier 7 with the selections (made on the host) */
    size_t b_scalar_bytes; /* the kept B wires' scalars gathered from the witness, n_b x 32 when
                              wires are dropped (else 0): beside the witness on the device
                              (counted with it in job_bytes and others_bytes), or in tier 7
                              page-locked per worker (counted in host_pinned) */
    size_t host_pinned;    /* page-locked host memory per worker: the witness (packed for the
                              bus: its 2-bit codes and tile offsets too), and in tier 7 the
                              a, b, c vectors (the witness raw; bellperson mode: one vector);
                              bellperson mode: the two a, b, c staging chunks too
                              (2 x stage_bytes) */
    size_t vector_bytes;   /* one domain vector, 2^log_domain x 32 */
    size_t stage_bytes;    /* bellperson mode, every tier: one of a worker's two page-locked
                              chunks that stage a, b, c, min(2^log_domain / 4 (2^log_domain
                              below 4), CUZK_GPU_BP_STAGE_VALUES) x 32; 0 otherwise */
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
    unsigned workers_asked; /* the workers requested; > workers when lowered to fit */
    unsigned host_skipped; /* tiers that fit the device but not the host (their count) */
    cuzk_host_plan host;   /* the host plan of the chosen tier and worker count */
} cuzk_gpu_plan;

/* Name of an item / phase ("coefs", "ntt", "msm_h", ...; "stage", "abc", ...). */
CUZK_API const char *cuzk_gpu_plan_item_name(cuzk_gpu_plan_item_id id);
CUZK_API const char *cuzk_gpu_plan_phase_name(cuzk_gpu_plan_phase p);

/* The host plan of the CPU prover for a key of `shape` and `workers`
 * concurrent proofs (0 = 1), and whether it fits: CUZK_ERR_NOMEM with a
 * one-line message saying what is needed and what is available when the
 * peak exceeds the budget (out is filled either way). With key_mapped < 0
 * the key is planned held when that fits, else mapped (out->key_mapped). */
CUZK_API cuzk_status cuzk_host_plan_cpu(const cuzk_gpu_key_shape *shape, unsigned workers,
                                        const cuzk_host_plan_opts *opts, cuzk_host_plan *out, cuzk_error *err);

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
