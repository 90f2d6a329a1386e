/* The reference a job row holds to a witness kept on its accepting host
 * (engine_blobs.c): "blob:<sha256 hex>:<owner host id>:<owner's URL>". Pure
 * string functions, no engine state (fuzzed alone: tests/fuzz/fuzz_blobref.c). */
#ifndef CUZK_ENGINE_BLOBREF_H
#define CUZK_ENGINE_BLOBREF_H

#include <stddef.h>

#define BLOB_PREFIX "blob:"

/* 1 if h is exactly 64 lowercase hex digits (a blob's name), else 0. */
int blob_hex_ok(const char *h);

/* Parses input: 1 and sha (NUL-terminated), host (at most host_cap - 1
 * bytes) and *url (a pointer into input, may be "") when it is a blob
 * reference whose hash is 64 lowercase hex digits and whose host id has no
 * ':' and fits host_cap; else 0 (and the outputs are unspecified). */
int blob_ref_parse(const char *input, char sha[65], char *host, size_t host_cap, const char **url);

/* Writes the reference of (sha, host, url) to out (cap bytes): 0, or -1 if
 * it does not fit or host holds ':' (out is then ""). */
int blob_ref_format(char *out, size_t cap, const char *sha, const char *host, const char *url);

#endif
