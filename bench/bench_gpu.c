/* GPU benchmark program: the table of cuzk_gpu_bench (src/diag/bench.c, the
 * same code as `cuzk bench kernels`): Fr NTT and G1/G2 MSM, both curves,
 * sizes 2^min..2^max, median of --reps runs after a warm-up.
 *
 * usage: bench_gpu [--min L] [--max L] [--reps R] [--curve bn254|bls12_381|all]
 *                  [--only msm|ntt|all] [--g2 0|1] [--window c] [--precompute t]
 * Exits 77 without a CUDA device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/dev.h"
#include "cuzk/gpu.h"

int main(int argc, char **argv)
{
    cuzk_gpu_bench_opts o = {0};
    o.min_lg = 20;
    o.max_lg = 27;
    o.reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *a = argv[i], *v = argv[i + 1];
        if (!strcmp(a, "--min")) o.min_lg = (unsigned)atoi(v);
        else if (!strcmp(a, "--max")) o.max_lg = (unsigned)atoi(v);
        else if (!strcmp(a, "--reps")) o.reps = (unsigned)atoi(v);
        else if (!strcmp(a, "--window")) o.window = (unsigned)atoi(v);
        else if (!strcmp(a, "--precompute")) o.precompute = (unsigned)atoi(v);
        else if (!strcmp(a, "--g2")) o.no_g2 = !atoi(v);
        else if (!strcmp(a, "--curve"))
            o.curve = cuzk_curve_from_name(v); /* unknown or "all": every curve */
        else if (!strcmp(a, "--only")) {
            o.do_msm = strcmp(v, "ntt") != 0;
            o.do_ntt = strcmp(v, "msm") != 0;
        } else {
            fprintf(stderr, "unknown option %s\n", a);
            return 2;
        }
    }
    if (cuzk_gpu_device_count() == 0) {
        printf("no CUDA device\n");
        return 77;
    }
    cuzk_error e = {0};
    if (cuzk_gpu_bench(&o, &e)) {
        fprintf(stderr, "error: %s\n", e.msg);
        return 1;
    }
    return 0;
}
