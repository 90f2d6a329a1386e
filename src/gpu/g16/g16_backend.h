/* The GPU Groth16 backend: a key's data on the device per its memory plan
 * (include/cuzk/gpu_plan.h) and the device steps of a proof, for the proving
 * pipeline's backend table. Built only with CUDA (src/gpu/g16/g16_backend.cu).
 *
 * Key (attach/detach): the plan is made for the key's shape, the budget and
 * W workers before anything is allocated; then the resident items are made
 * (coefficient CSR, NTT tables, MSM handles created with the plan's budgets,
 * bases uploaded once) and W pinned host witness buffers are page-locked
 * once and reused by every proof.
 *
 * Job (one proof): begin takes one of the W worker slots (it waits when all
 * are busy, so the device never holds more than the plan counted), copies the
 * witness into the slot's pinned buffer and, when the plan pre-stages,
 * allocates the device witness and uploads it on the job's copy stream while
 * other jobs' kernels run. abc takes the key's GPU lock, held through the
 * last MSM (device memory is allocated and freed under it, in plan order):
 * abc, ntt (three odd cosets and the quotient; b and c freed at once), the
 * MSMs in the order H (then h is freed), A, B1, C, B2 (then the witness is
 * freed and the lock released). Streamed items are created at their phase
 * and destroyed after it. Any error ends the job: end frees everything and
 * the key and the other jobs go on.
 *
 * The MSMs: when all five are resident, each is issued (device work up to
 * the read-back of its window sums) before the previous one's sums are
 * combined on the host, so the GPU does not wait for the host between them;
 * h then stays until the last MSM (no allocation happens meanwhile, so the
 * plan's MSM_H figure still bounds it). Streamed MSMs run one by one.
 *
 * Timing: every device phase and the witness upload is bracketed by CUDA
 * events on its stream (cuzk_gpu_g16_job_times, cuzk_gpu_g16_job_spans);
 * an event recorded and waited for at job start ties the event clock to the
 * host clock, so device intervals land on the host timeline. The device
 * memory in use (the free memory cudaMemGetInfo reports, against the free
 * memory at attach) is sampled after each phase's allocations, for the
 * measured peak beside the planned one.
 *
 * Tier 7 (plan.host_witness: the witness on the host), snarkjs keys:
 * attach also page-locks a, b, c per worker (3 domain vectors) and makes
 * no coefficient CSR; abc is the caller's host.abc into the slot's pinned
 * a, b, c, outside the GPU lock; ntt takes the lock, uploads each vector in
 * turn into one device vector, runs the odd-coset NTT and downloads it,
 * releases the lock and runs host.quotient (bellperson mode: below); in
 * every mode each MSM takes the lock for its own phase and
 * reads host scalars (h from the pinned a, the witness from the pinned
 * slot), streamed by the handle. So one worker's CPU work (abc, quotient)
 * overlaps another's kernels.
 *
 * Bellperson mode (shape.bellperson, include/cuzk/gpu_plan.h): no
 * coefficients; a proof brings a, b, c (bellperson's evaluations), its
 * witness and the bitmaps of the wires A and B take (the assignment's
 * densities). job_begin packs the witness and writes the bitmaps and their
 * words' popcount prefix sums beside it, uploaded with it; A's and B's
 * scalars are selected from the device witness by one kernel each
 * (cuzk_gpu_g16_select), into h's buffer once the H MSM is issued (DESIGN:
 * the selections were made on the host and uploaded beside the witness
 * once: at 2^27 that doubled the witness, 8.7 GiB against 3.9 per worker
 * on the device, in page-locked memory and over the bus, and it was host
 * work per proof; the bitmaps are 1/256 of it and the select kernels take
 * milliseconds. Tier 7 selects on the host, its MSMs reading host scalars:
 * into h's page-locked vector once the H MSM is done, A's, then B's once
 * A's MSM is). a, b, c are
 * staged from the caller's memory into the device vectors chunk by chunk
 * through two page-locked chunks per worker slot (host.abc_range fills a
 * chunk: the caller copies its vector, in the domain's order (bellperson's
 * roots, ntt_generator), and checks it; DESIGN: the caller holds a, b, c already, so whole page-locked
 * copies per worker, 3 domain vectors, 12 GiB at 2^27, would only pin
 * memory the host cannot reclaim; the fill runs either way, and with two
 * chunks the host fills one while the other's DMA runs; each chunk has an
 * event, waited for before the chunk is filled again, polling the cancel
 * callback). Pre-staged tiers stage a, b, c with the witness on the copy
 * stream at job_begin; the others at abc under the lock (2-vector tiers
 * stage c into b's buffer after the coset product a.b, on the compute
 * stream, instead of evaluating it again); host.abc_done follows the last
 * vector staged. ntt ends with the inverse
 * odd-coset NTT of h: bellperson's H bases pair with h's coefficients
 * (groth16/bp.h), 2^log_domain - 1 of them. The factor -1/2 of bellperson's
 * H is the caller's (one scalar multiplication of the MSM's result).
 * Tier 7: attach page-locks ONE domain vector P per worker (mapped), beside
 * the two staging chunks; ntt, under the GPU lock, stages a, b, c in turn
 * into one device vector d: a's coset into P; b's coset, d = d.P (read in
 * place over the bus), into P; c's coset, d = from_mont(P - d) (RSUB), the
 * inverse coset NTT, h into P, where the H MSM reads it (DESIGN: a, b, c
 * were page-locked whole, 12 GiB a worker at 2^27, filled at job_begin for
 * the CPU quotient; the same product and difference as the 2-vector tiers
 * give the same h with 4 GiB a worker; the other worker's CPU work still
 * overlaps, the MSMs taking the lock one by one).
 *
 * Cancellation: with a poll, the job waits for its device work by polling
 * events (between NTT passes, streamed coefficient ranges, before each MSM's
 * sums are read) and stops with CUZK_ERR_CANCELLED; end waits for what was
 * queued and frees it. A device allocation that fails anyway (something
 * else took the memory the plan counted on) is CUZK_ERR_NOMEM naming the
 * buffer; the job ends and the key goes on. */
