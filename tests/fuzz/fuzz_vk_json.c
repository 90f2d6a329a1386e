/* verification_key.json reader: accepted keys re-serialise identically
 * after one normalising round trip. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_vk vk, vk2;
    cuzk_error e = {0};
    cuzk_status st = cuzk_vk_read_json_buffer(&vk, (const char *)data, size, "fuzz.json", &e);
    fuzz_check_error(st, &e, "fuzz.json");
    if (st != CUZK_OK)
        return 0;
    if (!vk.has_alphabeta) {
        memset(&vk.alphabeta_12, 0, sizeof vk.alphabeta_12);
        vk.has_alphabeta = true;
    }
    char *s, *s2;
    size_t n, n2;
    FUZZ_ASSERT(cuzk_vk_to_json(&vk, &s, &n, &e) == CUZK_OK);
    FUZZ_ASSERT(cuzk_vk_read_json_buffer(&vk2, s, n, "again.json", &e) == CUZK_OK);
    FUZZ_ASSERT(cuzk_vk_to_json(&vk2, &s2, &n2, &e) == CUZK_OK);
    FUZZ_ASSERT(n == n2 && memcmp(s, s2, n) == 0);
    free(s);
    free(s2);
    cuzk_vk_free(&vk2);
    cuzk_vk_free(&vk);
    return 0;
}
