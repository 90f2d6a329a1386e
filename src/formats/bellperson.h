/* bellperson (Filecoin) Groth16 files over BLS12-381: the zcash point
 * encoding, `.params` (verifying key + the five point sections), `.vk` (the
 * verifying key alone), 192-byte proofs and the parameters.json digest.
 *
 * Layouts (all integers big-endian, no magic, no padding):
 *   VK     = alpha_g1 beta_g1 (G1, 96 B each) beta_g2 gamma_g2 (G2, 192 B)
 *            delta_g1 (96) delta_g2 (192) u32 n_ic IC[n_ic] (G1, 96 B each)
 *            = 868 + 96·n_ic bytes; a `.vk` file is exactly this.
 *   params = VK, then the sections H, L, A, B_G1 (G1) and B_G2 (G2), each a
 *            u32 count followed by that many uncompressed points.
 *   proof  = A (G1, 48 B) B (G2, 96 B) C (G1, 48 B), compressed; a proof of
 *            several partitions is their concatenation.
 * Points (zcash serialization): Fp as 48 big-endian bytes, Fp2 as c1 then
 * c0; the top three bits of byte 0 are flags: 0x80 compressed, 0x40
 * infinity (every other bit zero), 0x20 "y is the larger of ±y" (compressed
 * only; for Fp2 compared on c1, then c0 when c1 = 0).
 *
 * In memory points are our affine types (Montgomery coordinates, infinity =
 * all-zero x and y: docs/ARCHITECTURE.md "Representation"), so decoded
 * sections feed the MSMs directly.
 *
 * Checks, as bellperson + blstrs read these files:
 *   - the verifying key: always checked (coordinates < p, on the curve, in
 *     the subgroup); alpha..delta may be the identity, IC points may not;
 *   - section points: "checked" = < p, on the curve, in the subgroup;
 *     "unchecked" (what filecoin-proofs uses for mapped parameters) = < p and
 *     on the curve; in both modes the identity is rejected;
 *   - proofs: < p, on the curve, in the subgroup, no identity.
 * Every error is one line naming the file (or the name given to a *_buffer
 * function) and what is wrong; codes as in formats.h (CUZK_ERR_FORMAT for a
 * malformed file, CUZK_ERR_IO when it cannot be read, e.g. it shrank). */
#ifndef CUZK_FORMATS_BELLPERSON_H
#define CUZK_FORMATS_BELLPERSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/formats.h"

enum {
    CUZK_BP_G1_COMPRESSED = 48,
    CUZK_BP_G1_UNCOMPRESSED = 96,
    CUZK_BP_G2_COMPRESSED = 96,
    CUZK_BP_G2_UNCOMPRESSED = 192,
    CUZK_BP_PROOF_SIZE = 192,       /* one partition */
    CUZK_BP_VK_FIXED_SIZE = 868,    /* the VK before its IC points */
};

/* Bytes of a VK (and of a `.vk` file) with n_ic IC points. */
static inline uint64_t cuzk_bp_vk_size(uint64_t n_ic) { return CUZK_BP_VK_FIXED_SIZE + 96 * n_ic; }

/* ---- points ---------------------------------------------------------------- */

/* Decode results (0 = valid). */
enum {
    CUZK_BP_PT_OK = 0,
    CUZK_BP_PT_RANGE = 1,     /* a coordinate >= p */
    CUZK_BP_PT_CURVE = 2,     /* not on the curve (compressed: x^3 + b not a square) */
    CUZK_BP_PT_SUBGROUP = 3,  /* not in the prime-order subgroup */
    CUZK_BP_PT_FLAGS = 4,     /* flag bits wrong for this encoding, or a non-canonical infinity */
    CUZK_BP_PT_IDENTITY = 5,  /* the identity where it is not allowed (set by callers) */
};
/* A short phrase for a result ("is not on the curve", ...). */
const char *cuzk_bp_pt_reason(int why);

/* Decode one point (compressed: 48 / 96 bytes, else 96 / 192) into our
 * affine form; subgroup = also check the prime-order subgroup. The identity
 * decodes to all-zero (callers that reject it test for that). On an error
 * *p is unspecified. */
int cuzk_bp_g1_decode(bls12_381_g1_affine_t *p, const uint8_t *in, bool compressed, bool subgroup);
int cuzk_bp_g2_decode(bls12_381_g2_affine_t *p, const uint8_t *in, bool compressed, bool subgroup);
/* Encode a valid point (on the curve, Montgomery coordinates < p). */
void cuzk_bp_g1_encode(uint8_t *out, const bls12_381_g1_affine_t *p, bool compressed);
void cuzk_bp_g2_encode(uint8_t *out, const bls12_381_g2_affine_t *p, bool compressed);

