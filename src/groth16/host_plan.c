/* DESIGN: the host-memory plan of a proof (include/cuzk/gpu_plan.h,
 * cuzk_host_plan), beside the device plan and in the same style: plain
 * arithmetic over the key's sizes, computed before anything is allocated,
 * from the same figures the code allocates with (the zkey arrays, the B wires
 * kept by b_density.c, the host CSR of g16_kernels.cu, the CPU's A/B plan of
 * abc_plan.c, the page-locked buffers of g16_backend.cu, the CPU MSM's
 * planner for its bucket arrays). The GPU prover's host side depends on the
 * device tier: streamed coefficients keep a page-locked CSR on the host,
 * streamed MSM items page-lock their bases (mapped key pages then count: they
 * cannot be reclaimed) or stage them through the key's two page-locked
 * chunks (bases_staged), streamed B items keep the kept B wires' copies, and
 * tier 7 holds the CPU's A/B plan and a, b, c per worker in page-locked
 * memory (bellperson mode: one domain vector and the staging chunks). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/gpu_plan.h"
#include "curve/curve_desc.h"
#include "groth16/abc_plan.h"
#include "groth16/host_plan.h"
#include "gpu/g16/g16_shape.h"
#include "gpu/plan/plan.h"
#include "msm/msm.h"
#include "util/common.h"

#define FR_BYTES 32u
/* The process beside the plan: code, libraries, thread stacks, allocator
 * slack; with a GPU the CUDA driver's host memory (its context, module
 * images, staging), measured at a few hundred MiB. */
#define HOST_RUNTIME_CPU ((size_t)256 << 20)
#define HOST_RUNTIME_GPU ((size_t)1 << 30)
/* The host finish of a GPU proof (window sums, the side thread's small
 * MSMs over IC, the assembly and the verification). */
#define GPU_FINISH ((size_t)64 << 20)
/* The CPU MSM's bucket arrays per worker thread at most (msm.h). */
#define CPU_MSM_MIN_BUCKETS 8192u

static const char *const HOST_PHASE_NAMES[CUZK_HOST_PHASE_COUNT] = {"load", "attach", "abc", "ntt", "msm"};

const char *cuzk_host_plan_phase_name(cuzk_host_plan_phase p)
{
    return (unsigned)p < CUZK_HOST_PHASE_COUNT ? HOST_PHASE_NAMES[p] : "?";
}

static size_t sadd(size_t a, size_t b) { return a > SIZE_MAX - b ? SIZE_MAX : a + b; }
static size_t smul(size_t a, size_t b) { return b && a > SIZE_MAX / b ? SIZE_MAX : a * b; }

size_t cuzk_host_mem_budget(void)
{
    return (size_t)cuzk_mem_after_margin(cuzk_host_mem_available(), cuzk_host_mem_total(), CUZK_MARGIN_HOST_MIN);
}

size_t host_plan_key_data(const cuzk_gpu_key_shape *s)
{
    const cuzk_curve_desc *cd = cuzk_curve_desc_get(s->curve);
    const size_t n = (size_t)1 << s->log_domain, npriv = s->n_vars - s->n_public - 1;
    if (s->bellperson) /* H, L, A, B_G1, B_G2, IC; no coefficients */
        return smul(g16_shape_h_points(s) + npriv + s->n_a + s->n_b + s->n_public + 1, cd->g1_affine) +
               smul(s->n_b, cd->g2_affine);
    size_t b = smul(s->n_coefs, 12 + FR_BYTES);
    b = sadd(b, smul(s->n_vars, 2 * cd->g1_affine + cd->g2_affine)); /* A, B1, B2 */
    b = sadd(b, smul(npriv + n + s->n_public + 1, cd->g1_affine));   /* C, H, IC */
    return b;
}

/* The budget a plan must fit: the cap, the available memory (given or
 * measured, plus what the caller holds already), the smaller. */
size_t host_plan_budget(const cuzk_host_plan_opts *o, size_t *measured)
{
    *measured = 0;
    if (o->budget == SIZE_MAX)
        return SIZE_MAX;
    size_t avail = o->available;
    if (!avail)
        avail = *measured = cuzk_host_mem_budget();
    avail = sadd(avail, o->held);
    return o->budget && o->budget < avail ? o->budget : avail;
}

