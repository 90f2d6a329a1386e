/* public.json reader (both curves): accepted arrays round-trip. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const cuzk_curve curves[2] = {CUZK_CURVE_BN254, CUZK_CURVE_BLS12_381};
    for (int c = 0; c < 2; c++) {
        cuzk_public pub, pub2;
        cuzk_error e = {0};
        cuzk_status st = cuzk_public_read_json_buffer(&pub, (const char *)data, size, "fuzz.json",
                                                      curves[c], &e);
        fuzz_check_error(st, &e, "fuzz.json");
        if (st != CUZK_OK)
            continue;
        char *s;
        size_t n;
        FUZZ_ASSERT(cuzk_public_to_json(pub.curve, pub.values.ptr, pub.n, c, &s, &n, &e) == CUZK_OK);
        FUZZ_ASSERT(cuzk_public_read_json_buffer(&pub2, s, n, "again.json", curves[c], &e) == CUZK_OK);
        FUZZ_ASSERT(pub2.n == pub.n && (pub.n == 0 || memcmp(pub.values.ptr, pub2.values.ptr, 32 * (size_t)pub.n) == 0));
        free(s);
        cuzk_public_free(&pub2);
        cuzk_public_free(&pub);
    }
    return 0;
}