#ifndef CUZK_GPU_G16_BACKEND_H
#define CUZK_GPU_G16_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/gpu_plan.h"
#include "gpu/g16/g16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The key's host data, borrowed for the key's lifetime (streamed items are
 * read at every proof). Bases are affine points of the curve's types:
 * H 2^log_domain, A n_vars, B1 n_vars (or n_b), C n_vars - n_public - 1
 * (G1), B2 n_vars (or n_b) (G2) (bellperson mode: H 2^log_domain - 1,
 * A n_a, B1 and B2 n_b, gpu/g16/g16_shape.h); index by cuzk_gpu_plan_item_id -
 * CUZK_GPU_ITEM_MSM_H. */
/* The host steps, the caller's (the pipeline passes the CPU backend's
 * kernels). key_user is cuzk_gpu_g16_host.user, job_user the job's
 * cuzk_gpu_g16_hooks.host_user. */
typedef struct cuzk_gpu_g16_host {
    /* Tier 7 (snarkjs keys): a = A.w, b = B.w, c = a.b over the domain
     * (Montgomery) from the raw witness w (n_vars values) */
    void (*abc)(void *key_user, void *job_user, const void *w, void *a, void *b, void *c);
    /* Tier 7 (snarkjs keys): a, b, c (Montgomery, on the odd coset) -> a = raw(a.b - c) */
    void (*quotient)(void *key_user, void *job_user, void *a, const void *b, const void *c, size_t n);
    void *user;
    /* Bellperson mode (shape.bellperson), every tier: fills dst with values
     * [b, e) (the domain's order, Montgomery) of vector i (0 a, 1 b, 2 c)
     * from the job's own inputs: a staging chunk (cuzk_gpu_plan.stage_bytes).
     * Called on the parallel hook's threads for disjoint ranges at once. An
     * error fails the step that stages (job_begin in pre-staged tiers, abc,
     * or ntt for c in 2-vector tiers and for a, b, c in tier 7). */
    cuzk_status (*abc_range)(void *key_user, void *job_user, int i, size_t b, size_t e, void *dst, cuzk_error *err);
    /* Bellperson mode (may be NULL: job_begin's witness is then raw):
     * fills dst with the raw values [b, e) of the job's witness (n_vars
     * values) from the job's own inputs, with their checks; job_begin
     * passes no witness. Called on the parallel hook's threads for disjoint
     * ranges at once: tile by tile into a small buffer that is packed at
     * once (DESIGN: a raw copy of the witness, 4 GiB at 2^27, was made per
     * proof and then packed: 0.36 s of host time and 4 GiB of memory a
     * worker; converted here only the values that are not 0 or 1 need the
     * conversion, and nothing is written but the packed form), or, tier 7,
     * straight into the slot's page-locked buffer. An error fails
     * job_begin (or abc, in tiers that pack there). */
    cuzk_status (*witness_range)(void *key_user, void *job_user, size_t b, size_t e, void *dst, cuzk_error *err);
    /* Bellperson mode, every tier (may be NULL): called once a job has read
     * the last of its a, b, c through abc_range (they are not read again;
     * the caller may free them), from the step that read it. */
    void (*abc_done)(void *key_user, void *job_user);
} cuzk_gpu_g16_host;

