/* NTT benchmark for one curve (included by bench_cpu.c with BC = curve prefix). */
#define BN_(name) CUZK_NAME(BC, name)
#define BR_(name) CUZK_NAME(CUZK_CAT2(BC, _fr), name)

static int CUZK_CAT2(bench_ntt_, BC)(const bench_opts *o, cuzk_pool *pool)
{
    unsigned maxl = CUZK_MIN(o->ntt_max, BN_(ntt_max_log)() - 1);
    for (unsigned L = o->ntt_min; L <= maxl; L++) {
        size_t n = (size_t)1 << L;
        BN_(ntt_domain) *d = NULL;
        cuzk_error e = {0};
        double t0 = bench_now();
        if (BN_(ntt_domain_create)(&d, L, pool, &e) != CUZK_OK) {
            fprintf(stderr, "%s\n", e.msg);
            return 1;
        }
        double tdom = bench_now() - t0;
        BR_(t) *a = cuzk_alloc(n, sizeof *a);
        if (!a) {
            BN_(ntt_domain_free)(d);
            fprintf(stderr, "out of memory at 2^%u\n", L);
            return 1;
        }
        uint64_t st = L;
        for (size_t i = 0; i < n; i++)
            BR_(from_u64)(&a[i], cuzk_splitmix64(&st));
        double best[3] = {1e30, 1e30, 1e30};
        for (int r = 0; r < o->reps; r++) {
            t0 = bench_now();
            BN_(ntt)(d, a, pool);
            double t1 = bench_now();
            BN_(intt)(d, a, pool);
            double t2 = bench_now();
            BN_(ntt_coset_odd)(d, a, pool, &e);
            double t3 = bench_now();
            best[0] = CUZK_MIN(best[0], t1 - t0);
            best[1] = CUZK_MIN(best[1], t2 - t1);
            best[2] = CUZK_MIN(best[2], t3 - t2);
        }
        printf("%-10s %5u %10.2f %10.2f %12.2f %10.1f %12.1f\n", BSTR(BC), L, best[0] * 1e3,
               best[1] * 1e3, best[2] * 1e3, best[0] * 1e9 / (double)n, tdom * 1e3);
        fflush(stdout);
        cuzk_free(a);
        BN_(ntt_domain_free)(d);
    }
    return 0;
}

#undef BN_
#undef BR_
#undef BC
