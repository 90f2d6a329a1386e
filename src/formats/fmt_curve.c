/* The per-curve operation table of the formats layer (over the curve
 * descriptions of curve/curve_desc.c), and small shared helpers. */
#include <stdatomic.h>

#include "curve/curves.h"
#include "formats/fmt_internal.h"

/* The descriptions (curve/curve_desc.c) the tables point to. */
#define FC_DECLARE(id, e) extern const cuzk_curve_desc id##_curve_desc;
CUZK_CURVES(FC_DECLARE)
#undef FC_DECLARE

/* 8-lane IFMA field cores for the vectorised on-curve checks. */
#define FP_INLINE_KEEP
#define FP2_INLINE_KEEP
#define FP_PREFIX bn254_fp
#include "field/fp_inline.h"
#include "field/fp_ifma_inline.h"
#define FP2_PREFIX bn254_fp2
#include "field/fp2_inline.h"
#undef FP2_INLINE_KEEP
#include "field/fp2_ifma_inline.h"
#undef FP_PREFIX
#define FP2_INLINE_KEEP
#define FP_PREFIX bls12_381_fp
#include "field/fp_inline.h"
#undef FP_INLINE_KEEP
#include "field/fp_ifma_inline.h"
#define FP2_PREFIX bls12_381_fp2
#include "field/fp2_inline.h"
#undef FP2_INLINE_KEEP
#include "field/fp2_ifma_inline.h"

/* One instantiation per curve of curves.h. */
#define FC_CURVE bn254
#include "formats/fmt_curve_impl.h"

#define FC_CURVE bls12_381
#include "formats/fmt_curve_impl.h"

const fmt_ops *fmt_ops_get(cuzk_curve c)
{
    switch (c) {
#define FC_CASE(id, e) \
    case e: return &id##_fmt_ops;
        CUZK_CURVES(FC_CASE)
#undef FC_CASE
    default: return NULL;
    }
}

const char *fmt_pt_reason(int why)
{
    switch (why) {
    case FMT_PT_RANGE: return "has a coordinate >= q";
    case FMT_PT_CURVE: return "is not on the curve";
    case FMT_PT_SUBGROUP: return "is not in the prime-order subgroup";
    default: return "is invalid";
    }
}

bool fmt_is_decimal(const char *s, size_t max_digits)
{
    if (!s || !*s)
        return false;
    size_t n = 0;
    for (; s[n]; n++)
        if (s[n] < '0' || s[n] > '9' || n >= max_digits)
            return false;
    return true;
}

typedef struct {
    fmt_item_fn item;
    void *ctx;
    atomic_size_t bad;
} scan_job;

static void scan_range(void *p, size_t lo, size_t hi, int worker)
{
    (void)worker;
    scan_job *j = p;
    for (size_t i = lo; i < hi; i++) {
        /* Later items cannot become the first failure: stop early. */
        if ((i & 63) == 0 && i >= atomic_load_explicit(&j->bad, memory_order_relaxed))
            return;
        if (j->item(j->ctx, i)) {
            size_t cur = atomic_load_explicit(&j->bad, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak(&j->bad, &cur, i))
                ;
            return;
        }
    }
}

void fmt_par_scan(cuzk_pool *pool, size_t n, size_t grain, fmt_item_fn item, void *ctx,
                  size_t *bad, int *why)
{
    scan_job j = {item, ctx, n};
    if (n)
        cuzk_parallel_for(pool, n, grain ? grain : 1, scan_range, &j);
    *bad = atomic_load(&j.bad);
    /* Items are pure checks (or idempotent copies): re-run for the reason. */
    *why = *bad < n ? item(ctx, *bad) : 0;
}
