/* DESIGN: the device-memory plan of a GPU Groth16 proof (include/cuzk/gpu_plan.h).
 *
 * Plain arithmetic over the key's sizes, compiled in every build. The MSM
 * items come from the MSM planner (cuzk_gpu_msm_plan_make: the same arithmetic the
 * MSM handles use at create, so a handle created with the item's msm_budget makes
 * exactly the planned plan), the NTT tables from cuzk_gpu_ntt_device_bytes.
 *
 * In tiers 1-6 the prover passes the witness to the MSMs as device scalars,
 * so an MSM handle never allocates its host-scalar staging buffer (npoints x
 * 32 bytes resident, 2 x chunk x 32 streamed): the planner subtracts it from
 * the MSM plan's figure, and hands the handle a budget that includes it so
 * the handle's own (staging-inclusive) plan comes out the same. In tier 7
 * the MSMs take host scalars: the staging is counted, and the handle's plan
 * is the item's figure as it is. Tier 7 has no coefficient item on the
 * device (a, b, c are evaluated by the CPU).
 *
 * Tier search: for each tier, best first, the proof's buffers and the waiting
 * workers' witnesses per phase are fixed by the tier; the key gets the rest.
 * Key resident: every item whole, held as long as the key. Key streamed: the
 * first k items of STREAM_ORDER (smallest k that fits) are held only during
 * the phase(s) that use them, each planned with what those phases leave; the
 * others stay whole. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuzk/gpu.h"
#include "cuzk/gpu_plan.h"
#include "curve/curve_desc.h"
#include "formats/formats.h"
#include "groth16/backend.h"
#include "groth16/host_plan.h"
#include "gpu/g16/g16.h"
#include "gpu/g16/g16_shape.h"
#include "gpu/plan/plan.h"
#include "gpu/g16/wpack.h"
#include "util/common.h"

#define FR_BYTES 32u
/* Device CSR record: signal (u32) + value (Fr), see src/gpu/g16/g16.h. */
#define COEF_BYTES (4u + FR_BYTES)
/* Records per uploaded chunk of streamed coefficients: at most 2^24, at least 2^16. */
#define COEF_CHUNK_MAX ((size_t)1 << 24)
#define COEF_CHUNK_MIN ((size_t)1 << 16)
#define DEFAULT_SM_COUNT 132
/* What the CUDA runtime takes beside our allocations while a proof runs: the
 * kernel modules loaded at first launch and the local memory reserved for
 * the largest kernels' stacks (up to ~100 MiB seen for BLS12-381 on an H200),
 * and the rounding of allocations to 2 MiB pages (~100 allocations). */
#define RUNTIME_RESERVE ((size_t)384 << 20)

static const char *const ITEM_NAMES[CUZK_GPU_ITEM_COUNT] = {"coefs",  "ntt",   "msm_h",  "msm_a",
                                                            "msm_b1", "msm_c", "msm_b2", "b_index"};
static const char *const PHASE_NAMES[CUZK_GPU_PHASE_COUNT] = {
    "stage", "abc", "ntt", "msm_h", "msm_a", "msm_b1", "msm_c", "msm_b2"};

const char *cuzk_gpu_plan_item_name(cuzk_gpu_plan_item_id id)
{
    return (unsigned)id < CUZK_GPU_ITEM_COUNT ? ITEM_NAMES[id] : "?";
}

const char *cuzk_gpu_plan_phase_name(cuzk_gpu_plan_phase p)
{
    return (unsigned)p < CUZK_GPU_PHASE_COUNT ? PHASE_NAMES[p] : "?";
}

/* The tiers, best first (include/cuzk/gpu_plan.h): the search below takes
 * their shapes from here, `cuzk plan` their descriptions. */
#define WITNESS_PRESTAGED "witness pre-staged by waiting workers"
#define WITNESS_AT_START "witness uploaded at job start"
static const cuzk_gpu_tier_desc TIERS[] = {
    {CUZK_GPU_TIER_RESIDENT_PRESTAGED, "resident-prestaged", 0, 1, 0, 3,
     "key resident, " WITNESS_PRESTAGED ", a/b/c as 3 vectors"},
    {CUZK_GPU_TIER_RESIDENT, "resident", 0, 0, 0, 3, "key resident, " WITNESS_AT_START ", a/b/c as 3 vectors"},
    {CUZK_GPU_TIER_RESIDENT_2VEC, "resident-2vec", 0, 0, 0, 2,
     "key resident, " WITNESS_AT_START ", a/b/c as 2 vectors"},
    {CUZK_GPU_TIER_STREAMED_PRESTAGED, "streamed-prestaged", 1, 1, 0, 3,
     "key partly streamed, " WITNESS_PRESTAGED ", a/b/c as 3 vectors"},
    {CUZK_GPU_TIER_STREAMED, "streamed", 1, 0, 0, 3, "key partly streamed, " WITNESS_AT_START ", a/b/c as 3 vectors"},
    {CUZK_GPU_TIER_STREAMED_2VEC, "streamed-2vec", 1, 0, 0, 2,
     "key partly streamed, " WITNESS_AT_START ", a/b/c as 2 vectors"},
    {CUZK_GPU_TIER_HOST_WITNESS, "host-witness", 1, 0, 1, 1,
     "key partly streamed, witness on the host (a, b, c and the quotient on the CPU; bellperson keys: 1 "
     "vector on the host, the quotient on the device), 1 vector on the device at a time, MSMs over host scalars"},
};
#undef WITNESS_PRESTAGED
#undef WITNESS_AT_START
_Static_assert(CUZK_ARRAY_LEN(TIERS) == CUZK_GPU_TIER_LAST, "one entry per tier, in order");

