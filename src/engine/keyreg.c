/* DESIGN — the host's key registry (keyreg.h) on its own SQLite file.
 *
 * One table, path -> (content id, stat identity, bytes when loaded). It is
 * a cache of hashes, so commits are not flushed (synchronous=NORMAL in WAL
 * mode: a crash of the process loses nothing, a power loss at worst a
 * record, which costs one re-hash). Older state directories kept it in the
 * job journal (journal.db, table cuzk_keys): a new registry file copies
 * those rows once, in the transaction that creates it. */
#include "engine/keyreg.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/common.h"

struct eng_keyreg {
    sqlite3 *db;
    char path[CUZK_CFG_STR_MAX];
};

#define KEY_COLS "key_id, path, file_bytes, mtime_ns, inode, dev, host_bytes"

static const char SCHEMA[] =
    "CREATE TABLE IF NOT EXISTS cuzk_keys (key_id TEXT NOT NULL, path TEXT PRIMARY KEY,"
    " file_bytes INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL,"
    " dev INTEGER NOT NULL, host_bytes INTEGER NOT NULL DEFAULT 0);";

static cuzk_status db_err(const eng_keyreg *r, cuzk_error *err, const char *what)
{
    int rc = sqlite3_errcode(r->db);
    cuzk_status code = rc == SQLITE_FULL ? (cuzk_status)CUZK_ENGINE_NO_SPACE
                       : rc == SQLITE_IOERR || rc == SQLITE_CANTOPEN || rc == SQLITE_READONLY
                           ? (cuzk_status)CUZK_ENGINE_UNAVAILABLE
                       : rc == SQLITE_NOMEM ? CUZK_ERR_NOMEM
                                            : CUZK_ERR_INTERNAL;
    return cuzk_err_force(err, code, "%s: %s: %s", r->path, what, sqlite3_errmsg(r->db));
}

/* Copies an older journal's keys into a registry that has none yet (one
 * transaction: a crash leaves the registry empty and the next start tries
 * again). */
static int import_keys(eng_keyreg *r, const char *from)
{
    if (!from || access(from, F_OK))
        return SQLITE_OK;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(r->db, "ATTACH DATABASE ? AS old", -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(s, 1, from, -1, SQLITE_STATIC);
        rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(s);
    if (rc)
        return SQLITE_OK; /* not a journal we can read: nothing to import */
    /* A journal without the table (a newer one) has nothing to give. */
    int has = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT 1 FROM old.sqlite_master WHERE type = 'table'"
                                  " AND name = 'cuzk_keys'", -1, &s, NULL) == SQLITE_OK)
        has = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    if (has)
        rc = sqlite3_exec(r->db,
                          "BEGIN IMMEDIATE;"
                          "INSERT OR IGNORE INTO main.cuzk_keys (" KEY_COLS ")"
                          " SELECT " KEY_COLS " FROM old.cuzk_keys"
                          " WHERE NOT EXISTS (SELECT 1 FROM main.cuzk_keys) ORDER BY rowid;"
                          "COMMIT;",
                          NULL, NULL, NULL);
    if (rc) /* a cache: keys not imported are hashed again when used */
        sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_exec(r->db, "DETACH DATABASE old", NULL, NULL, NULL);
    return SQLITE_OK;
}

