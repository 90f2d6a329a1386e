/* Shared pieces of the cuzk command-line tool. */
#ifndef CUZK_CLI_H
#define CUZK_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "cuzk/cuzk.h"

/* Options common to every command. */
typedef struct cli_common {
    int threads;
    int verbose;   /* -v: per-phase timing lines on stderr */
    int quiet;     /* -q: no progress bar */
} cli_common;

/* What an option takes (cli_opt.takes_value). */
enum {
    CLI_FLAG = 0,     /* no value: *flag = 1 */
    CLI_VALUE = 1,    /* a value, "--name V" or "--name=V": *value = V */
    CLI_OPTIONAL = 2, /* an optional value, only as "--name=V": *value = V, or "" when absent */
};

/* Option table entry for cli_parse: a command's table is an array of these
 * ended by an entry with a NULL long_name. */
typedef struct cli_opt {
    const char *long_name; /* without "--" */
    char short_name;       /* 0 if none */
    int takes_value;       /* CLI_FLAG, CLI_VALUE or CLI_OPTIONAL */
    const char **value;    /* where the value goes (CLI_VALUE, CLI_OPTIONAL) */
    int *flag;             /* set to 1 when present (CLI_FLAG) */
} cli_opt;

/* The one option parser: getopt_long over the tables given (options and
 * positionals in any order, "--" ends the options, unique prefixes of long
 * names accepted). *first_pos = the index of the first positional in argv
 * after getopt_long's reordering. Returns 0, or 1 after a one-line usage
 * error (unknown or ambiguous option, a missing value, a value given to a
 * flag). */
int cli_getopt(int argc, char **argv, const cli_opt *const *tables, int ntables, const char *usage,
               int *first_pos);

/* Parses argv[1..] into options (command-specific table + the common ones)
 * and positionals, with cli_getopt. Returns 0 ok, 1 on a usage error
 * (message printed), 2 if --help was given (usage printed). */
int cli_parse(int argc, char **argv, const cli_opt *opts, cli_common *common,
              const char **pos, int max_pos, int *npos, const char *usage);
/* cli_parse over several tables (e.g. a command's own and a shared one). */
int cli_parse_tables(int argc, char **argv, const cli_opt *const *tables, int ntables, cli_common *common,
                     const char **pos, int max_pos, int *npos, const char *usage);

/* cli_parse plus a check that exactly n positionals were given. Returns -1
 * to go on, or the exit code to return now (0 after --help). */
int cli_parse_exact(int argc, char **argv, const cli_opt *opts, cli_common *common,
                    const char **pos, int n, const char *cmd, const char *usage);

