#include "groth16/ctx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const PHASE_NAMES[CUZK_PHASE_COUNT] = {
    [CUZK_PHASE_LOAD_KEY] = "load_zkey",
    [CUZK_PHASE_LOAD_WITNESS] = "load_wtns",
    [CUZK_PHASE_PREPARE] = "prepare",
    [CUZK_PHASE_ABC] = "abc",
    [CUZK_PHASE_NTT] = "ntt",
    [CUZK_PHASE_MSM_H] = "msm_h",
    [CUZK_PHASE_MSM_A] = "msm_a",
    [CUZK_PHASE_MSM_B1] = "msm_b1",
    [CUZK_PHASE_MSM_C] = "msm_c",
    [CUZK_PHASE_MSM_B2] = "msm_b2",
    [CUZK_PHASE_ASSEMBLE] = "assemble",
    [CUZK_PHASE_VERIFY] = "verify",
    [CUZK_PHASE_WRITE] = "write",
    [CUZK_PHASE_LOAD] = "load",
    [CUZK_PHASE_PAIRING] = "pairing",
    [CUZK_PHASE_SETUP_READ] = "setup_read",
    [CUZK_PHASE_SETUP_LAGRANGE] = "setup_lagrange",
    [CUZK_PHASE_SETUP_QAP] = "setup_qap",
    [CUZK_PHASE_SETUP_SCALARS] = "setup_scalars",
    [CUZK_PHASE_SETUP_COEFS] = "setup_coefs",
    [CUZK_PHASE_SETUP_A] = "setup_a",
    [CUZK_PHASE_SETUP_B1] = "setup_b1",
    [CUZK_PHASE_SETUP_B2] = "setup_b2",
    [CUZK_PHASE_SETUP_IC_C] = "setup_ic_c",
    [CUZK_PHASE_SETUP_H] = "setup_h",
    [CUZK_PHASE_SETUP_WRITE] = "setup_write",
    [CUZK_PHASE_GEN_COUNT] = "gen_count",
    [CUZK_PHASE_GEN_WRITE] = "gen_write",
    [CUZK_PHASE_PREP_SCALARS] = "prep_scalars",
};

const char *cuzk_phase_name(cuzk_phase phase)
{
    if ((unsigned)phase >= CUZK_PHASE_COUNT || !PHASE_NAMES[phase])
        return "unknown";
    return PHASE_NAMES[phase];
}

cuzk_status cuzk_ctx_create(cuzk_ctx **out, const cuzk_ctx_opts *opts, cuzk_error *err)
{
    *out = NULL;
    cuzk_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory creating context");
    if (opts)
        ctx->opts = *opts;
    if (ctx->opts.pool) {
        ctx->pool = ctx->opts.pool;
    } else {
        ctx->pool = cuzk_pool_create(ctx->opts.threads);
        ctx->own_pool = true;
        if (!ctx->pool) {
            int threads = ctx->opts.threads;
            free(ctx);
            return cuzk_err(err, CUZK_ERR_NOMEM, "cannot start %d worker threads", threads);
        }
    }
    *out = ctx;
    return CUZK_OK;
}

void cuzk_ctx_free(cuzk_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->own_pool)
        cuzk_pool_destroy(ctx->pool);
    free(ctx);
}

int cuzk_ctx_threads(const cuzk_ctx *ctx) { return cuzk_pool_size(ctx->pool); }

void cuzk_progress_plan(cuzk_ctx *ctx, const cuzk_progress_step *plan)
{
    ctx->plan = plan;
    ctx->span_lo = 0.0;
    ctx->span_hi = 1.0;
}

cuzk_phase_timer cuzk_phase_begin(cuzk_ctx *ctx, cuzk_phase phase)
{
    cuzk_phase_timer ph = {phase, cuzk_now()};
    if (ctx && ctx->plan) {
        for (const cuzk_progress_step *s = ctx->plan; s->end > 0; s++)
            if (s->phase == phase) {
                ctx->span_lo = s->start;
                ctx->span_hi = s->end;
                break;
            }
    }
    cuzk_progress(ctx, phase, 0.0);
    return ph;
}

void cuzk_phase_end(cuzk_ctx *ctx, cuzk_phase_timer *ph)
{
    double t1 = cuzk_now();
    cuzk_progress(ctx, ph->phase, 1.0);
    if (ctx && ctx->opts.span) {
        cuzk_span sp = {cuzk_phase_name(ph->phase), ph->phase, -1, ctx->worker, 0, ph->t0, t1};
        ctx->opts.span(ctx->opts.user, &sp);
    }
    if (ctx && ctx->opts.timing)
        ctx->opts.timing(ctx->opts.user, ph->phase, t1 - ph->t0);
}

void cuzk_ctx_span(cuzk_ctx *ctx, const cuzk_span *span)
{
    if (ctx && ctx->opts.span)
        ctx->opts.span(ctx->opts.user, span);
}

bool cuzk_ctx_cancelled(cuzk_ctx *ctx)
{
    return ctx && ctx->opts.cancelled && ctx->opts.cancelled(ctx->opts.user);
}

void cuzk_progress(cuzk_ctx *ctx, cuzk_phase phase, double fraction)
{
    if (!ctx || !ctx->opts.progress)
        return;
    if (ctx->plan)
        fraction = ctx->span_lo + fraction * (ctx->span_hi - ctx->span_lo);
    ctx->opts.progress(ctx->opts.user, phase, fraction);
}

const char *cuzk_ctx_set_subject(cuzk_ctx *ctx, const char *name)
{
    const char *old = ctx->subject;
    ctx->subject = name;
    return old;
}

cuzk_status cuzk_err_name(cuzk_error *err, cuzk_status st, const char *name, const char *other)
{
    if (st && err && name && err->msg[0] && !strstr(err->msg, name) && !(other && strstr(err->msg, other))) {
        char msg[CUZK_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        cuzk_err_force(err, st, "%s: %s", name, msg);
    }
    return st;
}

cuzk_status cuzk_check_cancel(cuzk_ctx *ctx, cuzk_error *err)
{
    if (ctx && ctx->opts.cancelled && ctx->opts.cancelled(ctx->opts.user))
        return ctx->subject ? cuzk_err(err, CUZK_ERR_CANCELLED, "%s: cancelled; nothing written", ctx->subject)
                            : cuzk_err(err, CUZK_ERR_CANCELLED, "cancelled");
    return CUZK_OK;
}
