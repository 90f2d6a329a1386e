/* cuzk info <file>: describes a .zkey, .r1cs, .wtns or snarkjs JSON file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
/* The one internal header of the CLI: `info` shows what the format readers
 * parsed (section counts, sizes, the share of 0/1 witness values), so it
 * reads the files with them. A public inspection API would freeze those
 * reader structures for little gain; the CLI links the static library. */
#include "formats/bellperson.h"
#include "formats/formats.h"

static int info_zkey(const char *path, int full)
{
    cuzk_error err = {0};
    cuzk_zkey zk = {0};
    /* The points are checked in the mapping (no copy of a large key). */
    cuzk_zkey_read_opts ro = {.full_subgroup_check = full != 0};
    cli_catch_sigbus(path);
    if (cuzk_zkey_read(&zk, path, &ro, &err))
        return cli_fail(&err);
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(zk.curve);
    uint64_t n_a = 0, n_b = 0;
    for (uint64_t i = 0; i < zk.n_coefs; i++)
        if (zk.coef_matrix[i])
            n_b++;
        else
            n_a++;
    printf("%s: Groth16 proving key (.zkey)\n", path);
    printf("  curve            %s\n", cp->snarkjs_name);
    printf("  wires (nVars)    %u\n", zk.n_vars);
    printf("  public signals   %u\n", zk.n_public);
    printf("  domain size      %u (2^%u)\n", zk.domain_size, zk.log_domain);
    printf("  A/B coefficients %llu / %llu\n", (unsigned long long)n_a, (unsigned long long)n_b);
    printf("  points checked   %s\n", full ? "all: on curve and in the subgroup"
                                           : "all on curve; header and IC in the subgroup (--full: every point)");
    cuzk_zkey_free(&zk);
    return 0;
}

static int info_r1cs(const char *path)
{
    cuzk_error err = {0};
    cuzk_r1cs r = {0};
    if (cuzk_r1cs_read(&r, path, &err))
        return cli_fail(&err);
    printf("%s: constraint system (.r1cs)\n", path);
    printf("  curve            %s\n", cuzk_curve_name(r.curve));
    printf("  constraints      %u\n", r.n_constraints);
    printf("  wires            %u\n", r.n_wires);
    printf("  public outputs   %u\n", r.n_pub_out);
    printf("  public inputs    %u\n", r.n_pub_in);
    printf("  private inputs   %u\n", r.n_prv_in);
    printf("  labels           %llu\n", (unsigned long long)r.n_labels);
    printf("  non-zero terms   A %llu, B %llu, C %llu\n", (unsigned long long)r.m[0].nnz,
           (unsigned long long)r.m[1].nnz, (unsigned long long)r.m[2].nnz);
    uint64_t rows = (uint64_t)r.n_constraints + cuzk_r1cs_n_public(&r), dom = 1;
    unsigned k = 0;
    while (dom <= rows) {
        dom <<= 1;
        k++;
    }
    printf("  Groth16 domain   2^%u\n", k);
    cuzk_r1cs_free(&r);
    return 0;
}

static int info_wtns(const char *path)
{
    cuzk_error err = {0};
    cuzk_wtns w = {0};
    if (cuzk_wtns_read(&w, path, &err))
        return cli_fail(&err);
    size_t zeros = 0, ones = 0;
    const cuzk_curve_desc *cp = cuzk_curve_desc_get(w.curve);
    for (uint32_t i = 0; i < w.n_witness; i++) {
        const uint64_t *v = (const uint64_t *)((const uint8_t *)w.values.ptr + (size_t)i * cp->n8r);
        int hi = (v[1] | v[2] | v[3]) != 0;
        if (!hi && v[0] == 0)
            zeros++;
        else if (!hi && v[0] == 1)
            ones++;
    }
    printf("%s: witness (.wtns)\n", path);
    printf("  curve            %s\n", cuzk_curve_name(w.curve));
    printf("  values           %u\n", w.n_witness);
    printf("  zeros / ones     %zu / %zu (%.1f%% / %.1f%%)\n", zeros, ones,
           w.n_witness ? 100.0 * (double)zeros / w.n_witness : 0.0,
           w.n_witness ? 100.0 * (double)ones / w.n_witness : 0.0);
    cuzk_wtns_free(&w);
    return 0;
}

