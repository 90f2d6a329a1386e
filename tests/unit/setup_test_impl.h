/* Curve-generic checks of the development setup, included once per curve by
 * test_setup.c with `#define TS bn254` (or bls12_381).
 *
 * References are independent of the setup code: roots of unity by plain pow
 * of 5, Lagrange bases by the O(n^2) product formula (not the closed form the
 * setup uses), QAP values by direct summation over the r1cs, every point by a
 * single (non-batched) scalar multiplication of the generator, and a complete
 * Groth16 proof (r = s = 0, naive O(n^2) DFTs for h) checked with the pairing. */

#define TS_(name) CUZK_NAME(TS, name)
#define TS_FR_(name) CUZK_NAME(CUZK_CAT2(TS, _fr), name)

#include "util/templates.h"
#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_TEST_SETUP, CUZK_NAME(TS, C_ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* 5^((r-1)/2^k). */
static void TS_(ref_root)(TS_FR_(t) *w, unsigned k)
{
    uint64_t e[4];
    memcpy(e, TS_FR_(MODULUS).l, sizeof e);
    e[0] -= 1;
    for (unsigned s = 0; s < k; s++) {
        for (int i = 0; i < 3; i++)
            e[i] = (e[i] >> 1) | (e[i + 1] << 63);
        e[3] >>= 1;
    }
    TS_FR_(t) five;
    TS_FR_(from_u64)(&five, 5);
    TS_FR_(pow)(w, &five, e, 4);
}

static void TS_(pow_u64)(TS_FR_(t) *r, const TS_FR_(t) *a, uint64_t e) { TS_FR_(pow)(r, a, &e, 1); }

/* L_i(x) over the points pts[0..n): Π_{k≠i} (x − p_k)/(p_i − p_k). */
static void TS_(naive_lagrange)(TS_FR_(t) *out, const TS_FR_(t) *x, const TS_FR_(t) *pts, size_t n, size_t i)
{
    TS_FR_(t) num, den, t;
    TS_FR_(set_one)(&num);
    TS_FR_(set_one)(&den);
    for (size_t k = 0; k < n; k++) {
        if (k == i)
            continue;
        TS_FR_(sub)(&t, x, &pts[k]);
        TS_FR_(mul)(&num, &num, &t);
        TS_FR_(sub)(&t, &pts[i], &pts[k]);
        TS_FR_(mul)(&den, &den, &t);
    }
    TS_FR_(inv)(&den, &den);
    TS_FR_(mul)(out, &num, &den);
}

static void TS_(g1_of)(TS_(g1_affine_t) *out, const TS_FR_(t) *mont)
{
    TS_FR_(t) raw;
    TS_(g1_jac_t) j;
    TS_FR_(from_mont)(&raw, mont);
    TS_(g1_affine_mul)(&j, &TS_(g1_GENERATOR), raw.l, 4);
    TS_(g1_jac_to_affine)(out, &j);
}

static void TS_(g2_of)(TS_(g2_affine_t) *out, const TS_FR_(t) *mont)
{
    TS_FR_(t) raw;
    TS_(g2_jac_t) j;
    TS_FR_(from_mont)(&raw, mont);
    TS_(g2_affine_mul)(&j, &TS_(g2_GENERATOR), raw.l, 4);
    TS_(g2_jac_to_affine)(out, &j);
}

static void TS_(toxic_mont)(const cuzk_setup_toxic *tx, TS_FR_(t) *tau, TS_FR_(t) *alpha, TS_FR_(t) *beta, TS_FR_(t) *delta)
{
    TS_FR_(t) raw;
    memcpy(raw.l, tx->tau, 32);
    TS_FR_(to_mont)(tau, &raw);
    memcpy(raw.l, tx->alpha, 32);
    TS_FR_(to_mont)(alpha, &raw);
    memcpy(raw.l, tx->beta, 32);
    TS_FR_(to_mont)(beta, &raw);
    memcpy(raw.l, tx->delta, 32);
    TS_FR_(to_mont)(delta, &raw);
}

