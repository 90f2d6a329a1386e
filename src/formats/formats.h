/* circom/snarkjs file formats: the binfile container, .r1cs, .wtns, Groth16
 * .zkey, and snarkjs JSON (proof.json, public.json, verification_key.json).
 *
 * Layouts follow shared/reference/snarkjs-formats.md (§1-§4, §6).
 *
 * Conventions of this layer:
 *  - Readers validate everything they return: section presence and exact
 *    sizes, counts, index ranges, field elements < modulus, and (zkey/JSON)
 *    points on the curve and, where cheap enough, in the subgroup. A reader
 *    that returns CUZK_OK hands out data that is safe to index without
 *    further checks.
 *  - Every error is ONE line that starts with the file name (the path, or
 *    the `name` given to a *_buffer reader) and says what is wrong. Codes:
 *    CUZK_ERR_IO (cannot open/read/write), CUZK_ERR_FORMAT (malformed file),
 *    CUZK_ERR_UNSUPPORTED (well-formed but for a field/curve/protocol we do
 *    not support), CUZK_ERR_MISMATCH (parts of the inputs disagree, e.g. q
 *    of one curve with r of another, witness of another circuit),
 *    CUZK_ERR_NOMEM.
 *  - Structs are curve-agnostic: a `curve` field plus per-curve unions of
 *    typed pointers (`.bn254` / `.bls12_381`, same names as the curve
 *    prefixes, so per-curve template code can write `zk->a.CURVE`), or
 *    `.ptr`. Every array is 64-byte aligned, owned by its struct and freed
 *    by the matching *_free (free functions accept zeroed structs). The one
 *    exception: zkey point arrays read from a file in place (cuzk_zkey.map)
 *    are only 8-byte aligned (the limbs' alignment) and read-only.
 *  - Points are our affine types in Montgomery form (x = y = 0 is infinity):
 *    exactly the bytes of zkey sections. Scalars: "raw" = standard integer
 *    limbs (witness, r1cs coefficients, public signals); the zkey coefficient
 *    values stay in their stored "v·R² mod r" form.
 *  - Writers go through the output writer at the end of this header: a
 *    temporary file in the same directory, fsync'd and renamed over the
 *    target, so a failed run leaves no partial output.
 */
#ifndef CUZK_FORMATS_FORMATS_H
#define CUZK_FORMATS_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "curve/curve_desc.h"
#include "util/common.h"
#include "util/threadpool.h"

struct cuzk_afile; /* an output file (end of this header) */

/* ---- per-curve typed views ------------------------------------------------ */

typedef union cuzk_fr_vec {
    void *ptr;
    bn254_fr_t *bn254;
    bls12_381_fr_t *bls12_381;
} cuzk_fr_vec;

typedef union cuzk_g1_vec {
    void *ptr;
    bn254_g1_affine_t *bn254;
    bls12_381_g1_affine_t *bls12_381;
} cuzk_g1_vec;

typedef union cuzk_g2_vec {
    void *ptr;
    bn254_g2_affine_t *bn254;
    bls12_381_g2_affine_t *bls12_381;
} cuzk_g2_vec;

typedef union cuzk_g1_point {
    bn254_g1_affine_t bn254;
    bls12_381_g1_affine_t bls12_381;
} cuzk_g1_point;

typedef union cuzk_g2_point {
    bn254_g2_affine_t bn254;
    bls12_381_g2_affine_t bls12_381;
} cuzk_g2_point;

/* ---- curves ---------------------------------------------------------------- */
/* Sizes, moduli and names come from the curve description
 * (curve/curve_desc.h: cuzk_curve_desc_get; the curve of a header's modulus:
 * cuzk_curve_from_r_bytes, cuzk_curve_from_q_bytes). */

/* ---- binfile container (§1) ------------------------------------------------ */

typedef struct cuzk_binfile_section {
    uint32_t id;
    uint64_t offset;  /* of the body, from the start of the file */
    uint64_t size;
} cuzk_binfile_section;

