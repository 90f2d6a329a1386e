/* Host arithmetic micro-benchmarks: field, Fp2, group and pairing operations
 * of every curve (curve/curves.h), as a table of nanoseconds per operation
 * (thread CPU time, so a loaded machine gives the same numbers).
 *
 *   bench_arith [-q]      -q: a tenth of the iterations (a quick look)
 *
 * The last rows of each curve time the prover's side job (IC(pub) of 327
 * public inputs, on one thread and as cuzk_g16_ic_run runs it), wall time.
 *
 * Each loop feeds its result back as the next operand, so the operations
 * form one dependency chain (latency, as the scalar code runs them) and the
 * compiler cannot drop them; the printed checksum keeps the results alive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_stats.h"
#include "curve/bls12_381.h"
#include "curve/bn254.h"
#include "curve/curves.h"
#include "formats/formats.h"
#include "groth16/curve_ops.h"
#include "groth16/prove.h"

static long g_scale = 1; /* -q: iterations / 10 */
static unsigned long g_sum;

static double now(void) { return bench_clock(CLOCK_THREAD_CPUTIME_ID); }

static void row(const char *what, const char *op, double ns)
{
    printf("%-16s %-18s %10.1f\n", what, op, ns);
}

/* A prime field F (F_t, F_random, F_mul, F_sqr, F_add). */
#define BENCH_FIELD(F)                                                                                      \
    static void bench_##F(void)                                                                             \
    {                                                                                                       \
        F##_t a, b;                                                                                         \
        if (!F##_random(&a) || !F##_random(&b))                                                             \
            return;                                                                                         \
        const long n = 5000000 / g_scale;                                                                   \
        double t0 = now();                                                                                  \
        for (long i = 0; i < n; i++)                                                                        \
            F##_mul(&a, &a, &b);                                                                            \
        double t1 = now();                                                                                  \
        for (long i = 0; i < n; i++)                                                                        \
            F##_sqr(&b, &b);                                                                                \
        double t2 = now();                                                                                  \
        for (long i = 0; i < n; i++)                                                                        \
            F##_add(&a, &a, &b);                                                                            \
        double t3 = now();                                                                                  \
        row(#F, "mul", (t1 - t0) * 1e9 / n);                                                                \
        row(#F, "sqr", (t2 - t1) * 1e9 / n);                                                                \
        row(#F, "add", (t3 - t2) * 1e9 / n);                                                                \
        g_sum += (unsigned long)(a.l[0] ^ b.l[0]);                                                          \
    }

/* A quadratic extension F2 (F2_t with c0, F2_random, F2_mul, F2_sqr). */
#define BENCH_FP2(F2)                                                                                       \
    static void bench_##F2(void)                                                                            \
    {                                                                                                       \
        F2##_t a, b;                                                                                        \
        if (!F2##_random(&a) || !F2##_random(&b))                                                           \
            return;                                                                                         \
        const long n = 2000000 / g_scale;                                                                   \
        double t0 = now();                                                                                  \
        for (long i = 0; i < n; i++)                                                                        \
            F2##_mul(&a, &a, &b);                                                                           \
        double t1 = now();                                                                                  \
        for (long i = 0; i < n; i++)                                                                        \
            F2##_sqr(&b, &b);                                                                               \
        double t2 = now();                                                                                  \
        row(#F2, "mul", (t1 - t0) * 1e9 / n);                                                               \
        row(#F2, "sqr", (t2 - t1) * 1e9 / n);                                                               \
        g_sum += (unsigned long)(a.c0.l[0] ^ b.c0.l[0]);                                                    \
    }

/* A group G (G_affine_t, G_jac_t, G_xyzz_t, G_GENERATOR and their operations). */
#define BENCH_GROUP(G)                                                                                      \
    static void bench_##G(void)                                                                             \
    {                                                                                                       \
        G##_affine_t P = G##_GENERATOR;                                                                     \
        G##_xyzz_t x;                                                                                       \
        G##_jac_t j;                                                                                        \
        G##_xyzz_set_inf(&x);                                                                               \
        G##_xyzz_add_affine(&x, &x, &P);                                                                    \
        G##_xyzz_dbl(&x, &x);                                                                               \
        G##_jac_from_affine(&j, &P);                                                                        \
        G##_jac_dbl(&j, &j);                                                                                \
        const long n = 200000 / g_scale;                                                                    \
        double t0 = now();                                                                                  \
        for (long i = 0; i < n; i++)                                                                        \
            G##_xyzz_add_affine(&x, &x, &P);                                                                \
        double t1 = now();                                                                                  \
        for (long i = 0; i < n; i++)                                                                        \
            G##_jac_add_affine(&j, &j, &P);                                                                 \
        double t2 = now();                                                                                  \
        for (long i = 0; i < n; i++)                                                                        \
            G##_jac_dbl(&j, &j);                                                                            \
        double t3 = now();                                                                                  \
        row(#G, "xyzz_add_affine", (t1 - t0) * 1e9 / n);                                                    \
        row(#G, "jac_add_affine", (t2 - t1) * 1e9 / n);                                                     \
        row(#G, "jac_dbl", (t3 - t2) * 1e9 / n);                                                            \
        g_sum += (unsigned long)(G##_xyzz_is_inf(&x) + G##_jac_is_inf(&j));                                 \
    }

/* Four pairs of random multiples of the generators (seed k). */
#define BENCH_PAIRS(c)                                                                                      \
    static void c##_bench_pairs(c##_g1_affine_t *ps, c##_g2_affine_t *qs, uint64_t k)                       \
    {                                                                                                       \
        for (int i = 0; i < 4; i++) {                                                                       \
            c##_g1_jac_t j1;                                                                                \
            c##_g2_jac_t j2;                                                                                \
            k = k * 6364136223846793005ULL + 1442695040888963407ULL;                                        \
            c##_g1_affine_mul(&j1, &c##_g1_GENERATOR, &k, 1);                                               \
            c##_g1_jac_to_affine(&ps[i], &j1);                                                              \
            k = k * 6364136223846793005ULL + 1442695040888963407ULL;                                        \
            c##_g2_affine_mul(&j2, &c##_g2_GENERATOR, &k, 1);                                               \
            c##_g2_jac_to_affine(&qs[i], &j2);                                                              \
        }                                                                                                   \
    }

/* The pairing of curve c: 4 pairs of random multiples of the generators. */
#define BENCH_PAIRING(c)                                                                                    \
    static void bench_##c##_pairing(void)                                                                   \
    {                                                                                                       \
        c##_g1_affine_t ps[4];                                                                              \
        c##_g2_affine_t qs[4];                                                                              \
        c##_bench_pairs(ps, qs, 0xbe4c);                                                                    \
        c##_fp12_t e, f;                                                                                    \
        c##_pairing(&e, &ps[0], &qs[0]); /* in the cyclotomic subgroup */                                   \
        {                                                                                                   \
            c##_fp12_t a = e, b = e;                                                                        \
            c##_miller_loop(&b, &ps[1], &qs[1], 1);                                                         \
            const long m = 20000 / g_scale;                                                                 \
            double u0 = now();                                                                              \
            for (long i = 0; i < m; i++)                                                                    \
                c##_fp12_mul(&a, &a, &b);                                                                   \
            double u1 = now();                                                                              \
            for (long i = 0; i < m; i++)                                                                    \
                c##_fp12_sqr(&b, &b);                                                                       \
            double u2 = now();                                                                              \
            f = e;                                                                                          \
            for (long i = 0; i < m; i++)                                                                    \
                c##_fp12_cyclotomic_sqr(&f, &f);                                                            \
            double u3 = now();                                                                              \
            for (long i = 0; i < m / 10; i++)                                                               \
                c##_fp12_inv(&a, &a);                                                                       \
            double u4 = now();                                                                              \
            for (long i = 0; i < m; i++)                                                                    \
                c##_fp12_frobenius(&b, &b, 1);                                                              \
            double u5 = now();                                                                              \
            row(#c, "fp12_mul", (u1 - u0) * 1e9 / m);                                                       \
            row(#c, "fp12_sqr", (u2 - u1) * 1e9 / m);                                                       \
            row(#c, "fp12_cyclo_sqr", (u3 - u2) * 1e9 / m);                                                 \
            row(#c, "fp12_inv", (u4 - u3) * 1e9 / (m / 10));                                                \
            row(#c, "fp12_frobenius", (u5 - u4) * 1e9 / m);                                                 \
            unsigned char z[sizeof a];                                                                      \
            memcpy(z, &a, sizeof z);                                                                        \
            g_sum += z[0];                                                                                  \
            memcpy(z, &b, sizeof z);                                                                        \
            g_sum += z[0];                                                                                  \
            memcpy(z, &f, sizeof z);                                                                        \
            g_sum += z[0];                                                                                  \
        }                                                                                                   \
        const int n = (int)(40 / g_scale > 2 ? 40 / g_scale : 2);                                           \
        double t0 = now();                                                                                  \
        for (int i = 0; i < n; i++)                                                                         \
            c##_pairing(&e, &ps[i & 3], &qs[i & 3]);                                                        \
        double t1 = now();                                                                                  \
        for (int i = 0; i < n; i++)                                                                         \
            c##_miller_loop(&f, &ps[i & 3], &qs[i & 3], 1);                                                 \
        double t2 = now();                                                                                  \
        for (int i = 0; i < n; i++)                                                                         \
            c##_final_exp(&e, &f);                                                                          \
        double t3 = now();                                                                                  \
        for (int i = 0; i < n; i++)                                                                         \
            c##_multi_pairing(&e, ps, qs, 4);                                                               \
        double t4 = now();                                                                                  \
        row(#c, "pairing", (t1 - t0) * 1e9 / n);                                                            \
        row(#c, "miller_loop", (t2 - t1) * 1e9 / n);                                                        \
        row(#c, "final_exp", (t3 - t2) * 1e9 / n);                                                          \
        row(#c, "multi_pairing(4)", (t4 - t3) * 1e9 / n);                                                   \
        unsigned char b[sizeof e];                                                                          \
        memcpy(b, &e, sizeof b);                                                                            \
        g_sum += b[0];                                                                                      \
    }

/* A Groth16 pairing check of curve c (enum e), CPU time on this thread (no
 * pool): the four pairs unprepared (pairing_product_is_one, one multi-loop),
 * the key's points prepared (vk_prepare once, then verify_prep: 3 loops, 2
 * prepared), and the part after a proof's last kernel when its check was
 * begun under H (verify_finish: (C, δ)'s prepared loop and the final
 * exponentiation; and that on a pool of 2 workers, wall time: the loop in two
 * parts, one a worker). Random points: the check fails, at the same cost. */
#define BENCH_VERIFY(c, e)                                                                                  \
    static void bench_##c##_verify(void)                                                                    \
    {                                                                                                       \
        const cuzk_curve_ops *ops = cuzk_curve_ops_get(e);                                                  \
        c##_g1_affine_t ps[4];                                                                              \
        c##_g2_affine_t qs[4];                                                                              \
        c##_bench_pairs(ps, qs, 0x5e21);                                                                    \
        /* pairs: (-A, B), (IC, γ), (C, δ), (α, β) */                                                       \
        const int n = (int)(40 / g_scale > 2 ? 40 / g_scale : 2);                                           \
        int ok = 0;                                                                                         \
        double t0 = now();                                                                                  \
        for (int i = 0; i < n; i++)                                                                         \
            ok += ops->pairing_product_is_one(ps, qs, 4, NULL);                                             \
        double t1 = now();                                                                                  \
        void *prep = NULL;                                                                                  \
        for (int i = 0; i < n; i++) {                                                                       \
            free(prep);                                                                                     \
            prep = ops->vk_prepare(&ps[3], &qs[3], &qs[1], &qs[2]);                                         \
        }                                                                                                   \
        double t2 = now();                                                                                  \
        if (!prep)                                                                                          \
            return;                                                                                         \
        for (int i = 0; i < n; i++)                                                                         \
            ok += ops->verify_prep(prep, &ps[0], &qs[0], &ps[1], &ps[2], NULL);                             \
        double t3 = now();                                                                                  \
        c##_fp12_t f;                                                                                       \
        ops->verify_begin(&f, prep, &ps[0], &qs[0], &ps[1], NULL);                                          \
        double t4 = now();                                                                                  \
        for (int i = 0; i < n; i++)                                                                         \
            ok += ops->verify_finish(prep, &f, &ps[2], NULL);                                               \
        double t5 = now();                                                                                  \
        /* on a pool of 2: wall time (the loop in two parts, one a worker) */                              \
        cuzk_pool *pool = cuzk_pool_create(2);                                                              \
        double w0 = bench_clock(CLOCK_MONOTONIC), w1 = w0;                                                  \
        if (pool) {                                                                                         \
            for (int i = 0; i < n; i++)                                                                     \
                ok += ops->verify_finish(prep, &f, &ps[2], pool);                                           \
            w1 = bench_clock(CLOCK_MONOTONIC);                                                              \
            cuzk_pool_destroy(pool);                                                                        \
        }                                                                                                   \
        /* as in the prover: a pool of every core whose workers sleep while   \
         * the kernels run (a pause before each check), against the caller   \
         * alone after the same pause; wall time of the check only */          \
        double idle[2] = {0, 0};                                                                            \
        cuzk_pool *all = cuzk_pool_create(0);                                                               \
        for (int i = 0; i < n && all; i++) {                                                                \
            for (int k = 0; k < 2; k++) {                                                                   \
                nanosleep(&(struct timespec){0, 3000000}, NULL);                                            \
                const double a = bench_clock(CLOCK_MONOTONIC);                                              \
                ok += ops->verify_finish(prep, &f, &ps[2], k ? all : NULL);                                 \
                idle[k] += bench_clock(CLOCK_MONOTONIC) - a;                                                \
            }                                                                                               \
        }                                                                                                   \
        cuzk_pool_destroy(all);                                                                             \
        free(prep);                                                                                         \
        row(#c, "g16_check", (t1 - t0) * 1e9 / n);                                                          \
        row(#c, "g16_vk_prepare", (t2 - t1) * 1e9 / n);                                                     \
        row(#c, "g16_check_prep", (t3 - t2) * 1e9 / n);                                                     \
        row(#c, "g16_check_tail", (t5 - t4) * 1e9 / n);                                                     \
        row(#c, "g16_tail_2w(wall)", (w1 - w0) * 1e9 / n);                                                  \
        row(#c, "g16_tail_1t(idle)", idle[0] * 1e9 / n);                                                    \
        row(#c, "g16_tail_pool(idle)", idle[1] * 1e9 / n);                                                  \
        g_sum += (unsigned long)ok;                                                                         \
    }

/* The prover's side job (groth16/prove.c, cuzk_g16_ic_run) against one
 * thread: IC(pub) for the 327 public inputs of a Filecoin PoRep, wall time,
 * best of 7 (the side job's pool of its own included). */
#define BENCH_IC(c, e)                                                                                      \
    static void bench_##c##_ic(void)                                                                        \
    {                                                                                                       \
        const cuzk_curve_ops *ops = cuzk_curve_ops_get(e);                                                  \
        const uint32_t n = 327;                                                                             \
        cuzk_vk vk;                                                                                         \
        memset(&vk, 0, sizeof vk);                                                                          \
        vk.curve = e;                                                                                       \
        vk.n_public = n;                                                                                    \
        c##_g1_affine_t *ic = malloc((n + 1) * sizeof *ic);                                                 \
        uint64_t *pub = malloc((size_t)n * 32), k = 0x1c;                                                   \
        if (!ic || !pub)                                                                                    \
            return;                                                                                         \
        for (uint32_t i = 0; i <= n; i++) {                                                                 \
            c##_g1_jac_t j;                                                                                 \
            k = k * 6364136223846793005ULL + 1442695040888963407ULL;                                        \
            c##_g1_affine_mul(&j, &c##_g1_GENERATOR, &k, 1);                                                \
            c##_g1_jac_to_affine(&ic[i], &j);                                                               \
        }                                                                                                   \
        for (uint32_t i = 0; i < 4 * n; i++)                                                                \
            pub[i] = k = k * 6364136223846793005ULL + 1442695040888963407ULL;                               \
        for (uint32_t i = 0; i < n; i++)                                                                    \
            pub[4 * i + 3] >>= 4; /* below r */                                                             \
        vk.ic.ptr = ic;                                                                                     \
        double best[2] = {1e9, 1e9};                                                                        \
        for (int r = 0; r < 7; r++) {                                                                       \
            uint64_t acc[CUZK_MAX_G1_JAC / 8];                                                              \
            cuzk_error err = {0};                                                                           \
            double t0 = bench_clock(CLOCK_MONOTONIC);                                                       \
            cuzk_g16_verify_ic(ops, &vk, pub, acc, NULL, &err);                                             \
            double t1 = bench_clock(CLOCK_MONOTONIC);                                                       \
            cuzk_g16_ic_job job;                                                                            \
            memset(&job, 0, sizeof job);                                                                    \
            job.ops = ops;                                                                                  \
            job.vk = &vk;                                                                                   \
            job.pub = pub;                                                                                  \
            cuzk_g16_ic_run(&job);                                                                          \
            double t2 = bench_clock(CLOCK_MONOTONIC);                                                       \
            best[0] = t1 - t0 < best[0] ? t1 - t0 : best[0];                                                \
            best[1] = t2 - t1 < best[1] ? t2 - t1 : best[1];                                                \
            g_sum += (unsigned long)(acc[0] ^ job.acc[0]);                                                  \
        }                                                                                                   \
        row(#c, "ic327_1t(wall)", best[0] * 1e9);                                                           \
        row(#c, "ic327_side(wall)", best[1] * 1e9);                                                         \
        free(ic);                                                                                           \
        free(pub);                                                                                          \
    }

#define BENCH_CURVE(c, e)                                                                                   \
    BENCH_FIELD(c##_fp)                                                                                     \
    BENCH_FIELD(c##_fr)                                                                                     \
    BENCH_FP2(c##_fp2)                                                                                      \
    BENCH_GROUP(c##_g1)                                                                                     \
    BENCH_GROUP(c##_g2)                                                                                     \
    BENCH_PAIRS(c)                                                                                          \
    BENCH_PAIRING(c)                                                                                        \
    BENCH_VERIFY(c, e)                                                                                      \
    BENCH_IC(c, e)
CUZK_CURVES(BENCH_CURVE)

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "-q"))
        g_scale = 10;
    else if (argc > 1) {
        fprintf(stderr, "usage: bench_arith [-q]\n");
        return 1;
    }
    printf("%-16s %-18s %10s\n", "what", "operation", "ns/op");
#define RUN_CURVE(c, e)                                                                                     \
    bench_##c##_fp();                                                                                       \
    bench_##c##_fr();                                                                                       \
    bench_##c##_fp2();                                                                                      \
    bench_##c##_g1();                                                                                       \
    bench_##c##_g2();                                                                                       \
    bench_##c##_pairing();                                                                                  \
    bench_##c##_verify();                                                                                   \
    bench_##c##_ic();
    CUZK_CURVES(RUN_CURVE)
    printf("(checksum %lu)\n", g_sum & 0xff);
    return 0;
}