/* Every part of the key against the naive formulas with known toxic waste. */
static void TS_(check_key_algebra)(const cuzk_r1cs *r, const cuzk_zkey *zk, const cuzk_setup_toxic *tx)
{
    const uint32_t m = r->n_constraints, np = r->n_pub_out + r->n_pub_in, nv = r->n_wires;
    size_t n = 1;
    unsigned logn = 0;
    while (n <= (size_t)m + np) {
        n <<= 1;
        logn++;
    }
    assert_int_equal(zk->domain_size, n);
    assert_int_equal(zk->n_vars, nv);
    assert_int_equal(zk->n_public, np);

    TS_FR_(t) tau, alpha, beta, delta, dinv;
    TS_(toxic_mont)(tx, &tau, &alpha, &beta, &delta);
    TS_FR_(inv)(&dinv, &delta);

    /* Domains: <w> of size n and the doubled one. */
    TS_FR_(t) w, w2, *pts = malloc(2 * n * sizeof *pts), *L = malloc(n * sizeof *L);
    assert_non_null(pts);
    assert_non_null(L);
    TS_(ref_root)(&w, logn);
    TS_(ref_root)(&w2, logn + 1);
    TS_FR_(t) t;
    TS_(pow_u64)(&t, &w2, 2 * n);
    assert_true(TS_FR_(is_one)(&t));
    TS_FR_(set_one)(&pts[0]);
    for (size_t i = 1; i < n; i++)
        TS_FR_(mul)(&pts[i], &pts[i - 1], &w);
    for (size_t i = 0; i < n; i++)
        TS_(naive_lagrange)(&L[i], &tau, pts, n, i);

    /* u, v, w by direct summation (public rows: A[m+s] gets w_s). */
    TS_FR_(t) *uvw[3];
    for (int k = 0; k < 3; k++) {
        uvw[k] = calloc(nv, sizeof(TS_FR_(t)));
        assert_non_null(uvw[k]);
        const cuzk_r1cs_matrix *mx = &r->m[k];
        for (uint32_t i = 0; i < m; i++)
            for (uint64_t q = mx->row[i]; q < mx->row[i + 1]; q++) {
                TS_FR_(t) c;
                TS_FR_(to_mont)(&c, &mx->coef.TS[q]);
                TS_FR_(mul)(&c, &c, &L[i]);
                TS_FR_(add)(&uvw[k][mx->wire[q]], &uvw[k][mx->wire[q]], &c);
            }
    }
    for (uint32_t s = 0; s <= np; s++)
        TS_FR_(add)(&uvw[0][s], &uvw[0][s], &L[m + s]);

    /* Header. */
    TS_(g1_affine_t) p1;
    TS_(g2_affine_t) p2;
    TS_(g1_of)(&p1, &alpha);
    assert_true(TS_(g1_affine_eq)(&p1, &zk->alpha_1.TS));
    TS_(g1_of)(&p1, &beta);
    assert_true(TS_(g1_affine_eq)(&p1, &zk->beta_1.TS));
    TS_(g2_of)(&p2, &beta);
    assert_true(TS_(g2_affine_eq)(&p2, &zk->beta_2.TS));
    assert_true(TS_(g2_affine_eq)(&TS_(g2_GENERATOR), &zk->gamma_2.TS));
    TS_(g1_of)(&p1, &delta);
    assert_true(TS_(g1_affine_eq)(&p1, &zk->delta_1.TS));
    TS_(g2_of)(&p2, &delta);
    assert_true(TS_(g2_affine_eq)(&p2, &zk->delta_2.TS));

    /* A, B1, B2, IC, C. */
    for (uint32_t j = 0; j < nv; j++) {
        TS_(g1_of)(&p1, &uvw[0][j]);
        assert_true(TS_(g1_affine_eq)(&p1, &zk->a.TS[j]));
        TS_(g1_of)(&p1, &uvw[1][j]);
        assert_true(TS_(g1_affine_eq)(&p1, &zk->b1.TS[j]));
        TS_(g2_of)(&p2, &uvw[1][j]);
        assert_true(TS_(g2_affine_eq)(&p2, &zk->b2.TS[j]));
        TS_FR_(t) k, x;
        TS_FR_(mul)(&k, &beta, &uvw[0][j]);
        TS_FR_(mul)(&x, &alpha, &uvw[1][j]);
        TS_FR_(add)(&k, &k, &x);
        TS_FR_(add)(&k, &k, &uvw[2][j]);
        if (j <= np) {
            TS_(g1_of)(&p1, &k);
            assert_true(TS_(g1_affine_eq)(&p1, &zk->ic.TS[j]));
        } else {
            TS_FR_(mul)(&k, &k, &dinv);
            TS_(g1_of)(&p1, &k);
            assert_true(TS_(g1_affine_eq)(&p1, &zk->c.TS[j - np - 1]));
        }
    }

    /* H[i] = L^(2n)_{2i+1}(tau)/delta. */
    TS_FR_(set_one)(&pts[0]);
    for (size_t i = 1; i < 2 * n; i++)
        TS_FR_(mul)(&pts[i], &pts[i - 1], &w2);
    for (size_t i = 0; i < n; i++) {
        TS_FR_(t) l;
        TS_(naive_lagrange)(&l, &tau, pts, 2 * n, 2 * i + 1);
        TS_FR_(mul)(&l, &l, &dinv);
        TS_(g1_of)(&p1, &l);
        assert_true(TS_(g1_affine_eq)(&p1, &zk->h.TS[i]));
    }

    /* Section 4: per constraint A terms then B terms, then the public rows;
     * stored v·R², so two from_mont give back the r1cs coefficient. */
    uint64_t o = 0;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t k = 0; k < 2; k++)
            for (uint64_t q = r->m[k].row[i]; q < r->m[k].row[i + 1]; q++, o++) {
                assert_int_equal(zk->coef_matrix[o], k);
                assert_int_equal(zk->coef_constraint[o], i);
                assert_int_equal(zk->coef_signal[o], r->m[k].wire[q]);
                TS_FR_(t) v;
                TS_FR_(from_mont)(&v, &zk->coef_value.TS[o]);
                TS_FR_(from_mont)(&v, &v);
                assert_memory_equal(v.l, r->m[k].coef.TS[q].l, 32);
            }
    for (uint32_t s = 0; s <= np; s++, o++) {
        assert_int_equal(zk->coef_matrix[o], 0);
        assert_int_equal(zk->coef_constraint[o], m + s);
        assert_int_equal(zk->coef_signal[o], s);
        TS_FR_(t) v;
        TS_FR_(from_mont)(&v, &zk->coef_value.TS[o]);
        TS_FR_(from_mont)(&v, &v);
        assert_true(v.l[0] == 1 && !(v.l[1] | v.l[2] | v.l[3]));
    }
    assert_int_equal(o, zk->n_coefs);

    for (int k = 0; k < 3; k++)
        free(uvw[k]);
    free(pts);
    free(L);
}

