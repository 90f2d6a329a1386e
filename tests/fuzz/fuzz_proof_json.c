/* proof.json reader: accepted proofs re-serialise (both styles) and read
 * back to the same points. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_proof_points p, p2;
    cuzk_error e = {0};
    cuzk_status st = cuzk_proof_points_read_json_buffer(&p, (const char *)data, size, "fuzz.json",
                                                 CUZK_CURVE_NONE, &e);
    fuzz_check_error(st, &e, "fuzz.json");
    if (st != CUZK_OK)
        return 0;
    for (int style = 0; style < 2; style++) {
        char *s;
        size_t n;
        FUZZ_ASSERT(cuzk_proof_points_to_json(&p, style, &s, &n, &e) == CUZK_OK);
        FUZZ_ASSERT(cuzk_proof_points_read_json_buffer(&p2, s, n, "again.json", p.curve, &e) == CUZK_OK);
        FUZZ_ASSERT(memcmp(&p, &p2, sizeof p) == 0);
        free(s);
    }
    return 0;
}
