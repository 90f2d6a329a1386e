/* Shared pieces of the client commands (cmd_remote.c, cmd_bench_serve.c). */
#ifndef CUZK_CLI_REMOTE_H
#define CUZK_CLI_REMOTE_H

#include <stddef.h>

#include "client/client.h"

/* Exit code when the daemon refuses a request (unknown job or key, queue
 * full, draining, too large, conflict). */
#define REMOTE_EXIT_REFUSED 11

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