typedef struct cuzk_binfile {
    const uint8_t *data;  /* the whole file: the caller's buffer, or our mapping after
                             cuzk_binfile_map; NULL for a file read with pread */
    size_t size;
    char *name;           /* path or caller-given name, for messages */
    char magic[5];
    uint32_t version;
    uint32_t n_sections;
    cuzk_binfile_section *sections; /* in file order */
    void *map;            /* non-NULL if data is our mmap */
    struct cuzk_map_guard *guard; /* the mapping's SIGBUS guard (map_guard.h), NULL if unguarded */
    int fd;               /* the open file, when own_fd (cuzk_binfile_open) */
    bool own_fd;
} cuzk_binfile;

/* Opens an input file for reading: non-blocking (a FIFO cannot hang the
 * open), then it must be a regular file (CUZK_ERR_IO naming what it is).
 * The descriptor is blocking again on return; *size is the file's size. */
cuzk_status cuzk_open_input(const char *path, int *fd, uint64_t *size, cuzk_error *err);
/* The same, saying what the file is for in the message about "-" (standard
 * input, which the file readers do not take: they need the size and pread):
 * "-: '-' (standard input) is not supported for <what>; ...". what: "a zkey". */
cuzk_status cuzk_open_input_for(const char *path, const char *what, int *fd, uint64_t *size, cuzk_error *err);

/* Opens and indexes a binfile with pread (nothing is mapped): magic,
 * 1 <= version <= max_version, nSections, fileSize >= 12 + 12·nSections and
 * every section inside the file (the size fstat reported). The file stays
 * open: readers read sections with pread (fmt_binfile_copy, fmt_cursor), so
 * a file truncated meanwhile is CUZK_ERR_IO, not a SIGBUS. Sections may
 * come in any order and ids may repeat (cuzk_binfile_get rejects duplicates
 * of the sections a reader needs); unknown ids are kept but ignored by the
 * readers. */
cuzk_status cuzk_binfile_open(cuzk_binfile *bf, const char *path, const char *magic,
                              uint32_t max_version, cuzk_error *err);
/* Maps an opened file read-only (MAP_SHARED, MADV_SEQUENTIAL) and sets
 * data, for a zkey whose sections are used in place; a no-op for a buffer or
 * a mapped file. Touching the mapping after the file shrank raises SIGBUS:
 * only callers that accept that (or catch it) map. */
cuzk_status cuzk_binfile_map(cuzk_binfile *bf, cuzk_error *err);
/* Same checks on a caller-owned buffer, which must outlive bf. */
cuzk_status cuzk_binfile_open_buffer(cuzk_binfile *bf, const void *data, size_t size,
                                     const char *name, const char *magic, uint32_t max_version,
                                     cuzk_error *err);
void cuzk_binfile_close(cuzk_binfile *bf);
/* Number of sections with this id. */
size_t cuzk_binfile_count(const cuzk_binfile *bf, uint32_t id);
/* First section with this id, or NULL. */
const cuzk_binfile_section *cuzk_binfile_find(const cuzk_binfile *bf, uint32_t id);
/* A required, unique section: "<name>: missing section N" /
 * "<name>: duplicated section N" (CUZK_ERR_FORMAT). */
cuzk_status cuzk_binfile_get(const cuzk_binfile *bf, uint32_t id, const cuzk_binfile_section **sec,
                             cuzk_error *err);

/* ---- .r1cs (§2) ------------------------------------------------------------ */

/* One linear-combination matrix (A, B or C) in CSR form: the terms of
 * constraint i are [row[i], row[i+1]), each a wire id (< n_wires) and a raw
 * coefficient (< r), in file order. */
typedef struct cuzk_r1cs_matrix {
    uint64_t *row;      /* n_constraints + 1 */
    uint32_t *wire;     /* nnz */
    cuzk_fr_vec coef;   /* nnz raw */
    uint64_t nnz;
} cuzk_r1cs_matrix;

typedef struct cuzk_r1cs {
    cuzk_curve curve;   /* from the prime (bn254 r or bls12-381 r) */
    uint32_t n8;        /* 32 */
    uint32_t n_wires;   /* including wire 0 = ONE */
    uint32_t n_pub_out, n_pub_in, n_prv_in;
    uint64_t n_labels;
    uint32_t n_constraints;
    cuzk_r1cs_matrix m[3];  /* A, B, C: <A,w>·<B,w> = <C,w> */
    uint64_t *wire_labels;  /* n_wires (section 3), or NULL when the file has none */
} cuzk_r1cs;

