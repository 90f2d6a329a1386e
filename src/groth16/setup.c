/* `cuzk setup`: INSECURE development trusted setup (see setup_impl.h).
 *
 * !!! INSECURE: the toxic waste is drawn and used inside this process; whoever
 * !!! can read its memory (or a core dump) can forge proofs. Tests and
 * !!! benchmarks only.
 *
 * Reads an r1cs of either curve, builds the whole key in memory and writes it
 * through the output writer (temporary file + rename), so a failure leaves no
 * partial file. */
#include <stdio.h>
#include <string.h>

#include "cuzk/dev.h"
#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "formats/formats.h"
#include "groth16/ctx.h"
#include "groth16/setup.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/common.h"

/* memset that the optimiser may not drop (the buffers die right after). */
static void setup_wipe(void *p, size_t n)
{
    volatile unsigned char *q = p;
    while (n--)
        *q++ = 0;
}

#define SETUP_CURVE bn254
#include "groth16/setup_impl.h"

#define SETUP_CURVE bls12_381
#include "groth16/setup_impl.h"

/* The instantiations above, by curve description id. */
static const struct {
    const char *id;
    cuzk_status (*build)(cuzk_ctx *, const cuzk_r1cs *, const cuzk_setup_toxic *, cuzk_zkey *, cuzk_error *);
} SETUP_CURVES[] = {{"bn254", bn254_setup_build_raw}, {"bls12_381", bls12_381_setup_build_raw}};

cuzk_status cuzk_setup_build(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_setup_toxic *toxic,
                             cuzk_zkey *zk, cuzk_error *err)
{
    memset(zk, 0, sizeof *zk);
    const cuzk_curve_desc *d = cuzk_curve_desc_get(r->curve);
    for (size_t i = 0; d && i < CUZK_ARRAY_LEN(SETUP_CURVES); i++)
        if (!strcmp(SETUP_CURVES[i].id, d->id))
            return SETUP_CURVES[i].build(ctx, r, toxic, zk, err);
    return cuzk_err(err, CUZK_ERR_UNSUPPORTED, "setup: unsupported curve %d", (int)r->curve);
}

cuzk_status cuzk_setup_files_with_toxic(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path,
                                        const cuzk_setup_toxic *toxic, cuzk_error *err)
{
    if (!ctx || !r1cs_path || !zkey_path)
        return cuzk_err(err, CUZK_ERR_USAGE, "setup: missing argument");
    cuzk_r1cs r;
    cuzk_zkey zk;
    cuzk_oset os;
    cuzk_afile *fo = NULL;
    memset(&r, 0, sizeof r);
    memset(&zk, 0, sizeof zk);
    cuzk_oset_init(&os, ctx->opts.cancelled, ctx->opts.user);
    cuzk_status st = cuzk_oset_input(&os, r1cs_path, err);
    if (st || (st = cuzk_oset_output(&os, zkey_path, &fo, err)))
        goto out;
    cuzk_phase_timer ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_READ);
    if ((st = cuzk_r1cs_read(&r, r1cs_path, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
    if ((st = cuzk_setup_build(ctx, &r, toxic, &zk, err))) {
        /* Messages from the build name no file: say which circuit. */
        if (err && strncmp(err->msg, r1cs_path, strlen(r1cs_path)) != 0) {
            char msg[CUZK_ERROR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", err->msg);
            cuzk_err_force(err, st, "%s: %s", r1cs_path, msg);
        }
        goto out;
    }
    cuzk_r1cs_free(&r);
    ph = cuzk_phase_begin(ctx, CUZK_PHASE_SETUP_WRITE);
    if ((st = cuzk_oset_open(&os, err)) || (st = cuzk_zkey_write_to(&zk, fo, err)) ||
        (st = cuzk_oset_commit(&os, err)))
        goto out;
    cuzk_phase_end(ctx, &ph);
out:
    cuzk_oset_abort(&os);
    cuzk_r1cs_free(&r);
    cuzk_zkey_free(&zk);
    return st;
}

cuzk_status cuzk_setup_files(cuzk_ctx *ctx, const char *r1cs_path, const char *zkey_path, cuzk_error *err)
{
    return cuzk_setup_files_with_toxic(ctx, r1cs_path, zkey_path, NULL, err);
}
