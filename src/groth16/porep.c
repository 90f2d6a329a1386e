/* cuzk_porep_make (include/cuzk/dev.h): the PoRep-shaped circuit's key and
 * witness in memory, as handles. The circuit and the key are made by
 * porep_impl.h (instantiated in setup.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/gpu.h"
#include "groth16/ctx.h"
#include "groth16/handles.h"
#include "groth16/porep.h"
#include "util/rng.h"

/* The cached key (mapped from its file) and witness. */
static cuzk_status porep_load_cached(cuzk_ctx *ctx, const char *zpath, const char *wpath, const cuzk_key_opts *key_opts,
                                     cuzk_key **key, cuzk_witness **w, cuzk_porep_info *info, cuzk_error *err)
{
    cuzk_key_opts ko = {0};
    if (key_opts)
        ko = *key_opts;
    ko.map_in_place = 1;
    cuzk_status st = cuzk_witness_load(w, wpath, err);
    if (!st && (st = cuzk_key_load(key, ctx, zpath, &ko, err))) {
        cuzk_witness_free(*w);
        *w = NULL;
    }
    if (!st && info) {
        cuzk_key_info ki;
        cuzk_key_get_info(*key, &ki);
        memset(info, 0, sizeof *info);
        info->log_domain = ki.log_domain;
        info->n_public = ki.n_public;
        info->n_vars = ki.n_vars;
        info->from_cache = 1;
    }
    return st;
}

cuzk_status cuzk_porep_make(cuzk_ctx *ctx, const cuzk_porep_opts *opts, const cuzk_key_opts *key_opts,
                            cuzk_key **key, cuzk_witness **w, cuzk_porep_info *info, cuzk_error *err)
{
    if (!ctx || !key || !w)
        return cuzk_err(err, CUZK_ERR_USAGE, "porep: missing argument");
    *key = NULL;
    *w = NULL;
    cuzk_porep_opts o = {0};
    if (opts)
        o = *opts;
    cuzk_curve curve = o.curve == CUZK_CURVE_NONE ? CUZK_CURVE_BLS12_381 : o.curve;
    unsigned lg = o.log_domain ? o.log_domain : CUZK_POREP_FULL_LOG;
    cuzk_porep_shape s;
    cuzk_status st = cuzk_porep_shape_make(&s, curve, lg, err);
    if (st)
        return st;
    if (o.gpu_setup && (o.device < 0 || o.device >= cuzk_gpu_device_count()))
        return cuzk_err(err, CUZK_ERR_GPU, "porep: no CUDA device %d for the key's points", o.device);
    uint64_t seed = o.seed;
    if (!seed && !cuzk_random_bytes(&seed, sizeof seed))
        return cuzk_err(err, CUZK_ERR_INTERNAL, "porep: the OS random number generator failed");
    char zpath[4096], wpath[4096];
    if (o.cache_dir) {
        if (!o.seed)
            seed = 1;
        if (mkdir(o.cache_dir, 0777) && errno != EEXIST)
            return cuzk_err(err, CUZK_ERR_IO, "%s: cannot create the cache directory: %s", o.cache_dir,
                            strerror(errno));
        snprintf(zpath, sizeof zpath, "%s/porep-2^%u-%s-s%llu.zkey", o.cache_dir, lg, cuzk_curve_name(curve),
                 (unsigned long long)seed);
        snprintf(wpath, sizeof wpath, "%s/porep-2^%u-%s-s%llu.wtns", o.cache_dir, lg, cuzk_curve_name(curve),
                 (unsigned long long)seed);
        if (access(zpath, R_OK) == 0 && access(wpath, R_OK) == 0)
            return porep_load_cached(ctx, zpath, wpath, key_opts, key, w, info, err);
    }
    cuzk_zkey zk;
    cuzk_wtns wt;
    cuzk_porep_info in;
    st = cuzk_porep_build(ctx, &s, seed, NULL, o.gpu_setup ? o.device : -1, &zk, &wt, &in, err);
    if (st) {
        cuzk_zkey_free(&zk);
        cuzk_wtns_free(&wt);
        return st;
    }
    if (o.cache_dir) { /* written once (atomically), then used from the files */
        st = cuzk_wtns_write(&wt, wpath, err);
        cuzk_wtns_free(&wt);
        if (!st)
            st = cuzk_zkey_write(&zk, zpath, err);
        cuzk_zkey_free(&zk);
        if (st)
            return st;
        st = porep_load_cached(ctx, zpath, wpath, key_opts, key, w, NULL, err);
        if (!st && info) {
            in.from_cache = 0;
            *info = in;
        }
        return st;
    }
    char name[64];
    snprintf(name, sizeof name, "porep-2^%u-%s", lg, cuzk_curve_name(curve));
    cuzk_witness *wi = NULL;
    if ((st = cuzk_witness_adopt(&wi, &wt, name, err))) {
        cuzk_zkey_free(&zk);
        return st;
    }
    if ((st = cuzk_key_adopt(key, ctx, &zk, name, key_opts, err))) {
        cuzk_witness_free(wi);
        return st;
    }
    *w = wi;
    if (info)
        *info = in;
    return CUZK_OK;
}

cuzk_status cuzk_porep_key_shape(cuzk_curve curve, unsigned log_domain, cuzk_gpu_key_shape *out, cuzk_error *err)
{
    if (!out)
        return cuzk_err(err, CUZK_ERR_USAGE, "porep: missing argument");
    cuzk_porep_shape s;
    cuzk_status st = cuzk_porep_shape_make(&s, curve == CUZK_CURVE_NONE ? CUZK_CURVE_BLS12_381 : curve,
                                           log_domain ? log_domain : CUZK_POREP_FULL_LOG, err);
    if (st)
        return st;
    memset(out, 0, sizeof *out);
    out->curve = s.curve;
    out->n_vars = s.n_vars;
    out->n_public = s.n_pub;
    out->log_domain = s.log_domain;
    /* A: 2.4 terms a wire-creating row, 2 a check row; B: 1 a row; the input rows */
    out->n_coefs = (uint64_t)(2.4 * (double)s.n_aux + 0.5) + 2 * (s.m - s.n_aux) + s.m + s.n_pub + 1;
    /* B: ONE and a quarter of the private wires (the bit rows' wires); the
     * others' B points are at infinity and dropped by the prover */
    out->n_b = 1 + s.n_aux / 4;
    out->coefs_sorted = 1; /* written row by row */
    return CUZK_OK;
}
