/* cuzk-bp-points: the bellperson point codec on stdin/stdout, for the
 * @noble/curves cross-check (bellperson_noble.mjs). One request per line:
 *   dec g1|g2 <hex>     decode (checked: subgroup; compressed iff 48/96 bytes
 *                       for G1/G2) -> "OK <uncompressed hex> <compressed hex>"
 *                       re-encoded by us, or "ERR <reason>"
 *   gen g1|g2 <k hex>   k·G (k big-endian, < 2^256) -> "<compressed> <uncompressed>"
 * Exit status 0, or 2 on a malformed request.
 *
 *   cuzk-bp-points params IN.vk OUT.params nH nL nA nB
 * writes a .params with IN.vk's key and sections of those sizes (B_G1 and
 * B_G2 both nB) holding pseudo-random multiples of the generators (for the
 * CLI tests of `info` and `verify` with a .params, and fuzz seeds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bellperson.h"

static int unhex(uint8_t *out, const char *s, size_t max, size_t *n)
{
    size_t len = strlen(s);
    if (len % 2 || len / 2 > max)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    *n = len / 2;
    return 0;
}

static void puthex(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
}

static int make_params(char **argv)
{
    cuzk_error err = {0};
    cuzk_bp_vk vk;
    if (cuzk_bp_vk_read(&vk, argv[2], NULL, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    cuzk_bp_params_writer w;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    cuzk_status st = cuzk_bp_params_writer_open(&w, argv[3], &vk, NULL, &err);
    for (int s = 0; !st && s < CUZK_BP_N_SECTIONS; s++) {
        uint32_t n = (uint32_t)strtoul(argv[4 + (s < 4 ? s : 3)], NULL, 10);
        st = cuzk_bp_params_writer_section(&w, (cuzk_bp_section_id)s, n, &err);
        for (uint32_t i = 0; !st && i < n; i++) {
            uint64_t k[4];
            for (int l = 0; l < 4; l++)
                k[l] = (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 1;
            k[3] >>= 2;
            if (s == CUZK_BP_B_G2) {
                bls12_381_g2_jac_t j;
                bls12_381_g2_affine_t p;
                bls12_381_g2_affine_mul(&j, &bls12_381_g2_GENERATOR, k, 4);
                bls12_381_g2_jac_to_affine(&p, &j);
                st = cuzk_bp_params_writer_g2(&w, &p, 1, &err);
            } else {
                bls12_381_g1_jac_t j;
                bls12_381_g1_affine_t p;
                bls12_381_g1_affine_mul(&j, &bls12_381_g1_GENERATOR, k, 4);
                bls12_381_g1_jac_to_affine(&p, &j);
                st = cuzk_bp_params_writer_g1(&w, &p, 1, &err);
            }
        }
    }
    if (!st)
        st = cuzk_bp_params_writer_finish(&w, &err);
    cuzk_bp_params_writer_abort(&w);
    cuzk_bp_vk_free(&vk);
    if (st)
        fprintf(stderr, "%s\n", err.msg);
    return st ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 8 && !strcmp(argv[1], "params"))
        return make_params(argv);
    if (argc != 1)
        return 2;
    char line[1024], op[8], grp[8], hex[900];
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "%7s %7s %899s", op, grp, hex) != 3)
            return 2;
        bool g2 = !strcmp(grp, "g2");
        uint8_t in[256], u[192], c[96];
        size_t n;
        if (unhex(in, hex, sizeof in, &n))
            return 2;
        if (!strcmp(op, "dec")) {
            size_t cl = g2 ? 96 : 48, ul = 2 * cl;
            if (n != cl && n != ul) {
                printf("ERR length\n");
                continue;
            }
            int why;
            if (g2) {
                bls12_381_g2_affine_t p;
                why = cuzk_bp_g2_decode(&p, in, n == cl, true);
                if (!why) {
                    cuzk_bp_g2_encode(u, &p, false);
                    cuzk_bp_g2_encode(c, &p, true);
                }
            } else {
                bls12_381_g1_affine_t p;
                why = cuzk_bp_g1_decode(&p, in, n == cl, true);
                if (!why) {
                    cuzk_bp_g1_encode(u, &p, false);
                    cuzk_bp_g1_encode(c, &p, true);
                }
            }
            if (why) {
                printf("ERR %s\n", cuzk_bp_pt_reason(why));
                continue;
            }
            printf("OK ");
            puthex(u, ul);
            printf(" ");
            puthex(c, cl);
            printf("\n");
        } else if (!strcmp(op, "gen")) {
            if (n != 32)
                return 2;
            uint64_t k[4] = {0};
            for (int i = 0; i < 32; i++)
                k[(31 - i) / 8] |= (uint64_t)in[i] << (8 * ((31 - i) % 8));
            if (g2) {
                bls12_381_g2_jac_t j;
                bls12_381_g2_affine_t p;
                bls12_381_g2_affine_mul(&j, &bls12_381_g2_GENERATOR, k, 4);
                bls12_381_g2_jac_to_affine(&p, &j);
                cuzk_bp_g2_encode(c, &p, true);
                cuzk_bp_g2_encode(u, &p, false);
            } else {
                bls12_381_g1_jac_t j;
                bls12_381_g1_affine_t p;
                bls12_381_g1_affine_mul(&j, &bls12_381_g1_GENERATOR, k, 4);
                bls12_381_g1_jac_to_affine(&p, &j);
                cuzk_bp_g1_encode(c, &p, true);
                cuzk_bp_g1_encode(u, &p, false);
            }
            puthex(c, g2 ? 96 : 48);
            printf(" ");
            puthex(u, g2 ? 192 : 96);
            printf("\n");
        } else {
            return 2;
        }
        fflush(stdout);
    }
    return 0;
}
