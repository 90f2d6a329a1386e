/* Shared pieces of the client commands (cmd_remote.c, cmd_bench_serve.c). */
#ifndef CUZK_CLI_REMOTE_H
#define CUZK_CLI_REMOTE_H

#include <stddef.h>

#include "cli.h"
#include "client/client.h"

/* Exit code when the daemon refuses a request (unknown job or key, queue
 * full, draining, too large, conflict). */
#define REMOTE_EXIT_REFUSED 11

/* The daemon's address and credentials, options shared by every client
 * command: --url, --token, --token-file. */
typedef struct remote_conn {
    const char *url, *token, *token_file;
    char tokbuf[1024]; /* the token read from token_file */
} remote_conn;

#define REMOTE_DEFAULT_URL "http://127.0.0.1:9820"

/* Their help lines, as the client commands print them. */
#define REMOTE_CONN_HELP                                                             \
    "  --url URL        daemon (default $CUZK_URL or " REMOTE_DEFAULT_URL ")\n"      \
    "  --token TOKEN    bearer token (default $CUZK_TOKEN; a flag shows in ps)\n"       \
    "  --token-file F   bearer token from this file's first line\n"

/* cli_parse of a client command: its own table (opts, may be NULL) and the
 * connection options into *rc, then the token file read. Returns -1 to go
 * on, or the exit code to return now (0 after --help, 1 usage, 2 the token
 * file). */
int remote_parse(int argc, char **argv, const cli_opt *opts, remote_conn *rc, cli_common *common,
                 const char **pos, int max_pos, int *npos, const char *usage);

/* Opens a client on url (NULL: $CUZK_URL, else the default) with token
 * (NULL: $CUZK_TOKEN). */
cuzk_status remote_open(cuzk_client **c, const char *url, const char *token, cuzk_error *err);
/* With no --token (*token NULL) and a --token-file: *token = the file's
 * first line (in buf). 0, or prints "Error: ..." and returns the exit code. */
int remote_token_file(const char **token, const char *token_file, char *buf, size_t cap);
/* Prints "Error: ..." and returns the exit code for err. */
int remote_fail(const cuzk_error *err);
/* Reads a whole regular file (malloc'd, NUL-terminated). */
cuzk_status read_file_all(const char *path, char **out, size_t *len, cuzk_error *err);
/* 32 random hex characters (an idempotency key). */
void random_token(char *out, size_t cap);

/* cuzk prove --remote URL ...: submit, await across restarts, write the files. */
int cli_prove_remote(const char *url, const char *token, const char *priority, const char *zkey,
                     const char *wtns, const char *proof_path, const char *public_path, int verbose);

int cmd_serve(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_await(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_workers(int argc, char **argv);
int cmd_bench_serve(int argc, char **argv);

#endif