/* ---- verifying key (.vk, and the prefix of .params) ----------------------- */

typedef struct cuzk_bp_vk {
    bls12_381_g1_affine_t alpha_g1, beta_g1, delta_g1;
    bls12_381_g2_affine_t beta_g2, gamma_g2, delta_g2;
    uint32_t n_ic;                /* public inputs + 1 (the implicit ONE) */
    bls12_381_g1_affine_t *ic;    /* n_ic points, owned (cuzk_alloc) */
} cuzk_bp_vk;

/* Parses the VK at the start of data (size bytes): exact = the buffer must
 * be exactly the VK (a `.vk`), else it may go on (a `.params`); *used (may
 * be NULL) = its size. Every point is checked as bellperson does (see the
 * top); the IC points on `pool` (NULL: serially). n_ic = 0 is malformed
 * (there is always the ONE input). */
cuzk_status cuzk_bp_vk_parse(cuzk_bp_vk *vk, const uint8_t *data, uint64_t size, bool exact, const char *name,
                             cuzk_pool *pool, uint64_t *used, cuzk_error *err);
/* Reads a `.vk` file (pread, exact size). */
cuzk_status cuzk_bp_vk_read(cuzk_bp_vk *vk, const char *path, cuzk_pool *pool, cuzk_error *err);
/* Reads the VK of a `.vk` or of a `.params` file: a file that is exactly
 * one VK is a `.vk`, anything longer must be a complete, well-formed
 * `.params` (section counts checked against its size; section points are
 * not decoded). *is_params (may be NULL) says which it was. */
cuzk_status cuzk_bp_vk_read_any(cuzk_bp_vk *vk, const char *path, cuzk_pool *pool, bool *is_params,
                                cuzk_error *err);
/* Serialises into out (cuzk_bp_vk_size(vk->n_ic) bytes). Points must be
 * valid; IC points must not be the identity (CUZK_ERR_USAGE otherwise). */
cuzk_status cuzk_bp_vk_encode(const cuzk_bp_vk *vk, uint8_t *out, cuzk_error *err);
/* Writes a `.vk` atomically (through the output writer of formats.h). */
cuzk_status cuzk_bp_vk_write(const cuzk_bp_vk *vk, const char *path, cuzk_error *err);
cuzk_status cuzk_bp_vk_write_to(const cuzk_bp_vk *vk, struct cuzk_afile *out, cuzk_error *err);
/* Allocates vk->ic for n_ic points (zeroed) and sets n_ic. */
cuzk_status cuzk_bp_vk_alloc(cuzk_bp_vk *vk, uint32_t n_ic, cuzk_error *err);
void cuzk_bp_vk_free(cuzk_bp_vk *vk);
/* The generic verifying key of the Groth16 verifier (groth16/prove.h):
 * n_public = n_ic - 1; IC copied; has_alphabeta = false. */
cuzk_status cuzk_bp_vk_to_vk(const cuzk_bp_vk *bv, cuzk_vk *vk, cuzk_error *err);

/* ---- a read-only file mapping ------------------------------------------------
 * The one place that maps input files for in-place use. The file stays open
 * (fd) for as long as it is mapped, so its size can be re-checked before
 * each batch of reads (cuzk_fmap_recheck): a file truncated after it was
 * mapped is then reported as CUZK_ERR_IO instead of killing the process with
 * SIGBUS. A truncation racing a read of the mapping is still a SIGBUS: files
 * in use must be replaced by rename, never rewritten in place. */
typedef struct cuzk_fmap {
    char *name;            /* the path, for messages */
    int fd;                /* -1 when not a file */
    const uint8_t *data;   /* size bytes: the mapping, or a caller's buffer */
    uint64_t size;
    void *map;             /* our mapping (munmap'd by close), or NULL */
} cuzk_fmap;

/* Opens a regular file (cuzk_open_input) and maps it read-only, shared (so
 * page-locking it pins the page cache itself, with no private copy). An
 * empty file is not mapped (data = NULL, size = 0). */
cuzk_status cuzk_fmap_open(cuzk_fmap *m, const char *path, cuzk_error *err);
/* Wraps a caller's buffer (not copied; it must outlive m). */
cuzk_status cuzk_fmap_buffer(cuzk_fmap *m, const void *data, size_t size, const char *name, cuzk_error *err);
/* CUZK_ERR_IO "<name>: file changed size since it was opened" when the file
 * is now shorter than when it was mapped; CUZK_OK for a buffer. */
cuzk_status cuzk_fmap_recheck(const cuzk_fmap *m, cuzk_error *err);
/* Unmaps, closes and frees (accepts a zeroed struct; idempotent). */
void cuzk_fmap_close(cuzk_fmap *m);

/* ---- .params --------------------------------------------------------------- */

