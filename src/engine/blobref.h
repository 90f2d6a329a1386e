/* What a job row says of its witness (eng_job.witness): its content id,
 * the SHA-256 of the bytes and where they are, never a path of one host:
 *
 *   inline:<sha256 hex>                   in the queue, with the job
 *   spool:<sha256 hex>                    in the accepting host's spool (a
 *                                         queue of one host: SQLite); that
 *                                         host keeps it as <spool>/<job id>.wtns
 *   blob:<sha256 hex>:<owner>:<URL>       on its accepting host (engine_blobs.c),
 *                                         <sha256>.wtns in its blob directory,
 *                                         served at <URL>/v1/blobs/<sha256>
 *
 * A job journaled before content ids (SQLite queue version 0, PostgreSQL
 * schema 3) reads as "inline:" or "spool:" without a hash (the migration
 * rewrote "" and "<id>.wtns"; "" is still read as "inline:"). Pure string
 * functions, no engine state (fuzzed alone: tests/fuzz/fuzz_blobref.c). */
#ifndef CUZK_ENGINE_BLOBREF_H
#define CUZK_ENGINE_BLOBREF_H

#include <stddef.h>

#define BLOB_PREFIX "blob:"
#define INLINE_PREFIX "inline:"
#define SPOOL_PREFIX "spool:"

enum { WREF_INLINE = 1, WREF_SPOOL = 2, WREF_BLOB = 3 };

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

/* The kind of a witness reference (WREF_*) and its hash in sha ("" for a
 * job from before content ids), or 0 if ref is none of the forms above
 * (sha is then ""). A blob's host and URL: blob_ref_parse. */
int witness_ref_kind(const char *ref, char sha[65]);

/* Writes "inline:<sha>" or "spool:<sha>" (kind WREF_INLINE / WREF_SPOOL, sha
 * 64 lowercase hex digits) to out: 0, or -1 if it does not fit or the
 * arguments are wrong (out is then ""). */
int witness_ref_format(char *out, size_t cap, int kind, const char *sha);

#endif
