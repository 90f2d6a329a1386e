/* `cuzk gen`: synthetic r1cs + satisfying wtns for benchmarks (profile and
 * streaming scheme: see gen_impl.h). Both files are written straight from
 * per-chunk buffers, so memory stays at a few MB per worker thread whatever
 * the circuit size (2^27 constraints is a ~20 GB r1cs). */
#include <inttypes.h>
#include <string.h>

#include "cuzk/dev.h"
#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "curve/curves.h"
#include "formats/formats.h"
#include "groth16/ctx.h"
#include "util/common.h"
#include "groth16/gen_rng.h"
#include "util/rng.h"

enum {
    GEN_N8 = 32,                   /* Fr bytes in r1cs/wtns, both curves */
    GEN_CHUNK = 1 << 15,           /* constraints per independently generated chunk */
    GEN_BIT_RING = 64,             /* recent bit wires a chunk picks operands from */
    GEN_FIELD_RING = 16,           /* recent field-element wires */
    GEN_MAX_CONSTRAINT_BYTES = 12 + 6 * (4 + GEN_N8), /* a pack step: 4+1+1 terms */
    GEN_R1CS_HEADER_SIZE = 4 + GEN_N8 + 4 * 4 + 8 + 4,
    GEN_LABEL_BLOCK = 1 << 16,
    GEN_MAX_BATCH = 32,            /* chunks generated concurrently, at most */
};

/* Constraint kinds (gen_impl.h). */
enum { GEN_K_BIT, GEN_K_XOR, GEN_K_AND, GEN_K_PACK, GEN_K_MUL };

static uint8_t *gen_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 4;
}

static uint8_t *gen_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return p + 8;
}

#define GEN_CURVE bn254
#include "groth16/gen_impl.h"

#define GEN_CURVE bls12_381
#include "groth16/gen_impl.h"

cuzk_status cuzk_gen_files(cuzk_ctx *ctx, const cuzk_gen_opts *opts, const char *r1cs_path,
                           const char *wtns_path, cuzk_error *err)
{
    if (!ctx || !opts || !r1cs_path || !wtns_path)
        return cuzk_err(err, CUZK_ERR_USAGE, "gen: missing argument");
    if (opts->constraints < 1 || opts->constraints > ((uint64_t)1 << 27))
        return cuzk_err(err, CUZK_ERR_USAGE, "gen: constraints must be 1..2^27, got %" PRIu64,
                        opts->constraints);
    uint64_t seed = opts->seed;
    if (seed == 0 && !cuzk_random_bytes(&seed, sizeof seed))
        return cuzk_err(err, CUZK_ERR_INTERNAL, "gen: the OS random number generator failed");
    /* The instantiations above, by curve (curve/curves.h). */
    cuzk_status st;
    const char *was = cuzk_ctx_set_subject(ctx, r1cs_path);
    switch (opts->curve) {
#define GEN_CASE(id, e) \
    case e: st = id##_gen_run(ctx, opts, seed, r1cs_path, wtns_path, err); break;
        CUZK_CURVES(GEN_CASE)
#undef GEN_CASE
    default: st = cuzk_err(err, CUZK_ERR_USAGE, "gen: unknown curve %d", (int)opts->curve); break;
    }
    cuzk_ctx_set_subject(ctx, was);
    return st;
}
