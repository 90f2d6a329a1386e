/* cuzk bellperson mode: Groth16 proofs of bellperson circuits (Filecoin's
 * PoRep, SnapDeals, WindowPoSt, WinningPoSt) over BLS12-381 from a bellperson
 * parameter file (`.params`) and bellperson's per-circuit assignment, as the
 * `supraseal-c2` crate receives them from bellperson.
 *
 * Data layouts are those of blst / blstrs, so Rust types can be passed
 * without conversion:
 *  - a scalar (cuzk_bp_fr, blst_fr, blstrs Scalar) is 4 little-endian u64
 *    limbs in Montgomery form (x·2^256 mod r);
 *  - a proof (cuzk_bp_proof) is bellperson's Proof<Bls12> = {G1 a; G2 b;
 *    G1 c} of blst affine points: Fp coordinates as 6 little-endian u64
 *    limbs in Montgomery form (x·2^384 mod q), G2 coordinates as Fp2 {c0, c1}
 *    in the order x.c0, x.c1, y.c0, y.c1; the point at infinity is all zeros.
 *    384 bytes; cuzk_bp_proof_to_bytes gives bellperson's 192-byte encoding.
 *
 * The library is reentrant, reports errors as values (cuzk_error, one line
 * naming the file or the circuit and what is wrong) and never aborts. Every
 * function here that takes a cuzk_error clears it first, so one struct may
 * be reused across calls. */
#ifndef CUZK_BELLPERSON_H
#define CUZK_BELLPERSON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A BLS12-381 scalar, Montgomery form (blst_fr). */
typedef struct cuzk_bp_fr {
    uint64_t l[4];
} cuzk_bp_fr;

/* A proof, bellperson's Proof<Bls12> in memory (see the top of this file). */
typedef struct cuzk_bp_proof {
    uint64_t a[12]; /* G1: x, y */
    uint64_t b[24]; /* G2: x.c0, x.c1, y.c0, y.c1 */
    uint64_t c[12]; /* G1: x, y */
} cuzk_bp_proof;

/* One circuit's assignment, layout-identical to supraseal-c2's #[repr(C)]
 * Assignment<Scalar> (17 fields of 8 bytes: 136 bytes on a 64-bit target),
 * as bellperson's synthesis leaves it (ProvingAssignment):
 *  - a, b, c: the evaluations of the A, B, C linear combinations at each of
 *    the abc_size constraints, the input constraints (input_i · 1 = 0, one
 *    per input, added after the circuit's own) included;
 *  - inp: the input assignment, inp[0] = 1 (ONE), then the public inputs;
 *  - aux: the auxiliary (private) assignment;
 *  - densities: bitmaps of u64 words, bit i of a bitmap is bit i % 64 of word
 *    i / 64 (least significant first); bit_len bits (bits past bit_len in the
 *    last word are ignored) of which popcount are set:
 *      a_aux: aux variable i occurs in some A term (bit_len = aux_size);
 *      b_inp: input i occurs in some B term (bit_len = inp_size);
 *      b_aux: aux variable i occurs in some B term (bit_len = aux_size).
 *    (Every input counts for A: bellperson does not track A's input density.)
 * All pointers are read only; they must stay valid for the call (for
 * cuzk_bp_prove_start: until cuzk_bp_prove_finish or _drop returns). */
typedef struct cuzk_bp_assignment {
    const uint64_t *a_aux_density;
    size_t a_aux_bit_len;
    size_t a_aux_popcount;

    const uint64_t *b_inp_density;
    size_t b_inp_bit_len;
    size_t b_inp_popcount;

    const uint64_t *b_aux_density;
    size_t b_aux_bit_len;
    size_t b_aux_popcount;

    const cuzk_bp_fr *a;
    const cuzk_bp_fr *b;
    const cuzk_bp_fr *c;
    size_t abc_size;

    const cuzk_bp_fr *inp;
    size_t inp_size;

    const cuzk_bp_fr *aux;
    size_t aux_size;
} cuzk_bp_assignment;

