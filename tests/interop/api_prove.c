/* Interop helper built on the public API only (include/cuzk/cuzk.h): loads a
 * proving key once and proves every witness given with it, writing for
 * witness i <outdir>/<i>.proof.json, <i>.public.json (snarkjs style) and
 * <i>.bytes (cuzk_proof_to_bytes as lower-case hex). interop.sh checks them
 * with snarkjs and @noble/curves.
 *
 *   cuzk-api-prove <circuit.zkey> <outdir> <witness.wtns>...
 * Exit 0 when every proof was made, else the failing call's status. */
#include <stdio.h>
#include <stdlib.h>

#include "cuzk/cuzk.h"

static int fail(const cuzk_error *e)
{
    fprintf(stderr, "Error: %s\n", e->msg);
    return e->code ? (int)e->code : 1;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s <circuit.zkey> <outdir> <witness.wtns>...\n", argv[0]);
        return 1;
    }
    cuzk_error err = {0};
    cuzk_ctx *ctx = NULL;
    cuzk_key *key = NULL;
    if (cuzk_ctx_create(&ctx, NULL, &err) || cuzk_key_load(&key, ctx, argv[1], NULL, &err))
        return fail(&err);
    int rc = 0;
    for (int i = 3; i < argc && !rc; i++) {
        cuzk_witness *w = NULL;
        cuzk_proof *p = NULL;
        char proof[4096], pub[4096], bytes[4096];
        snprintf(proof, sizeof proof, "%s/%d.proof.json", argv[2], i - 3);
        snprintf(pub, sizeof pub, "%s/%d.public.json", argv[2], i - 3);
        snprintf(bytes, sizeof bytes, "%s/%d.bytes", argv[2], i - 3);
        uint8_t buf[256];
        size_t len = 0;
        if (cuzk_witness_load(&w, argv[i], &err) || cuzk_prove(ctx, key, w, NULL, &p, &err) ||
            cuzk_proof_write_files(p, proof, pub, CUZK_JSON_SNARKJS, &err) ||
            cuzk_proof_to_bytes(p, buf, sizeof buf, &len, &err)) {
            rc = fail(&err);
        } else {
            FILE *f = fopen(bytes, "w");
            for (size_t k = 0; f && k < len; k++)
                fprintf(f, "%02x", buf[k]);
            if (!f || fclose(f)) {
                fprintf(stderr, "Error: %s: cannot write\n", bytes);
                rc = 2;
            }
        }
        cuzk_proof_free(p);
        cuzk_witness_free(w);
    }
    cuzk_key_free(key);
    cuzk_ctx_free(ctx);
    return rc;
}