cuzk_status eng_keyreg_open(eng_keyreg **out, const char *path, const char *import_from,
                            cuzk_error *err)
{
    *out = NULL;
    eng_keyreg *r = calloc(1, sizeof *r);
    if (!r)
        return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
    snprintf(r->path, sizeof r->path, "%s", path);
    if (sqlite3_open_v2(path, &r->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK) {
        cuzk_status st = r->db ? db_err(r, err, "cannot open the key registry")
                               : cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: out of memory", path);
        eng_keyreg_close(r);
        return st;
    }
    sqlite3_busy_timeout(r->db, 5000);
    if (sqlite3_exec(r->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) ||
        sqlite3_exec(r->db, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) ||
        sqlite3_exec(r->db, SCHEMA, NULL, NULL, NULL) || import_keys(r, import_from)) {
        cuzk_status st = db_err(r, err, "cannot set up the key registry");
        eng_keyreg_close(r);
        return st;
    }
    *out = r;
    return CUZK_OK;
}

void eng_keyreg_close(eng_keyreg *r)
{
    if (!r)
        return;
    sqlite3_close(r->db);
    free(r);
}

cuzk_status eng_keyreg_put(eng_keyreg *r, const eng_key_rec *k, cuzk_error *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(r->db,
                                "INSERT OR REPLACE INTO cuzk_keys (" KEY_COLS ")"
                                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                                -1, &s, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_text(s, 1, k->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 2, k->path, -1, SQLITE_STATIC);
        sqlite3_bind_int64(s, 3, (int64_t)k->file_bytes);
        sqlite3_bind_int64(s, 4, k->mtime_ns);
        sqlite3_bind_int64(s, 5, (int64_t)k->inode);
        sqlite3_bind_int64(s, 6, (int64_t)k->dev);
        sqlite3_bind_int64(s, 7, (int64_t)k->host_bytes);
        rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    cuzk_status st = rc ? db_err(r, err, "key registry") : CUZK_OK;
    sqlite3_finalize(s);
    return st;
}

static void read_key(sqlite3_stmt *s, eng_key_rec *k)
{
    memset(k, 0, sizeof *k);
    const unsigned char *id = sqlite3_column_text(s, 0), *path = sqlite3_column_text(s, 1);
    snprintf(k->id, sizeof k->id, "%s", id ? (const char *)id : "");
    snprintf(k->path, sizeof k->path, "%s", path ? (const char *)path : "");
    k->file_bytes = (uint64_t)sqlite3_column_int64(s, 2);
    k->mtime_ns = sqlite3_column_int64(s, 3);
    k->inode = (uint64_t)sqlite3_column_int64(s, 4);
    k->dev = (uint64_t)sqlite3_column_int64(s, 5);
    k->host_bytes = (uint64_t)sqlite3_column_int64(s, 6);
}

cuzk_status eng_keyreg_by_path(eng_keyreg *r, const char *path, eng_key_rec *out, int *found,
                               cuzk_error *err)
{
    sqlite3_stmt *s = NULL;
    *found = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT " KEY_COLS " FROM cuzk_keys WHERE path = ?", -1, &s,
                           NULL))
        return db_err(r, err, "key registry");
    sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        read_key(s, out);
        *found = 1;
    }
    cuzk_status st = rc == SQLITE_ROW || rc == SQLITE_DONE ? CUZK_OK : db_err(r, err, "key registry");
    sqlite3_finalize(s);
    return st;
}

cuzk_status eng_keyreg_all(eng_keyreg *r, eng_key_rec **out, size_t *n, cuzk_error *err)
{
    sqlite3_stmt *s = NULL;
    *out = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(r->db, "SELECT " KEY_COLS " FROM cuzk_keys ORDER BY rowid", -1,
                           &s, NULL))
        return db_err(r, err, "key registry");
    size_t cap = 0, len = 0;
    eng_key_rec *v = NULL;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        if (len == cap) {
            cap = cap ? 2 * cap : 8;
            eng_key_rec *nv = realloc(v, cap * sizeof *v);
            if (!nv) {
                free(v);
                sqlite3_finalize(s);
                return cuzk_err_force(err, CUZK_ERR_NOMEM, "%s: key registry: out of memory",
                                      r->path);
            }
            v = nv;
        }
        read_key(s, &v[len++]);
    }
    if (rc != SQLITE_DONE) {
        cuzk_status st = db_err(r, err, "key registry");
        free(v);
        sqlite3_finalize(s);
        return st;
    }
    sqlite3_finalize(s);
    *out = v;
    *n = len;
    return CUZK_OK;
}