#ifdef __cplusplus
#define CUZK_BP_STATIC_ASSERT static_assert
#else
#define CUZK_BP_STATIC_ASSERT _Static_assert
#endif
CUZK_BP_STATIC_ASSERT(sizeof(size_t) == 8 && sizeof(void *) == 8, "cuzk bellperson mode needs a 64-bit target");
CUZK_BP_STATIC_ASSERT(sizeof(cuzk_bp_fr) == 32, "blst_fr is 32 bytes");
CUZK_BP_STATIC_ASSERT(sizeof(cuzk_bp_proof) == 384, "Proof<Bls12> is 384 bytes");
CUZK_BP_STATIC_ASSERT(sizeof(cuzk_bp_assignment) == 136, "Assignment is 17 x 8 bytes");
CUZK_BP_STATIC_ASSERT(offsetof(cuzk_bp_assignment, b_inp_density) == 24, "Assignment layout");
CUZK_BP_STATIC_ASSERT(offsetof(cuzk_bp_assignment, b_aux_density) == 48, "Assignment layout");
CUZK_BP_STATIC_ASSERT(offsetof(cuzk_bp_assignment, a) == 72, "Assignment layout");
CUZK_BP_STATIC_ASSERT(offsetof(cuzk_bp_assignment, abc_size) == 96, "Assignment layout");
CUZK_BP_STATIC_ASSERT(offsetof(cuzk_bp_assignment, inp) == 104, "Assignment layout");
CUZK_BP_STATIC_ASSERT(offsetof(cuzk_bp_assignment, aux) == 120, "Assignment layout");
CUZK_BP_STATIC_ASSERT(offsetof(cuzk_bp_assignment, aux_size) == 128, "Assignment layout");
#undef CUZK_BP_STATIC_ASSERT

/* ---- Parameters (the SRS) --------------------------------------------------
 * A bellperson parameter file (`.params`: verifying key, then the H, L, A,
 * B_G1, B_G2 sections) loaded for proving: the file is memory-mapped and its
 * points decoded into the prover's form once, on the context's pool; the
 * backend then keeps them where its memory plan says (the GPU prover: on the
 * device, or streamed from host memory). Immutable after load: several
 * threads may prove with one handle at once (each with its own context). */
typedef struct cuzk_bp_srs cuzk_bp_srs; /* supraseal-c2 calls the loaded parameters an SRS */

typedef struct cuzk_bp_srs_opts {
    cuzk_backend backend;   /* zero: CPU; GPU / AUTO as cuzk_key_opts */
    int device;             /* CUDA device index (GPU / AUTO) */
    uint64_t device_budget; /* device bytes the parameters and their proofs may use; 0: free memory minus a margin */
    unsigned gpu_workers;   /* GPU: proofs holding device memory at once (the memory plan's W
                               workers, include/cuzk/gpu_plan.h; 0: its default, 2, lowered
                               until the plan fits) */
    int checked;            /* nonzero: every point of every section checked as bellperson's checked read does
                               (coordinates < q, on the curve, in the subgroup, not the point at infinity);
                               slow for large files. 0: as filecoin-proofs maps parameters (unchecked): the
                               verifying key fully checked, section points only decoded (coordinates < q and
                               on the curve, which the decoding checks anyway) */
    uint64_t host_budget;   /* GPU: host bytes (anonymous + page-locked) the parameters and their proofs may use,
                               a cap on the available memory, as cuzk_key_opts.host_budget (0: the available
                               memory; UINT64_MAX: not checked) */
    int gpu_stage_bases;    /* GPU: streamed MSM bases staged through page-locked chunks (1), page-locked whole
                               (-1), or the plan's choice (0), as cuzk_key_opts.gpu_stage_bases */
    int device_count;       /* GPU: the CUDA devices device .. device + device_count - 1 (0 or 1: `device`
                               alone; -1: every device from `device` on, as supraseal-c2 takes every
                               GPU), at most CUZK_BP_MAX_DEVICES. Each gets the parameters with its own
                               memory plan (device_budget and gpu_workers apply to each); host_budget is
                               for all of them together. A call's circuits go to the devices' workers
                               in order, the next circuit to the next free worker of any device.
                               More devices than visible: CUZK_ERR_USAGE (AUTO without a GPU: the CPU). */
} cuzk_bp_srs_opts;

#define CUZK_BP_MAX_DEVICES 16

