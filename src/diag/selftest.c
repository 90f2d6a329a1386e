/* GPU self-test (cuzk selftest --gpu): the GPU NTT and MSM against the CPU
 * code on fresh random inputs, every result compared bit-exactly (NTT bytes,
 * MSM group elements). Written once over the curve operations table
 * (src/groth16/curve_ops.h), for every curve of src/curve/curve_desc.h.
 *
 * MSM references are independent of any Pippenger code: the bases are
 * P_i = k_i G with known discrete logs k_i (infinity: k_i = 0), so
 *   sum s_i P_i = (sum s_i k_i) G,
 * an Fr inner product and one scalar multiplication on the CPU; small MSMs
 * are also compared with the CPU MSM. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "groth16/curve_ops.h"
#include "diag/diag.h"
#include "gpu/device/gpu_mem.h"
#include "util/common.h"
#include "util/rng.h"
#include "util/threadpool.h"

typedef struct st_ctx {
    const cuzk_gpu_selftest_opts *o;
    cuzk_gpu_selftest_result *r;
    cuzk_pool *pool;
    uint64_t rng;
    int sms; /* SM count of the device (memory plans) */
} st_ctx;

static void st_log(const st_ctx *x, const char *fmt, ...) CUZK_PRINTF(2, 3);
static void st_log(const st_ctx *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cuzk_diag_vsay(x->o->log, x->o->log_arg, fmt, ap);
    va_end(ap);
}

/* Counts one check; logs failures always, passes when verbose. */
static void check(st_ctx *x, int ok, const char *what, double ms)
{
    x->r->checks++;
    if (!ok) x->r->failures++;
    if (!ok || x->o->verbose) st_log(x, "%s %s (%.1f ms)", ok ? "ok  " : "FAIL", what, ms);
}

/* Uniform raw value < m (4 limbs) by rejection. */
static void rand_below(uint64_t s[4], const uint64_t m[4], uint64_t *rng)
{
    unsigned top = 0;
    while ((m[3] >> top) > 1) top++;
    uint64_t mask = (top >= 63) ? ~0ULL : ((2ULL << top) - 1);
    for (;;) {
        for (int i = 0; i < 4; i++) s[i] = cuzk_splitmix64(rng);
        s[3] &= mask;
        for (int i = 3; i >= 0; i--) {
            if (s[i] != m[i]) {
                if (s[i] < m[i]) return;
                break;
            }
        }
    }
}

enum sdist { S_UNIFORM, S_WITNESS, S_ZERO, S_ONE, S_RM1, S_NDIST };
static const char *SDIST[] = {"uniform", "witness-like", "all 0", "all 1", "all r-1"};

/* ---- NTT ---------------------------------------------------------------- */

static const char *NTT_OPS[] = {"forward",   "inverse",    "coset-forward", "coset-inverse",
                                "odd-coset", "forward-nr", "inverse-rn"};

/* In-place bit-reversal permutation of 2^lg elements of `size` bytes (<= 64):
 * the CPU reference of the _NR / _RN orders. */
static void st_bitrev(void *v, size_t size, unsigned lg)
{
    uint8_t *a = v, tmp[64];
    const size_t n = (size_t)1 << lg;
    for (size_t i = 0; i < n; i++) {
        size_t r = 0;
        for (unsigned b = 0; b < lg; b++) r |= ((i >> b) & 1) << (lg - 1 - b);
        if (r <= i) continue;
        memcpy(tmp, a + size * i, size);
        memcpy(a + size * i, a + size * r, size);
        memcpy(a + size * r, tmp, size);
    }
}

/* Fr elements are 32 bytes (4 raw or Montgomery limbs) on every curve. */
#define FR_BYTES 32

static void rand_fr_mont(const cuzk_curve_ops *ops, void *out, uint64_t *rng)
{
    uint64_t raw[4];
    rand_below(raw, ops->desc->r, rng);
    ops->fr_to_mont(out, raw);
}