/* Prints a usage error as one line with a hint to --help; returns 1. */
int cli_usage_error(const char *usage, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The value of a --gpu[=D] option (a CLI_OPTIONAL entry): NULL absent
 * (nothing changes), "" alone (*gpu = 1), a device number 0..1023 (*gpu = 1,
 * *device) or, with allow_auto, "auto" (*gpu = 2). Returns 0, or 1 after a
 * one-line usage error. */
int cli_gpu_arg(const char *v, int allow_auto, int *gpu, int *device, const char *usage);

/* The value of option --name (last one wins) without parsing the rest: for a
 * command whose option table depends on it (--format). Other options and
 * arguments are skipped and argv is left as it is. Returns 0, or 1 when the
 * option is given without a value (nothing printed). */
int cli_peek(int argc, char **argv, const char *name, const char **value);

/* Creates a context wired to the progress bar / timing lines. */
cuzk_status cli_make_ctx(cuzk_ctx **ctx, const cli_common *common, cuzk_error *err);
/* Prints "Error: <msg>" and returns the exit code for err. */
int cli_fail(const cuzk_error *err);
void cli_progress_done(void);
/* For a command that uses `path` through a mapping: a SIGBUS (the file
 * truncated or rewritten in place under it) prints one line naming the
 * file and exits 2 (I/O). Only for a command that has written nothing yet
 * when the mapping is read. */
void cli_catch_sigbus(const char *path);
/* Monotonic wall clock, seconds. */
double cli_now(void);

/* Timelines (`--trace FILE`, src/cli/cli_trace.c): spans as Chrome trace
 * events, host phases on a lane per worker, device work on a lane per CUDA
 * stream. Thread-safe. Errors name the file. */
typedef struct cli_tracer cli_tracer;
cuzk_status cli_tracer_open(cli_tracer **out, const char *path, cuzk_error *err);
/* worker: the host lane of the thread that reported sp. NULL tr: ignored. */
void cli_tracer_span(cli_tracer *tr, int worker, const cuzk_span *sp);
/* Spans from now on go to a new group of lanes named "label: ..." (one
 * group per benchmark run). NULL tr: ignored. */
void cli_tracer_section(cli_tracer *tr, const char *label);
/* Finishes the file (CUZK_ERR_IO if a write failed); frees tr. */
cuzk_status cli_tracer_close(cli_tracer *tr, cuzk_error *err);
/* The next cli_make_ctx contexts report their spans to tr (NULL: none). */
void cli_trace_to(cli_tracer *tr);
/* A prove command's run: fn(ctx, user, err) in a context from common
 * (cli_make_ctx), then -v's total line; with trace (a path, or NULL) its
 * timeline written to that file, kept (valid) after an error too. Returns
 * the exit code: fn's error first, then the trace's. */
typedef cuzk_status (*cli_run_fn)(cuzk_ctx *ctx, void *user, cuzk_error *err);
int cli_run_traced(const cli_common *common, const char *trace, cli_run_fn fn, void *user);
/* A phase the command ran itself outside the library's timed operations
 * (e.g. loading a witness, writing a proof): its timing line with -v and
 * its span in the trace. t0, t1: cli_now() seconds. */
void cli_phase_done(cuzk_phase phase, double t0, double t1);
/* A "CUZK_TIMING phase=gpu.<name> ms=<device ms> ..." line for a device
 * span (what -v prints beside the host phases). */
void cli_print_device_span(const cuzk_span *sp);

/* Parses a byte size: a number with an optional binary unit K, M, G, T (also
 * KiB, GB, ...: all powers of 1024), e.g. "16G", "1.5T", "8589934592".
 * Returns 0, or 1 (nothing printed) when s is not such a size. */
int cli_parse_size(const char *s, size_t *out);
#define CLI_SIZE_HELP "a size such as 16G, 8192M or a byte count"

/* --stage-bases auto|yes|no: *out = 0, 1 or -1 (cuzk_gpu_plan_opts.stage_bases).
 * Returns 0, or 1 after a one-line usage error. */
int cli_parse_stage_bases(const char *s, int *out, const char *usage);
#define CLI_STAGE_BASES_HELP                                                                  \
    "  --stage-bases auto|yes|no  streamed MSM bases copied through page-locked\n"            \
    "                  chunks at each proof (yes) or page-locked whole at load (no);\n"       \
    "                  auto (default): locked, unless the key is used in its file\n"         \
    "                  mapping and the host plan with them locked does not fit\n"           \
    "                  the host memory (--host-mem); staged costs about 20 % a\n"          \
    "                  proof where bases are streamed (tiers 4-7)\n"

/* The --format option of prove / verify / setup (cli_peek): *fmt = F or
 * NULL. F must be snarkjs or bellperson. Returns 0, or 1 after a one-line
 * usage error. The commands' tables carry "format" too, so that the full
 * parse accepts it. */
int cli_take_format(int argc, char **argv, const char **fmt, const char *usage);
/* `prove` / `setup` with --format bellperson (cmd_bellperson.c); argv
 * as given. */
int cmd_prove_bellperson(int argc, char **argv);
int cmd_setup_bellperson(int argc, char **argv);

int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_setup(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_export_vk(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_filecoin(int argc, char **argv);

#endif
