/* cuzk development API: what tests, benchmarks and the `cuzk` tool use but a
 * prover does not: an INSECURE key setup, a synthetic circuit generator, the
 * GPU self-test and kernel benchmark, and a switch for the CPU vector code.
 * Exported by the library like the product API (include/cuzk/cuzk.h,
 * include/cuzk/gpu.h), kept apart so that product code does not come to
 * depend on it. */
#ifndef CUZK_DEV_H
#define CUZK_DEV_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cuzk.h"
#include "cuzk/gpu_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Groth16 development keys and circuits ------------------------------ */

/* INSECURE development setup: random toxic waste that is known while the
 * function runs. Never use its keys for anything of value. */
CUZK_API cuzk_status cuzk_setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                                      cuzk_error *err);

/* The same setup; opts->gpu makes the key's point sections by fixed-base
 * multiplications on GPU opts->device (cuzk_gpu_fixed: the same key, much
 * faster at large sizes). CUZK_ERR_GPU when that device does not exist. */
typedef struct cuzk_setup_opts {
    int gpu;
    int device;
} cuzk_setup_opts;
CUZK_API cuzk_status cuzk_setup_files_ex(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                                         const cuzk_setup_opts *opts, cuzk_error *err);

/* Synthetic circuit generator with a Filecoin-PoRep-like profile. */
typedef struct cuzk_gen_opts {
    cuzk_curve curve;
    uint64_t constraints;   /* number of constraints (>= 1, <= 2^27) */
    uint32_t public_inputs; /* number of public signals */
    uint64_t seed;          /* 0: random */
} cuzk_gen_opts;
CUZK_API cuzk_status cuzk_gen_files(cuzk_ctx *ctx, const cuzk_gen_opts *opts, const char *r1cs_path,
                                    const char *wtns_path, cuzk_error *err);

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
CUZK_API cuzk_status cuzk_porep_make(cuzk_ctx *ctx, const cuzk_porep_opts *opts, const cuzk_key_opts *key_opts,
                                     cuzk_key **key, cuzk_witness **w, cuzk_porep_info *info, cuzk_error *err);

/* The key shape (gpu_plan.h) of cuzk_porep_make's key at 2^log_domain
 * (0: 27), with the generator's expected coefficient count (the made key's
 * differs by a few hundredths of a percent), for `cuzk plan --porep`: the
 * device plan without making the key. CUZK_ERR_USAGE for a bad size. */
CUZK_API cuzk_status cuzk_porep_key_shape(cuzk_curve curve, unsigned log_domain, cuzk_gpu_key_shape *out,
                                          cuzk_error *err);

/* ---- CPU vector code -----------------------------------------------------
 * Process-wide: whether the CPU code uses its AVX-512 IFMA paths (on by
 * default where the CPU has them). Results are identical either way; off is
 * for benchmarks and tests of the scalar path (the CLI's CUZK_NO_IFMA=1).
 * Call it before starting work, not while work runs. Returns whether the
 * vector paths are now in use. */
CUZK_API int cuzk_dev_set_ifma(int on);

/* ---- GPU self-test and kernel benchmark (src/diag; cuzk selftest --gpu,
 * cuzk bench kernels). Both write their lines through `log` (NULL: stdout).
 * Without CUDA (src/diag/stub) both return CUZK_ERR_UNSUPPORTED ("built
 * without CUDA"), without a device CUZK_ERR_UNSUPPORTED ("no CUDA device"). */
typedef void (*cuzk_gpu_log_fn)(void *arg, const char *line);

typedef struct cuzk_gpu_selftest_opts {
    unsigned max_lg;      /* largest size 2^max_lg, NTT and MSM (0 = 24) */
    uint64_t seed;        /* 0 = from the clock (fresh inputs every run) */
    int device;
    int threads;          /* CPU threads for the references (0 = all cores) */
    int verbose;          /* nonzero: one line per check, not only failures */
    cuzk_gpu_log_fn log;
    void *log_arg;
    unsigned ntt_big_lg;  /* nonzero: also the forward and inverse NTT at 2^ntt_big_lg alone (<= 28; the
                             CPU reference at that size takes minutes and 3 x 32 x 2^lg host bytes) */
} cuzk_gpu_selftest_opts;

typedef struct cuzk_gpu_selftest_result {
    unsigned checks, failures;
    double seconds;
    uint64_t seed;        /* the seed used (to reproduce a failure) */
} cuzk_gpu_selftest_result;

/* GPU against CPU, bit-exact, on fresh random inputs:
 *  NTT: all five operations, both curves, every size 2^0..2^max_lg
 *       (compared with the CPU NTT byte for byte), and with ntt_big_lg the
 *       natural-order forward and inverse at that one size (up to 2^28);
 *  MSM: G1 and G2 of both curves, n = 2^0..2^max_lg and non-powers of two,
 *       uniform and witness-like scalars, and the edge cases: all scalars 0,
 *       all 1, all r-1, n = 1, one base repeated n times, infinity among the
 *       bases. Bases are P_i = k_i G with known k_i, so every result is also
 *       checked against (sum s_i k_i) G; small ones against the CPU MSM too.
 * Returns CUZK_OK when every check passed, CUZK_ERR_GPU when some failed
 * (the counts are in *res), CUZK_ERR_UNSUPPORTED without CUDA or device. */
CUZK_API cuzk_status cuzk_gpu_selftest(const cuzk_gpu_selftest_opts *opts, cuzk_gpu_selftest_result *res,
                                       cuzk_error *e);

typedef struct cuzk_gpu_bench_opts {
    unsigned min_lg, max_lg;  /* sizes 2^min_lg..2^max_lg (defaults 20, 26) */
    unsigned reps;            /* timed runs per figure, median reported (>= 5 advised) */
    cuzk_curve curve;         /* one curve (CUZK_CURVE_NONE = every curve) */
    int do_msm, do_ntt;       /* both 0: both */
    int no_g2;                /* nonzero: MSM over G1 only */
    unsigned window;          /* MSM window (0 = automatic) */
    unsigned precompute;      /* MSM precomputed copies (cuzk_gpu_msm_config.precompute: 0 automatic, 1 none) */
    int device;
    cuzk_gpu_log_fn log;
    void *log_arg;
} cuzk_gpu_bench_opts;

/* Times the kernels: Fr NTT (forward, inverse, odd coset) and G1/G2 MSM
 * (uniform and witness-like scalars, device-resident; uniform from pinned
 * host memory too), bases resident on the device, one warm-up then `reps`
 * runs, median and minimum. NTT by CUDA events; MSM by wall time of the call
 * (it returns with the result on the host). Prints one line per figure,
 * then the table. */
CUZK_API cuzk_status cuzk_gpu_bench(const cuzk_gpu_bench_opts *opts, cuzk_error *e);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_DEV_H */