/* Sizes 2^min_lg..2^max_lg, the operations in op_mask (bit op), of one curve. */
static cuzk_status st_ntt_range(st_ctx *x, const cuzk_curve_ops *ops, unsigned min_lg, unsigned max_lg,
                                unsigned op_mask, cuzk_error *e)
{
    const size_t nmax = (size_t)1 << max_lg;
    uint8_t *in = cuzk_alloc(nmax, FR_BYTES), *ref = cuzk_alloc(nmax, FR_BYTES), *got = cuzk_alloc(nmax, FR_BYTES);
    void *d = NULL, *dom = NULL;
    cuzk_gpu_ntt *t = NULL;
    cuzk_status st = CUZK_OK;
    if (!in || !ref || !got) {
        st = cuzk_err(e, CUZK_ERR_NOMEM, "selftest: out of host memory");
        goto out;
    }
    if ((st = cuzk_gpu_ntt_create(&t, ops->desc->curve, max_lg, x->o->device, e))) goto out;
    if ((st = cuzk_gpu_dev_alloc(&d, nmax * FR_BYTES, x->o->device, e))) goto out;
    for (unsigned lg = min_lg; lg <= max_lg; lg++) {
        const size_t n = (size_t)1 << lg;
        if ((st = ops->ntt_domain_create(&dom, lg, 0, x->pool, e))) goto out;
        for (int op = 0; op <= CUZK_GPU_NTT_INVERSE_RN; op++) {
            if (!(op_mask >> op & 1)) continue;
            /* large sizes: no plain cosets (the prover uses the odd coset) */
            if (lg > 18 && (op == CUZK_GPU_NTT_COSET_FORWARD || op == CUZK_GPU_NTT_COSET_INVERSE)) continue;
            for (size_t i = 0; i < n; i++) rand_fr_mont(ops, in + FR_BYTES * i, &x->rng);
            memcpy(ref, in, n * FR_BYTES);
            switch (op) {
            case CUZK_GPU_NTT_FORWARD: ops->ntt(dom, ref, false, false, x->pool); break;
            case CUZK_GPU_NTT_INVERSE: ops->ntt(dom, ref, true, false, x->pool); break;
            case CUZK_GPU_NTT_FORWARD_NR:
                ops->ntt(dom, ref, false, false, x->pool);
                st_bitrev(ref, FR_BYTES, lg);
                break;
            case CUZK_GPU_NTT_INVERSE_RN:
                st_bitrev(ref, FR_BYTES, lg);
                ops->ntt(dom, ref, true, false, x->pool);
                break;
            case CUZK_GPU_NTT_COSET_FORWARD: ops->ntt(dom, ref, false, true, x->pool); break;
            case CUZK_GPU_NTT_COSET_INVERSE: ops->ntt(dom, ref, true, true, x->pool); break;
            default:
                if ((st = ops->ntt_coset_odd(dom, ref, x->pool, e))) goto out;
            }
            memset(got, 0xa5, n * FR_BYTES); /* poison: every element must be written */
            double t0 = cuzk_now();
            st = cuzk_gpu_copy(d, in, n * FR_BYTES, NULL, e);
            if (!st) st = cuzk_gpu_ntt_run(t, d, lg, (cuzk_gpu_ntt_op)op, NULL, e);
            if (!st) st = cuzk_gpu_copy(got, d, n * FR_BYTES, NULL, e);
            if (!st) st = cuzk_gpu_stream_sync(NULL, e);
            if (st) goto out;
            char what[128];
            snprintf(what, sizeof what, "ntt %s %s 2^%u", ops->desc->id, NTT_OPS[op], lg);
            check(x, memcmp(got, ref, n * FR_BYTES) == 0, what, (cuzk_now() - t0) * 1e3);
        }
        ops->ntt_domain_free(dom);
        dom = NULL;
    }
out:
    if (dom) ops->ntt_domain_free(dom);
    if (d) cuzk_gpu_dev_free(d, x->o->device);
    cuzk_gpu_ntt_destroy(t);
    cuzk_free(in);
    cuzk_free(ref);
    cuzk_free(got);
    return st;
}

static cuzk_status st_ntt(st_ctx *x, const cuzk_curve_ops *ops, cuzk_gpu_group g, unsigned max_lg, cuzk_error *e)
{
    (void)g;
    return st_ntt_range(x, ops, 0, max_lg, ~0u, e);
}

/* One large size, natural-order forward and inverse (both pass chains and
 * the bit reversal). */
static cuzk_status st_ntt_big(st_ctx *x, const cuzk_curve_ops *ops, cuzk_gpu_group g, unsigned lg, cuzk_error *e)
{
    (void)g;
    return st_ntt_range(x, ops, lg, lg, 1u << CUZK_GPU_NTT_FORWARD | 1u << CUZK_GPU_NTT_INVERSE, e);
}

/* ---- MSM ---------------------------------------------------------------- */

/* Equal group elements: equal affine forms (Jacobian forms are not unique). */
static bool jac_eq(const cuzk_diag_group *g, const void *a, const void *b)
{
    uint8_t x[CUZK_MAX_G2_AFFINE], y[CUZK_MAX_G2_AFFINE];
    g->to_affine(x, a);
    g->to_affine(y, b);
    return memcmp(x, y, g->aff) == 0;
}

