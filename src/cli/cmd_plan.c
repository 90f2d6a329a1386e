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
    "Usage: cuzk plan [--gpu-mem SIZE] [--workers N] [--device D] [--sm-count S] [--msm-copies]\n"
    "                 <circuit.zkey>\n"
    "       cuzk plan --porep [--scale LG] [--curve C] [--gpu-mem SIZE] ...\n"
    "  The device-memory plan of a GPU proof with this key: the tier chosen (key\n"
    "  resident or streamed, witness pre-staged, uploaded at start or kept on the\n"
    "  host, a/b/c as 3, 2 or 1 vectors), each key item's device bytes, each\n"
    "  phase's bytes, the peak, and the least budget any tier fits.\n"
    "  Touches the GPU only to read its free memory and SM count.\n"
    "  --gpu-mem SIZE  device memory the proofs may use, all workers together\n"
    "                  (e.g. 16G, 80G); without a GPU it plans for that much.\n"
    "                  Default: the device's free memory minus max(512 MiB, 2 %)\n"
    "  --workers N     workers sharing the GPU (default 2)\n"
    "  --device D      CUDA device (default 0)\n"
    "  --sm-count S    SMs the MSM workspaces are sized for (default: the\n"
    "                  device's; 132 without one)\n"
    "  --msm-copies    with the key resident, precomputed copies of the H MSM's\n"
    "                  bases in the memory the tier leaves (as `cuzk bench prove`\n"
    "                  and `cuzk serve --msm-copies true` make them)\n"
    "  --porep         no file: the key of `cuzk bench prove --porep` (a Filecoin\n"
    "                  PoRep partition's shape, domain 2^27 or --scale LG, 10..27;\n"
    "                  bls12381 unless --curve bn128)\n"
    "Exit code 0 when a tier fits, 6 when even the smallest does not, 7 without\n"
    "a GPU and without --gpu-mem.\n";

static double gib(size_t b) { return (double)b / (double)(1u << 30); }

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
    else
        printf("  streamed, held in its phase: %zu %s kept, chunks of %zu (%.3f GiB of data)\n", it->resident,
               unit, it->chunk, gib(it->data_bytes));
}

int cmd_plan(int argc, char **argv)
{
    const char *mem = NULL, *workers = NULL, *device = NULL, *sms = NULL, *scale = NULL, *curve = NULL;
    int porep = 0, copies = 0;
    const cli_opt opts[] = {
        {"msm-copies", 0, 0, NULL, &copies},
        {"gpu-mem", 0, 1, &mem, NULL},   {"workers", 0, 1, &workers, NULL},
        {"device", 0, 1, &device, NULL}, {"sm-count", 0, 1, &sms, NULL},
        {"porep", 0, 0, NULL, &porep},   {"scale", 0, 1, &scale, NULL},
        {"curve", 0, 1, &curve, NULL},   {NULL, 0, 0, NULL, NULL},
    };
    cli_common common;
    const char *pos[1] = {NULL};
    int npos = 0;
    int rc = cli_parse(argc, argv, opts, &common, pos, 1, &npos, PLAN_USAGE);
    if (rc)
        return rc == 2 ? 0 : rc;
    if (npos != (porep ? 0 : 1))
        return cli_usage_error(PLAN_USAGE, porep ? "--porep takes no file" : "expected <circuit.zkey>");
    if (!porep && (scale || curve))
        return cli_usage_error(PLAN_USAGE, "--scale and --curve go with --porep");
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
    unsigned long v = 0;
    if (mem && cli_parse_size(mem, &po.budget))
        return cli_usage_error(PLAN_USAGE, "--gpu-mem must be " CLI_SIZE_HELP ", got '%s'", mem);
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
              : cuzk_gpu_key_shape_read(pos[0], &shape, &err))
        return cli_fail(&err);
    cuzk_gpu_plan p;
    if (cuzk_gpu_plan_proof(&shape, &po, &p, &err)) {
        fprintf(stderr, "Error: %s: %s\n", pos[0], err.msg);
        return (int)err.code;
    }
    printf("%s: %s, domain 2^%u, %llu wires (%llu public), %llu coefficients\n", pos[0],
           cuzk_curve_name(shape.curve), shape.log_domain, (unsigned long long)shape.n_vars,
           (unsigned long long)shape.n_public, (unsigned long long)shape.n_coefs);
    if (p.device_total)
        printf("budget   %.3f GiB (device %d: %.3f GiB free of %.3f GiB, %d SMs)\n", gib(p.budget), po.device,
               gib(p.device_free), gib(p.device_total), p.sm_count);
    else
        printf("budget   %.3f GiB (--gpu-mem; MSM workspaces for %d SMs)\n", gib(p.budget), p.sm_count);
    printf("workers  %u\n", p.workers);
    if (p.host_witness)
        printf("tier     %u: key partly streamed, witness on the host (a, b, c and the quotient on the CPU, "
               "1 vector on the device at a time, MSMs over host scalars)\n", p.tier);
    else
        printf("tier     %u: key %s, witness %s, a/b/c as %u vectors\n", p.tier,
               p.key_streamed ? "partly streamed" : "resident",
               p.prestage ? "pre-staged by waiting workers" : "uploaded at job start", p.abc_vectors);
    if (!shape.n_b || shape.n_b == shape.n_vars)
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
    return 0;
}
