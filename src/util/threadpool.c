/* Persistent thread pool with a dynamic-chunking parallel-for.
 *
 * Design:
 *  - nthreads-1 pthread workers; the caller of cuzk_parallel_for is worker 0
 *    and runs chunks too, so a pool of size T uses exactly T threads.
 *  - A job is published under `mu` and announced by bumping `gen`. Chunks are
 *    claimed with one atomic fetch_add on `next`, so uneven work balances
 *    itself and there is no per-chunk locking.
 *  - Workers spin briefly on `gen` before sleeping on a condition variable:
 *    back-to-back parallel loops (NTT passes, MSM phases) then start in
 *    microseconds, while an idle pool does not burn a core.
 *  - Nesting: a call made from inside fn (by the owning caller or by one of
 *    the pool's workers) runs serially on that thread with its own worker
 *    index. Calls from unrelated threads are serialised on `call_mu`.
 *  - No global or thread-local state: the "am I inside this pool?" test
 *    compares pthread_self() with the pool's own thread handles. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util/threadpool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "util/common.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* Iterations of the spin-wait before falling back to the condvar (a pause is
 * ~10-100 cycles, so this is on the order of tens of microseconds). */
#define SPIN_ITERS 4000

struct cuzk_pool {
    int nthreads;          /* degree of parallelism, caller included */
    int nworkers;          /* nthreads - 1 pthreads */
    pthread_t *threads;

    pthread_mutex_t call_mu; /* serialises top-level calls from different threads */
    atomic_uintptr_t owner;  /* pthread_self() of the thread running a job, or 0 */

    pthread_mutex_t mu;
    pthread_cond_t wake_cv;  /* workers wait here for a new generation */
    pthread_cond_t done_cv;  /* the caller waits here for `active` to reach 0 */
    atomic_uint_fast64_t gen;
    atomic_int sleepers;     /* workers blocked (or about to block) on wake_cv */
    atomic_int active;       /* workers that have not finished the current job */
    bool caller_sleeping;
    bool stop;

    /* The current job (written under mu before gen is bumped). */
    cuzk_range_fn fn;
    void *ctx;
    size_t n, chunk;
    atomic_size_t next;
};

typedef struct {
    cuzk_pool *pool;
    int id;
} worker_arg;

/* One step of a spin-wait. Yielding now and then keeps an oversubscribed
 * machine (more threads than free cores) from stalling the thread that
 * actually has work. */
static inline void spin_pause(int i)
{
    if ((i & 63) == 63)
        sched_yield();
    else
        CPU_RELAX();
}

static void run_chunks(cuzk_pool *p, cuzk_range_fn fn, void *ctx, size_t n, size_t chunk, int id)
{
    for (;;) {
        size_t b = atomic_fetch_add_explicit(&p->next, chunk, memory_order_relaxed);
        if (b >= n)
            break;
        size_t e = (n - b > chunk) ? b + chunk : n;
        fn(ctx, b, e, id);
    }
}