/* Bases: a set of `nd` distinct k_j G, base i = D[i mod nd], every 61st base
 * replaced by infinity (discrete log 0). */
typedef struct {
    const cuzk_diag_group *g;
    size_t n, nd;
    uint8_t *bases;
    uint64_t (*klog)[4]; /* Montgomery discrete logs of the nd distinct bases */
    uint64_t (*sc)[4];   /* raw scalars */
    void *dsc;           /* device copy of the scalars */
    cuzk_gpu_msm *m;
} msm_st;

static bool st_is_inf(size_t i) { return i % 61 == 60; }

static void msm_st_free(msm_st *s, int device)
{
    cuzk_gpu_msm_destroy(s->m);
    if (s->dsc) cuzk_gpu_dev_free(s->dsc, device);
    cuzk_free(s->bases);
    cuzk_free(s->klog);
    cuzk_free(s->sc);
}

static cuzk_status msm_st_init(st_ctx *x, const cuzk_diag_group *g, msm_st *s, size_t n, size_t nd,
                               const cuzk_gpu_msm_config *cfg, cuzk_error *e)
{
    memset(s, 0, sizeof *s);
    s->g = g;
    s->n = n;
    s->nd = nd;
    s->bases = cuzk_alloc(n, g->aff);
    s->klog = cuzk_alloc(nd, sizeof *s->klog);
    s->sc = cuzk_alloc(n, sizeof *s->sc);
    uint64_t (*kraw)[4] = cuzk_alloc(nd, sizeof *kraw);
    uint8_t *dist = cuzk_alloc(nd, g->aff);
    cuzk_status st = CUZK_OK;
    if (!s->bases || !s->klog || !s->sc || !kraw || !dist) {
        st = cuzk_err(e, CUZK_ERR_NOMEM, "selftest: out of host memory");
        goto out;
    }
    for (size_t j = 0; j < nd; j++) {
        rand_below(kraw[j], g->ops->desc->r, &x->rng);
        g->ops->fr_to_mont(s->klog[j], kraw[j]);
    }
    if ((st = g->batch_mul(dist, g->gen, kraw, nd, x->pool, e))) goto out;
    for (size_t i = 0; i < n; i++) {
        if (st_is_inf(i)) memset(s->bases + i * g->aff, 0, g->aff); /* infinity: x = y = 0 */
        else memcpy(s->bases + i * g->aff, dist + (i % nd) * g->aff, g->aff);
    }
    if ((st = cuzk_gpu_dev_alloc(&s->dsc, n * 32, x->o->device, e))) goto out;
    st = cuzk_gpu_msm_create(&s->m, g->ops->desc->curve, g->group, s->bases, n, 0, x->o->device, cfg, e);
out:
    cuzk_free(kraw);
    cuzk_free(dist);
    return st;
}

static void msm_st_scalars(st_ctx *x, msm_st *s, size_t n, enum sdist d)
{
    const uint64_t *r = s->g->ops->desc->r;
    for (size_t i = 0; i < n; i++) {
        uint64_t *v = s->sc[i];
        memset(v, 0, 32);
        enum sdist k = d;
        if (d == S_WITNESS) {
            uint64_t u = cuzk_splitmix64(&x->rng) % 10;
            k = u < 5 ? S_ZERO : u < 9 ? S_ONE : S_UNIFORM;
        }
        if (k == S_UNIFORM) rand_below(v, r, &x->rng);
        if (k == S_ONE) v[0] = 1;
        if (k == S_RM1) {
            memcpy(v, r, 32);
            v[0] -= 1;
        }
    }
}

/* (sum s_i k_i) G */
static void msm_st_ref(const msm_st *s, size_t n, void *out)
{
    const cuzk_curve_ops *ops = s->g->ops;
    uint64_t acc[4] = {0}, t[4], sm[4], raw[4]; /* zero is zero in Montgomery form */
    for (size_t i = 0; i < n; i++) {
        if (st_is_inf(i)) continue;
        ops->fr_to_mont(sm, s->sc[i]);
        ops->fr_mul(t, sm, s->klog[i % s->nd]);
        ops->fr_add(acc, acc, t);
    }
    ops->fr_from_mont(raw, acc);
    s->g->mul_affine(out, s->g->gen, raw, 4);
}

