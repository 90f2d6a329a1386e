/* Engine entry points. Placeholder implementations (CUZK_ERR_UNSUPPORTED)
 * until the queue, key cache and workers land. */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cuzk_status todo(cuzk_error *err, const char *what)
{
    if (err) {
        err->code = CUZK_ERR_UNSUPPORTED;
        snprintf(err->msg, sizeof err->msg, "engine: %s is not implemented yet", what);
    }
    return CUZK_ERR_UNSUPPORTED;
}

const char *cuzk_engine_code_name(int code)
{
    switch (code) {
    case CUZK_ENGINE_NOT_FOUND: return "not_found";
    case CUZK_ENGINE_CONFLICT: return "conflict";
    case CUZK_ENGINE_BUSY: return "busy";
    case CUZK_ENGINE_DRAINING: return "draining";
    case CUZK_ENGINE_TOO_LARGE: return "too_large";
    default: return cuzk_status_name((cuzk_status)code);
    }
}

static const char *const PRIO[] = {"critical", "high", "normal", "low"};
static const char *const STATE[] = {"queued", "running", "done", "failed", "cancelled"};

const char *cuzk_priority_name(cuzk_priority p)
{
    return (unsigned)p < 4 ? PRIO[p] : "?";
}

int cuzk_priority_parse(const char *s)
{
    for (int i = 0; s && i < 4; i++)
        if (!strcmp(s, PRIO[i]))
            return i;
    return -1;
}

const char *cuzk_job_state_name(cuzk_job_state s)
{
    return (unsigned)s < 5 ? STATE[s] : "?";
}

int cuzk_job_state_parse(const char *s)
{
    for (int i = 0; s && i < 5; i++)
        if (!strcmp(s, STATE[i]))
            return i;
    return -1;
}

cuzk_status cuzk_engine_open(cuzk_engine **out, const cuzk_config *cfg,
                             const cuzk_engine_hooks *hooks, cuzk_error *err)
{
    *out = NULL;
    return todo(err, "cuzk_engine_open");
}
void cuzk_engine_drain(cuzk_engine *e, double timeout_s) {}
void cuzk_engine_close(cuzk_engine *e) {}
cuzk_status cuzk_engine_key_register(cuzk_engine *e, const char *zkey_path, int load,
                                     cuzk_engine_key_info *out, cuzk_error *err)
{ return todo(err, "key_register"); }
cuzk_status cuzk_engine_key_get(cuzk_engine *e, const char *key_id, cuzk_engine_key_info *out,
                                cuzk_error *err)
{ return todo(err, "key_get"); }
cuzk_status cuzk_engine_key_list(cuzk_engine *e, cuzk_engine_key_info **out, size_t *n,
                                 cuzk_error *err)
{ return todo(err, "key_list"); }
cuzk_status cuzk_engine_key_evict(cuzk_engine *e, const char *key_id, cuzk_error *err)
{ return todo(err, "key_evict"); }
cuzk_status cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req,
                               cuzk_job_info *out, int *existed, cuzk_error *err)
{ return todo(err, "submit"); }
cuzk_status cuzk_engine_job_get(cuzk_engine *e, const char *job_id, cuzk_job_info *out,
                                cuzk_error *err)
{ return todo(err, "job_get"); }
cuzk_status cuzk_engine_job_wait(cuzk_engine *e, const char *job_id, double timeout_s,
                                 cuzk_job_info *out, cuzk_error *err)
{ return todo(err, "job_wait"); }
cuzk_status cuzk_engine_job_result(cuzk_engine *e, const char *job_id, char **proof_json,
                                   char **public_json, cuzk_error *err)
{ return todo(err, "job_result"); }
cuzk_status cuzk_engine_job_cancel(cuzk_engine *e, const char *job_id, cuzk_job_info *out,
                                   cuzk_error *err)
{ return todo(err, "job_cancel"); }
cuzk_status cuzk_engine_job_list(cuzk_engine *e, const cuzk_job_filter *filter,
                                 cuzk_job_info **out, size_t *n, cuzk_error *err)
{ return todo(err, "job_list"); }
cuzk_status cuzk_engine_snapshot_get(cuzk_engine *e, cuzk_engine_snapshot **out,
                                     cuzk_error *err)
{ return todo(err, "snapshot_get"); }
void cuzk_engine_snapshot_free(cuzk_engine_snapshot *s) {}
