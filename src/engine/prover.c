/* Prover backend adapter over libcuzk's public API (see prover.h): one
 * thread pool shared by the workers, a context per worker whose callbacks
 * feed the worker's progress and cancel flag, keys loaded once with
 * cuzk_key_load and proofs made with cuzk_prove (which verifies them). */
#include "engine/prover.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/formats.h"
#include "util/common.h"

struct eng_backend {
    cuzk_pool *pool;
};

struct eng_worker_ctx {
    cuzk_ctx *ctx;
    eng_progress *p;
};

struct eng_key {
    cuzk_key *key;
};

cuzk_status eng_backend_create(eng_backend **out, int threads, cuzk_error *err)
{
    eng_backend *b = calloc(1, sizeof *b);
    if (!b || !(b->pool = cuzk_pool_create(threads))) {
        free(b);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: cannot start the thread pool");
    }
    *out = b;
    return CUZK_OK;
}

void eng_backend_free(eng_backend *b)
{
    if (!b)
        return;
    cuzk_pool_destroy(b->pool);
    free(b);
}

static void on_progress(void *user, cuzk_phase phase, double fraction)
{
    eng_worker_ctx *w = user;
    atomic_store(&w->p->phase, cuzk_phase_name(phase));
    atomic_store(&w->p->fraction, fraction);
}

static void on_timing(void *user, cuzk_phase phase, double seconds)
{
    eng_worker_ctx *w = user;
    if (w->p->timing)
        w->p->timing(w->p->user, cuzk_phase_name(phase), seconds);
}

static int on_cancelled(void *user)
{
    eng_worker_ctx *w = user;
    return atomic_load(&w->p->cancel);
}

cuzk_status eng_worker_ctx_create(eng_worker_ctx **out, eng_backend *b, eng_progress *p,
                                  cuzk_error *err)
{
    eng_worker_ctx *w = calloc(1, sizeof *w);
    if (!w)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: out of memory");
    w->p = p;
    cuzk_ctx_opts o = {.pool = b->pool, .progress = on_progress, .timing = on_timing,
                       .cancelled = on_cancelled, .user = w};
    cuzk_status st = cuzk_ctx_create(&w->ctx, &o, err);
    if (st) {
        free(w);
        return st;
    }
    *out = w;
    return CUZK_OK;
}

void eng_worker_ctx_free(eng_worker_ctx *w)
{
    if (!w)
        return;
    cuzk_ctx_free(w->ctx);
    free(w);
}

cuzk_status eng_key_meta_read(const char *path, eng_key_meta *out, cuzk_error *err)
{
    cuzk_zkey zk = {0};
    cuzk_zkey_read_opts ro = {.header_only = true};
    cuzk_status st = cuzk_zkey_read(&zk, path, &ro, err);
    if (st)
        return st;
    struct stat sb;
    memset(out, 0, sizeof *out);
    out->curve = zk.curve;
    out->n_vars = zk.n_vars;
    out->n_public = zk.n_public;
    out->domain_size = zk.domain_size;
    out->file_bytes = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    cuzk_zkey_free(&zk);
    return CUZK_OK;
}

cuzk_status eng_key_load(eng_worker_ctx *w, const char *path, int device, uint64_t device_budget,
                         unsigned gpu_workers, int msm_copies, int stage_bases, eng_key **out, uint64_t *host_bytes,
                         uint64_t *device_bytes, cuzk_error *err)
{
    eng_key *k = calloc(1, sizeof *k);
    if (!k)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    cuzk_key_opts ko = {.backend = device < 0 ? CUZK_BACKEND_CPU : CUZK_BACKEND_GPU,
                        .device = device < 0 ? 0 : device,
                        .device_budget = device < 0 ? 0 : device_budget,
                        .gpu_workers = gpu_workers,
                        .gpu_msm_copies = device < 0 ? 0 : msm_copies,
                        .gpu_stage_bases = device < 0 ? 0 : stage_bases,
                        /* the key in its file's mapping: page cache, not anonymous memory; a
                           file truncated under it fails its jobs (CUZK_ERR_IO), never the daemon */
                        .map_in_place = 1,
                        /* the engine admits jobs by its own host budget (memory.host) */
                        .host_budget = UINT64_MAX};
    cuzk_status st = cuzk_key_load(&k->key, w->ctx, path, &ko, err);
    if (st) {
        free(k);
        return st;
    }
    cuzk_key_info ki;
    cuzk_key_get_info(k->key, &ki);
    *host_bytes = ki.host_bytes;
    *device_bytes = ki.device_bytes;
    *out = k;
    return CUZK_OK;
}

