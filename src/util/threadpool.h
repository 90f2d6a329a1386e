/* A small persistent thread pool with a parallel-for. Reentrant: each pool
 * is an explicit object; a NULL pool means "run on the calling thread". */
#ifndef CUZK_UTIL_THREADPOOL_H
#define CUZK_UTIL_THREADPOOL_H

#include <stddef.h>

#include "cuzk/cuzk.h" /* cuzk_pool, cuzk_pool_create / _destroy / _size */

/* fn(ctx, begin, end, worker) over [0, n) in chunks of at least `grain`
 * items; worker is in [0, cuzk_pool_size). Returns when all chunks are done.
 * Nested calls from inside fn run serially on the calling worker. Calls from
 * several threads at once (contexts sharing the pool) take turns: each runs
 * on all workers, one after the other. */
typedef void (*cuzk_range_fn)(void *ctx, size_t begin, size_t end, int worker);
void cuzk_parallel_for(cuzk_pool *pool, size_t n, size_t grain, cuzk_range_fn fn, void *ctx);

#endif
