/* prove / verify / export-vk / setup commands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_remote.h"
#include "cuzk/bellperson.h"
#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "groth16/insecure.h" /* the INSECURE setups: not in the public headers */

#define RUN_WITH_CTX(common, call)                                            \
    do {                                                                      \
        cuzk_error err_ = {0};                                                \
        cuzk_ctx *ctx = NULL;                                                 \
        if (cli_make_ctx(&ctx, &(common), &err_) != CUZK_OK)                  \
            return cli_fail(&err_);                                           \
        double t0_ = cli_now();                                              \
        cuzk_status st_ = (call);                                             \
        cli_progress_done();                                                  \
        if ((common).verbose)                                                 \
            fprintf(stderr, "CUZK_TIMING phase=total ms=%.3f\n", (cli_now() - t0_) * 1e3); \
        cuzk_ctx_free(ctx);                                                   \
        if (st_ != CUZK_OK)                                                   \
            return cli_fail(&err_);                                           \
    } while (0)

#define MAX_TRIPLES 256

/* Loads the key once and proves every (witness, proof, public) triple with
 * it. A failing triple stops the run with its error; the triples before it
 * are written, the failing one writes nothing. */
static cuzk_status prove_triples(cuzk_ctx *ctx, const char *zkey, const char *const *t, int ntriples,
                                 const cuzk_key_opts *ko, const cuzk_prove_opts *po, int verbose, cuzk_error *err)
{
    cuzk_key *key = NULL;
    cuzk_status st = cuzk_key_load(&key, ctx, zkey, ko, err);
    if (st) {
        /* name the key in messages that come from the device plan */
        size_t n = strlen(zkey);
        if (err && strncmp(err->msg, zkey, n)) {
            char msg[CUZK_ERROR_MSG_MAX];
            memcpy(msg, err->msg, sizeof msg);
            snprintf(err->msg, sizeof err->msg, "%.200s: %.300s", zkey, msg);
        }
        return st;
    }
    if (ko->backend == CUZK_BACKEND_AUTO) {
        cuzk_key_info info;
        cuzk_key_get_info(key, &info);
        if (info.backend == CUZK_BACKEND_GPU)
            fprintf(stderr, "cuzk: proving on GPU %d\n", ko->device);
        else
            fprintf(stderr, "cuzk: proving on the CPU (no usable GPU)\n");
    }
    const cuzk_json_style style = po->rapidsnark_json ? CUZK_JSON_RAPIDSNARK : CUZK_JSON_SNARKJS;
    for (int i = 0; i < ntriples && !st; i++) {
        cuzk_witness *w = NULL;
        cuzk_proof *proof = NULL;
        double t0 = cli_now();
        st = cuzk_witness_load(&w, t[3 * i], err);
        if (!st)
            cli_phase_done(CUZK_PHASE_LOAD_WITNESS, t0, cli_now());
        if (!st)
            st = cuzk_prove(ctx, key, w, po, &proof, err);
        t0 = cli_now();
        if (!st)
            st = cuzk_proof_write_files(proof, t[3 * i + 1], t[3 * i + 2], style, err);
        if (!st)
            cli_phase_done(CUZK_PHASE_WRITE, t0, cli_now());
        cuzk_proof_free(proof);
        cuzk_witness_free(w);
    }
    cuzk_key_info info;
    cuzk_key_get_info(key, &info);
    if (verbose && info.backend == CUZK_BACKEND_GPU) /* the plan's peak beside the measured one */
        fprintf(stderr, "CUZK_DEVICE_MEM device=%d planned_bytes=%llu peak_bytes=%llu\n", ko->device,
                (unsigned long long)info.device_bytes, (unsigned long long)info.device_peak);
    cuzk_key_free(key);
    return st;
}

/* cmd_prove with room for every argument in pos (so that too many triples is
 * said as such). */
/* One prove command's work for cli_run_traced: one proof on the CPU
 * (cuzk_prove_files), or triples through a loaded key. */
typedef struct {
    const char **pos;
    int npos;
    const cuzk_key_opts *ko;
    const cuzk_prove_opts *po;
    int verbose;
} prove_run;

