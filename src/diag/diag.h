/* What the GPU diagnostics (selftest.c, bench.c) share: their log line and
 * one group of a curve as the CPU computes it. Internal, CUDA builds only. */
#ifndef CUZK_DIAG_H
#define CUZK_DIAG_H

#include <stdarg.h>
#include <stdio.h>

#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "groth16/curve_ops.h"
#include "util/common.h"

/* One line to log(log_arg, line), or to stdout (flushed) when log is NULL. */
static inline void cuzk_diag_vsay(cuzk_gpu_log_fn log, void *log_arg, const char *fmt, va_list ap)
{
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    if (log) {
        log(log_arg, line);
    } else {
        printf("%s\n", line);
        fflush(stdout);
    }
}

/* The CPU operations of one group of a curve. */
typedef struct cuzk_diag_group {
    const cuzk_curve_ops *ops;
    cuzk_curve curve;
    cuzk_gpu_group group;
    char name[32];   /* "bn254 G1" */
    size_t aff;      /* bytes of an affine point */
    const void *gen; /* the generator, affine */
    const uint64_t *r; /* the scalar field's modulus */
    void (*mul_affine)(void *j, const void *a, const uint64_t *k, size_t limbs);
    void (*to_affine)(void *a, const void *j);
    cuzk_status (*batch_mul)(void *out, const void *base, const void *k, size_t n, cuzk_pool *pool, cuzk_error *e);
    cuzk_status (*msm)(void *j, const void *bases, const void *scalars, size_t n, cuzk_pool *pool, cuzk_error *e);
} cuzk_diag_group;

static inline cuzk_diag_group cuzk_diag_group_of(const cuzk_curve_ops *ops, cuzk_gpu_group g)
{
    const cuzk_curve_desc *d = ops->desc;
    cuzk_diag_group r = {.ops = ops, .curve = d->curve, .group = g, .r = d->r};
    snprintf(r.name, sizeof r.name, "%s %s", d->id, g == CUZK_GPU_G1 ? "G1" : "G2");
    if (g == CUZK_GPU_G1) {
        r.aff = d->g1_affine;
        r.gen = d->g1_generator;
        r.mul_affine = ops->g1_mul_affine;
        r.to_affine = ops->g1_to_affine;
        r.batch_mul = ops->g1_batch_mul;
        r.msm = ops->g1_msm;
    } else {
        r.aff = d->g2_affine;
        r.gen = d->g2_generator;
        r.mul_affine = ops->g2_mul_affine;
        r.to_affine = ops->g2_to_affine;
        r.batch_mul = ops->g2_batch_mul;
        r.msm = ops->g2_msm;
    }
    return r;
}

#endif
