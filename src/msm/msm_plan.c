/* MSM planner: window size and work split from a simple cost model, shared
 * by every group (and meant to be mirrored by the GPU memory planner). */
#include <math.h>
#include <string.h>

#include "field/fp_ifma.h"
#include "msm/msm.h"

void cuzk_msm_plan_fixed(cuzk_msm_plan *p, size_t n, unsigned scalar_bits, int threads,
                         size_t xyzz_bytes, unsigned c, unsigned splits)
{
    memset(p, 0, sizeof *p);
    if (threads < 1)
        threads = 1;
    if (c < 1)
        c = 1;
    if (c > CUZK_MSM_MAX_WINDOW)
        c = CUZK_MSM_MAX_WINDOW;
    if (splits < 1)
        splits = 1;
    p->n = n;
    p->scalar_bits = scalar_bits;
    p->c = c;
    p->windows = (scalar_bits + 1 + c - 1) / c;
    p->splits = splits;
    p->tasks = (size_t)p->windows * splits;
    p->buckets = (size_t)1 << (c - 1);
    p->threads = threads;
    p->bucket_bytes = p->buckets * xyzz_bytes;

    /* A digit is zero with probability ~2^-c; those points cost nothing. */
    double per_range = (double)n / splits;
    double madd_task = per_range * (1.0 - 1.0 / (double)((size_t)1 << c));
    /* Running sum: acc += bucket; sum += acc. With affine buckets (batch-affine
     * kernel) the first is a mixed addition. */
    bool affine = c >= CUZK_MSM_AFFINE_MIN_C;
    p->affine = affine;
    double acc_cost = affine ? (cuzk_ifma_enabled() ? CUZK_MSM_COST_BADD_VEC : CUZK_MSM_COST_BADD)
                             : CUZK_MSM_COST_MADD;
    double red_cost = (affine ? CUZK_MSM_COST_MADD : CUZK_MSM_COST_ADD) + CUZK_MSM_COST_ADD;
    p->madds = madd_task * (double)p->tasks;
    p->adds = 2.0 * (double)p->buckets * (double)p->tasks + (double)p->tasks;
    p->dbls = (double)p->windows * c;
    double rounds = ceil((double)p->tasks / threads);
    p->cost = rounds * (madd_task * acc_cost + (double)p->buckets * red_cost) +
              ((double)p->tasks + p->dbls) * CUZK_MSM_COST_ADD;
}

void cuzk_msm_plan_make(cuzk_msm_plan *p, size_t n, unsigned scalar_bits, int threads,
                        size_t xyzz_bytes)
{
    cuzk_msm_plan best, cur;
    bool have = false;
    if (threads < 1)
        threads = 1;
    for (unsigned c = 1; c <= CUZK_MSM_MAX_WINDOW; c++) {
        if (xyzz_bytes && ((size_t)1 << (c - 1)) * xyzz_bytes > CUZK_MSM_MAX_BUCKET_BYTES)
            break;
        /* Splitting points only pays when the windows alone cannot keep the
         * threads busy; try powers of two up to 4 tasks per thread. */
        for (unsigned s = 1; s <= 1024; s *= 2) {
            if (s > 1 && (size_t)s * 16 > n)
                break;
            cuzk_msm_plan_fixed(&cur, n, scalar_bits, threads, xyzz_bytes, c, s);
            if (!have || cur.cost < best.cost) {
                best = cur;
                have = true;
            }
            if (cur.tasks >= (size_t)threads * 4)
                break;
        }
    }
    *p = best;
}
