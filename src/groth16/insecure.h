/* INSECURE development keys: a Groth16 setup whose toxic waste is known while
 * it runs (snarkjs zkeys and bellperson .params), and the PoRep-shaped key
 * made in memory. For tests, benchmarks and `cuzk setup` only.
 *
 * Deliberately not part of the library's public API: this header is not
 * installed (it lives in src/, not include/cuzk/) and these functions are
 * not exported by libcuzk.so (hidden visibility, outside src/libcuzk.map's
 * CUZK_API set; CTest exported_symbols checks it). Programs that need them
 * link the static library libcuzk.a: the cuzk CLI, the unit tests, the
 * benchmarks, and the supraseal-c2 crate's tests and bench example
 * (CUZK_LINK=static, the crate's default). */
#ifndef CUZK_GROTH16_INSECURE_H
#define CUZK_GROTH16_INSECURE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/bellperson.h"
#include "cuzk/cuzk.h"
#include "cuzk/dev.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Marks a function of this header: hidden in libcuzk.so, linkable from
 * libcuzk.a. */
#if defined(__GNUC__) || defined(__clang__)
#define CUZK_INSECURE __attribute__((visibility("hidden")))
#else
#define CUZK_INSECURE
#endif

/* ---- snarkjs zkeys ------------------------------------------------------- */

/* INSECURE development setup: random toxic waste that is known while the
 * function runs. Never use its keys for anything of value. */
CUZK_INSECURE cuzk_status cuzk_setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                                           cuzk_error *err);

/* The same setup; opts->gpu makes the key's point sections by fixed-base
 * multiplications on GPU opts->device (cuzk_gpu_fixed: the same key, much
 * faster at large sizes). CUZK_ERR_GPU when that device does not exist. */
typedef struct cuzk_setup_opts {
    int gpu;
    int device;
} cuzk_setup_opts;
CUZK_INSECURE cuzk_status cuzk_setup_files_ex(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                                              const cuzk_setup_opts *opts, cuzk_error *err);

/* ---- PoRep-shaped circuit, key and witness in memory -------------------
 * A circuit with the shape of a Filecoin PoRep partition (BLS12-381,
 * 130,278,869 constraints as bellperson counts them, 328 inputs, A 2.4 / B 1.0
 * / C 2.2 terms a row, a quarter of the private wires in B, 95 % of the
 * witness values 0 or 1; domain 2^27), scaled by 2^(log_domain - 27) so that
 * smaller sizes have the same shape; a witness that satisfies it and an
 * INSECURE development key (random toxic waste, as cuzk_setup_files) that
 * is the one `cuzk setup` would make for the circuit's r1cs. Nothing is
 * written to disk: the full size needs ~110 GiB of host memory instead of a
 * 77 GB zkey. With gpu_setup the key's points (the bulk of the work) are
 * made by fixed-base multiplications on GPU `device` (cuzk_gpu_fixed; the
 * BLS12-381 B2 section, G2, on the CPU); the circuit and the scalars on the
 * context's pool. Phases reported on ctx:
 * gen_count, setup_qap (circuit, coefficients, u, v, w), setup_scalars,
 * setup_a .. setup_h, then load_zkey's successor prepare (the key is attached
 * to the backend key_opts asks for, as cuzk_key_load does). */
typedef struct cuzk_porep_opts {
    cuzk_curve curve;     /* CUZK_CURVE_NONE: BLS12-381 */
    unsigned log_domain;  /* 10..27; 0: 27, the full partition */
    uint64_t seed;        /* circuit and witness; 0: random */
    int gpu_setup;        /* nonzero: the key's points on GPU `device` */
    int device;
    /* Non-NULL: a directory (created if missing) where the key and witness
     * are written once, as porep-2^LG-CURVE-sSEED.zkey / .wtns (seed 0 is
     * taken as 1 here, so later runs find them), and from which they are
     * loaded when present: the key mapped from its file (key_opts'
     * map_in_place is set), the making skipped (info->from_cache). The
     * in-memory key is freed before the file is mapped, so the host holds
     * the key's pages in its page cache rather than twice. */
    const char *cache_dir;
} cuzk_porep_opts;

