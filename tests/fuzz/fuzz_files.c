/* The readers through a real file, as the commands use them: the input is
 * written to a temporary file and read by every reader its first byte picks
 * (zkey mapped in place after its layout is read with pread; zkey read with
 * pread only, never mapped, as cuzk_key_load does by default; r1cs and wtns,
 * read with pread; and the three JSON readers, which bound the size and
 * check the text as JSON.parse would before parsing; the wtns streaming
 * check beside the wtns reader, which it must agree with). Errors must be
 * one line naming the file. */
#include <stdio.h>
#include <unistd.h>

#include "fuzz_common.h"

static char g_path[64];

static void remove_file(void) { unlink(g_path); }

static const char *file_of(const uint8_t *data, size_t size)
{
    if (!g_path[0]) {
        snprintf(g_path, sizeof g_path, "/tmp/cuzk-fuzz-files.%d", (int)getpid());
        atexit(remove_file);
    }
    FILE *fp = fopen(g_path, "wb");
    if (!fp)
        return NULL;
    if (size && fwrite(data, 1, size, fp) != size) {
        fclose(fp);
        return NULL;
    }
    return fclose(fp) == 0 ? g_path : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *p = file_of(data + 1, size - 1);
    if (!p)
        return 0;
    cuzk_error e = {0};
    cuzk_status st;
    switch (data[0] % 7) {
    case 0:
    case 1: {
        cuzk_zkey zk;
        cuzk_zkey_read_opts o = {.copy_points = data[0] % 7 == 1, .coefs_in_place = data[0] % 7 == 0};
        st = cuzk_zkey_read(&zk, p, &o, &e);
        fuzz_check_error(st, &e, p);
        if (!st)
            cuzk_zkey_free(&zk);
        break;
    }
    case 2: {
        cuzk_r1cs r;
        st = cuzk_r1cs_read(&r, p, &e);
        fuzz_check_error(st, &e, p);
        if (!st)
            cuzk_r1cs_free(&r);
        break;
    }
    case 3: {
        cuzk_wtns w;
        st = cuzk_wtns_read(&w, p, &e);
        fuzz_check_error(st, &e, p);
        /* The streaming check (a daemon's spooled witness) agrees with the
         * reader: same verdict, same curve and count; messages name it. */
        cuzk_error e2 = {0};
        cuzk_curve curve = CUZK_CURVE_NONE;
        uint32_t n = 0;
        cuzk_status st2 = cuzk_wtns_check_file(p, "witness", &curve, &n, &e2);
        fuzz_check_error(st2, &e2, "witness");
        if (st != CUZK_ERR_NOMEM)
            FUZZ_ASSERT(st2 == st);
        if (!st) {
            FUZZ_ASSERT(curve == w.curve && n == w.n_witness);
            cuzk_wtns_free(&w);
        }
        break;
    }
    case 4: {
        cuzk_vk vk;
        st = cuzk_vk_read_json(&vk, p, &e);
        fuzz_check_error(st, &e, p);
        if (!st)
            cuzk_vk_free(&vk);
        break;
    }
    case 5: {
        cuzk_proof_points pf;
        st = cuzk_proof_points_read_json(&pf, p, CUZK_CURVE_NONE, &e);
        fuzz_check_error(st, &e, p);
        break;
    }
    default: {
        cuzk_public pub;
        st = cuzk_public_read_json(&pub, p, (data[0] & 8) ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254, &e);
        fuzz_check_error(st, &e, p);
        /* A NUL never gets through (JSON.parse's reading: snarkjs rejects it). */
        if (!st)
            FUZZ_ASSERT(!memchr(data + 1, 0, size - 1));
        /* The streamed count (verify's first look) agrees with the read. */
        size_t count;
        cuzk_error e2 = {0};
        cuzk_status cst = cuzk_public_count_json(p, &count, &e2);
        fuzz_check_error(cst, &e2, p);
        if (!st)
            FUZZ_ASSERT(cst == CUZK_OK && (count == SIZE_MAX || count == pub.n));
        if (!st)
            cuzk_public_free(&pub);
        break;
    }
    }
    return 0;
}