typedef struct cuzk_bp_srs_info {
    uint32_t n_inputs;       /* inputs, ONE included (the verifying key's IC count) */
    uint32_t log_domain;     /* evaluation domain 2^log_domain (H holds 2^log_domain - 1 points) */
    uint64_t n_h, n_l, n_a, n_b; /* section point counts (n_b: B_G1 and B_G2 each) */
    uint64_t n_aux;          /* auxiliary variables (= n_l) */
    cuzk_backend backend;    /* the backend the parameters are prepared for (never AUTO) */
    uint64_t host_bytes;     /* host memory held (decoded points, plans; the file mapping not counted) */
    uint64_t device_bytes;   /* device memory planned (0 on the CPU), over every device */
    uint64_t device_peak;    /* GPU: most device memory measured in use so far (as cuzk_key_info), the sum
                                over the devices of each one's peak */
    unsigned n_devices;      /* GPU: the devices the parameters are prepared on (1 on the CPU) */
    unsigned workers;        /* proofs that run at once: the GPU plans' workers over every device (1 on
                                the CPU) */
} cuzk_bp_srs_info;

/* Loads the parameter file at path (opts may be NULL: CPU, unchecked).
 * Reports the phases load_zkey (mapping, checks, decoding) and prepare on
 * ctx; cancellation is polled. The file must not be truncated or rewritten
 * in place while this runs (replacing it by a rename is safe). For the CPU
 * the points are decoded into memory and the mapping is not kept; for the
 * GPU (GPU, or AUTO with a device) the handle keeps the file mapped and the
 * device reads the sections as they are in it (converted on the device
 * after each upload; streamed sections are read again by every proof): a
 * file truncated meanwhile makes the load or the proof fail with
 * CUZK_ERR_IO (never a SIGBUS); replace files by rename. Errors name the file: CUZK_ERR_IO, _FORMAT (a
 * malformed or truncated file, a point off the curve or, when checked,
 * outside the subgroup), _UNSUPPORTED (a domain beyond BLS12-381's two-adicity,
 * a backend not built), _NOMEM, _GPU, _CANCELLED. On success *out is a new
 * handle (cuzk_bp_srs_free). */
CUZK_API cuzk_status cuzk_bp_srs_load(cuzk_bp_srs **out, cuzk_ctx *ctx, const char *path,
                                         const cuzk_bp_srs_opts *opts, cuzk_error *err);
/* Frees the parameters (no proof may be running or pending with them). NULL is a no-op. */
CUZK_API void cuzk_bp_srs_free(cuzk_bp_srs *p);
/* Sizes and memory of the loaded parameters. */
CUZK_API void cuzk_bp_srs_get_info(const cuzk_bp_srs *p, cuzk_bp_srs_info *info);
/* Releases the device memory the parameters hold (supraseal-c2's SRS::evict);
 * the next proof prepares them again. Waits for running proofs to end. On
 * the CPU backend a no-op. */
CUZK_API void cuzk_bp_srs_evict(cuzk_bp_srs *p);

/* ---- Proving ---------------------------------------------------------------- */

/* A zeroed struct is the default: every proof verified before it is returned. */
typedef struct cuzk_bp_prove_opts {
    int no_verify;  /* skip the pairing check of each new proof (about 2 ms a proof) */
    int pin_device; /* GPU: nonzero: the call's circuits go to CUDA device `device` alone (one of the
                       parameters' devices, else CUZK_ERR_USAGE), as Curio's gpu_index >= 0 */
    int device;
} cuzk_bp_prove_opts;

/* Proves n circuits (a[i], with blinding factors r[i], s[i]) against the
 * parameters p, writing proof i to out[i]; opts may be NULL (defaults). On
 * the CPU the circuits are proved one after the other, each with the whole
 * of ctx's pool; on the GPU they are taken in order by the memory plans' W
 * workers (cuzk_bp_srs_opts.gpu_workers on each of the parameters' devices,
 * or on opts->device alone), W at once, so one circuit's host work and
 * uploads overlap another's kernels and the devices work side by side (ctx's
 * pool is shared, its callbacks may then be called from W threads at once). r and s are Montgomery scalars as bellperson
 * passes them (zero, as for a circuit without randomization, is allowed);
 * a value >= r is refused.
 * Each assignment is checked against p before any work: abc_size <= the
 * domain, inp_size = p's inputs with inp[0] = 1, aux_size = p's L count,
 * bit lengths as documented, popcounts equal to the bits set, inp_size +
 * a_aux_popcount = |A|, b_inp_popcount + b_aux_popcount = |B|; every scalar
 * < r (checked as its proof reads them, so a value >= r ends the call
 * when that circuit's turn comes: CUZK_ERR_USAGE naming the circuit, the
 * vector and the index). A mismatch is CUZK_ERR_MISMATCH naming the circuit
 * and the field ("circuit 3: aux_size 1000, the parameters have 1024 L
 * points"); NULL pointers with nonzero sizes are CUZK_ERR_USAGE. Unless opts->no_verify,
 * each proof is verified against p's verifying key with the inputs inp[1..]
 * before the call returns: an assignment that does not satisfy the circuit
 * of p gives CUZK_ERR_MISMATCH naming the circuit. On any error out[0..n)
 * is zeroed (no partial result), and the error is that of the first circuit
 * that failed (no circuit starts after an error). Also CUZK_ERR_NOMEM, _GPU,
 * _CANCELLED. Reports on ctx, per circuit: the phases prep_scalars (the
 * CPU's scalars from Montgomery form to raw, the A and B selections; on the
 * GPU the public inputs alone), abc, ntt,
 * msm_h .. msm_b2, assemble and verify, and on the GPU its device intervals
 * as spans (device >= 0); with W threads each host span carries the
 * thread's number (cuzk_span.worker, 0 .. W - 1). */