static int info_json(const char *path)
{
    cuzk_error err = {0};
    cuzk_vk vk = {0};
    if (cuzk_vk_read_json(&vk, path, &err) == CUZK_OK) {
        printf("%s: verification key (snarkjs JSON)\n", path);
        printf("  curve            %s\n", cuzk_curve_name(vk.curve));
        printf("  public signals   %u\n", vk.n_public);
        cuzk_vk_free(&vk);
        return 0;
    }
    cuzk_error e2 = {0};
    cuzk_proof_points pf = {0};
    if (cuzk_proof_points_read_json(&pf, path, CUZK_CURVE_NONE, &e2) == CUZK_OK) {
        printf("%s: Groth16 proof (snarkjs JSON)\n", path);
        printf("  curve            %s\n", cuzk_curve_name(pf.curve));
        return 0;
    }
    cuzk_error e3 = {0};
    cuzk_public pub = {0};
    for (const cuzk_curve_desc *const *d = cuzk_curve_descs(); *d; d++) {
        cuzk_err_clear(&e3);
        if (cuzk_public_read_json(&pub, path, (*d)->curve, &e3) == CUZK_OK) {
            printf("%s: public signals (JSON array)\n", path);
            printf("  values           %u (each < r of %s)\n", pub.n, (*d)->snarkjs_name);
            cuzk_public_free(&pub);
            return 0;
        }
    }
    /* Only "not this kind of file" (malformed) lets the next kind be tried;
     * any other failure (I/O, out of memory, an invalid proof) is the answer. */
    const cuzk_error *tried[3] = {&err, &e2, &e3};
    for (int i = 0; i < 3; i++)
        if (tried[i]->code != CUZK_OK && tried[i]->code != CUZK_ERR_FORMAT &&
            tried[i]->code != CUZK_ERR_UNSUPPORTED && tried[i]->code != CUZK_ERR_MISMATCH)
            return cli_fail(tried[i]);
    cuzk_error e = {0};
    cuzk_err(&e, CUZK_ERR_FORMAT, "%s: not a verification key, proof or public-signals file (%s)", path,
             err.msg);
    return cli_fail(&e);
}

/* A bellperson .vk or .params (no magic: told apart by the size the VK's IC
 * count implies). */