cuzk_status cuzk_r1cs_read(cuzk_r1cs *r, const char *path, cuzk_error *err);
cuzk_status cuzk_r1cs_read_buffer(cuzk_r1cs *r, const void *data, size_t size, const char *name,
                                  cuzk_error *err);
/* Allocates the CSR arrays of an r1cs (rows zeroed, terms uninitialised) for
 * generators; the other header fields are left to the caller (wire_labels
 * may stay NULL: the writer then writes the identity map). */
cuzk_status cuzk_r1cs_alloc(cuzk_r1cs *r, cuzk_curve curve, uint32_t n_constraints,
                            const uint64_t nnz[3], cuzk_error *err);
/* Writes sections in circom's order 2, 1, 3 (section 3 = wire_labels, or the
 * identity map when NULL). Checks the arrays like the reader does. */
cuzk_status cuzk_r1cs_write(const cuzk_r1cs *r, const char *path, cuzk_error *err);
void cuzk_r1cs_free(cuzk_r1cs *r);
static inline uint32_t cuzk_r1cs_n_public(const cuzk_r1cs *r) { return r->n_pub_out + r->n_pub_in; }

/* ---- .wtns (§3) ------------------------------------------------------------ */

typedef struct cuzk_wtns {
    cuzk_curve curve;
    uint32_t n8;          /* 32 */
    uint32_t n_witness;
    cuzk_fr_vec values;   /* n_witness raw, each < r */
} cuzk_wtns;

cuzk_status cuzk_wtns_read(cuzk_wtns *w, const char *path, cuzk_error *err);
cuzk_status cuzk_wtns_read_buffer(cuzk_wtns *w, const void *data, size_t size, const char *name,
                                  cuzk_error *err);
/* The checks of cuzk_wtns_read on a file, reading it 64 KiB at a time
 * (nothing kept): its curve and value count. name (or NULL: the path)
 * names it in messages. */
cuzk_status cuzk_wtns_check_file(const char *path, const char *name, cuzk_curve *curve, uint32_t *n_witness,
                                 cuzk_error *err);
/* Writes version 2 with sections 1, 2 (like snarkjs / circom). */
cuzk_status cuzk_wtns_write(const cuzk_wtns *w, const char *path, cuzk_error *err);
cuzk_status cuzk_wtns_alloc(cuzk_wtns *w, cuzk_curve curve, uint32_t n_witness, cuzk_error *err);
void cuzk_wtns_free(cuzk_wtns *w);

/* Does the witness satisfy the circuit? Checks the curves agree, n_witness ==
 * n_wires, w[0] == 1 and <A,w>·<B,w> = <C,w> for every constraint (in
 * parallel on pool, NULL = serial). CUZK_ERR_MISMATCH naming the first failing
 * constraint. The names are used in messages (may be NULL). */
cuzk_status cuzk_r1cs_check_witness(const cuzk_r1cs *r, const cuzk_wtns *w, cuzk_pool *pool,
                                    const char *r1cs_name, const char *wtns_name, cuzk_error *err);

/* ---- Groth16 .zkey (§4) ---------------------------------------------------- */

