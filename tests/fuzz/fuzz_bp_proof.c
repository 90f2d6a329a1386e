/* bellperson proofs (192 bytes per partition): decode any input; an
 * accepted proof re-encodes to exactly the input bytes. Also the
 * public.json reader of `verify --format bellperson` on the same bytes. */
#include "formats/bellperson.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_proof_points *p = NULL;
    size_t n = 0;
    cuzk_error e = {0};
    cuzk_status st = cuzk_bp_proofs_read_buffer(&p, &n, data, size, "fuzz.bin", 64, &e);
    fuzz_check_error(st, &e, "fuzz.bin");
    if (st == CUZK_OK) {
        FUZZ_ASSERT(n * CUZK_BP_PROOF_SIZE == size);
        uint8_t back[CUZK_BP_PROOF_SIZE];
        for (size_t i = 0; i < n; i++) {
            cuzk_bp_proof_encode(back, &p[i]);
            FUZZ_ASSERT(!memcmp(back, data + i * CUZK_BP_PROOF_SIZE, CUZK_BP_PROOF_SIZE));
        }
        cuzk_free(p);
    }
    uint64_t(*v)[4] = NULL;
    size_t parts = 0, each = 0;
    cuzk_err_clear(&e);
    st = cuzk_bp_public_read(&v, &parts, &each, (const char *)data, size, "fuzz.json", &e);
    fuzz_check_error(st, &e, "fuzz.json");
    if (st == CUZK_OK) {
        FUZZ_ASSERT(parts >= 1);
        for (size_t i = 0; i < parts * each; i++) {
            bls12_381_fr_t x;
            memcpy(x.l, v[i], 32);
            FUZZ_ASSERT(bls12_381_fr_raw_is_canonical(&x));
        }
        cuzk_free(v);
    }
    return 0;
}
