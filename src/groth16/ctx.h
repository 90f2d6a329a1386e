/* Internal view of cuzk_ctx: the thread pool plus the caller's callbacks,
 * and helpers for timed, cancellable phases. */
#ifndef CUZK_GROTH16_CTX_H
#define CUZK_GROTH16_CTX_H

#include "cuzk/cuzk.h"
#include "util/common.h"
#include "util/threadpool.h"

struct cuzk_ctx {
    cuzk_pool *pool;
    cuzk_ctx_opts opts;
};

/* A running phase: call cuzk_phase_end to report its duration. */
typedef struct cuzk_phase {
    const char *name;
    double t0;
} cuzk_phase;

cuzk_phase cuzk_phase_begin(cuzk_ctx *ctx, const char *name);
void cuzk_phase_end(cuzk_ctx *ctx, cuzk_phase *ph);
void cuzk_progress(cuzk_ctx *ctx, const char *phase, double fraction);
/* CUZK_ERR_CANCELLED (with a message) if the caller asked to cancel. */
cuzk_status cuzk_check_cancel(cuzk_ctx *ctx, cuzk_error *err);

#endif
