/* The bellperson-mode API (include/cuzk/bellperson.h): the loaded
 * parameters, the checks of bellperson's assignments, proving through the
 * Groth16 pipeline (prove.c) with the bellperson backends (bp_backend.c),
 * verification, and the start / finish split. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/gpu.h"
#include "formats/bellperson.h"
#include "formats/map_guard.h"
#include "groth16/bp.h"
#include "groth16/bp_srs.h"
#include "groth16/ctx.h"
#include "groth16/prove.h"
#include "util/bitsel.h"

struct cuzk_bp_srs {
    char *name;
    cuzk_bpk k;
    cuzk_vk vk;
    cuzk_zkey hdr; /* the pipeline's view: header points */
    const cuzk_curve_ops *ops;
    const cuzk_g16_backend *be;
    cuzk_bp_attach_opts ao; /* ao.device: set per device at attach */
    unsigned n_dev;         /* devices (GPU; 1 on the CPU) */
    int dev[CUZK_BP_MAX_DEVICES];     /* their CUDA ordinals */
    void *state[CUZK_BP_MAX_DEVICES]; /* the backend's state on each; NULL after evict (GPU) */
    pthread_rwlock_t lock;  /* proofs hold it shared; evict and re-attach exclusive */
    cuzk_bp_srs_info info;
    /* A mapped key (GPU): the file, mapped for the handle's life (k's
     * sections point into it), and its SIGBUS guard (formats/map_guard.h) */
    cuzk_bp_params map;
    cuzk_map_guard *guard;
    bool checked;
};

/* ---- loading ------------------------------------------------------------------ */

/* Detaches the backend from every device (evict, free). */
static void srs_detach(cuzk_bp_srs *p)
{
    for (unsigned d = 0; d < CUZK_BP_MAX_DEVICES; d++)
        if (p->state[d]) {
            cuzk_bp_backend_detach(p->be, p->state[d]);
            p->state[d] = NULL;
        }
}

void cuzk_bp_srs_free(cuzk_bp_srs *p)
{
    if (!p)
        return;
    srs_detach(p);
    pthread_rwlock_destroy(&p->lock);
    cuzk_vk_free(&p->vk);
    cuzk_bpk_free(&p->k);
    cuzk_map_guard_remove(p->guard);
    cuzk_bp_params_close(&p->map);
    free(p->name);
    free(p);
}

/* A mapped key the GPU did not take (AUTO): the CPU needs the points
 * decoded, so the file is read again into memory and the map let go. */
static cuzk_status srs_decode(cuzk_bp_srs *p, cuzk_ctx *ctx, cuzk_error *err)
{
    cuzk_bpk k;
    cuzk_status st = cuzk_bpk_load(&k, p->name, p->checked, ctx, err);
    if (st) {
        cuzk_bpk_free(&k);
        return st;
    }
    cuzk_bpk_free(&p->k);
    p->k = k;
    cuzk_map_guard_remove(p->guard);
    p->guard = NULL;
    cuzk_bp_params_close(&p->map);
    return CUZK_OK;
}

/* The GPU backend on each of p's devices in turn, each with its own plan;
 * a host budget is shared: each device plans within what the host plans of
 * the ones before left of it (their peaks, page-locked key pages included;
 * a later device counts those pages again, which errs on the safe side).
 * On an error, nothing stays attached (the message names the device when
 * there are several). */
static cuzk_status srs_attach_gpu(cuzk_bp_srs *p, cuzk_ctx *ctx, uint64_t *host, uint64_t *device, cuzk_error *err)
{
    const uint64_t budget = p->ao.host_budget;
    cuzk_bp_attach_opts ao = p->ao;
    cuzk_status st = CUZK_OK;
    uint64_t planned = 0; /* the host plans' peaks of the devices attached */
    for (unsigned d = 0; d < p->n_dev && !st; d++) {
        uint64_t h = 0, b = 0;
        ao.device = p->dev[d];
        if (budget && budget != UINT64_MAX) {
            if (planned >= budget)
                st = cuzk_err(err, CUZK_ERR_NOMEM, "%s: GPU %d: no host memory left of the %.2f GiB budget after "
                                                   "the devices before it", p->name, p->dev[d],
                              budget / 1073741824.0);
            ao.host_budget = budget - planned;
        }
        if (!st)
            st = cuzk_bp_backend_attach(p->be, ctx, &p->k, &ao, &p->state[d], &h, &b, err);
        if (st && p->n_dev > 1 && err && st != CUZK_ERR_CANCELLED) {
            char m[sizeof err->msg];
            memcpy(m, err->msg, sizeof m);
            snprintf(err->msg, sizeof err->msg, "GPU %d (device %u of %u): %.440s", p->dev[d], d + 1, p->n_dev, m);
        }
        *host += h;
        *device += b;
        if (!st)
            planned += cuzk_bp_backend_host_peak(p->be, p->state[d]);
    }
    if (st)
        srs_detach(p);
    return st;
}

/* Attaches p->k to the backend o asks for (AUTO: the GPU when every device
 * accepts the parameters, else the CPU). */