typedef struct cuzk_gpu_g16_key_src {
    cuzk_gpu_key_shape shape;
    cuzk_gpu_g16_coefs coefs;
    const void *bases[5];
    /* When shape.n_b < n_vars (groth16/b_density.h): B1 and B2 hold only the
     * n_b kept wires' bases, and b_index their witness indices. */
    const uint32_t *b_index;
    /* Required in bellperson mode (abc_range) and when the plan of a
     * snarkjs key is tier 7 (abc, quotient): attach fails with
     * CUZK_ERR_USAGE without them; unused otherwise. */
    cuzk_gpu_g16_host host;
    /* Nonzero: the bases are a bellperson `.params` file's sections as
     * mapped (cuzk_gpu_msm_config.bases_be: converted on the device after
     * each upload; never decoded on the host). */
    int bases_be;
    /* The generator whose roots of unity the domain's NTTs use
     * (cuzk_gpu_ntt_create_gen); 0: 5, snarkjs's. Bellperson mode passes 7,
     * bellperson's: its evaluation j of a, b, c is then the domain's value
     * j, staged in the caller's order. The quotient's coefficients do not
     * depend on the roots. */
    uint64_t ntt_generator;
} cuzk_gpu_g16_key_src;

typedef struct cuzk_gpu_g16_key cuzk_gpu_g16_key;
typedef struct cuzk_gpu_g16_job cuzk_gpu_g16_job;

/* Plans (po: device, budget, workers; NULL = defaults) and makes the
 * resident part. CUZK_ERR_NOMEM when no tier fits, CUZK_ERR_GPU on a CUDA
 * failure (nothing is left allocated). */
cuzk_status cuzk_gpu_g16_key_attach(cuzk_gpu_g16_key **out, const cuzk_gpu_g16_key_src *src,
                                    const cuzk_gpu_plan_opts *po, cuzk_error *e);
/* No job may be running. NULL is a no-op. */
void cuzk_gpu_g16_key_detach(cuzk_gpu_g16_key *k);
/* The plan, and the measured peak of device memory in use so far (bytes
 * over the free memory at attach; 0 before any job). */
void cuzk_gpu_g16_key_plan(const cuzk_gpu_g16_key *k, cuzk_gpu_plan *plan, size_t *measured_peak);

/* A job's cancellation poll: non-zero stops the job at its next wait
 * (CUZK_ERR_CANCELLED). */
typedef int (*cuzk_gpu_g16_cancel_fn)(void *user);

/* The CUDA device the key lives on. */
int cuzk_gpu_g16_key_device(const cuzk_gpu_g16_key *k);

/* A range [b, e) of a parallel loop, run by `worker`. */
typedef void (*cuzk_gpu_g16_range_fn)(void *arg, size_t b, size_t e, int worker);

/* What a job may call back (any member may be NULL). */
typedef struct cuzk_gpu_g16_hooks {
    /* polled while the job waits for the device inside a step: between NTT
     * passes, between streamed coefficient ranges, before each MSM's sums
     * are read */
    cuzk_gpu_g16_cancel_fn cancelled;
    void *cancel_user;
    /* runs fn(arg, b, e, worker) over [0, n) in ranges of at least grain
     * (the witness's packing into the pinned slot), e.g. on several threads;
     * NULL: one call on the calling thread */
    void (*parallel)(void *user, size_t n, size_t grain, cuzk_gpu_g16_range_fn fn, void *arg);
    void *parallel_user;
    void *host_user; /* passed to the key's host steps (tier 7) */
} cuzk_gpu_g16_hooks;

/* witness: n_vars raw scalars (32 bytes each), host; NULL when the key
 * has host.witness_range (which then gives them). Packed into the slot's
 * pinned buffer (gpu/g16/wpack.h; tier 7: copied raw), step by step, each
 * step expanded on the device as soon as it is there when the plan
 * pre-stages.
 * select: bellperson mode: bitmaps of n_vars bits (64-bit words, least
 * significant bit first) of the wires whose scalars A's (select[0]) and B's
 * (select[1]) MSMs take, in order; read during the call, required for those
 * that are selections (n_a, n_b < n_vars), whose popcounts must be n_a and
 * n_b (CUZK_ERR_USAGE); NULL otherwise. Tiers 1-6 upload them (the device
 * selects); tier 7 keeps a copy and selects on the host, into h's pinned
 * vector at A's and B's MSMs. hooks may be NULL. On an error
 * the caller still ends the job (*out may be set). */
cuzk_status cuzk_gpu_g16_job_begin(cuzk_gpu_g16_job **out, cuzk_gpu_g16_key *k, const void *witness,
                                   const uint64_t *const *select, const cuzk_gpu_g16_hooks *hooks, cuzk_error *e);
cuzk_status cuzk_gpu_g16_job_abc(cuzk_gpu_g16_job *j, cuzk_error *e);
/* The three odd-coset NTTs and h = a.b - c (raw) in a's buffer (tier 7:
 * the pinned host a; bellperson mode: a, b, c staged here in tier 7, and h
 * back to coefficients). */
cuzk_status cuzk_gpu_g16_job_ntt(cuzk_gpu_g16_job *j, cuzk_error *e);
/* The order in which the job's MSMs are asked for (cuzk_gpu_g16_job_msm),
 * fixed at begin: H, A, B1, C, B2; or, when every MSM is resident (each is
 * then issued on the device before the one before it is combined on the
 * host) and the key is not in bellperson mode, B1, B2, C, A, H: the witness
 * MSMs' sums are combined on the host while the next MSM runs, the last of
 * them (and whatever the caller does before asking for H) while H, the
 * largest, runs, so little host work follows the last kernel. */
void cuzk_gpu_g16_job_msm_order(const cuzk_gpu_g16_job *j, cuzk_gpu_plan_item_id order[5]);
/* MSM `id` (CUZK_GPU_ITEM_MSM_H .. _B2, in the job's order:
 * cuzk_gpu_g16_job_msm_order; another is CUZK_ERR_USAGE) into `result`,
 * one Jacobian point of the curve's G1 (G2 for B2) type. */
cuzk_status cuzk_gpu_g16_job_msm(cuzk_gpu_g16_job *j, cuzk_gpu_plan_item_id id, void *result, cuzk_error *e);
/* Device milliseconds of each phase so far (0 for phases not run). */
void cuzk_gpu_g16_job_times(const cuzk_gpu_g16_job *j, double ms[CUZK_GPU_PHASE_COUNT]);

/* An interval of a job on the host clock (cuzk_now seconds): the witness
 * upload (CUZK_GPU_PHASE_STAGE, copy stream), a phase's device work
 * (compute stream; an MSM up to the read-back of its sums), or a call the
 * host made for the job's device work (stream 2, named: "wait_slot",
 * "stage_witness", "wait_gpu" for the GPU lock, "alloc", "free",
 * "coefficients", "make_handle", "make_next_handle", "destroy_handle",
 * "wait_device", "sums" for an MSM's sums read back and combined), in the
 * phase it served. */
typedef struct cuzk_gpu_g16_span {
    cuzk_gpu_plan_phase phase;
    const char *name; /* stream 2: the call (static); else NULL */
    int slot;         /* the job's worker slot */
    int stream;       /* 0 compute, 1 copy, 2 the host's calls */
    double start, end;
} cuzk_gpu_g16_span;

/* Copies up to cap spans that completed since the last call into out and
 * returns their count (cap at most: call again for the rest); wait != 0
 * first waits for all the job's queued work (what the job then returns is
 * all it had). */
size_t cuzk_gpu_g16_job_spans(cuzk_gpu_g16_job *j, int wait, cuzk_gpu_g16_span *out, size_t cap);
/* Frees what the job holds, releases its lock and slot. NULL is a no-op. */
void cuzk_gpu_g16_job_end(cuzk_gpu_g16_job *j);

#ifdef __cplusplus
}
#endif

#endif
