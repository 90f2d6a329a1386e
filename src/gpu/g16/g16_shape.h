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
/* Bellperson mode: where A's and B's scalars come from. Tiers 1-6 select
 * them on the device from the one witness, through per-proof bitmaps of the
 * wires each takes (g16_shape_select_bytes); tier 7 (host witness) on the
 * host, from its raw witness into its page-locked vector once h's MSM is
 * done (A's, then B's once A's MSM is: the vector holds the larger
 * selection, g16_shape_select_scalars). */
/* Bellperson mode, tiers 1-6: 32-bit words of one wire bitmap; the bytes of
 * the selections' bitmaps and their words' offsets (a prefix sum of their
 * popcounts), per proof, beside the witness; the scalars of the largest
 * selection, gathered into the buffer of h once its MSM is issued (a
 * buffer of their own when larger than the domain; tier 7: h's page-locked
 * vector, as large as both). */
static inline uint64_t g16_shape_select_words(const cuzk_gpu_key_shape *s) { return (s->n_vars + 31) / 32; }
static inline uint64_t g16_shape_select_bytes(const cuzk_gpu_key_shape *s)
{
    if (!s->bellperson)
        return 0;
    const uint64_t sel = (uint64_t)(g16_shape_a_dropped(s) + g16_shape_b_dropped(s));
    return sel * 2 * 4 * g16_shape_select_words(s);
}
static inline uint64_t g16_shape_select_scalars(const cuzk_gpu_key_shape *s)
{
    if (!s->bellperson)
        return 0;
    const uint64_t a = g16_shape_a_dropped(s) ? s->n_a : 0, b = g16_shape_b_dropped(s) ? s->n_b : 0;
    return a > b ? a : b;
}

#endif