static cuzk_status srs_attach(cuzk_bp_srs *p, cuzk_ctx *ctx, cuzk_backend want, cuzk_error *err)
{
    uint64_t host = 0, device = 0;
    cuzk_status st;
    if (want != CUZK_BACKEND_CPU) {
        cuzk_error gerr = {0};
        p->be = cuzk_bp_backend_gpu();
        st = srs_attach_gpu(p, ctx, &host, &device, want == CUZK_BACKEND_GPU ? err : &gerr);
        if (st == CUZK_OK || want == CUZK_BACKEND_GPU || st == CUZK_ERR_CANCELLED)
            goto done;
    }
    if (cuzk_bpk_mapped(&p->k) && (st = srs_decode(p, ctx, err)))
        return st;
    p->be = cuzk_bp_backend_cpu();
    p->n_dev = 1;
    host = device = 0;
    st = cuzk_bp_backend_attach(p->be, ctx, &p->k, &p->ao, &p->state[0], &host, &device, err);
done:
    if (!st && cuzk_map_guard_lost(p->guard)) { /* the file shrank under the upload */
        srs_detach(p);
        st = cuzk_err(err, CUZK_ERR_IO, "%s: the file changed while it was read (replace parameter files by "
                                        "rename, never in place)", p->name);
    }
    if (st) {
        srs_detach(p);
        return st;
    }
    p->info.backend = p->be->kind;
    p->info.host_bytes = cuzk_bpk_bytes(&p->k) + host + sizeof *p;
    p->info.device_bytes = device;
    p->info.n_devices = p->n_dev;
    p->info.workers = 0;
    for (unsigned d = 0; d < p->n_dev; d++)
        p->info.workers += cuzk_bp_backend_workers(p->be, p->state[d]);
    return CUZK_OK;
}

/* The devices opts asks for (device, device_count), checked against those
 * visible (the GPU; on the CPU one entry, unused). */
typedef struct {
    unsigned n;
    int dev[CUZK_BP_MAX_DEVICES];
} srs_devs;

static cuzk_status srs_devices(const cuzk_bp_srs_opts *o, const char *name, srs_devs *d, cuzk_error *err)
{
    d->n = 1;
    d->dev[0] = o ? o->device : 0;
    if (!o || o->backend == CUZK_BACKEND_CPU || o->device_count == 0 || o->device_count == 1)
        return CUZK_OK;
    const int vis = cuzk_gpu_device_count();
    if (o->device < 0)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: device %d is not a CUDA device index", name, o->device);
    if (o->device_count < -1 || o->device_count > CUZK_BP_MAX_DEVICES)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: device_count %d: 1 .. %d devices, or -1 (every device)", name,
                        o->device_count, CUZK_BP_MAX_DEVICES);
    int n = o->device_count;
    if (n == -1) /* every device from `device` on (none: the attach names the missing device) */
        n = vis - o->device < 1 ? 1 : vis - o->device > CUZK_BP_MAX_DEVICES ? CUZK_BP_MAX_DEVICES : vis - o->device;
    else if (vis == 0 && o->backend == CUZK_BACKEND_AUTO) /* no GPU: AUTO takes the CPU */
        n = 1;
    else if (o->device + n > vis)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: devices %d .. %d asked, %d CUDA device%s visible", name, o->device,
                        o->device + n - 1, vis, vis == 1 ? "" : "s");
    d->n = (unsigned)n;
    for (int i = 0; i < n; i++)
        d->dev[i] = o->device + i;
    return CUZK_OK;
}

/* adopt, with the key's map (a mapped key: taken over too, *map zeroed),
 * on the devices d. */
static cuzk_status srs_adopt(cuzk_bp_srs **out, cuzk_ctx *ctx, cuzk_bpk *k, cuzk_bp_params *map, const char *name,
                             const cuzk_bp_srs_opts *opts, const srs_devs *d, cuzk_error *err);

cuzk_status cuzk_bp_srs_adopt(cuzk_bp_srs **out, cuzk_ctx *ctx, cuzk_bpk *k, const char *name,
                              const cuzk_bp_srs_opts *opts, cuzk_error *err)
{
    srs_devs d;
    cuzk_status st = srs_devices(opts, name, &d, err);
    if (st) {
        *out = NULL;
        cuzk_bpk_free(k);
        return st;
    }
    return srs_adopt(out, ctx, k, NULL, name, opts, &d, err);
}

static cuzk_status srs_adopt(cuzk_bp_srs **out, cuzk_ctx *ctx, cuzk_bpk *k, cuzk_bp_params *map, const char *name,
                             const cuzk_bp_srs_opts *opts, const srs_devs *d, cuzk_error *err)
{
    *out = NULL;
    cuzk_bp_srs_opts o = {0};
    if (opts)
        o = *opts;
    cuzk_bp_srs *p = calloc(1, sizeof *p);
    if (!p || !(p->name = strdup(name))) {
        free(p);
        cuzk_bpk_free(k);
        if (map)
            cuzk_bp_params_close(map);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory loading %s", name);
    }
    p->k = *k;
    memset(k, 0, sizeof *k);
    p->checked = opts && opts->checked;
    p->n_dev = d->n;
    memcpy(p->dev, d->dev, sizeof p->dev);
    p->map.file.fd = -1; /* no file (calloc's 0 is stdin, which cuzk_bp_srs_free would close) */
    if (map) {
        p->map = *map;
        memset(map, 0, sizeof *map);
        /* a file truncated under the GPU's reads: an error, not a SIGBUS */
        if (p->map.file.map)
            p->guard = cuzk_map_guard_add(p->map.file.map, (size_t)p->map.file.size);
    }
    pthread_rwlock_init(&p->lock, NULL);
    cuzk_status st = CUZK_OK;
    if ((unsigned)o.backend > CUZK_BACKEND_AUTO)
        st = cuzk_err(err, CUZK_ERR_USAGE, "%s: unknown backend %d", name, (int)o.backend);
    p->ops = cuzk_curve_ops_get(CUZK_CURVE_BLS12_381);
    if (!st && p->k.log_n >= p->ops->desc->fr_two_adicity)
        st = cuzk_err(err, CUZK_ERR_UNSUPPORTED, "%s: domain 2^%u is beyond the BLS12-381 scalar field's 2-adicity",
                      name, p->k.log_n);
    if (!st)
        st = cuzk_bpk_vk(&p->k, &p->vk, err);
    if (!st)
        st = cuzk_g16_vk_prepare(p->ops, &p->vk, err);
    if (!st) {
        cuzk_bpk_zkey_header(&p->k, &p->hdr);
        p->ao.device_budget = o.device_budget;
        p->ao.workers = o.gpu_workers;
        p->ao.host_budget = o.host_budget;
        p->ao.stage_bases = o.gpu_stage_bases;
        cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_PREPARE);
        st = srs_attach(p, ctx, o.backend, err);
        if (!st)
            cuzk_phase_end(ctx, &ph);
    }
    if (st) {
        cuzk_bp_srs_free(p);
        return st;
    }
    cuzk_bp_srs_info *in = &p->info;
    in->n_inputs = p->k.n_inp;
    in->log_domain = p->k.log_n;
    in->n_h = p->k.n - 1;
    in->n_l = in->n_aux = p->k.n_aux;
    in->n_a = p->k.n_a;
    in->n_b = p->k.n_b;
    *out = p;
    return CUZK_OK;
}