/* Per-phase sums of a plan whose items are filled. */
static void host_sum(cuzk_host_plan *h)
{
    const size_t W = h->workers;
    h->phase_bytes[CUZK_HOST_PHASE_LOAD] = sadd(h->runtime, h->key_anon);
    /* attach: the B wires copied beside the whole key, then (its original B
     * bases freed) the CSR built and every page-locked buffer made */
    const size_t copy = sadd(sadd(h->runtime, h->key_anon), h->b_bases);
    size_t att = sadd(sadd(h->runtime, h->key_anon - h->key_freed_early), sadd(h->key_locked, h->key_upload_locked));
    att = sadd(sadd(att, h->b_bases), sadd(h->csr_build, h->csr_held));
    att = sadd(sadd(att, h->tables), smul(W, h->pinned));
    att = sadd(att, h->bases_stage);
    h->phase_bytes[CUZK_HOST_PHASE_ATTACH] = att > copy ? att : copy;
    const size_t base = sadd(sadd(h->runtime, h->key_anon - h->key_freed), h->key_locked);
    size_t held = sadd(sadd(sadd(base, h->b_held), h->csr_held), sadd(h->tables, smul(W, h->pinned)));
    held = sadd(held, h->bases_stage);
    const size_t wv = sadd(h->witness, h->vectors);
    h->phase_bytes[CUZK_HOST_PHASE_ABC] = sadd(held, smul(W, wv));
    h->phase_bytes[CUZK_HOST_PHASE_NTT] = sadd(held, smul(W, wv));
    /* MSM: the witness, h (a's buffer; the CPU prover frees b and c after
     * the quotient) and the MSM workspace */
    const size_t msm_v = h->gpu ? h->vectors : h->vectors / 3;
    h->phase_bytes[CUZK_HOST_PHASE_MSM] = sadd(held, smul(W, sadd(sadd(h->witness, msm_v), h->scratch)));
    h->peak = 0;
    for (int p = 0; p < CUZK_HOST_PHASE_COUNT; p++)
        if (h->phase_bytes[p] > h->peak)
            h->peak = h->phase_bytes[p];
}

static const char *gib(char *buf, size_t cap, size_t b)
{
    snprintf(buf, cap, "%.2f GiB", (double)b / (double)((size_t)1 << 30));
    return buf;
}

/* The CPU MSM's workspace for n points (msm_impl.h: two index lists of n,
 * per thread a bucket array of the planner's 2^(c-1) XYZZ buckets, or the
 * batch-affine state over at least CPU_MSM_MIN_BUCKETS, and the tasks'
 * results). */
static size_t cpu_msm_scratch(const cuzk_curve_desc *cd, size_t n, unsigned threads)
{
    size_t worst = 0;
    for (int g = 0; g < 2; g++) {
        const size_t xyzz = 2 * (g ? cd->g2_affine : cd->g1_affine);
        cuzk_msm_plan p;
        cuzk_msm_plan_make(&p, n, cd->fr_bits ? cd->fr_bits : 255, (int)threads, xyzz);
        size_t nb = p.buckets > CPU_MSM_MIN_BUCKETS ? p.buckets : CPU_MSM_MIN_BUCKETS;
        size_t b = sadd(smul(n, 2 * sizeof(uint32_t)), smul(threads, smul(nb, xyzz + 8)));
        b = sadd(b, smul(p.tasks + 64, xyzz));
        worst = b > worst ? b : worst;
    }
    return sadd(worst, (size_t)1 << 20);
}

