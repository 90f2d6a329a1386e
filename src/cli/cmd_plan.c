/* cuzk plan: prints the device-memory plan of a GPU proof for a key
 * (cuzk_gpu_plan_proof, include/cuzk/gpu_plan.h). With --gpu-mem it needs
 * no GPU: it plans for a card with that much memory for the proofs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_plan.h"

static const char PLAN_USAGE[] =
    "Usage: cuzk plan [--gpu-mem SIZE] [--host-mem SIZE] [--workers N] [--device D] [--sm-count S]\n"
    "                 [--msm-copies] [--stage-bases auto|yes|no] [--key-copy] [--fixed-workers]\n"
    "                 <circuit.zkey>\n"
    "       cuzk plan --porep [--scale LG] [--curve C] [--porep-cache] [--gpu-mem SIZE] ...\n"
    "       cuzk plan --cpu [--host-mem SIZE] [--workers N] [--key-copy] <circuit.zkey>\n"
    "       cuzk plan --bellperson [--gpu-mem SIZE] ... <key.params>\n"
    "  The memory plans of a proof with this key, before anything is allocated.\n"
    "  Device (GPU prover): the tier chosen (key resident or streamed, witness\n"
    "  pre-staged, uploaded at start or kept on the host, a/b/c as 3, 2 or 1\n"
    "  vectors), each key item's device bytes, each phase's bytes, the peak, and\n"
    "  the least budget any tier fits. Host: the key (mapped from its file or\n"
    "  held), page-locked buffers, the B wires kept, the coefficient CSR, per\n"
    "  worker the witness, a/b/c and the CPU's work, per phase (load, attach,\n"
    "  abc, ntt, msm; anonymous + page-locked bytes) and the peak. The tier is\n"
    "  the first whose device and host peaks both fit; a worker count that fits\n"
    "  no tier is lowered (one warning line) unless --fixed-workers; the last\n"
    "  line says which resource binds.\n"
    "  Touches the GPU only to read its free memory and SM count.\n"
    "  --gpu-mem SIZE  device memory the proofs may use, all workers together\n"
    "                  (e.g. 16G, 80G); without a GPU it plans for that much.\n"
    "                  Default: the device's free memory minus max(512 MiB, 2 %)\n"
    "  --host-mem SIZE host memory the key and its proofs may use (anonymous +\n"
    "                  page-locked): plans for a host with that much. Default:\n"
    "                  MemAvailable (or the cgroup's limit, if lower) minus\n"
    "                  max(1 GiB, 2 %)\n"
    "  --key-copy      the key held in anonymous memory (cuzk_key_load's default\n"
    "                  for library callers) rather than used in its file mapping\n"
    "                  (the CLI's and the daemon's way; --porep without\n"
    "                  --porep-cache: held, it is made in memory)\n"
    "  --cpu           the CPU prover's host plan (no device)\n"
    "  --fixed-workers refuse (exit 6) rather than lower the worker count\n"
    "  --workers N     workers sharing the GPU, or concurrent CPU proofs (default 2;\n"
    "                  --cpu: 1)\n"
    "  --device D      CUDA device (default 0)\n"
    "  --sm-count S    SMs the MSM workspaces are sized for (default: the\n"
    "                  device's; 132 without one)\n"
    "  --msm-copies    with the key resident, precomputed copies of the H MSM's\n"
    "                  bases in the memory the tier leaves (as `cuzk bench prove`\n"
    "                  and `cuzk serve --msm-copies true` make them)\n"
    CLI_STAGE_BASES_HELP
    "  --porep         no file: the key of `cuzk bench prove --porep` (a Filecoin\n"
    "                  PoRep partition's shape, domain 2^27 or --scale LG, 10..27;\n"
    "                  bls12381 unless --curve bn128)\n"
    "  --porep-cache   that key mapped from its cache file (bench prove\n"
    "                  --porep-cache DIR), not held\n"
    "  --bellperson    the key is a bellperson .params file: the plan of `cuzk prove\n"
    "                  --format bellperson --gpu` and of the supraseal-c2 crate (a, b, c\n"
    "                  come with each proof, no coefficients)\n"
    "  --tiers         list the tiers (number, name, what each keeps where) and exit\n"
    "Exit code 0 when a tier fits, 6 when even the smallest does not (device or\n"
    "host), 7 without a GPU and without --gpu-mem.\n";

static double gib(size_t b) { return (double)b / (double)(1u << 30); }

/* The host plan: items, then the phases. */
static void print_host(const cuzk_host_plan *h)
{
    printf("host plan (%s prover, %u worker%s, key %s):\n", h->gpu ? "GPU" : "CPU", h->workers,
           h->workers == 1 ? "" : "s", h->key_mapped ? "mapped from its file" : "held in memory");
    printf("  key      %9.3f GiB %s", gib(h->key_data), h->key_mapped ? "in the page cache (reclaimable)" : "anonymous");
    if (h->key_locked)
        printf("; %.3f GiB of it page-locked (streamed MSM bases)", gib(h->key_locked));
    if (h->bases_stage)
        printf("; streamed MSM bases staged through %.3f GiB of page-locked chunks", gib(h->bases_stage));
    if (h->key_upload_locked)
        printf("; %.3f GiB more page-locked while uploaded at attach (the largest resident item)",
               gib(h->key_upload_locked));
    if (h->key_freed)
        printf("; %.3f GiB of it freed at attach (%.3f GiB before the device key is made), the device or the "
               "CSR holds it", gib(h->key_freed), gib(h->key_freed_early));
    printf("\n");
    if (h->b_bases)
        printf("  b_wires  %9.3f GiB at attach, %.3f GiB held (kept B wires' bases and index)\n", gib(h->b_bases),
               gib(h->b_held));
    printf("  csr      %9.3f GiB held (%s), %.3f GiB more at attach\n", gib(h->csr_held),
           !h->gpu ? "the A/B evaluation plan" : h->vectors || h->csr_held > h->csr_build ? "coefficients on the host" : "row pointers",
           gib(h->csr_build));
    if (h->tables)
        printf("  tables   %9.3f GiB (NTT twiddles)\n", gib(h->tables));
    printf("  worker   %9.3f GiB each: page-locked %.3f, witness %.3f, a/b/c %.3f, %s %.3f\n",
           gib(h->pinned + h->witness + h->vectors + h->scratch), gib(h->pinned), gib(h->witness), gib(h->vectors),
           h->gpu ? "host finish" : "MSM workspace", gib(h->scratch));
    printf("  runtime  %9.3f GiB (the process%s)\n", gib(h->runtime), h->gpu ? ", the CUDA driver" : "");
    printf("phase    host GiB (anonymous + page-locked)\n");
    for (int ph = 0; ph < CUZK_HOST_PHASE_COUNT; ph++)
        printf("  %-8s %9.3f\n", cuzk_host_plan_phase_name((cuzk_host_plan_phase)ph), gib(h->phase_bytes[ph]));
    if (h->budget == SIZE_MAX)
        printf("host     %.3f GiB (not checked)\n", gib(h->peak));
    else
        printf("host     %.3f GiB of %.3f GiB (%zu of %zu bytes)\n", gib(h->peak), gib(h->budget), h->peak, h->budget);
}

