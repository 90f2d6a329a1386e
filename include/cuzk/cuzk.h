/* cuzk — Groth16 prover for BLS12-381 and BN254 (snarkjs/circom compatible).
 *
 * Public C API. The library is reentrant: there are no hidden globals; every
 * call takes its inputs explicitly and reports errors as values (cuzk_error),
 * never by aborting. */
#ifndef CUZK_CUZK_H
#define CUZK_CUZK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_VERSION_MAJOR 0
#define CUZK_VERSION_MINOR 1
#define CUZK_VERSION_PATCH 0
#define CUZK_VERSION_STRING "0.1.0"

/* Marks the functions of the public headers: the library is built with
 * hidden visibility, so these are the only symbols the shared library
 * exports (tests/CMakeLists.txt: exported_symbols checks it). */
#if defined(__GNUC__) || defined(__clang__)
#define CUZK_API __attribute__((visibility("default")))
#else
#define CUZK_API
#endif

/* Status codes. Also used as CLI exit codes (see docs/CLI.md). */
typedef enum cuzk_status {
    CUZK_OK = 0,
    CUZK_ERR_USAGE = 1,        /* bad arguments / API misuse */
    CUZK_ERR_IO = 2,           /* cannot open / read / write a file */
    CUZK_ERR_FORMAT = 3,       /* malformed input file */
    CUZK_ERR_MISMATCH = 4,     /* inputs disagree (curve, sizes, witness) */
    CUZK_ERR_INVALID_PROOF = 5,/* verification failed */
    CUZK_ERR_NOMEM = 6,        /* out of host memory */
    CUZK_ERR_UNSUPPORTED = 7,  /* valid input we do not support */
    CUZK_ERR_GPU = 8,          /* CUDA error */
    CUZK_ERR_CANCELLED = 9,    /* cancelled by the caller */
    CUZK_ERR_INTERNAL = 10     /* a bug: please report */
} cuzk_status;

#define CUZK_ERROR_MSG_MAX 512

/* An error as a value: a code and a one-line message naming the file and what
 * is wrong. Zero-initialise before use. */
typedef struct cuzk_error {
    cuzk_status code;
    char msg[CUZK_ERROR_MSG_MAX];
} cuzk_error;

typedef enum cuzk_curve {
    CUZK_CURVE_NONE = 0,
    CUZK_CURVE_BN254 = 1,      /* snarkjs "bn128" */
    CUZK_CURVE_BLS12_381 = 2   /* snarkjs "bls12381" */
} cuzk_curve;

/* "bn128" / "bls12381" — the names snarkjs writes into JSON files. */
CUZK_API const char *cuzk_curve_name(cuzk_curve c);
/* Accepts bn128/bn254/altbn128/bls12381/bls12-381 (case/punctuation-insensitive). */
CUZK_API cuzk_curve cuzk_curve_from_name(const char *name);

CUZK_API const char *cuzk_status_name(cuzk_status s);
CUZK_API const char *cuzk_version(void);


/* ---- Thread pool ---------------------------------------------------------
 * A pool of worker threads that contexts borrow (cuzk_ctx_opts.pool). One pool
 * may serve several contexts used at once from different threads: their
 * parallel loops take turns on the pool's workers (each loop runs whole on the
 * pool, the next one starts when it ends), so N provers sharing a T-thread pool
 * use T threads in all. */
typedef struct cuzk_pool cuzk_pool;

/* Starts a pool of `threads` threads, the calling thread of each parallel loop
 * included (<= 0: one per online CPU). Returns NULL when the threads cannot be
 * started or memory is short. */
CUZK_API cuzk_pool *cuzk_pool_create(int threads);
/* Stops and joins the workers. The pool must not be in use (no context that
 * borrows it may be running an operation). NULL is a no-op. */
CUZK_API void cuzk_pool_destroy(cuzk_pool *pool);
/* Degree of parallelism of the pool (1 for NULL). */
CUZK_API int cuzk_pool_size(const cuzk_pool *pool);

/* ---- Phases ----------------------------------------------------------------
 * The steps of an operation, reported to the progress and timing callbacks.
 * cuzk_phase_name() gives the name printed in CUZK_TIMING lines. */
