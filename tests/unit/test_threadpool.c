/* Thread pool: every index visited exactly once, worker ids in range, grain
 * respected, nested calls serial, NULL pool serial, concurrent callers
 * serialised, many back-to-back jobs (wake-up races). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/threadpool.h"

typedef struct {
    atomic_int *hits;
    int nthreads;
    size_t grain;
    size_t n;
    atomic_int bad;
    atomic_int per_worker[64];
} visit_ctx;

static void visit(void *c, size_t b, size_t e, int w)
{
    visit_ctx *v = c;
    if (w < 0 || w >= v->nthreads || b >= e || e > v->n)
        atomic_fetch_add(&v->bad, 1);
    /* Every chunk but the final one must hold at least grain items. */
    if (e - b < v->grain && e != v->n)
        atomic_fetch_add(&v->bad, 1);
    for (size_t i = b; i < e; i++)
        atomic_fetch_add(&v->hits[i], 1);
    if (w >= 0 && w < 64)
        atomic_fetch_add(&v->per_worker[w], (int)(e - b));
}

static void check_cover(cuzk_pool *pool, size_t n, size_t grain)
{
    visit_ctx v;
    memset(&v, 0, sizeof v);
    v.hits = calloc(n ? n : 1, sizeof *v.hits);
    assert_non_null(v.hits);
    v.nthreads = cuzk_pool_size(pool);
    v.grain = grain ? grain : 1;
    v.n = n;
    cuzk_parallel_for(pool, n, grain, visit, &v);
    assert_int_equal(atomic_load(&v.bad), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(atomic_load(&v.hits[i]), 1);
    long total = 0;
    for (int w = 0; w < 64; w++)
        total += atomic_load(&v.per_worker[w]);
    assert_int_equal(total, (long)n);
    free(v.hits);
}

static void test_null_pool(void **state)
{
    (void)state;
    assert_int_equal(cuzk_pool_size(NULL), 1);
    check_cover(NULL, 0, 1);
    check_cover(NULL, 1, 1);
    check_cover(NULL, 1000, 7);
}

static void test_cover_sizes(void **state)
{
    (void)state;
    const int sizes[] = {1, 2, 3, 4, 7};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        cuzk_pool *pool = cuzk_pool_create(sizes[s]);
        assert_non_null(pool);
        assert_int_equal(cuzk_pool_size(pool), sizes[s]);
        const size_t ns[] = {0, 1, 2, 3, 17, 64, 1000, 4096, 100003};
        const size_t grains[] = {0, 1, 3, 64, 5000};
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++)
                check_cover(pool, ns[i], grains[g]);
        cuzk_pool_destroy(pool);
    }
    cuzk_pool *def = cuzk_pool_create(0);
    assert_non_null(def);
    assert_true(cuzk_pool_size(def) >= 1);
    check_cover(def, 12345, 1);
    cuzk_pool_destroy(def);
}

/* Many short jobs in a row: exercises the spin/sleep hand-off. */
typedef struct {
    atomic_long sum;
} sum_ctx;

static void add_range(void *c, size_t b, size_t e, int w)
{
    (void)w;
    sum_ctx *s = c;
    long acc = 0;
    for (size_t i = b; i < e; i++)
        acc += (long)i;
    atomic_fetch_add(&s->sum, acc);
}

static void test_many_jobs(void **state)
{
    (void)state;
    cuzk_pool *pool = cuzk_pool_create(3);
    assert_non_null(pool);
    for (int it = 0; it < 20000; it++) {
        sum_ctx s;
        atomic_init(&s.sum, 0);
        size_t n = (size_t)(it % 97) + 2;
        cuzk_parallel_for(pool, n, 1, add_range, &s);
        assert_int_equal(atomic_load(&s.sum), (long)(n * (n - 1) / 2));
    }
    cuzk_pool_destroy(pool);
}

/* Nested calls run serially with the caller's worker index. */
typedef struct {
    cuzk_pool *pool;
    atomic_int bad;
    atomic_long inner_total;
} nest_ctx;

typedef struct {
    int outer_worker;
    nest_ctx *outer;
    long count;
} inner_ctx;

static void inner_fn(void *c, size_t b, size_t e, int w)
{
    inner_ctx *ic = c;
    if (w != ic->outer_worker || b != 0)
        atomic_fetch_add(&ic->outer->bad, 1);
    ic->count += (long)(e - b);
}

static void outer_fn(void *c, size_t b, size_t e, int w)
{
    nest_ctx *nc = c;
    for (size_t i = b; i < e; i++) {
        inner_ctx ic = {w, nc, 0};
        cuzk_parallel_for(nc->pool, 100, 1, inner_fn, &ic);
        if (ic.count != 100)
            atomic_fetch_add(&nc->bad, 1);
        atomic_fetch_add(&nc->inner_total, ic.count);
    }
}

static void test_nested(void **state)
{
    (void)state;
    cuzk_pool *pool = cuzk_pool_create(4);
    assert_non_null(pool);
    nest_ctx nc;
    nc.pool = pool;
    atomic_init(&nc.bad, 0);
    atomic_init(&nc.inner_total, 0);
    cuzk_parallel_for(pool, 257, 1, outer_fn, &nc);
    assert_int_equal(atomic_load(&nc.bad), 0);
    assert_int_equal(atomic_load(&nc.inner_total), 257 * 100);
    cuzk_pool_destroy(pool);
}

/* Two unrelated threads sharing one pool: calls are serialised, both correct. */
typedef struct {
    cuzk_pool *pool;
    int ok;
} thr_arg;

static void *caller_thread(void *a)
{
    thr_arg *t = a;
    t->ok = 1;
    for (int it = 0; it < 2000; it++) {
        sum_ctx s;
        atomic_init(&s.sum, 0);
        size_t n = 1000 + (size_t)it;
        cuzk_parallel_for(t->pool, n, 1, add_range, &s);
        if (atomic_load(&s.sum) != (long)(n * (n - 1) / 2))
            t->ok = 0;
    }
    return NULL;
}

static void test_concurrent_callers(void **state)
{
    (void)state;
    cuzk_pool *pool = cuzk_pool_create(2);
    assert_non_null(pool);
    pthread_t th[3];
    thr_arg args[3];
    for (int i = 0; i < 3; i++) {
        args[i].pool = pool;
        args[i].ok = 0;
        assert_int_equal(pthread_create(&th[i], NULL, caller_thread, &args[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].ok, 1);
    }
    cuzk_pool_destroy(pool);
}

/* Create/destroy churn (threads must all exit and be joined). */
static void test_create_destroy(void **state)
{
    (void)state;
    for (int i = 0; i < 50; i++) {
        cuzk_pool *pool = cuzk_pool_create(1 + i % 4);
        assert_non_null(pool);
        if (i % 2)
            check_cover(pool, 1000, 10);
        cuzk_pool_destroy(pool);
    }
    cuzk_pool_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null_pool),
        cmocka_unit_test(test_cover_sizes),
        cmocka_unit_test(test_many_jobs),
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_concurrent_callers),
        cmocka_unit_test(test_create_destroy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
