/* bellperson verifying key (.vk): parse any input; an accepted key
 * re-encodes to exactly the input bytes. */
#include "formats/bellperson.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_bp_vk vk;
    cuzk_error e = {0};
    uint64_t used = 0;
    cuzk_status st = cuzk_bp_vk_parse(&vk, data, size, true, "fuzz.vk", NULL, &used, &e);
    fuzz_check_error(st, &e, "fuzz.vk");
    if (st == CUZK_OK) {
        FUZZ_ASSERT(used == size && size == cuzk_bp_vk_size(vk.n_ic));
        uint8_t *back = malloc(size);
        FUZZ_ASSERT(back && cuzk_bp_vk_encode(&vk, back, NULL) == CUZK_OK);
        FUZZ_ASSERT(!memcmp(back, data, size));
        free(back);
        cuzk_vk v;
        FUZZ_ASSERT(cuzk_bp_vk_to_vk(&vk, &v, NULL) == CUZK_OK && v.n_public + 1 == vk.n_ic);
        cuzk_vk_free(&v);
        cuzk_bp_vk_free(&vk);
    }
    return 0;
}
