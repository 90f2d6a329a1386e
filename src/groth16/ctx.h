/* Internal view of cuzk_ctx: the thread pool plus the caller's callbacks,
 * and helpers for timed, cancellable phases. */
#ifndef CUZK_GROTH16_CTX_H
#define CUZK_GROTH16_CTX_H

#include "cuzk/cuzk.h"
#include "util/common.h"
#include "util/threadpool.h"

/* Relative weights of the phases of one operation, so progress is reported
 * as one overall fraction: phase `phase` covers [start, end). A plan is an
 * array ended by an entry with end == 0. */
typedef struct cuzk_progress_step {
    cuzk_phase phase;
    double start, end;
} cuzk_progress_step;

struct cuzk_ctx {
    cuzk_pool *pool;
    bool own_pool;
    cuzk_ctx_opts opts;
    const cuzk_progress_step *plan; /* or NULL */
    double span_lo, span_hi;        /* the running phase's share of the whole */
    const char *subject;            /* the file or request being worked on (cuzk_ctx_set_subject), or NULL */
    int worker;                     /* host spans' worker (cuzk_span.worker): the operation's worker
                                       thread in a per-thread copy of the context, else 0 */
};

/* Names the file or request the running operation is for, in the messages
 * that would otherwise name none (cancellation: "<name>: cancelled; nothing
 * written"). Returns the previous name, to be given back when the operation
 * ends (operations nest: a file prove loads a key and proves a witness). */
const char *cuzk_ctx_set_subject(cuzk_ctx *ctx, const char *name);
/* After a failed operation on `name`: a message that names neither name nor
 * `other` (may be NULL) becomes "<name>: <message>". Returns st. */
cuzk_status cuzk_err_name(cuzk_error *err, cuzk_status st, const char *name, const char *other);

/* Sets the phase plan of the operation that starts now (NULL: none). */
void cuzk_progress_plan(cuzk_ctx *ctx, const cuzk_progress_step *plan);

/* A running phase: call cuzk_phase_end to report its duration. */
typedef struct cuzk_phase_timer {
    cuzk_phase phase;
    double t0;
} cuzk_phase_timer;

cuzk_phase_timer cuzk_phase_begin(cuzk_ctx *ctx, cuzk_phase phase);
void cuzk_phase_end(cuzk_ctx *ctx, cuzk_phase_timer *ph);
/* Progress within the running phase (fraction of that phase); reported to
 * the caller as the overall fraction of the operation when a plan is set. */
void cuzk_progress(cuzk_ctx *ctx, cuzk_phase phase, double fraction);
/* Reports a span (device work; host phases are reported by
 * cuzk_phase_end) to the caller's span callback, if any. */
void cuzk_ctx_span(cuzk_ctx *ctx, const cuzk_span *span);
/* Whether the caller asks to cancel now (for polls inside a step). */
bool cuzk_ctx_cancelled(cuzk_ctx *ctx);
/* CUZK_ERR_CANCELLED if the caller asked to cancel, naming the subject. */
cuzk_status cuzk_check_cancel(cuzk_ctx *ctx, cuzk_error *err);

#endif