typedef struct cuzk_zkey {
    cuzk_curve curve;
    uint32_t n8q, n8r;
    uint32_t n_vars;        /* wires, ONE included */
    uint32_t n_public;      /* outputs + public inputs, ONE not counted */
    uint32_t domain_size;   /* power of two */
    uint32_t log_domain;
    cuzk_g1_point alpha_1, beta_1, delta_1;
    cuzk_g2_point beta_2, gamma_2, delta_2;
    cuzk_g1_vec ic;         /* n_public + 1 */
    /* Section 4 (A and B only; C is never stored), struct-of-arrays, in file
     * order. value = v·R² mod r (R = 2^256) as stored. */
    uint64_t n_coefs;
    uint32_t *coef_matrix;      /* 0 = A, 1 = B */
    uint32_t *coef_constraint;  /* < domain_size */
    uint32_t *coef_signal;      /* < n_vars */
    cuzk_fr_vec coef_value;
    cuzk_g1_vec a, b1;      /* n_vars */
    cuzk_g2_vec b2;         /* n_vars */
    cuzk_g1_vec c;          /* n_vars - n_public - 1 (wires n_public+1 ..), may be 0 */
    cuzk_g1_vec h;          /* domain_size */
    /* Section 4 in place (read with opts.coefs_in_place from a file): the
     * validated records (u32 matrix, constraint, signal, then n8r value
     * bytes; unaligned), and the coef_* arrays are NULL. Else NULL. */
    const uint8_t *coef_raw;
    /* Section 4's records are non-decreasing by constraint (as snarkjs and
     * cuzk write them): the CPU's A/B plan then reads them in place, with no
     * per-row CSR (groth16/abc_plan.h). Found by the reader's validation
     * pass; false when not known (header_only). */
    bool coefs_sorted;
    bool header_only;       /* read with opts.header_only: coef/a/b1/b2/c/h are NULL */
    /* Zero-copy load: the read-only file mapping that point arrays (the
     * 8-byte-aligned sections) and coef_raw point into, owned by the key and
     * unmapped by cuzk_zkey_free; NULL when every array is our own. Such
     * arrays are read-only and must not be freed separately. */
    void *map;
    size_t map_size;
    struct cuzk_map_guard *map_guard; /* the mapping's SIGBUS guard (formats/map_guard.h): a file
                                         truncated under the key marks it lost, see cuzk_zkey_map_lost */
} cuzk_zkey;

typedef struct cuzk_zkey_read_opts {
    cuzk_pool *pool;           /* parallel copy/validation; NULL = serial */
    bool full_subgroup_check;  /* subgroup-check every point, not only header + IC (slow) */
    bool skip_point_checks;    /* trust the points: no < q / on-curve / subgroup checks */
    bool header_only;          /* sections 1-3 only (sizes of 4-9 are still checked) */
    bool copy_points;          /* own copies of every point array (never borrow the mapping) */
    bool coefs_in_place;       /* mapped file: validate section 4 in place, set coef_raw */
} cuzk_zkey_read_opts;

/* opts may be NULL (defaults: serial, standard checks). Accepts the sections
 * in any order; section 10 (MPC) is optional and ignored. Points are checked:
 * every coordinate < q, every point on the curve, header points and IC in the
 * subgroup (all points with full_subgroup_check). From a file, point sections
 * whose bytes are 8-byte aligned in the mapping are checked there and used in
 * place (no copy, no fresh pages: see zk->map), unless opts.copy_points; the
 * file must then not be truncated or rewritten in place while the key is
 * loaded (replacing it by a rename is safe). With copy_points and without
 * coefs_in_place (or with header_only) the file is never mapped: everything
 * is read with pread, and a file changed during the read is an I/O or
 * format error. */
cuzk_status cuzk_zkey_read(cuzk_zkey *zk, const char *path, const cuzk_zkey_read_opts *opts,
                           cuzk_error *err);
/* Whether the key's file mapping lost pages (its file was truncated while
 * mapped: the lost pages read as zeros, the key is unusable). False without
 * a mapping. */
bool cuzk_zkey_map_lost(const cuzk_zkey *zk);

/* Arrays of a loaded zkey a prover no longer reads (cuzk_zkey_release). */
enum {
    CUZK_ZKEY_REL_A = 1u << 0,
    CUZK_ZKEY_REL_B1 = 1u << 1,
    CUZK_ZKEY_REL_B2 = 1u << 2,
    CUZK_ZKEY_REL_C = 1u << 3,
    CUZK_ZKEY_REL_H = 1u << 4,
    CUZK_ZKEY_REL_COEFS = 1u << 5,
};
/* Frees the arrays named in `what` that the key owns (a copy; arrays in
 * the file mapping stay, page cache) and sets them NULL: the GPU prover,
 * once its device key is made, reads neither the bases of its resident MSM
 * items nor (tiers 1-6) the coefficient records, nor the original B bases
 * when it keeps its own copy of the B wires. Returns the bytes freed. */
