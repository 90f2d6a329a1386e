/* The engine's view of a prover backend: a worker context (shared thread
 * pool, cancel flag, phase reports), a loaded key, and one proof from a
 * spooled witness to snarkjs JSON text. One file adapts the library's public
 * API to this, so backends (CPU now, the GPU prover next) drop in here. */
#ifndef CUZK_ENGINE_PROVER_H
#define CUZK_ENGINE_PROVER_H

#include <stdatomic.h>
#include <stdint.h>

#include "engine/engine.h"

/* What a worker sees of its running proof; written by the prover's
 * callbacks, read by status snapshots. */
typedef struct eng_progress {
    atomic_int cancel;                 /* non-zero: stop at the next phase boundary */
    _Atomic(const char *) phase;       /* static phase name */
    _Atomic double fraction;
    void (*timing)(void *user, const char *phase, double seconds);
    void *user;
} eng_progress;

typedef struct eng_worker_ctx eng_worker_ctx;
typedef struct eng_key eng_key;

typedef struct eng_key_meta {
    cuzk_curve curve;
    uint32_t n_vars, n_public, domain_size;
    uint64_t file_bytes;
} eng_key_meta;

/* Shared by every worker of one engine (thread pool). */
typedef struct eng_backend eng_backend;
cuzk_status eng_backend_create(eng_backend **out, int threads, cuzk_error *err);
void eng_backend_free(eng_backend *b);

cuzk_status eng_worker_ctx_create(eng_worker_ctx **out, eng_backend *b, eng_progress *p,
                                  cuzk_error *err);
void eng_worker_ctx_free(eng_worker_ctx *w);

/* Header only (curve, sizes), cheap; checks it is a Groth16 .zkey. */
cuzk_status eng_key_meta_read(const char *path, eng_key_meta *out, cuzk_error *err);
/* Loads for proving: device -1 = the CPU backend, else the GPU backend on
 * that CUDA device with device_budget bytes (0 = free memory minus a margin)
 * for the key and the proofs of gpu_workers workers sharing it (msm_copies:
 * cuzk_key_opts.gpu_msm_copies; stage_bases: .gpu_stage_bases). */
cuzk_status eng_key_load(eng_worker_ctx *w, const char *path, int device, uint64_t device_budget,
                         unsigned gpu_workers, int msm_copies, int stage_bases, eng_key **out, uint64_t *host_bytes,
                         uint64_t *device_bytes, cuzk_error *err);
void eng_key_free(eng_key *k);

/* Host bytes a proof of this key needs besides the key itself (witness,
 * a/b/c, NTT and MSM buffers) — the scheduler's admission estimate. */
uint64_t eng_job_host_bytes(const eng_key_meta *m, uint64_t witness_bytes);

/* Checks a .wtns buffer against the key (curve, size): CUZK_ERR_FORMAT /
 * CUZK_ERR_MISMATCH naming `name`. */
cuzk_status eng_witness_check(const void *data, size_t len, const char *name,
                              const eng_key_meta *m, cuzk_error *err);
/* The same checks on a file, read 64 KiB at a time. */
cuzk_status eng_witness_check_file(const char *path, const char *name, const eng_key_meta *m,
                                   cuzk_error *err);

/* Proves and verifies the witness (a .wtns file, or its bytes when
 * wtns_path is NULL); proof/public JSON malloc'd. */
cuzk_status eng_prove(eng_worker_ctx *w, const eng_key *k, const char *wtns_path,
                      const void *wtns, size_t wtns_len, char **proof_json, char **public_json,
                      cuzk_error *err);

#endif
