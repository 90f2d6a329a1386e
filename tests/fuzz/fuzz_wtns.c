/* .wtns reader. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_wtns w;
    cuzk_error e = {0};
    cuzk_status st = cuzk_wtns_read_buffer(&w, data, size, "fuzz.wtns", &e);
    fuzz_check_error(st, &e, "fuzz.wtns");
    if (st == CUZK_OK) {
        const cuzk_curve_desc *cp = cuzk_curve_desc_get(w.curve);
        FUZZ_ASSERT(cp != NULL);
        FUZZ_ASSERT((uint64_t)w.n_witness * 32 <= size);
        cuzk_wtns_free(&w);
    }
    return 0;
}