static cuzk_status msm_st_one(st_ctx *x, msm_st *s, size_t n, enum sdist d, const char *tag, cuzk_error *e)
{
    const cuzk_diag_group *g = s->g;
    msm_st_scalars(x, s, n, d);
    uint8_t ref[CUZK_MAX_G2_JAC], got[CUZK_MAX_G2_JAC], cpu[CUZK_MAX_G2_JAC];
    msm_st_ref(s, n, ref);
    memset(got, 0x5a, sizeof got);
    const int on_dev = (int)(x->r->checks & 1);
    cuzk_status st = CUZK_OK;
    if (on_dev) {
        if ((st = cuzk_gpu_copy(s->dsc, s->sc, n * 32, NULL, e))) return st;
        if ((st = cuzk_gpu_stream_sync(NULL, e))) return st;
    }
    double t0 = cuzk_now();
    st = cuzk_gpu_msm_run(s->m, got, on_dev ? (const uint64_t *)s->dsc : s->sc[0], n, on_dev, NULL, e);
    double ms = (cuzk_now() - t0) * 1e3;
    if (st) return st;
    int ok = jac_eq(g, got, ref);
    if (ok && n <= 4096) { /* second, independent reference */
        if ((st = g->msm(cpu, s->bases, s->sc, n, x->pool, e))) return st;
        ok = jac_eq(g, got, cpu);
    }
    char what[160];
    snprintf(what, sizeof what, "msm %s %s n=%zu%s (c=%u, %s scalars)", g->name, SDIST[d], n, tag,
             cuzk_gpu_msm_last_window(s->m), on_dev ? "device" : "host");
    check(x, ok, what, ms);
    return CUZK_OK;
}

static cuzk_status st_msm(st_ctx *x, const cuzk_curve_ops *ops, cuzk_gpu_group group, unsigned max_lg, cuzk_error *e)
{
    const cuzk_diag_group gr = cuzk_diag_group_of(ops, group), *g = &gr;
    const size_t nmax = (size_t)1 << max_lg;
    msm_st s;
    cuzk_status st = msm_st_init(x, g, &s, nmax, nmax < 4096 ? nmax : 4096, NULL, e);
    for (unsigned lg = 0; !st && lg <= max_lg; lg++) {
        size_t n = (size_t)1 << lg;
        st = msm_st_one(x, &s, n, S_UNIFORM, "", e);
        if (!st && lg >= 10) st = msm_st_one(x, &s, n, S_WITNESS, "", e);
    }
    static const size_t odd[] = {3, 1000, 100003};
    for (size_t i = 0; !st && i < sizeof odd / sizeof odd[0]; i++)
        if (odd[i] <= nmax) st = msm_st_one(x, &s, odd[i], S_UNIFORM, "", e);
    if (!st && nmax > 4) st = msm_st_one(x, &s, nmax - 1, S_WITNESS, "", e);
    /* edge cases at n = 1, a middle size and the largest one */
    size_t edge_n[3] = {1, nmax < 1000 ? nmax : 1000, nmax};
    for (int d = S_ZERO; !st && d <= S_RM1; d++)
        for (int i = 0; !st && i < 3; i++) st = msm_st_one(x, &s, edge_n[i], (enum sdist)d, "", e);
    msm_st_free(&s, x->o->device);
    if (st) return st;
    /* one base repeated: equal points meet in every bucket (doublings) */
    size_t nr = nmax < 4096 ? nmax : 4096;
    st = msm_st_init(x, g, &s, nr, 1, NULL, e);
    if (!st) st = msm_st_one(x, &s, nr, S_UNIFORM, " one base repeated", e);
    if (!st) st = msm_st_one(x, &s, nr, S_RM1, " one base repeated", e);
    msm_st_free(&s, x->o->device);
    if (st || nmax < 2048) return st;
    /* streamed bases: a budget short of half the bases, chunks of 1/16 of
     * them (a resident prefix, the rest uploaded) */
    cuzk_gpu_msm_config cfg = {.batch_points = nmax / 16 > 1024 ? nmax / 16 : 1024};
    cfg.device_budget = cuzk_gpu_msm_device_bytes(ops->desc->curve, group, nmax, &cfg, x->sms) - nmax / 2 * g->aff;
    st = msm_st_init(x, g, &s, nmax, nmax < 4096 ? nmax : 4096, &cfg, e);
    if (!st) {
        cuzk_gpu_msm_plan pl;
        cuzk_gpu_msm_get_plan(s.m, &pl);
        char tag[96];
        snprintf(tag, sizeof tag, " streamed (chunk %zu, %zu resident)", pl.chunk_points, pl.resident_points);
        check(x, pl.streamed == 1, tag, 0);
        st = msm_st_one(x, &s, nmax, S_UNIFORM, tag, e);
        if (!st) st = msm_st_one(x, &s, nmax - 1, S_WITNESS, tag, e);
        if (!st) st = msm_st_one(x, &s, nmax, S_RM1, tag, e);
        if (!st) st = msm_st_one(x, &s, 1000, S_UNIFORM, tag, e);
    }
    msm_st_free(&s, x->o->device);
    return st;
}

