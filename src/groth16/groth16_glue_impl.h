/* Per-curve glue between the file structs (formats/) and the Groth16 core
 * (groth16_impl.h). Include after groth16_impl.h with G16_CURVE defined. */

#define G_(name) CUZK_NAME(G16_CURVE, name)
#define CURVE_FIELD G16_CURVE

/* The prover's state for a loaded zkey: views of its points and the
 * prepared A/B evaluation plan (borrows zk, which must outlive it). */
static cuzk_status G_(g16_key_attach)(const cuzk_zkey *zk, cuzk_pool *pool, void **out, uint64_t *host_bytes,
                                      cuzk_error *err)
{
    G_(g16_key_t) *k = calloc(1, sizeof *k);
    if (!k)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory preparing the key");
    k->n_vars = zk->n_vars;
    k->n_public = zk->n_public;
    k->domain_size = zk->domain_size;
    k->log_n = zk->log_domain;
    k->alpha1 = &zk->alpha_1.CURVE_FIELD;
    k->beta1 = &zk->beta_1.CURVE_FIELD;
    k->delta1 = &zk->delta_1.CURVE_FIELD;
    k->beta2 = &zk->beta_2.CURVE_FIELD;
    k->gamma2 = &zk->gamma_2.CURVE_FIELD;
    k->delta2 = &zk->delta_2.CURVE_FIELD;
    k->ic = zk->ic.CURVE_FIELD;
    k->a = zk->a.CURVE_FIELD;
    k->b1 = zk->b1.CURVE_FIELD;
    k->b2 = zk->b2.CURVE_FIELD;
    k->c = zk->c.CURVE_FIELD;
    k->h = zk->h.CURVE_FIELD;
    /* Section 4 in place (records: u32 matrix, constraint, signal, value)
     * or decoded arrays. */
    cuzk_g16_coefs co;
    co.n = zk->n_coefs;
    if (zk->coef_raw) {
        co.matrix = zk->coef_raw;
        co.constraint = zk->coef_raw + 4;
        co.signal = zk->coef_raw + 8;
        co.value = zk->coef_raw + 12;
        co.stride = co.vstride = 12 + sizeof(G_(fr_t));
    } else {
        co.matrix = (const uint8_t *)zk->coef_matrix;
        co.constraint = (const uint8_t *)zk->coef_constraint;
        co.signal = (const uint8_t *)zk->coef_signal;
        co.value = (const uint8_t *)zk->coef_value.ptr;
        co.stride = sizeof(uint32_t);
        co.vstride = sizeof(G_(fr_t));
    }
    cuzk_status st = G_(g16_key_prepare)(k, &co, pool, err);
    if (st) {
        G_(g16_key_release)(k);
        free(k);
        return st;
    }
    uint64_t b = sizeof *k + (k->n_chunks + 1) * (sizeof *k->cstart + sizeof *k->crow);
    if (k->row_a)
        b += 2 * ((uint64_t)k->domain_size + 1) * sizeof(uint32_t) + co.n * sizeof(G_(g16_term));
    b += (uint64_t)k->dom->n / 2 * sizeof(G_(fr_t)) + ((size_t)2 << k->dom->stw_stages) * sizeof(G_(fr_t));
    *host_bytes = b;
    *out = k;
    return CUZK_OK;
}

static void G_(g16_key_detach)(void *state)
{
    if (!state)
        return;
    G_(g16_key_release)(state);
    free(state);
}

/* r, s: raw little-endian bytes, or NULL for random ones. */
static cuzk_status G_(g16_prove_key)(cuzk_ctx *ctx, const void *state, const cuzk_wtns *wt, const uint8_t *r,
                                     const uint8_t *s, cuzk_proof_points *out, cuzk_error *err)
{
    G_(fr_t) rr, ss;
    if (r && s) {
        G_(fr_from_bytes_le)(&rr, r);
        G_(fr_from_bytes_le)(&ss, s);
    }
    G_(g16_proof_t) pf;
    cuzk_status st = G_(g16_prove)(ctx, state, wt->values.CURVE_FIELD, r && s ? &rr : NULL, r && s ? &ss : NULL,
                                   &pf, err);
    if (st == CUZK_OK) {
        memset(out, 0, sizeof *out);
        out->curve = wt->curve;
        out->a.CURVE_FIELD = pf.a;
        out->b.CURVE_FIELD = pf.b;
        out->c.CURVE_FIELD = pf.c;
    }
    return st;
}

static cuzk_status G_(g16_verify_vk)(const cuzk_vk *vk, const cuzk_fr_vec pub, const cuzk_proof_points *p,
                                     cuzk_error *err)
{
    G_(g16_vk_t) v;
    v.n_public = vk->n_public;
    v.alpha1 = vk->alpha_1.CURVE_FIELD;
    v.beta2 = vk->beta_2.CURVE_FIELD;
    v.gamma2 = vk->gamma_2.CURVE_FIELD;
    v.delta2 = vk->delta_2.CURVE_FIELD;
    v.ic = vk->ic.CURVE_FIELD;
    G_(g16_proof_t) pf = {p->a.CURVE_FIELD, p->b.CURVE_FIELD, p->c.CURVE_FIELD};
    return G_(g16_verify)(&v, pub.CURVE_FIELD, &pf, err);
}

/* vk_alphabeta_12 = e(alpha_1, beta_2), as snarkjs exports it. */
static void G_(g16_fill_alphabeta)(cuzk_vk *vk)
{
    G_(fp12_t) e;
    G_(pairing)(&e, &vk->alpha_1.CURVE_FIELD, &vk->beta_2.CURVE_FIELD);
    _Static_assert(sizeof e == sizeof vk->alphabeta_12.CURVE_FIELD, "fp12 layout");
    memcpy(vk->alphabeta_12.CURVE_FIELD, &e, sizeof e);
    vk->has_alphabeta = true;
}

#undef CURVE_FIELD
#undef G_
#undef G16_CURVE
