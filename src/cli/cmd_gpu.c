/* cuzk selftest --gpu, cuzk bench kernels: thin wrappers over the library's
 * cuzk_gpu_selftest / cuzk_gpu_bench (include/cuzk/dev.h). Without CUDA or a
 * device both report it and exit 7 (unsupported). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/dev.h"

int cmd_selftest(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_bench_serve(int argc, char **argv); /* cmd_bench_serve.c */

static const char SELFTEST_USAGE[] =
    "Usage: cuzk selftest --gpu [--max-lg N] [--ntt-lg L] [--seed S] [--device D] [-v]\n"
    "  GPU NTT and MSM against the CPU code, bit-exact, on fresh random inputs:\n"
    "  NTT (all operations, both curves, 2^0..2^N), MSM (G1/G2, both curves,\n"
    "  2^0..2^N and non-powers of two, uniform / witness-like scalars, all 0,\n"
    "  all 1, all r-1, n = 1, a repeated base, infinity among the bases).\n"
    "  --max-lg N   largest size 2^N (default 24, at most 27)\n"
    "  --ntt-lg L   also the natural-order forward and inverse NTT at 2^L alone\n"
    "               (L <= 28; the CPU reference at 2^28 takes minutes and\n"
    "               ~30 GB of host memory)\n"
    "  --seed S     reproduce a run (default: from the clock)\n"
    "  --device D   CUDA device (default 0)\n"
    "  -v           one line per check\n"
    "Exit code 0 when every check passes, 8 when one fails, 7 without CUDA.\n";

static int parse_uint(const char *s, const char *what, unsigned long long max, unsigned long long *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || v > max) {
        return cli_usage_error(NULL, "%s must be a number from 0 to %llu, got '%s'", what, max, s);
    }
    *out = v;
    return 0;
}

static void print_line(void *arg, const char *line)
{
    (void)arg;
    printf("%s\n", line);
    fflush(stdout);
}

