/* The Groth16 prover, once for every curve and backend (prove.h).
 *
 * Math follows snarkjs (shared reference "snarkjs-formats" §4-§5): a, b from
 * the zkey's A/B coefficients, c = a∘b, the three moved to the odd coset of
 * the doubled domain, h = a·b − c, and π_H = Σ h_j·H_j needs no division by
 * Z because the zkey's H points already carry it. Then, with random r, s:
 *   π_A = α₁ + Σ w·A + r·δ₁
 *   π_B = β₂ + Σ w·B₂ + s·δ₂          (and B₁ = β₁ + Σ w·B₁ + s·δ₁ in G1)
 *   π_C = Σ w·C + π_H + s·π_A + r·B₁ − r·s·δ₁ */
#include "groth16/prove.h"

#include <pthread.h>
#include <string.h>

/* Point buffers of the largest curve (bytes, 8-byte aligned). */
typedef struct {
    uint64_t l[CUZK_MAX_G1_JAC / 8];
} g1j_buf;
typedef struct {
    uint64_t l[CUZK_MAX_G2_JAC / 8];
} g2j_buf;

static const cuzk_phase MSM_PHASE[CUZK_G16_MSM_COUNT] = {
    [CUZK_G16_MSM_H] = CUZK_PHASE_MSM_H,   [CUZK_G16_MSM_A] = CUZK_PHASE_MSM_A,
    [CUZK_G16_MSM_B1] = CUZK_PHASE_MSM_B1, [CUZK_G16_MSM_C] = CUZK_PHASE_MSM_C,
    [CUZK_G16_MSM_B2] = CUZK_PHASE_MSM_B2,
};

/* What needs no MSM result: the blinding terms r·δ₁, s·δ₁, s·δ₂, r·s·δ₁
 * (fixed-base products, ~1 ms on the CPU) and the caller's side work; done
 * on a thread of its own while the backend's steps run. */
typedef struct {
    const cuzk_curve_ops *ops;
    const cuzk_zkey *zk;
    const uint64_t *r, *s, *rs; /* raw scalars */
    g1j_buf rd1, sd1, rsd1;
    g2j_buf sd2;
    void (*side)(void *);
    void *side_arg;
} blind_job;

static void *blind_main(void *arg)
{
    blind_job *b = arg;
    const cuzk_curve_ops *ops = b->ops;
    const size_t limbs = ops->desc->fr_limbs;
    ops->g1_mul_affine(&b->rd1, &b->zk->delta_1, b->r, limbs);
    ops->g1_mul_affine(&b->sd1, &b->zk->delta_1, b->s, limbs);
    ops->g1_mul_affine(&b->rsd1, &b->zk->delta_1, b->rs, limbs);
    ops->g1_neg(&b->rsd1, &b->rsd1);
    ops->g2_mul_affine(&b->sd2, &b->zk->delta_2, b->s, limbs);
    if (b->side)
        b->side(b->side_arg);
    return NULL;
}

/* The proof's assembly, in two halves: everything but π_H (after the blind
 * job), then π_C += π_H and the affine forms. When the backend runs H's
 * MSM last, the first half runs before it is asked for, while its kernels
 * run (backend.h: msm_order). */
typedef struct {
    cuzk_ctx *ctx;
    const cuzk_curve_ops *ops;
    const cuzk_zkey *zk;
    blind_job *bj;
    pthread_t th;
    bool threaded, joined, pre_done;
    const g1j_buf *msm;  /* the G1 results, by cuzk_g16_msm */
    const g2j_buf *b2;
    const cuzk_progress_step *plan; /* the caller's progress plan while run_backend laid it out again */
    cuzk_g16_ic_job *ic; /* the verification's side job, or NULL */
    g1j_buf pa, pb1, pc; /* pc: π_C less π_H */
    g2j_buf pb;
} assembly;

/* Waits for the blind job (or runs it here when it has no thread). */
static void blind_join(assembly *as)
{
    if (as->joined)
        return;
    as->joined = true;
    if (as->threaded)
        pthread_join(as->th, NULL);
    else
        blind_main(as->bj);
}

/* The first half: needs A, B1, C, B2 and the blind job (waited for first).
 * timed: as the proof's one assembly span (the second half, a few
 * additions and the affine forms, after H then goes untimed). */
