/* Filecoin public inputs (see filecoin.h), following storage-proofs
 * (rust-fil-proofs): stacked/circuit/proof.rs generate_public_inputs,
 * stacked/vanilla/challenges.rs (interactive challenges), drgraph.rs
 * (BucketGraph parents: ChaCha8 bucket sampling), stacked/vanilla/graph.rs
 * with crypto/feistel.rs (expander parents), fallback/compound.rs and
 * vanilla.rs (PoSt leaf challenges), filecoin-proofs constants.rs and
 * parameters.rs (partitions, challenges per partition, sectors per PoSt
 * partition). SHA-256 and BLAKE2b-512 come from libcrypto; ChaCha8 is here
 * (libcrypto's ChaCha20 has 20 rounds). */
#include "filecoin/filecoin.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>

#include "curve/bls12_381.h"

/* ---- parameters ----------------------------------------------------------------- */

typedef struct {
    uint64_t bytes;
    const char *name;
    unsigned porep_partitions;
    unsigned porep_min_challenges;
    unsigned window_sectors;
} sector_info;

static const sector_info SECTORS[] = {
    {1ull << 11, "2KiB", 1, 2, 2},      {1ull << 12, "4KiB", 1, 2, 2},      {1ull << 14, "16KiB", 1, 2, 2},
    {1ull << 15, "32KiB", 1, 2, 2},     {1ull << 23, "8MiB", 1, 2, 2},      {1ull << 24, "16MiB", 1, 2, 2},
    {1ull << 29, "512MiB", 1, 2, 2},    {1ull << 30, "1GiB", 1, 2, 2},      {1ull << 35, "32GiB", 10, 176, 2349},
    {1ull << 36, "64GiB", 10, 176, 2300},
};

enum { DRG_DEGREE = 6, EXP_DEGREE = 8, WINDOW_CHALLENGES = 10, WINNING_CHALLENGES = 66 };

static const sector_info *sector_get(uint64_t bytes)
{
    for (size_t i = 0; i < CUZK_ARRAY_LEN(SECTORS); i++)
        if (SECTORS[i].bytes == bytes)
            return &SECTORS[i];
    return NULL;
}

bool cuzk_fil_api_parse(const char *s, cuzk_fil_api *api)
{
    static const struct {
        const char *n;
        cuzk_fil_api a;
    } A[] = {{"1.0.0", CUZK_FIL_API_1_0}, {"1.0", CUZK_FIL_API_1_0}, {"1.1.0", CUZK_FIL_API_1_1},
             {"1.1", CUZK_FIL_API_1_1},   {"1.2.0", CUZK_FIL_API_1_2}, {"1.2", CUZK_FIL_API_1_2}};
    for (size_t i = 0; s && i < CUZK_ARRAY_LEN(A); i++)
        if (!strcmp(s, A[i].n)) {
            *api = A[i].a;
            return true;
        }
    return false;
}

bool cuzk_fil_sector_size_parse(const char *s, uint64_t *bytes)
{
    if (!s || !*s)
        return false;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || v == 0)
        return false;
    uint64_t mul = 1;
    if (*end) {
        char u = (char)toupper((unsigned char)*end);
        const char *rest = end + 1;
        if (u == 'K')
            mul = 1ull << 10;
        else if (u == 'M')
            mul = 1ull << 20;
        else if (u == 'G')
            mul = 1ull << 30;
        else
            return false;
        if (*rest && strcasecmp(rest, "iB") && strcasecmp(rest, "B"))
            return false;
    }
    if (v > UINT64_MAX / mul)
        return false;
    *bytes = v * mul;
    return sector_get(*bytes) != NULL;
}

bool cuzk_fil_hex32(uint8_t out[32], const char *hex)
{
    if (!hex)
        return false;
    if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X'))
        hex += 2;
    if (strlen(hex) != 64)
        return false;
    for (int i = 0; i < 32; i++) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = hex[2 * i + k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                return false;
            v = v * 16 + d;
        }
        out[i] = (uint8_t)v;
    }
    return true;
}

/* ---- hashes ----------------------------------------------------------------------- */

static void sha256_parts(uint8_t out[32], const void *const *parts, const size_t *lens, size_t n)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned len = 32;
    int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1;
    for (size_t i = 0; ok && i < n; i++)
        ok = EVP_DigestUpdate(c, parts[i], lens[i]) == 1;
    ok = ok && EVP_DigestFinal_ex(c, out, &len) == 1;
    EVP_MD_CTX_free(c);
    if (!ok)
        memset(out, 0, 32); /* libcrypto without SHA-256 cannot happen (checked by the callers' tests) */
}

