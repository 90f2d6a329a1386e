/* .r1cs reader; accepted circuits also go through the witness check with
 * an all-ones witness (exercises every CSR index). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_r1cs r;
    cuzk_error e = {0};
    cuzk_status st = cuzk_r1cs_read_buffer(&r, data, size, "fuzz.r1cs", &e);
    fuzz_check_error(st, &e, "fuzz.r1cs");
    if (st != CUZK_OK)
        return 0;
    for (int m = 0; m < 3; m++) {
        FUZZ_ASSERT(r.m[m].row[r.n_constraints] == r.m[m].nnz);
        for (uint64_t t = 0; t < r.m[m].nnz; t++)
            FUZZ_ASSERT(r.m[m].wire[t] < r.n_wires);
    }
    cuzk_wtns w;
    if (r.n_wires <= (1u << 20) && cuzk_wtns_alloc(&w, r.curve, r.n_wires, &e) == CUZK_OK) {
        uint64_t(*v)[4] = w.values.ptr;
        for (uint32_t i = 0; i < r.n_wires; i++) {
            memset(v[i], 0, 32);
            v[i][0] = 1;
        }
        cuzk_err_clear(&e);
        st = cuzk_r1cs_check_witness(&r, &w, NULL, "fuzz.r1cs", "fuzz.wtns", &e);
        FUZZ_ASSERT(st == CUZK_OK || st == CUZK_ERR_MISMATCH);
        cuzk_wtns_free(&w);
    }
    cuzk_r1cs_free(&r);
    return 0;
}