static cuzk_status prove_run_fn(cuzk_ctx *ctx, void *user, cuzk_error *err)
{
    const prove_run *r = user;
    if (r->ko->backend == CUZK_BACKEND_CPU && r->npos == 4)
        return cuzk_prove_files(ctx, r->pos[0], r->pos[1], r->pos[2], r->pos[3], r->po, err);
    return prove_triples(ctx, r->pos[0], r->pos + 1, (r->npos - 1) / 3, r->ko, r->po, r->verbose, err);
}

static int prove_cmd(int argc, char **argv, const char **pos)
{
    static const char usage[] =
        "Usage: cuzk prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
        "                  [<witness2.wtns> <proof2.json> <public2.json> ...]\n"
        "\n"
        "Creates a Groth16 proof from a snarkjs/circom proving key and witness and writes\n"
        "snarkjs-format proof.json and public.json. r and s come from the OS CSPRNG.\n"
        "The proof is verified (pairing check) before it is written, so a witness that\n"
        "does not satisfy the circuit is reported instead of producing an invalid proof.\n"
        "On any error nothing is written for that witness. With several triples (at\n"
        "most 256 a run) the key is loaded once and they are proved in order; the first\n"
        "error stops the run.\n"
        "\n"
        "Options:\n"
        "  --verify              verify the proof before writing it (the default)\n"
        "  --no-verify           skip that check (saves a few ms; an invalid witness then\n"
        "                        yields an invalid proof, as with snarkjs and rapidsnark)\n"
        "  --rapidsnark          write rapidsnark's compact JSON (sorted keys, no \"curve\")\n"
        "  --gpu[=D]             prove on CUDA device D (default 0); exit 8 without a GPU\n"
        "  --gpu=auto            the GPU when one is usable and the proof's memory plan fits,\n"
        "                        else the CPU; says which on stderr\n"
        "  --gpu-mem SIZE        device memory the proofs may use (e.g. 16G; default: the\n"
        "                        free memory minus a margin); see `cuzk plan`\n"
        "  --trace FILE          write a Chrome trace-event timeline (Perfetto,\n"
        "                        chrome://tracing): CPU phases, and with --gpu the uploads\n"
        "                        and kernels per CUDA stream, timed by CUDA events\n"
        "  --insecure-zero-rs    TEST ONLY: r = s = 0 (deterministic, not zero-knowledge)\n"
        "  --remote URL          prove through a `cuzk serve` daemon (http://HOST:PORT or\n"
        "                        unix:/PATH): the witness is sent, the key is read by the\n"
        "                        daemon from its absolute path (or give a registered key\n"
        "                        id instead of circuit.zkey); waits across daemon restarts\n"
        "  --token TOKEN         bearer token for --remote (default $CUZK_TOKEN; a flag\n"
        "                        shows in ps)\n"
        "  --token-file FILE     --remote: the bearer token from this file's first line\n"
        "  --priority P          --remote: critical, high, normal (default) or low\n";
    const char *fmt = NULL;
    if (cli_take_format(argc, argv, &fmt, usage))
        return 1;
    if (fmt && !strcmp(fmt, "bellperson"))
        return cmd_prove_bellperson(argc, argv);
    int verify = 0, no_verify = 0, rs = 0, zero = 0;
    const char *remote = NULL, *token = NULL, *token_file = NULL, *priority = NULL, *gpu_mem = NULL, *trace = NULL;
    const char *gpu_s = NULL;
    const cli_opt opts[] = {
        {"format", 0, CLI_VALUE, &fmt, NULL},
        {"gpu", 0, CLI_OPTIONAL, &gpu_s, NULL},
        {"verify", 0, 0, NULL, &verify},
        {"no-verify", 0, 0, NULL, &no_verify},
        {"rapidsnark", 0, 0, NULL, &rs},
        {"insecure-zero-rs", 0, 0, NULL, &zero},
        {"remote", 0, 1, &remote, NULL},
        {"token", 0, 1, &token, NULL},
        {"token-file", 0, 1, &token_file, NULL},
        {"priority", 0, 1, &priority, NULL},
        {"gpu-mem", 0, 1, &gpu_mem, NULL},
        {"trace", 0, 1, &trace, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    /* one proof at a time: the plan needs no room for waiting workers */
    cuzk_key_opts ko = {.backend = CUZK_BACKEND_CPU, .map_in_place = 1, .gpu_workers = 1};
    int gpu = 0;
    cli_common common;
    int npos = 0;
    int r = cli_parse(argc, argv, opts, &common, pos, argc, &npos, usage);
    if (r)
        return r == 2 ? 0 : 1;
    if (cli_gpu_arg(gpu_s, 1, &gpu, &ko.device, usage))
        return 1;
    if (gpu)
        ko.backend = gpu == 2 ? CUZK_BACKEND_AUTO : CUZK_BACKEND_GPU;
    if (npos > 1 + 3 * MAX_TRIPLES)
        return cli_usage_error(usage, "at most %d (witness, proof, public) triples a run, got %d arguments after "
                                      "the key", MAX_TRIPLES, npos - 1);
    if (npos < 4 || (npos - 1) % 3)
        return cli_usage_error(usage, "prove takes a zkey and one or more (witness, proof, public) triples, got %d "
                                      "argument%s", npos, npos == 1 ? "" : "s");
    if (remote) { /* the daemon proves and verifies; local-only options do not apply */
        if (no_verify || rs || zero || npos != 4 || ko.backend != CUZK_BACKEND_CPU || gpu_mem || trace)
            return cli_usage_error(usage, "--remote cannot be combined with --no-verify, --rapidsnark, "
                                          "--insecure-zero-rs, --gpu, --gpu-mem, --trace or several triples");
        char tokbuf[1024];
        if ((r = remote_token_file(&token, token_file, tokbuf, sizeof tokbuf)))
            return r;
        return cli_prove_remote(remote, token, priority, pos[0], pos[1], pos[2], pos[3], common.verbose);
    }
    if (verify && no_verify) {
        return cli_usage_error(usage, "--verify and --no-verify contradict each other");
    }
    if (gpu_mem) {
        size_t b;
        if (cli_parse_size(gpu_mem, &b))
            return cli_usage_error(usage, "--gpu-mem must be " CLI_SIZE_HELP ", got '%s'", gpu_mem);
        ko.device_budget = b;
        if (ko.backend == CUZK_BACKEND_CPU)
            return cli_usage_error(usage, "--gpu-mem needs --gpu");
    }
    if (ko.backend == CUZK_BACKEND_GPU && cuzk_gpu_device_count() <= ko.device) {
        fprintf(stderr, "Error: --gpu: no CUDA device %d%s\n", ko.device,
                cuzk_gpu_device_count() ? "" : " (no GPU, or a build without CUDA): use --gpu=auto or the CPU");
        return CUZK_ERR_GPU;
    }
    cuzk_prove_opts po = {.no_verify = no_verify, .rapidsnark_json = rs, .insecure_zero_rs = zero};
    /* the key is mapped in place (the faster load): a file truncated under it
     * ends the run with one line; outputs are only created after the proof
     * is computed, when the mapping is no longer read, so nothing is written */
    po.map_key_in_place = 1;
    cli_catch_sigbus(pos[0]);
    prove_run run = {pos, npos, &ko, &po, common.verbose};
    return cli_run_traced(&common, trace, prove_run_fn, &run);
}

int cmd_prove(int argc, char **argv)
{
    const char **pos = calloc((size_t)argc + 1, sizeof *pos);
    if (!pos) {
        fputs("Error: out of memory\n", stderr);
        return CUZK_ERR_NOMEM;
    }
    int rc = prove_cmd(argc, argv, pos);
    free(pos);
    return rc;
}

int cmd_verify(int argc, char **argv)
{
    static const char usage[] =
        "Usage: cuzk verify [options] <verification_key.json> <public.json> <proof.json>\n"
        "       cuzk verify --format bellperson [options] <key.vk|key.params> <public.json> <proof.bin>\n"
        "\n"
        "Checks a Groth16 proof (snarkjs or rapidsnark JSON). Prints \"OK!\" and exits 0\n"
        "when it is valid; prints \"Invalid proof\" and exits 5 when it is not (the\n"
        "pairing check fails, or a proof point is not a valid group element), with the\n"
        "reason on stderr. A malformed file exits 3, inputs that disagree exit 4.\n"
        "\n"
        "With --format bellperson (Filecoin, BLS12-381): the key is a bellperson .vk or\n"
        ".params file, the proof 192 bytes per partition (A||B||C compressed), and\n"
        "public.json a JSON array of decimal strings (the inputs after the implicit one)\n"
        "or an array of such arrays, one per partition in proof order (`cuzk filecoin\n"
        "inputs` prints it). Every partition must verify.\n"
        "\n"
        "Options:\n"
        "  --format snarkjs|bellperson   file formats (default snarkjs)\n";
    const char *format = NULL;
    const cli_opt opts[] = {{"format", 0, 1, &format, NULL}, {NULL, 0, 0, NULL, NULL}};
    cli_common common;
    const char *pos[3];
    int r = cli_parse_exact(argc, argv, opts, &common, pos, 3, "verify", usage);
    if (r >= 0)
        return r;
    bool bellperson = false;
    if (format && !strcmp(format, "bellperson"))
        bellperson = true;
    else if (format && strcmp(format, "snarkjs"))
        return cli_usage_error(usage, "--format: unknown format '%s' (snarkjs or bellperson)", format);
    cuzk_error err = {0};
    cuzk_ctx *ctx = NULL;
    if (cli_make_ctx(&ctx, &common, &err) != CUZK_OK)
        return cli_fail(&err);
    if (bellperson)
        cli_catch_sigbus(pos[0]); /* a .params is mapped while its structure is checked */
    cuzk_status st = bellperson ? cuzk_bp_verify_files(ctx, pos[0], pos[1], pos[2], &err)
                                : cuzk_verify_files(ctx, pos[0], pos[1], pos[2], &err);
    cuzk_ctx_free(ctx);
    if (st == CUZK_OK) {
        printf("OK!\n");
        return 0;
    }
    if (st == CUZK_ERR_INVALID_PROOF) {
        printf("Invalid proof\n");
        fflush(stdout);
        if (err.msg[0])
            fprintf(stderr, "Error: %s\n", err.msg);
        return (int)st;
    }
    return cli_fail(&err);
}

int cmd_export_vk(int argc, char **argv)
{
    static const char usage[] =
        "Usage: cuzk export-vk [options] <circuit.zkey> <verification_key.json>\n"
        "\n"
        "Writes the verification key of a Groth16 zkey, like\n"
        "`snarkjs zkey export verificationkey`.\n";
    cli_common common;
    const char *pos[2];
    int r = cli_parse_exact(argc, argv, NULL, &common, pos, 2, "export-vk", usage);
    if (r >= 0)
        return r;
    RUN_WITH_CTX(common, cuzk_export_vk_files(ctx, pos[0], pos[1], &err_));
    return 0;
}

int cmd_setup(int argc, char **argv)
{
    static const char usage[] =
        "Usage: cuzk setup [options] <circuit.r1cs> <out.zkey>\n"
        "       cuzk setup --format bellperson [options] <circuit.r1cs> <out.params>\n"
        "\n"
        "INSECURE DEVELOPMENT SETUP. Creates a Groth16 proving key from random toxic\n"
        "waste (tau, alpha, beta, delta) that exists in this process's memory while it\n"
        "runs. Anyone who could read that memory can forge proofs. Use it for tests and\n"
        "benchmarks only, never for keys that protect anything. snarkjs accepts the\n"
        "result for prove, verify and `zkey export verificationkey`.\n"
        "\n"
        "  --gpu[=D]             make the key's points (the bulk of the work) by fixed-base\n"
        "                        multiplications on CUDA device D (default 0): the same key,\n"
        "                        much faster at large sizes; exit 8 without that device\n";
    const char *fmt = NULL;
    if (cli_take_format(argc, argv, &fmt, usage))
        return 1;
    if (fmt && !strcmp(fmt, "bellperson"))
        return cmd_setup_bellperson(argc, argv);
    cuzk_setup_opts so = {0};
    const char *gpu_s = NULL;
    const cli_opt opts[] = {{"format", 0, CLI_VALUE, &fmt, NULL}, {"gpu", 0, CLI_OPTIONAL, &gpu_s, NULL},
                            {NULL, 0, 0, NULL, NULL}};
    cli_common common;
    const char *pos[2];
    int r = cli_parse_exact(argc, argv, opts, &common, pos, 2, "setup", usage);
    if (r >= 0)
        return r;
    if (cli_gpu_arg(gpu_s, 0, &so.gpu, &so.device, usage))
        return 1;
    RUN_WITH_CTX(common, cuzk_setup_files_ex(ctx, pos[0], pos[1], &so, &err_));
    /* After the work, so that an error stays the only line. */
    fprintf(stderr, "WARNING: %s is an INSECURE development key — do not use it in production.\n", pos[1]);
    return 0;
}

int cmd_gen(int argc, char **argv)
{
    static const char usage[] =
        "Usage: cuzk gen [options] <out.r1cs> <out.wtns>\n"
        "\n"
        "Writes a synthetic circuit and a satisfying witness with a Filecoin-PoRep-like\n"
        "profile (mostly 0/1 witness values from bit decompositions, 2-4 terms per linear\n"
        "combination) for benchmarks at sizes circom cannot reach quickly.\n"
        "\n"
        "Options:\n"
        "  --curve C             bn128 (default) or bls12381\n"
        "  --constraints N       number of constraints, 1..2^27 (default 1024); accepts 2^K\n"
        "  --public K            number of public signals (default 1)\n"
        "  --seed S              deterministic output for a given seed (default: random)\n";
    const char *curve = "bn128", *cons = "1024", *pub = "1", *seed = "0";
    const cli_opt opts[] = {
        {"curve", 0, 1, &curve, NULL},
        {"constraints", 'n', 1, &cons, NULL},
        {"public", 0, 1, &pub, NULL},
        {"seed", 0, 1, &seed, NULL},
        {NULL, 0, 0, NULL, NULL},
    };
    cli_common common;
    const char *pos[2];
    int r = cli_parse_exact(argc, argv, opts, &common, pos, 2, "gen", usage);
    if (r >= 0)
        return r;
    cuzk_gen_opts go = {0};
    go.curve = cuzk_curve_from_name(curve);
    if (go.curve == CUZK_CURVE_NONE) {
        return cli_usage_error(usage, "unknown curve '%s' (use bn128 or bls12381)", curve);
    }
    char *end;
    if (!strncmp(cons, "2^", 2)) {
        long k = strtol(cons + 2, &end, 10);
        if (cons[2] < '0' || cons[2] > '9' || *end || k < 0 || k > 27)
            return cli_usage_error(usage, "--constraints 2^K needs K in 0..27, got '%s'", cons);
        go.constraints = 1ull << k;
    } else {
        unsigned long long v = strtoull(cons, &end, 10);
        if (cons[0] < '0' || cons[0] > '9' || *end || v < 1 || v > (1ull << 27))
            return cli_usage_error(usage, "--constraints must be 1..134217728 or 2^K, got '%s'", cons);
        go.constraints = v;
    }
    unsigned long long p = strtoull(pub, &end, 10);
    if (pub[0] < '0' || pub[0] > '9' || *end || p > 1000000)
        return cli_usage_error(usage, "--public must be a number 0..1000000, got '%s'", pub);
    go.public_inputs = (uint32_t)p;
    go.seed = strtoull(seed, &end, 10);
    if (seed[0] < '0' || seed[0] > '9' || *end)
        return cli_usage_error(usage, "--seed must be a number, got '%s'", seed);
    RUN_WITH_CTX(common, cuzk_gen_files(ctx, &go, pos[0], pos[1], &err_));
    return 0;
}