static bool lt_r(const uint8_t le[32])
{
    bls12_381_fr_t v;
    for (int l = 0; l < 4; l++) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--)
            w = w << 8 | le[8 * l + k];
        v.l[l] = w;
    }
    return bls12_381_fr_raw_is_canonical(&v);
}

static void put_bytes(uint64_t v[4], const uint8_t le[32])
{
    for (int l = 0; l < 4; l++) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--)
            w = w << 8 | le[8 * l + k];
        v[l] = w;
    }
}

static void put_u64(uint64_t v[4], uint64_t x)
{
    v[0] = x;
    v[1] = v[2] = v[3] = 0;
}

static bool all_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return false;
    return true;
}

/* ---- ChaCha8 (rand_chacha ChaCha8Rng) ------------------------------------------- */

static inline uint32_t rotl32(uint32_t x, int k) { return x << k | x >> (32 - k); }

#define QR(a, b, c, d)                                                                                                 \
    do {                                                                                                               \
        a += b;                                                                                                        \
        d = rotl32(d ^ a, 16);                                                                                         \
        c += d;                                                                                                        \
        b = rotl32(b ^ c, 12);                                                                                         \
        a += b;                                                                                                        \
        d = rotl32(d ^ a, 8);                                                                                          \
        c += d;                                                                                                        \
        b = rotl32(b ^ c, 7);                                                                                          \
    } while (0)

static void chacha8_block(const uint32_t key[8], uint64_t counter, uint32_t out[16])
{
    uint32_t s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    memcpy(s + 4, key, 32);
    s[12] = (uint32_t)counter;
    s[13] = (uint32_t)(counter >> 32);
    s[14] = s[15] = 0; /* stream 0 */
    uint32_t x[16];
    memcpy(x, s, sizeof x);
    for (int r = 0; r < 8; r += 2) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        out[i] = x[i] + s[i];
}

typedef struct {
    uint32_t key[8];
    uint64_t block; /* next block to generate */
    uint32_t buf[16];
    unsigned pos;   /* next word of buf; 16 = empty */
} chacha8_rng;

static void chacha8_init(chacha8_rng *g, const uint8_t seed[32])
{
    for (int i = 0; i < 8; i++)
        g->key[i] = (uint32_t)seed[4 * i] | (uint32_t)seed[4 * i + 1] << 8 | (uint32_t)seed[4 * i + 2] << 16 |
                    (uint32_t)seed[4 * i + 3] << 24;
    g->block = 0;
    g->pos = 16;
}

static uint32_t chacha8_u32(chacha8_rng *g)
{
    if (g->pos == 16) {
        chacha8_block(g->key, g->block++, g->buf);
        g->pos = 0;
    }
    return g->buf[g->pos++];
}

/* rand_core's BlockRng::next_u64: two consecutive words, low first (also
 * across a block boundary). */
static uint64_t chacha8_u64(chacha8_rng *g)
{
    uint64_t lo = chacha8_u32(g);
    return lo | (uint64_t)chacha8_u32(g) << 32;
}

void cuzk_fil_chacha8_words(const uint8_t key[32], uint64_t first_word, uint32_t *out, size_t n)
{
    chacha8_rng g;
    chacha8_init(&g, key);
    g.block = first_word / 16;
    unsigned skip = (unsigned)(first_word % 16);
    for (unsigned i = 0; i < skip; i++)
        (void)chacha8_u32(&g);
    for (size_t i = 0; i < n; i++)
        out[i] = chacha8_u32(&g);
}

/* ---- graphs ---------------------------------------------------------------------- */

static void porep_domain_seed(uint8_t out[32], const char *dst, const uint8_t porep_id[32])
{
    const void *p[2] = {dst, porep_id};
    size_t l[2] = {strlen(dst), 32};
    sha256_parts(out, p, l, 2);
}

