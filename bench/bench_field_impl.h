/* Field multiplication micro-benchmark for one prime field ("template"):
 * ns per Montgomery product, scalar (MULX/ADX) vs 8-lane IFMA, each as
 * throughput (8 resp. 2x8 independent chains) and latency (one chain); ns
 * per inversion (include fp_inv_vt.h for the field first).
 * Include with BFF (field prefix) and BFF_LIMBS; defines bench_field_<BFF>. */

#define BFN_(name) CUZK_NAME(BFF, name)
#define BF_ITERS 200000

static double BFN_(bf_scalar)(int chains)
{
    BFN_(t) x[8], y;
    for (int k = 0; k < 8; k++)
        BFN_(from_u64)(&x[k], (uint64_t)k + 3);
    BFN_(from_u64)(&y, 12345);
    double t0 = bench_now();
    for (int it = 0; it < BF_ITERS; it++)
        for (int k = 0; k < chains; k++)
            BFN_(mul_inl)(&x[k], &x[k], &y);
    double dt = bench_now() - t0;
    volatile uint64_t sink = 0;
    for (int k = 0; k < 8; k++)
        sink ^= x[k].l[0];
    (void)sink;
    return dt * 1e9 / ((double)BF_ITERS * chains);
}

#if defined(CUZK_IFMA)
CUZK_IFMA_TARGET static double BFN_(bf_vec)(int vecs)
{
    BFN_(t) a[8];
    for (int k = 0; k < 8; k++)
        BFN_(from_u64)(&a[k], (uint64_t)k + 3);
    BFN_(v8_t) x[2], y;
    BFN_(v8_from_array)(&x[0], a);
    BFN_(v8_from_array)(&x[1], a);
    BFN_(v8_from_array)(&y, a);
    double t0 = bench_now();
    for (int it = 0; it < BF_ITERS; it++)
        for (int v = 0; v < vecs; v++)
            BFN_(v8_mul)(&x[v], &x[v], &y);
    double dt = bench_now() - t0;
    BFN_(v8_to_array)(a, &x[0]);
    BFN_(v8_to_array)(a, &x[1]);
    volatile uint64_t sink = a[0].l[0];
    (void)sink;
    return dt * 1e9 / ((double)BF_ITERS * 8 * vecs);
}
#endif

/* ns per inversion: Fermat (<f>_inv) or variable-time (<f>_inv_vt). */
static double BFN_(bf_inv)(int vt)
{
    enum { NI = 2000 };
    BFN_(t) x;
    BFN_(from_u64)(&x, 7);
    double t0 = bench_now();
    for (int it = 0; it < NI; it++) {
        if (vt)
            BFN_(inv_vt)(&x, &x);
        else
            BFN_(inv)(&x, &x);
        x.l[0] ^= (uint64_t)it & 1; /* stays < p: p's low limb is odd */
    }
    double dt = bench_now() - t0;
    volatile uint64_t sink = x.l[0];
    (void)sink;
    return dt * 1e9 / NI;
}

static void BFN_(bench_field)(void)
{
    double st = BFN_(bf_scalar)(8), sl = BFN_(bf_scalar)(1);
    double vt = 0, vl = 0;
#if defined(CUZK_IFMA)
    if (cuzk_ifma_supported()) {
        vt = BFN_(bf_vec)(2);
        vl = BFN_(bf_vec)(1);
    }
#endif
    double iv = BFN_(bf_inv)(0), ivt = BFN_(bf_inv)(1);
    printf("%-14s %14.2f %14.2f %14.2f %14.2f %12.0f %12.0f\n", BSTR(BFF), st, sl, vt, vl, iv,
           ivt);
}

#undef BFN_
#undef BF_ITERS
#undef BFF
#undef BFF_LIMBS
