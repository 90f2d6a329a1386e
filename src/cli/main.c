/* cuzk — command-line entry point: dispatches to one command per verb. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_remote.h"
#include "cuzk/dev.h"

int cmd_selftest(int argc, char **argv); /* cmd_gpu.c */
int cmd_bench(int argc, char **argv);

static const char USAGE[] =
    "cuzk " CUZK_VERSION_STRING " — fast Groth16 prover for BN254 and BLS12-381 (snarkjs/circom compatible)\n"
    "\n"
    "Usage: cuzk <command> [options] [arguments]\n"
    "\n"
    "Commands:\n"
    "  prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "                         create a proof (drop-in for rapidsnark / snarkjs groth16 prove)\n"
    "  verify <verification_key.json> <public.json> <proof.json>\n"
    "                         verify a proof (snarkjs groth16 verify argument order)\n"
    "  verify --format bellperson <key.vk|key.params> <public.json> <proof.bin>\n"
    "                         verify a bellperson (Filecoin) proof of one or more partitions\n"
    "  filecoin inputs porep|window-post|winning-post [options]\n"
    "                         the public inputs of a Filecoin proof (public.json for verify)\n"
    "  setup <circuit.r1cs> <out.zkey>\n"
    "                         INSECURE development trusted setup (random toxic waste)\n"
    "  gen [--curve C] [--constraints N] [--public K] <out.r1cs> <out.wtns>\n"
    "                         synthetic Filecoin-like circuit and witness for benchmarks\n"
    "  export-vk <circuit.zkey> <verification_key.json>\n"
    "                         export the verification key (snarkjs zkey export verificationkey)\n"
    "  info <file>            describe a .zkey, .r1cs, .wtns, snarkjs .json, or bellperson\n"
    "                         .params / .vk file\n"
    "  plan [--gpu-mem SIZE] [--workers N] <circuit.zkey>\n"
    "                         device-memory plan of a GPU proof (tier, per-phase bytes, peak)\n"
    "  selftest --gpu         check the GPU kernels against the CPU code\n"
    "  bench kernels          time the GPU kernels (NTT, G1/G2 MSM)\n"
    "\n"
    "Daemon (docs/API.md):\n"
    "  serve [--listen ADDR:PORT] [--state-dir DIR] [--config FILE] [--foreground]\n"
    "                         run the proving daemon (HTTP API, durable queue, key cache)\n"
    "  submit <circuit.zkey|KEY_ID> <witness.wtns>\n"
    "                         queue a proof on the daemon, print the job id\n"
    "  await <JOB_ID> [proof.json public.json]\n"
    "                         wait for a job (across daemon restarts), write its proof\n"
    "  status [JOB_ID]        the daemon's or a job's status (JSON)\n"
    "  cancel <JOB_ID>        cancel a queued or running job\n"
    "  workers pause|resume|admit [N]  hold or release the daemon's workers\n"
    "  prove --remote URL ... prove through the daemon (same arguments as prove)\n"
    "  bench serve --key K --witness W [-n N] [-c C]\n"
    "                         load-test a daemon (throughput, latency percentiles)\n"
    "  version                print the version\n"
    "\n"
    "Run 'cuzk <command> --help' for the options of a command.\n"
    "Exit codes: 0 ok, 1 usage, 2 I/O, 3 malformed file, 4 inputs disagree, 5 invalid proof,\n"
    "            6 out of memory, 7 unsupported, 8 GPU, 9 cancelled, 10 internal error,\n"
    "            11 the daemon refused the request.\n";

/* A --token given as a flag is copied and blanked in place, so that ps and
 * /proc/PID/cmdline show "--token ***..." from here on (the moment before
 * remains: --token-file and $CUZK_TOKEN are the safe ways). */
static void hide_token(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        char *v = NULL;
        if (!strcmp(argv[i], "--token") && i + 1 < argc)
            v = argv[++i];
        else if (!strncmp(argv[i], "--token=", 8))
            v = argv[i] + 8;
        if (!v || !*v)
            continue;
        char *copy = strdup(argv[i]);
        if (!copy)
            continue;
        memset(v, '*', strlen(v));
        argv[i] = copy;
    }
}

int main(int argc, char **argv)
{
    hide_token(argc, argv);
    if (argc < 2)
        return cli_usage_error(NULL, "no command given");
    const char *cmd = argv[1];
    /* CUZK_NO_IFMA=1: the CPU code's scalar path instead of AVX-512 IFMA
     * (same results; for comparisons) */
    const char *no_ifma = getenv("CUZK_NO_IFMA");
    if (no_ifma && *no_ifma && strcmp(no_ifma, "0") != 0)
        cuzk_dev_set_ifma(0);
    static const struct {
        const char *name;
        int (*fn)(int, char **);
    } cmds[] = {
        {"prove", cmd_prove},   {"verify", cmd_verify},       {"setup", cmd_setup},
        {"gen", cmd_gen},       {"export-vk", cmd_export_vk}, {"info", cmd_info},
        {"plan", cmd_plan},     {"filecoin", cmd_filecoin},
        {"selftest", cmd_selftest}, {"bench", cmd_bench}, /* cmd_gpu.c */
        {"serve", cmd_serve},   {"submit", cmd_submit},       {"await", cmd_await},
        {"status", cmd_status}, {"cancel", cmd_cancel},       {"workers", cmd_workers},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(cmd, cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1);
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("cuzk %s\n", cuzk_version());
        return 0;
    }
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