typedef enum cuzk_bp_section_id {
    CUZK_BP_H = 0,      /* G1, domain - 1 points */
    CUZK_BP_L = 1,      /* G1, one per aux variable */
    CUZK_BP_A = 2,      /* G1, inputs + aux with a non-zero A column */
    CUZK_BP_B_G1 = 3,   /* G1, inputs + aux with a non-zero B column */
    CUZK_BP_B_G2 = 4,   /* G2, the same variables as B_G1 */
    CUZK_BP_N_SECTIONS = 5
} cuzk_bp_section_id;

/* "H", "L", "A", "B_G1", "B_G2". */
const char *cuzk_bp_section_name(cuzk_bp_section_id s);

typedef struct cuzk_bp_section {
    uint32_t count;        /* points */
    uint32_t elem_size;    /* 96 (G1) or 192 (G2): uncompressed */
    bool g2;               /* B_G2 */
    uint64_t offset;       /* of the first point, from the start of the file */
    const uint8_t *data;   /* = file data + offset: count · elem_size bytes in the mapping */
} cuzk_bp_section;

typedef struct cuzk_bp_params_opts {
    bool checked;          /* section points: also the subgroup check (bellperson read(checked=true)) */
    bool check_points;     /* decode and check every section point at open (slow: the prover
                              otherwise checks the points it decodes) */
    cuzk_pool *pool;       /* VK IC and check_points in parallel; NULL = serially */
} cuzk_bp_params_opts;

typedef struct cuzk_bp_params {
    cuzk_fmap file;        /* the mapping (file.name names it in messages) */
    bool checked;          /* the mode section points are decoded in */
    cuzk_bp_vk vk;         /* decoded (always checked) */
    uint64_t vk_size;      /* bytes of the VK prefix */
    cuzk_bp_section sec[CUZK_BP_N_SECTIONS];
} cuzk_bp_params;

/* Maps a `.params` file read-only and validates its structure: the VK (as
 * cuzk_bp_vk_parse), then every section count against the bytes left
 * (overflow-safe, before it is used) and the exact total length. Section
 * points are decoded lazily (cuzk_bp_params_g1/_g2), or all at once with
 * opts->check_points. opts may be NULL (unchecked, serial). */
cuzk_status cuzk_bp_params_open(cuzk_bp_params *p, const char *path, const cuzk_bp_params_opts *opts,
                                cuzk_error *err);
/* The same over a caller's buffer (must outlive p). */
cuzk_status cuzk_bp_params_open_buffer(cuzk_bp_params *p, const void *data, size_t size, const char *name,
                                       const cuzk_bp_params_opts *opts, cuzk_error *err);
void cuzk_bp_params_close(cuzk_bp_params *p);

/* Decodes points [first, first + n) of a section into out (n points of
 * our affine type: G1 for H, L, A, B_G1; G2 for B_G2), in the params' mode,
 * on `pool` (NULL: this thread). The file size is re-checked first
 * (cuzk_fmap_recheck). Errors: CUZK_ERR_USAGE for a range outside the
 * section or the wrong group; CUZK_ERR_FORMAT "<file>: section L point 17
 * is not on the curve" (the first bad point), "... is the point at
 * infinity". */
cuzk_status cuzk_bp_params_g1(const cuzk_bp_params *p, cuzk_bp_section_id s, uint64_t first, uint64_t n,
                              bls12_381_g1_affine_t *out, cuzk_pool *pool, cuzk_error *err);
cuzk_status cuzk_bp_params_g2(const cuzk_bp_params *p, cuzk_bp_section_id s, uint64_t first, uint64_t n,
                              bls12_381_g2_affine_t *out, cuzk_pool *pool, cuzk_error *err);
/* Checks every point of every section without keeping them (what
 * opts->check_points does at open). */
cuzk_status cuzk_bp_params_check_points(const cuzk_bp_params *p, cuzk_pool *pool, cuzk_error *err);
/* The evaluation domain: |H| + 1 when that is a power of two (*log_n set),
 * else 0. */
uint64_t cuzk_bp_params_domain(const cuzk_bp_params *p, unsigned *log_n);
/* Size of a `.params` file with this VK and these section counts. */
uint64_t cuzk_bp_params_size(uint32_t n_ic, const uint32_t counts[CUZK_BP_N_SECTIONS]);

/* Streaming writer: the VK, then the sections in order H, L, A, B_G1, B_G2,
 * each announced with its count and then given in any number of chunks.
 * The file is a temporary one, renamed over the target by commit (formats.h
 * output writer), so a failed or aborted write leaves nothing. Section
 * points are checked to be valid and not the identity (bellperson refuses
 * to read the identity): CUZK_ERR_USAGE otherwise. The struct points into
 * itself once open: do not copy it. */
