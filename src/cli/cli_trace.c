/* Timelines of the CLI's runs (`--trace FILE`): the library's spans
 * (cuzk_ctx_opts.span) as Chrome trace events, one lane per worker thread
 * for host phases and one per CUDA stream of each worker slot for device
 * work, so the overlap of uploads, kernels and CPU phases shows in Perfetto
 * or chrome://tracing. Uses the trace writer of src/util (internal: the CLI
 * links the static library). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "util/trace.h"

enum { LANES = 1024 };

struct cli_tracer {
    cuzk_trace *t;
    double t0;
    pthread_mutex_t mu;
    int base;          /* pid offset of the current section */
    char label[64];    /* the current section's name ("" for none) */
    int nnamed;
    struct {
        int pid, tid;
    } named[LANES];    /* lanes named so far */
};

cuzk_status cli_tracer_open(cli_tracer **out, const char *path, cuzk_error *err)
{
    *out = NULL;
    cli_tracer *tr = calloc(1, sizeof *tr);
    if (!tr) {
        err->code = CUZK_ERR_NOMEM;
        snprintf(err->msg, sizeof err->msg, "%s: out of memory", path);
        return err->code;
    }
    cuzk_status st = cuzk_trace_open(&tr->t, path, err);
    if (st) {
        free(tr);
        return st;
    }
    pthread_mutex_init(&tr->mu, NULL);
    tr->t0 = cli_now();
    *out = tr;
    return CUZK_OK;
}

void cli_tracer_section(cli_tracer *tr, const char *label)
{
    if (!tr)
        return;
    pthread_mutex_lock(&tr->mu);
    tr->base += 16;
    snprintf(tr->label, sizeof tr->label, "%s", label);
    pthread_mutex_unlock(&tr->mu);
}

/* pid base + 1: host, tid = worker; pid base + 2 + device: that GPU, tid =
 * 3 x slot + stream (compute, copy, the host's calls). Returns whether the
 * lane (and its process) is new. */
static void lane(cli_tracer *tr, const cuzk_span *sp, int worker, int *pid, int *tid, int *fresh, int *fresh_proc)
{
    *pid = tr->base + (sp->device < 0 ? 1 : 2 + sp->device);
    *tid = sp->device < 0 ? worker : 3 * sp->worker + (sp->stream >= 0 && sp->stream <= 2 ? sp->stream : 1);
    *fresh = *fresh_proc = 1;
    for (int i = 0; i < tr->nnamed; i++)
        if (tr->named[i].pid == *pid) {
            *fresh_proc = 0;
            if (tr->named[i].tid == *tid)
                *fresh = 0;
        }
    if (*fresh && tr->nnamed < LANES) {
        tr->named[tr->nnamed].pid = *pid;
        tr->named[tr->nnamed].tid = *tid;
        tr->nnamed++;
    }
}

static const char *stream_name(int stream) { return stream == 2 ? "host calls" : stream ? "copy" : "compute"; }

void cli_tracer_span(cli_tracer *tr, int worker, const cuzk_span *sp)
{
    if (!tr || !sp)
        return;
    int pid, tid, fresh, fresh_proc;
    char label[sizeof tr->label + 2];
    pthread_mutex_lock(&tr->mu);
    lane(tr, sp, worker, &pid, &tid, &fresh, &fresh_proc);
    snprintf(label, sizeof label, "%s%s", tr->label, tr->label[0] ? ": " : "");
    pthread_mutex_unlock(&tr->mu);
    char name[160];
    if (fresh_proc) {
        if (sp->device < 0)
            snprintf(name, sizeof name, "%shost (CPU phases per worker)", label);
        else
            snprintf(name, sizeof name, "%sGPU %d (streams per worker slot)", label, sp->device);
        cuzk_trace_name_process(tr->t, pid, name);
    }
    if (fresh) {
        if (sp->device < 0)
            snprintf(name, sizeof name, "worker %d", worker);
        else
            snprintf(name, sizeof name, "slot %d %s", sp->worker, stream_name(sp->stream));
        cuzk_trace_name_thread(tr->t, pid, tid, name);
    }
    char ms[32];
    snprintf(ms, sizeof ms, "%.3f", (sp->end - sp->start) * 1e3);
    const char *args[] = {"ms", ms};
    const char *cat = sp->device < 0 ? "host" : sp->stream == 2 ? "calls" : sp->stream ? "copy" : "kernels";
    cuzk_trace_complete(tr->t, sp->name, cat, pid, tid, (sp->start - tr->t0) * 1e6, (sp->end - sp->start) * 1e6, args,
                        1);
}

cuzk_status cli_tracer_close(cli_tracer *tr, cuzk_error *err)
{
    if (!tr)
        return CUZK_OK;
    cuzk_status st = cuzk_trace_close(tr->t, err);
    pthread_mutex_destroy(&tr->mu);
    free(tr);
    return st;
}

int cli_run_traced(const cli_common *common, const char *trace, cli_run_fn fn, void *user)
{
    cuzk_error err = {0};
    cli_tracer *tr = NULL;
    if (trace && cli_tracer_open(&tr, trace, &err))
        return cli_fail(&err);
    cli_trace_to(tr);
    cuzk_ctx *ctx = NULL;
    cuzk_status st = cli_make_ctx(&ctx, common, &err);
    if (!st) {
        double t0 = cli_now();
        st = fn(ctx, user, &err);
        cli_progress_done();
        if (common->verbose)
            fprintf(stderr, "CUZK_TIMING phase=total ms=%.3f\n", (cli_now() - t0) * 1e3);
        cuzk_ctx_free(ctx);
    }
    cli_trace_to(NULL);
    cuzk_error terr = {0};
    cuzk_status tst = cli_tracer_close(tr, &terr); /* the trace is kept (valid JSON) also after an error */
    if (st)
        return cli_fail(&err);
    return tst ? cli_fail(&terr) : 0;
}