static cuzk_status srs_load(cuzk_bp_srs **out, cuzk_ctx *ctx, const char *path, const cuzk_bp_srs_opts *opts,
                            const srs_devs *d, cuzk_error *err)
{
    cuzk_bpk k = {0};
    cuzk_bp_params map;
    memset(&map, 0, sizeof map);
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_LOAD_KEY);
    /* For the GPU the sections stay in the file's mapping (the device
     * converts what it uploads); the CPU decodes them into memory. */
    const bool gpu = opts && (opts->backend == CUZK_BACKEND_GPU ||
                              (opts->backend == CUZK_BACKEND_AUTO && cuzk_gpu_device_count() > opts->device));
    cuzk_status st = gpu ? cuzk_bpk_map(&k, &map, path, opts->checked, ctx, err)
                         : cuzk_bpk_load(&k, path, opts && opts->checked, ctx, err);
    if (st) {
        cuzk_bpk_free(&k);
        return st;
    }
    cuzk_phase_end(ctx, &ph);
    return srs_adopt(out, ctx, &k, gpu ? &map : NULL, path, opts, d, err);
}

cuzk_status cuzk_bp_srs_load(cuzk_bp_srs **out, cuzk_ctx *ctx, const char *path, const cuzk_bp_srs_opts *opts,
                             cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    *out = NULL;
    srs_devs d;
    cuzk_status st = srs_devices(opts, path, &d, err);
    return st ? st : srs_load(out, ctx, path, opts, &d, err);
}

cuzk_status cuzk_bp_srs_load_on(cuzk_bp_srs **out, cuzk_ctx *ctx, const char *path, const cuzk_bp_srs_opts *opts,
                                const int *devices, unsigned n, cuzk_error *err)
{
    cuzk_err_clear(err);
    *out = NULL;
    if (!n || n > CUZK_BP_MAX_DEVICES || !devices)
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: %u devices listed", path, n);
    srs_devs d = {.n = n};
    memcpy(d.dev, devices, n * sizeof *devices);
    return srs_load(out, ctx, path, opts, &d, err);
}

void cuzk_bp_srs_get_info(const cuzk_bp_srs *p, cuzk_bp_srs_info *info)
{
    *info = p->info;
    info->device_peak = 0; /* measured until now */
    for (unsigned d = 0; d < p->n_dev; d++)
        info->device_peak += cuzk_bp_backend_device_peak(p->be, p->state[d]);
}

void cuzk_bp_srs_evict(cuzk_bp_srs *p)
{
    pthread_rwlock_wrlock(&p->lock);
    if (p->state[0] && p->be->kind == CUZK_BACKEND_GPU) {
        srs_detach(p);
        p->info.device_bytes = 0;
    }
    pthread_rwlock_unlock(&p->lock);
}

/* Takes p's lock shared, with the backend attached (again, after evict). */
static cuzk_status srs_acquire(cuzk_bp_srs *p, cuzk_ctx *ctx, cuzk_error *err)
{
    for (;;) {
        pthread_rwlock_rdlock(&p->lock);
        if (p->state[0])
            return CUZK_OK;
        pthread_rwlock_unlock(&p->lock);
        pthread_rwlock_wrlock(&p->lock);
        cuzk_status st = p->state[0] ? CUZK_OK : srs_attach(p, ctx, p->be->kind, err);
        pthread_rwlock_unlock(&p->lock);
        if (st)
            return st;
    }
}

/* ---- assignments ------------------------------------------------------------------ */

static bool below_r(const uint64_t *x) { return cuzk_bp_below_r(x); }

static bool bit(const uint64_t *w, size_t i) { return (w[i / 64] >> (i % 64)) & 1; }

/* One assignment against p: sizes, densities, ONE (the scalars are checked
 * below r as the proof reads them: raw_sc_make, the backends' abc step). */