static void assemble_pre(assembly *as, bool timed)
{
    const cuzk_curve_ops *ops = as->ops;
    const size_t limbs = ops->desc->fr_limbs;
    const blind_job *bj = as->bj;
    blind_join(as);
    cuzk_phase_timer ph = {0};
    if (timed)
        ph = cuzk_phase_begin(as->ctx, CUZK_PHASE_ASSEMBLE);
    g1j_buf t1;
    /* π_A = α₁ + Σ w·A + r·δ₁ */
    ops->g1_add(&as->pa, &as->msm[CUZK_G16_MSM_A], &bj->rd1);
    ops->g1_add_affine(&as->pa, &as->pa, &as->zk->alpha_1);
    /* π_B = β₂ + Σ w·B₂ + s·δ₂; B₁ likewise in G1 */
    ops->g2_add(&as->pb, as->b2, &bj->sd2);
    ops->g2_add_affine(&as->pb, &as->pb, &as->zk->beta_2);
    ops->g1_add(&as->pb1, &as->msm[CUZK_G16_MSM_B1], &bj->sd1);
    ops->g1_add_affine(&as->pb1, &as->pb1, &as->zk->beta_1);
    /* π_C = Σ w·C + π_H + s·π_A + r·B₁ − r·s·δ₁, here all but π_H */
    ops->g1_mul_jac(&t1, &as->pa, bj->s, limbs);
    ops->g1_add(&as->pc, &as->msm[CUZK_G16_MSM_C], &t1);
    ops->g1_mul_jac(&t1, &as->pb1, bj->r, limbs);
    ops->g1_add(&as->pc, &as->pc, &t1);
    ops->g1_add(&as->pc, &as->pc, &bj->rsd1);
    as->pre_done = true;
    if (timed)
        cuzk_phase_end(as->ctx, &ph);
}

/* With H's MSM last and the assembly's first half done, while H's kernels
 * run: the verification's Miller loops that need neither C nor H, e(−A, B)
 * and e(IC, γ), on the pool (ic->begun), reported as a "verify" span
 * without progress or timing (the verify phase proper is the rest, after
 * the proof). */
static void verify_begin(assembly *as)
{
    cuzk_g16_ic_job *ic = as->ic;
    const cuzk_curve_ops *ops = as->ops;
    if (!ic || ic->st || !ic->vk->prep || !ops->verify_begin)
        return;
    const double t0 = cuzk_now();
    uint64_t na[CUZK_MAX_G1_AFFINE / 8], icp[CUZK_MAX_G1_AFFINE / 8];
    ops->g1_to_affine(&ic->a, &as->pa);
    ops->g2_to_affine(&ic->b, &as->pb);
    ops->g1_affine_neg(na, &ic->a);
    ops->g1_to_affine(icp, ic->acc);
    ops->verify_begin(ic->f, ic->vk->prep, na, &ic->b, icp, as->ctx ? as->ctx->pool : NULL);
    ic->begun = true;
    cuzk_span sp = {cuzk_phase_name(CUZK_PHASE_VERIFY), CUZK_PHASE_VERIFY, -1, as->ctx ? as->ctx->worker : 0, 0, t0,
                    cuzk_now()};
    cuzk_ctx_span(as->ctx, &sp);
}

/* The caller's progress plan (ctx.h) with its MSM and assembly steps laid
 * out again in the order they run (order; the assembly before H when `pre`,
 * else after the MSMs) over the share they had, each as wide as it was, so
 * the overall fraction keeps growing; into out, or plan itself when it has
 * not every one of those steps or is too long to copy. */