static void *worker_main(void *argp)
{
    worker_arg *arg = argp;
    cuzk_pool *p = arg->pool;
    int id = arg->id;
    free(arg);

    uint_fast64_t seen = 0;
    for (;;) {
        /* Spin first: cheap hand-off for back-to-back jobs. */
        for (int i = 0; i < SPIN_ITERS; i++) {
            if (atomic_load_explicit(&p->gen, memory_order_acquire) != seen)
                break;
            spin_pause(i);
        }
        pthread_mutex_lock(&p->mu);
        while (atomic_load_explicit(&p->gen, memory_order_relaxed) == seen && !p->stop) {
            atomic_fetch_add(&p->sleepers, 1);
            pthread_cond_wait(&p->wake_cv, &p->mu);
            atomic_fetch_sub(&p->sleepers, 1);
        }
        if (p->stop) {
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        seen = atomic_load_explicit(&p->gen, memory_order_relaxed);
        cuzk_range_fn fn = p->fn;
        void *ctx = p->ctx;
        size_t n = p->n, chunk = p->chunk;
        pthread_mutex_unlock(&p->mu);

        run_chunks(p, fn, ctx, n, chunk, id);

        if (atomic_fetch_sub_explicit(&p->active, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&p->mu);
            if (p->caller_sleeping)
                pthread_cond_signal(&p->done_cv);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

cuzk_pool *cuzk_pool_create(int nthreads)
{
    if (nthreads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = c > 0 ? (int)CUZK_MIN(c, 1024) : 1;
    }
    cuzk_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->nthreads = nthreads;
    p->nworkers = 0;
    atomic_init(&p->owner, 0);
    atomic_init(&p->gen, 0);
    atomic_init(&p->sleepers, 0);
    atomic_init(&p->active, 0);
    atomic_init(&p->next, 0);
    if (pthread_mutex_init(&p->call_mu, NULL) != 0) {
        free(p);
        return NULL;
    }
    if (pthread_mutex_init(&p->mu, NULL) != 0) {
        pthread_mutex_destroy(&p->call_mu);
        free(p);
        return NULL;
    }
    if (pthread_cond_init(&p->wake_cv, NULL) != 0 || pthread_cond_init(&p->done_cv, NULL) != 0) {
        /* A failed cond init leaves nothing to destroy on Linux; keep it simple. */
        pthread_mutex_destroy(&p->mu);
        pthread_mutex_destroy(&p->call_mu);
        free(p);
        return NULL;
    }
    if (nthreads > 1) {
        p->threads = calloc((size_t)nthreads - 1, sizeof *p->threads);
        if (!p->threads) {
            cuzk_pool_destroy(p);
            return NULL;
        }
        for (int i = 1; i < nthreads; i++) {
            worker_arg *a = malloc(sizeof *a);
            if (!a) {
                cuzk_pool_destroy(p);
                return NULL;
            }
            a->pool = p;
            a->id = i;
            if (pthread_create(&p->threads[i - 1], NULL, worker_main, a) != 0) {
                free(a);
                cuzk_pool_destroy(p);
                return NULL;
            }
            p->nworkers++;
        }
    }
    return p;
}

void cuzk_pool_destroy(cuzk_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->wake_cv);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nworkers; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    pthread_cond_destroy(&p->wake_cv);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->call_mu);
    free(p);
}

int cuzk_pool_size(const cuzk_pool *p)
{
    return p ? p->nthreads : 1;
}

/* Worker index of the calling thread if it is currently inside this pool's
 * parallel_for (as the owner or as a worker), else -1. */
static int self_index(cuzk_pool *p)
{
    pthread_t me = pthread_self();
    if (atomic_load_explicit(&p->owner, memory_order_acquire) == (uintptr_t)me)
        return 0;
    for (int i = 0; i < p->nworkers; i++)
        if (pthread_equal(p->threads[i], me))
            return i + 1;
    return -1;
}

void cuzk_parallel_for(cuzk_pool *p, size_t n, size_t grain, cuzk_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    if (!p || p->nthreads == 1 || n <= grain) {
        int id = p ? self_index(p) : 0;
        fn(ctx, 0, n, id < 0 ? 0 : id);
        return;
    }
    int id = self_index(p);
    if (id >= 0) { /* nested call: run serially on this thread */
        fn(ctx, 0, n, id);
        return;
    }

    /* Chunk size: at least `grain`, and about 16 chunks per thread so the
     * atomic counter balances uneven chunks without contention. */
    size_t chunk = n / ((size_t)p->nthreads * 16);
    if (chunk < grain)
        chunk = grain;

    pthread_mutex_lock(&p->call_mu);
    atomic_store_explicit(&p->owner, (uintptr_t)pthread_self(), memory_order_release);

    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->chunk = chunk;
    atomic_store_explicit(&p->next, 0, memory_order_relaxed);
    atomic_store_explicit(&p->active, p->nworkers, memory_order_relaxed);
    atomic_fetch_add_explicit(&p->gen, 1, memory_order_release);
    if (atomic_load(&p->sleepers) > 0)
        pthread_cond_broadcast(&p->wake_cv);
    pthread_mutex_unlock(&p->mu);

    run_chunks(p, fn, ctx, n, chunk, 0);

    /* Wait for the workers: spin briefly (they are usually finishing their
     * last chunk), then sleep. */
    for (int i = 0; i < SPIN_ITERS && atomic_load_explicit(&p->active, memory_order_acquire) > 0; i++)
        spin_pause(i);
    if (atomic_load_explicit(&p->active, memory_order_acquire) > 0) {
        pthread_mutex_lock(&p->mu);
        p->caller_sleeping = true;
        while (atomic_load_explicit(&p->active, memory_order_acquire) > 0)
            pthread_cond_wait(&p->done_cv, &p->mu);
        p->caller_sleeping = false;
        pthread_mutex_unlock(&p->mu);
    }

    atomic_store_explicit(&p->owner, 0, memory_order_release);
    pthread_mutex_unlock(&p->call_mu);
}
