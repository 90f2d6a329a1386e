/* bellperson .params: index any input (both modes), decode every section
 * (checked mode: its first points only, subgroup checks are slow under the
 * sanitizers); decoded points re-encode to the same bytes. */
#include "formats/bellperson.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int checked = 0; checked < 2; checked++) {
        cuzk_bp_params p;
        cuzk_error e = {0};
        cuzk_bp_params_opts o = {.checked = checked};
        cuzk_status st = cuzk_bp_params_open_buffer(&p, data, size, "fuzz.params", &o, &e);
        fuzz_check_error(st, &e, "fuzz.params");
        if (st)
            continue;
        FUZZ_ASSERT(cuzk_bp_params_size(p.vk.n_ic, (const uint32_t[]){p.sec[0].count, p.sec[1].count,
                                                                       p.sec[2].count, p.sec[3].count,
                                                                       p.sec[4].count}) == size);
        for (int s = 0; s < CUZK_BP_N_SECTIONS; s++) {
            const cuzk_bp_section *sec = &p.sec[s];
            FUZZ_ASSERT(sec->offset + (uint64_t)sec->count * sec->elem_size <= size);
            if (!sec->count)
                continue;
            const uint32_t cnt = checked ? (sec->count < 4 ? sec->count : 4) : sec->count;
            uint8_t back[192];
            if (sec->g2) {
                bls12_381_g2_affine_t *pts = malloc(cnt * sizeof *pts);
                cuzk_err_clear(&e);
                st = cuzk_bp_params_g2(&p, (cuzk_bp_section_id)s, 0, cnt, pts, NULL, &e);
                fuzz_check_error(st, &e, "fuzz.params");
                for (uint32_t i = 0; !st && i < cnt; i++) {
                    cuzk_bp_g2_encode(back, &pts[i], false);
                    FUZZ_ASSERT(!memcmp(back, sec->data + 192 * (size_t)i, 192));
                }
                free(pts);
            } else {
                bls12_381_g1_affine_t *pts = malloc(cnt * sizeof *pts);
                cuzk_err_clear(&e);
                st = cuzk_bp_params_g1(&p, (cuzk_bp_section_id)s, 0, cnt, pts, NULL, &e);
                fuzz_check_error(st, &e, "fuzz.params");
                for (uint32_t i = 0; !st && i < cnt; i++) {
                    cuzk_bp_g1_encode(back, &pts[i], false);
                    FUZZ_ASSERT(!memcmp(back, sec->data + 96 * (size_t)i, 96));
                }
                free(pts);
            }
        }
        cuzk_bp_params_close(&p);
    }
    return 0;
}
