/* GPU prover kernels (src/gpu/g16/g16.h) against the CPU, bit-exact: a, b, c
 * from random coefficient records (any order, empty rows, repeated signals)
 * and witnesses (0, 1 and random values), computed here with the CPU field
 * code term by term; then h = a.b - c after the three odd-coset NTTs, the
 * CPU's ntt_coset_odd against cuzk_gpu_ntt_run, in the 3-vector and the
 * 2-vector order (c evaluated again after b's coset product), and in the
 * 1-vector order with a.b in page-locked host memory read in place. Exits 77
 * ("skipped") without a CUDA device or without CUDA in the library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pthread.h>
#include <unistd.h>

#include "cuzk/dev.h"
#include "cuzk/gpu.h"
#include "groth16/curve_ops.h"
#include "gpu/device/gpu_mem.h"
#include "formats/formats.h"
#include "gpu/g16/g16.h"
#include "gpu/g16/g16_backend.h"
#include "gpu/g16/wpack.h"
#include "groth16/abc_plan.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/rng.h"
#include "util/threadpool.h"
#include "groth16/insecure.h"

static cuzk_pool *g_pool;

/* The records as the zkey stores them: 44-byte records (u32 matrix,
 * constraint, signal, 32-byte value), unaligned, in random order. */
typedef struct {
    uint8_t *rec;
    size_t n;
    cuzk_gpu_g16_coefs co;
} records;

#define REC 44

static void records_make(records *r, size_t n_rows, uint32_t n_vars, uint64_t seed, void (*rand_fr)(void *, uint64_t *))
{
    /* 0..4 terms per row and matrix, every fifth row empty in A */
    size_t cap = n_rows * 8 + 1;
    r->rec = malloc(cap * REC);
    assert_non_null(r->rec);
    r->n = 0;
    for (size_t row = 0; row < n_rows; row++)
        for (uint32_t m = 0; m < 2; m++) {
            unsigned k = (unsigned)(cuzk_splitmix64(&seed) % 5);
            if (m == 0 && row % 5 == 4)
                k = 0;
            for (unsigned t = 0; t < k && r->n < cap; t++) {
                uint8_t *p = r->rec + r->n * REC;
                uint32_t c = (uint32_t)row, s = (uint32_t)(cuzk_splitmix64(&seed) % n_vars);
                memcpy(p, &m, 4);
                memcpy(p + 4, &c, 4);
                memcpy(p + 8, &s, 4);
                rand_fr(p + 12, &seed);
                r->n++;
            }
        }
    /* shuffle: the GPU CSR takes any order */
    uint8_t tmp[REC];
    for (size_t i = r->n; i > 1; i--) {
        size_t j = cuzk_splitmix64(&seed) % i;
        memcpy(tmp, r->rec + (i - 1) * REC, REC);
        memcpy(r->rec + (i - 1) * REC, r->rec + j * REC, REC);
        memcpy(r->rec + j * REC, tmp, REC);
    }
    r->co = (cuzk_gpu_g16_coefs){.n = r->n, .matrix = r->rec, .constraint = r->rec + 4, .signal = r->rec + 8,
                                 .value = r->rec + 12, .stride = REC, .vstride = REC};
}

static int cmp32(const void *x, const void *y) { return memcmp(x, y, 32); }

/* How many distinct values the records hold (sorted, not hashed: an
 * independent count for the CSR's table of them). */
