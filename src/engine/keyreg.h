/* The host's key registry: which key file (path and stat identity) has
 * which content id (SHA-256), and how much memory it took when last loaded,
 * so a restart neither re-hashes an unchanged file nor plans blind. Paths
 * are this host's, so the registry is host-local (a small SQLite file in
 * the state directory, whatever the job queue is), not part of the queue
 * (queue.h), which several hosts may share.
 *
 * A cache: losing it costs a re-hash at the next use of each key, nothing
 * else (a job names its key by id and path). Not thread-safe: the engine
 * serialises calls. */
#ifndef CUZK_ENGINE_KEYREG_H
#define CUZK_ENGINE_KEYREG_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* A registered key's identity (the stat fields tell whether it changed). */
typedef struct eng_key_rec {
    char id[CUZK_KEY_ID_LEN + 1];
    char path[CUZK_CFG_STR_MAX];
    uint64_t file_bytes;
    int64_t mtime_ns;
    uint64_t inode, dev;
    uint64_t host_bytes;     /* memory it took when last loaded (0 = never loaded) */
} eng_key_rec;

typedef struct eng_keyreg eng_keyreg;

/* Opens (creating) the registry file `path`. A new file takes the keys an
 * older state directory kept in `import_from` (the SQLite job journal,
 * which held them before; NULL or a missing file = none). Errors name
 * the file. */
cuzk_status eng_keyreg_open(eng_keyreg **out, const char *path, const char *import_from,
                            cuzk_error *err);
void eng_keyreg_close(eng_keyreg *r);
/* Adds or replaces the record of k->path. */
cuzk_status eng_keyreg_put(eng_keyreg *r, const eng_key_rec *k, cuzk_error *err);
/* The record of `path`: *found = 0 if none. */
cuzk_status eng_keyreg_by_path(eng_keyreg *r, const char *path, eng_key_rec *out, int *found,
                               cuzk_error *err);
/* Every record, oldest first (malloc'd, free()). */
cuzk_status eng_keyreg_all(eng_keyreg *r, eng_key_rec **out, size_t *n, cuzk_error *err);

#endif