typedef enum cuzk_phase {
    /* prove */
    CUZK_PHASE_LOAD_KEY = 0,   /* "load_zkey": read and check the .zkey */
    CUZK_PHASE_LOAD_WITNESS,   /* "load_wtns" */
    CUZK_PHASE_PREPARE,        /* "prepare": per-key plan of the A/B evaluation (once per key) */
    CUZK_PHASE_ABC,            /* "abc": a = A.w, b = B.w, c = a.b over the domain */
    CUZK_PHASE_NTT,            /* "ntt": a, b, c to the odd coset, h = a.b - c */
    CUZK_PHASE_MSM_H,          /* "msm_h" */
    CUZK_PHASE_MSM_A,          /* "msm_a" */
    CUZK_PHASE_MSM_B1,         /* "msm_b1" */
    CUZK_PHASE_MSM_C,          /* "msm_c" */
    CUZK_PHASE_MSM_B2,         /* "msm_b2" (G2) */
    CUZK_PHASE_ASSEMBLE,       /* "assemble": blinding with r, s */
    CUZK_PHASE_VERIFY,         /* "verify": pairing check of the new proof */
    CUZK_PHASE_WRITE,          /* "write": proof.json + public.json */
    /* verify */
    CUZK_PHASE_LOAD,           /* "load": verification key, public signals, proof */
    CUZK_PHASE_PAIRING,        /* "pairing" */
    /* setup (development keys) */
    CUZK_PHASE_SETUP_READ,     /* "setup_read" */
    CUZK_PHASE_SETUP_LAGRANGE, /* "setup_lagrange" */
    CUZK_PHASE_SETUP_QAP,      /* "setup_qap" */
    CUZK_PHASE_SETUP_SCALARS,  /* "setup_scalars" */
    CUZK_PHASE_SETUP_COEFS,    /* "setup_coefs" */
    CUZK_PHASE_SETUP_A,        /* "setup_a" */
    CUZK_PHASE_SETUP_B1,       /* "setup_b1" */
    CUZK_PHASE_SETUP_B2,       /* "setup_b2" */
    CUZK_PHASE_SETUP_IC_C,     /* "setup_ic_c" */
    CUZK_PHASE_SETUP_H,        /* "setup_h" */
    CUZK_PHASE_SETUP_WRITE,    /* "setup_write" */
    /* gen (synthetic circuits) */
    CUZK_PHASE_GEN_COUNT,      /* "gen_count" */
    CUZK_PHASE_GEN_WRITE,      /* "gen_write" */
    /* prove, bellperson mode (cuzk_bp_prove), per circuit before abc */
    CUZK_PHASE_PREP_SCALARS,   /* "prep_scalars": the CPU's scalars from Montgomery form to raw
                                  (checked below r) and its A and B selections; on the GPU the
                                  public inputs alone (its witness is packed at abc's upload) */
    CUZK_PHASE_COUNT           /* number of phases, not a phase */
} cuzk_phase;

/* The phase's name ("abc", "msm_h", ...): a static string; "unknown" for a
 * value outside the enum. */
CUZK_API const char *cuzk_phase_name(cuzk_phase phase);

/* ---- Context -------------------------------------------------------------
 * A context holds a thread pool (its own or a borrowed one) and the caller's
 * callbacks. Contexts are independent: several may be used at once in one
 * process, each by one thread at a time. */
typedef struct cuzk_ctx cuzk_ctx;

/* Progress of an operation: the running phase and the overall fraction in
 * [0,1]. Called from the thread that runs the operation. */
typedef void (*cuzk_progress_fn)(void *user, cuzk_phase phase, double fraction);
/* A finished phase and its wall time in seconds. */
typedef void (*cuzk_timing_fn)(void *user, cuzk_phase phase, double seconds);
/* Cancellation: return non-zero to stop. Polled at every phase boundary and
 * inside long phases (between NTTs, between MSM chunks, per setup block), from
 * the thread that runs the operation (so it may read an atomic flag that a
 * signal handler or another thread sets). The operation then fails with
 * CUZK_ERR_CANCELLED, frees what it allocated and writes nothing. */
typedef int (*cuzk_cancel_fn)(void *user);

/* A timed interval of work, for timelines (`--trace`): a finished host phase
 * (device < 0; it ran on the thread that called the operation, or on the
 * operation's worker thread `worker` when it runs several proofs at once:
 * cuzk_bp_prove on the GPU), device work on one stream of a GPU (device >=
 * 0, stream 0 or 1): an upload, the kernels of a phase, an MSM up to the
 * read-back of its sums; or (stream 2) a call the host made for a proof's
 * device work: "wait_slot", "wait_stage" (another job's pre-staging),
 * "stage_witness", "wait_gpu" (the GPU's lock),
 * "alloc", "free", "coefficients", "make_handle", "make_next_handle",
 * "destroy_handle", "wait_device", "sums" (an MSM's sums read back and
 * combined): what the host did while the device waited. Device intervals
 * are measured with CUDA events and converted to the host clock; they are
 * reported once they are complete, so they may come a phase late. Times are
 * seconds of CLOCK_MONOTONIC (clock_gettime), the clock callers read too. */
