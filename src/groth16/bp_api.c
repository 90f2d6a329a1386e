/* The bellperson-mode API (include/cuzk/bellperson.h). */
#include <string.h>

#include "cuzk/bellperson.h"
#include "util/common.h"

static cuzk_status not_yet(cuzk_error *err, const char *what)
{
    return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: the bellperson prover is not built yet", what);
}

cuzk_status cuzk_bp_srs_load(cuzk_bp_srs **out, cuzk_ctx *ctx, const char *path,
                                const cuzk_bp_srs_opts *opts, cuzk_error *err)
{
    (void)ctx;
    (void)opts;
    *out = NULL;
    return not_yet(err, path);
}

void cuzk_bp_srs_free(cuzk_bp_srs *p) { (void)p; }
void cuzk_bp_srs_get_info(const cuzk_bp_srs *p, cuzk_bp_srs_info *info)
{
    (void)p;
    memset(info, 0, sizeof *info);
}
void cuzk_bp_srs_evict(cuzk_bp_srs *p) { (void)p; }

cuzk_status cuzk_bp_prove(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t n,
                          const cuzk_bp_fr *r, const cuzk_bp_fr *s, cuzk_bp_proof *out,
                          const cuzk_bp_prove_opts *opts, cuzk_error *err)
{
    (void)ctx, (void)p, (void)a, (void)r, (void)s, (void)opts;
    if (n)
        memset(out, 0, n * sizeof *out);
    return not_yet(err, "cuzk_bp_prove");
}

cuzk_status cuzk_bp_prove_start(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t n,
                                const cuzk_bp_fr *r, const cuzk_bp_fr *s, const cuzk_bp_prove_opts *opts,
                                cuzk_bp_pending **out, cuzk_error *err)
{
    (void)ctx, (void)p, (void)a, (void)n, (void)r, (void)s, (void)opts;
    *out = NULL;
    return not_yet(err, "cuzk_bp_prove_start");
}

cuzk_status cuzk_bp_prove_finish(cuzk_bp_pending *pending, cuzk_bp_proof *out, cuzk_error *err)
{
    (void)pending, (void)out;
    return not_yet(err, "cuzk_bp_prove_finish");
}

void cuzk_bp_prove_drop(cuzk_bp_pending *pending) { (void)pending; }

cuzk_status cuzk_bp_proof_to_bytes(const cuzk_bp_proof *proof, uint8_t out[192], cuzk_error *err)
{
    (void)proof, (void)out;
    return not_yet(err, "cuzk_bp_proof_to_bytes");
}

cuzk_status cuzk_bp_verify(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_proof *proof,
                           const cuzk_bp_fr *inputs, size_t n_inputs, cuzk_error *err)
{
    (void)ctx, (void)p, (void)proof, (void)inputs, (void)n_inputs;
    return not_yet(err, "cuzk_bp_verify");
}

cuzk_status cuzk_bp_setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *params_path,
                                const char *vk_path, cuzk_error *err)
{
    (void)ctx, (void)params_path, (void)vk_path;
    return not_yet(err, r1cs_path);
}

cuzk_status cuzk_bp_circuit_load(cuzk_bp_circuit **out, cuzk_ctx *ctx, const char *r1cs_path,
                                 const char *wtns_path, cuzk_error *err)
{
    (void)ctx, (void)wtns_path;
    *out = NULL;
    return not_yet(err, r1cs_path);
}

const cuzk_bp_assignment *cuzk_bp_circuit_assignment(const cuzk_bp_circuit *c)
{
    (void)c;
    return NULL;
}

void cuzk_bp_circuit_free(cuzk_bp_circuit *c) { (void)c; }