size_t cuzk_zkey_release(cuzk_zkey *zk, unsigned what);
/* From a caller's buffer every array is copied (copy_points and
 * coefs_in_place are implied / ignored): the key never borrows the buffer. */
cuzk_status cuzk_zkey_read_buffer(cuzk_zkey *zk, const void *data, size_t size, const char *name,
                                  const cuzk_zkey_read_opts *opts, cuzk_error *err);
/* Allocates the arrays for the given header fields (curve, n_vars, n_public,
 * domain_size, n_coefs must be set); contents uninitialised. For `cuzk setup`. */
cuzk_status cuzk_zkey_alloc(cuzk_zkey *zk, cuzk_error *err);
/* Writes sections 1..10 in order; section 10 holds a zero csHash and no
 * contributions (snarkjs `zkey export verificationkey`, `groth16 prove` and
 * `zkey contribute` accept it). */
cuzk_status cuzk_zkey_write(const cuzk_zkey *zk, const char *path, cuzk_error *err);
/* The same checks and bytes into an output of a set (no commit). */
cuzk_status cuzk_zkey_write_to(const cuzk_zkey *zk, struct cuzk_afile *out, cuzk_error *err);
void cuzk_zkey_free(cuzk_zkey *zk);

/* The witness fits the key: same field and n_witness == n_vars
 * (CUZK_ERR_MISMATCH: "Invalid witness length. Circuit: N, witness: M"). */
cuzk_status cuzk_zkey_check_wtns(const cuzk_zkey *zk, const cuzk_wtns *w, const char *wtns_name,
                                 cuzk_error *err);

/* ---- snarkjs JSON (§6) ----------------------------------------------------- */

/* Output styles: cuzk_json_style (cuzk.h; RAPIDSNARK for proof and public only). */

/* The three points of a Groth16 proof. */
typedef struct cuzk_proof_points {
    cuzk_curve curve;
    cuzk_g1_point a;
    cuzk_g2_point b;
    cuzk_g1_point c;
} cuzk_proof_points;

/* Reads proof.json: "pi_a"/"pi_b"/"pi_c" as decimal projective triples with
 * z = 1 or z = 0 (infinity); "protocol", if present, must be "groth16". The
 * curve comes from "curve"; rapidsnark files have none and take `curve`
 * (CUZK_CURVE_NONE: then the file must say). Both given and different:
 * CUZK_ERR_MISMATCH. Points are checked on the curve and in the subgroup. */
cuzk_status cuzk_proof_points_read_json(cuzk_proof_points *p, const char *path, cuzk_curve curve, cuzk_error *err);
cuzk_status cuzk_proof_points_read_json_buffer(cuzk_proof_points *p, const char *text, size_t len,
                                        const char *name, cuzk_curve curve, cuzk_error *err);
/* Serialises to a malloc'd NUL-terminated string (free with free()). */
cuzk_status cuzk_proof_points_to_json(const cuzk_proof_points *p, int style, char **out, size_t *len,
                               cuzk_error *err);
cuzk_status cuzk_proof_points_write_json(const cuzk_proof_points *p, const char *path, int style, cuzk_error *err);

/* public.json: array of decimal strings, each < r. */
typedef struct cuzk_public {
    cuzk_curve curve;
    uint32_t n;
    cuzk_fr_vec values;  /* raw */
} cuzk_public;

cuzk_status cuzk_public_read_json(cuzk_public *pub, const char *path, cuzk_curve curve,
                                  cuzk_error *err);
/* The number of public signals in the file at path, counted by streaming it
 * (a few KiB of memory whatever its size): *n = SIZE_MAX unless the file is
 * plainly a JSON array of decimal-digit strings (then only
 * cuzk_public_read_json can say what is wrong with it). Errors: the file
 * cannot be opened or read (IO), larger than a public-signals file can be
 * (FORMAT). */