static cuzk_status check_assignment(const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t i, cuzk_error *err)
{
    const cuzk_bpk *k = &p->k;
    const char *f = p->name;
    if ((a->abc_size && (!a->a || !a->b || !a->c)) || !a->inp || (a->aux_size && !a->aux) ||
        (a->a_aux_bit_len && !a->a_aux_density) || (a->b_inp_bit_len && !a->b_inp_density) ||
        (a->b_aux_bit_len && !a->b_aux_density))
        return cuzk_err(err, CUZK_ERR_USAGE, "circuit %zu: a NULL pointer with a non-zero size", i);
    if (a->abc_size > k->n)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "circuit %zu: abc_size %zu, more than the domain 2^%u of %s", i,
                        a->abc_size, k->log_n, f);
    if (a->inp_size != k->n_inp)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "circuit %zu: inp_size %zu, %s has %u inputs", i, a->inp_size, f,
                        k->n_inp);
    if (a->aux_size != k->n_aux)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "circuit %zu: aux_size %zu, %s has %llu L points", i, a->aux_size,
                        f, (unsigned long long)k->n_aux);
    if (a->a_aux_bit_len != a->aux_size || a->b_aux_bit_len != a->aux_size || a->b_inp_bit_len != a->inp_size)
        return cuzk_err(err, CUZK_ERR_MISMATCH,
                        "circuit %zu: density bit lengths a_aux %zu, b_aux %zu, b_inp %zu; expected %zu, %zu, %zu",
                        i, a->a_aux_bit_len, a->b_aux_bit_len, a->b_inp_bit_len, a->aux_size, a->aux_size,
                        a->inp_size);
    const struct {
        const char *name;
        const uint64_t *w;
        size_t bits, pop;
    } d[3] = {{"a_aux", a->a_aux_density, a->a_aux_bit_len, a->a_aux_popcount},
              {"b_inp", a->b_inp_density, a->b_inp_bit_len, a->b_inp_popcount},
              {"b_aux", a->b_aux_density, a->b_aux_bit_len, a->b_aux_popcount}};
    for (int t = 0; t < 3; t++) {
        uint64_t c = d[t].bits ? cuzk_popcount_bits(d[t].w, d[t].bits) : 0;
        if (c != d[t].pop)
            return cuzk_err(err, CUZK_ERR_MISMATCH, "circuit %zu: %s_popcount %zu, but %llu bits are set", i,
                            d[t].name, d[t].pop, (unsigned long long)c);
    }
    if (a->inp_size + a->a_aux_popcount != k->n_a)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "circuit %zu: %zu inputs + %zu aux in A, %s has %llu A points", i,
                        a->inp_size, a->a_aux_popcount, f, (unsigned long long)k->n_a);
    if (a->b_inp_popcount + a->b_aux_popcount != k->n_b)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "circuit %zu: %zu inputs + %zu aux in B, %s has %llu B points", i,
                        a->b_inp_popcount, a->b_aux_popcount, f, (unsigned long long)k->n_b);
    if (memcmp(&a->inp[0], &bls12_381_fr_ONE, 32))
        return cuzk_err(err, CUZK_ERR_MISMATCH, "circuit %zu: inp[0] is not one (Montgomery form)", i);
    return CUZK_OK;
}

static cuzk_status call_devices(const cuzk_bp_srs *p, const cuzk_bp_prove_opts *opts, unsigned use[], unsigned *n,
                                cuzk_error *err);

static cuzk_status check_all(const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t n, const cuzk_bp_fr *r,
                             const cuzk_bp_fr *s, const cuzk_bp_prove_opts *opts, cuzk_error *err)
{
    unsigned use[CUZK_BP_MAX_DEVICES], n_use;
    cuzk_status dst = call_devices(p, opts, use, &n_use, err);
    if (dst)
        return dst;
    if (n && (!a || !r || !s))
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_prove: NULL assignments or r, s");
    for (size_t i = 0; i < n; i++) {
        cuzk_status st = check_assignment(p, &a[i], i, err);
        if (st)
            return st;
        if (!below_r(r[i].l) || !below_r(s[i].l))
            return cuzk_err(err, CUZK_ERR_USAGE, "circuit %zu: r or s is not below the scalar field order", i);
    }
    return CUZK_OK;
}

/* ---- one proof ------------------------------------------------------------------ */

/* The raw scalars of a proof: w = inp ++ aux (raw), and the A and B
 * selections (w itself when the density is full), in one allocation, for
 * the backends that take them (cuzk_bp_backend_raw_scalars); for the others
 * w holds the inputs alone (the verification's public inputs). */
typedef struct {
    uint64_t (*w)[4];
    uint64_t (*sa)[4], (*sb)[4];
    bool own_a, own_b;
} raw_sc;

typedef struct {
    const cuzk_bp_assignment *as;
    raw_sc *r;
    _Atomic size_t bad; /* the first value not below r (inp, then aux) */
} conv_job;

static void conv_range(void *arg, size_t b, size_t e, int worker)
{
    (void)worker;
    conv_job *c = arg;
    const size_t ni = c->as->inp_size;
    for (size_t i = b; i < e; i++) {
        const cuzk_bp_fr *x = i < ni ? &c->as->inp[i] : &c->as->aux[i - ni];
        if (!below_r(x->l)) {
            size_t cur = atomic_load(&c->bad);
            while (i < cur && !atomic_compare_exchange_weak(&c->bad, &cur, i))
                ;
            return;
        }
        bls12_381_fr_from_mont((bls12_381_fr_t *)c->r->w[i], (const bls12_381_fr_t *)x);
    }
}

static void raw_sc_free(raw_sc *r)
{
    cuzk_free(r->w);
    memset(r, 0, sizeof *r);
}