typedef struct cuzk_porep_info {
    unsigned log_domain;
    uint64_t constraints;    /* r1cs constraints (the domain also holds n_public + 1 input rows) */
    uint32_t n_public;       /* public signals (ONE not counted): 327, fewer only below 2^19 */
    uint64_t n_vars;         /* wires, ONE included */
    uint64_t nnz[3];         /* terms of A, B, C */
    uint64_t b_private;      /* private wires that appear in B */
    uint64_t bits;           /* private witness values that are 0 or 1 */
    double circuit_seconds;  /* wall: circuit, coefficients and scalars (CPU) */
    double points_seconds;   /* wall: the key's point sections (GPU or CPU) */
    int from_cache;          /* loaded from cache_dir (the counts above then are those of the key:
                                log_domain, n_public, n_vars; the others 0) */
} cuzk_porep_info;

/* Makes the key and the witness (both freed by the caller: cuzk_key_free,
 * cuzk_witness_free); opts and info may be NULL, key_opts as cuzk_key_load.
 * CUZK_ERR_USAGE for a bad size or curve, CUZK_ERR_NOMEM, CUZK_ERR_GPU,
 * CUZK_ERR_CANCELLED; on error nothing is returned. */
CUZK_INSECURE cuzk_status cuzk_porep_make(cuzk_ctx *ctx, const cuzk_porep_opts *opts, const cuzk_key_opts *key_opts,
                                          cuzk_key **key, cuzk_witness **w, cuzk_porep_info *info, cuzk_error *err);

/* ---- bellperson layout ---------------------------------------------------- */

/* INSECURE bellperson-layout parameters for a circom r1cs over BLS12-381
 * (random toxic waste that is known while the function runs; never use the
 * file for anything of value): inputs = ONE + the r1cs's public signals,
 * one input constraint input_i · 1 = 0 appended per input, the domain the
 * smallest power of two holding every constraint, points at infinity dropped
 * from A and B as bellperson's generator does. Writes params_path and, when
 * vk_path is not NULL, the verifying key alone (`.vk`), both or neither.
 * CUZK_ERR_UNSUPPORTED for a BN254 r1cs. */
CUZK_INSECURE cuzk_status cuzk_bp_setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *params_path,
                                              const char *vk_path, cuzk_error *err);

typedef struct cuzk_bp_porep_opts {
    unsigned log_domain;   /* 10..27; 0 = 27 */
    uint64_t seed;         /* the circuit, its witness and the INSECURE toxic waste */
    int gpu;               /* setup: nonzero: the points by fixed-base multiplication on CUDA device `device`;
                              0: on the CPU pool */
    int device;
    uint64_t batch_points; /* setup: points made and written at a time; 0 = 2^21 (at least 2^14) */
} cuzk_bp_porep_opts;
typedef struct cuzk_bp_porep_info {
    uint32_t n_inputs, log_domain;
    uint64_t n_h, n_l, n_a, n_b; /* section counts (n_b: B_G1 and B_G2 each) */
    uint64_t file_bytes;         /* size of the `.params` written */
    uint64_t host_plan_bytes;    /* the setup's host memory plan (cuzk_bp_setup_porep_plan) */
    double seconds;
} cuzk_bp_porep_info;
/* Host bytes cuzk_bp_setup_porep plans to hold at its peak with `threads`
 * workers (one batch of scalars, points and their encoding, per-worker chunk
 * buffers); independent of the file's size. */
CUZK_INSECURE uint64_t cuzk_bp_setup_porep_plan(const cuzk_bp_porep_opts *opts, int threads);
/* INSECURE bellperson-layout parameters of the PoRep-shaped circuit (toxic
 * waste derived from the seed: anyone knowing it can forge proofs), written
 * as a stream: never the whole key in memory, made and written in batches
 * of opts->batch_points points (the GPU's fixed-base multiplication with
 * opts->gpu, else the CPU pool) into a temporary file renamed at
 * the end. Writes params_path and, when vk_path is not NULL, the `.vk`,
 * both or neither; the parameters fit the assignment of
 * cuzk_bp_circuit_porep with the same log_domain and seed. Progress through
 * ctx (phases gen_count, setup_h, setup_ic_c (L), setup_a, setup_b1,
 * setup_b2, setup_write); cancellation is polled. info (may be NULL) gets
 * the counts. opts NULL (or zeroed): 2^27, seed 0, the CPU. Errors: CUZK_ERR_USAGE (a
 * log_domain out of range), _IO naming the file, _NOMEM, _GPU, _CANCELLED. */
CUZK_INSECURE cuzk_status cuzk_bp_setup_porep(cuzk_ctx *ctx, const cuzk_bp_porep_opts *opts, const char *params_path,
                                              const char *vk_path, cuzk_bp_porep_info *info, cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif
