/* Bellperson mode, inside the library (the API is include/cuzk/bellperson.h).
 *
 * A bellperson key (cuzk_bpk) is the `.params` content in the prover's form:
 * affine points with Montgomery coordinates (docs/ARCHITECTURE.md
 * "Representation"), the section counts and the verifying key. It is made by
 * cuzk_bpk_from_params (decoding a mapped file) or by the INSECURE setup
 * (bp_setup.c), and attached to a bellperson backend (CPU or GPU).
 *
 * A proof goes through the Groth16 pipeline of prove.c (cuzk_g16_prove): the
 * backends here implement its job steps (backend.h) with bellperson's inputs
 * and key, which map onto the pipeline's five MSMs as
 *   H  -> H    (n - 1 points, h = the quotient's coefficients)
 *   A  -> A    (inputs + the aux variables whose a_aux density bit is set)
 *   B1 -> B_G1 (inputs and aux variables with their b density bit set)
 *   C  -> L    (every aux variable)
 *   B2 -> B_G2 (as B1)
 * and the pipeline's assembly (alpha, beta, delta and r, s) is bellperson's:
 *   A = alpha + sum A + r delta, B = beta + sum B2 + s delta,
 *   C = sum L + H + s A + r (beta_1 + sum B1 + s delta_1) - r s delta_1.
 *
 * The quotient: a, b, c (evaluations over the domain <w>, n = 2^k) go to the
 * odd coset g<w> (g = w_2n) as in the snarkjs path, d = a.b - c there, and
 * h = d / Z on that coset, Z(g w^i) = g^n - 1 = -2. Its coefficients are the
 * inverse odd-coset NTT of d, times -1/2; h has degree <= n - 2 when the
 * assignment satisfies the circuit, so they are the same whatever coset is
 * used (bellperson uses the multiplicative generator's). The factor -1/2 is
 * applied to the H MSM's result (one scalar multiplication) instead of to n
 * scalars. */
#ifndef CUZK_GROTH16_BP_H
#define CUZK_GROTH16_BP_H

#include <stdbool.h>
#include <stdint.h>

#include "cuzk/bellperson.h"
#include "curve/bls12_381.h"
#include "groth16/backend.h"

typedef struct cuzk_bpk {
    uint32_t n_inp;    /* inputs (IC points), ONE included */
    uint64_t n_aux;    /* = |L| */
    unsigned log_n;
    uint64_t n;        /* domain size 2^log_n; |H| = n - 1 */
    uint64_t n_a, n_b; /* |A|, |B_G1| = |B_G2| */
    bls12_381_g1_affine_t alpha_g1, beta_g1, delta_g1;
    bls12_381_g2_affine_t beta_g2, gamma_g2, delta_g2;
    bls12_381_g1_affine_t *ic;  /* n_inp */
    bls12_381_g1_affine_t *h;   /* n - 1 */
    bls12_381_g1_affine_t *l;   /* n_aux */
    bls12_381_g1_affine_t *a;   /* n_a */
    bls12_381_g1_affine_t *b1;  /* n_b */
    bls12_381_g2_affine_t *b2;  /* n_b */
    /* A mapped key (cuzk_bpk_map, for the GPU): the sections H, L, A, B_G1,
     * B_G2 (index: cuzk_bp_section_id) as the file holds them, in its
     * encoding (the GPU converts each range after its upload); h, l, a, b1,
     * b2 are NULL then, ic and the verifying key's points are decoded. */
    const uint8_t *enc[5];
} cuzk_bpk;

/* Allocates the point arrays for the counts set in k (n_inp, n_aux, log_n,
 * n, n_a, n_b); contents uninitialised. */
cuzk_status cuzk_bpk_alloc(cuzk_bpk *k, cuzk_error *err);
void cuzk_bpk_free(cuzk_bpk *k);
/* Host bytes of the point arrays (a mapped key: ic only). */
uint64_t cuzk_bpk_bytes(const cuzk_bpk *k);

/* A mapped key for the GPU: the file mapped into *map (which must outlive
 * k: cuzk_bp_params_close), its structure and verifying key checked, k's
 * counts, verifying-key points and ic set and its sections pointed at in
 * the map (k->enc); no section point is decoded or copied. checked: every
 * section point is checked on the CPU as cuzk_bpk_load does, from the map. */
typedef struct cuzk_bp_params cuzk_bp_params;
cuzk_status cuzk_bpk_map(cuzk_bpk *k, cuzk_bp_params *map, const char *path, bool checked, cuzk_ctx *ctx,
                         cuzk_error *err);
/* Whether k is a mapped key (its sections in the file's encoding). */
static inline bool cuzk_bpk_mapped(const cuzk_bpk *k) { return !k->h && k->enc[0]; }

/* Loads a `.params` file into k: maps it (formats/bellperson.h), checks its
 * structure and verifying key, and decodes every section into k's arrays
 * (cuzk_bpk_decode) on pool. checked: section points also subgroup-checked. */
cuzk_status cuzk_bpk_load(cuzk_bpk *k, const char *path, bool checked, cuzk_ctx *ctx, cuzk_error *err);

/* The shape of k for the GPU memory plan (bellperson mode, gpu/g16/g16_shape.h). */
void cuzk_bpk_shape(const cuzk_bpk *k, cuzk_gpu_key_shape *sh);

/* The generic verifying key of k (n_public = n_inp - 1), for cuzk_g16_verify. */
cuzk_status cuzk_bpk_vk(const cuzk_bpk *k, cuzk_vk *vk, cuzk_error *err);

/* Writes k as a `.params` file (and its verifying key as a `.vk` when
 * vk_path is not NULL), both or neither. */
cuzk_status cuzk_bpk_write(const cuzk_bpk *k, const char *params_path, const char *vk_path, cuzk_ctx *ctx,
                           cuzk_error *err);

/* The header fields of a zkey that the pipeline (prove.c) reads: curve,
 * sizes, alpha_1, beta_1, delta_1, beta_2, delta_2. */
void cuzk_bpk_zkey_header(const cuzk_bpk *k, cuzk_zkey *zk);

/* One proof's inputs for a bellperson backend's job_begin (the `w`
 * argument). The CPU's scalars are raw (standard form), prepared by the
 * caller from the assignment; the GPU reads the assignment's own (its
 * witness packed for the bus, cuzk_bp_witness_range), and they are NULL: */
typedef struct cuzk_bp_job_in {
    const cuzk_bp_assignment *as; /* a, b, c (Montgomery) and abc_size are read from here */
    size_t index;                 /* the circuit's index in the call, for messages */
    /* n_a raw scalars: inputs, then the aux ones with a_aux set; n_b: inputs
     * with b_inp set, aux with b_aux set (the witness itself when the
     * density is full) */
    const void *sc_a;
    const void *sc_b;
    const void *sc_l;             /* n_aux raw scalars: aux */
    /* Called (when not NULL) once the backend no longer reads as->a, b, c:
     * uploaded to the GPU (tiers 1-6: at the step that stages the last of
     * them, job_begin, abc or ntt; tier 7: job_begin), or copied by the
     * CPU's abc. */
    void (*consumed)(void *user, size_t index);
    void *consumed_user;
} cuzk_bp_job_in;

/* The backends of bellperson mode: the pipeline's job steps over a key
 * state that cuzk_bp_backend_attach makes (their key_attach is not used).
 * GPU: the tiered GPU backend of snarkjs keys (gpu/g16/g16_backend.h) in its
 * bellperson mode; NULL-free in every build; without CUDA attach fails with
 * CUZK_ERR_UNSUPPORTED. */
const cuzk_g16_backend *cuzk_bp_backend_cpu(void);
const cuzk_g16_backend *cuzk_bp_backend_gpu(void);

typedef struct cuzk_bp_attach_opts {
    int device;
    uint64_t device_budget;
    unsigned workers; /* GPU: proofs on the device at once (0: the plan's default, lowered to fit) */
    uint64_t host_budget; /* GPU: cuzk_bp_srs_opts.host_budget */
    int stage_bases;      /* GPU: cuzk_bp_srs_opts.gpu_stage_bases */
} cuzk_bp_attach_opts;

/* Proofs the attached state runs at once (the GPU plan's workers; 1 on the CPU). */
unsigned cuzk_bp_backend_workers(const cuzk_g16_backend *be, const void *state);

/* Whether the backend takes the raw scalars of cuzk_bp_job_in (sc_a, sc_b,
 * sc_l): the CPU. The GPU reads the assignment itself. */
bool cuzk_bp_backend_raw_scalars(const cuzk_g16_backend *be);

/* The most device memory the attached state has measured in use (as
 * cuzk_key_info.device_peak; 0 on the CPU). */
uint64_t cuzk_bp_backend_device_peak(const cuzk_g16_backend *be, const void *state);
/* The host plan's peak the attached state was planned within (the GPU:
 * cuzk_host_plan.peak, what its host budget was checked against; 0 on the
 * CPU). */