cuzk_status cuzk_gpu_selftest(const cuzk_gpu_selftest_opts *opts, cuzk_gpu_selftest_result *res, cuzk_error *e)
{
    cuzk_gpu_selftest_opts o = {0};
    if (opts) o = *opts;
    cuzk_gpu_selftest_result r0 = {0};
    cuzk_gpu_selftest_result *r = res ? res : &r0;
    memset(r, 0, sizeof *r);
    unsigned max_lg = o.max_lg ? o.max_lg : 24;
    if (max_lg > 27) return cuzk_err(e, CUZK_ERR_USAGE, "selftest: sizes up to 2^27");
    if (o.ntt_big_lg > 28) return cuzk_err(e, CUZK_ERR_USAGE, "selftest: the large NTT is at most 2^28");
    if (cuzk_gpu_device_count() <= o.device) return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "no CUDA device");
    st_ctx x = {&o, r, NULL, o.seed ? o.seed : (uint64_t)(cuzk_now() * 1e6), 0};
    r->seed = x.rng;
    x.pool = cuzk_pool_create(o.threads);
    if (!x.pool) return cuzk_err(e, CUZK_ERR_NOMEM, "selftest: cannot create the thread pool");
    double t0 = cuzk_now();
    char dev[256];
    size_t mem = 0;
    int sms = 0;
    cuzk_status st = cuzk_gpu_device_info(o.device, dev, sizeof dev, &mem, &sms, e);
    x.sms = sms;
    if (!st) st_log(&x, "GPU self-test on %s (%d SMs), sizes up to 2^%u, seed %llu", dev, sms, max_lg,
                    (unsigned long long)r->seed);
    unsigned ntt_lg = max_lg > 27 ? 27 : max_lg; /* BN254 coset sizes need lg + 1 <= 28 */
    /* Every curve's NTT, then G1 of every curve, then G2, then (when asked)
     * every curve's large NTT. */
    static const struct {
        const char *what;
        cuzk_status (*fn)(st_ctx *, const cuzk_curve_ops *, cuzk_gpu_group, unsigned, cuzk_error *);
        cuzk_gpu_group group;
        int big;
    } parts[] = {
        {"ntt", st_ntt, CUZK_GPU_G1, 0},
        {"msm", st_msm, CUZK_GPU_G1, 0},
        {"msm", st_msm, CUZK_GPU_G2, 0},
        {"ntt", st_ntt_big, CUZK_GPU_G1, 1},
    };
    for (size_t i = 0; !st && i < sizeof parts / sizeof parts[0]; i++) {
        if (parts[i].big && !o.ntt_big_lg) break; /* the large NTT only when asked */
        for (const cuzk_curve_desc *const *d = cuzk_curve_descs(); !st && *d; d++) {
            const cuzk_curve_ops *ops = cuzk_curve_ops_get((*d)->curve);
            char name[48];
            if (parts[i].fn == st_msm)
                snprintf(name, sizeof name, "msm %s %s", (*d)->id, parts[i].group == CUZK_GPU_G1 ? "G1" : "G2");
            else
                snprintf(name, sizeof name, "ntt %s%s", (*d)->id, parts[i].big ? " large" : "");
            unsigned lg = parts[i].big ? o.ntt_big_lg : parts[i].fn == st_msm ? max_lg : ntt_lg;
            unsigned c0 = r->checks, f0 = r->failures;
            double p0 = cuzk_now();
            st = parts[i].fn(&x, ops, parts[i].group, lg, e);
            if (!st)
                st_log(&x, "%-18s %4u checks, %u failed (%.1f s)", name, r->checks - c0, r->failures - f0,
                       cuzk_now() - p0);
        }
    }
    cuzk_pool_destroy(x.pool);
    r->seconds = cuzk_now() - t0;
    if (st) return st;
    if (r->failures)
        return cuzk_err(e, CUZK_ERR_GPU, "GPU self-test: %u of %u checks failed (seed %llu)", r->failures, r->checks,
                        (unsigned long long)r->seed);
    return CUZK_OK;
}
