/* cuzk filecoin inputs porep|window-post|winning-post: the public inputs of
 * a Filecoin proof as the public.json of `cuzk verify --format bellperson`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
/* Internal: the input derivation (src/filecoin) is a CLI tool, not a
 * library API. */
#include "curve/bls12_381.h"
#include "filecoin/filecoin.h"

static const char usage[] =
    "Usage: cuzk filecoin inputs porep --sector-size S --api-version V --porep-id HEX\n"
    "                                  --prover-id HEX --sector N --ticket HEX --seed HEX\n"
    "                                  --comm-r HEX --comm-d HEX\n"
    "       cuzk filecoin inputs window-post --sector-size S --api-version V --randomness HEX\n"
    "                                  <sector>:<comm_r HEX> [<sector>:<comm_r HEX> ...]\n"
    "       cuzk filecoin inputs winning-post --sector-size S --api-version V --randomness HEX\n"
    "                                  <sector>:<comm_r HEX>\n"
    "\n"
    "Prints the public inputs of a Filecoin Groth16 proof (bellperson's order, the\n"
    "implicit one left out) as derived by storage-proofs: the public.json of\n"
    "`cuzk verify --format bellperson`. One partition: a JSON array of decimal\n"
    "strings; several (32/64 GiB PoRep: 10; Window PoSt with more sectors than a\n"
    "partition holds): an array of such arrays, in partition order.\n"
    "\n"
    "PoRep (interactive seal commit, C2): replica_id, comm_d, comm_r, then per\n"
    "challenge the challenge, its 6 DRG and 8 expander parents and the challenge\n"
    "three more times. PoSt: per sector comm_r and its leaf challenges (Window: 10,\n"
    "sectors sorted by number, a partition of 2 / 2349 / 2300 sectors padded with\n"
    "its last; Winning: one sector, 66).\n"
    "\n"
    "Every byte value is 32 bytes in hex (64 digits, optional 0x), in Filecoin's\n"
    "byte order (commitments, randomness, ids: little-endian field elements).\n"
    "Commitments must be non-zero field elements (< r).\n"
    "\n"
    "Options:\n"
    "  --sector-size S     2KiB 4KiB 16KiB 32KiB 8MiB 16MiB 512MiB 1GiB 32GiB 64GiB\n"
    "  --api-version V     1.0.0, 1.1.0 or 1.2.0 (no synthetic / non-interactive PoRep)\n"
    "  --porep-id HEX      the proof type's porep id (registered proof id and nonce, LE)\n"
    "  --prover-id HEX     the miner's prover id\n"
    "  --sector N          the sector number\n"
    "  --ticket HEX, --seed HEX, --comm-r HEX, --comm-d HEX, --randomness HEX\n";

static int bad(const char *opt, const char *what)
{
    return cli_usage_error(usage, "%s: %s", opt, what);
}

static int hex_opt(uint8_t out[32], const char *v, const char *opt)
{
    if (!v)
        return bad(opt, "missing");
    if (!cuzk_fil_hex32(out, v))
        return bad(opt, "expected 32 bytes as 64 hex digits");
    return 0;
}

static int u64_opt(uint64_t *out, const char *v, const char *opt)
{
    if (!v)
        return bad(opt, "missing");
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-')
        return bad(opt, "expected a decimal number < 2^64");
    *out = x;
    return 0;
}

/* JSON: one array per partition; one partition prints a flat array. */
static int print_inputs(const uint64_t (*v)[4], size_t parts, size_t each)
{
    char dec[128];
    if (parts > 1)
        printf("[\n");
    for (size_t k = 0; k < parts; k++) {
        printf(parts > 1 ? " [\n" : "[\n");
        for (size_t i = 0; i < each; i++) {
            bls12_381_fr_t raw, m;
            memcpy(raw.l, v[k * each + i], 32);
            bls12_381_fr_to_mont(&m, &raw);
            if (bls12_381_fr_to_dec(dec, sizeof dec, &m) < 0)
                return 10;
            printf(parts > 1 ? "  \"%s\"%s\n" : " \"%s\"%s\n", dec, i + 1 < each ? "," : "");
        }
        printf(parts > 1 ? " ]%s\n" : "]\n", k + 1 < parts ? "," : "");
    }
    if (parts > 1)
        printf("]\n");
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "Error: <stdout>: write failed\n");
        return 2;
    }
    return 0;
}