/* Naive MSM: Σ k_i·P_i, scalars Montgomery. */
static void TS_(naive_msm1)(TS_(g1_jac_t) *acc, const TS_(g1_affine_t) *p, const TS_FR_(t) *k, size_t n)
{
    TS_(g1_jac_set_inf)(acc);
    for (size_t i = 0; i < n; i++) {
        TS_FR_(t) raw;
        TS_(g1_jac_t) t;
        TS_FR_(from_mont)(&raw, &k[i]);
        TS_(g1_affine_mul)(&t, &p[i], raw.l, 4);
        TS_(g1_jac_add)(acc, acc, &t);
    }
}

/* A Groth16 proof from the key alone (r = s = 0; h by naive DFTs on the odd
 * coset, as snarkjs-formats.md §5), then the verifier's pairing equation
 * e(-A,B)·e(IC(pub),γ)·e(C,δ)·e(α,β) == 1. w: Montgomery witness. Returns
 * whether it verifies. */
static bool TS_(prove_verify_naive)(const cuzk_zkey *zk, const TS_FR_(t) *w)
{
    const size_t n = zk->domain_size, nv = zk->n_vars, np = zk->n_public;
    unsigned logn = 0;
    while (((size_t)1 << logn) < n)
        logn++;
    TS_FR_(t) *ev[3], *odd[3];
    for (int k = 0; k < 3; k++) {
        ev[k] = calloc(n, sizeof(TS_FR_(t)));
        odd[k] = calloc(n, sizeof(TS_FR_(t)));
        assert_non_null(ev[k]);
        assert_non_null(odd[k]);
    }
    /* a, b from section 4 (value·R² → v), c = a∘b. */
    for (uint64_t q = 0; q < zk->n_coefs; q++) {
        TS_FR_(t) v;
        TS_FR_(from_mont)(&v, &zk->coef_value.TS[q]);
        TS_FR_(from_mont)(&v, &v);
        TS_FR_(to_mont)(&v, &v);
        TS_FR_(mul)(&v, &v, &w[zk->coef_signal[q]]);
        TS_FR_(t) *dst = &ev[zk->coef_matrix[q]][zk->coef_constraint[q]];
        TS_FR_(add)(dst, dst, &v);
    }
    for (size_t i = 0; i < n; i++)
        TS_FR_(mul)(&ev[2][i], &ev[0][i], &ev[1][i]);
    /* Interpolate on <w> and evaluate at w2·w^j: p(x) = Σ_i e_i L_i(x) with
     * L_i(x) = (x^n − 1)/n · w^i/(x − w^i) — checked naively above. */
    TS_FR_(t) wr, w2, winv;
    TS_(ref_root)(&wr, logn);
    TS_(ref_root)(&w2, logn + 1);
    TS_FR_(inv)(&winv, &wr);
    TS_FR_(t) ninv, zx, one;
    TS_FR_(from_u64)(&ninv, n);
    TS_FR_(inv)(&ninv, &ninv);
    TS_FR_(set_one)(&one);
    for (size_t j = 0; j < n; j++) {
        TS_FR_(t) x, xn, wi;
        TS_(pow_u64)(&x, &wr, j);
        TS_FR_(mul)(&x, &x, &w2);
        TS_(pow_u64)(&xn, &x, n);
        TS_FR_(sub)(&zx, &xn, &one);
        TS_FR_(mul)(&zx, &zx, &ninv);
        TS_FR_(set_one)(&wi);
        for (size_t i = 0; i < n; i++) {
            TS_FR_(t) d, l;
            TS_FR_(sub)(&d, &x, &wi);
            TS_FR_(inv)(&d, &d);
            TS_FR_(mul)(&l, &d, &wi);
            TS_FR_(mul)(&l, &l, &zx);
            for (int k = 0; k < 3; k++) {
                TS_FR_(t) t;
                TS_FR_(mul)(&t, &l, &ev[k][i]);
                TS_FR_(add)(&odd[k][j], &odd[k][j], &t);
            }
            TS_FR_(mul)(&wi, &wi, &wr);
        }
    }
    for (size_t j = 0; j < n; j++) {
        TS_FR_(mul)(&odd[0][j], &odd[0][j], &odd[1][j]);
        TS_FR_(sub)(&odd[0][j], &odd[0][j], &odd[2][j]);
    }
    TS_(g1_jac_t) pa, pc, t1;
    TS_(naive_msm1)(&pa, zk->a.TS, w, nv);
    TS_(g1_jac_add_affine)(&pa, &pa, &zk->alpha_1.TS);
    TS_(naive_msm1)(&pc, zk->c.TS, w + np + 1, nv - np - 1);
    TS_(naive_msm1)(&t1, zk->h.TS, odd[0], n);
    TS_(g1_jac_add)(&pc, &pc, &t1);
    TS_(g2_jac_t) pb;
    TS_(g2_jac_set_inf)(&pb);
    for (size_t i = 0; i < nv; i++) {
        TS_FR_(t) raw;
        TS_(g2_jac_t) t;
        TS_FR_(from_mont)(&raw, &w[i]);
        TS_(g2_affine_mul)(&t, &zk->b2.TS[i], raw.l, 4);
        TS_(g2_jac_add)(&pb, &pb, &t);
    }
    TS_(g2_jac_add_affine)(&pb, &pb, &zk->beta_2.TS);
    TS_(g1_jac_t) pub;
    TS_(naive_msm1)(&pub, zk->ic.TS, w, np + 1); /* w[0] = 1 */

    TS_(g1_affine_t) ps[4];
    TS_(g2_affine_t) qs[4];
    TS_(g1_jac_to_affine)(&ps[0], &pa);
    TS_(g1_affine_neg)(&ps[0], &ps[0]);
    TS_(g2_jac_to_affine)(&qs[0], &pb);
    TS_(g1_jac_to_affine)(&ps[1], &pub);
    qs[1] = zk->gamma_2.TS;
    TS_(g1_jac_to_affine)(&ps[2], &pc);
    qs[2] = zk->delta_2.TS;
    ps[3] = zk->alpha_1.TS;
    qs[3] = zk->beta_2.TS;
    TS_(fp12_t) e;
    TS_(multi_pairing)(&e, ps, qs, 4);
    for (int k = 0; k < 3; k++) {
        free(ev[k]);
        free(odd[k]);
    }
    return TS_(fp12_is_one)(&e);
}

