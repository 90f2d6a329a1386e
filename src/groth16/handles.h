/* Internal constructors of the public handles (api.c) from data made in
 * memory, for the development keys of include/cuzk/dev.h. */
#ifndef CUZK_GROTH16_HANDLES_H
#define CUZK_GROTH16_HANDLES_H

#include "cuzk/cuzk.h"
#include "formats/formats.h"

/* A key over *zk (a complete, valid key; taken over: *zk is zeroed, also on
 * error) prepared as cuzk_key_load prepares a loaded one; name stands for the
 * file in messages. */
cuzk_status cuzk_key_adopt(cuzk_key **out, cuzk_ctx *ctx, cuzk_zkey *zk, const char *name,
                           const cuzk_key_opts *opts, cuzk_error *err);
/* A witness over *wt (values < r; taken over like zk). */
cuzk_status cuzk_witness_adopt(cuzk_witness **out, cuzk_wtns *wt, const char *name, cuzk_error *err);

#endif