int cmd_selftest(int argc, char **argv)
{
    const char *max_lg = NULL, *seed = NULL, *device = NULL, *ntt_lg = NULL;
    int gpu = 0;
    const cli_opt opts[] = {
        {"gpu", 0, 0, NULL, &gpu},
        {"max-lg", 0, 1, &max_lg, NULL},
        {"ntt-lg", 0, 1, &ntt_lg, NULL},
        {"seed", 0, 1, &seed, NULL},
        {"device", 0, 1, &device, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    cli_common common;
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse(argc, argv, opts, &common, pos, 0, &npos, SELFTEST_USAGE);
    if (rc) return rc == 2 ? 0 : 1;
    if (!gpu) {
        cli_usage_error(SELFTEST_USAGE, "nothing to test: use --gpu");
        return 1;
    }
    cuzk_gpu_selftest_opts o = {0};
    unsigned long long v = 0;
    if (max_lg) {
        if (parse_uint(max_lg, "--max-lg", 27, &v)) return 1;
        o.max_lg = v ? (unsigned)v : 24;
    }
    if (ntt_lg) {
        if (parse_uint(ntt_lg, "--ntt-lg", 28, &v)) return 1;
        o.ntt_big_lg = (unsigned)v;
    }
    if (seed) {
        if (parse_uint(seed, "--seed", ~0ULL, &v)) return 1;
        o.seed = v;
    }
    if (device) {
        if (parse_uint(device, "--device", 64, &v)) return 1;
        o.device = (int)v;
    }
    o.threads = common.threads;
    o.verbose = common.verbose;
    o.log = print_line;
    cuzk_gpu_selftest_result r;
    cuzk_error err = {0};
    cuzk_status st = cuzk_gpu_selftest(&o, &r, &err);
    if (st && r.checks == 0) return cli_fail(&err);
    printf("GPU self-test: %u checks, %u failed, %.1f s (seed %llu): %s\n", r.checks, r.failures, r.seconds,
           (unsigned long long)r.seed, st ? "FAILED" : "PASSED");
    if (st) return cli_fail(&err);
    return 0;
}

static const char BENCH_USAGE[] =
    "Usage: cuzk bench prove [--gpu[=D]] [--gpu-mem SIZE] [--workers LIST] [--proofs N] <zkey> <wtns>\n"
    "         (proof latency and throughput; cuzk bench prove --help)\n"
    "       cuzk bench kernels [--min L] [--max L] [--reps R] [--curve bn254|bls12_381|all]\n"
    "                          [--only msm|ntt] [--no-g2] [--window C] [--precompute T] [--device D]\n"
    "  Times the GPU kernels: Fr NTT (forward and inverse, natural order and\n"
    "  without the bit-reversal permutation (NR / RN), odd coset) and G1/G2 MSM\n"
    "  (uniform and witness-like scalars) for sizes 2^L, bases resident on the\n"
    "  device; median (and minimum) of R runs after a warm-up. At the largest\n"
    "  size G1 also gets run_many (4 scalar vectors, time per MSM), batch/16\n"
    "  (16 sort batches) and stream1/4 (a device budget holding a quarter of\n"
    "  the bases: the rest streamed in chunks) rows.\n"
    "  --min L, --max L   size range (default 20..26)\n"
    "  --reps R           timed runs per figure (default 5)\n"
    "  --window C         fixed MSM window (default: automatic)\n"
    "  --precompute T     MSM with T shifted copies of the bases (T x their memory, ceil(W/T)\n"
    "                     bucket sets); 1: none; default: as many as the device memory holds\n";

int cmd_bench_prove(int argc, char **argv); /* cmd_bench_prove.c */

int cmd_bench(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "serve"))
        return cmd_bench_serve(argc - 1, argv + 1);
    if (argc >= 2 && !strcmp(argv[1], "prove"))
        return cmd_bench_prove(argc - 1, argv + 1);
    if (argc < 2 || strcmp(argv[1], "kernels") != 0) {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            fputs(BENCH_USAGE, stdout);
            return 0;
        }
        cli_usage_error(BENCH_USAGE, "unknown benchmark%s%s", argc >= 2 ? " " : "", argc >= 2 ? argv[1] : "");
        return 1;
    }
    const char *mn = NULL, *mx = NULL, *reps = NULL, *curve = NULL, *only = NULL, *window = NULL, *device = NULL;
    const char *pre = NULL;
    int no_g2 = 0;
    const cli_opt opts[] = {
        {"min", 0, 1, &mn, NULL},         {"max", 0, 1, &mx, NULL},       {"reps", 0, 1, &reps, NULL},
        {"curve", 0, 1, &curve, NULL},    {"only", 0, 1, &only, NULL},    {"no-g2", 0, 0, NULL, &no_g2},
        {"window", 0, 1, &window, NULL},  {"device", 0, 1, &device, NULL}, {"precompute", 0, 1, &pre, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    cli_common common;
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse(argc - 1, argv + 1, opts, &common, pos, 0, &npos, BENCH_USAGE);
    if (rc) return rc == 2 ? 0 : 1;
    cuzk_gpu_bench_opts o = {0};
    unsigned long long v = 0;
    if (mn) {
        if (parse_uint(mn, "--min", 30, &v)) return 1;
        o.min_lg = (unsigned)v;
    }
    if (mx) {
        if (parse_uint(mx, "--max", 30, &v)) return 1;
        o.max_lg = (unsigned)v;
    }
    if (reps) {
        if (parse_uint(reps, "--reps", 1000, &v)) return 1;
        o.reps = (unsigned)v;
    }
    if (window) {
        if (parse_uint(window, "--window", 22, &v)) return 1;
        o.window = (unsigned)v;
    }
    if (pre) {
        if (parse_uint(pre, "--precompute", 64, &v)) return 1;
        o.precompute = (unsigned)v;
    }
    if (device) {
        if (parse_uint(device, "--device", 64, &v)) return 1;
        o.device = (int)v;
    }
    if (curve) {
        o.curve = cuzk_curve_from_name(curve);
        if (o.curve == CUZK_CURVE_NONE && strcmp(curve, "all") != 0) {
            cli_usage_error(BENCH_USAGE, "unknown curve '%s'", curve);
            return 1;
        }
    }
    if (only) {
        if (!strcmp(only, "msm")) o.do_msm = 1;
        else if (!strcmp(only, "ntt")) o.do_ntt = 1;
        else {
            cli_usage_error(BENCH_USAGE, "--only takes msm or ntt, got '%s'", only);
            return 1;
        }
    }
    if (o.max_lg && !o.min_lg && o.max_lg < 20) o.min_lg = o.max_lg;
    o.no_g2 = no_g2;
    o.log = print_line;
    cuzk_error err = {0};
    cuzk_status st = cuzk_gpu_bench(&o, &err);
    if (st) return cli_fail(&err);
    return 0;
}