/* dst = the src[i] whose bit i is set (i < n), in order, in parallel. */
static cuzk_status gather(uint64_t (*dst)[4], const uint64_t (*src)[4], const uint64_t *bits, size_t n, cuzk_pool *pool,
                          cuzk_error *err)
{
    cuzk_bitsel g;
    cuzk_status st = cuzk_bitsel_init(&g, dst, src, bits, n, 32, err);
    if (st)
        return st;
    cuzk_parallel_for(pool, g.nblk, 1, cuzk_bitsel_range, &g);
    cuzk_bitsel_free(&g);
    return CUZK_OK;
}

static cuzk_status raw_sc_make(raw_sc *r, const cuzk_bpk *k, const cuzk_bp_assignment *as, size_t idx,
                               bool all, cuzk_pool *pool, cuzk_error *err)
{
    memset(r, 0, sizeof *r);
    const size_t ni = as->inp_size, nx = all ? as->aux_size : 0, nv = ni + nx;
    const bool full_a = as->a_aux_popcount == as->aux_size,
               full_b = as->b_inp_popcount == ni && as->b_aux_popcount == as->aux_size;
    r->own_a = all && !full_a;
    r->own_b = all && !full_b;
    const size_t tot = nv + (r->own_a ? k->n_a : 0) + (r->own_b ? k->n_b : 0);
    if (!(r->w = cuzk_alloc(tot, 32)))
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory for the assignment's scalars (%zu)", tot);
    conv_job cj = {.as = as, .r = r};
    atomic_init(&cj.bad, SIZE_MAX);
    cuzk_parallel_for(pool, nv, 1 << 14, conv_range, &cj);
    const size_t bad = atomic_load(&cj.bad);
    if (bad != SIZE_MAX)
        return cuzk_err(err, CUZK_ERR_USAGE, "circuit %zu: %s[%zu] is not below the scalar field order", idx,
                        bad < ni ? "inp" : "aux", bad < ni ? bad : bad - ni);
    if (!all)
        return CUZK_OK;
    /* A: every input, then aux with a_aux set */
    if (!r->own_a) {
        r->sa = full_a ? r->w : NULL;
    } else {
        r->sa = r->w + nv;
        memcpy(r->sa, r->w, ni * 32);
        if (gather(r->sa + ni, r->w + ni, as->a_aux_density, nx, pool, err))
            return CUZK_ERR_NOMEM;
    }
    /* B: inputs with b_inp set, aux with b_aux set */
    if (!r->own_b) {
        r->sb = full_b ? r->w : NULL;
    } else {
        r->sb = r->w + nv + (r->own_a ? k->n_a : 0);
        size_t o = 0;
        for (size_t i = 0; i < ni; i++)
            if (bit(as->b_inp_density, i))
                memcpy(r->sb[o++], r->w[i], 32);
        if (gather(r->sb + o, r->w + ni, as->b_aux_density, nx, pool, err))
            return CUZK_ERR_NOMEM;
    }
    return CUZK_OK;
}

static void points_to_proof(cuzk_bp_proof *o, const cuzk_proof_points *pt)
{
    _Static_assert(sizeof pt->a.bls12_381 == sizeof o->a, "G1 affine is 96 bytes");
    _Static_assert(sizeof pt->b.bls12_381 == sizeof o->b, "G2 affine is 192 bytes");
    memcpy(o->a, &pt->a.bls12_381, sizeof o->a);
    memcpy(o->b, &pt->b.bls12_381, sizeof o->b);
    memcpy(o->c, &pt->c.bls12_381, sizeof o->c);
}

/* Called when a circuit's a, b, c are no longer read (see prove_all). */
typedef struct {
    void (*fn)(void *user, size_t index);
    void *user;
} consumed_cb;

static cuzk_status prove_one(cuzk_ctx *ctx, const cuzk_bp_srs *p, void *state, const cuzk_bp_assignment *as,
                             size_t idx, const cuzk_bp_fr *r, const cuzk_bp_fr *s, bool verify, const consumed_cb *cb,
                             cuzk_bp_proof *out, cuzk_error *err)
{
    raw_sc sc;
    /* the CPU's scalars, raw; the GPU's: the public inputs alone */
    const bool raw = cuzk_bp_backend_raw_scalars(p->be);
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_PREP_SCALARS);
    cuzk_status st =
        raw_sc_make(&sc, &p->k, as, idx, raw, ctx->pool, err);
    if (st) {
        raw_sc_free(&sc);
        return st;
    }
    cuzk_phase_end(ctx, &ph);
    uint64_t rr[4], sr[4];
    bls12_381_fr_from_mont((bls12_381_fr_t *)rr, (const bls12_381_fr_t *)r->l);
    bls12_381_fr_from_mont((bls12_381_fr_t *)sr, (const bls12_381_fr_t *)s->l);
    cuzk_bp_job_in in = {.as = as,
                         .index = idx,
                         .sc_a = sc.sa,
                         .sc_b = sc.sb,
                         .sc_l = raw ? sc.w + as->inp_size : NULL,
                         .consumed = cb->fn,
                         .consumed_user = cb->user};
    cuzk_g16_ic_job ic = {.ops = p->ops, .vk = &p->vk, .pub = sc.w + 1};
    cuzk_proof_points pts;
    st = cuzk_g16_prove(ctx, p->be, state, &p->hdr, p->ops, &in, (const uint8_t *)rr, (const uint8_t *)sr,
                        verify ? cuzk_g16_ic_run : NULL, &ic, &pts, err);
    if (!st && cuzk_map_guard_lost(p->guard)) /* streamed bases read from a file that shrank: zeros */
        st = cuzk_err(err, CUZK_ERR_IO, "circuit %zu: %s changed while it was read (replace parameter files by "
                                        "rename, never in place)", idx, p->name);
    if (!st && verify && (st = cuzk_g16_verify_made(ctx, &ic, &pts, err)) == CUZK_ERR_INVALID_PROOF)
        st = cuzk_err(err, CUZK_ERR_MISMATCH,
                      "circuit %zu: the proof fails verification: the assignment does not satisfy the circuit "
                      "of %s, or its points are corrupt",
                      idx, p->name);
    raw_sc_free(&sc);
    if (!st)
        points_to_proof(out, &pts);
    return st;
}