static TS_FR_(t) *TS_(wtns_mont)(const cuzk_wtns *wt)
{
    TS_FR_(t) *w = malloc(wt->n_witness * sizeof *w);
    assert_non_null(w);
    for (uint32_t i = 0; i < wt->n_witness; i++)
        TS_FR_(to_mont)(&w[i], &wt->values.TS[i]);
    return w;
}

/* Key checks + a proof that verifies, and one with a wrong witness that
 * does not. */
static void TS_(check_circuit)(cuzk_ctx *ctx, const cuzk_r1cs *r, const cuzk_wtns *wt,
                              const cuzk_setup_toxic *tx)
{
    cuzk_zkey zk;
    cuzk_error e = {0};
    cuzk_status st = cuzk_setup_build(ctx, r, tx, &zk, &e);
    if (st)
        fail_msg("setup: %s", e.msg);
    if (tx)
        TS_(check_key_algebra)(r, &zk, tx);
    TS_FR_(t) *w = TS_(wtns_mont)(wt);
    assert_true(TS_(prove_verify_naive)(&zk, w));
    /* A wrong witness value (of a wire some constraint uses) breaks it. */
    TS_FR_(t) delta;
    TS_FR_(from_u64)(&delta, 12345); /* not 1: a 0 -> 1 flip would still be a bit */
    uint32_t bad = r->m[2].nnz ? r->m[2].wire[0] : r->m[0].wire[0];
    TS_FR_(add)(&w[bad], &w[bad], &delta);
    assert_false(TS_(prove_verify_naive)(&zk, w));
    free(w);
    cuzk_zkey_free(&zk);
}

#endif /* per-instance guard */

#undef TS_
#undef TS_FR_
#undef TS
