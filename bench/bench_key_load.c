/* Key load time: cuzk_key_load as the library and the daemon load a key (a
 * copy read with pread) and as `cuzk prove` does (the file's mapping used in
 * place), alternating, median of N of each. The file is read once first so
 * both find it in the page cache. Not a test.
 *
 *   bench_key_load circuit.zkey [-n N] [-t THREADS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/cuzk.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

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
    double *t[2] = {calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double))};
    for (int i = 0; i < n; i++)
        for (int m = 0; m < 2; m++) {
            cuzk_key *key;
            double t0 = now();
            if (cuzk_key_load(&key, ctx, zkey, &(cuzk_key_opts){.map_in_place = m}, &e)) {
                fprintf(stderr, "Error: %s\n", e.msg);
                return 1;
            }
            t[m][i] = now() - t0;
            cuzk_key_free(key);
        }
    printf("key load %s, median of %d: copy (pread) %.1f ms, in place (mmap) %.1f ms\n", zkey, n,
           1e3 * median(t[0], n), 1e3 * median(t[1], n));
    free(t[0]);
    free(t[1]);
    cuzk_ctx_free(ctx);
    return 0;
}
