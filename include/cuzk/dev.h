/* cuzk development API: what tests, benchmarks and the `cuzk` tool use but a
 * prover does not: a synthetic circuit generator, the PoRep key's shape, the
 * GPU self-test and kernel benchmark, and a switch for the CPU vector code.
 * The INSECURE setups are not here nor exported: src/groth16/insecure.h.
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

/* ---- Groth16 development circuits ---------------------------------------- */

/* Synthetic circuit generator with a Filecoin-PoRep-like profile. */
typedef struct cuzk_gen_opts {
    cuzk_curve curve;
    uint64_t constraints;   /* number of constraints (>= 1, <= 2^27) */
    uint32_t public_inputs; /* number of public signals */
    uint64_t seed;          /* 0: random */
} cuzk_gen_opts;
CUZK_API cuzk_status cuzk_gen_files(cuzk_ctx *ctx, const cuzk_gen_opts *opts, const char *r1cs_path,
                                    const char *wtns_path, cuzk_error *err);

/* The key shape (gpu_plan.h) of the PoRep-shaped key (cuzk_porep_make,
 * src/groth16/insecure.h) at 2^log_domain
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