CUZK_API cuzk_status cuzk_bp_prove(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t n,
                                   const cuzk_bp_fr *r, const cuzk_bp_fr *s, cuzk_bp_proof *out,
                                   const cuzk_bp_prove_opts *opts, cuzk_error *err);

/* The same work split in two calls (Curio's start / finish): start checks
 * the inputs as cuzk_bp_prove does (an error there is returned at once and
 * nothing is pending), copies the n assignment structs and r, s, and starts
 * the proofs in the background, and returns once every circuit's a, b, c
 * have been read (on the GPU: uploaded to the device through a worker's
 * page-locked staging chunks, when the last circuit's proof has begun in
 * the pre-staged tiers, at its abc or NTT step in the others, at its NTT
 * step in tier 7 (`cuzk plan --bellperson`); on the CPU: when the last one's abc
 * step is done; or when the proofs ended on an error): the caller may
 * then free a, b, c. finish waits for the proofs and writes out[0..n)
 * (zeroed on error) with cuzk_bp_prove's errors; drop waits and discards.
 * The other arrays the assignments point to (densities, inp, aux) must stay
 * valid, and ctx unused by anything else, until finish or drop returns.
 * finish and drop consume the handle (each exactly once; drop(NULL) is a
 * no-op). */
typedef struct cuzk_bp_pending cuzk_bp_pending;
CUZK_API cuzk_status cuzk_bp_prove_start(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_assignment *a,
                                         size_t n, const cuzk_bp_fr *r, const cuzk_bp_fr *s,
                                         const cuzk_bp_prove_opts *opts, cuzk_bp_pending **out, cuzk_error *err);
CUZK_API cuzk_status cuzk_bp_prove_finish(cuzk_bp_pending *pending, cuzk_bp_proof *out, cuzk_error *err);
CUZK_API void cuzk_bp_prove_drop(cuzk_bp_pending *pending);

/* ---- Proof encoding and verification ---------------------------------------- */

/* The 192-byte encoding bellperson writes (Proof::write): A, B, C compressed
 * (zcash encoding: big-endian x, G2 x.c1 then x.c0, flags 0x80 compressed,
 * 0x40 infinity, 0x20 larger y in the first byte). CUZK_ERR_USAGE if a
 * coordinate is not below q (not a proof this library made). */
CUZK_API cuzk_status cuzk_bp_proof_to_bytes(const cuzk_bp_proof *proof, uint8_t out[192], cuzk_error *err);

/* Verifies proof against p's verifying key with the public inputs (the
 * inputs after ONE: n_inputs - 1 Montgomery scalars, e.g. inp + 1 of the
 * assignment). CUZK_OK if valid; CUZK_ERR_INVALID_PROOF if the pairing check
 * fails or a point is not on the curve or not in its subgroup;
 * CUZK_ERR_MISMATCH for a wrong number of inputs; CUZK_ERR_USAGE for an input
 * >= r. The pairings run on ctx's pool. */
CUZK_API cuzk_status cuzk_bp_verify(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_proof *proof,
                                    const cuzk_bp_fr *inputs, size_t n_inputs, cuzk_error *err);

/* ---- Development: assignments from circom files -----------------------------
 * (The INSECURE parameter setups are not in the public API:
 * src/groth16/insecure.h.) */

