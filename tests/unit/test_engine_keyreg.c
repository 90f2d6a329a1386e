/* The host's key registry (src/engine/keyreg.h): records by path survive a
 * reopen, a re-put replaces, and a new registry takes the keys an older
 * state directory kept in its SQLite journal (table cuzk_keys) once, never
 * over records it already has. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "engine/keyreg.h"

#include "fixture_util.h"

static int setup(void **state)
{
    (void)state;
    fx_setup("keyreg");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return fx_teardown();
}

static eng_key_rec rec(const char *id, const char *path, uint64_t host_bytes)
{
    eng_key_rec k;
    memset(&k, 0, sizeof k);
    snprintf(k.id, sizeof k.id, "%s", id);
    snprintf(k.path, sizeof k.path, "%s", path);
    k.file_bytes = 1000;
    k.mtime_ns = 123456789012345;
    k.inode = 77;
    k.dev = 5;
    k.host_bytes = host_bytes;
    return k;
}

static eng_keyreg *ropen(const char *import)
{
    eng_keyreg *r = NULL;
    cuzk_error err = {0};
    cuzk_status st = eng_keyreg_open(&r, T("keys.db"), import, &err);
    if (st)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(st, CUZK_OK);
    return r;
}

static void test_keyreg_roundtrip(void **state)
{
    (void)state;
    cuzk_error err = {0};
    eng_keyreg *r = ropen(NULL);
    eng_key_rec a = rec("aa", "/k/a.zkey", 0), b = rec("bb", "/k/b.zkey", 42), got;
    int found = -1;
    assert_int_equal(eng_keyreg_by_path(r, "/k/a.zkey", &got, &found, &err), CUZK_OK);
    assert_int_equal(found, 0);
    assert_int_equal(eng_keyreg_put(r, &a, &err), CUZK_OK);
    assert_int_equal(eng_keyreg_put(r, &b, &err), CUZK_OK);
    a.host_bytes = 9; /* a re-put replaces */
    assert_int_equal(eng_keyreg_put(r, &a, &err), CUZK_OK);
    eng_keyreg_close(r);

    r = ropen(NULL);
    assert_int_equal(eng_keyreg_by_path(r, "/k/a.zkey", &got, &found, &err), CUZK_OK);
    assert_int_equal(found, 1);
    assert_string_equal(got.id, "aa");
    assert_int_equal(got.host_bytes, 9);
    assert_int_equal(got.mtime_ns, a.mtime_ns);
    assert_int_equal(got.inode, 77);
    assert_int_equal(got.dev, 5);
    assert_int_equal(got.file_bytes, 1000);
    eng_key_rec *v = NULL;
    size_t n = 0;
    assert_int_equal(eng_keyreg_all(r, &v, &n, &err), CUZK_OK);
    assert_int_equal(n, 2);
    free(v);
    eng_keyreg_close(r);
}

/* An older journal's keys table, written with SQLite directly. */
static void old_journal(const char *path, const char *rows)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char sql[1024];
    snprintf(sql, sizeof sql,
             "CREATE TABLE cuzk_keys (key_id TEXT NOT NULL, path TEXT PRIMARY KEY,"
             " file_bytes INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, inode INTEGER NOT NULL,"
             " dev INTEGER NOT NULL, host_bytes INTEGER NOT NULL DEFAULT 0);"
             "INSERT INTO cuzk_keys VALUES %s;",
             rows);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void test_keyreg_import(void **state)
{
    (void)state;
    cuzk_error err = {0};
    char journal[512];
    snprintf(journal, sizeof journal, "%s", T("journal.db"));
    old_journal(journal, "('c1', '/old/c.zkey', 10, 11, 12, 13, 14), ('d1', '/old/d.zkey', 1, 2, 3, 4, 0)");
    eng_keyreg *r = ropen(journal);
    eng_key_rec got;
    int found = 0;
    assert_int_equal(eng_keyreg_by_path(r, "/old/c.zkey", &got, &found, &err), CUZK_OK);
    assert_int_equal(found, 1);
    assert_string_equal(got.id, "c1");
    assert_int_equal(got.file_bytes, 10);
    assert_int_equal(got.mtime_ns, 11);
    assert_int_equal(got.inode, 12);
    assert_int_equal(got.dev, 13);
    assert_int_equal(got.host_bytes, 14);
    /* the registry's own record wins over a later journal row; no re-import */
    eng_key_rec c = rec("c2", "/old/c.zkey", 5);
    assert_int_equal(eng_keyreg_put(r, &c, &err), CUZK_OK);
    eng_keyreg_close(r);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(journal, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "INSERT INTO cuzk_keys VALUES ('e1', '/old/e.zkey', 1, 1, 1, 1, 1)",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    r = ropen(journal);
    assert_int_equal(eng_keyreg_by_path(r, "/old/c.zkey", &got, &found, &err), CUZK_OK);
    assert_string_equal(got.id, "c2");
    assert_int_equal(eng_keyreg_by_path(r, "/old/e.zkey", &got, &found, &err), CUZK_OK);
    assert_int_equal(found, 0);
    eng_key_rec *v = NULL;
    size_t n = 0;
    assert_int_equal(eng_keyreg_all(r, &v, &n, &err), CUZK_OK);
    assert_int_equal(n, 2);
    free(v);
    eng_keyreg_close(r);
}

/* A journal without the table (or not a database at all) gives nothing and
 * is no error. */
static void test_keyreg_import_nothing(void **state)
{
    (void)state;
    cuzk_error err = {0};
    FILE *f = fopen(T("journal.db"), "w");
    assert_non_null(f);
    fputs("not a database", f);
    fclose(f);
    eng_keyreg *r = ropen(T("journal.db"));
    eng_key_rec *v = NULL;
    size_t n = 7;
    assert_int_equal(eng_keyreg_all(r, &v, &n, &err), CUZK_OK);
    assert_int_equal(n, 0);
    free(v);
    eng_keyreg_close(r);
}

static void test_keyreg_bad_path(void **state)
{
    (void)state;
    eng_keyreg *r = NULL;
    cuzk_error err = {0};
    assert_int_not_equal(eng_keyreg_open(&r, "/nonexistent-dir/x/keys.db", NULL, &err), CUZK_OK);
    assert_null(r);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x/keys.db"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_keyreg_roundtrip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyreg_import, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyreg_import_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keyreg_bad_path, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