static void drg_parents(uint32_t out[6], uint64_t nodes, const uint8_t drg_seed[28], cuzk_fil_api api, uint32_t node)
{
    (void)nodes;
    if (node < 2) {
        memset(out, 0, 6 * sizeof *out);
        return;
    }
    uint8_t seed[32];
    memcpy(seed, drg_seed, 28);
    for (int i = 0; i < 4; i++)
        seed[28 + i] = (uint8_t)(node >> (8 * i));
    chacha8_rng g;
    chacha8_init(&g, seed);
    const uint64_t m_prime = DRG_DEGREE - 1, meta = (uint64_t)node * m_prime;
    /* n_buckets = ceil(log2(meta)) (an f64 log2 in Rust; exact here: meta
     * < 2^54 is exact in a double and log2 of a non-power of two is never
     * within rounding of an integer at these sizes) = bit length of meta-1. */
    uint64_t n_buckets = 64 - (uint64_t)__builtin_clzll(meta - 1);
    uint32_t *other = api == CUZK_FIL_API_1_0 ? out : out + 1;
    for (unsigned k = 0; k < m_prime; k++) {
        uint64_t bucket = chacha8_u64(&g) % n_buckets + 1;
        uint64_t largest = CUZK_MIN(meta, 1ull << bucket);
        uint64_t smallest = CUZK_MAX(2, largest >> 1);
        uint64_t n_dist = largest - smallest + 1;
        uint64_t distance = smallest + chacha8_u64(&g) % n_dist;
        uint32_t mapped = (uint32_t)((meta - distance) / m_prime);
        other[k] = mapped == node ? node - 1 : mapped;
    }
    out[api == CUZK_FIL_API_1_0 ? m_prime : 0] = node - 1;
}

typedef struct {
    uint64_t keys[4];
    uint64_t left_mask, right_mask, half_bits;
    uint64_t n;
} feistel;

static void feistel_init(feistel *f, uint64_t n, const uint8_t porep_id[32])
{
    uint8_t s[32];
    porep_domain_seed(s, "Filecoin_Feistel", porep_id);
    for (int k = 0; k < 4; k++) {
        uint64_t v = 0;
        for (int b = 7; b >= 0; b--)
            v = v << 8 | s[8 * k + b];
        f->keys[k] = v;
    }
    uint64_t next_pow4 = 4, log4 = 1;
    while (next_pow4 < n) {
        next_pow4 *= 4;
        log4++;
    }
    f->left_mask = ((1ull << log4) - 1) << log4;
    f->right_mask = (1ull << log4) - 1;
    f->half_bits = log4;
    f->n = n;
}

static uint64_t feistel_round(const EVP_MD *md, uint64_t right, uint64_t key, uint64_t mask)
{
    uint8_t data[16], h[64];
    for (int i = 0; i < 8; i++) {
        data[i] = (uint8_t)(right >> (56 - 8 * i));
        data[8 + i] = (uint8_t)(key >> (56 - 8 * i));
    }
    unsigned len = 64;
    if (EVP_Digest(data, 16, h, &len, md, NULL) != 1)
        memset(h, 0, sizeof h);
    uint64_t r = 0;
    for (int i = 0; i < 8; i++)
        r = r << 8 | h[i];
    return r & mask;
}

static uint64_t feistel_encode(const feistel *f, const EVP_MD *md, uint64_t index)
{
    uint64_t left = (index & f->left_mask) >> f->half_bits, right = index & f->right_mask;
    for (int k = 0; k < 3; k++) { /* FEISTEL_ROUNDS */
        uint64_t l = right, r = left ^ feistel_round(md, right, f->keys[k], f->right_mask);
        left = l;
        right = r;
    }
    return left << f->half_bits | right;
}

static void exp_parents(uint32_t out[8], const feistel *f, const EVP_MD *md, cuzk_fil_api api, uint64_t node)
{
    for (unsigned i = 0; i < EXP_DEGREE; i++) {
        uint64_t u = feistel_encode(f, md, node * EXP_DEGREE + i);
        while (u >= f->n) /* cycle walk */
            u = feistel_encode(f, md, u);
        out[i] = api == CUZK_FIL_API_1_0 ? (uint32_t)u / EXP_DEGREE : (uint32_t)(u / EXP_DEGREE);
    }
}

static cuzk_status graph_check(uint64_t nodes, uint64_t node, cuzk_error *err)
{
    if (nodes < 2 || nodes > (1ull << 31) || node >= nodes)
        return cuzk_err(err, CUZK_ERR_USAGE, "node %llu outside a graph of %llu nodes", (unsigned long long)node,
                        (unsigned long long)nodes);
    return CUZK_OK;
}

cuzk_status cuzk_fil_drg_parents(uint32_t out[6], uint64_t nodes, const uint8_t porep_id[32], cuzk_fil_api api,
                                 uint64_t node, cuzk_error *err)
{
    cuzk_status st = graph_check(nodes, node, err);
    if (st)
        return st;
    uint8_t s[32];
    porep_domain_seed(s, "Filecoin_DRSample", porep_id);
    drg_parents(out, nodes, s, api, (uint32_t)node);
    return CUZK_OK;
}