typedef struct cuzk_span {
    const char *name;  /* static string: the phase name ("abc", "msm_h", ...), "upload_witness", or a host call */
    cuzk_phase phase;  /* the phase it belongs to */
    int device;        /* -1: host; else the CUDA device */
    int worker;        /* device: the proof's worker slot on that device (0 .. gpu_workers - 1);
                          host: the operation's worker thread (0 .. W - 1; 0 when it has none) */
    int stream;        /* device: 0 the proof's compute stream, 1 its copy stream, 2 the host's calls */
    double start, end; /* seconds, CLOCK_MONOTONIC */
} cuzk_span;
typedef void (*cuzk_span_fn)(void *user, const cuzk_span *span);

typedef struct cuzk_ctx_opts {
    int threads;                 /* own pool of this many threads (<= 0: one per CPU); ignored with pool */
    cuzk_pool *pool;             /* borrowed pool (must outlive the context), or NULL */
    cuzk_progress_fn progress;   /* may be NULL */
    cuzk_timing_fn timing;       /* may be NULL */
    cuzk_cancel_fn cancelled;    /* may be NULL */
    void *user;                  /* passed to the callbacks */
    cuzk_span_fn span;           /* may be NULL; called from the thread that runs the operation */
} cuzk_ctx_opts;

/* Creates a context (opts may be NULL: defaults). CUZK_ERR_NOMEM when the
 * pool's threads cannot be started. */
CUZK_API cuzk_status cuzk_ctx_create(cuzk_ctx **out, const cuzk_ctx_opts *opts, cuzk_error *err);
/* Frees the context and its own pool (a borrowed pool is left alone). NULL is a no-op. */
CUZK_API void cuzk_ctx_free(cuzk_ctx *ctx);
/* Degree of parallelism of the context's pool. */
CUZK_API int cuzk_ctx_threads(const cuzk_ctx *ctx);

/* ---- Proving key -----------------------------------------------------------
 * A Groth16 proving key (.zkey) loaded, checked and prepared once for one
 * backend, then used for any number of proofs. Immutable after load: several
 * threads may prove with one key at once (each with its own context). */
typedef struct cuzk_key cuzk_key;

typedef enum cuzk_backend {
    CUZK_BACKEND_CPU = 0,  /* the multithreaded CPU prover */
    CUZK_BACKEND_GPU = 1,  /* a CUDA device; CUZK_ERR_UNSUPPORTED where there is no GPU backend */
    CUZK_BACKEND_AUTO = 2  /* the GPU when one is usable, else the CPU */
} cuzk_backend;

typedef struct cuzk_key_opts {
    cuzk_backend backend;    /* zero: CPU */
    int device;              /* CUDA device index (GPU / AUTO) */
    uint64_t device_budget;  /* device bytes the key and its proofs may use; 0: free memory minus a margin */
    int map_in_place;        /* use the file's mapping for the point sections and coefficient records
                                instead of a copy (faster load, no anonymous memory: the page cache
                                holds the key once, and the host plan counts none of it but what is
                                page-locked). A file truncated while the key is loaded does not end the
                                process: the library catches the SIGBUS of the mapping's lost pages
                                (its one process-wide handler, installed at the first mapped load;
                                other faults go to the handler before it), they read as zeros, and the
                                running and every later proof with the key fail with CUZK_ERR_IO naming
                                the file (load it again). A file rewritten in place at the same size
                                gives wrong points: proofs fail verification. Replacing it by a rename
                                is safe. 0: the key owns a copy read with pread. */
    unsigned gpu_workers;    /* GPU: proofs that may hold device memory at once (0: 2): one runs its
                                kernels, the others pre-stage their witness; more wait (cuzk plan --workers) */
    int gpu_msm_copies;      /* GPU, key resident: precomputed copies of the H MSM's bases in the device
                                memory the plan leaves (cuzk_gpu_plan_opts.msm_copies): seconds more at
                                load, every proof a few % faster; for keys that serve many proofs */
    uint64_t host_budget;    /* GPU: host bytes (anonymous + page-locked) the key and its proofs may use,
                                a cap on the available memory (cuzk_host_mem_budget() plus what the
                                loaded key holds already); 0: the available memory; UINT64_MAX: not
                                checked. The tier is the first whose device and host plans both fit;
                                gpu_workers is lowered when none fits them (cuzk_key_info.gpu_workers),
                                and nothing fitting one worker is CUZK_ERR_NOMEM before any allocation */
    int gpu_stage_bases;     /* GPU, key items streamed from the host: 1: their bases copied through
                                page-locked chunks at each proof; -1: page-locked whole at load; 0: the
                                plan's choice (cuzk_gpu_plan_opts.stage_bases) */
} cuzk_key_opts;

