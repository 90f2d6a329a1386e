/* A small persistent thread pool with a parallel-for. Reentrant: each pool
 * is an explicit object; a NULL pool means "run on the calling thread". */
#ifndef CUZK_UTIL_THREADPOOL_H
#define CUZK_UTIL_THREADPOOL_H

#include <stddef.h>

typedef struct cuzk_pool cuzk_pool;

/* nthreads <= 0: one per online CPU. Returns NULL on failure. */
cuzk_pool *cuzk_pool_create(int nthreads);
void cuzk_pool_destroy(cuzk_pool *pool);
/* Number of workers (the calling thread participates, so this is the degree
 * of parallelism); 1 for a NULL pool. */
int cuzk_pool_size(const cuzk_pool *pool);

/* fn(ctx, begin, end, worker) over [0, n) in chunks of at least `grain`
 * items; worker is in [0, cuzk_pool_size). Returns when all chunks are done.
 * Nested calls from inside fn run serially on the calling worker. */
typedef void (*cuzk_range_fn)(void *ctx, size_t begin, size_t end, int worker);
void cuzk_parallel_for(cuzk_pool *pool, size_t n, size_t grain, cuzk_range_fn fn, void *ctx);

#endif
