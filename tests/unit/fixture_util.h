/* What the Groth16 tests share (test_groth16.c, test_prove_api.c,
 * test_setup.c, test_porep.c, test_gen.c, ...): the snarkjs fixture circuits
 * of tests/data/formats (per curve directory: the circuit, its zkey, witness,
 * proof, public signals and verification key, all made by circom + snarkjs),
 * a scratch directory per test program, file helpers, a context and fixed
 * toxic waste for keys that must come out the same every run. */
#ifndef CUZK_TEST_FIXTURE_UTIL_H
#define CUZK_TEST_FIXTURE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/cuzk.h"
#include "groth16/setup.h"

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
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    if (len) *len = (size_t)n;
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

/* Arbitrary fixed toxic waste (all < 2^250, so < r on both curves). */
static const cuzk_setup_toxic TOXIC = {
    {0x243f6a8885a308d3ull, 0x13198a2e03707344ull, 0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull},
    {0x452821e638d01377ull, 0xbe5466cf34e90c6cull, 0xc0ac29b7c97c50ddull, 0x03f84d5b5b547091ull},
    {0x9216d5d98979fb1bull, 0xd1310ba698dfb5acull, 0x2ffd72dbd01adfb7ull, 0x0b8e1afed6a267e9ull},
    {0x6a267e96ba7c9045ull, 0xf12c7f9924a19947ull, 0xb3916cf70801f2e2ull, 0x0858efc16636920dull},
};

#endif