typedef struct cuzk_key_info {
    cuzk_curve curve;
    cuzk_backend backend;    /* the backend the key was prepared for (never AUTO) */
    uint32_t n_vars;         /* wires, ONE included */
    uint32_t n_public;       /* public signals, ONE not counted */
    uint32_t log_domain;     /* domain size 2^log_domain */
    uint64_t n_coefs;        /* A and B coefficients */
    uint64_t host_bytes;     /* host memory the key holds (file mappings included) */
    uint64_t device_bytes;   /* device memory it needs (0 on the CPU backend): the plan's peak */
    uint64_t device_peak;    /* GPU: the most device memory measured in use at once so far, by the key
                                and its proofs (free memory at load minus free memory after each
                                phase's allocations); 0 before the first proof and on the CPU */
    uint64_t host_plan;      /* GPU: the host plan's peak (cuzk_gpu_plan.host.peak), 0 on the CPU */
    unsigned gpu_workers;    /* GPU: workers planned (below cuzk_key_opts.gpu_workers when lowered to
                                fit the host or the device), 0 on the CPU */
    unsigned gpu_tier;       /* GPU: the plan's tier (1..7), 0 on the CPU */
} cuzk_key_info;

/* Loads a .zkey (opts may be NULL: CPU). The key holds its own copy, read
 * with pread: truncating or rewriting the file later cannot affect it, and
 * doing so during the load is an I/O or format error (opts.map_in_place
 * uses the file's mapping instead: see there). Reports the phases load_zkey and prepare on ctx.
 * Errors name the file: CUZK_ERR_IO, _FORMAT, _UNSUPPORTED (e.g. a domain as
 * large as the field's 2-adicity, or a backend that is not built), _NOMEM. */
CUZK_API cuzk_status cuzk_key_load(cuzk_key **out, cuzk_ctx *ctx, const char *zkey_path, const cuzk_key_opts *opts,
                                   cuzk_error *err);
/* The same from a caller's buffer (copied: it may be freed on return);
 * `name` stands for the file in messages. */
CUZK_API cuzk_status cuzk_key_load_buffer(cuzk_key **out, cuzk_ctx *ctx, const void *data, size_t size,
                                          const char *name, const cuzk_key_opts *opts, cuzk_error *err);
/* Frees the key (no proof may be running with it). NULL is a no-op. */
CUZK_API void cuzk_key_free(cuzk_key *key);
/* Sizes and memory of the key. */
CUZK_API void cuzk_key_get_info(const cuzk_key *key, cuzk_key_info *info);

/* ---- Witness ---------------------------------------------------------------- */
typedef struct cuzk_witness cuzk_witness;

/* Reads a .wtns file (every value checked < r). */
CUZK_API cuzk_status cuzk_witness_load(cuzk_witness **out, const char *wtns_path, cuzk_error *err);
/* The same from a caller's buffer (copied); `name` stands for the file in messages. */
CUZK_API cuzk_status cuzk_witness_load_buffer(cuzk_witness **out, const void *data, size_t size, const char *name,
                                              cuzk_error *err);
CUZK_API void cuzk_witness_free(cuzk_witness *w);
/* Number of values (wires, ONE included). */
CUZK_API uint32_t cuzk_witness_count(const cuzk_witness *w);
CUZK_API cuzk_curve cuzk_witness_curve(const cuzk_witness *w);

/* ---- Proving ---------------------------------------------------------------- */

/* Output styles of the JSON writers. SNARKJS: JSON.stringify(x, null, 1) with
 * "curve", no trailing newline. RAPIDSNARK: compact, keys sorted, no "curve". */
typedef enum cuzk_json_style { CUZK_JSON_SNARKJS = 0, CUZK_JSON_RAPIDSNARK = 1 } cuzk_json_style;

