/* Internal parts of the host-memory plan (host_plan.c) for the device
 * plan's tier search (gpu_plan.c). */
#ifndef CUZK_GROTH16_HOST_PLAN_H
#define CUZK_GROTH16_HOST_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "cuzk/gpu_plan.h"

/* The key's points and coefficient records (zkey arrays), bytes. */
size_t host_plan_key_data(const cuzk_gpu_key_shape *s);
/* The budget a host plan must fit (SIZE_MAX: none); *measured: the
 * available memory read now (0 when given). */
size_t host_plan_budget(const cuzk_host_plan_opts *o, size_t *measured);
/* The host side of device plan p (its tier and items) for W workers. */
void host_plan_gpu(const cuzk_gpu_key_shape *s, const cuzk_gpu_plan *p, unsigned W, bool mapped, cuzk_host_plan *h);

#endif