void eng_key_free(eng_key *k)
{
    if (!k)
        return;
    cuzk_key_free(k->key);
    free(k);
}

uint64_t eng_job_host_bytes(const eng_key_meta *m, uint64_t witness_bytes)
{
    /* The witness in Montgomery form, a/b/c over the domain and the NTT's
     * coset copies (about 8 domain-sized Fr vectors), MSM buckets. */
    return 2 * witness_bytes + 8ull * m->domain_size * 32 + (16u << 20);
}

cuzk_status eng_witness_check(const void *data, size_t len, const char *name,
                              const eng_key_meta *m, cuzk_error *err)
{
    cuzk_witness *w = NULL;
    cuzk_status st = cuzk_witness_load_buffer(&w, data, len, name, err);
    if (st)
        return st;
    if (cuzk_witness_curve(w) != m->curve)
        st = cuzk_err_force(err, CUZK_ERR_MISMATCH, "%s: a %s witness for a %s key", name,
                            cuzk_curve_name(cuzk_witness_curve(w)), cuzk_curve_name(m->curve));
    else if (cuzk_witness_count(w) != m->n_vars)
        st = cuzk_err_force(err, CUZK_ERR_MISMATCH,
                            "%s: Invalid witness length. Circuit: %u, witness: %u", name,
                            m->n_vars, cuzk_witness_count(w));
    cuzk_witness_free(w);
    return st;
}

cuzk_status eng_witness_check_file(const char *path, const char *name, const eng_key_meta *m,
                                   cuzk_error *err)
{
    cuzk_curve curve;
    uint32_t n;
    cuzk_status st = cuzk_wtns_check_file(path, name, &curve, &n, err);
    if (st)
        return st;
    if (curve != m->curve)
        return cuzk_err_force(err, CUZK_ERR_MISMATCH, "%s: a %s witness for a %s key", name,
                              cuzk_curve_name(curve), cuzk_curve_name(m->curve));
    if (n != m->n_vars)
        return cuzk_err_force(err, CUZK_ERR_MISMATCH, "%s: Invalid witness length. Circuit: %u, witness: %u",
                              name, m->n_vars, n);
    return CUZK_OK;
}

cuzk_status eng_prove(eng_worker_ctx *w, const eng_key *k, const char *wtns_path,
                      const void *wtns, size_t wtns_len, char **proof_json, char **public_json,
                      cuzk_error *err)
{
    *proof_json = *public_json = NULL;
    if (atomic_load(&w->p->cancel))
        return cuzk_err_force(err, CUZK_ERR_CANCELLED, "cancelled");
    cuzk_witness *wt = NULL;
    cuzk_proof *proof = NULL;
    size_t len;
    cuzk_status st = wtns_path ? cuzk_witness_load(&wt, wtns_path, err)
                               : cuzk_witness_load_buffer(&wt, wtns, wtns_len, "witness", err);
    if (!st)
        st = cuzk_prove(w->ctx, k->key, wt, NULL, &proof, err);
    if (!st)
        st = cuzk_proof_to_json(proof, CUZK_JSON_SNARKJS, proof_json, &len, err);
    if (!st)
        st = cuzk_proof_public_json(proof, CUZK_JSON_SNARKJS, public_json, &len, err);
    if (st) {
        free(*proof_json);
        *proof_json = NULL;
    }
    cuzk_proof_free(proof);
    cuzk_witness_free(wt);
    return st;
}