/* A zeroed struct is the safe default: verify, random r and s, snarkjs JSON. */
typedef struct cuzk_prove_opts {
    int no_verify;        /* skip the pairing check of the new proof (saves a few ms) */
    int rapidsnark_json;  /* cuzk_prove_files: write CUZK_JSON_RAPIDSNARK */
    int insecure_zero_rs; /* TEST ONLY: r = s = 0, deterministic, NOT zero-knowledge */
    /* TEST ONLY, NOT zero-knowledge: fixed r and s as raw scalars (n8r = 32
     * little-endian bytes each, < r), so that proofs of two backends can be
     * compared bit for bit. Both or neither. */
    const uint8_t *insecure_r, *insecure_s;
    int map_key_in_place; /* cuzk_prove_files: load the key with cuzk_key_opts.map_in_place (for a
                             one-shot process that handles SIGBUS itself, like the cuzk command) */
} cuzk_prove_opts;

/* A proof with its public signals. */
typedef struct cuzk_proof cuzk_proof;

/* Proves that w satisfies the circuit of key (opts may be NULL: defaults).
 * The witness must fit the key (CUZK_ERR_MISMATCH "Invalid witness length..."
 * or a curve mismatch, naming the witness). Unless opts->no_verify the proof
 * is checked before it is returned: a witness that does not satisfy the
 * circuit gives CUZK_ERR_MISMATCH naming the witness and the key. On success
 * *out is a new proof (cuzk_proof_free). */
CUZK_API cuzk_status cuzk_prove(cuzk_ctx *ctx, const cuzk_key *key, const cuzk_witness *w,
                                const cuzk_prove_opts *opts, cuzk_proof **out, cuzk_error *err);

CUZK_API void cuzk_proof_free(cuzk_proof *p);
CUZK_API cuzk_curve cuzk_proof_curve(const cuzk_proof *p);
/* proof.json text in `style` (exactly snarkjs's / rapidsnark's bytes) as a
 * malloc'd NUL-terminated string of *len bytes; release it with free(). */
CUZK_API cuzk_status cuzk_proof_to_json(const cuzk_proof *p, cuzk_json_style style, char **out, size_t *len,
                                        cuzk_error *err);
/* public.json text (the public signals w[1..n_public]), like cuzk_proof_to_json. */
CUZK_API cuzk_status cuzk_proof_public_json(const cuzk_proof *p, cuzk_json_style style, char **out, size_t *len,
                                            cuzk_error *err);
/* Binary encoding, into buf of cap bytes (*len = bytes written):
 *  - BLS12-381: 192 bytes, A || B || C compressed as zcash/bellman (and
 *    Filecoin) write them: big-endian x (G2: x.c1 then x.c0) with flag bits
 *    0x80 compressed, 0x40 infinity, 0x20 the larger y (lexicographic) in the
 *    first byte; 48 + 96 + 48.
 *  - BN254: 256 bytes, uncompressed big-endian 32-byte words in EVM
 *    (Solidity verifier calldata) order: A.x A.y, B.x.c1 B.x.c0 B.y.c1 B.y.c0,
 *    C.x C.y; infinity is all zeros.
 * CUZK_ERR_USAGE when cap is too small (*len then says how much is needed). */
CUZK_API cuzk_status cuzk_proof_to_bytes(const cuzk_proof *p, uint8_t *buf, size_t cap, size_t *len, cuzk_error *err);
/* Writes proof.json and public.json together: both appear or neither (an
 * existing file of either name is left as it was on failure). */
CUZK_API cuzk_status cuzk_proof_write_files(const cuzk_proof *p, const char *proof_path, const char *public_path,
                                            cuzk_json_style style, cuzk_error *err);

/* Loads the key and the witness, proves and writes proof.json and
 * public.json (opts->rapidsnark_json picks the style): cuzk_key_load +
 * cuzk_witness_load + cuzk_prove + cuzk_proof_write_files. On error nothing
 * is written. */
CUZK_API cuzk_status cuzk_prove_files(cuzk_ctx *ctx, const char *zkey_path, const char *wtns_path,
                                      const char *proof_path, const char *public_path,
                                      const cuzk_prove_opts *opts, cuzk_error *err);

/* Verify: CUZK_OK if valid, CUZK_ERR_INVALID_PROOF if the pairing check fails,
 * another code if an input is malformed. */
CUZK_API cuzk_status cuzk_verify_files(cuzk_ctx *ctx, const char *vk_path, const char *public_path,
                                       const char *proof_path, cuzk_error *err);

/* Export the verification key of a zkey (like `snarkjs zkey export verificationkey`). */
CUZK_API cuzk_status cuzk_export_vk_files(cuzk_ctx *ctx, const char *zkey_path, const char *vk_path,
                                          cuzk_error *err);

/* INSECURE setup and the synthetic circuit generator: include/cuzk/dev.h. */

#ifdef __cplusplus
}
#endif

#endif /* CUZK_CUZK_H */