cuzk_status cuzk_public_count_json(const char *path, size_t *n, cuzk_error *err);
cuzk_status cuzk_public_read_json_buffer(cuzk_public *pub, const char *text, size_t len,
                                         const char *name, cuzk_curve curve, cuzk_error *err);
void cuzk_public_free(cuzk_public *pub);
/* values: n raw field elements (e.g. &wtns.values.bn254[1]). */
cuzk_status cuzk_public_to_json(cuzk_curve curve, const void *values, size_t n, int style,
                                char **out, size_t *len, cuzk_error *err);
cuzk_status cuzk_public_write_json(cuzk_curve curve, const void *values, size_t n,
                                   const char *path, int style, cuzk_error *err);

/* verification_key.json. alphabeta_12 = e(alpha_1, beta_2) in Fq12 as 12 Fq
 * elements (Montgomery) in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ...,
 * c1.c2.c1 — the memory order of <c>_fp12_t and the flattened JSON order. */
typedef struct cuzk_vk {
    cuzk_curve curve;
    uint32_t n_public;
    cuzk_g1_point alpha_1;
    cuzk_g2_point beta_2, gamma_2, delta_2;
    cuzk_g1_vec ic;       /* n_public + 1, owned */
    void *prep;           /* NULL, or the pairing arguments prepared for many verifications
                           * (cuzk_g16_vk_prepare), owned: one allocation */
    bool has_alphabeta;
    union {
        bn254_fp_t bn254[12];
        bls12_381_fp_t bls12_381[12];
    } alphabeta_12;
} cuzk_vk;

/* Copies the vk parts of a zkey (has_alphabeta = false; the caller computes
 * the pairing and fills alphabeta_12). */
cuzk_status cuzk_vk_from_zkey(cuzk_vk *vk, const cuzk_zkey *zk, cuzk_error *err);
/* Reads verification_key.json: protocol must be "groth16", curve from
 * "curve", IC must have nPublic + 1 points; all points checked on the curve
 * and in the subgroup; vk_alphabeta_12 is optional (has_alphabeta). */
cuzk_status cuzk_vk_read_json(cuzk_vk *vk, const char *path, cuzk_error *err);
cuzk_status cuzk_vk_read_json_buffer(cuzk_vk *vk, const char *text, size_t len, const char *name,
                                     cuzk_error *err);
/* snarkjs layout (key order protocol, curve, nPublic, vk_alpha_1, vk_beta_2,
 * vk_gamma_2, vk_delta_2, vk_alphabeta_12, IC); requires has_alphabeta. */
cuzk_status cuzk_vk_to_json(const cuzk_vk *vk, char **out, size_t *len, cuzk_error *err);
cuzk_status cuzk_vk_write_json(const cuzk_vk *vk, const char *path, cuzk_error *err);
void cuzk_vk_free(cuzk_vk *vk);

/* ---- output files: the one writer every output goes through -------------
 *
 * An output is a regular file replaced atomically (temporary file in the same
 * directory, fsync, rename), or a stream written straight into: a character
 * device or FIFO (/dev/null, a terminal, a pipe) and the inherited stdio
 * descriptors (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N). A
 * symlink is followed to the file it names, which is replaced in its own
 * directory; the replacement keeps that file's mode (and, for root, owner).
 * Any other kind of target (directory, block device, socket) is refused, and
 * so is an existing file we may not write. Temporary names are
 * "<name>.tmp.XXXXXX" with <name> shortened so they fit NAME_MAX.
 *
 * An output set groups the outputs of one command: no output may be the same
 * file (device + inode, or directory + name for a file not yet created) as an
 * input or as another output, except that several outputs may be the same
 * stream; the regular outputs are committed all or nothing under an exclusive
 * lock (flock) on each output directory, so concurrent commands writing the
 * same paths publish whole sets one after the other; an earlier file of the
 * same name is exchanged with the new one (renameat2 RENAME_EXCHANGE) and put
 * back if a later output of the set fails. A cancel callback (the context's)
 * that returns non-zero before the commit makes it remove every temporary and
 * return CUZK_ERR_CANCELLED. Streams get their bytes as they are written:
 * they cannot be taken back. See docs/CLI.md "Output files". */