uint64_t cuzk_bp_backend_host_peak(const cuzk_g16_backend *be, const void *state);

/* Prepares k (which outlives the state) for backend be. */
cuzk_status cuzk_bp_backend_attach(const cuzk_g16_backend *be, cuzk_ctx *ctx, const cuzk_bpk *k,
                                   const cuzk_bp_attach_opts *o, void **state, uint64_t *host_bytes,
                                   uint64_t *device_bytes, cuzk_error *err);
void cuzk_bp_backend_detach(const cuzk_g16_backend *be, void *state);

/* An assignment with the arrays it points to (cuzk_bp_circuit_load,
 * cuzk_bp_circuit_porep); freed by cuzk_bp_circuit_free. */
struct cuzk_bp_circuit {
    cuzk_bp_assignment a;
    cuzk_bp_fr *abc;  /* a, b, c (cuzk_alloc) */
    cuzk_bp_fr *vals; /* inp, aux (cuzk_alloc) */
    uint64_t *dens;   /* a_aux, b_inp, b_aux words (calloc) */
};

/* A circuit's buffers for m constraints, ni inputs (ONE included) and nx
 * aux wires: abc 3 x (m + ni) rows, vals ni + nx, the density words zero.
 * NULL when out of memory. */
cuzk_bp_circuit *cuzk_bp_circuit_alloc(uint64_t m, uint64_t ni, uint64_t nx);
/* Once a, b, c's first m rows, vals and the density bits are written: the
 * input rows (a = input, b = c = 0, as bellperson adds them) and c->a (the
 * densities and their popcounts, the vectors). */
void cuzk_bp_circuit_seal(cuzk_bp_circuit *c, uint64_t m, uint64_t ni, uint64_t nx);

/* -1/2 mod r, raw: the factor of the H MSM. */
void cuzk_bp_h_factor(uint64_t raw[4]);

/* bellperson's (blstrs's) multiplicative generator of the scalar field,
 * whose powers 7^((r-1)/2^k) are its domains' roots. */
#define CUZK_BP_GENERATOR 7
/* bellperson's generator of the domain 2^k: 7^((r-1)/2^k), Montgomery form. */
void cuzk_bp_omega(bls12_381_fr_t *out, unsigned k);

/* The NTTs of bellperson mode (CPU and GPU) take bellperson's roots
 * (CUZK_BP_GENERATOR): its evaluation j of a, b, c is the domain's value j.
 * dst = src[0..m) then zeros up to n values of 32 bytes, checking on the way
 * that every src[j] is below r: returns the first j that is not (dst is
 * then incomplete), SIZE_MAX when all are. On pool's threads. */
size_t cuzk_bp_copy_in(void *dst, const void *src, size_t m, size_t n, cuzk_pool *pool);
/* The same for the range [b, end) of dst (end - b values, read on the
 * calling thread): when a src[j] read for the range is not below r, returns
 * the first j of all of src (0..m-1) that is not, as cuzk_bp_copy_in would;
 * SIZE_MAX when all read are below r. The ranges of a partition of [0, n)
 * give cuzk_bp_copy_in's dst. */
size_t cuzk_bp_copy_range(void *dst, const void *src, size_t m, size_t b, size_t end);
/* A bitmap of the ni + nx wires (inputs, then aux; 64-bit words, least
 * significant bit first, zero past ni + nx): input i's bit from inp (every
 * input when inp is NULL), aux i's from aux (bits past ni, nx ignored): the
 * wires A's (NULL, a_aux) or B's (b_inp, b_aux) MSM takes, for their
 * selection on the GPU. NULL when out of memory; free() it. */
uint64_t *cuzk_bp_wire_bits(const uint64_t *inp, size_t ni, const uint64_t *aux, size_t nx);
/* The raw values [b, e) of an assignment's witness, inp ++ aux (Montgomery
 * form), into dst (e - b values of 32 bytes): Montgomery 0 and 1 are
 * written as 0 and 1, the others converted. Returns SIZE_MAX when every
 * value read is below r; else the first index of all of inp ++ aux whose
 * value is not (dst is then incomplete), whatever the range, so that
 * ranges run in parallel report the same one. */
size_t cuzk_bp_witness_range(const cuzk_bp_assignment *as, size_t b, size_t e, void *dst);
/* limbs (4, little-endian) < r */
bool cuzk_bp_below_r(const uint64_t *x);

#endif