static size_t distinct_values(const records *r)
{
    uint8_t *v = malloc((r->n ? r->n : 1) * 32);
    assert_non_null(v);
    for (size_t i = 0; i < r->n; i++) memcpy(v + 32 * i, r->rec + i * REC + 12, 32);
    qsort(v, r->n, 32, cmp32);
    size_t d = 0;
    for (size_t i = 0; i < r->n; i++) d += i == 0 || memcmp(v + 32 * i, v + 32 * (i - 1), 32) != 0;
    free(v);
    return d;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Per-curve reference, written once. */
#define G16_GLUE(C)                                                                                  \
    static void C##_rand_mont(void *out, uint64_t *seed)                                             \
    {                                                                                                \
        C##_fr_t raw, m;                                                                             \
        for (int j = 0; j < 4; j++) raw.l[j] = cuzk_splitmix64(seed);                                \
        raw.l[3] &= 0x0fffffffffffffffULL;                                                           \
        C##_fr_to_mont(&m, &raw);                                                                    \
        memcpy(out, &m, 32);                                                                         \
    }                                                                                                \
    /* witness: raw, a third 0, a third 1, the rest random (r - 1 once) */                           \
    static void C##_witness(C##_fr_t *w, size_t n, uint64_t seed)                                    \
    {                                                                                                \
        for (size_t i = 0; i < n; i++) {                                                             \
            memset(&w[i], 0, sizeof w[i]);                                                           \
            uint64_t k = cuzk_splitmix64(&seed) % 3;                                                 \
            if (k == 1)                                                                              \
                w[i].l[0] = 1;                                                                       \
            else if (k == 2) {                                                                       \
                for (int j = 0; j < 4; j++) w[i].l[j] = cuzk_splitmix64(&seed);                      \
                w[i].l[3] &= 0x0fffffffffffffffULL;                                                  \
            }                                                                                        \
        }                                                                                            \
        if (n > 1) {                                                                                 \
            C##_fr_t one;                                                                            \
            C##_fr_set_one(&one);                                                                    \
            C##_fr_neg(&w[n - 1], &one);                                                             \
            C##_fr_from_mont(&w[n - 1], &w[n - 1]);                                                  \
        }                                                                                            \
    }                                                                                                \
    /* a, b, c term by term from the records; then h after the NTTs */                               \
    static void C##_reference(const cuzk_gpu_g16_coefs *co, const C##_fr_t *w, size_t n, unsigned lg,  \
                              C##_fr_t *a, C##_fr_t *b, C##_fr_t *c, C##_fr_t *h)                    \
    {                                                                                                \
        memset(a, 0, n * sizeof *a);                                                                 \
        memset(b, 0, n * sizeof *b);                                                                 \
        for (size_t i = 0; i < co->n; i++) {                                                         \
            C##_fr_t v, t;                                                                           \
            memcpy(&v, co->value + i * co->vstride, 32);                                             \
            C##_fr_mul(&t, &v, &w[rd32(co->signal + i * co->stride)]);                               \
            uint32_t row = rd32(co->constraint + i * co->stride);                                    \
            C##_fr_t *dst = rd32(co->matrix + i * co->stride) == 0 ? &a[row] : &b[row];              \
            C##_fr_add(dst, dst, &t);                                                                \
        }                                                                                            \
        for (size_t i = 0; i < n; i++) C##_fr_mul(&c[i], &a[i], &b[i]);                              \
        C##_ntt_domain *d = NULL;                                                                    \
        cuzk_error e = {0};                                                                          \
        C##_fr_t *x = malloc(3 * n * sizeof *x);                                                     \
        assert_non_null(x);                                                                          \
        memcpy(x, a, n * sizeof *x);                                                                 \
        memcpy(x + n, b, n * sizeof *x);                                                             \
        memcpy(x + 2 * n, c, n * sizeof *x);                                                         \
        assert_int_equal(C##_ntt_domain_create(&d, lg, g_pool, &e), CUZK_OK);                        \
        for (int k = 0; k < 3; k++) assert_int_equal(C##_ntt_coset_odd(d, x + k * n, g_pool, &e), CUZK_OK); \
        C##_ntt_domain_free(d);                                                                      \
        for (size_t i = 0; i < n; i++) {                                                             \
            C##_fr_t t;                                                                              \
            C##_fr_mul(&t, &x[i], &x[n + i]);                                                        \
            C##_fr_sub(&t, &t, &x[2 * n + i]);                                                       \
            C##_fr_from_mont(&h[i], &t);                                                             \
        }                                                                                            \
        free(x);                                                                                     \
    }

G16_GLUE(bn254)
G16_GLUE(bls12_381)

static int g_have_device;

static int setup(void **state)
{
    (void)state;
    g_pool = cuzk_pool_create(0);
    assert_non_null(g_pool);
    g_have_device = cuzk_gpu_device_count() > 0;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cuzk_pool_destroy(g_pool);
    return 0;
}

static void *dev(size_t bytes)
{
    void *p = NULL;
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_dev_alloc(&p, bytes, 0, &e), CUZK_OK);
    return p;
}

static void down(void *host, const void *d, size_t bytes)
{
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_copy(host, d, bytes, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_stream_sync(NULL, &e), CUZK_OK);
}

static void up(void *d, const void *host, size_t bytes)
{
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_copy(d, host, bytes, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_stream_sync(NULL, &e), CUZK_OK);
}

static void expect_equal(const void *want, const void *got, size_t n, const char *what, cuzk_curve curve, unsigned lg)
{
    if (memcmp(want, got, n * 32) == 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (memcmp((const uint8_t *)want + 32 * i, (const uint8_t *)got + 32 * i, 32))
            fail_msg("%s differs at %zu (curve %d, 2^%u)", what, i, (int)curve, lg);
}

/* The device vectors a, b, c equal ref's (a, b, c at n * 32 bytes apart),
 * read back through got; `how` is added to their names in a failure. */
static void expect_abc(const uint8_t *ref, const void *da, const void *db, const void *dc, uint8_t *got, size_t n,
                       const char *how, cuzk_curve curve, unsigned lg)
{
    const void *d[3] = {da, db, dc};
    for (int v = 0; v < 3; v++) {
        char what[32];
        snprintf(what, sizeof what, "%c%s", "abc"[v], how);
        down(got, d[v], n * 32);
        expect_equal(ref + (size_t)v * n * 32, got, n, what, curve, lg);
    }
}

/* One size on one curve: abc, the 3-vector quotient and the 2-vector one. */
/* few: the records' values drawn from 5 (as a circuit's: the CSR stores
 * them as indices into a table of the distinct values, coef_dict.h), else
 * all random (stored whole but where a streamed buffer holds them all) */
static void run_case(cuzk_curve curve, unsigned lg, uint64_t seed, bool few)
{
    const size_t n = (size_t)1 << lg;
    const uint32_t n_vars = (uint32_t)(n / 2 + 3);
    records r;
    records_make(&r, n, n_vars, seed, curve == CUZK_CURVE_BN254 ? bn254_rand_mont : bls12_381_rand_mont);
    for (size_t i = 5; few && i < r.n; i++) memcpy(r.rec + i * REC + 12, r.rec + (i % 5) * REC + 12, 32);
    uint8_t *w = malloc(n_vars * 32), *ref = malloc(4 * n * 32), *got = malloc(n * 32);
    assert_true(w && ref && got);
    uint8_t *ra = ref, *rb = ref + n * 32, *rc = ref + 2 * n * 32, *rh = ref + 3 * n * 32;
    if (curve == CUZK_CURVE_BN254) {
        bn254_witness((bn254_fr_t *)w, n_vars, seed ^ 1);
        bn254_reference(&r.co, (bn254_fr_t *)w, n, lg, (bn254_fr_t *)ra, (bn254_fr_t *)rb, (bn254_fr_t *)rc,
                        (bn254_fr_t *)rh);
    } else {
        bls12_381_witness((bls12_381_fr_t *)w, n_vars, seed ^ 1);
        bls12_381_reference(&r.co, (bls12_381_fr_t *)w, n, lg, (bls12_381_fr_t *)ra, (bls12_381_fr_t *)rb,
                            (bls12_381_fr_t *)rc, (bls12_381_fr_t *)rh);
    }
    cuzk_error e = {0};
    cuzk_gpu_g16_csr *csr = NULL;
    assert_int_equal(cuzk_gpu_g16_csr_create(&csr, curve, (uint32_t)n, n_vars, &r.co, 0, 0, &e), CUZK_OK);
    /* resident: a table of at most half as many values as records */
    const size_t nd = distinct_values(&r);
    if (few)
        assert_true(nd <= 5);
    assert_int_equal(cuzk_gpu_g16_csr_value_bytes(csr), r.n && nd <= r.n / 2 ? 4 : 32);
    cuzk_gpu_ntt *ntt = NULL;
    assert_int_equal(cuzk_gpu_ntt_create(&ntt, curve, lg, 0, &e), CUZK_OK);
    void *dw = dev(n_vars * 32), *da = dev(n * 32), *db = dev(n * 32), *dc = dev(n * 32);
    up(dw, w, n_vars * 32);

    /* a, b, c */
    assert_int_equal(cuzk_gpu_g16_abc(csr, dw, da, db, dc, NULL, &e), CUZK_OK);
    expect_abc(ref, da, db, dc, got, n, "", curve, lg);
    /* streamed CSRs: ranges of rows of at most 16 records (a row has at
     * most 8) in two buffers, and all records in one */
    for (int t = 0; t < 2; t++) {
        cuzk_gpu_g16_csr *sc = NULL;
        size_t chunk = t == 0 ? 16 : r.n + 1;
        assert_int_equal(cuzk_gpu_g16_csr_create(&sc, curve, (uint32_t)n, n_vars, &r.co, chunk, 0, &e), CUZK_OK);
        /* streamed: a table of at most a chunk's count of values */
        assert_int_equal(cuzk_gpu_g16_csr_value_bytes(sc), r.n && nd <= chunk ? 4 : 32);
        assert_int_equal(cuzk_gpu_g16_abc(sc, dw, da, db, dc, NULL, &e), CUZK_ERR_USAGE); /* not acquired */
        for (int rep = 0; rep < 2; rep++) {
            assert_int_equal(cuzk_gpu_g16_csr_acquire(sc, &e), CUZK_OK);
            assert_int_equal(cuzk_gpu_g16_abc(sc, dw, da, db, dc, NULL, &e), CUZK_OK);
            expect_abc(ref, da, db, dc, got, n, " (streamed)", curve, lg);
            cuzk_gpu_g16_csr_release(sc);
        }
        cuzk_gpu_g16_csr_destroy(sc);
    }

    /* 3 vectors: three odd cosets, then h */
    assert_int_equal(cuzk_gpu_ntt_run(ntt, da, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(ntt, db, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(ntt, dc, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_g16_pointwise(curve, da, db, dc, n, CUZK_GPU_G16_QUOTIENT, NULL, &e), CUZK_OK);
    down(got, da, n * 32);
    expect_equal(rh, got, n, "h (3 vectors)", curve, lg);

    /* 2 vectors: a, b; their cosets; a = a.b; c alone into b's buffer */
    assert_int_equal(cuzk_gpu_g16_abc(csr, dw, da, db, NULL, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(ntt, da, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(ntt, db, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_g16_pointwise(curve, da, db, NULL, n, CUZK_GPU_G16_MUL, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_g16_abc(csr, dw, NULL, NULL, db, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(ntt, db, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_g16_pointwise(curve, da, NULL, db, n, CUZK_GPU_G16_SUB, NULL, &e), CUZK_OK);
    down(got, da, n * 32);
    expect_equal(rh, got, n, "h (2 vectors)", curve, lg);

    /* 1 vector and page-locked host memory P read in place (bellperson
     * mode's tier 7; unified addressing: P's address is the device's): a's
     * coset into P; b's coset; b = b.P into P; c's coset; c = from_mont(P - c)
     * (RSUB, into c's buffer); then RSUB with P's copy on the device */
    void *hp = NULL;
    assert_int_equal(cuzk_gpu_host_alloc(&hp, n * 32, &e), CUZK_OK);
    memset(hp, 0, n * 32);
    assert_int_equal(cuzk_gpu_g16_abc(csr, dw, da, db, NULL, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(ntt, da, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    down(hp, da, n * 32);
    assert_int_equal(cuzk_gpu_ntt_run(ntt, db, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_g16_pointwise(curve, db, hp, NULL, n, CUZK_GPU_G16_MUL, NULL, &e), CUZK_OK);
    down(hp, db, n * 32);
    assert_int_equal(cuzk_gpu_g16_abc(csr, dw, NULL, NULL, dc, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_ntt_run(ntt, dc, lg, CUZK_GPU_NTT_ODD_COSET, NULL, &e), CUZK_OK);
    down(got, dc, n * 32);
    up(db, got, n * 32); /* c's coset, for the device RSUB */
    up(da, hp, n * 32);  /* a.b */
    assert_int_equal(cuzk_gpu_g16_pointwise(curve, hp, NULL, dc, n, CUZK_GPU_G16_RSUB, NULL, &e), CUZK_OK);
    down(got, dc, n * 32);
    expect_equal(rh, got, n, "h (1 vector, a.b in host memory)", curve, lg);
    assert_int_equal(cuzk_gpu_g16_pointwise(curve, da, NULL, db, n, CUZK_GPU_G16_RSUB, NULL, &e), CUZK_OK);
    down(got, db, n * 32);
    expect_equal(rh, got, n, "h (RSUB, device buffers)", curve, lg);
    /* RSUB needs a and c, not b */
    assert_int_equal(cuzk_gpu_g16_pointwise(curve, hp, NULL, NULL, n, CUZK_GPU_G16_RSUB, NULL, &e), CUZK_ERR_USAGE);
    assert_int_equal(cuzk_gpu_g16_pointwise(curve, NULL, db, dc, n, CUZK_GPU_G16_RSUB, NULL, &e), CUZK_ERR_USAGE);
    cuzk_gpu_host_free(hp);

    cuzk_gpu_dev_free(dw, 0);
    cuzk_gpu_dev_free(da, 0);
    cuzk_gpu_dev_free(db, 0);
    cuzk_gpu_dev_free(dc, 0);
    cuzk_gpu_ntt_destroy(ntt);
    cuzk_gpu_g16_csr_destroy(csr);
    free(r.rec);
    free(w);
    free(ref);
    free(got);
}

static unsigned max_lg(void)
{
    /* CUZK_GPU_TEST_MAX_LG caps the sizes (compute-sanitizer runs). */
    const char *s = getenv("CUZK_GPU_TEST_MAX_LG");
    unsigned v = s ? (unsigned)atoi(s) : 18;
    return v < 1 ? 1 : (v > 20 ? 20 : v);
}

static void test_abc_quotient(void **state)
{
    (void)state;
    if (!g_have_device)
        skip();
    const unsigned top = max_lg();
    for (int curve = 0; curve < 2; curve++)
        for (unsigned lg = 1; lg <= top; lg += lg < 8 ? 1 : 5)
            for (int few = 0; few < 2; few++)
                run_case(curve ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254, lg, 0x9e3779b97f4a7c15ULL * (lg + 7 * curve),
                         few);
}


/* ---- the backend: a generated key and witness through every device step,
 * the five MSM results against the CPU MSMs of the CPU's h and witness, at
 * budgets that select each tier, with two jobs at once. ---- */

typedef struct {
    cuzk_zkey zk;
    cuzk_wtns wt;
    cuzk_gpu_g16_key_src src;
    const cuzk_curve_ops *ops; /* tier 7's host steps: the CPU backend's A/B plan and kernels */
    cuzk_abc_plan abc;
    uint8_t *h;       /* the CPU's h (raw) */
    uint8_t *want;    /* the five CPU MSM results, Jacobian, at want_off[i] */
    size_t want_off[5], jac[5];
} gkey;

#define KEY_GLUE(C)                                                                                  \
    static void C##_key_reference(gkey *g, cuzk_pool *pool)                                          \
    {                                                                                                \
        const size_t n = g->zk.domain_size, nv = g->zk.n_vars, np = g->zk.n_public;                  \
        const C##_fr_t *w = (const C##_fr_t *)g->wt.values.ptr;                                      \
        C##_fr_t *abc = malloc(3 * n * sizeof *abc);                                                 \
        g->h = malloc(n * 32);                                                                       \
        assert_true(abc && g->h);                                                                    \
        C##_reference(&g->src.coefs, w, n, g->zk.log_domain, abc, abc + n, abc + 2 * n, (C##_fr_t *)g->h); \
        free(abc);                                                                                   \
        g->jac[0] = g->jac[1] = g->jac[2] = g->jac[3] = sizeof(C##_g1_jac_t);                        \
        g->jac[4] = sizeof(C##_g2_jac_t);                                                            \
        g->want = calloc(1, 4 * sizeof(C##_g1_jac_t) + sizeof(C##_g2_jac_t));                        \
        for (int i = 0; i < 5; i++) g->want_off[i] = i * sizeof(C##_g1_jac_t);                       \
        C##_g1_jac_t *o = (C##_g1_jac_t *)g->want;                                                   \
        cuzk_error e = {0};                                                                          \
        assert_int_equal(C##_g1_msm(&o[0], g->src.bases[0], (const C##_fr_t *)g->h, n, pool, &e), 0); \
        assert_int_equal(C##_g1_msm(&o[1], g->src.bases[1], w, nv, pool, &e), 0);                    \
        assert_int_equal(C##_g1_msm(&o[2], g->src.bases[2], w, nv, pool, &e), 0);                    \
        assert_int_equal(C##_g1_msm(&o[3], g->src.bases[3], w + np + 1, nv - np - 1, pool, &e), 0);  \
        assert_int_equal(C##_g2_msm((C##_g2_jac_t *)(g->want + g->want_off[4]), g->src.bases[4], w, nv, pool, &e), 0); \
    }                                                                                                \
    static bool C##_same(int i, const void *want, const void *got)                                   \
    {                                                                                                \
        if (i < 4)                                                                                   \
            return C##_g1_jac_eq((const C##_g1_jac_t *)want, (const C##_g1_jac_t *)got);             \
        return C##_g2_jac_eq((const C##_g2_jac_t *)want, (const C##_g2_jac_t *)got);                 \
    }

KEY_GLUE(bn254)
KEY_GLUE(bls12_381)

static void host_abc(void *key_user, void *job_user, const void *w, void *a, void *b, void *c)
{
    (void)job_user;
    gkey *g = key_user;
    g->ops->abc_eval(&g->abc, w, a, b, c, g_pool);
}

static void host_quotient(void *key_user, void *job_user, void *a, const void *b, const void *c, size_t n)
{
    (void)job_user;
    ((gkey *)key_user)->ops->h_pointwise(a, b, c, n, g_pool);
}

static void gkey_make(gkey *g, cuzk_curve curve, uint64_t constraints)
{
    memset(g, 0, sizeof *g);
    char dir[] = "/tmp/cuzk_g16_XXXXXX", rp[64], wp[64], zp[64];
    assert_non_null(mkdtemp(dir));
    snprintf(rp, sizeof rp, "%s/c.r1cs", dir);
    snprintf(wp, sizeof wp, "%s/w.wtns", dir);
    snprintf(zp, sizeof zp, "%s/c.zkey", dir);
    cuzk_ctx *ctx = NULL;
    cuzk_error e = {0};
    assert_int_equal(cuzk_ctx_create(&ctx, NULL, &e), CUZK_OK);
    cuzk_gen_opts go = {curve, constraints, 3, 42};
    if (cuzk_gen_files(ctx, &go, rp, wp, &e) || cuzk_setup_files(ctx, rp, zp, &e))
        fail_msg("gen/setup: %s", e.msg);
    cuzk_ctx_free(ctx);
    cuzk_zkey_read_opts ro = {.pool = g_pool, .copy_points = true};
    if (cuzk_zkey_read(&g->zk, zp, &ro, &e) || cuzk_wtns_read(&g->wt, wp, &e))
        fail_msg("read: %s", e.msg);
    unlink(rp);
    unlink(wp);
    unlink(zp);
    rmdir(dir);
    cuzk_zkey *z = &g->zk;
    g->src.shape = (cuzk_gpu_key_shape){z->curve, z->n_vars, z->n_public, z->log_domain, z->n_coefs, 0, 0, 0, z->coefs_sorted};
    g->src.coefs = (cuzk_gpu_g16_coefs){z->n_coefs, (const uint8_t *)z->coef_matrix, (const uint8_t *)z->coef_constraint,
                                        (const uint8_t *)z->coef_signal, (const uint8_t *)z->coef_value.ptr, 4, 32};
    assert_non_null(z->coef_matrix);
    g->src.bases[0] = z->h.ptr;
    g->src.bases[1] = z->a.ptr;
    g->src.bases[2] = z->b1.ptr;
    g->src.bases[3] = z->c.ptr;
    g->src.bases[4] = z->b2.ptr;
    g->ops = cuzk_curve_ops_get(curve);
    cuzk_coefs co;
    cuzk_coefs_of_zkey(&co, z);
    if (cuzk_abc_plan_build(&g->abc, &co, z->domain_size, g_pool, &e))
        fail_msg("abc plan: %s", e.msg);
    g->src.host = (cuzk_gpu_g16_host){.abc = host_abc, .quotient = host_quotient, .user = g};
    if (curve == CUZK_CURVE_BN254)
        bn254_key_reference(g, g_pool);
    else
        bls12_381_key_reference(g, g_pool);
}

static void gkey_free(gkey *g)
{
    cuzk_abc_plan_free(&g->abc);
    cuzk_zkey_free(&g->zk);
    cuzk_wtns_free(&g->wt);
    free(g->h);
    free(g->want);
}

typedef struct {
    gkey *g;
    cuzk_gpu_g16_key *k;
    int proofs;
    cuzk_status st;
    char msg[512];
} prove_job;

/* Proofs' device steps with the key; the results against the CPU's. */
static void *prove_main(void *p)
{
    prove_job *pj = p;
    gkey *g = pj->g;
    for (int r = 0; r < pj->proofs && !pj->st; r++) {
        cuzk_error e = {0};
        cuzk_gpu_g16_job *j = NULL;
        uint8_t got[5][2 * 3 * 2 * 48];
        cuzk_status st = cuzk_gpu_g16_job_begin(&j, pj->k, g->wt.values.ptr, NULL, NULL, &e);
        if (!st) st = cuzk_gpu_g16_job_abc(j, &e);
        if (!st) st = cuzk_gpu_g16_job_ntt(j, &e);
        cuzk_gpu_plan_item_id order[5];
        cuzk_gpu_g16_job_msm_order(j, order);
        for (int i = 0; i < 5 && !st; i++)
            st = cuzk_gpu_g16_job_msm(j, order[i], got[order[i] - CUZK_GPU_ITEM_MSM_H], &e);
        cuzk_gpu_g16_job_end(j);
        for (int i = 0; i < 5 && !st; i++) {
            bool same = g->zk.curve == CUZK_CURVE_BN254 ? bn254_same(i, g->want + g->want_off[i], got[i])
                                                         : bls12_381_same(i, g->want + g->want_off[i], got[i]);
            if (!same) {
                st = CUZK_ERR_INTERNAL;
                snprintf(e.msg, sizeof e.msg, "MSM %s differs from the CPU's",
                         cuzk_gpu_plan_item_name((cuzk_gpu_plan_item_id)(CUZK_GPU_ITEM_MSM_H + i)));
            }
        }
        if (st) {
            pj->st = st;
            snprintf(pj->msg, sizeof pj->msg, "%s", e.msg);
        }
    }
    return NULL;
}

/* One key, `workers` threads proving `proofs` each under `budget`. */
static unsigned prove_with(gkey *g, size_t budget, unsigned workers, int proofs)
{
    cuzk_gpu_plan_opts po = {.budget = budget, .workers = workers};
    cuzk_gpu_g16_key *k = NULL;
    cuzk_error e = {0};
    cuzk_status st = cuzk_gpu_g16_key_attach(&k, &g->src, &po, &e);
    if (st)
        fail_msg("attach (budget %zu): %s", budget, e.msg);
    prove_job pj[4];
    pthread_t th[4];
    for (unsigned w = 0; w < workers; w++) {
        pj[w] = (prove_job){g, k, proofs, CUZK_OK, ""};
        assert_int_equal(pthread_create(&th[w], NULL, prove_main, &pj[w]), 0);
    }
    for (unsigned w = 0; w < workers; w++)
        pthread_join(th[w], NULL);
    cuzk_gpu_plan plan;
    size_t measured;
    cuzk_gpu_g16_key_plan(k, &plan, &measured);
    printf("# %s 2^%u: budget %zu, %u workers: tier %u, planned peak %zu, measured %zu\n",
           cuzk_curve_name(g->zk.curve), g->zk.log_domain, plan.budget, workers, plan.tier, plan.peak, measured);
    cuzk_gpu_g16_key_detach(k);
    for (unsigned w = 0; w < workers; w++)
        if (pj[w].st)
            fail_msg("tier %u, worker %u: %s", plan.tier, w, pj[w].msg);
    assert_true(plan.peak <= plan.budget);
    /* what the device really had in use stayed inside the plan */
    assert_true(measured <= plan.peak);
    return plan.tier;
}

/* The tier planned for budget b (0: the device's free memory); returns the
 * plan's peak, 0 when nothing fits. */
static size_t tier_at(gkey *g, size_t b, unsigned *tier)
{
    cuzk_gpu_plan_opts po = {.budget = b, .workers = 2};
    cuzk_gpu_plan p;
    cuzk_error e = {0};
    if (cuzk_gpu_plan_proof(&g->src.shape, &po, &p, &e))
        return 0;
    if (tier)
        *tier = p.tier;
    return p.peak;
}

static void test_backend(void **state)
{
    (void)state;
    if (!g_have_device)
        skip();
    for (int c = 0; c < 2; c++) {
        gkey g;
        const unsigned lg = max_lg() < 8 ? 8 : (max_lg() > 12 ? 12 : max_lg());
        gkey_make(&g, c ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254, (1u << lg) - 50);
        /* the whole free memory: tier 1, two workers, two proofs each */
        assert_int_equal(prove_with(&g, 0, 2, 2), 1);
        /* smaller budgets down to the smallest tier: every tier once (the
         * tier only grows as the budget shrinks; a jump of more than one
         * tier between two budgets is bisected for the ones in between) */
        bool seen[8] = {false};
        seen[1] = true;
        size_t prev_b = 0;
        unsigned prev_t = 1;
        for (size_t b = tier_at(&g, 0, NULL); b > (1u << 20); b = b / 50 * 49) {
            unsigned t;
            if (!tier_at(&g, b, &t))
                break;
            for (unsigned want = prev_t + 1; want < t && prev_b; want++) {
                size_t lo = b, hi = prev_b; /* tier(lo) > want >= tier(hi) */
                while (hi - lo > 1) {
                    size_t mid = lo + (hi - lo) / 2;
                    unsigned tm = 8;
                    tier_at(&g, mid, &tm);
                    if (tm > want)
                        lo = mid;
                    else
                        hi = mid;
                }
                unsigned th = 8;
                tier_at(&g, hi, &th);
                if (th == want && !seen[want]) {
                    seen[want] = true;
                    assert_int_equal(prove_with(&g, hi, 2, 1), want);
                }
            }
            if (!seen[t]) {
                seen[t] = true;
                assert_int_equal(prove_with(&g, b, 2, 1), t);
            }
            prev_b = b;
            prev_t = t;
        }
        for (unsigned t = 1; t <= 7; t++)
            printf("# %s: tier %u %s\n", cuzk_curve_name(g.zk.curve), t, seen[t] ? "proved" : "not reached");
        assert_true(seen[4] || seen[5] || seen[6]); /* some streamed tier ran */
        /* a plan that makes a later MSM's handle ahead of its phase (its
         * bases uploaded beside the phases before: prefetch_from), and one
         * that keeps the streamed coefficients' row pointers between proofs
         * (rows_held), proved */
        size_t pb = 0, rb = 0;
        for (size_t b = tier_at(&g, 0, NULL); b > (1u << 20) && !(pb && rb); b = b / 100 * 99) {
            cuzk_gpu_plan_opts po = {.budget = b, .workers = 2};
            cuzk_gpu_plan p;
            cuzk_error e = {0};
            if (cuzk_gpu_plan_proof(&g.src.shape, &po, &p, &e))
                break;
            for (int id = CUZK_GPU_ITEM_MSM_H; id <= CUZK_GPU_ITEM_MSM_B2; id++)
                if (p.item[id].prefetch_from && !pb)
                    pb = b;
            if (p.item[CUZK_GPU_ITEM_COEFS].rows_held && !rb)
                rb = b;
        }
        assert_true(pb > 0 && rb > 0);
        prove_with(&g, pb, 2, 2);
        if (rb != pb)
            prove_with(&g, rb, 2, 2);
        /* tier 7 (witness on the host) at the least budget it fits, with
         * two workers and two proofs each */
        cuzk_gpu_plan p7;
        cuzk_gpu_plan_opts po7 = {.budget = (size_t)1 << 40, .workers = 2};
        cuzk_error e7 = {0};
        assert_int_equal(cuzk_gpu_plan_proof(&g.src.shape, &po7, &p7, &e7), CUZK_OK);
        /* below 2^12 (compute-sanitizer runs) tier 7's host-scalar staging
         * outweighs what it saves and a streamed tier is the least */
        if (lg >= 12)
            assert_int_equal(p7.least_tier, 7);
        assert_int_equal(prove_with(&g, p7.least_budget, 2, 2), p7.least_tier);
        gkey_free(&g);
    }
}

/* One proof's device steps on k; 0 and the five results against the CPU's,
 * or the first error (message in e). */
static cuzk_status prove_once(gkey *g, cuzk_gpu_g16_key *k, cuzk_gpu_g16_cancel_fn cancelled, void *user,
                              int cancel_after, int *flag, cuzk_error *e)
{
    cuzk_gpu_g16_job *j = NULL;
    uint8_t got[5][2 * 3 * 2 * 48];
    cuzk_gpu_g16_hooks h = {.cancelled = cancelled, .cancel_user = user};
    cuzk_status st = cuzk_gpu_g16_job_begin(&j, k, g->wt.values.ptr, NULL, &h, e);
    cuzk_gpu_plan_item_id order[5];
    cuzk_gpu_g16_job_msm_order(j, order);
    /* steps: 0 abc, 1 ntt, 2.. the MSMs in the job's order; the flag rises after step cancel_after */
    for (int step = 0; step < 7 && !st; step++) {
        if (step == 0) st = cuzk_gpu_g16_job_abc(j, e);
        else if (step == 1) st = cuzk_gpu_g16_job_ntt(j, e);
        else st = cuzk_gpu_g16_job_msm(j, order[step - 2], got[order[step - 2] - CUZK_GPU_ITEM_MSM_H], e);
        if (step == cancel_after && flag) *flag = 1;
    }
    cuzk_gpu_g16_job_end(j);
    for (int i = 0; i < 5 && !st; i++) {
        bool same = g->zk.curve == CUZK_CURVE_BN254 ? bn254_same(i, g->want + g->want_off[i], got[i])
                                                     : bls12_381_same(i, g->want + g->want_off[i], got[i]);
        if (!same) st = cuzk_err(e, CUZK_ERR_INTERNAL, "MSM %d differs from the CPU's", i);
    }
    return st;
}

static int flag_set(void *user) { return *(volatile int *)user; }

static size_t dev_free_bytes(void)
{
    size_t f = 0, t = 0;
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_mem_info(0, &f, &t, &e), CUZK_OK);
    return f;
}

/* Cancel inside the device steps (after abc: caught while the NTT passes
 * run; after the NTT; after the H MSM, with A already queued): the job ends
 * CANCELLED, the device memory comes back, and the next proof on the same
 * key is right; at the tier-1 plan and at a streamed-key one. Then
 * an allocation that fails anyway (another allocation took the memory
 * after the plan was made): a clear error, nothing held, and the next proof
 * proves once the memory is back. */
static void test_cancel_and_faults(void **state)
{
    (void)state;
    if (!g_have_device)
        skip();
    for (int c = 0; c < 2; c++) {
        gkey g;
        gkey_make(&g, c ? CUZK_CURVE_BLS12_381 : CUZK_CURVE_BN254, (1u << 12) - 50);
        /* the first budget of test_backend's sweep that streams the key */
        size_t streamed = 0;
        unsigned t = 1;
        for (size_t b = tier_at(&g, 0, NULL); b > (1u << 20) && !streamed && tier_at(&g, b, &t); b = b / 50 * 49)
            if (t >= 4) streamed = b;
        assert_true(streamed > 0);
        for (int pass = 0; pass < 2; pass++) {
            cuzk_gpu_plan_opts po = {.budget = pass ? streamed : 0, .workers = 2};
            cuzk_gpu_g16_key *k = NULL;
            cuzk_error e = {0};
            if (cuzk_gpu_g16_key_attach(&k, &g.src, &po, &e)) fail_msg("attach: %s", e.msg);
            cuzk_gpu_plan plan;
            cuzk_gpu_g16_key_plan(k, &plan, NULL);
            if (prove_once(&g, k, NULL, NULL, -1, NULL, &e)) /* warm: modules loaded */
                fail_msg("%s tier %u (budget %zu): %s", cuzk_curve_name(g.zk.curve), plan.tier, plan.budget, e.msg);
            {
                /* the MSM order: H last where every MSM is resident (pass 0), H first otherwise; an
                 * MSM other than the job's next is refused and the job goes on */
                bool resident = !plan.host_witness;
                for (int i = 0; i < 5; i++)
                    if (plan.item[CUZK_GPU_ITEM_MSM_H + i].streamed) resident = false;
                assert_true(pass || resident);
                cuzk_gpu_g16_job *j = NULL;
                cuzk_gpu_plan_item_id order[5];
                uint8_t got[2 * 3 * 2 * 48];
                if (cuzk_gpu_g16_job_begin(&j, k, g.wt.values.ptr, NULL, NULL, &e) ||
                    cuzk_gpu_g16_job_abc(j, &e) || cuzk_gpu_g16_job_ntt(j, &e))
                    fail_msg("%s tier %u: %s", cuzk_curve_name(g.zk.curve), plan.tier, e.msg);
                cuzk_gpu_g16_job_msm_order(j, order);
                assert_int_equal(order[0], resident ? CUZK_GPU_ITEM_MSM_B1 : CUZK_GPU_ITEM_MSM_H);
                assert_int_equal(order[4], resident ? CUZK_GPU_ITEM_MSM_H : CUZK_GPU_ITEM_MSM_B2);
                assert_int_equal(cuzk_gpu_g16_job_msm(j, order[1], got, &e), CUZK_ERR_USAGE);
                printf("# %s tier %u: %s\n", cuzk_curve_name(g.zk.curve), plan.tier, e.msg);
                cuzk_err_clear(&e); /* the refusal is expected: later steps report their own errors */
                for (int i = 0; i < 5; i++)
                    if (cuzk_gpu_g16_job_msm(j, order[i], got, &e))
                        fail_msg("%s tier %u: MSM %d after the refused one: %s", cuzk_curve_name(g.zk.curve),
                                 plan.tier, i, e.msg);
                cuzk_gpu_g16_job_end(j);
            }
            size_t free0 = dev_free_bytes();
            for (int rep = 0; rep < 3; rep++)
                for (int after = 0; after <= 2; after++) {
                    int flag = 0;
                    cuzk_status st = prove_once(&g, k, flag_set, &flag, after, &flag, &e);
                    if (st != CUZK_ERR_CANCELLED)
                        fail_msg("%s tier %u: cancel after step %d gave %d (%s)", cuzk_curve_name(g.zk.curve),
                                 plan.tier, after, (int)st, e.msg);
                    assert_int_equal(dev_free_bytes(), free0);
                }
            if (prove_once(&g, k, flag_set, &(int){0}, -1, NULL, &e))
                fail_msg("%s tier %u: the proof after the cancelled ones: %s", cuzk_curve_name(g.zk.curve),
                         plan.tier, e.msg);
            printf("# %s tier %u: 9 cancelled proofs freed everything (%zu bytes free), the next proved\n",
                   cuzk_curve_name(g.zk.curve), plan.tier, free0);
            /* hogs take all the free memory the plan counted on: one large
             * block, then smaller ones until none fits */
            enum { MAXHOG = 4096 };
            void **hog = calloc(MAXHOG, sizeof *hog);
            assert_non_null(hog);
            int nh = 0;
            size_t f = dev_free_bytes();
            for (size_t take = f; take > (64u << 20) && !nh; take -= 2u << 20)
                if (!cuzk_gpu_dev_alloc(&hog[0], take, 0, &e)) nh = 1;
            assert_int_equal(nh, 1);
            for (size_t sz = 1u << 20; sz >= 256; sz >>= 4)
                while (nh < MAXHOG && !cuzk_gpu_dev_alloc(&hog[nh], sz, 0, &e)) nh++;
            cuzk_err_clear(&e);
            cuzk_status st = prove_once(&g, k, NULL, NULL, -1, NULL, &e);
            printf("# %s tier %u, memory taken (%d blocks): %d: %s\n", cuzk_curve_name(g.zk.curve), plan.tier, nh,
                   (int)st, e.msg);
            assert_true(st == CUZK_ERR_NOMEM || st == CUZK_ERR_GPU);
            assert_true(e.msg[0] != 0);
            for (int i = 0; i < nh; i++) cuzk_gpu_dev_free(hog[i], 0);
            free(hog);
            assert_int_equal(dev_free_bytes(), free0);
            if (prove_once(&g, k, NULL, NULL, -1, NULL, &e))
                fail_msg("%s tier %u: the proof after the failed allocation: %s", cuzk_curve_name(g.zk.curve),
                         plan.tier, e.msg);
            cuzk_gpu_g16_key_detach(k);
        }
        gkey_free(&g);
    }
}

/* A record out of range is refused with a message naming it; nothing leaks. */
static void test_bad_records(void **state)
{
    (void)state;
    if (!g_have_device)
        skip();
    records r;
    records_make(&r, 64, 40, 7, bn254_rand_mont);
    assert_true(r.n > 3);
    uint32_t bad = 64; /* constraint == rows */
    memcpy(r.rec + 2 * REC + 4, &bad, 4);
    cuzk_error e = {0};
    cuzk_gpu_g16_csr *csr = (cuzk_gpu_g16_csr *)1;
    assert_int_equal(cuzk_gpu_g16_csr_create(&csr, CUZK_CURVE_BN254, 64, 40, &r.co, 0, 0, &e), CUZK_ERR_FORMAT);
    assert_null(csr);
    assert_non_null(strstr(e.msg, "coefficient record"));
    memcpy(r.rec + 2 * REC + 4, &(uint32_t){0}, 4);
    uint32_t badm = 2;
    memcpy(r.rec, &badm, 4);
    assert_int_equal(cuzk_gpu_g16_csr_create(&csr, CUZK_CURVE_BN254, 64, 40, &r.co, 0, 0, &e), CUZK_ERR_FORMAT);
    free(r.rec);
}

/* The packed witness (gpu/g16/wpack.h) expanded on the device equals the
 * witness: 0, 1 and whole values (also 2, and 1 or 0 with a high limb set),
 * tiles expanded in two calls, the last tile partial. */
static void test_witness_expand(void **state)
{
    (void)state;
    if (!g_have_device)
        skip();
    const size_t n = 3 * CUZK_WPACK_TILE + 77, ib = cuzk_wpack_index_bytes(n);
    uint8_t *w = calloc(n, 32), *full = calloc(n, 32), *index = calloc(ib, 1), *back = calloc(n, 32);
    assert_true(w && full && index && back);
    uint64_t s = 99;
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4] = {0, 0, 0, 0};
        const uint64_t r = cuzk_splitmix64(&s) % 10;
        if (r < 9) v[0] = r & 1;
        else if (i % 3 == 0) v[0] = 2;
        else if (i % 3 == 1) v[0] = 1, v[3] = 1;
        else for (int k = 0; k < 4; k++) v[k] = cuzk_splitmix64(&s) >> (k == 3 ? 2 : 0);
        memcpy(w + 32 * i, v, 32);
    }
    cuzk_wpack_range(w, n, 0, n, index, full);
    void *d_index = dev(ib), *d_full = dev(32 * n), *d_w = dev(32 * n);
    up(d_index, index, ib);
    up(d_full, full, 32 * n);
    cuzk_error e = {0};
    assert_int_equal(cuzk_gpu_g16_witness_expand(d_index, d_full, d_w, n, 0, 2, NULL, &e), CUZK_OK);
    assert_int_equal(cuzk_gpu_g16_witness_expand(d_index, d_full, d_w, n, 2, 2, NULL, &e), CUZK_OK);
    down(back, d_w, 32 * n);
    assert_memory_equal(back, w, 32 * n);
    cuzk_gpu_dev_free(d_index, 0);
    cuzk_gpu_dev_free(d_full, 0);
    cuzk_gpu_dev_free(d_w, 0);
    free(w);
    free(full);
    free(index);
    free(back);
}

/* Without CUDA the calls exist and say so. */
static void test_no_cuda(void **state)
{
    (void)state;
    if (g_have_device)
        skip();
    cuzk_error e = {0};
    cuzk_gpu_g16_csr *csr = NULL;
    cuzk_gpu_g16_coefs co = {0};
    cuzk_status st = cuzk_gpu_g16_csr_create(&csr, CUZK_CURVE_BN254, 4, 4, &co, 0, 0, &e);
    assert_true(st == CUZK_ERR_UNSUPPORTED || st == CUZK_ERR_GPU);
    assert_null(csr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_abc_quotient),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_backend),
        cmocka_unit_test(test_cancel_and_faults),
        cmocka_unit_test(test_witness_expand),
        cmocka_unit_test(test_no_cuda),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