typedef struct cuzk_bp_params_writer {
    struct cuzk_afile *out;     /* the output (own_out: ours) */
    bool own_out;
    cuzk_pool *pool;            /* encodes chunks in parallel; NULL = serially */
    int section;                /* the current section, -1 before the first */
    uint64_t left;              /* points still due in it */
    uint8_t *buf;               /* encoding buffer */
    size_t buf_cap;
    cuzk_afile own;
} cuzk_bp_params_writer;

/* Opens path (atomic replacement) and writes the VK. pool may be NULL. */
cuzk_status cuzk_bp_params_writer_open(cuzk_bp_params_writer *w, const char *path, const cuzk_bp_vk *vk,
                                       cuzk_pool *pool, cuzk_error *err);
/* The same into an output of a caller's set (cuzk_oset); the caller commits. */
cuzk_status cuzk_bp_params_writer_open_to(cuzk_bp_params_writer *w, struct cuzk_afile *out, const cuzk_bp_vk *vk,
                                          cuzk_pool *pool, cuzk_error *err);
/* Starts the next section (they must come in order; the previous one must
 * be complete). */
cuzk_status cuzk_bp_params_writer_section(cuzk_bp_params_writer *w, cuzk_bp_section_id s, uint32_t count,
                                          cuzk_error *err);
/* n more points of the current section (G1 sections / B_G2). */
cuzk_status cuzk_bp_params_writer_g1(cuzk_bp_params_writer *w, const bls12_381_g1_affine_t *pts, size_t n,
                                     cuzk_error *err);
cuzk_status cuzk_bp_params_writer_g2(cuzk_bp_params_writer *w, const bls12_381_g2_affine_t *pts, size_t n,
                                     cuzk_error *err);
/* Checks that all five sections are complete; commits when the writer owns
 * the output (else only flushes its buffer). */
cuzk_status cuzk_bp_params_writer_finish(cuzk_bp_params_writer *w, cuzk_error *err);
/* Frees the writer and removes the temporary file if not committed (safe
 * after finish, idempotent). */
void cuzk_bp_params_writer_abort(cuzk_bp_params_writer *w);

/* ---- proofs ------------------------------------------------------------------ */

/* One 192-byte proof (p->curve = CUZK_CURVE_BLS12_381). */
void cuzk_bp_proof_encode(uint8_t out[CUZK_BP_PROOF_SIZE], const cuzk_proof_points *p);
/* Decodes proof `index` (for messages) from 192 bytes: subgroup checks,
 * identity rejected: CUZK_ERR_INVALID_PROOF (as for snarkjs proofs: a point
 * that is not a valid group element makes the proof invalid) "<name>:
 * proof 2: B is not in the prime-order subgroup". A file of the wrong
 * length is CUZK_ERR_FORMAT. */
cuzk_status cuzk_bp_proof_decode(cuzk_proof_points *p, const uint8_t *in, const char *name, size_t index,
                                 cuzk_error *err);
/* A proof file: n ≥ 1 proofs of 192 bytes each (*n from the size, which
 * must be a non-zero multiple of 192; at most max_proofs when non-zero).
 * *out is cuzk_alloc'd (cuzk_free). */
cuzk_status cuzk_bp_proofs_read(cuzk_proof_points **out, size_t *n, const char *path, size_t max_proofs,
                                cuzk_error *err);
cuzk_status cuzk_bp_proofs_read_buffer(cuzk_proof_points **out, size_t *n, const void *data, size_t size,
                                       const char *name, size_t max_proofs, cuzk_error *err);
/* Writes n proofs (n · 192 bytes) atomically. */
cuzk_status cuzk_bp_proofs_write(const cuzk_proof_points *p, size_t n, const char *path, cuzk_error *err);

/* ---- public inputs ------------------------------------------------------------ */

/* public.json of bellperson proofs: an array of decimal strings (one
 * partition) or an array of such arrays (one per partition, all of the same
 * length), each value < r. *values = n_parts · n_each raw Fr values (4 LE
 * limbs each; cuzk_alloc'd, cuzk_free). Messages name `name` (and the
 * partition). */
cuzk_status cuzk_bp_public_read(uint64_t (**values)[4], size_t *n_parts, size_t *n_each, const char *text,
                                size_t len, const char *name, cuzk_error *err);

/* ---- parameters.json digest -------------------------------------------------- */

/* The `digest` of filecoin-proofs' parameters.json: the first 32 hex
 * characters (lower case) of the Blake2b-512 of the whole file, into
 * out[33] (NUL-terminated). Reads with pread (no mapping). */
cuzk_status cuzk_bp_digest_file(const char *path, char out[33], cuzk_error *err);
cuzk_status cuzk_bp_digest_buffer(const void *data, size_t size, char out[33], cuzk_error *err);

#endif
