/* Bellperson (Filecoin) mode of `prove` and `setup` (--format bellperson). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuzk/bellperson.h"
#include "cuzk/gpu.h"
#include "groth16/insecure.h" /* the INSECURE setups: not in the public headers */

int cli_take_format(int argc, char **argv, const char **fmt, const char *usage)
{
    if (cli_peek(argc, argv, "format", fmt))
        return cli_usage_error(usage, "--format needs a value (snarkjs or bellperson)");
    if (*fmt && strcmp(*fmt, "snarkjs") && strcmp(*fmt, "bellperson"))
        return cli_usage_error(usage, "--format must be snarkjs or bellperson, got '%s'", *fmt);
    return 0;
}

/* A decimal or 0x-hex integer into 32 little-endian bytes; 1 if it is not
 * one or does not fit 256 bits. */
static int parse_u256(const char *s, uint8_t out[32])
{
    uint64_t l[4] = {0};
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *p = hex ? s + 2 : s;
    if (!*p)
        return 1;
    for (; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (hex && *p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (hex && *p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            return 1;
        unsigned __int128 carry = d;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 t = (unsigned __int128)l[i] * (hex ? 16 : 10) + carry;
            l[i] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry)
            return 1;
    }
    for (int i = 0; i < 32; i++)
        out[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
    return 0;
}

/* r, s from a seed (TEST ONLY): splitmix64 words, the top word kept below
 * 2^62 so that the value is below r. */
static void seed_rs(uint64_t seed, uint8_t r[32], uint8_t s[32])
{
    uint64_t x = seed;
    for (int k = 0; k < 2; k++) {
        uint8_t *o = k ? s : r;
        for (int i = 0; i < 4; i++) {
            uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            z ^= z >> 31;
            if (i == 3)
                z >>= 2;
            for (int b = 0; b < 8; b++)
                o[8 * i + b] = (uint8_t)(z >> (8 * b));
        }
    }
}

/* --scale LG (10..27, default 27) and a seed (default 1) of --porep. */
static int parse_porep(const char *usage, const char *scale_s, const char *seed_s, unsigned *lg, uint64_t *seed)
{
    *lg = 27;
    *seed = 1;
    char *end;
    if (scale_s) {
        unsigned long v = strtoul(scale_s, &end, 10);
        if (!*scale_s || *end || v < 10 || v > 27)
            return cli_usage_error(usage, "--scale must be 10..27 (the domain 2^LG), got '%s'", scale_s);
        *lg = (unsigned)v;
    }
    if (seed_s) {
        unsigned long long v = strtoull(seed_s, &end, 0);
        if (!*seed_s || *end)
            return cli_usage_error(usage, "the seed must be an integer, got '%s'", seed_s);
        *seed = v;
    }
    return 0;
}

/* One cuzk_bp_prove_files call for cli_run_traced. */
typedef struct {
    const char **pos; /* key, r1cs, wtns, proof, public */
    const cuzk_bp_prove_files_opts *o;
} bp_prove_run;

static cuzk_status bp_prove_files_run(cuzk_ctx *ctx, void *user, cuzk_error *err)
{
    const bp_prove_run *r = user;
    return cuzk_bp_prove_files(ctx, r->pos[0], r->pos[1], r->pos[2], r->pos[3], r->pos[4], r->o, err);
}

int cmd_prove_bellperson(int argc, char **argv)
{
    static const char usage[] =
        "Usage: cuzk prove --format bellperson [options] <key.params> <circuit.r1cs> <witness.wtns>\n"
        "                  <proof.bin> <public.json>\n"
        "\n"
        "Proves a circom circuit (BLS12-381) in bellperson mode: the assignment is built as\n"
        "bellperson's synthesis would hand it to supraseal-c2 (the r1cs's constraints, then\n"
        "one input constraint per input; inputs ONE and the public signals), proved against\n"
        "bellperson parameters (e.g. from `cuzk setup --format bellperson`) and verified. Writes\n"
        "the 192-byte proof (bellperson's Proof::write) and public.json (the inputs after ONE,\n"
        "decimal strings), both or neither. r and s come from the OS CSPRNG.\n"
        "\n"
        "Options:\n"
        "  --no-verify           skip the pairing check of the proof\n"
        "  --checked             check every parameter point (subgroup too), as bellperson's\n"
        "                        checked read; slow for large files\n"
        "  --gpu[=D]             prove on CUDA device D (default 0); exit 8 without a GPU\n"
        "  --gpu=auto            the GPU when one is usable, else the CPU\n"
        "  --gpus N|all          with --gpu[=D]: the parameters on N devices from D on (all: every\n"
        "                        one), each with its own memory plan; the partitions go to the next\n"
        "                        free worker of any of them (default 1)\n"
        "  --gpu-mem SIZE        device memory the parameters and proof may use\n"
        "  --gpu-workers N       proofs on the device at once (1..64, default 2, lowered until\n"
        "                        the memory plan fits: `cuzk plan --bellperson`)\n"
        "  --host-mem SIZE       host memory (anonymous + page-locked) the parameters and\n"
        "                        proofs may use, a cap on what is available (as bench prove)\n"
        "  --stage-bases auto|yes|no  streamed MSM bases copied through page-locked chunks\n"
        "                        at each proof (yes) or page-locked whole in the mapping at\n"
        "                        load (no); auto: locked unless that does not fit the host\n"
        "                        (staged costs about 20 % a partition at tiers 4-7)\n"
        "  --raw-proof FILE      also write the 384-byte in-memory proof (blst affine points,\n"
        "                        Montgomery: what supraseal-c2 writes into Proof<Bls12>)\n"
        "  --r N --s N           TEST ONLY, not zero-knowledge: fixed r and s (decimal or 0x-hex\n"
        "                        integers below the scalar field order)\n"
        "  --seed N              TEST ONLY, not zero-knowledge: r and s derived from N\n"
        "  --partitions N        prove the assignment as N partitions in one call (a PoRep\n"
        "                        proof is 10): N proofs concatenated, public.json an array of\n"
        "                        N arrays; with --r/--s partition i takes r + i, s + i\n"
        "  --trace FILE          write a Chrome trace-event timeline (Perfetto,\n"
        "                        chrome://tracing): the CPU phases (load_zkey, load_wtns,\n"
        "                        then per partition prep_scalars, abc, ntt, msm_h .. msm_b2,\n"
        "                        assemble, verify) on a lane per worker, and with --gpu the\n"
        "                        uploads and kernels per worker slot and CUDA stream, timed\n"
        "                        by CUDA events; valid JSON also when the command fails.\n"
        "                        -v prints the same device intervals as CUZK_TIMING\n"
        "                        phase=gpu.<name> lines\n"
        "\n"
        "       cuzk prove --format bellperson --porep [--scale LG] [--porep-seed S] [options]\n"
        "                  <key.params> <proof.bin> <public.json>\n"
        "\n"
        "  --porep               no circom files: the PoRep-shaped circuit (Filecoin 32 GiB\n"
        "                        partition shape scaled to the domain 2^LG, default 27) of seed S\n"
        "                        (default 1), for parameters from `cuzk setup --format\n"
        "                        bellperson --porep` with the same LG and seed\n";
    int no_verify = 0, checked = 0, porep = 0;
    const char *gpu_mem = NULL, *r_s = NULL, *s_s = NULL, *seed_s = NULL, *raw = NULL, *parts = NULL;
    const char *scale_s = NULL, *pseed_s = NULL, *gw_s = NULL, *gpu_s = NULL, *fmt = NULL, *trace = NULL;
    const char *hmem = NULL, *stage = NULL, *gpus = NULL;
    const cli_opt opts[] = {
        {"porep", 0, 0, NULL, &porep},         {"scale", 0, 1, &scale_s, NULL},
        {"porep-seed", 0, 1, &pseed_s, NULL},
        {"no-verify", 0, 0, NULL, &no_verify}, {"checked", 0, 0, NULL, &checked},
        {"gpu-mem", 0, 1, &gpu_mem, NULL},     {"raw-proof", 0, 1, &raw, NULL},
        {"r", 0, 1, &r_s, NULL},               {"s", 0, 1, &s_s, NULL},
        {"seed", 0, 1, &seed_s, NULL},         {"partitions", 0, 1, &parts, NULL},
        {"gpu-workers", 0, 1, &gw_s, NULL},    {"trace", 0, 1, &trace, NULL},
        {"host-mem", 0, 1, &hmem, NULL},       {"stage-bases", 0, 1, &stage, NULL},
        {"gpu", 0, CLI_OPTIONAL, &gpu_s, NULL}, {"format", 0, CLI_VALUE, &fmt, NULL},
        {"gpus", 0, 1, &gpus, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    cuzk_bp_prove_files_opts o = {0};
    int gpu = 0;
    cli_common common;
    const char *pos[5];
    int npos = 0;
    int rc = cli_parse(argc, argv, opts, &common, pos, 5, &npos, usage);
    if (rc)
        return rc == 2 ? 0 : rc;
    if (cli_gpu_arg(gpu_s, 1, &gpu, &o.srs.device, usage))
        return 1;
    o.srs.backend = gpu == 2 ? CUZK_BACKEND_AUTO : gpu ? CUZK_BACKEND_GPU : CUZK_BACKEND_CPU;
    if (npos != (porep ? 3 : 5))
        return cli_usage_error(usage, "prove --format bellperson%s takes %d files, got %d", porep ? " --porep" : "",
                               porep ? 3 : 5, npos);
    if (!porep && (scale_s || pseed_s))
        return cli_usage_error(usage, "--scale and --porep-seed need --porep");
    if (porep) {
        if ((rc = parse_porep(usage, scale_s, pseed_s, &o.porep_log, &o.porep_seed)))
            return rc;
        pos[4] = pos[2];
        pos[3] = pos[1];
        pos[1] = pos[2] = NULL;
    }
    o.srs.checked = checked;
    o.prove.no_verify = no_verify;
    o.raw_proof_path = raw;
    if (parts) {
        char *end;
        unsigned long v = strtoul(parts, &end, 10);
        if (!*parts || *end || v < 1 || v > 1024)
            return cli_usage_error(usage, "--partitions must be 1..1024, got '%s'", parts);
        o.partitions = (unsigned)v;
    }
    if (gpu_mem) {
        size_t b;
        if (cli_parse_size(gpu_mem, &b))
            return cli_usage_error(usage, "--gpu-mem must be " CLI_SIZE_HELP ", got '%s'", gpu_mem);
        if (!gpu)
            return cli_usage_error(usage, "--gpu-mem needs --gpu");
        o.srs.device_budget = b;
    }
    if (hmem) {
        size_t b;
        if (cli_parse_size(hmem, &b) || !b)
            return cli_usage_error(usage, "--host-mem must be " CLI_SIZE_HELP ", got '%s'", hmem);
        if (!gpu)
            return cli_usage_error(usage, "--host-mem needs --gpu");
        o.srs.host_budget = b;
    }
    if (cli_parse_stage_bases(stage, &o.srs.gpu_stage_bases, usage))
        return 1;
    if (stage && !gpu)
        return cli_usage_error(usage, "--stage-bases needs --gpu");
    if (gpus) {
        char *end = NULL;
        const bool all = !strcmp(gpus, "all");
        unsigned long v = all ? 0 : strtoul(gpus, &end, 10);
        if (!all && (!*gpus || *end || v < 1 || v > CUZK_BP_MAX_DEVICES))
            return cli_usage_error(usage, "--gpus must be 1..%d or all, got '%s'", CUZK_BP_MAX_DEVICES, gpus);
        if (!gpu)
            return cli_usage_error(usage, "--gpus needs --gpu");
        o.srs.device_count = all ? -1 : (int)v;
    }
    if (gw_s) {
        char *end;
        unsigned long v = strtoul(gw_s, &end, 10);
        if (!*gw_s || *end || v < 1 || v > 64)
            return cli_usage_error(usage, "--gpu-workers must be 1..64, got '%s'", gw_s);
        if (!gpu)
            return cli_usage_error(usage, "--gpu-workers needs --gpu");
        o.srs.gpu_workers = (unsigned)v;
    }
    uint8_t rb[32], sb[32];
    if (!r_s != !s_s)
        return cli_usage_error(usage, "--r and --s go together");
    if (r_s && seed_s)
        return cli_usage_error(usage, "--seed and --r/--s exclude each other");
    if (r_s) {
        if (parse_u256(r_s, rb) || parse_u256(s_s, sb))
            return cli_usage_error(usage, "--r and --s must be decimal or 0x-hex integers of at most 256 bits");
        o.insecure_r = rb;
        o.insecure_s = sb;
    } else if (seed_s) {
        char *end;
        unsigned long long v = strtoull(seed_s, &end, 0);
        if (!*seed_s || *end)
            return cli_usage_error(usage, "--seed must be an integer, got '%s'", seed_s);
        seed_rs(v, rb, sb);
        o.insecure_r = rb;
        o.insecure_s = sb;
    }
    if (o.srs.backend == CUZK_BACKEND_GPU && cuzk_gpu_device_count() <= o.srs.device) {
        fprintf(stderr, "Error: --gpu: no CUDA device %d%s\n", o.srs.device,
                cuzk_gpu_device_count() ? "" : " (no GPU, or a build without CUDA): use --gpu=auto or the CPU");
        return CUZK_ERR_GPU;
    }
    bp_prove_run run = {pos, &o};
    return cli_run_traced(&common, trace, bp_prove_files_run, &run);
}

int cmd_setup_bellperson(int argc, char **argv)
{
    static const char usage[] =
        "Usage: cuzk setup --format bellperson [options] <circuit.r1cs> <out.params>\n"
        "\n"
        "INSECURE DEVELOPMENT SETUP in bellperson's layout (Filecoin `.params`): random\n"
        "toxic waste that exists in this process's memory while it runs; for tests and\n"
        "benchmarks only. The r1cs must be over BLS12-381. Inputs are ONE and the public\n"
        "signals, with one input constraint each, as bellperson's generator makes them.\n"
        "Writes out.params and its verifying key (out.vk, the .params suffix replaced),\n"
        "both or neither.\n"
        "\n"
        "Options:\n"
        "  --vk FILE             the verifying key's path\n"
        "\n"
        "       cuzk setup --format bellperson --porep [--scale LG] [--seed S] [--cpu | --gpu[=D]]\n"
        "                  <out.params> [out.vk]\n"
        "\n"
        "The PoRep-shaped circuit instead of an r1cs: the shape of a Filecoin 32 GiB PoRep\n"
        "partition (130,278,869 constraints with the input ones, 328 inputs) scaled to the\n"
        "domain 2^LG (10..27, default 27: the real layout, a 44 GiB file), circuit, witness and\n"
        "toxic waste from seed S (default 1; the same seed gives the same file; anyone knowing\n"
        "it can forge proofs). Made and written as a stream in batches (a few GiB of host\n"
        "memory at any size; the plan is printed), the points by fixed-base multiplication on\n"
        "the GPU when one is usable, else on the CPU. `cuzk prove --format bellperson --porep`\n"
        "and the supraseal-c2 crate's bench (--porep) prove with its assignment.\n"
        "\n"
        "  --porep               the PoRep-shaped circuit (no r1cs)\n"
        "  --scale LG            its domain 2^LG\n"
        "  --seed S              its seed\n"
        "  --cpu                 the points on the CPU even with a GPU\n"
        "  --gpu[=D]             the points on CUDA device D (default 0); exit 8 without one\n"
        "  --batch N             points made and written at a time (default 2097152)\n";
    const char *vk = NULL, *scale_s = NULL, *seed_s = NULL, *batch_s = NULL, *gpu_s = NULL, *fmt = NULL;
    int porep = 0, cpu = 0;
    const cli_opt opts[] = {{"vk", 0, 1, &vk, NULL},          {"porep", 0, 0, NULL, &porep},
                            {"scale", 0, 1, &scale_s, NULL},  {"seed", 0, 1, &seed_s, NULL},
                            {"cpu", 0, 0, NULL, &cpu},        {"batch", 0, 1, &batch_s, NULL},
                            {"gpu", 0, CLI_OPTIONAL, &gpu_s, NULL}, {"format", 0, CLI_VALUE, &fmt, NULL},
                            {NULL, 0, 0, NULL, NULL}};
    int gpu = 0, device = 0;
    cli_common common;
    const char *pos[2];
    int npos = 0;
    int rc = cli_parse(argc, argv, opts, &common, pos, 2, &npos, usage);
    if (rc)
        return rc == 2 ? 0 : rc;
    if (cli_gpu_arg(gpu_s, 0, &gpu, &device, usage))
        return 1;
    if (porep) {
        if (npos < 1)
            return cli_usage_error(usage, "setup --format bellperson --porep needs <out.params> [out.vk]");
        if (vk && npos == 2)
            return cli_usage_error(usage, "the verifying key's path given twice (--vk and a second file)");
        if (npos == 2)
            vk = pos[1];
        pos[1] = pos[0];
        pos[0] = NULL;
    } else {
        if (npos != 2)
            return cli_usage_error(usage, "setup --format bellperson takes 2 files, got %d", npos);
        if (scale_s || seed_s || cpu || gpu || batch_s)
            return cli_usage_error(usage, "--scale, --seed, --cpu, --gpu and --batch need --porep");
    }
    cuzk_bp_porep_opts po = {0};
    if (porep) {
        if ((rc = parse_porep(usage, scale_s, seed_s, &po.log_domain, &po.seed)))
            return rc;
        if (cpu && gpu)
            return cli_usage_error(usage, "--cpu and --gpu exclude each other");
        if (batch_s) {
            char *end;
            unsigned long long v = strtoull(batch_s, &end, 10);
            if (!*batch_s || *end || v < 16384 || v > (1ull << 26))
                return cli_usage_error(usage, "--batch must be 16384..67108864, got '%s'", batch_s);
            po.batch_points = v;
        }
        if (gpu) {
            if (cuzk_gpu_device_count() <= device) {
                fprintf(stderr, "Error: --gpu: no CUDA device %d%s\n", device,
                        cuzk_gpu_device_count() ? "" : " (no GPU, or a build without CUDA): use --cpu");
                return CUZK_ERR_GPU;
            }
            po.gpu = 1;
            po.device = device;
        } else if (!cpu && cuzk_gpu_device_count() > 0) {
            po.gpu = 1;
            po.device = 0;
        }
    }
    char *vk_own = NULL;
    if (!vk) {
        size_t n = strlen(pos[1]);
        if (!(vk_own = malloc(n + 4)))
            return CUZK_ERR_NOMEM;
        memcpy(vk_own, pos[1], n + 1);
        if (n > 7 && !strcmp(vk_own + n - 7, ".params"))
            vk_own[n - 7] = 0;
        strcat(vk_own, ".vk");
        vk = vk_own;
    }
    cuzk_error err = {0};
    cuzk_ctx *ctx = NULL;
    if (cli_make_ctx(&ctx, &common, &err)) {
        free(vk_own);
        return cli_fail(&err);
    }
    cuzk_status st;
    if (porep) {
        char where[32];
        if (po.gpu)
            snprintf(where, sizeof where, "GPU %d", po.device);
        else
            snprintf(where, sizeof where, "the CPU");
        fprintf(stderr, "porep 2^%u seed %llu: points on %s; host plan %.2f GiB\n", po.log_domain,
                (unsigned long long)po.seed, where,
                (double)cuzk_bp_setup_porep_plan(&po, cuzk_ctx_threads(ctx)) / (1u << 30));
        cuzk_bp_porep_info in;
        st = cuzk_bp_setup_porep(ctx, &po, pos[1], vk, &in, &err);
        cli_progress_done();
        if (!st)
            fprintf(stderr,
                    "porep 2^%u: %s (%.2f GiB: %u inputs, H %llu, L %llu, A %llu, B %llu) and %s in %.1f s\n",
                    in.log_domain, pos[1], (double)in.file_bytes / (1u << 30), in.n_inputs,
                    (unsigned long long)in.n_h, (unsigned long long)in.n_l, (unsigned long long)in.n_a,
                    (unsigned long long)in.n_b, vk, in.seconds);
    } else {
        st = cuzk_bp_setup_files(ctx, pos[0], pos[1], vk, &err);
        cli_progress_done();
    }
    cuzk_ctx_free(ctx);
    if (!st)
        fprintf(stderr, "WARNING: %s is an INSECURE development key — do not use it in production.\n", pos[1]);
    free(vk_own);
    return st ? cli_fail(&err) : 0;
}