cuzk_status cuzk_fil_exp_parents(uint32_t out[8], uint64_t nodes, const uint8_t porep_id[32], cuzk_fil_api api,
                                 uint64_t node, cuzk_error *err)
{
    cuzk_status st = graph_check(nodes, node, err);
    if (st)
        return st;
    feistel f;
    feistel_init(&f, nodes * EXP_DEGREE, porep_id);
    exp_parents(out, &f, EVP_blake2b512(), api, node);
    return CUZK_OK;
}

/* ---- PoRep ------------------------------------------------------------------------- */

void cuzk_fil_replica_id(uint8_t out[32], const cuzk_fil_porep *in)
{
    uint8_t sid[8];
    for (int i = 0; i < 8; i++)
        sid[i] = (uint8_t)(in->sector_id >> (56 - 8 * i)); /* big-endian */
    const void *p[5] = {in->prover_id, sid, in->ticket, in->comm_d, in->porep_id};
    size_t l[5] = {32, 8, 32, 32, 32};
    sha256_parts(out, p, l, 5);
    out[31] &= 0x3f; /* fr32 bytes_into_fr_repr_safe */
}

static cuzk_status check_commitment(const uint8_t c[32], const char *what, cuzk_error *err)
{
    if (all_zero(c, 32))
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: an all-zero commitment is invalid", what);
    if (!lt_r(c))
        return cuzk_err(err, CUZK_ERR_USAGE, "%s: not a field element (>= r as a little-endian integer)", what);
    return CUZK_OK;
}

cuzk_status cuzk_fil_porep_inputs(const cuzk_fil_porep *in, uint64_t (**values)[4], size_t *n_parts,
                                  size_t *n_each, cuzk_error *err)
{
    *values = NULL;
    *n_parts = *n_each = 0;
    const sector_info *si = sector_get(in->sector_size);
    if (!si)
        return cuzk_err(err, CUZK_ERR_USAGE, "sector size %llu: not a Filecoin sector size",
                        (unsigned long long)in->sector_size);
    cuzk_status st = check_commitment(in->comm_r, "comm_r", err);
    if (!st)
        st = check_commitment(in->comm_d, "comm_d", err);
    if (st)
        return st;
    const uint64_t nodes = in->sector_size / 32;
    const unsigned parts = si->porep_partitions;
    const unsigned cpp = (si->porep_min_challenges + parts - 1) / parts; /* div_ceil */
    const size_t each = 3 + (size_t)cpp * (1 + DRG_DEGREE + EXP_DEGREE + 3);
    uint64_t(*v)[4] = cuzk_alloc((size_t)parts * each, 32);
    if (!v)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    uint8_t replica_id[32], drg_seed[32];
    cuzk_fil_replica_id(replica_id, in);
    porep_domain_seed(drg_seed, "Filecoin_DRSample", in->porep_id);
    feistel f;
    feistel_init(&f, nodes * EXP_DEGREE, in->porep_id);
    const EVP_MD *b2b = EVP_blake2b512();
    for (unsigned k = 0; k < parts; k++) {
        uint64_t(*o)[4] = v + (size_t)k * each;
        put_bytes(*o++, replica_id);
        put_bytes(*o++, in->comm_d);
        put_bytes(*o++, in->comm_r);
        for (unsigned i = 0; i < cpp; i++) {
            uint32_t j = cpp * k + i;
            uint8_t jle[4] = {(uint8_t)j, (uint8_t)(j >> 8), (uint8_t)(j >> 16), (uint8_t)(j >> 24)}, h[32];
            const void *p[3] = {replica_id, in->seed, jle};
            size_t l[3] = {32, 32, 4};
            sha256_parts(h, p, l, 3);
            uint64_t rem = 0; /* the hash as a little-endian integer mod (nodes - 1) */
            for (int b = 31; b >= 0; b--)
                rem = (rem << 8 | h[b]) % (nodes - 1);
            uint32_t c = (uint32_t)(rem + 1);
            uint32_t drg[DRG_DEGREE], exp[EXP_DEGREE];
            drg_parents(drg, nodes, drg_seed, in->api, c);
            exp_parents(exp, &f, b2b, in->api, c);
            put_u64(*o++, c);
            for (int d = 0; d < DRG_DEGREE; d++)
                put_u64(*o++, drg[d]);
            for (int d = 0; d < EXP_DEGREE; d++)
                put_u64(*o++, exp[d]);
            for (int d = 0; d < 3; d++)
                put_u64(*o++, c);
        }
    }
    *values = v;
    *n_parts = parts;
    *n_each = each;
    return CUZK_OK;
}

