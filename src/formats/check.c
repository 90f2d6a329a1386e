/* Witness checks: r1cs satisfaction (<A,w>·<B,w> = <C,w> for every
 * constraint, in parallel) and zkey/witness compatibility. */
#include <stdatomic.h>
#include <string.h>

#include "formats/fmt_internal.h"

typedef struct {
    const cuzk_r1cs *r;
    const fmt_ops *ops;
    const void *wm;
    atomic_size_t bad;
} sat_job;

static void sat_range(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    sat_job *j = p;
    if (lo >= atomic_load_explicit(&j->bad, memory_order_relaxed))
        return;
    size_t b = j->ops->r1cs_first_bad(j->r, j->wm, lo, hi);
    if (b < hi) {
        size_t cur = atomic_load_explicit(&j->bad, memory_order_relaxed);
        while (b < cur && !atomic_compare_exchange_weak(&j->bad, &cur, b))
            ;
    }
}

cuzk_status cuzk_r1cs_check_witness(const cuzk_r1cs *r, const cuzk_wtns *w, cuzk_pool *pool,
                                    const char *r1cs_name, const char *wtns_name, cuzk_error *err)
{
    const char *rn = r1cs_name ? r1cs_name : "circuit";
    const char *wn = wtns_name ? wtns_name : "witness";
    if (r->curve != w->curve)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "%s: the witness is for %s but the circuit %s is for %s",
                        wn, cuzk_curve_name(w->curve), rn, cuzk_curve_name(r->curve));
    if (w->n_witness != r->n_wires)
        return cuzk_err(err, CUZK_ERR_MISMATCH,
                        "%s: Invalid witness length. Circuit: %u, witness: %u (circuit %s)", wn,
                        r->n_wires, w->n_witness, rn);
    const fmt_ops *ops = fmt_ops_get(r->curve);
    if (!ops)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: unsupported curve", rn);
    const uint64_t(*v)[4] = w->values.ptr;
    if (w->n_witness == 0 || v[0][0] != 1 || v[0][1] || v[0][2] || v[0][3])
        return cuzk_err(err, CUZK_ERR_MISMATCH, "%s: witness[0] must be 1 (the constant wire)", wn);
    void *wm = cuzk_alloc(w->n_witness, 32);
    if (!wm)
        return cuzk_err(err, CUZK_ERR_NOMEM, "%s: out of memory checking the witness", wn);
    ops->fr_to_mont_vec(wm, w->values.ptr, w->n_witness);
    sat_job j = {r, ops, wm, r->n_constraints};
    if (r->n_constraints)
        cuzk_parallel_for(pool, r->n_constraints, 1024, sat_range, &j);
    size_t bad = atomic_load(&j.bad);
    cuzk_free(wm);
    if (bad < r->n_constraints)
        return cuzk_err(err, CUZK_ERR_MISMATCH,
                        "%s: the witness does not satisfy constraint %zu of %u of %s (<A,w>*<B,w> != "
                        "<C,w>)",
                        wn, bad, r->n_constraints, rn);
    return CUZK_OK;
}

cuzk_status cuzk_zkey_check_wtns(const cuzk_zkey *zk, const cuzk_wtns *w, const char *wtns_name,
                                 cuzk_error *err)
{
    const char *wn = wtns_name ? wtns_name : "witness";
    if (zk->curve != w->curve)
        return cuzk_err(err, CUZK_ERR_MISMATCH,
                        "%s: Curve of the witness does not match the curve of the proving key (%s vs "
                        "%s)",
                        wn, cuzk_curve_name(w->curve), cuzk_curve_name(zk->curve));
    if (w->n_witness != zk->n_vars)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "%s: Invalid witness length. Circuit: %u, witness: %u",
                        wn, zk->n_vars, w->n_witness);
    return CUZK_OK;
}
