/* The MSM sizes and scalar layout a key shape (include/cuzk/gpu_plan.h)
 * implies, for snarkjs keys and bellperson mode alike: used by the device
 * plan (groth16/gpu_plan.c), the host plan (groth16/host_plan.c) and the
 * GPU backend (gpu/g16/g16_backend.cu), so that the three agree. */
#ifndef CUZK_GPU_G16_SHAPE_H
#define CUZK_GPU_G16_SHAPE_H

#include <stdint.h>

#include "cuzk/gpu_plan.h"

/* B1 / B2 points. */
static inline uint64_t g16_shape_b_points(const cuzk_gpu_key_shape *s)
{
    return s->bellperson ? s->n_b : s->n_b ? s->n_b : s->n_vars;
}
/* A points. */
static inline uint64_t g16_shape_a_points(const cuzk_gpu_key_shape *s)
{
    return s->bellperson ? s->n_a : s->n_vars;
}
/* Fewer B (A) points than wires: their scalars are a selection. */
static inline int g16_shape_b_dropped(const cuzk_gpu_key_shape *s) { return g16_shape_b_points(s) < s->n_vars; }
static inline int g16_shape_a_dropped(const cuzk_gpu_key_shape *s) { return g16_shape_a_points(s) < s->n_vars; }
/* H points: the domain (bellperson: one less). */
static inline uint64_t g16_shape_h_points(const cuzk_gpu_key_shape *s)
{
    return ((uint64_t)1 << s->log_domain) - (s->bellperson ? 1 : 0);
}
/* Bellperson mode: offsets (in scalars) of the A and B selections in a
 * proof's scalars (0: the witness itself), and the scalars' count. */
static inline uint64_t g16_shape_a_offset(const cuzk_gpu_key_shape *s)
{
    return s->bellperson && g16_shape_a_dropped(s) ? s->n_vars : 0;
}
static inline uint64_t g16_shape_b_offset(const cuzk_gpu_key_shape *s)
{
    return s->bellperson && g16_shape_b_dropped(s) ? s->n_vars + (g16_shape_a_dropped(s) ? s->n_a : 0) : 0;
}
static inline uint64_t g16_shape_scalars(const cuzk_gpu_key_shape *s)
{
    if (!s->bellperson)
        return s->n_vars;
    return s->n_vars + (g16_shape_a_dropped(s) ? s->n_a : 0) + (g16_shape_b_dropped(s) ? s->n_b : 0);
}

#endif
