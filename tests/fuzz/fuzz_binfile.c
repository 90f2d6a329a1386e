/* The binfile container: index any input, then look up sections. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_binfile bf;
    cuzk_error e = {0};
    cuzk_status st = cuzk_binfile_open_buffer(&bf, data, size, "fuzz.bin", size ? "r1cs" : "zkey", 2, &e);
    fuzz_check_error(st, &e, "fuzz.bin");
    if (st == CUZK_OK) {
        for (uint32_t i = 0; i < bf.n_sections; i++) {
            const cuzk_binfile_section *s = &bf.sections[i];
            FUZZ_ASSERT(s->offset <= size && s->size <= size - s->offset);
        }
        for (uint32_t id = 0; id < 12; id++) {
            const cuzk_binfile_section *s;
            cuzk_err_clear(&e);
            st = cuzk_binfile_get(&bf, id, &s, &e);
            fuzz_check_error(st, &e, "fuzz.bin");
            FUZZ_ASSERT((st == CUZK_OK) == (cuzk_binfile_count(&bf, id) == 1));
        }
        cuzk_binfile_close(&bf);
    }
    return 0;
}