static unsigned threads_of(const cuzk_host_plan_opts *o)
{
    if (o->threads)
        return o->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

/* The CPU prover's plan, without the budget check. */
static void cpu_items(const cuzk_gpu_key_shape *s, unsigned W, bool mapped, const cuzk_host_plan_opts *o,
                      cuzk_host_plan *h)
{
    const cuzk_curve_desc *cd = cuzk_curve_desc_get(s->curve);
    const size_t n = (size_t)1 << s->log_domain, v = (size_t)FR_BYTES << s->log_domain;
    memset(h, 0, sizeof *h);
    h->workers = W;
    h->key_mapped = mapped;
    h->runtime = HOST_RUNTIME_CPU;
    h->key_data = host_plan_key_data(s);
    h->key_anon = mapped ? 0 : h->key_data;
    h->file_bytes = mapped ? h->key_data : 0;
    h->csr_held = (size_t)cuzk_abc_plan_held_bytes(s->n_coefs, n, s->coefs_sorted);
    h->csr_build = s->coefs_sorted ? 0 : smul(2 * (n + 1), sizeof(uint32_t)); /* the counting sort's cursors */
    h->tables = smul(n, FR_BYTES);                      /* n/2 twiddles and the staged tables */
    h->witness = smul(s->n_vars, FR_BYTES);
    h->vectors = smul(3, v);
    size_t nmax = n > s->n_vars ? n : s->n_vars;
    h->scratch = cpu_msm_scratch(cd, nmax, threads_of(o));
    host_sum(h);
}

cuzk_status cuzk_host_plan_cpu(const cuzk_gpu_key_shape *s, unsigned workers, const cuzk_host_plan_opts *opts,
                               cuzk_host_plan *out, cuzk_error *err)
{
    if (!s || !out)
        return cuzk_err(err, CUZK_ERR_USAGE, "host plan: NULL argument");
    if (!cuzk_curve_desc_get(s->curve) || s->n_vars == 0 || s->n_public >= s->n_vars || s->log_domain > 32)
        return cuzk_err(err, CUZK_ERR_USAGE, "host plan: bad key shape");
    cuzk_host_plan_opts o = {0};
    if (opts)
        o = *opts;
    const unsigned W = workers ? workers : 1;
    size_t measured;
    const size_t budget = host_plan_budget(&o, &measured);
    cuzk_host_plan held;
    cpu_items(s, W, o.key_mapped != 0, &o, out);
    if (o.key_mapped < 0) {
        cpu_items(s, W, false, &o, &held);
        if (held.peak <= budget)
            *out = held;
    }
    out->budget = budget;
    out->available = measured;
    if (out->peak <= budget)
        return CUZK_OK;
    char b1[32], b2[32];
    return cuzk_err(err, CUZK_ERR_NOMEM,
                    "host plan: %u proof%s with this key (domain 2^%u, key %s) need %s of host memory at "
                    "their peak; %s %s",
                    W, W == 1 ? "" : "s", s->log_domain, out->key_mapped ? "mapped" : "held",
                    gib(b1, sizeof b1, out->peak), gib(b2, sizeof b2, budget),
                    o.budget && o.budget == budget ? "is the cap" : "are available");
}

void host_plan_gpu(const cuzk_gpu_key_shape *s, const cuzk_gpu_plan *p, unsigned W, bool mapped, cuzk_host_plan *h)
{
    const cuzk_curve_desc *cd = cuzk_curve_desc_get(s->curve);
    const size_t n = (size_t)1 << s->log_domain;
    /* the kept B wires' copies of a snarkjs key (bellperson mode selects B's
     * scalars on the host and keeps its key as it is) */
    const bool dropped = !s->bellperson && s->n_b && s->n_b < s->n_vars;
    memset(h, 0, sizeof *h);
    h->gpu = 1;
    h->workers = W;
    h->key_mapped = mapped;
    h->runtime = HOST_RUNTIME_GPU;
    h->key_data = host_plan_key_data(s);
    h->key_anon = mapped ? 0 : h->key_data;
    h->file_bytes = mapped ? h->key_data : 0;
    /* streamed MSM items page-lock their host bases for the key's life; the
     * B items' bases are the kept wires' copies when wires are dropped */
    size_t locked = 0, upload = 0;
    for (int id = CUZK_GPU_ITEM_MSM_H; id <= CUZK_GPU_ITEM_MSM_B2; id++) {
        const bool is_b = id == CUZK_GPU_ITEM_MSM_B1 || id == CUZK_GPU_ITEM_MSM_B2;
        if (p->item[id].streamed && !(is_b && dropped))
            locked = sadd(locked, p->item[id].data_bytes);
        else if (!p->item[id].streamed && p->item[id].data_bytes > upload) /* locked while uploaded (gpu/msm) */
            upload = p->item[id].data_bytes;
    }
    h->key_locked = mapped && !p->bases_staged ? locked : 0; /* a copy's pages are counted in key_anon already */
    if (p->bases_staged) /* the key's stager: two chunks, as large as the largest streamed item's (g16_backend.cu) */
        for (int id = CUZK_GPU_ITEM_MSM_H; id <= CUZK_GPU_ITEM_MSM_B2; id++)
            if (p->item[id].streamed) {
                const size_t aff = id == CUZK_GPU_ITEM_MSM_B2 ? cd->g2_affine : cd->g1_affine;
                const size_t b = gpu_msm_stage_bytes(p->item[id].chunk, aff);
                h->bases_stage = b > h->bases_stage ? b : h->bases_stage;
            }
    h->key_upload_locked = mapped ? upload : 0;
    if (dropped) {
        const size_t bb = smul(s->n_b, cd->g1_affine + cd->g2_affine);
        const size_t ib = smul(s->n_b, sizeof(uint32_t));
        h->b_bases = sadd(bb, ib);
        const bool b_streamed = p->item[CUZK_GPU_ITEM_MSM_B1].streamed || p->item[CUZK_GPU_ITEM_MSM_B2].streamed;
        h->b_held = b_streamed ? h->b_bases : ib;
    }
    const size_t rows = smul(2 * (n + 1), sizeof(uint32_t));
    if (s->bellperson) { /* a, b, c come with the proof: no coefficients */
        h->csr_held = h->csr_build = 0;
    } else if (p->host_witness) { /* tier 7: the CPU's A/B plan (sorted records: read in place) */
        h->csr_held = (size_t)cuzk_abc_plan_held_bytes(s->n_coefs, n, s->coefs_sorted);
        h->csr_build = s->coefs_sorted ? 0 : rows;
    } else if (p->item[CUZK_GPU_ITEM_COEFS].streamed) { /* page-locked records and rows, kept */
        h->csr_held = sadd(rows, smul(s->n_coefs, 4 + FR_BYTES));
        h->csr_build = rows;
    } else { /* built, uploaded, freed (rows kept) */
        h->csr_held = rows;
        h->csr_build = sadd(rows, smul(s->n_coefs, 4 + FR_BYTES));
    }
    if (!mapped && !s->bellperson) { /* the zkey's arrays the device key makes unneeded (backend_gpu.c) */
        const size_t g1 = cd->g1_affine, g2 = cd->g2_affine, npriv = s->n_vars - s->n_public - 1;
        const size_t borig = smul(s->n_vars, g1 + g2);
        h->key_freed_early = dropped ? borig : 0;
        size_t f = h->key_freed_early;
        if (!p->item[CUZK_GPU_ITEM_MSM_H].streamed)
            f = sadd(f, smul(n, g1));
        if (!p->item[CUZK_GPU_ITEM_MSM_A].streamed)
            f = sadd(f, smul(s->n_vars, g1));
        if (!p->item[CUZK_GPU_ITEM_MSM_C].streamed)
            f = sadd(f, smul(npriv, g1));
        if (!dropped && !p->item[CUZK_GPU_ITEM_MSM_B1].streamed)
            f = sadd(f, smul(s->n_vars, g1));
        if (!dropped && !p->item[CUZK_GPU_ITEM_MSM_B2].streamed)
            f = sadd(f, smul(s->n_vars, g2));
        if (!p->host_witness)
            f = sadd(f, smul(s->n_coefs, 12 + FR_BYTES));
        h->key_freed = f;
    }
    h->pinned = p->host_pinned;
    /* the caller's raw witness (snarkjs keys); bellperson mode packs it from the assignment into the
     * page-locked slot (tier 7: raw, with the A and B selections) and makes the bitmaps of the wires
     * A and B take */
    h->witness = s->bellperson ? g16_shape_select_bytes(s) / 2 : smul(s->n_vars, FR_BYTES);
    /* tier 7's a, b, c are in the page-locked buffers (`pinned`); bellperson mode's are the caller's,
     * staged through two page-locked chunks (in `pinned`; tier 7: beside one domain vector for the
     * cosets' product and h) */
    h->vectors = 0;
    h->scratch = GPU_FINISH;
    host_sum(h);
}