static int parse_count(const char *s, const char *what, unsigned long max, unsigned long *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || v == 0 || v > max)
        return cli_usage_error(PLAN_USAGE, "%s must be a number from 1 to %lu, got '%s'", what, max, s);
    *out = v;
    return 0;
}

static void print_item(const cuzk_gpu_plan *p, int id)
{
    const cuzk_gpu_plan_item *it = &p->item[id];
    if (id == CUZK_GPU_ITEM_B_INDEX && !it->data_bytes)
        return; /* no B wire dropped */
    printf("  %-8s %9.3f GiB", cuzk_gpu_plan_item_name((cuzk_gpu_plan_item_id)id), gib(it->device_bytes));
    if (id == CUZK_GPU_ITEM_B_INDEX) {
        printf("  %s: the %llu wires with a B point (%.3f GiB of data)\n",
               p->host_witness ? "on the host" : "resident", (unsigned long long)p->shape.n_b, gib(it->data_bytes));
        return;
    }
    if (id == CUZK_GPU_ITEM_NTT) {
        printf("  resident\n");
        return;
    }
    const char *unit = id == CUZK_GPU_ITEM_COEFS ? "records" : "points";
    if (id == CUZK_GPU_ITEM_COEFS && p->host_witness)
        printf("  on the host: a, b, c evaluated by the CPU (%.3f GiB of data)\n", gib(it->data_bytes));
    else if (!it->streamed && it->precompute > 1)
        printf("  resident (%.3f GiB of data), with %u precomputed copies of its bases\n", gib(it->data_bytes),
               it->precompute);
    else if (!it->streamed)
        printf("  resident (%.3f GiB of data)\n", gib(it->data_bytes));
    else if (id == CUZK_GPU_ITEM_COEFS && it->rows_held)
        printf("  streamed, held in its phase: chunks of %zu records, the row pointers held with the key (%.3f GiB "
               "of data)\n",
               it->chunk, gib(it->data_bytes));
    else if (it->prefetch_from)
        printf("  streamed, held from %s's phase on (its kept bases uploaded then): %zu %s kept, chunks of %zu "
               "(%.3f GiB of data)\n",
               cuzk_gpu_plan_phase_name((cuzk_gpu_plan_phase)it->prefetch_from), it->resident, unit, it->chunk,
               gib(it->data_bytes));
    else
        printf("  streamed, held in its phase: %zu %s kept, chunks of %zu (%.3f GiB of data)\n", it->resident,
               unit, it->chunk, gib(it->data_bytes));
}