const cuzk_gpu_tier_desc *cuzk_gpu_tier_get(unsigned t)
{
    return t >= CUZK_GPU_TIER_FIRST && t <= CUZK_GPU_TIER_LAST ? &TIERS[t - 1] : NULL;
}

/* Saturating arithmetic: sizes of absurd shapes must not wrap into "fits". */
static size_t sadd(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static size_t smul(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

typedef struct {
    cuzk_gpu_group group;
    size_t npoints;
} msm_item;

/* The kept B wires' scalars are gathered on the device (snarkjs keys that
 * drop wires, b_density.h; bellperson mode selects them on the host). */
static bool b_dropped(const cuzk_gpu_key_shape *s) { return !s->bellperson && g16_shape_b_dropped(s); }

static msm_item msm_of(const cuzk_gpu_key_shape *s, int id)
{
    size_t npriv = s->n_vars - s->n_public - 1;
    switch (id) {
    case CUZK_GPU_ITEM_MSM_H: return (msm_item){CUZK_GPU_G1, g16_shape_h_points(s)};
    case CUZK_GPU_ITEM_MSM_A: return (msm_item){CUZK_GPU_G1, g16_shape_a_points(s)};
    case CUZK_GPU_ITEM_MSM_B1: return (msm_item){CUZK_GPU_G1, g16_shape_b_points(s)};
    case CUZK_GPU_ITEM_MSM_C: return (msm_item){CUZK_GPU_G1, npriv};
    default: return (msm_item){CUZK_GPU_G2, g16_shape_b_points(s)};
    }
}

size_t cuzk_gpu_g16_csr_device_bytes(uint32_t n_rows, size_t n_coefs)
{
    return sadd(2 * ((size_t)n_rows + 1) * sizeof(uint32_t), smul(n_coefs, COEF_BYTES));
}

/* Row pointers of A and B (u32, domain + 1 each): kept in both modes. */
static size_t coef_rows_bytes(const cuzk_gpu_key_shape *s)
{
    return cuzk_gpu_g16_csr_device_bytes((uint32_t)1 << s->log_domain, 0);
}

/* The prover's MSM handles are planned without precomputed copies: every
 * item with exactly its own bytes (copies taken while the tiers are searched
 * would starve the items planned after them). Copies for H come last, from
 * what the chosen tier leaves (plan_h_copies). */
static const cuzk_gpu_msm_config MSM_CFG = {.precompute = 1};

/* Host-scalar staging counted by an MSM plan and never allocated when the
 * prover's scalars are on the device (host: they are not, nothing is
 * subtracted). */
static size_t msm_staging(const msm_item *m, const cuzk_gpu_msm_plan *mp, bool host)
{
    if (host)
        return 0;
    return mp->streamed ? 2 * mp->chunk_points * FR_BYTES : m->npoints * FR_BYTES;
}

/* The MSM plan for handle budget b exists and, without the staging the
 * prover does not use, takes at most `room` bytes. */
static bool msm_fits(const cuzk_gpu_key_shape *s, const msm_item *m, int sm, size_t b, size_t room, bool host,
                     cuzk_gpu_msm_plan *mp)
{
    cuzk_error e2 = {0};
    if (cuzk_gpu_msm_plan_make(s->curve, m->group, m->npoints, &MSM_CFG, sm, b, mp, &e2) != CUZK_OK)
        return false;
    return mp->device_bytes - msm_staging(m, mp, host) <= room;
}

/* An MSM item planned with `budget` (the budget the prover can give it,
 * without scalar staging unless `host`: scalars from host memory). An empty
 * MSM (no private wires) takes nothing. */
static cuzk_status plan_msm(const cuzk_gpu_key_shape *s, int id, int sm, size_t budget, bool whole, bool host,
                            cuzk_gpu_plan_item *it, cuzk_error *err)
{
    msm_item m = msm_of(s, id);
    memset(it, 0, sizeof *it);
    size_t aff = gpu_affine_bytes(s->curve, m.group);
    it->data_bytes = smul(m.npoints, aff);
    if (m.npoints == 0)
        return CUZK_OK;
    cuzk_gpu_msm_plan mp;
    cuzk_error e2 = {0};
    /* The handle's own plan counts the staging: with device scalars it is
     * never allocated, so ask with the staging added. Resident first
     * (staging = npoints x 32). */
    size_t res_budget = whole ? SIZE_MAX : host ? budget : sadd(budget, smul(m.npoints, FR_BYTES));
    if (cuzk_gpu_msm_plan_make(s->curve, m.group, m.npoints, &MSM_CFG, sm, res_budget, &mp, &e2) ==
            CUZK_OK &&
        !mp.streamed) {
        it->device_bytes = mp.device_bytes - msm_staging(&m, &mp, host);
        if (whole || it->device_bytes <= budget) {
            it->resident = m.npoints;
            it->chunk = mp.chunk_points;
            it->msm_budget = mp.device_bytes;
            it->precompute = 1;
            return CUZK_OK;
        }
    }
    if (whole)
        return cuzk_err(err, e2.code ? e2.code : CUZK_ERR_INTERNAL, "gpu plan: %s: %s",
                        ITEM_NAMES[id], e2.msg);
    /* Streamed. The handle's plan for a budget b also counts the host-scalar
     * staging (2 x chunk x 32, the chunk depends on b), so the device bytes
     * without it are below b: any b <= budget whose plan exists fits, and a
     * larger b may still fit once the staging is taken off (device scalars
     * only). Take the largest b that fits (bisection; the figure grows with
     * b). */
    const size_t hi_max = host ? budget : sadd(budget, 2 * ((size_t)1 << 24) * FR_BYTES);
    size_t lo;
    if (msm_fits(s, &m, sm, budget, budget, host, &mp)) {
        lo = budget;
    } else {
        /* the smallest budget with a plan, above `budget` */
        size_t a = budget, z = hi_max;
        if (!msm_fits(s, &m, sm, z, SIZE_MAX, host, &mp))
            return cuzk_err(err, CUZK_ERR_NOMEM, "gpu plan: %s does not fit %zu bytes", ITEM_NAMES[id], budget);
        while (z - a > 1) {
            size_t mid = a + (z - a) / 2;
            if (msm_fits(s, &m, sm, mid, SIZE_MAX, host, &mp))
                z = mid;
            else
                a = mid;
        }
        if (!msm_fits(s, &m, sm, z, budget, host, &mp))
            return cuzk_err(err, CUZK_ERR_NOMEM, "gpu plan: %s does not fit %zu bytes", ITEM_NAMES[id], budget);
        lo = z;
    }
    size_t hi = hi_max;
    if (!msm_fits(s, &m, sm, hi, budget, host, &mp)) {
        while (hi - lo > ((size_t)1 << 16)) {
            size_t mid = lo + (hi - lo) / 2;
            if (msm_fits(s, &m, sm, mid, budget, host, &mp))
                lo = mid;
            else
                hi = mid;
        }
        hi = lo;
        msm_fits(s, &m, sm, hi, budget, host, &mp);
    }
    it->device_bytes = mp.device_bytes - msm_staging(&m, &mp, host);
    it->streamed = mp.streamed;
    it->chunk = mp.chunk_points;
    it->resident = mp.resident_points;
    it->msm_budget = hi;
    it->precompute = 1;
    return CUZK_OK;
}

/* The coefficient item: whole, or streamed within `budget` (two chunk
 * buffers of records; the row pointers stay). */
static cuzk_status plan_coefs(const cuzk_gpu_key_shape *s, size_t budget, bool whole,
                              cuzk_gpu_plan_item *it, cuzk_error *err)
{
    memset(it, 0, sizeof *it);
    const size_t rows = coef_rows_bytes(s), nc = s->n_coefs;
    it->data_bytes = smul(nc, COEF_BYTES);
    size_t all = cuzk_gpu_g16_csr_device_bytes((uint32_t)1 << s->log_domain, nc);
    if (whole || all <= budget) {
        it->device_bytes = all;
        it->resident = nc;
        it->chunk = nc;
        return CUZK_OK;
    }
    size_t chunk = COEF_CHUNK_MAX;
    while (chunk > COEF_CHUNK_MIN && sadd(rows, 2 * chunk * COEF_BYTES) > budget)
        chunk /= 2;
    if (sadd(rows, 2 * chunk * COEF_BYTES) > budget)
        return cuzk_err(err, CUZK_ERR_NOMEM, "gpu plan: the coefficient chunks do not fit %zu bytes",
                        budget);
    it->streamed = 1;
    it->chunk = chunk;
    it->device_bytes = rows + 2 * chunk * COEF_BYTES;
    return CUZK_OK;
}

/* host: tier 7 (MSM scalars from the host, no coefficients on the device).
 * Bellperson mode has no coefficients. */
static cuzk_status plan_item(const cuzk_gpu_key_shape *s, int id, int sm, size_t budget, bool whole, bool host,
                             cuzk_gpu_plan_item *it, cuzk_error *err)
{
    if (id == CUZK_GPU_ITEM_COEFS) {
        if (!host && !s->bellperson)
            return plan_coefs(s, budget, whole, it, err);
        memset(it, 0, sizeof *it);
        it->data_bytes = smul(s->n_coefs, COEF_BYTES);
        return CUZK_OK;
    }
    if (id == CUZK_GPU_ITEM_B_INDEX) { /* held whole: the gather reads it at every proof; tier 7 gathers on the host */
        memset(it, 0, sizeof *it);
        if (b_dropped(s)) {
            it->data_bytes = smul(s->n_b, sizeof(uint32_t));
            it->device_bytes = host ? 0 : it->data_bytes;
            it->resident = host ? 0 : s->n_b;
        }
        return CUZK_OK;
    }
    return plan_msm(s, id, sm, budget, whole, host, it, err);
}

/* Items switched to streamed first. */
static const int STREAM_ORDER[] = {CUZK_GPU_ITEM_MSM_H, CUZK_GPU_ITEM_COEFS, CUZK_GPU_ITEM_MSM_B2,
                                   CUZK_GPU_ITEM_MSM_C, CUZK_GPU_ITEM_MSM_A, CUZK_GPU_ITEM_MSM_B1};
#define N_STREAMABLE (sizeof STREAM_ORDER / sizeof STREAM_ORDER[0])

/* The phase(s) a streamed item lives in: the coefficients in abc and ntt
 * (with 2 vectors, c is evaluated again after b's coset product), an MSM in
 * its own. */
static bool item_in_phase(int id, int ph)
{
    switch (id) {
    case CUZK_GPU_ITEM_COEFS: return ph == CUZK_GPU_PHASE_ABC || ph == CUZK_GPU_PHASE_NTT;
    case CUZK_GPU_ITEM_MSM_H: return ph == CUZK_GPU_PHASE_MSM_H;
    case CUZK_GPU_ITEM_MSM_A: return ph == CUZK_GPU_PHASE_MSM_A;
    case CUZK_GPU_ITEM_MSM_B1: return ph == CUZK_GPU_PHASE_MSM_B1;
    case CUZK_GPU_ITEM_MSM_C: return ph == CUZK_GPU_PHASE_MSM_C;
    case CUZK_GPU_ITEM_MSM_B2: return ph == CUZK_GPU_PHASE_MSM_B2;
    default: return false;
    }
}

/* The key for a tier whose proof buffers per phase (plus the waiting
 * workers') are extra[ph]. Not streamed: every item whole and held for the
 * key's lifetime. Streamed: the first k items of STREAM_ORDER (smallest k
 * that fits) are held only in their phases, each planned with what its
 * phases leave. host: tier 7 (no coefficients on the device, whole[] planned
 * for host scalars). Fills out[], the held bytes and the per-phase bytes;
 * false if nothing fits. */
static bool plan_key(const cuzk_gpu_key_shape *s, int sm, size_t budget, bool streamed, bool host,
                     const size_t extra[CUZK_GPU_PHASE_COUNT],
                     const cuzk_gpu_plan_item whole[CUZK_GPU_ITEM_COUNT],
                     cuzk_gpu_plan_item out[CUZK_GPU_ITEM_COUNT], size_t *held,
                     size_t phase[CUZK_GPU_PHASE_COUNT])
{
    const size_t kmin = streamed ? 1 : 0, kmax = streamed ? N_STREAMABLE : 0;
    for (size_t k = kmin; k <= kmax; k++) {
        bool str[CUZK_GPU_ITEM_COUNT] = {false};
        for (size_t j = 0; j < k; j++)
            str[STREAM_ORDER[j]] = !((host || s->bellperson) && STREAM_ORDER[j] == CUZK_GPU_ITEM_COEFS);
        size_t fixed = 0;
        for (int i = 0; i < CUZK_GPU_ITEM_COUNT; i++)
            if (!str[i])
                fixed = sadd(fixed, whole[i].device_bytes);
        bool ok = true;
        size_t ph_bytes[CUZK_GPU_PHASE_COUNT];
        for (int ph = 0; ph < CUZK_GPU_PHASE_COUNT; ph++) {
            ph_bytes[ph] = sadd(fixed, extra[ph]);
            ok = ok && ph_bytes[ph] <= budget;
        }
        memcpy(out, whole, CUZK_GPU_ITEM_COUNT * sizeof *out);
        for (int i = 0; i < CUZK_GPU_ITEM_COUNT && ok; i++) {
            if (!str[i])
                continue;
            size_t room = SIZE_MAX;
            for (int ph = 0; ph < CUZK_GPU_PHASE_COUNT; ph++)
                if (item_in_phase(i, ph) && budget - ph_bytes[ph] < room)
                    room = budget - ph_bytes[ph];
            cuzk_error e2 = {0};
            if (plan_item(s, i, sm, room, false, host, &out[i], &e2) != CUZK_OK) {
                ok = false;
                break;
            }
            /* held only in its phases, even when the room holds it whole */
            out[i].streamed = 1;
            for (int ph = 0; ph < CUZK_GPU_PHASE_COUNT; ph++)
                if (item_in_phase(i, ph))
                    ph_bytes[ph] += out[i].device_bytes;
        }
        if (!ok)
            continue;
        *held = fixed;
        memcpy(phase, ph_bytes, sizeof ph_bytes);
        return true;
    }
    return false;
}

/* The least budget, to the byte, that a key-streamed tier (host: tier 7;
 * proof buffers extra[]) fits. Every phase holds at least its extra[] and
 * the NTT tables (never streamed): the search starts there. */
static size_t least_budget(const cuzk_gpu_key_shape *s, int sm, bool host, const size_t extra[CUZK_GPU_PHASE_COUNT],
                           const cuzk_gpu_plan_item whole[CUZK_GPU_ITEM_COUNT])
{
    size_t floor = 0;
    for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++)
        floor = extra[p] > floor ? extra[p] : floor;
    floor = sadd(floor, whole[CUZK_GPU_ITEM_NTT].device_bytes);
    size_t lo = floor - 1, hi = floor; /* lo never fits */
    cuzk_gpu_plan_item key[CUZK_GPU_ITEM_COUNT];
    size_t held, phase[CUZK_GPU_PHASE_COUNT];
    while (hi < (SIZE_MAX >> 2) && !plan_key(s, sm, hi, true, host, extra, whole, key, &held, phase)) {
        lo = hi;
        hi = sadd(hi, hi);
    }
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (plan_key(s, sm, mid, true, host, extra, whole, key, &held, phase))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* "1.25 GiB" / "40.0 MiB" / "512 bytes". */
static const char *fmt_size(char *buf, size_t cap, size_t b)
{
    if (b >= ((size_t)1 << 30))
        snprintf(buf, cap, "%.2f GiB", (double)b / (double)((size_t)1 << 30));
    else if (b >= ((size_t)1 << 20))
        snprintf(buf, cap, "%.1f MiB", (double)b / (double)((size_t)1 << 20));
    else
        snprintf(buf, cap, "%zu bytes", b);
    return buf;
}

/* The H item, resident, with as many precomputed copies as `spare` more
 * bytes hold, when the MSM cost model prefers them (cuzk_gpu_msm_config:
 * precompute 0 picks the count, then the handle is planned with that count
 * fixed, as the backend creates it). Returns the bytes the copies add (0:
 * none; the item is left as it was). */
static size_t plan_h_copies(const cuzk_gpu_key_shape *s, int sm, size_t spare, cuzk_gpu_plan_item *it)
{
    msm_item m = msm_of(s, CUZK_GPU_ITEM_MSM_H);
    if (it->streamed || m.group != CUZK_GPU_G1 || spare == 0)
        return 0;
    const size_t staging = smul(m.npoints, FR_BYTES); /* counted by the handle's plan, never allocated */
    cuzk_gpu_msm_config cfg = {.precompute = 0};
    cuzk_gpu_msm_plan mp;
    cuzk_error e2 = {0};
    if (cuzk_gpu_msm_plan_make(s->curve, m.group, m.npoints, &cfg, sm, sadd(it->msm_budget, spare), &mp, &e2) ||
        mp.streamed || mp.precompute < 2)
        return 0;
    cfg.precompute = mp.precompute;
    if (cuzk_gpu_msm_plan_make(s->curve, m.group, m.npoints, &cfg, sm, mp.device_bytes, &mp, &e2) || mp.streamed ||
        mp.device_bytes - staging <= it->device_bytes || mp.device_bytes - staging - it->device_bytes > spare)
        return 0;
    const size_t add = mp.device_bytes - staging - it->device_bytes;
    it->device_bytes += add;
    it->msm_budget = mp.device_bytes;
    it->chunk = mp.chunk_points;
    it->precompute = mp.precompute;
    return add;
}

/* The streamed coefficients' row pointers (2^27: 1 GiB) held with the key
 * where the budget has room for them beside the peak: each proof otherwise
 * allocates and copies them under the GPU lock before its abc, with the
 * GPU idle (about 20 ms at 2^27 on an H100). The abc and ntt phases, which
 * counted them in the item, do not grow. Returns the new peak. */
static size_t plan_rows_held(const cuzk_gpu_key_shape *s, cuzk_gpu_plan *out, size_t phase[CUZK_GPU_PHASE_COUNT],
                             size_t peak, size_t budget)
{
    cuzk_gpu_plan_item *co = &out->item[CUZK_GPU_ITEM_COEFS];
    const size_t rows = coef_rows_bytes(s);
    co->rows_held = 0;
    if (!co->streamed || sadd(peak, rows) > budget)
        return peak;
    co->rows_held = 1;
    co->device_bytes -= rows;
    out->key_bytes += rows;
    peak = 0;
    for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++) {
        if (p != CUZK_GPU_PHASE_ABC && p != CUZK_GPU_PHASE_NTT)
            phase[p] += rows;
        peak = phase[p] > peak ? phase[p] : peak;
    }
    return peak;
}

/* Prefetches: a streamed MSM item (a handle made per proof) whose device
 * bytes fit beside the MSM phases before its own, within the peak the plan
 * has already, is made at the earliest such phase of an unbroken run up to
 * its own, and its kept bases cross the bus while those phases compute
 * (cuzk_gpu_msm_prefetch) instead of inside its own phase: at 2^27 on an
 * H100's full memory B2's 6.2 GB of bases a proof upload during A, B1 and
 * C (180 ms of kernels with the bus idle) instead of making B2's phase 120
 * ms of bus for 25 ms of kernels. The MSM phases run in index order when an
 * MSM item is streamed (job_begin's order; tier 7 takes the GPU lock per MSM,
 * so no handle outlives its phase there). Their phase bytes count it. */
static void plan_prefetch(cuzk_gpu_plan_item item[CUZK_GPU_ITEM_COUNT], size_t phase[CUZK_GPU_PHASE_COUNT], size_t peak)
{
    for (int i = 0; i < 5; i++) {
        cuzk_gpu_plan_item *it = &item[CUZK_GPU_ITEM_MSM_H + i];
        const int own = CUZK_GPU_PHASE_MSM_H + i;
        it->prefetch_from = 0;
        if (!it->streamed || it->resident == 0)
            continue;
        int q = own;
        while (q > CUZK_GPU_PHASE_MSM_H && sadd(phase[q - 1], it->device_bytes) <= peak)
            q--;
        for (int r = q; r < own; r++)
            phase[r] += it->device_bytes;
        if (q < own)
            it->prefetch_from = q;
    }
}

cuzk_status cuzk_gpu_plan_proof(const cuzk_gpu_key_shape *shape, const cuzk_gpu_plan_opts *opts,
                                cuzk_gpu_plan *out, cuzk_error *err)
{
    if (!shape || !out)
        return cuzk_err(err, CUZK_ERR_USAGE, "gpu plan: NULL argument");
    cuzk_gpu_plan_opts o = {0};
    if (opts)
        o = *opts;
    const cuzk_gpu_key_shape *s = shape;
    if (!cuzk_curve_desc_get(s->curve) || s->n_vars == 0 ||
        s->n_public >= s->n_vars || s->n_b > s->n_vars || s->log_domain > NTT_MAX_LG ||
        (s->bellperson && (s->n_coefs || s->n_a > s->n_vars || s->n_a < s->n_public + 1 || s->log_domain < 1)) ||
        s->log_domain >= gpu_fr_two_adicity(s->curve) || s->n_vars > ((uint64_t)1 << 32))
        return cuzk_err(err, CUZK_ERR_USAGE,
                        "gpu plan: bad key shape (curve %d, %llu wires, %llu public, domain 2^%u)",
                        (int)s->curve, (unsigned long long)s->n_vars,
                        (unsigned long long)s->n_public, s->log_domain);
    memset(out, 0, sizeof *out);
    out->shape = *s;
    out->workers = o.workers ? o.workers : 2;
    cuzk_status st;

    /* Budget and SM count: from the device unless given. */
    size_t budget = o.budget;
    int sm = o.sm_count;
    bool have_dev = o.device >= 0 && cuzk_gpu_device_count() > o.device;
    if (!budget || (have_dev && !sm)) {
        if (!have_dev)
            return cuzk_err(err, CUZK_ERR_UNSUPPORTED,
                            "gpu plan: no CUDA device %d to plan for (give a budget: --gpu-mem SIZE)",
                            o.device);
        if ((st = cuzk_gpu_mem_info(o.device, &out->device_free, &out->device_total, err)))
            return st;
        const size_t avail =
            (size_t)cuzk_mem_after_margin(out->device_free, out->device_total, CUZK_MARGIN_DEVICE_MIN);
        budget = budget && budget < avail ? budget : avail;
        if (!sm) {
            char name[128];
            size_t tot;
            if ((st = cuzk_gpu_device_info(o.device, name, sizeof name, &tot, &sm, err)))
                return st;
        }
    }
    if (!sm)
        sm = DEFAULT_SM_COUNT;
    out->budget = budget;
    out->sm_count = sm;

    const size_t v = (size_t)FR_BYTES << s->log_domain;
    /* the witness on the device (bellperson mode: and the selections' bitmaps), the B scalars beside it */
    const size_t wb = sadd(smul(s->n_vars, FR_BYTES), g16_shape_select_bytes(s));
    const size_t bsb = b_dropped(s) ? smul(s->n_b, FR_BYTES) : 0;
    const size_t wdev = sadd(wb, bsb);
    /* tier 7's host scalars: the raw witness */
    const size_t wb_host = smul(s->n_vars, FR_BYTES);
    /* bellperson mode: the A / B selection, in h's buffer (or one of its own, larger) from the H MSM on;
     * tier 7: h's page-locked vector, as large as both */
    const size_t sel = smul(g16_shape_select_scalars(s), FR_BYTES);
    const size_t v_host = sel > v ? sel : v;
    const size_t msm_v = sel > v ? sadd(v, sel) : sel ? v : 0;
    /* bellperson mode: a proof's a, b, c are uploaded with the witness
     * (pre-staged tiers: a waiting worker's too), staged through two
     * page-locked chunks per worker (tier 7 too, into its one device vector) */
    const size_t abc_in = s->bellperson ? smul(3, v) : 0;
    const size_t n_dom = (size_t)1 << s->log_domain, quarter = n_dom >= 4 ? n_dom / 4 : n_dom;
    const size_t stage =
        s->bellperson ? smul(quarter < CUZK_GPU_BP_STAGE_VALUES ? quarter : CUZK_GPU_BP_STAGE_VALUES, FR_BYTES) : 0;
    out->vector_bytes = v;
    out->b_scalar_bytes = bsb;

    /* Every item whole, once: with device scalars (tiers 1-6) and with host
     * scalars and no coefficients (tier 7). */
    cuzk_gpu_plan_item whole[2][CUZK_GPU_ITEM_COUNT];
    memset(whole, 0, sizeof whole);
    for (int h = 0; h < 2; h++) {
        whole[h][CUZK_GPU_ITEM_NTT].device_bytes = cuzk_gpu_ntt_device_bytes(s->curve, s->log_domain);
        whole[h][CUZK_GPU_ITEM_NTT].resident = 1;
        for (int id = 0; id < CUZK_GPU_ITEM_COUNT; id++)
            if (id != CUZK_GPU_ITEM_NTT && (st = plan_item(s, id, sm, SIZE_MAX, true, h, &whole[h][id], err)))
                return st;
    }

    const unsigned LAST = CUZK_ARRAY_LEN(TIERS) - 1;
    size_t job_of[CUZK_ARRAY_LEN(TIERS)][CUZK_GPU_PHASE_COUNT], extra_of[CUZK_ARRAY_LEN(TIERS)][CUZK_GPU_PHASE_COUNT];
    size_t hmeasured = 0;
    const size_t hbudget = host_plan_budget(&o.host, &hmeasured);
    const unsigned asked = out->workers;
    bool device_fit = false; /* some tier fit the device at some worker count */
    cuzk_host_plan hleast;   /* the leanest host plan among the tiers that fit the device (W = 1) */
    memset(&hleast, 0, sizeof hleast);
    hleast.peak = SIZE_MAX;
    unsigned hleast_tier = 0;
    for (unsigned W = asked; W >= 1; W--) {
        for (unsigned t = 0; t <= LAST; t++) {
            size_t *job = job_of[t];
            if (TIERS[t].host_witness) { /* one domain vector in the NTT phase, nothing else */
                memset(job, 0, sizeof job_of[t]);
                job[CUZK_GPU_PHASE_NTT] = v;
            } else {
                job[CUZK_GPU_PHASE_STAGE] = TIERS[t].prestage ? sadd(wdev, abc_in) : wdev;
                job[CUZK_GPU_PHASE_ABC] = sadd(wdev, smul(TIERS[t].abc_vectors, v));
                job[CUZK_GPU_PHASE_NTT] = job[CUZK_GPU_PHASE_ABC];
                job[CUZK_GPU_PHASE_MSM_H] = sadd(wdev, msm_v > v ? msm_v : v);
                for (int p = CUZK_GPU_PHASE_MSM_A; p <= CUZK_GPU_PHASE_MSM_B2; p++)
                    job[p] = sadd(wdev, msm_v);
            }
            size_t others = TIERS[t].prestage ? smul(W - 1, sadd(wdev, abc_in)) : 0;
            for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++)
                extra_of[t][p] = sadd(sadd(job[p], others), RUNTIME_RESERVE);
        }
        unsigned skipped = 0;
        for (unsigned t = 0; t <= LAST; t++) {
            const bool host = TIERS[t].host_witness;
            const size_t *job = job_of[t], *extra = extra_of[t];
            size_t others = TIERS[t].prestage ? smul(W - 1, sadd(wdev, abc_in)) : 0;
            cuzk_gpu_plan_item key[CUZK_GPU_ITEM_COUNT];
            size_t held, phase[CUZK_GPU_PHASE_COUNT];
            if (!plan_key(s, sm, budget, TIERS[t].key_streamed, host, extra, whole[host], key, &held, phase))
                continue;
            device_fit = true;
            out->workers = W;
            out->tier = TIERS[t].tier;
            out->key_streamed = TIERS[t].key_streamed;
            out->host_witness = host;
            out->witness_bytes = host ? wb_host : wb;
            /* tier 7: the raw scalars and a, b, c (bellperson mode: one vector, the cosets' product, h,
             * then A's and B's selections); tiers 1-6: the packed witness; bellperson mode: the two
             * staging chunks */
            out->host_pinned = host ? sadd(wb_host, sadd(s->bellperson ? v_host : smul(3, v), bsb))
                                    : sadd(wb, cuzk_wpack_index_bytes(s->n_vars));
            out->host_pinned = sadd(out->host_pinned, smul(2, stage));
            out->stage_bytes = stage;
            memcpy(out->item, key, sizeof key);
            out->key_bytes = held;
            out->prestage = TIERS[t].prestage;
            out->abc_vectors = TIERS[t].abc_vectors;
            out->others_bytes = others;
            out->runtime_bytes = RUNTIME_RESERVE;
            /* the host side of this tier: the next tier when it does not fit */
            cuzk_host_plan hp;
            /* DESIGN: a mapped key's streamed bases locked whole are
             * memory the kernel can neither reclaim nor swap (at 2^27, 35.3
             * GiB at 24G and less, more than the rest of the plan); where
             * that does not fit the host, the MSMs stage them through the
             * key's two page-locked chunks instead (the tier and the workers
             * are kept). Where it fits they stay locked: the DMA reads them in
             * place, no host copy at each proof. A held key's pages are
             * counted already: locking them costs nothing more. */
            out->bases_staged = o.stage_bases > 0;
            host_plan_gpu(s, out, W, o.host.key_mapped > 0, &hp);
            if (!o.stage_bases && hp.key_locked && hp.peak > hbudget) {
                out->bases_staged = 1;
                host_plan_gpu(s, out, W, o.host.key_mapped > 0, &hp);
            }
            hp.budget = hbudget;
            hp.available = hmeasured;
            if (hp.peak < hleast.peak) {
                hleast = hp;
                hleast_tier = TIERS[t].tier;
            }
            if (hp.peak > hbudget) {
                skipped++;
                continue;
            }
            out->host = hp;
            out->host_skipped = skipped;
            out->workers_asked = asked;
            size_t peak = 0;
            for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++)
                peak = phase[p] > peak ? phase[p] : peak;
            if (o.msm_copies && !TIERS[t].key_streamed) { /* H's copies from what the tier leaves */
                const size_t add = plan_h_copies(s, sm, budget - peak, &out->item[CUZK_GPU_ITEM_MSM_H]);
                out->key_bytes += add;
                for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++)
                    phase[p] += add;
                peak += add;
            }
            if (!host) {
                peak = plan_rows_held(s, out, phase, peak, budget);
                plan_prefetch(out->item, phase, peak);
            }
            for (int p = 0; p < CUZK_GPU_PHASE_COUNT; p++) {
                out->job_bytes[p] = job[p];
                out->phase_bytes[p] = phase[p];
                if (phase[p] > out->peak)
                    out->peak = phase[p];
            }
            /* The least budget any tier fits: that of tier 7 or tier 6 (each
             * tier before 6 needs at least what 6 does: more vectors,
             * pre-staged witnesses or items held whole). Usually tier 7's; at
             * small sizes, where the host-scalar staging of tier 7's MSMs
             * outweighs a witness and two vectors, tier 6's can be lower. */
            size_t least = least_budget(s, sm, true, extra_of[LAST], whole[1]);
            const size_t least6 = least_budget(s, sm, false, extra_of[CUZK_GPU_TIER_STREAMED_2VEC - 1], whole[0]);
            if (least6 < least)
                least = least6;
            unsigned least_tier = CUZK_GPU_TIER_LAST + 1; /* the tier chosen there (the first that fits, as above) */
            for (unsigned u = 0; u <= LAST; u++) {
                cuzk_gpu_plan_item k2[CUZK_GPU_ITEM_COUNT];
                size_t h2, ph2[CUZK_GPU_PHASE_COUNT];
                const int hw = TIERS[u].host_witness;
                if (plan_key(s, sm, least, TIERS[u].key_streamed, hw, extra_of[u], whole[hw], k2,
                             &h2, ph2)) {
                    least_tier = TIERS[u].tier;
                    break;
                }
            }
            out->least_budget = least;
            out->least_tier = least_tier;
            return CUZK_OK;
        }
        if (o.fixed_workers || W == 1)
            break;
    }
    char b1[32], b2[32], b3[32];
    if (device_fit) /* the device fits, the host does not */
        return cuzk_err(err, CUZK_ERR_NOMEM,
                        "plan: a proof with this key (domain 2^%u, %llu wires) fits the device budget of %s but "
                        "no tier fits the host memory with %u worker%s: the leanest needs %s (tier %u, key %s), "
                        "%s %s",
                        s->log_domain, (unsigned long long)s->n_vars, fmt_size(b1, sizeof b1, budget),
                        o.fixed_workers ? asked : 1u, (o.fixed_workers ? asked : 1u) == 1 ? "" : "s",
                        fmt_size(b2, sizeof b2, hleast.peak), hleast_tier,
                        hleast.key_mapped ? "mapped" : "held", fmt_size(b3, sizeof b3, hbudget),
                        o.host.budget && o.host.budget == hbudget ? "is the cap (--host-mem)" : "are available");
    size_t least = least_budget(s, sm, true, extra_of[LAST], whole[1]);
    const size_t least6 = least_budget(s, sm, false, extra_of[CUZK_GPU_TIER_STREAMED_2VEC - 1], whole[0]);
    if (least6 < least)
        least = least6;
    unsigned least_tier = CUZK_GPU_TIER_LAST + 1;
    for (unsigned t = 0; t <= LAST; t++) {
        cuzk_gpu_plan_item key[CUZK_GPU_ITEM_COUNT];
        size_t held, phase[CUZK_GPU_PHASE_COUNT];
        const int hw = TIERS[t].host_witness;
        if (plan_key(s, sm, least, TIERS[t].key_streamed, hw, extra_of[t], whole[hw], key, &held,
                     phase)) {
            least_tier = TIERS[t].tier;
            break;
        }
    }
    out->least_budget = least;
    out->least_tier = least_tier;
    return cuzk_err(err, CUZK_ERR_NOMEM,
                    "gpu plan: a proof with this key (domain 2^%u, %llu wires) does not fit a device "
                    "budget of %s: it needs at least %s (with tier %u; the smallest tier, 7, keeps the key "
                    "streamed, the witness on the host and one domain vector on the device)",
                    s->log_domain, (unsigned long long)s->n_vars, fmt_size(b1, sizeof b1, budget),
                    fmt_size(b2, sizeof b2, least), least_tier);
}

void cuzk_g16_key_shape(cuzk_gpu_key_shape *out, const cuzk_zkey *zk)
{
    memset(out, 0, sizeof *out);
    out->curve = zk->curve;
    out->n_vars = zk->n_vars;
    out->n_public = zk->n_public;
    out->log_domain = zk->log_domain;
    out->n_coefs = zk->n_coefs;
    out->coefs_sorted = zk->coefs_sorted;
}

cuzk_status cuzk_gpu_key_shape_read(const char *zkey_path, cuzk_gpu_key_shape *out, cuzk_error *err)
{
    if (!zkey_path || !out)
        return cuzk_err(err, CUZK_ERR_USAGE, "gpu plan: NULL argument");
    cuzk_zkey zk = {0};
    cuzk_zkey_read_opts ro = {.header_only = true};
    cuzk_status st = cuzk_zkey_read(&zk, zkey_path, &ro, err);
    if (st)
        return st;
    cuzk_g16_key_shape(out, &zk);
    cuzk_zkey_free(&zk);
    return CUZK_OK;
}