static int info_bellperson(const char *path, uint64_t size, int full)
{
    cuzk_error err = {0};
    char digest[33];
    if (size >= CUZK_BP_VK_FIXED_SIZE) {
        int fd;
        uint64_t sz;
        uint8_t n[4] = {0};
        if (cuzk_open_input(path, &fd, &sz, &err))
            return cli_fail(&err);
        ssize_t got = pread(fd, n, 4, 864);
        close(fd);
        uint32_t n_ic = got == 4 ? (uint32_t)n[0] << 24 | (uint32_t)n[1] << 16 | (uint32_t)n[2] << 8 | n[3] : 0;
        if (sz == cuzk_bp_vk_size(n_ic)) {
            cuzk_bp_vk vk;
            if (cuzk_bp_vk_read(&vk, path, NULL, &err) || cuzk_bp_digest_file(path, digest, &err)) {
                cuzk_bp_vk_free(&vk);
                return cli_fail(&err);
            }
            printf("%s: bellperson verifying key (.vk, BLS12-381)\n", path);
            printf("  size             %llu bytes\n", (unsigned long long)sz);
            printf("  IC points        %u (public inputs: %u after the implicit one)\n", vk.n_ic, vk.n_ic - 1);
            printf("  points checked   all: on curve and in the subgroup, IC not the identity\n");
            printf("  digest           %s (parameters.json: Blake2b-512, first 32 hex)\n", digest);
            cuzk_bp_vk_free(&vk);
            return 0;
        }
    }
    cuzk_bp_params p;
    cuzk_pool *pool = cuzk_pool_create(0);
    cuzk_bp_params_opts o = {.checked = full != 0, .check_points = true, .pool = pool};
    cli_catch_sigbus(path);
    cuzk_status st = cuzk_bp_params_open(&p, path, &o, &err);
    if (!st)
        st = cuzk_bp_digest_file(path, digest, &err);
    cuzk_pool_destroy(pool);
    if (st) {
        if (st == CUZK_ERR_FORMAT && size >= CUZK_BP_VK_FIXED_SIZE) {
            char msg[sizeof err.msg];
            memcpy(msg, err.msg, sizeof msg);
            cuzk_err_force(&err, st, "%.400s (read as a bellperson .params)", msg);
        }
        cuzk_bp_params_close(&p);
        return cli_fail(&err);
    }
    printf("%s: bellperson Groth16 parameters (.params, BLS12-381)\n", path);
    printf("  size             %llu bytes (verifying key %llu)\n", (unsigned long long)p.file.size,
           (unsigned long long)p.vk_size);
    printf("  IC points        %u (public inputs: %u after the implicit one)\n", p.vk.n_ic, p.vk.n_ic - 1);
    unsigned lg = 0;
    uint64_t dom = cuzk_bp_params_domain(&p, &lg);
    if (dom)
        printf("  domain size      %llu (2^%u; H has %u points)\n", (unsigned long long)dom, lg,
               p.sec[CUZK_BP_H].count);
    else
        printf("  domain size      none: H has %u points, not a power of two minus one\n", p.sec[CUZK_BP_H].count);
    for (int s = 0; s < CUZK_BP_N_SECTIONS; s++)
        printf("  section %-8s %u points (%s, %llu bytes)\n", cuzk_bp_section_name((cuzk_bp_section_id)s),
               p.sec[s].count, p.sec[s].g2 ? "G2" : "G1", (unsigned long long)p.sec[s].count * p.sec[s].elem_size);
    printf("  aux variables    %u (= |L|)\n", p.sec[CUZK_BP_L].count);
    printf("  points checked   all: coordinates < p, on curve, not the identity%s\n",
           full ? ", in the subgroup" : " (--full: also the subgroup)");
    printf("  digest           %s (parameters.json: Blake2b-512, first 32 hex)\n", digest);
    cuzk_bp_params_close(&p);
    return 0;
}

int cmd_info(int argc, char **argv)
{
    static const char usage[] =
        "Usage: cuzk info [--full] <file>\n"
        "\n"
        "Describes a .zkey, .r1cs, .wtns, verification_key.json, proof.json or\n"
        "public.json file, or a bellperson (Filecoin) .params or .vk, after\n"
        "validating it. For bellperson files it also prints the parameters.json\n"
        "digest (reads the whole file).\n"
        "\n"
        "Options:\n"
        "  --full   (zkey, .params) check every point for subgroup membership (slow)\n";
    int full = 0;
    const cli_opt opts[] = {{"full", 0, 0, NULL, &full}, {NULL, 0, 0, NULL, NULL}};
    cli_common common;
    const char *pos[1];
    int r = cli_parse_exact(argc, argv, opts, &common, pos, 1, "info", usage);
    if (r >= 0)
        return r;
    const char *path = pos[0];
    cuzk_error e = {0};
    int fd;
    uint64_t size;
    if (cuzk_open_input(path, &fd, &size, &e))
        return cli_fail(&e);
    char magic[4] = {0};
    ssize_t got = read(fd, magic, 4);
    close(fd);
    if (got == 4 && !memcmp(magic, "zkey", 4))
        return info_zkey(path, full);
    if (got == 4 && !memcmp(magic, "r1cs", 4))
        return info_r1cs(path);
    if (got == 4 && !memcmp(magic, "wtns", 4))
        return info_wtns(path);
    /* JSON starts with a bracket or white space; a bellperson file with an
     * uncompressed point whose flag bits are 000 or 010 (never '{', '[' or a
     * space, whose bits are 011, 010 + non-zero bits, 001). */
    if (got >= 1 && size >= CUZK_BP_VK_FIXED_SIZE && magic[0] != '{' && magic[0] != '[' && magic[0] != ' ' &&
        magic[0] != '\t' && magic[0] != '\n' && magic[0] != '\r')
        return info_bellperson(path, size, full);
    return info_json(path);
}