int cmd_plan(int argc, char **argv)
{
    const char *mem = NULL, *workers = NULL, *device = NULL, *sms = NULL, *scale = NULL, *curve = NULL,
               *hmem = NULL, *stage = NULL;
    int porep = 0, copies = 0, key_copy = 0, cpu = 0, fixed = 0, pcache = 0, bellperson = 0, tiers = 0;
    const cli_opt opts[] = {
        {"msm-copies", 0, 0, NULL, &copies}, {"stage-bases", 0, 1, &stage, NULL},
        {"host-mem", 0, 1, &hmem, NULL},     {"key-copy", 0, 0, NULL, &key_copy},
        {"cpu", 0, 0, NULL, &cpu},           {"fixed-workers", 0, 0, NULL, &fixed},
        {"porep-cache", 0, 0, NULL, &pcache}, {"bellperson", 0, 0, NULL, &bellperson},
        {"gpu-mem", 0, 1, &mem, NULL},   {"workers", 0, 1, &workers, NULL},
        {"device", 0, 1, &device, NULL}, {"sm-count", 0, 1, &sms, NULL},
        {"porep", 0, 0, NULL, &porep},   {"scale", 0, 1, &scale, NULL},
        {"curve", 0, 1, &curve, NULL},   {"tiers", 0, 0, NULL, &tiers},
        {NULL, 0, 0, NULL, NULL},
    };
    cli_common common;
    const char *pos[1] = {NULL};
    int npos = 0;
    int rc = cli_parse(argc, argv, opts, &common, pos, 1, &npos, PLAN_USAGE);
    if (rc)
        return rc == 2 ? 0 : rc;
    if (tiers) { /* the one table of the tiers (cuzk_gpu_tier_get), as docs/ARCHITECTURE.md lists it */
        if (npos)
            return cli_usage_error(PLAN_USAGE, "--tiers takes no file");
        for (unsigned t = CUZK_GPU_TIER_FIRST; t <= CUZK_GPU_TIER_LAST; t++) {
            const cuzk_gpu_tier_desc *d = cuzk_gpu_tier_get(t);
            printf("%u %-18s %s\n", t, d->name, d->what);
        }
        return 0;
    }
    if (npos != (porep ? 0 : 1))
        return cli_usage_error(PLAN_USAGE, porep ? "--porep takes no file" : "expected <circuit.zkey>");
    if (porep && bellperson)
        return cli_usage_error(PLAN_USAGE, "--porep and --bellperson exclude each other");
    if (!porep && (scale || curve || pcache))
        return cli_usage_error(PLAN_USAGE, "--scale, --curve and --porep-cache go with --porep");
    if (cpu && (mem || device || sms || copies || stage))
        return cli_usage_error(PLAN_USAGE, "--cpu plans no device: no --gpu-mem, --device, --sm-count, --msm-copies, "
                                           "--stage-bases");
    unsigned long lg = 27;
    if (scale && (parse_count(scale, "--scale", 27, &lg) || lg < 10))
        return lg < 10 ? cli_usage_error(PLAN_USAGE, "--scale takes 10..27, got '%s'", scale) : 1;
    if (curve && cuzk_curve_from_name(curve) == CUZK_CURVE_NONE)
        return cli_usage_error(PLAN_USAGE, "unknown curve '%s' (use bls12381 or bn128)", curve);
    char name[64];
    if (porep) {
        snprintf(name, sizeof name, "porep 2^%lu", lg);
        pos[0] = name;
    }
    cuzk_gpu_plan_opts po = {0};
    po.msm_copies = copies;
    if (cli_parse_stage_bases(stage, &po.stage_bases, PLAN_USAGE))
        return 1;
    unsigned long v = 0;
    if (mem && cli_parse_size(mem, &po.budget))
        return cli_usage_error(PLAN_USAGE, "--gpu-mem must be " CLI_SIZE_HELP ", got '%s'", mem);
    if (hmem && (cli_parse_size(hmem, &po.host.available) || !po.host.available))
        return cli_usage_error(PLAN_USAGE, "--host-mem must be " CLI_SIZE_HELP ", got '%s'", hmem);
    po.host.key_mapped = !key_copy && (!porep || pcache);
    po.fixed_workers = fixed;
    if (workers) {
        if (parse_count(workers, "--workers", 64, &v))
            return 1;
        po.workers = (unsigned)v;
    }
    if (device) {
        char *end;
        long d = strtol(device, &end, 10);
        if (!*device || *end || d < 0 || d > 1023)
            return cli_usage_error(PLAN_USAGE, "--device must be a number from 0 to 1023, got '%s'", device);
        po.device = (int)d;
    }
    if (sms) {
        if (parse_count(sms, "--sm-count", 4096, &v))
            return 1;
        po.sm_count = (int)v;
    }
    cuzk_error err = {0};
    cuzk_gpu_key_shape shape;
    if (porep ? cuzk_porep_key_shape(curve ? cuzk_curve_from_name(curve) : CUZK_CURVE_NONE, (unsigned)lg, &shape, &err)
              : bellperson ? cuzk_bp_key_shape_read(pos[0], &shape, &err)
                           : cuzk_gpu_key_shape_read(pos[0], &shape, &err))
        return cli_fail(&err);
    if (cpu) {
        cuzk_host_plan h;
        cuzk_status st = cuzk_host_plan_cpu(&shape, po.workers, &po.host, &h, &err);
        if (st) {
            fprintf(stderr, "Error: %s: %s\n", pos[0], err.msg);
            return (int)err.code;
        }
        printf("%s: %s, domain 2^%u, %llu wires (%llu public), %llu coefficients\n", pos[0],
               cuzk_curve_name(shape.curve), shape.log_domain, (unsigned long long)shape.n_vars,
               (unsigned long long)shape.n_public, (unsigned long long)shape.n_coefs);
        print_host(&h);
        return 0;
    }
    cuzk_gpu_plan p;
    if (cuzk_gpu_plan_proof(&shape, &po, &p, &err)) {
        fprintf(stderr, "Error: %s: %s\n", pos[0], err.msg);
        return (int)err.code;
    }
    if (p.workers < p.workers_asked)
        fprintf(stderr, "Warning: %s: %u workers do not fit (host %.2f GiB, device %.2f GiB); planned with %u\n",
                pos[0], p.workers_asked, gib(p.host.budget), gib(p.budget), p.workers);
    printf("%s: %s, domain 2^%u, %llu wires (%llu public), %llu coefficients\n", pos[0],
           cuzk_curve_name(shape.curve), shape.log_domain, (unsigned long long)shape.n_vars,
           (unsigned long long)shape.n_public, (unsigned long long)shape.n_coefs);
    if (p.device_total)
        printf("budget   %.3f GiB (device %d: %.3f GiB free of %.3f GiB, %d SMs)\n", gib(p.budget), po.device,
               gib(p.device_free), gib(p.device_total), p.sm_count);
    else
        printf("budget   %.3f GiB (--gpu-mem; MSM workspaces for %d SMs)\n", gib(p.budget), p.sm_count);
    printf("workers  %u\n", p.workers);
    const cuzk_gpu_tier_desc *td = cuzk_gpu_tier_get(p.tier);
    printf("tier     %u: %s [%s]\n", p.tier, td ? td->what : "?", td ? td->name : "?");
    if (shape.bellperson)
        printf("bellperson  %llu A points, %llu B points (their scalars selected from the witness on the "
               "device; tier 7: on the host); a, b, c come with each proof\n",
               (unsigned long long)shape.n_a, (unsigned long long)shape.n_b);
    else if (!shape.n_b || shape.n_b == shape.n_vars)
        printf("B bases  counted for all %llu wires (the prover drops those at infinity, known once the key's "
               "points are read: this plan is then an upper bound)\n",
               (unsigned long long)shape.n_vars);
    printf("key (shared by the workers):\n");
    for (int i = 0; i < CUZK_GPU_ITEM_COUNT; i++)
        print_item(&p, i);
    printf("  held     %9.3f GiB (the resident items)\n", gib(p.key_bytes));
    printf("proof buffers: witness %.3f GiB, one domain vector %.3f GiB", gib(p.witness_bytes),
           gib(p.vector_bytes));
    printf("; pinned host memory %.3f GiB per worker", gib(p.host_pinned));
    if (p.stage_bytes)
        printf(" (with a, b, c staged through 2 chunks of %.3f GiB%s)", gib(p.stage_bytes),
               p.host_witness ? " and one domain vector" : "");
    if (p.others_bytes)
        printf("; the %u waiting workers' witnesses %.3f GiB", p.workers - 1, gib(p.others_bytes));
    printf("\nphase    device GiB = CUDA runtime + key held + streamed items + proof + waiting workers\n");
    for (int ph = 0; ph < CUZK_GPU_PHASE_COUNT; ph++) {
        size_t str = p.phase_bytes[ph] - p.runtime_bytes - p.key_bytes - p.job_bytes[ph] - p.others_bytes;
        printf("  %-8s %9.3f = %.3f + %.3f + %.3f + %.3f + %.3f\n", cuzk_gpu_plan_phase_name((cuzk_gpu_plan_phase)ph),
               gib(p.phase_bytes[ph]), gib(p.runtime_bytes), gib(p.key_bytes), gib(str), gib(p.job_bytes[ph]),
               gib(p.others_bytes));
    }
    printf("peak     %.3f GiB of %.3f GiB (%zu of %zu bytes)\n", gib(p.peak), gib(p.budget), p.peak, p.budget);
    printf("least    %.3f GiB: the least budget a proof with this key fits (tier %u); %.3f GiB to spare\n",
           gib(p.least_budget), p.least_tier, gib(p.budget - p.least_budget));
    print_host(&p.host);
    if (p.workers < p.workers_asked)
        printf("binds    host memory: %u of %u workers fit\n", p.workers, p.workers_asked);
    else if (p.host_skipped)
        printf("binds    host memory: %u tier%s before tier %u fit the device but not the host\n", p.host_skipped,
               p.host_skipped == 1 ? "" : "s", p.tier);
    else if (p.tier > CUZK_GPU_TIER_FIRST)
        printf("binds    device memory: tiers 1..%u do not fit its budget; the host has %.3f GiB to spare\n",
               p.tier - 1, gib(p.host.budget == SIZE_MAX ? 0 : p.host.budget - p.host.peak));
    else
        printf("binds    neither: tier 1 fits (device %.3f GiB, host %.3f GiB to spare)\n", gib(p.budget - p.peak),
               gib(p.host.budget == SIZE_MAX ? 0 : p.host.budget - p.host.peak));
    return 0;
}
