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

/* Option table entry for cli_parse. */
typedef struct cli_opt {
    const char *long_name; /* without "--" */
    char short_name;       /* 0 if none */
    int takes_value;
    const char **value;    /* where the value goes (takes_value) */
    int *flag;             /* set to 1 when present (!takes_value) */
} cli_opt;

/* Parses argv[1..] into options (command-specific table + the common ones)
 * and positionals. Returns 0 ok, 1 on a usage error (message printed),
 * 2 if --help was given (usage printed). */
int cli_parse(int argc, char **argv, const cli_opt *opts, cli_common *common,
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

/* Takes --gpu, --gpu=D (a device number 0..1023) and, with allow_auto,
 * --gpu=auto out of argv (up to a "--"), before cli_parse, whose table has
 * no optional values. *gpu: 0 absent, 1 a device (*device, default 0), 2
 * auto. Returns 0, or 1 after a one-line usage error. */
int cli_take_gpu(int *argc, char **argv, int allow_auto, int *gpu, int *device, const char *usage);

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

/* Takes --format F / --format=F out of argv (up to a "--"): *fmt = F or
 * NULL. F must be snarkjs or bellperson. Returns 0, or 1 after a one-line
 * usage error. */
int cli_take_format(int *argc, char **argv, const char **fmt, const char *usage);
/* `prove` / `setup` with --format bellperson (cmd_bellperson.c); argv
 * without the --format option. */
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