static int inputs_porep(int argc, char **argv)
{
    const char *ss = NULL, *api = NULL, *porep_id = NULL, *prover = NULL, *sector = NULL, *ticket = NULL,
               *seed = NULL, *comm_r = NULL, *comm_d = NULL;
    const cli_opt opts[] = {{"sector-size", 0, 1, &ss, NULL}, {"api-version", 0, 1, &api, NULL},
                            {"porep-id", 0, 1, &porep_id, NULL}, {"prover-id", 0, 1, &prover, NULL},
                            {"sector", 0, 1, &sector, NULL},   {"ticket", 0, 1, &ticket, NULL},
                            {"seed", 0, 1, &seed, NULL},       {"comm-r", 0, 1, &comm_r, NULL},
                            {"comm-d", 0, 1, &comm_d, NULL},   {NULL, 0, 0, NULL, NULL}};
    cli_common common;
    const char *pos[1];
    int r = cli_parse_exact(argc, argv, opts, &common, pos, 0, "filecoin inputs porep", usage);
    if (r >= 0)
        return r;
    cuzk_fil_porep in = {0};
    if (!ss || !cuzk_fil_sector_size_parse(ss, &in.sector_size))
        return bad("--sector-size", ss ? "not a Filecoin sector size" : "missing");
    if (!api || !cuzk_fil_api_parse(api, &in.api))
        return bad("--api-version", api ? "expected 1.0.0, 1.1.0 or 1.2.0" : "missing");
    if ((r = hex_opt(in.porep_id, porep_id, "--porep-id")) || (r = hex_opt(in.prover_id, prover, "--prover-id")) ||
        (r = u64_opt(&in.sector_id, sector, "--sector")) || (r = hex_opt(in.ticket, ticket, "--ticket")) ||
        (r = hex_opt(in.seed, seed, "--seed")) || (r = hex_opt(in.comm_r, comm_r, "--comm-r")) ||
        (r = hex_opt(in.comm_d, comm_d, "--comm-d")))
        return r;
    uint64_t(*v)[4] = NULL;
    size_t parts, each;
    cuzk_error err = {0};
    if (cuzk_fil_porep_inputs(&in, &v, &parts, &each, &err))
        return cli_fail(&err);
    r = print_inputs((const uint64_t(*)[4])v, parts, each);
    cuzk_free(v);
    return r;
}

static int inputs_post(int argc, char **argv, bool winning)
{
    const char *ss = NULL, *api = NULL, *rnd = NULL;
    const cli_opt opts[] = {{"sector-size", 0, 1, &ss, NULL},
                            {"api-version", 0, 1, &api, NULL},
                            {"randomness", 0, 1, &rnd, NULL},
                            {NULL, 0, 0, NULL, NULL}};
    cli_common common;
    const int max = 1 << 16;
    const char **pos = malloc(max * sizeof *pos);
    if (!pos)
        return 6;
    int npos;
    int r = cli_parse(argc, argv, opts, &common, pos, max, &npos, usage);
    if (r == 2)
        r = 0;
    else if (!r && npos == 0)
        r = cli_usage_error(usage, "no <sector>:<comm_r> given");
    else if (!r)
        r = -1;
    cuzk_fil_post in = {.winning = winning, .n_sectors = (size_t)(npos > 0 ? npos : 0)};
    uint64_t *ids = NULL;
    uint8_t(*cr)[32] = NULL;
    if (r < 0) {
        r = 0;
        if (!ss || !cuzk_fil_sector_size_parse(ss, &in.sector_size))
            r = bad("--sector-size", ss ? "not a Filecoin sector size" : "missing");
        else if (!api || !cuzk_fil_api_parse(api, &in.api))
            r = bad("--api-version", api ? "expected 1.0.0, 1.1.0 or 1.2.0" : "missing");
        else
            r = hex_opt(in.randomness, rnd, "--randomness");
    } else {
        free(pos);
        return r;
    }
    if (!r) {
        ids = calloc((size_t)npos, sizeof *ids);
        cr = calloc((size_t)npos, sizeof *cr);
        if (!ids || !cr)
            r = 6;
    }
    for (int i = 0; !r && i < npos; i++) {
        const char *c = strchr(pos[i], ':');
        char num[32];
        size_t nl = c ? (size_t)(c - pos[i]) : 0;
        if (!c || nl == 0 || nl >= sizeof num) {
            r = cli_usage_error(usage, "'%s': expected <sector number>:<comm_r as 64 hex digits>", pos[i]);
            break;
        }
        memcpy(num, pos[i], nl);
        num[nl] = 0;
        char what[80];
        snprintf(what, sizeof what, "sector '%s'", num);
        if ((r = u64_opt(&ids[i], num, what)) || (r = hex_opt(cr[i], c + 1, what)))
            break;
    }
    if (!r) {
        in.sector_ids = ids;
        in.comm_r = (const uint8_t(*)[32])cr;
        uint64_t(*v)[4] = NULL;
        size_t parts, each;
        cuzk_error err = {0};
        if (cuzk_fil_post_inputs(&in, &v, &parts, &each, &err))
            r = cli_fail(&err);
        else
            r = print_inputs((const uint64_t(*)[4])v, parts, each);
        cuzk_free(v);
    }
    free(ids);
    free(cr);
    free(pos);
    return r;
}

int cmd_filecoin(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc < 3 || strcmp(argv[1], "inputs"))
        return cli_usage_error(usage, "expected 'filecoin inputs porep|window-post|winning-post'");
    const char *kind = argv[2];
    if (!strcmp(kind, "porep"))
        return inputs_porep(argc - 2, argv + 2);
    if (!strcmp(kind, "window-post"))
        return inputs_post(argc - 2, argv + 2, false);
    if (!strcmp(kind, "winning-post"))
        return inputs_post(argc - 2, argv + 2, true);
    return cli_usage_error(usage, "unknown proof kind '%s' (porep, window-post, winning-post)", kind);
}