/* The circuits of one call, taken in order by W threads (the backends'
 * workers over the devices in use: on the GPU, one proof's host work and
 * uploads overlap another's kernels, and the devices work side by side).
 * Thread t proves circuit t first (so every device in use gets work when
 * there are as many circuits as threads), then takes the next free one. The
 * first error (lowest circuit index among those that failed) stops the
 * others from starting new circuits. */
#define BATCH_MAX_THREADS 64

typedef struct {
    cuzk_ctx *ctx;
    const cuzk_bp_srs *p;
    const cuzk_bp_assignment *a;
    const cuzk_bp_fr *r, *s;
    size_t n;
    bool verify;
    consumed_cb cb;
    cuzk_bp_proof *out;
    pthread_mutex_t mu;
    size_t next, err_index;
    size_t nfirst; /* threads started: circuit t < nfirst is thread t's first */
    bool stop;
    bool first_taken[BATCH_MAX_THREADS];
    cuzk_status st;
    cuzk_error err;
} batch;

/* A thread of the batch, its number (the lane of its host spans) and its
 * device's state. */
typedef struct {
    batch *b;
    int index;
    void *state;
} batch_thread;

static void *batch_worker(void *arg)
{
    const batch_thread *bt = arg;
    batch *b = bt->b;
    /* a context per thread: the caller's pool (shared pools take turns) and
     * callbacks, its own phase state, its host spans on lane bt->index */
    cuzk_ctx child = *b->ctx;
    child.own_pool = false;
    child.plan = NULL;
    child.worker = bt->index;
    for (bool first = true;; first = false) {
        pthread_mutex_lock(&b->mu);
        size_t i;
        bool done = b->stop;
        if (first && (size_t)bt->index < b->nfirst) { /* circuit t first */
            i = (size_t)bt->index;
            if (!done)
                b->first_taken[i] = true;
        } else {
            i = b->next;
            done = done || i >= b->n;
            if (!done)
                b->next++;
        }
        pthread_mutex_unlock(&b->mu);
        if (done)
            break;
        cuzk_error e = {0};
        cuzk_status st = cuzk_check_cancel(&child, &e);
        if (!st)
            st = prove_one(&child, b->p, bt->state, &b->a[i], i, &b->r[i], &b->s[i], b->verify, &b->cb, &b->out[i],
                           &e);
        if (b->cb.fn) /* also after an error before the backend read them */
            b->cb.fn(b->cb.user, i);
        if (st) {
            pthread_mutex_lock(&b->mu);
            if (!b->st || i < b->err_index) {
                b->st = st;
                b->err = e;
                b->err_index = i;
            }
            b->stop = true;
            pthread_mutex_unlock(&b->mu);
        }
    }
    return NULL;
}

/* The devices of p a call may use (opts->pin_device: the one named),
 * as indices into p->dev. */
static cuzk_status call_devices(const cuzk_bp_srs *p, const cuzk_bp_prove_opts *opts, unsigned use[], unsigned *n,
                                cuzk_error *err)
{
    *n = 0;
    for (unsigned d = 0; d < p->n_dev; d++)
        if (!(opts && opts->pin_device) || (p->be->kind == CUZK_BACKEND_GPU && p->dev[d] == opts->device))
            use[(*n)++] = d;
    if (!*n)
        return p->be->kind != CUZK_BACKEND_GPU
                   ? cuzk_err(err, CUZK_ERR_USAGE, "%s: a device pinned, but the parameters are on the CPU", p->name)
                   : cuzk_err(err, CUZK_ERR_USAGE, "%s: device %d pinned, the parameters are on devices %d .. %d",
                              p->name, opts->device, p->dev[0], p->dev[p->n_dev - 1]);
    return CUZK_OK;
}

