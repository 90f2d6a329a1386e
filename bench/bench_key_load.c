/* Key load time: cuzk_key_load as the library and the daemon load a key (a
 * copy read with pread) and as `cuzk prove` does (the file's mapping used in
 * place), alternating, median of N of each: wall time, and the process's
 * CPU time (all threads), which still compares code versions on a loaded
 * machine. The file is read once first so both find it in the page cache.
 * Not a test.
 *
 *   bench_key_load circuit.zkey [-n N] [-t THREADS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "cuzk/cuzk.h"

int main(int argc, char **argv)
{
    const char *zkey = NULL;
    int n = 5, threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc)
            n = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!zkey)
            zkey = argv[i];
    }
    if (!zkey || n < 1 || n > 1000) {
        fprintf(stderr, "usage: bench_key_load circuit.zkey [-n 1..1000] [-t THREADS]\n");
        return 1;
    }
    FILE *f = fopen(zkey, "rb");
    if (!f) {
        perror(zkey);
        return 1;
    }
    char buf[1 << 16];
    while (fread(buf, 1, sizeof buf, f) == sizeof buf)
        ;
    fclose(f);

    cuzk_error e = {0};
    cuzk_ctx *ctx;
    if (cuzk_ctx_create(&ctx, &(cuzk_ctx_opts){.threads = threads}, &e)) {
        fprintf(stderr, "Error: %s\n", e.msg);
        return 1;
    }
    double *t[4];
    for (int m = 0; m < 4; m++)
        t[m] = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; i++)
        for (int m = 0; m < 2; m++) {
            cuzk_key *key;
            double t0 = bench_clock(CLOCK_MONOTONIC), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
            if (cuzk_key_load(&key, ctx, zkey, &(cuzk_key_opts){.map_in_place = m}, &e)) {
                fprintf(stderr, "Error: %s\n", e.msg);
                return 1;
            }
            t[m][i] = bench_clock(CLOCK_MONOTONIC) - t0;
            t[2 + m][i] = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
            cuzk_key_free(key);
        }
    printf("key load %s, median of %d: copy (pread) %.1f ms (cpu %.1f ms), in place (mmap) %.1f ms "
           "(cpu %.1f ms)\n",
           zkey, n, 1e3 * bench_median(t[0], n), 1e3 * bench_median(t[2], n), 1e3 * bench_median(t[1], n),
           1e3 * bench_median(t[3], n));
    for (int m = 0; m < 4; m++)
        free(t[m]);
    cuzk_ctx_free(ctx);
    return 0;
}