#define PLAN_COPY_MAX 32
static const cuzk_progress_step *plan_in_order(const cuzk_progress_step *plan, const cuzk_g16_msm *order, bool pre,
                                               cuzk_progress_step out[PLAN_COPY_MAX])
{
    size_t n = 0;
    while (plan[n].end > 0)
        n++;
    if (n + 1 > PLAN_COPY_MAX)
        return plan;
    cuzk_phase seq[CUZK_G16_MSM_COUNT + 1];
    size_t ns = 0;
    for (int k = 0; k < CUZK_G16_MSM_COUNT; k++) {
        if (pre && k == CUZK_G16_MSM_COUNT - 1)
            seq[ns++] = CUZK_PHASE_ASSEMBLE;
        seq[ns++] = MSM_PHASE[order[k]];
    }
    if (!pre)
        seq[ns++] = CUZK_PHASE_ASSEMBLE;
    memcpy(out, plan, (n + 1) * sizeof *plan);
    size_t at[CUZK_G16_MSM_COUNT + 1];
    double lo = 1.0;
    for (size_t i = 0; i < ns; i++) {
        at[i] = n;
        for (size_t j = 0; j < n; j++)
            if (plan[j].phase == seq[i])
                at[i] = j;
        if (at[i] == n)
            return plan;
        if (plan[at[i]].start < lo)
            lo = plan[at[i]].start;
    }
    for (size_t i = 0; i < ns; i++) {
        const double w = plan[at[i]].end - plan[at[i]].start;
        out[at[i]].start = lo;
        out[at[i]].end = lo += w;
    }
    return out;
}

/* The backend's steps: the five MSM results, as Jacobian points, in the
 * job's order; with H last, the assembly's first half before it. */