/* The proofs, after the checks (p's lock held shared). */
static cuzk_status prove_all(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t n,
                             const cuzk_bp_fr *r, const cuzk_bp_fr *s, bool verify, const unsigned use[],
                             unsigned n_use, const consumed_cb *cb, cuzk_bp_proof *out, cuzk_error *err)
{
    /* threads: the devices' workers, interleaved (thread t on device t mod
     * n_use while each has workers left), at most one a circuit */
    void *tstate[BATCH_MAX_THREADS];
    unsigned wk[CUZK_BP_MAX_DEVICES];
    size_t W = 0;
    for (unsigned u = 0; u < n_use; u++)
        wk[u] = cuzk_bp_backend_workers(p->be, p->state[use[u]]);
    for (unsigned round = 0, more = 1; more && W < n && W < BATCH_MAX_THREADS; round++) {
        more = 0;
        for (unsigned u = 0; u < n_use && W < n && W < BATCH_MAX_THREADS; u++)
            if (round < wk[u]) {
                tstate[W++] = p->state[use[u]];
                more = 1;
            }
    }
    if (W <= 1) {
        for (size_t i = 0; i < n; i++) {
            cuzk_status st = cuzk_check_cancel(ctx, err);
            if (!st)
                st = prove_one(ctx, p, p->state[use[0]], &a[i], i, &r[i], &s[i], verify, cb, &out[i], err);
            if (cb->fn)
                cb->fn(cb->user, i);
            if (st) {
                for (size_t j = i + 1; j < n && cb->fn; j++) /* never read */
                    cb->fn(cb->user, j);
                return st;
            }
        }
        return CUZK_OK;
    }
    batch b = {.ctx = ctx, .p = p, .a = a, .r = r, .s = s, .n = n, .verify = verify, .cb = *cb, .out = out};
    pthread_mutex_init(&b.mu, NULL);
    pthread_t th[BATCH_MAX_THREADS];
    batch_thread bt[BATCH_MAX_THREADS];
    size_t started = 0;
    pthread_mutex_lock(&b.mu); /* the threads take nothing before they all exist */
    for (size_t t = 0; t < W; t++, started++) {
        bt[t] = (batch_thread){&b, (int)t, tstate[t]};
        if (pthread_create(&th[t], NULL, batch_worker, &bt[t]))
            break;
    }
    b.nfirst = b.next = started;
    pthread_mutex_unlock(&b.mu);
    if (!started) { /* no thread: here, one at a time, on the first device */
        bt[0] = (batch_thread){&b, b.ctx->worker, tstate[0]};
        batch_worker(&bt[0]);
    }
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&b.mu);
    if (cb->fn) /* stopped: never read */
        for (size_t j = 0; j < n; j++)
            if (j < b.nfirst ? !b.first_taken[j] : j >= b.next)
                cb->fn(cb->user, j);
    if (b.st && err)
        *err = b.err;
    return b.st;
}

/* cuzk_bp_prove after its checks: out zeroed on error. */
static cuzk_status prove_checked(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t n,
                                 const cuzk_bp_fr *r, const cuzk_bp_fr *s, cuzk_bp_proof *out,
                                 const cuzk_bp_prove_opts *opts, const consumed_cb *cb, cuzk_error *err)
{
    cuzk_bp_srs *ps = (cuzk_bp_srs *)p; /* its lock and lazy attach; the key itself is not changed */
    unsigned use[CUZK_BP_MAX_DEVICES], n_use = 0;
    cuzk_status st = CUZK_OK;
    if (n && !(st = srs_acquire(ps, ctx, err))) {
        if (!(st = call_devices(p, opts, use, &n_use, err)))
            st = prove_all(ctx, p, a, n, r, s, !(opts && opts->no_verify), use, n_use, cb, out, err);
        pthread_rwlock_unlock(&ps->lock);
    }
    if (st && n)
        memset(out, 0, n * sizeof *out);
    return st;
}

cuzk_status cuzk_bp_prove(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t n,
                          const cuzk_bp_fr *r, const cuzk_bp_fr *s, cuzk_bp_proof *out,
                          const cuzk_bp_prove_opts *opts, cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    if (n && !out)
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_prove: NULL output");
    cuzk_status st = check_all(p, a, n, r, s, opts, err);
    const consumed_cb none = {0};
    if (!st)
        return prove_checked(ctx, p, a, n, r, s, out, opts, &none, err);
    if (n)
        memset(out, 0, n * sizeof *out);
    return st;
}

/* ---- start / finish ------------------------------------------------------------------ */