/* The assignment bellperson's synthesis would hand over for a circom circuit
 * and a witness (the r1cs's constraints in order, then the input
 * constraints; inputs ONE and the public signals, aux the other wires in
 * order), owned by the returned handle. The witness must satisfy the circuit
 * (CUZK_ERR_MISMATCH naming the first failing constraint). */
typedef struct cuzk_bp_circuit cuzk_bp_circuit;
CUZK_API cuzk_status cuzk_bp_circuit_load(cuzk_bp_circuit **out, cuzk_ctx *ctx, const char *r1cs_path,
                                          const char *wtns_path, cuzk_error *err);
/* The assignment (valid while c lives). */
CUZK_API const cuzk_bp_assignment *cuzk_bp_circuit_assignment(const cuzk_bp_circuit *c);
CUZK_API void cuzk_bp_circuit_free(cuzk_bp_circuit *c);

/* ---- Development: the PoRep-shaped circuit -----------------------------------
 * The circuit with the measured shape of a Filecoin 32 GiB PoRep partition
 * (the one `cuzk bench prove --porep` makes: 130,278,869 constraints with
 * the input constraints, 328 inputs, 130,169,893 aux variables, a_aux
 * density ~99.7 %, b_aux ~25 %), scaled to a domain 2^log_domain (10..27;
 * 0 = 27, the real size), made from a seed: the same seed gives the same
 * circuit, witness and (setup) toxic waste. */

/* The assignment of the PoRep-shaped circuit of (log_domain, seed) as
 * bellperson's synthesis would hand it over (its rows in order, then the
 * input constraints), made on ctx's pool; owned by the returned handle
 * (cuzk_bp_circuit_assignment, cuzk_bp_circuit_free). At 2^27 it holds
 * about 16.7 GB (a, b, c 12.5 GB, inputs and aux 4.2 GB). Errors:
 * CUZK_ERR_USAGE (log_domain out of range), _NOMEM. */
CUZK_API cuzk_status cuzk_bp_circuit_porep(cuzk_bp_circuit **out, cuzk_ctx *ctx, unsigned log_domain, uint64_t seed,
                                           cuzk_error *err);
/* `cuzk prove --format bellperson`: loads the parameters (opts->srs), builds
 * the assignment of the circom circuit and witness (cuzk_bp_circuit_load),
 * proves (verified unless opts->prove.no_verify) and writes the 192-byte
 * proof to proof_path and the public inputs (after ONE) as a JSON array of
 * decimal strings to public_path, both or neither; with raw_proof_path
 * also the 384-byte cuzk_bp_proof (all three or none). r and s come from
 * the OS CSPRNG unless insecure_r / insecure_s (TEST ONLY, not
 * zero-knowledge: 32-byte little-endian integers < r, both or neither).
 * opts may be NULL. Errors as the calls it makes. */
typedef struct cuzk_bp_prove_files_opts {
    cuzk_bp_srs_opts srs;
    cuzk_bp_prove_opts prove;
    const uint8_t *insecure_r, *insecure_s;
    const char *raw_proof_path;
    /* > 1: the assignment proved as that many partitions in one cuzk_bp_prove
     * call (one r, s each; with insecure_r/_s partition i takes r + i, s + i):
     * the proof file is their concatenation (192 bytes each), public.json an
     * array of that many arrays (the form `cuzk verify --format bellperson`
     * reads), the raw file n x 384 bytes. For multi-partition timings. */
    unsigned partitions;
    /* nonzero: no circom files (r1cs_path and wtns_path NULL): the
     * assignment is the PoRep-shaped circuit of cuzk_bp_circuit_porep with
     * this log_domain (10..27) and porep_seed. */
    unsigned porep_log;
    uint64_t porep_seed;
} cuzk_bp_prove_files_opts;
CUZK_API cuzk_status cuzk_bp_prove_files(cuzk_ctx *ctx, const char *params_path, const char *r1cs_path,
                                         const char *wtns_path, const char *proof_path, const char *public_path,
                                         const cuzk_bp_prove_files_opts *opts, cuzk_error *err);

/* ---- bellperson files: verifying keys, proofs, public inputs, digest -------
 * Files as filecoin-proofs keeps them (docs/CLI.md "bellperson files"):
 * verifying keys (`.vk`, or the prefix of a `.params`), 192-byte proofs
 * (several partitions concatenated), public inputs (the inputs after the
 * implicit ONE, in the circuit's order; as bytes each a 32-byte
 * little-endian integer < r, bellperson's Fr::to_repr, in JSON a decimal
 * string), and the parameters.json digest. */

