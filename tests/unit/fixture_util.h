/* What the Groth16 tests share (test_groth16.c, test_prove_api.c): the
 * snarkjs fixture circuits of tests/data/formats (per curve directory: the
 * circuit, its zkey, witness, proof, public signals and verification key, all
 * made by circom + snarkjs), a scratch directory per test program, file
 * helpers and a context. */
#ifndef CUZK_TEST_FIXTURE_UTIL_H
#define CUZK_TEST_FIXTURE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/cuzk.h"

#define FX_DIR CUZK_TEST_DATA_DIR "/formats"

static char fx_tmpdir[256];

/* Makes the scratch directory /tmp/cuzk-test-<tag>-XXXXXX (cmocka group setup). */
static inline int fx_setup(const char *tag)
{
    snprintf(fx_tmpdir, sizeof fx_tmpdir, "/tmp/cuzk-test-%s-XXXXXX", tag);
    assert_non_null(mkdtemp(fx_tmpdir));
    return 0;
}

/* Removes it with everything in it (cmocka group teardown). */
static inline int fx_teardown(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx_tmpdir);
    return system(cmd);
}

/* A file of the fixture directory `dir` (rotating static buffers: up to 8
 * results in use at once; T the same). */
static inline const char *P(const char *dir, const char *file)
{
    static char buf[8][1024];
    static int k;
    char *b = buf[k++ & 7];
    snprintf(b, 1024, "%s/%s/%s", FX_DIR, dir, file);
    return b;
}

/* A file of the scratch directory. */
static inline const char *T(const char *file)
{
    static char buf[8][1024];
    static int k;
    char *b = buf[k++ & 7];
    snprintf(b, 1024, "%s/%s", fx_tmpdir, file);
    return b;
}

/* The whole file, NUL-terminated (malloc'd); the file must exist. */
static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = 0;
    fclose(f);
    if (len) *len = got;
    return buf;
}

static inline void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A context of 2 threads, on `pool` if not NULL. */
static inline cuzk_ctx *mkctx(cuzk_pool *pool)
{
    cuzk_ctx *ctx = NULL;
    cuzk_error err = {0};
    cuzk_ctx_opts o = {.threads = 2, .pool = pool};
    assert_int_equal(cuzk_ctx_create(&ctx, &o, &err), CUZK_OK);
    return ctx;
}

#endif
