/* Groth16 .zkey reader (full read with point checks, and header-only); an
 * accepted key also yields a verification key that serialises. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cuzk_zkey zk;
    cuzk_error e = {0};
    cuzk_zkey_read_opts o = {.header_only = size > 0 && (data[size - 1] & 1)};
    cuzk_status st = cuzk_zkey_read_buffer(&zk, data, size, "fuzz.zkey", &o, &e);
    fuzz_check_error(st, &e, "fuzz.zkey");
    if (st != CUZK_OK)
        return 0;
    if (!zk.header_only)
        for (uint64_t i = 0; i < zk.n_coefs; i++)
            FUZZ_ASSERT(zk.coef_matrix[i] <= 1 && zk.coef_constraint[i] < zk.domain_size &&
                        zk.coef_signal[i] < zk.n_vars);
    cuzk_vk vk;
    if (cuzk_vk_from_zkey(&vk, &zk, &e) == CUZK_OK) {
        char *s;
        size_t n;
        memset(&vk.alphabeta_12, 0, sizeof vk.alphabeta_12);
        vk.has_alphabeta = true;
        FUZZ_ASSERT(cuzk_vk_to_json(&vk, &s, &n, &e) == CUZK_OK);
        /* The JSON reader accepts what the zkey reader accepted. */
        cuzk_vk vk2;
        FUZZ_ASSERT(cuzk_vk_read_json_buffer(&vk2, s, n, "fuzz.json", &e) == CUZK_OK);
        FUZZ_ASSERT(vk2.n_public == vk.n_public);
        cuzk_vk_free(&vk2);
        free(s);
        cuzk_vk_free(&vk);
    }
    cuzk_zkey_free(&zk);
    return 0;
}