struct cuzk_bp_pending {
    pthread_t th;
    bool threaded;
    cuzk_ctx *ctx;
    const cuzk_bp_srs *p;
    cuzk_bp_assignment *a;
    cuzk_bp_fr *r, *s;
    size_t n;
    cuzk_bp_prove_opts o;
    cuzk_bp_proof *out;
    cuzk_status st;
    cuzk_error err;
    /* start waits until every circuit's a, b, c are read (or the proofs ended) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool *consumed;
    size_t n_consumed;
    bool done;
};

static void pending_free(cuzk_bp_pending *q)
{
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv);
    free(q->consumed);
    free(q->a);
    free(q->r);
    free(q->s);
    free(q->out);
    free(q);
}

static void pending_consumed(void *user, size_t i)
{
    cuzk_bp_pending *q = user;
    pthread_mutex_lock(&q->mu);
    if (i < q->n && !q->consumed[i]) {
        q->consumed[i] = true;
        if (++q->n_consumed == q->n)
            pthread_cond_broadcast(&q->cv);
    }
    pthread_mutex_unlock(&q->mu);
}

static void *pending_main(void *arg)
{
    cuzk_bp_pending *q = arg;
    const consumed_cb cb = {pending_consumed, q};
    q->st = prove_checked(q->ctx, q->p, q->a, q->n, q->r, q->s, q->out, &q->o, &cb, &q->err); /* start checked */
    pthread_mutex_lock(&q->mu);
    q->done = true;
    pthread_cond_broadcast(&q->cv);
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

cuzk_status cuzk_bp_prove_start(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_assignment *a, size_t n,
                                const cuzk_bp_fr *r, const cuzk_bp_fr *s, const cuzk_bp_prove_opts *opts,
                                cuzk_bp_pending **out, cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    *out = NULL;
    cuzk_status st = check_all(p, a, n, r, s, opts, err);
    if (st)
        return st;
    cuzk_bp_pending *q = calloc(1, sizeof *q);
    size_t m = n ? n : 1;
    if (q) {
        pthread_mutex_init(&q->mu, NULL);
        pthread_cond_init(&q->cv, NULL);
    }
    if (!q || !(q->a = malloc(m * sizeof *a)) || !(q->r = malloc(m * sizeof *r)) || !(q->s = malloc(m * sizeof *s)) ||
        !(q->out = calloc(m, sizeof *q->out)) || !(q->consumed = calloc(m, sizeof *q->consumed))) {
        if (q)
            pending_free(q);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory starting %zu proofs", n);
    }
    if (n) {
        memcpy(q->a, a, n * sizeof *a);
        memcpy(q->r, r, n * sizeof *r);
        memcpy(q->s, s, n * sizeof *s);
    }
    q->ctx = ctx;
    q->p = p;
    q->n = n;
    if (opts)
        q->o = *opts;
    q->threaded = pthread_create(&q->th, NULL, pending_main, q) == 0;
    if (!q->threaded) /* no thread: the work is done here, finish only collects it */
        pending_main(q);
    /* the caller may free every circuit's a, b, c once this returns */
    pthread_mutex_lock(&q->mu);
    while (q->n_consumed < q->n && !q->done)
        pthread_cond_wait(&q->cv, &q->mu);
    pthread_mutex_unlock(&q->mu);
    *out = q;
    return CUZK_OK;
}

cuzk_status cuzk_bp_prove_finish(cuzk_bp_pending *q, cuzk_bp_proof *out, cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    if (!q)
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_prove_finish: no pending proof");
    if (q->threaded)
        pthread_join(q->th, NULL);
    cuzk_status st = q->st;
    if (st) {
        if (err)
            *err = q->err;
        if (q->n && out)
            memset(out, 0, q->n * sizeof *out);
    } else if (q->n) {
        if (out)
            memcpy(out, q->out, q->n * sizeof *out);
        else
            st = cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_prove_finish: NULL output");
    }
    pending_free(q);
    return st;
}

void cuzk_bp_prove_drop(cuzk_bp_pending *q)
{
    if (!q)
        return;
    if (q->threaded)
        pthread_join(q->th, NULL);
    pending_free(q);
}

/* ---- verification ------------------------------------------------------------------ */

static bool fp_limbs_ok(const uint64_t *x, size_t n)
{
    for (size_t i = 0; i < n; i += 6)
        if (!bls12_381_fp_raw_is_canonical((const bls12_381_fp_t *)(x + i)))
            return false;
    return true;
}

cuzk_status cuzk_bp_proof_points(const cuzk_bp_proof *pr, cuzk_proof_points *pt, cuzk_error *err)
{
    memset(pt, 0, sizeof *pt);
    pt->curve = CUZK_CURVE_BLS12_381;
    if (!fp_limbs_ok(pr->a, 12) || !fp_limbs_ok(pr->b, 24) || !fp_limbs_ok(pr->c, 12))
        return cuzk_err(err, CUZK_ERR_INVALID_PROOF, "invalid proof: a coordinate is not below the field modulus");
    memcpy(&pt->a.bls12_381, pr->a, sizeof pr->a);
    memcpy(&pt->b.bls12_381, pr->b, sizeof pr->b);
    memcpy(&pt->c.bls12_381, pr->c, sizeof pr->c);
    if (!bls12_381_g1_affine_is_on_curve(&pt->a.bls12_381) || !bls12_381_g1_affine_in_subgroup(&pt->a.bls12_381) ||
        !bls12_381_g2_affine_is_on_curve(&pt->b.bls12_381) || !bls12_381_g2_affine_in_subgroup(&pt->b.bls12_381) ||
        !bls12_381_g1_affine_is_on_curve(&pt->c.bls12_381) || !bls12_381_g1_affine_in_subgroup(&pt->c.bls12_381))
        return cuzk_err(err, CUZK_ERR_INVALID_PROOF, "invalid proof: a point is not on the curve or not in its subgroup");
    return CUZK_OK;
}

cuzk_status cuzk_bp_verify(cuzk_ctx *ctx, const cuzk_bp_srs *p, const cuzk_bp_proof *proof,
                           const cuzk_bp_fr *inputs, size_t n_inputs, cuzk_error *err)
{
    cuzk_err_clear(err); /* a caller's error struct may hold an earlier error */
    if (n_inputs + 1 != p->k.n_inp)
        return cuzk_err(err, CUZK_ERR_MISMATCH, "%zu public inputs, %s expects %u", n_inputs, p->name,
                        p->k.n_inp - 1);
    if (n_inputs && !inputs)
        return cuzk_err(err, CUZK_ERR_USAGE, "cuzk_bp_verify: NULL inputs");
    cuzk_proof_points pt;
    cuzk_status st = cuzk_bp_proof_points(proof, &pt, err);
    if (st)
        return st;
    uint64_t(*raw)[4] = cuzk_alloc(n_inputs ? n_inputs : 1, 32);
    if (!raw)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n_inputs && !st; i++) {
        if (!below_r(inputs[i].l))
            st = cuzk_err(err, CUZK_ERR_USAGE, "input %zu is not below the scalar field order", i);
        else
            bls12_381_fr_from_mont((bls12_381_fr_t *)raw[i], (const bls12_381_fr_t *)inputs[i].l);
    }
    if (!st)
        st = cuzk_g16_verify(p->ops, &p->vk, raw, &pt, ctx ? ctx->pool : NULL, err);
    cuzk_free(raw);
    return st;
}

const cuzk_bpk *cuzk_bp_srs_key(const cuzk_bp_srs *p) { return &p->k; }
