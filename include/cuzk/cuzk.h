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

#ifdef __cplusplus
}
#endif

#endif /* CUZK_CUZK_H */
