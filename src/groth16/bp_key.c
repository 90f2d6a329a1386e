/* The bellperson key in memory (bp.h): arrays, sizes, the verifying key and
 * the pipeline's zkey header. */
#include <string.h>

#include "cuzk/gpu_plan.h"
#include "formats/bellperson.h"
#include "groth16/bp.h"
#include "groth16/ctx.h"

cuzk_status cuzk_bpk_alloc(cuzk_bpk *k, cuzk_error *err)
{
    if (k->n != (uint64_t)1 << k->log_n || k->n_inp == 0)
        return cuzk_err(err, CUZK_ERR_INTERNAL, "bellperson key: bad sizes");
    const size_t g1 = sizeof(bls12_381_g1_affine_t), g2 = sizeof(bls12_381_g2_affine_t);
    k->ic = cuzk_alloc(k->n_inp, g1);
    k->h = cuzk_alloc(k->n > 1 ? k->n - 1 : 1, g1);
    k->l = cuzk_alloc(k->n_aux ? k->n_aux : 1, g1);
    k->a = cuzk_alloc(k->n_a ? k->n_a : 1, g1);
    k->b1 = cuzk_alloc(k->n_b ? k->n_b : 1, g1);
    k->b2 = cuzk_alloc(k->n_b ? k->n_b : 1, g2);
    if (!k->ic || !k->h || !k->l || !k->a || !k->b1 || !k->b2)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the parameters' points (%.1f GiB)",
                        (double)cuzk_bpk_bytes(k) / (1 << 30));
    return CUZK_OK;
}

void cuzk_bpk_free(cuzk_bpk *k)
{
    if (!k)
        return;
    cuzk_free(k->ic);
    cuzk_free(k->h);
    cuzk_free(k->l);
    cuzk_free(k->a);
    cuzk_free(k->b1);
    cuzk_free(k->b2);
    memset(k, 0, sizeof *k);
}

uint64_t cuzk_bpk_bytes(const cuzk_bpk *k)
{
    const uint64_t g1 = sizeof(bls12_381_g1_affine_t), g2 = sizeof(bls12_381_g2_affine_t);
    if (cuzk_bpk_mapped(k))
        return g1 * k->n_inp;
    return g1 * (k->n_inp + (k->n ? k->n - 1 : 0) + k->n_aux + k->n_a + k->n_b) + g2 * k->n_b;
}

void cuzk_bpk_zkey_header(const cuzk_bpk *k, cuzk_zkey *zk)
{
    memset(zk, 0, sizeof *zk);
    zk->curve = CUZK_CURVE_BLS12_381;
    zk->n8q = 48;
    zk->n8r = 32;
    zk->n_public = k->n_inp - 1;
    zk->n_vars = (uint32_t)(k->n_inp + k->n_aux);
    zk->domain_size = (uint32_t)k->n;
    zk->log_domain = k->log_n;
    zk->alpha_1.bls12_381 = k->alpha_g1;
    zk->beta_1.bls12_381 = k->beta_g1;
    zk->delta_1.bls12_381 = k->delta_g1;
    zk->beta_2.bls12_381 = k->beta_g2;
    zk->gamma_2.bls12_381 = k->gamma_g2;
    zk->delta_2.bls12_381 = k->delta_g2;
    zk->ic.bls12_381 = k->ic;
}

cuzk_status cuzk_bpk_vk(const cuzk_bpk *k, cuzk_vk *vk, cuzk_error *err)
{
    cuzk_zkey zk;
    cuzk_bpk_zkey_header(k, &zk);
    return cuzk_vk_from_zkey(vk, &zk, err);
}

void cuzk_bpk_shape(const cuzk_bpk *k, cuzk_gpu_key_shape *sh)
{
    memset(sh, 0, sizeof *sh);
    sh->curve = CUZK_CURVE_BLS12_381;
    sh->n_vars = k->n_inp + k->n_aux;
    sh->n_public = k->n_inp - 1;
    sh->log_domain = k->log_n;
    sh->bellperson = 1;
    sh->n_a = k->n_a;
    sh->n_b = k->n_b;
}