typedef struct cuzk_afile {
    void *fp;              /* FILE* of the temporary file or the stream */
    char *name;            /* the path as given (messages) */
    char *path;            /* the target after following symlinks */
    char *tmp;             /* temporary file while it exists; after an exchange, the old file */
    cuzk_cancel_fn cancel; /* may be NULL */
    void *cancel_user;     /* its argument */
    int stream_fd;         /* an inherited descriptor to write into (dup'd), else -1 */
    int wr_errno;          /* first failed write */
    int state;             /* publish progress (afile.c) */
    bool failed, cancelled;
    bool stream;           /* written straight into (no temporary, no rename) */
    bool exists;           /* the target existed when it was checked */
    uint32_t mode, uid, gid;    /* of an existing target (kept) */
    uint64_t dev, ino;          /* identity of an existing target */
    uint64_t dir_dev, dir_ino;  /* its directory (identity of a new file, lock) */
} cuzk_afile;

/* A single output (a set of one, no inputs): checks the target, creates the
 * temporary file or opens the stream. */
cuzk_status cuzk_afile_open(cuzk_afile *f, const char *path, cuzk_error *err);
/* Buffered write; errors (and a cancellation) are remembered and
 * reported by sync / commit. */
void cuzk_afile_write(cuzk_afile *f, const void *data, size_t len);
/* sync + publish. On any failure the temporary file is removed and an earlier
 * file of that name is left as it was. */
cuzk_status cuzk_afile_commit(cuzk_afile *f, cuzk_error *err);
/* The two halves of commit: sync makes the temporary file durable (flush,
 * fsync, close; on failure it is removed), publish renames it over the
 * target under the directory lock. */
cuzk_status cuzk_afile_sync(cuzk_afile *f, cuzk_error *err);
cuzk_status cuzk_afile_publish(cuzk_afile *f, cuzk_error *err);
/* Removes the temporary file and frees f (idempotent; safe after commit). */
void cuzk_afile_abort(cuzk_afile *f);
/* Whole-buffer convenience. */
cuzk_status cuzk_write_file_atomic(const char *path, const void *data, size_t len, cuzk_error *err);

#define CUZK_OSET_MAX 4

/* The outputs (and inputs) of one command. Zero-initialise or use
 * cuzk_oset_init; do not copy after cuzk_oset_output (it hands out pointers
 * into the set). Use: input/output for each path (checks only, nothing is
 * created: call them before the long work so a bad path fails at once), open,
 * write through the cuzk_afile pointers, commit; abort on any path that does
 * not commit (idempotent, also after commit). */
typedef struct cuzk_oset {
    cuzk_cancel_fn cancel; /* may be NULL */
    void *cancel_user;
    size_t n_in, n_out;
    uint64_t in_dev[CUZK_OSET_MAX], in_ino[CUZK_OSET_MAX];
    const char *in_name[CUZK_OSET_MAX]; /* the caller's strings */
    cuzk_afile out[CUZK_OSET_MAX];
} cuzk_oset;

/* cancel (may be NULL) is polled with cancel_user before each write and
 * before the commit. */
void cuzk_oset_init(cuzk_oset *s, cuzk_cancel_fn cancel, void *cancel_user);
/* An input of the command; a path that cannot be stat'ed is left to its
 * reader to report. */
cuzk_status cuzk_oset_input(cuzk_oset *s, const char *path, cuzk_error *err);
/* Resolves and checks an output (CUZK_ERR_IO naming the path: a refused
 * target kind, not writable, its directory missing or not writable;
 * CUZK_ERR_USAGE: the same file as an input or an earlier output). */
cuzk_status cuzk_oset_output(cuzk_oset *s, const char *path, cuzk_afile **out, cuzk_error *err);
/* Creates the temporary files and opens the streams. */
cuzk_status cuzk_oset_open(cuzk_oset *s, cuzk_error *err);
/* Syncs every output (in parallel), then, under the directory locks,
 * publishes them all or none. */
cuzk_status cuzk_oset_commit(cuzk_oset *s, cuzk_error *err);
void cuzk_oset_abort(cuzk_oset *s);

#endif