/* ---- PoSt ------------------------------------------------------------------------- */

static int cmp_idx(const void *a, const void *b, void *ctx)
{
    const uint64_t *ids = ctx;
    uint64_t x = ids[*(const size_t *)a], y = ids[*(const size_t *)b];
    return x < y ? -1 : x > y;
}

cuzk_status cuzk_fil_post_inputs(const cuzk_fil_post *in, uint64_t (**values)[4], size_t *n_parts, size_t *n_each,
                                 cuzk_error *err)
{
    *values = NULL;
    *n_parts = *n_each = 0;
    const sector_info *si = sector_get(in->sector_size);
    if (!si)
        return cuzk_err(err, CUZK_ERR_USAGE, "sector size %llu: not a Filecoin sector size",
                        (unsigned long long)in->sector_size);
    if (!in->n_sectors)
        return cuzk_err(err, CUZK_ERR_USAGE, "no sectors");
    const size_t per_part = in->winning ? 1 : si->window_sectors;
    const unsigned n_ch = in->winning ? WINNING_CHALLENGES : WINDOW_CHALLENGES;
    if (in->winning && in->n_sectors != 1)
        return cuzk_err(err, CUZK_ERR_USAGE, "winning PoSt proves exactly one sector (%zu given)", in->n_sectors);
    if (!lt_r(in->randomness))
        return cuzk_err(err, CUZK_ERR_USAGE, "randomness: not a field element (>= r as a little-endian integer)");
    for (size_t i = 0; i < in->n_sectors; i++) {
        char what[48];
        snprintf(what, sizeof what, "comm_r of sector %llu", (unsigned long long)in->sector_ids[i]);
        cuzk_status st = check_commitment(in->comm_r[i], what, err);
        if (st)
            return st;
    }
    size_t *ord = malloc(in->n_sectors * sizeof *ord);
    if (!ord)
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < in->n_sectors; i++)
        ord[i] = i;
    qsort_r(ord, in->n_sectors, sizeof *ord, cmp_idx, (void *)in->sector_ids);
    for (size_t i = 1; i < in->n_sectors; i++)
        if (in->sector_ids[ord[i]] == in->sector_ids[ord[i - 1]]) {
            uint64_t dup = in->sector_ids[ord[i]];
            free(ord);
            return cuzk_err(err, CUZK_ERR_USAGE, "sector %llu given twice", (unsigned long long)dup);
        }
    const size_t parts = (in->n_sectors + per_part - 1) / per_part;
    const size_t per_sector = 1 + n_ch, each = per_part * per_sector;
    uint64_t(*v)[4] = cuzk_alloc(parts * each, 32);
    if (!v) {
        free(ord);
        return cuzk_err(err, CUZK_ERR_NOMEM, "out of memory");
    }
    const uint64_t leaves = in->sector_size / 32;
    for (size_t k = 0; k < parts; k++) {
        uint64_t(*o)[4] = v + k * each;
        size_t first = k * per_part, n = CUZK_MIN(per_part, in->n_sectors - first);
        for (size_t i = 0; i < n; i++) {
            size_t s = ord[first + i];
            put_bytes(*o++, in->comm_r[s]);
            uint8_t sid[8];
            for (int b = 0; b < 8; b++)
                sid[b] = (uint8_t)(in->sector_ids[s] >> (8 * b)); /* little-endian */
            uint64_t sector_index = k * per_part + i;
            for (unsigned c = 0; c < n_ch; c++) {
                uint64_t ci = in->api == CUZK_FIL_API_1_2 ? c : sector_index * n_ch + c;
                uint8_t cle[8], h[32];
                for (int b = 0; b < 8; b++)
                    cle[b] = (uint8_t)(ci >> (8 * b));
                const void *p[3] = {in->randomness, sid, cle};
                size_t l[3] = {32, 8, 8};
                sha256_parts(h, p, l, 3);
                uint64_t leaf = 0;
                for (int b = 7; b >= 0; b--)
                    leaf = leaf << 8 | h[b];
                put_u64(*o++, leaf % leaves);
            }
        }
        /* A short chunk repeats its last sector's inputs. */
        for (size_t i = n; i < per_part; i++, o += per_sector)
            memcpy(o, o - per_sector, per_sector * 32);
    }
    free(ord);
    *values = v;
    *n_parts = parts;
    *n_each = each;
    return CUZK_OK;
}