static cuzk_status run_backend(cuzk_ctx *ctx, const cuzk_g16_backend *be, const void *key_state, const void *w,
                               g1j_buf g1[CUZK_G16_MSM_COUNT], g2j_buf *b2, assembly *as, cuzk_error *err)
{
    void *job = NULL;
    cuzk_status st = be->job_begin(key_state, ctx, w, &job, err);
    if (st)
        return st;
    cuzk_g16_msm order[CUZK_G16_MSM_COUNT];
    unsigned seen = 0;
    for (int m = 0; m < CUZK_G16_MSM_COUNT; m++)
        order[m] = (cuzk_g16_msm)m;
    if (be->msm_order)
        be->msm_order(job, order);
    for (int m = 0; m < CUZK_G16_MSM_COUNT; m++)
        seen |= (unsigned)order[m] < CUZK_G16_MSM_COUNT ? 1u << order[m] : 0;
    if (seen != (1u << CUZK_G16_MSM_COUNT) - 1) {
        st = cuzk_err(err, CUZK_ERR_INTERNAL, "%s backend: its MSM order is not one of each MSM", be->name);
        goto out;
    }
    bool reordered = false;
    for (int m = 0; m < CUZK_G16_MSM_COUNT; m++)
        reordered |= order[m] != (cuzk_g16_msm)m;
    cuzk_progress_step steps[PLAN_COPY_MAX];
    if (ctx && ctx->plan && reordered)
        ctx->plan = plan_in_order(as->plan = ctx->plan, order, order[CUZK_G16_MSM_COUNT - 1] == CUZK_G16_MSM_H,
                                  steps);
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_ABC);
    if ((st = be->abc(job, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_check_cancel(ctx, err)))
        goto out;
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_NTT);
    if ((st = be->ntt_quotient(job, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    for (int k = 0; k < CUZK_G16_MSM_COUNT; k++) {
        const cuzk_g16_msm m = order[k];
        if ((st = cuzk_check_cancel(ctx, err)))
            goto out;
        if (k == CUZK_G16_MSM_COUNT - 1 && m == CUZK_G16_MSM_H) {
            assemble_pre(as, true);
            verify_begin(as);
        }
        ph = cuzk_phase_begin(ctx, MSM_PHASE[m]);
        if ((st = be->msm(job, m, m == CUZK_G16_MSM_B2 ? (void *)b2 : (void *)&g1[m], err)))
            goto out;
        cuzk_phase_end(ctx, &ph);
    }
    st = cuzk_check_cancel(ctx, err);
out:
    if (as->plan) /* the caller's again (steps goes out of scope) */
        ctx->plan = as->plan;
    be->job_end(job);
    return st;
}

cuzk_status cuzk_g16_prove(cuzk_ctx *ctx, const cuzk_g16_backend *be, const void *key_state, const cuzk_zkey *zk,
                           const cuzk_curve_ops *ops, const void *w, const uint8_t *r_raw, const uint8_t *s_raw,
                           void (*side)(void *), void *side_arg, cuzk_proof_points *out, cuzk_error *err)
{
    /* r, s, r·s as raw scalars. */
    const size_t fr = ops->desc->n8r;
    uint64_t r[CUZK_MAX_FR_BYTES / 8], s[CUZK_MAX_FR_BYTES / 8], rs[CUZK_MAX_FR_BYTES / 8];
    if (r_raw && s_raw) {
        memcpy(rs, r_raw, fr);
        ops->fr_to_mont(r, rs);
        memcpy(rs, s_raw, fr);
        ops->fr_to_mont(s, rs);
    } else if (!ops->fr_random(r) || !ops->fr_random(s)) {
        return cuzk_err(err, CUZK_ERR_INTERNAL, "the OS random number generator failed");
    }
    ops->fr_mul(rs, r, s);
    ops->fr_from_mont(r, r);
    ops->fr_from_mont(s, s);
    ops->fr_from_mont(rs, rs);

    blind_job bj = {.ops = ops, .zk = zk, .r = r, .s = s, .rs = rs, .side = side, .side_arg = side_arg};
    g1j_buf msm[CUZK_G16_MSM_COUNT];
    g2j_buf msm_b2;
    assembly as = {.ctx = ctx, .ops = ops, .zk = zk, .bj = &bj, .msm = msm, .b2 = &msm_b2};
    if (side == cuzk_g16_ic_run) {
        as.ic = side_arg;
        as.ic->begun = false;
    }
    as.threaded = pthread_create(&as.th, NULL, blind_main, &bj) == 0;
    cuzk_status st = run_backend(ctx, be, key_state, w, msm, &msm_b2, &as, err);
    if (st) { /* the thread is waited for; without one, nothing more runs */
        if (as.threaded && !as.joined)
            pthread_join(as.th, NULL);
        return st;
    }
    const bool timed = !as.pre_done;
    cuzk_phase_timer ph = {0};
    if (timed) {
        blind_join(&as);
        ph = cuzk_phase_begin(ctx, CUZK_PHASE_ASSEMBLE);
        assemble_pre(&as, false);
    }
    ops->g1_add(&as.pc, &as.pc, &msm[CUZK_G16_MSM_H]);
    memset(out, 0, sizeof *out);
    out->curve = zk->curve;
    ops->g1_to_affine(&out->a, &as.pa);
    ops->g2_to_affine(&out->b, &as.pb);
    ops->g1_to_affine(&out->c, &as.pc);
    if (timed)
        cuzk_phase_end(ctx, &ph);
    return CUZK_OK;
}

cuzk_status cuzk_g16_verify_ic(const cuzk_curve_ops *ops, const cuzk_vk *vk, const void *pub, void *acc,
                               cuzk_pool *pool, cuzk_error *err)
{
    const uint8_t *ic = vk->ic.ptr;
    ops->g1_from_affine(acc, ic);
    if (vk->n_public) { /* IC[0] + Σ pub[i]·IC[i+1] */
        g1j_buf t;
        cuzk_status st = ops->g1_msm(&t, ic + ops->desc->g1_affine, pub, vk->n_public, pool, err);
        if (st)
            return st;
        ops->g1_add(acc, acc, &t);
    }
    return CUZK_OK;
}

cuzk_status cuzk_g16_verify_with_ic(const cuzk_curve_ops *ops, const cuzk_vk *vk, const void *acc,
                                    const cuzk_proof_points *p, cuzk_pool *pool, cuzk_error *err)
{
    const cuzk_curve_desc *d = ops->desc;
    /* e(−A, B)·e(IC(pub), γ)·e(C, δ)·e(α, β) = 1 */
    uint64_t ps[4 * CUZK_MAX_G1_AFFINE / 8], qs[4 * CUZK_MAX_G2_AFFINE / 8];
    uint8_t *P = (uint8_t *)ps, *Q = (uint8_t *)qs;
    const size_t g1 = d->g1_affine, g2 = d->g2_affine;
    ops->g1_affine_neg(P, &p->a);
    ops->g1_to_affine(P + g1, acc);
    bool ok;
    if (vk->prep) {
        ok = ops->verify_prep(vk->prep, P, &p->b, P + g1, &p->c, pool);
    } else {
        memcpy(Q, &p->b, g2);
        memcpy(Q + g2, &vk->gamma_2, g2);
        memcpy(P + 2 * g1, &p->c, g1);
        memcpy(Q + 2 * g2, &vk->delta_2, g2);
        memcpy(P + 3 * g1, &vk->alpha_1, g1);
        memcpy(Q + 3 * g2, &vk->beta_2, g2);
        ok = ops->pairing_product_is_one(P, Q, 4, pool);
    }
    if (!ok)
        return cuzk_err(err, CUZK_ERR_INVALID_PROOF, "invalid proof: the pairing check failed");
    return CUZK_OK;
}

cuzk_status cuzk_g16_vk_prepare(const cuzk_curve_ops *ops, cuzk_vk *vk, cuzk_error *err)
{
    if (vk->prep)
        return CUZK_OK;
    if (!(vk->prep = ops->vk_prepare(&vk->alpha_1, &vk->beta_2, &vk->gamma_2, &vk->delta_2)))
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the verifying key's prepared points");
    return CUZK_OK;
}

cuzk_status cuzk_g16_verify(const cuzk_curve_ops *ops, const cuzk_vk *vk, const void *pub,
                            const cuzk_proof_points *p, cuzk_pool *pool, cuzk_error *err)
{
    g1j_buf acc;
    cuzk_status st = cuzk_g16_verify_ic(ops, vk, pub, &acc, pool, err);
    return st ? st : cuzk_g16_verify_with_ic(ops, vk, &acc, p, pool, err);
}

void cuzk_g16_fill_alphabeta(const cuzk_curve_ops *ops, cuzk_vk *vk)
{
    _Static_assert(sizeof vk->alphabeta_12 == CUZK_MAX_FQ12, "fq12 layout");
    ops->pairing(&vk->alphabeta_12, &vk->alpha_1, &vk->beta_2);
    vk->has_alphabeta = true;
}

/* The side job's IC(pub) MSM on a pool of its own of IC_THREADS (not the
 * context's pool, which the backend's host steps hold meanwhile): on one
 * core the 327 public inputs of a Filecoin PoRep take 4.3 ms (BN254) and
 * 8.0 ms (BLS12-381), as long as a small proof's device work up to its last
 * MSM, and the assembly before H's MSM waited for it (docs/PERFORMANCE.md,
 * "the IC(pub) MSM on threads of its own"). Made per proof (its threads'
 * start costs ~0.1 ms); fewer inputs than IC_POOL_MIN stay on this thread. */
#define IC_POOL_MIN 128
#define IC_THREADS 4

void cuzk_g16_ic_run(void *arg)
{
    cuzk_g16_ic_job *j = arg;
    /* NULL (no threads to be had): on this one */
    cuzk_pool *pool = j->vk->n_public >= IC_POOL_MIN ? cuzk_pool_create(IC_THREADS) : NULL;
    j->st = cuzk_g16_verify_ic(j->ops, j->vk, j->pub, j->acc, pool, &j->err);
    cuzk_pool_destroy(pool);
}

cuzk_status cuzk_g16_verify_made(cuzk_ctx *ctx, const cuzk_g16_ic_job *ic, const cuzk_proof_points *pts,
                                 cuzk_error *err)
{
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_VERIFY);
    cuzk_error verr = {0};
    cuzk_status st;
    if (ic->st) { /* cuzk_g16_prove ran the side job before its success */
        st = ic->st;
        verr = ic->err;
    } else if (ic->begun && !memcmp(&ic->a, &pts->a, ic->ops->desc->g1_affine) &&
               !memcmp(&ic->b, &pts->b, ic->ops->desc->g2_affine)) {
        /* the loops of (−A, B) and (IC, γ) ran while H's kernels ran, on
         * these very points: (C, δ)'s loop and the final exponentiation */
        st = ic->ops->verify_finish(ic->vk->prep, ic->f, &pts->c, ctx->pool)
                 ? CUZK_OK
                 : cuzk_err(&verr, CUZK_ERR_INVALID_PROOF, "invalid proof: the pairing check failed");
    } else {
        st = cuzk_g16_verify_with_ic(ic->ops, ic->vk, ic->acc, pts, ctx->pool, &verr);
    }
    cuzk_phase_end(ctx, &ph);
    if (st && st != CUZK_ERR_INVALID_PROOF)
        cuzk_err(err, verr.code, "%s", verr.msg);
    return st;
}
