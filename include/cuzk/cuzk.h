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
const char *cuzk_curve_name(cuzk_curve c);
/* Accepts bn128/bn254/altbn128/bls12381/bls12-381 (case/punctuation-insensitive). */
cuzk_curve cuzk_curve_from_name(const char *name);

const char *cuzk_status_name(cuzk_status s);
const char *cuzk_version(void);


/* ---- Context -------------------------------------------------------------
 * A context owns a thread pool and the caller's callbacks. Contexts are
 * independent: several may be used at once in one process. One context may be
 * used by one thread at a time. */
typedef struct cuzk_ctx cuzk_ctx;

/* Progress of a long phase: fraction in [0,1]. Called from the thread that
 * runs the operation. */
typedef void (*cuzk_progress_fn)(void *user, const char *phase, double fraction);
/* A finished phase and its wall time in seconds (structured timing lines). */
typedef void (*cuzk_timing_fn)(void *user, const char *phase, double seconds);

typedef struct cuzk_ctx_opts {
    int threads;                 /* <= 0: one per online CPU */
    cuzk_progress_fn progress;   /* may be NULL */
    cuzk_timing_fn timing;       /* may be NULL */
    void *user;                  /* passed to the callbacks */
    volatile int *cancel;        /* if non-NULL and set non-zero, long work stops with CUZK_ERR_CANCELLED */
} cuzk_ctx_opts;

cuzk_status cuzk_ctx_create(cuzk_ctx **out, const cuzk_ctx_opts *opts, cuzk_error *err);
void cuzk_ctx_free(cuzk_ctx *ctx);
int cuzk_ctx_threads(const cuzk_ctx *ctx);

/* ---- Groth16 over snarkjs files ------------------------------------------ */
typedef struct cuzk_prove_opts {
    int verify;          /* verify the proof (pairing check) before writing it */
    int rapidsnark_json; /* compact, key-sorted JSON without "curve" (rapidsnark byte format) */
    int insecure_zero_rs;/* TEST ONLY: r = s = 0, deterministic, NOT zero-knowledge */
} cuzk_prove_opts;

/* Prove: reads a Groth16 .zkey and a .wtns, writes proof.json and public.json
 * (snarkjs format). On error nothing is written. */
cuzk_status cuzk_prove_files(cuzk_ctx *ctx, const char *zkey_path, const char *wtns_path,
                             const char *proof_path, const char *public_path,
                             const cuzk_prove_opts *opts, cuzk_error *err);

/* Verify: CUZK_OK if valid, CUZK_ERR_INVALID_PROOF if the pairing check fails,
 * another code if an input is malformed. */
cuzk_status cuzk_verify_files(cuzk_ctx *ctx, const char *vk_path, const char *public_path,
                              const char *proof_path, cuzk_error *err);

/* Export the verification key of a zkey (like `snarkjs zkey export verificationkey`). */
cuzk_status cuzk_export_vk_files(cuzk_ctx *ctx, const char *zkey_path, const char *vk_path,
                                 cuzk_error *err);

/* INSECURE development setup: random toxic waste that is known while the
 * function runs. Never use its keys for anything of value. */
cuzk_status cuzk_setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                             cuzk_error *err);

/* Synthetic circuit generator with a Filecoin-PoRep-like profile. */
typedef struct cuzk_gen_opts {
    cuzk_curve curve;
    uint64_t constraints;   /* number of constraints (>= 1, <= 2^27) */
    uint32_t public_inputs; /* number of public signals */
    uint64_t seed;          /* 0: random */
} cuzk_gen_opts;
cuzk_status cuzk_gen_files(cuzk_ctx *ctx, const cuzk_gen_opts *opts, const char *r1cs_path,
                           const char *wtns_path, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_CUZK_H */