/* A loaded bellperson verifying key (opaque; immutable, so one key may be
 * used by several threads at once). */
typedef struct cuzk_bp_verifying_key cuzk_bp_verifying_key;

/* Loads the verifying key of a `.vk` file (exactly the key) or of a
 * `.params` file (the key is its prefix; the whole file's structure is
 * checked, its point sections are not decoded). Every key point is checked
 * (coordinates < q, on the curve, in the subgroup; IC points not the point
 * at infinity), as bellperson's VerifyingKey::read does. Errors: CUZK_ERR_IO,
 * _FORMAT (naming the file and the bad part), _NOMEM, _USAGE (NULL
 * arguments). ctx may be NULL (then the IC points are checked on this
 * thread). On success *out is a new key (cuzk_bp_verifying_key_free). */
CUZK_API cuzk_status cuzk_bp_verifying_key_load(cuzk_bp_verifying_key **out, cuzk_ctx *ctx, const char *path,
                                                cuzk_error *err);
/* The same from the bytes of a `.vk` (exactly the key); name is used in
 * messages (NULL: "<buffer>"). The buffer is not kept. */
CUZK_API cuzk_status cuzk_bp_verifying_key_load_buffer(cuzk_bp_verifying_key **out, cuzk_ctx *ctx,
                                                       const void *data, size_t size, const char *name,
                                                       cuzk_error *err);
/* Public inputs per proof: the key's IC points minus one (the ONE input); 0
 * for NULL. */
CUZK_API size_t cuzk_bp_verifying_key_n_inputs(const cuzk_bp_verifying_key *vk);
/* Frees a key. NULL is a no-op. */
CUZK_API void cuzk_bp_verifying_key_free(cuzk_bp_verifying_key *vk);

/* Verifies n_proofs ≥ 1 proofs against one key: proofs = n_proofs · 192
 * bytes (A‖B‖C compressed, bellperson's Proof::write / read_many,
 * partitions in order); inputs = n_proofs · n_inputs values of 32 bytes,
 * little-endian, proof i's at inputs + 32·n_inputs·i; n_inputs must equal
 * cuzk_bp_verifying_key_n_inputs(vk). CUZK_OK when every proof is valid;
 * CUZK_ERR_INVALID_PROOF naming the first proof whose pairing check fails or
 * that holds a point that is not a valid group element (coordinate >= q, off
 * the curve or the subgroup, the point at infinity, bad flag bits: what
 * bellperson's reading refuses); CUZK_ERR_MISMATCH when n_inputs disagrees
 * with the key; CUZK_ERR_USAGE for an input >= r or bad arguments. The
 * pairings run on ctx's pool (ctx may be NULL: this thread). */
CUZK_API cuzk_status cuzk_bp_verify_bytes(cuzk_ctx *ctx, const cuzk_bp_verifying_key *vk, const uint8_t *proofs,
                                          size_t n_proofs, const uint8_t *inputs, size_t n_inputs,
                                          cuzk_error *err);
/* `cuzk verify --format bellperson`: key_path = a `.vk` or `.params`;
 * public_path = a JSON array of decimal strings (one proof), or an array of
 * such arrays (one per partition, in order); proof_path = the proof file
 * (192 bytes per partition). Codes as cuzk_bp_verify_bytes, plus
 * CUZK_ERR_IO and _FORMAT naming the file (an input >= r is _FORMAT), and
 * CUZK_ERR_MISMATCH when the files disagree (inputs per proof, number of
 * partitions). ctx may be NULL. */
CUZK_API cuzk_status cuzk_bp_verify_files(cuzk_ctx *ctx, const char *key_path, const char *public_path,
                                          const char *proof_path, cuzk_error *err);

/* The `digest` filecoin-proofs' parameters.json gives a `.params` or `.vk`
 * file: the first 32 lower-case hex characters of the BLAKE2b-512 of the
 * whole file, NUL-terminated in out (33 bytes). Reads the file once
 * (sequentially; a 44 GiB file takes about a minute). CUZK_ERR_IO naming the
 * file, CUZK_ERR_USAGE for NULL arguments. */
CUZK_API cuzk_status cuzk_bp_params_digest(const char *path, char out[33], cuzk_error *err);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_BELLPERSON_H */
