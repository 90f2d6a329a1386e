/* Prover backend adapter over libcuzk (see prover.h). */
#include "engine/prover.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/formats.h"
#include "util/common.h"

struct eng_backend {
    int threads;
};

struct eng_worker_ctx {
    cuzk_ctx *ctx;
    eng_progress *p;
};

struct eng_key {
    char *path;
};

cuzk_status eng_backend_create(eng_backend **out, int threads, cuzk_error *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: out of memory");
    (*out)->threads = threads;
    return CUZK_OK;
}

void eng_backend_free(eng_backend *b)
{
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
    return atomic_load(&w->p->cancel) != 0;
}

cuzk_status eng_worker_ctx_create(eng_worker_ctx **out, eng_backend *b, eng_progress *p,
                                  cuzk_error *err)
{
    eng_worker_ctx *w = calloc(1, sizeof *w);
    if (!w)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "engine: out of memory");
    w->p = p;
    cuzk_ctx_opts o = {.threads = b->threads, .progress = on_progress, .timing = on_timing,
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

cuzk_status eng_key_load(eng_worker_ctx *w, const char *path, int device, eng_key **out,
                         uint64_t *host_bytes, uint64_t *device_bytes, cuzk_error *err)
{
    eng_key_meta m;
    cuzk_status st = eng_key_meta_read(path, &m, err);
    if (st)
        return st;
    eng_key *k = calloc(1, sizeof *k);
    if (!k || !(k->path = strdup(path))) {
        free(k);
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    }
    *out = k;
    *host_bytes = m.file_bytes;
    *device_bytes = 0;
    return CUZK_OK;
}

void eng_key_free(eng_key *k)
{
    if (!k)
        return;
    free(k->path);
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
    cuzk_wtns w = {0};
    cuzk_status st = cuzk_wtns_read_buffer(&w, data, len, name, err);
    if (st)
        return st;
    if (w.curve != m->curve)
        st = cuzk_err_force(err, CUZK_ERR_MISMATCH, "%s: a %s witness for a %s key", name,
                            cuzk_curve_name(w.curve), cuzk_curve_name(m->curve));
    else if (w.n_witness != m->n_vars)
        st = cuzk_err_force(err, CUZK_ERR_MISMATCH,
                            "%s: Invalid witness length. Circuit: %u, witness: %u", name,
                            m->n_vars, w.n_witness);
    cuzk_wtns_free(&w);
    return st;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char tmp[65536];
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = 2 * (len + n + 1);
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + len, tmp, n);
        len += n;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[len] = 0;
    return buf;
}

cuzk_status eng_prove(eng_worker_ctx *w, const eng_key *k, const char *wtns_path,
                      const char *scratch, char **proof_json, char **public_json,
                      cuzk_error *err)
{
    *proof_json = *public_json = NULL;
    if (on_cancelled(w))
        return cuzk_err_force(err, CUZK_ERR_CANCELLED, "cancelled");
    char proof_path[4200], public_path[4200];
    snprintf(proof_path, sizeof proof_path, "%s/%p.proof.json", scratch, (void *)w);
    snprintf(public_path, sizeof public_path, "%s/%p.public.json", scratch, (void *)w);
    cuzk_prove_opts po = {0}; /* verified */
    cuzk_status st = cuzk_prove_files(w->ctx, k->path, wtns_path, proof_path, public_path, &po, err);
    if (st)
        return st;
    *proof_json = slurp(proof_path);
    *public_json = slurp(public_path);
    unlink(proof_path);
    unlink(public_path);
    if (!*proof_json || !*public_json) {
        free(*proof_json);
        free(*public_json);
        *proof_json = *public_json = NULL;
        return cuzk_err_force(err, CUZK_ERR_IO, "%s: cannot read the proof back", scratch);
    }
    return CUZK_OK;
}
