/* Clock and statistics shared by the benchmark programs in bench/. */
#ifndef CUZK_BENCH_STATS_H
#define CUZK_BENCH_STATS_H

#include <stdlib.h>
#include <time.h>

/* Seconds on `clk` (CLOCK_MONOTONIC: wall; CLOCK_PROCESS_CPUTIME_ID: CPU
 * time of all threads). */
static inline double bench_clock(clockid_t clk)
{
    struct timespec ts;
    clock_gettime(clk, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v). */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static inline double bench_mean(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s / n;
}

#endif
