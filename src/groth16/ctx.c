#include "groth16/ctx.h"

#include <stdlib.h>
#include <string.h>

cuzk_status cuzk_ctx_create(cuzk_ctx **out, const cuzk_ctx_opts *opts, cuzk_error *err)
{
    *out = NULL;
    cuzk_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory creating context");
    if (opts)
        ctx->opts = *opts;
    ctx->pool = cuzk_pool_create(ctx->opts.threads);
    if (!ctx->pool) {
        int threads = ctx->opts.threads;
        free(ctx);
        return cuzk_err(err, CUZK_ERR_NOMEM, "cannot start %d worker threads", threads);
    }
    *out = ctx;
    return CUZK_OK;
}

void cuzk_ctx_free(cuzk_ctx *ctx)
{
    if (!ctx)
        return;
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

cuzk_phase cuzk_phase_begin(cuzk_ctx *ctx, const char *name)
{
    cuzk_phase ph = {name, cuzk_now()};
    if (ctx && ctx->plan) {
        for (const cuzk_progress_step *s = ctx->plan; s->name; s++)
            if (!strcmp(s->name, name)) {
                ctx->span_lo = s->start;
                ctx->span_hi = s->end;
                break;
            }
    }
    cuzk_progress(ctx, name, 0.0);
    return ph;
}

void cuzk_phase_end(cuzk_ctx *ctx, cuzk_phase *ph)
{
    double dt = cuzk_now() - ph->t0;
    cuzk_progress(ctx, ph->name, 1.0);
    if (ctx && ctx->opts.timing)
        ctx->opts.timing(ctx->opts.user, ph->name, dt);
}

void cuzk_progress(cuzk_ctx *ctx, const char *phase, double fraction)
{
    if (!ctx || !ctx->opts.progress)
        return;
    if (ctx->plan)
        fraction = ctx->span_lo + fraction * (ctx->span_hi - ctx->span_lo);
    ctx->opts.progress(ctx->opts.user, phase, fraction);
}

cuzk_status cuzk_check_cancel(cuzk_ctx *ctx, cuzk_error *err)
{
    if (ctx && ctx->opts.cancel && *ctx->opts.cancel)
        return cuzk_err(err, CUZK_ERR_CANCELLED, "cancelled");
    return CUZK_OK;
}