cuzk_status cuzk_bp_key_shape_read(const char *params_path, cuzk_gpu_key_shape *out, cuzk_error *err)
{
    if (!params_path || !out)
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_key_shape_read: NULL argument");
    cuzk_bp_params p;
    memset(&p, 0, sizeof p);
    cuzk_status st = cuzk_bp_params_open(&p, params_path, NULL, err);
    if (st)
        return st;
    unsigned log_n = 0;
    if (!cuzk_bp_params_domain(&p, &log_n))
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u H points: not a power of two minus one", params_path,
                      p.sec[CUZK_BP_H].count);
    else if (p.sec[CUZK_BP_A].count < p.vk.n_ic || !p.vk.n_ic)
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u A points, fewer than its %u inputs", params_path,
                      p.sec[CUZK_BP_A].count, p.vk.n_ic);
    if (!st) {
        cuzk_bpk k = {.n_inp = p.vk.n_ic,
                      .n_aux = p.sec[CUZK_BP_L].count,
                      .log_n = log_n,
                      .n_a = p.sec[CUZK_BP_A].count,
                      .n_b = p.sec[CUZK_BP_B_G1].count};
        cuzk_bpk_shape(&k, out);
    }
    cuzk_bp_params_close(&p);
    return st;
}

cuzk_status cuzk_bpk_map(cuzk_bpk *k, cuzk_bp_params *p, const char *path, bool checked, cuzk_ctx *ctx,
                         cuzk_error *err)
{
    memset(k, 0, sizeof *k);
    memset(p, 0, sizeof *p);
    cuzk_pool *pool = ctx ? ctx->pool : NULL;
    cuzk_bp_params_opts po = {.checked = checked, .pool = pool};
    cuzk_status st = cuzk_bp_params_open(p, path, &po, err);
    if (st)
        return st;
    unsigned log_n = 0;
    const uint64_t n = cuzk_bp_params_domain(p, &log_n);
    if (!n)
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u H points: not a power of two minus one", path,
                      p->sec[CUZK_BP_H].count);
    else if (p->sec[CUZK_BP_B_G1].count != p->sec[CUZK_BP_B_G2].count)
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u B_G1 points but %u B_G2 points", path,
                      p->sec[CUZK_BP_B_G1].count, p->sec[CUZK_BP_B_G2].count);
    else if (p->sec[CUZK_BP_A].count < p->vk.n_ic)
        st = cuzk_err(err, CUZK_ERR_FORMAT, "%s: %u A points, fewer than its %u inputs", path,
                      p->sec[CUZK_BP_A].count, p->vk.n_ic);
    /* the checked read looks at every point, from the map, keeping none */
    if (!st && checked)
        st = cuzk_bp_params_check_points(p, pool, err);
    if (!st) {
        k->n_inp = p->vk.n_ic;
        k->n_aux = p->sec[CUZK_BP_L].count;
        k->log_n = log_n;
        k->n = n;
        k->n_a = p->sec[CUZK_BP_A].count;
        k->n_b = p->sec[CUZK_BP_B_G1].count;
        k->alpha_g1 = p->vk.alpha_g1;
        k->beta_g1 = p->vk.beta_g1;
        k->delta_g1 = p->vk.delta_g1;
        k->beta_g2 = p->vk.beta_g2;
        k->gamma_g2 = p->vk.gamma_g2;
        k->delta_g2 = p->vk.delta_g2;
        if (!(k->ic = cuzk_alloc(k->n_inp, sizeof *k->ic)))
            st = cuzk_err(err, CUZK_ERR_NOMEM, "out of memory loading %s", path);
    }
    if (!st) {
        memcpy(k->ic, p->vk.ic, (size_t)k->n_inp * sizeof *k->ic);
        for (int i = 0; i < CUZK_BP_N_SECTIONS; i++)
            k->enc[i] = p->sec[i].data;
        return CUZK_OK;
    }
    cuzk_bpk_free(k);
    cuzk_bp_params_close(p);
    return st;
}
