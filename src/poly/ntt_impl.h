/* Definition "template" for the radix-2 NTT declared in ntt_decl.h.
 *
 * Instantiate once per curve in its own .c file:
 *   #include "poly/ntt.h"
 *   #define FP_PREFIX bn254_fr
 *   #include "field/fp_inline.h"      (inline Montgomery core for the butterflies)
 *   #define FP_PREFIX bn254_fr
 *   #include "field/fp_ifma_inline.h" (8-lane butterflies, run-time CPU check)
 *   #define NTT_CURVE bn254           (a curve listed in curve/instances.h)
 *   #include "poly/ntt_impl.h"
 * Defines, for NTT_CURVE c over fr = c_C_FR: every c_* of ntt_decl.h, plus the
 * static kernels c_nttp_* (stages, butterflies, phase A/B tasks, bit
 * reversal) and their context types. NTT_CURVE is #undef'd at the end.
 *
 * Algorithm. Two in-place kernels, both iterative radix-2:
 *   DIF (Gentleman–Sande): natural order in, bit-reversed out;
 *   DIT (Cooley–Tukey):   bit-reversed in, natural order out.
 * Natural->natural transforms are DIF + a cache-blocked bit-reversal; the
 * Groth16 coset step is DIF(inverse) + fused scaling + DIT(forward), which
 * needs no permutation at all.
 * Each kernel is cache-blocked in two phases:
 *   phase A: the stages whose butterflies span more than a block (2^12
 *            elements) are grouped into "super-stages" of up to 8 stages; one
 *            task owns 2^k rows x 16 adjacent columns (contiguous 512-byte
 *            runs), does all k stages on that tile while it sits in L2, so a
 *            2^20 transform makes one pass over memory here;
 *   phase B: the remaining stages act inside aligned blocks of 2^12 elements
 *            (128 KiB); one task does all of them for one block, plus any
 *            fused scaling (1/n, coset powers) while the block is hot.
 * Tasks are spread over the pool with dynamic chunking.
 * Twiddles: one table tw[j] = omega^j (j < n/2); stage t uses stride
 * 2^(L-1-t). Small stages also get contiguous copies (stw) so the strided
 * look-ups do not waste cache lines. Inverse twiddles are read from the same
 * table: omega^-j = -omega^(n/2-j), and the sign is absorbed by swapping the
 * operands of the butterfly's subtraction, so the inverse costs nothing extra. */

#include <stdint.h>
#include <string.h>

#include "curve/instances.h"
#include "field/fp_ifma.h"
#include "field/instances.h"
#include "util/common.h"
#include "util/templates.h"
#include "util/threadpool.h"

#define NTT_(name) CUZK_NAME(NTT_CURVE, name)
#define NTT_P_(name) CUZK_NAME(NTT_CURVE, CUZK_CAT2(C_, name))
#define NTT_FR_(name) CUZK_NAME(NTT_P_(FR), name)
#if !NTT_FR_(P_LIMBS)
#error "ntt_impl.h: NTT_CURVE must name a curve listed in curve/instances.h"
#endif

#define CUZK_TMPL_ONCE CUZK_TMPL_SLOT(CUZK_TMPL_NTT_IMPL, NTT_P_(ID))
#include "util/tmpl_once.h"
#ifdef CUZK_TMPL_SEEN
#undef CUZK_TMPL_SEEN
#else

/* Tuning (see the header comment). */
#define NTT_BLOCK_LOG 12
#define NTT_KMAX 8
#define NTT_TILE 16
#define NTT_SMALL_STAGES 16
#define NTT_SCALE_GRAIN 4096

/* ---- small helpers -------------------------------------------------------- */

static inline uint64_t NTT_(nttp_rev64)(uint64_t v)
{
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return __builtin_bswap64(v);
}

/* Reverse the low `bits` bits of x. */
static inline size_t NTT_(nttp_rev)(size_t x, unsigned bits)
{
    return bits ? (size_t)(NTT_(nttp_rev64)((uint64_t)x) >> (64 - bits)) : 0;
}

/* Twiddles of stage t (butterfly half-size h = 2^t): forward twiddle j is
 * tbl[j*st] = w[t+1]^j; inverse twiddle j>0 is -tbl[(h-j)*st]. */
typedef struct {
    const NTT_FR_(t) *tbl;
    size_t st;
    size_t h;
} NTT_(nttp_stage);

static inline NTT_(nttp_stage) NTT_(nttp_get_stage)(const NTT_(ntt_domain) *d, unsigned t)
{
    NTT_(nttp_stage) s;
    s.h = (size_t)1 << t;
    if (t < d->stw_stages) {
        s.tbl = d->stw + s.h;
        s.st = 1;
    } else {
        s.tbl = d->tw;
        s.st = (size_t)1 << (d->log_n - 1 - t);
    }
    return s;
}

CUZK_INLINE const NTT_FR_(t) *NTT_(nttp_twp)(const NTT_(nttp_stage) *s, size_t j, int inv)
{
    return inv ? &s->tbl[(s->h - j) * s->st] : &s->tbl[j * s->st];
}

/* Butterfly with twiddle 1 (same for DIF and DIT). */
CUZK_INLINE void NTT_(nttp_bf1)(NTT_FR_(t) *x, NTT_FR_(t) *y)
{
    NTT_FR_(t) u = *x, v = *y;
    NTT_FR_(add_inl)(x, &u, &v);
    NTT_FR_(sub_inl)(y, &u, &v);
}

/* DIF: (x, y) <- (x + y, (x - y)·w); inverse: w = -w', so (y - x)·w'. */
CUZK_INLINE void NTT_(nttp_dif_bf)(NTT_FR_(t) *x, NTT_FR_(t) *y, const NTT_FR_(t) *w, int inv)
{
    NTT_FR_(t) u = *x, v = *y, t;
    NTT_FR_(add_inl)(x, &u, &v);
    if (inv)
        NTT_FR_(sub_inl)(&t, &v, &u);
    else
        NTT_FR_(sub_inl)(&t, &u, &v);
    NTT_FR_(mul_inl)(y, &t, w);
}

/* DIT: v = y·w; (x, y) <- (x + v, x - v); inverse: v = -y·w'. */
CUZK_INLINE void NTT_(nttp_dit_bf)(NTT_FR_(t) *x, NTT_FR_(t) *y, const NTT_FR_(t) *w, int inv)
{
    NTT_FR_(t) u = *x, v;
    NTT_FR_(mul_inl)(&v, y, w);
    if (inv) {
        NTT_FR_(sub_inl)(x, &u, &v);
        NTT_FR_(add_inl)(y, &u, &v);
    } else {
        NTT_FR_(add_inl)(x, &u, &v);
        NTT_FR_(sub_inl)(y, &u, &v);
    }
}

/* ---- scaling hooks fused into phase B ------------------------------------ */

enum { NTTP_HOOK_NONE = 0, NTTP_HOOK_CONST = 1, NTTP_HOOK_BITREV_POW = 2 };

/* CONST: a[p] *= c. BITREV_POW: a[p] *= lo[p mod 2^lo_bits] · hi[p >> lo_bits]
 * (a power of g indexed by bitrev(p), factored into two small tables). */
typedef struct {
    int kind;
    NTT_FR_(t) c;
    const NTT_FR_(t) *lo, *hi;
    unsigned lo_bits;
} NTT_(nttp_hook);

static void NTT_(nttp_apply_hook)(const NTT_(nttp_hook) *hk, NTT_FR_(t) *a, size_t off, size_t len)
{
    if (!hk || hk->kind == NTTP_HOOK_NONE)
        return;
    if (hk->kind == NTTP_HOOK_CONST) {
        for (size_t i = 0; i < len; i++)
            NTT_FR_(mul_inl)(&a[i], &a[i], &hk->c);
        return;
    }
    size_t lo_mask = ((size_t)1 << hk->lo_bits) - 1;
    for (size_t i = 0; i < len; i++) {
        size_t p = off + i;
        NTT_FR_(t) f;
        NTT_FR_(mul_inl)(&f, &hk->lo[p & lo_mask], &hk->hi[p >> hk->lo_bits]);
        NTT_FR_(mul_inl)(&a[i], &a[i], &f);
    }
}

#if defined(CUZK_IFMA)
/* nttp_apply_hook, 8 elements per vector (same products in the same order). */
CUZK_IFMA_INLINE void NTT_(nttp_apply_hook_v8)(const NTT_(nttp_hook) *hk, NTT_FR_(t) *a, size_t off,
                                               size_t len)
{
    if (!hk || hk->kind == NTTP_HOOK_NONE)
        return;
    if (len % 8 || off % 8 || (hk->kind == NTTP_HOOK_BITREV_POW && hk->lo_bits < 3)) {
        NTT_(nttp_apply_hook)(hk, a, off, len);
        return;
    }
    NTT_FR_(v8_t) x, f;
    if (hk->kind == NTTP_HOOK_CONST) {
        NTT_FR_(v8_set1)(&f, &hk->c);
        for (size_t i = 0; i < len; i += 8) {
            NTT_FR_(v8_load)(&x, &a[i]);
            NTT_FR_(v8_mul)(&x, &x, &f);
            NTT_FR_(v8_store)(&a[i], &x);
        }
        return;
    }
    /* 8 consecutive p share hi[p >> lo_bits] (lo_bits >= 3) */
    size_t lo_mask = ((size_t)1 << hk->lo_bits) - 1;
    for (size_t i = 0; i < len; i += 8) {
        size_t p = off + i;
        NTT_FR_(v8_t) hv;
        NTT_FR_(v8_load)(&f, &hk->lo[p & lo_mask]);
        NTT_FR_(v8_set1)(&hv, &hk->hi[p >> hk->lo_bits]);
        NTT_FR_(v8_mul)(&f, &f, &hv);
        NTT_FR_(v8_load)(&x, &a[i]);
        NTT_FR_(v8_mul)(&x, &x, &f);
        NTT_FR_(v8_store)(&a[i], &x);
    }
}
#endif

/* ---- phase B: all stages t < b inside one aligned block of 2^b ----------- */

/* One stage tt over a block of len elements. */
CUZK_INLINE void NTT_(nttp_block_stage)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, size_t len,
                                        unsigned tt, int inv, int dit)
{
    NTT_(nttp_stage) s = NTT_(nttp_get_stage)(d, tt);
    size_t h = s.h;
    for (size_t blk = 0; blk < len; blk += 2 * h) {
        NTT_FR_(t) *x = a + blk, *y = x + h;
        NTT_(nttp_bf1)(&x[0], &y[0]);
        for (size_t j = 1; j < h; j++) {
            if (dit)
                NTT_(nttp_dit_bf)(&x[j], &y[j], NTT_(nttp_twp)(&s, j, inv), inv);
            else
                NTT_(nttp_dif_bf)(&x[j], &y[j], NTT_(nttp_twp)(&s, j, inv), inv);
        }
    }
}

CUZK_INLINE void NTT_(nttp_dif_block)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, unsigned b, int inv)
{
    size_t len = (size_t)1 << b;
    for (unsigned tt = b; tt-- > 0;)
        NTT_(nttp_block_stage)(d, a, len, tt, inv, 0);
}

CUZK_INLINE void NTT_(nttp_dit_block)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, unsigned b, int inv)
{
    size_t len = (size_t)1 << b;
    for (unsigned tt = 0; tt < b; tt++)
        NTT_(nttp_block_stage)(d, a, len, tt, inv, 1);
}

#if defined(CUZK_IFMA)

/* Twiddles j..j+7 of stage s, as nttp_twp; for j = 0 lane 0 gets the
 * twiddle-1 butterfly of nttp_bf1: w = 1 forward, w' = -1 inverse. */
CUZK_IFMA_INLINE void NTT_(nttp_tw8)(NTT_FR_(v8_t) *w, const NTT_(nttp_stage) *s, size_t j, int inv)
{
    if (!inv) {
        if (s->st == 1)
            NTT_FR_(v8_load)(w, &s->tbl[j]);
        else
            NTT_FR_(v8_load_stride)(w, &s->tbl[j * s->st], s->st);
        return;
    }
    if (j) {
        NTT_FR_(v8_load_rstride)(w, &s->tbl[(s->h - j) * s->st], s->st);
        return;
    }
    /* lane 0 would read one past the table */
    NTT_FR_(v8_load_rstride_mask)(w, s->tbl + s->h * s->st, s->st, 0xfe);
    NTT_FR_(v8_t) m1;
    NTT_FR_(v8_set1)(&m1, &NTT_FR_(ONE));
    NTT_FR_(v8_neg)(&m1, &m1);
    NTT_FR_(v8_blend)(w, 0x01, &m1);
}

/* 8 butterflies on x[0..8), y[0..8) (as nttp_dif_bf / nttp_dit_bf). */
CUZK_IFMA_INLINE void NTT_(nttp_bf8)(NTT_FR_(t) *x, NTT_FR_(t) *y, const NTT_FR_(v8_t) *w, int inv,
                                     int dit)
{
    NTT_FR_(v8_t) u, v, t;
    NTT_FR_(v8_load)(&u, x);
    NTT_FR_(v8_load)(&v, y);
    if (dit) {
        NTT_FR_(v8_mul)(&v, &v, w);
        NTT_FR_(v8_add)(&t, &u, &v);
        NTT_FR_(v8_sub)(&u, &u, &v);
        NTT_FR_(v8_store)(x, inv ? &u : &t);
        NTT_FR_(v8_store)(y, inv ? &t : &u);
    } else {
        NTT_FR_(v8_add)(&t, &u, &v);
        if (inv)
            NTT_FR_(v8_sub)(&u, &v, &u);
        else
            NTT_FR_(v8_sub)(&u, &u, &v);
        NTT_FR_(v8_mul)(&u, &u, w);
        NTT_FR_(v8_store)(x, &t);
        NTT_FR_(v8_store)(y, &u);
    }
}

/* nttp_block_stage with 8 columns per vector; the twiddle vector of column
 * group j serves every sub-block. */
CUZK_IFMA_INLINE void NTT_(nttp_block_stage_v8)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a,
                                                size_t len, unsigned tt, int inv, int dit)
{
    NTT_(nttp_stage) s = NTT_(nttp_get_stage)(d, tt);
    size_t h = s.h;
    if (h < 8) {
        NTT_(nttp_block_stage)(d, a, len, tt, inv, dit);
        return;
    }
    for (size_t j = 0; j < h; j += 8) {
        NTT_FR_(v8_t) w;
        NTT_(nttp_tw8)(&w, &s, j, inv);
        for (size_t blk = 0; blk < len; blk += 2 * h)
            NTT_(nttp_bf8)(a + blk + j, a + blk + h + j, &w, inv, dit);
    }
}

CUZK_IFMA_INLINE void NTT_(nttp_dif_block_v8)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, unsigned b,
                                              int inv)
{
    size_t len = (size_t)1 << b;
    for (unsigned tt = b; tt-- > 0;)
        NTT_(nttp_block_stage_v8)(d, a, len, tt, inv, 0);
}

CUZK_IFMA_INLINE void NTT_(nttp_dit_block_v8)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, unsigned b,
                                              int inv)
{
    size_t len = (size_t)1 << b;
    for (unsigned tt = 0; tt < b; tt++)
        NTT_(nttp_block_stage_v8)(d, a, len, tt, inv, 1);
}
#endif

typedef struct {
    const NTT_(ntt_domain) *d;
    NTT_FR_(t) *a;
    unsigned b;
    int inv, dit;
    const NTT_(nttp_hook) *hook;
} NTT_(nttp_pb_ctx);

/* Phase B's loop over the blocks begin..end of context c, written once for
 * the scalar stage functions and once more (SFX = _v8, in an IFMA-target
 * function) for the 8-lane ones; the constant inv / dir arguments let each
 * block be specialised. */
#define NTT_PB_LOOP(SFX, c, begin, end)                                                            \
    do {                                                                                           \
        size_t len = (size_t)1 << c->b;                                                            \
        for (size_t blk = begin; blk < end; blk++) {                                               \
            NTT_FR_(t) *a = c->a + blk * len;                                                      \
            if (c->dit) {                                                                          \
                NTT_(nttp_apply_hook##SFX)(c->hook, a, blk * len, len); /* pre-scale */            \
                if (c->inv)                                                                        \
                    NTT_(nttp_dit_block##SFX)(c->d, a, c->b, 1);                                   \
                else                                                                               \
                    NTT_(nttp_dit_block##SFX)(c->d, a, c->b, 0);                                   \
            } else {                                                                               \
                if (c->inv)                                                                        \
                    NTT_(nttp_dif_block##SFX)(c->d, a, c->b, 1);                                   \
                else                                                                               \
                    NTT_(nttp_dif_block##SFX)(c->d, a, c->b, 0);                                   \
                NTT_(nttp_apply_hook##SFX)(c->hook, a, blk * len, len); /* post-scale */           \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#if defined(CUZK_IFMA)
static CUZK_IFMA_TARGET void NTT_(nttp_pb_task_v8)(const NTT_(nttp_pb_ctx) *c, size_t begin,
                                                   size_t end)
{
    NTT_PB_LOOP(_v8, c, begin, end);
}
#endif

static void NTT_(nttp_pb_task)(void *vctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const NTT_(nttp_pb_ctx) *c = vctx;
#if defined(CUZK_IFMA)
    if (cuzk_ifma_enabled()) {
        NTT_(nttp_pb_task_v8)(c, begin, end);
        return;
    }
#endif
    NTT_PB_LOOP(, c, begin, end);
}
#undef NTT_PB_LOOP

/* ---- phase A: super-stage of stages lo..s on tiles of 2^k rows x TILE cols */

typedef struct {
    const NTT_(ntt_domain) *d;
    NTT_FR_(t) *a;
    unsigned s, lo;
    size_t tile, tiles_per_block;
    int inv, dit;
} NTT_(nttp_pa_ctx);

/* One stage t on a tile held in a contiguous buffer: row r of the tile is
 * buf[r·tile ...], its partner row is hr = 2^(t-lo) rows further. */
CUZK_INLINE void NTT_(nttp_pa_stage)(const NTT_(nttp_pa_ctx) *c, NTT_FR_(t) *buf, size_t c0,
                                     unsigned t, int inv, int dit)
{
    NTT_(nttp_stage) s = NTT_(nttp_get_stage)(c->d, t);
    const unsigned lo = c->lo;
    const size_t rows = (size_t)1 << (c->s - lo + 1);
    const size_t hr = (size_t)1 << (t - lo); /* partner row distance */
    const size_t tile = c->tile;
    for (size_t rb = 0; rb < rows; rb += 2 * hr) {
        for (size_t r = rb; r < rb + hr; r++) {
            size_t j0 = ((r & (hr - 1)) << lo) + c0; /* twiddle index of column 0 */
            NTT_FR_(t) *x = buf + r * tile, *y = x + hr * tile;
            size_t cstart = 0;
            if (j0 == 0) {
                NTT_(nttp_bf1)(&x[0], &y[0]);
                cstart = 1;
            }
            for (size_t col = cstart; col < tile; col++) {
                const NTT_FR_(t) *w = NTT_(nttp_twp)(&s, j0 + col, inv);
                if (dit)
                    NTT_(nttp_dit_bf)(&x[col], &y[col], w, inv);
                else
                    NTT_(nttp_dif_bf)(&x[col], &y[col], w, inv);
            }
        }
    }
}

/* Each task copies its tile (2^k rows 2^lo elements apart: a power-of-two
 * stride that maps every row to the same cache sets) into a contiguous
 * buffer, runs the k stages there, and copies it back. */
CUZK_INLINE NTT_FR_(t) *NTT_(nttp_pa_tile)(const NTT_(nttp_pa_ctx) *c, size_t task, size_t *c0)
{
    size_t ob = task / c->tiles_per_block;
    *c0 = (task % c->tiles_per_block) * c->tile;
    return c->a + (ob << (c->s + 1)) + *c0;
}

CUZK_INLINE void NTT_(nttp_pa_copy)(const NTT_(nttp_pa_ctx) *c, NTT_FR_(t) *buf, NTT_FR_(t) *base,
                                    int in)
{
    const size_t rows = (size_t)1 << (c->s - c->lo + 1), tile = c->tile;
    for (size_t r = 0; r < rows; r++) {
        if (in)
            memcpy(buf + r * tile, base + (r << c->lo), tile * sizeof(NTT_FR_(t)));
        else
            memcpy(base + (r << c->lo), buf + r * tile, tile * sizeof(NTT_FR_(t)));
    }
}

/* Phase A's loop over tiles (copy in, stages lo..s, copy out), written once
 * for the scalar stage function and once more (SFX = _v8, IFMA target) for
 * the 8-lane one. */
#define NTT_PA_RUN_DEF(QUAL, SFX)                                                                  \
    QUAL void NTT_(nttp_pa_run##SFX)(const NTT_(nttp_pa_ctx) *c, size_t begin, size_t end,         \
                                     int inv, int dit)                                             \
    {                                                                                              \
        NTT_FR_(t) buf[((size_t)1 << NTT_KMAX) * NTT_TILE];                                        \
        for (size_t task = begin; task < end; task++) {                                            \
            size_t c0;                                                                             \
            NTT_FR_(t) *base = NTT_(nttp_pa_tile)(c, task, &c0);                                   \
            NTT_(nttp_pa_copy)(c, buf, base, 1);                                                   \
            if (dit) {                                                                             \
                for (unsigned t = c->lo; t <= c->s; t++)                                           \
                    NTT_(nttp_pa_stage##SFX)(c, buf, c0, t, inv, 1);                               \
            } else {                                                                               \
                for (unsigned t = c->s + 1; t-- > c->lo;)                                          \
                    NTT_(nttp_pa_stage##SFX)(c, buf, c0, t, inv, 0);                               \
            }                                                                                      \
            NTT_(nttp_pa_copy)(c, buf, base, 0);                                                   \
        }                                                                                          \
    }

/* RUN(c, begin, end, inv, dit) with inv and dit from context c as constants:
 * four specialisations so the butterfly direction is a constant. */
#define NTT_PA_DISPATCH(RUN, c, begin, end)                                                        \
    do {                                                                                           \
        if (c->dit) {                                                                              \
            if (c->inv)                                                                            \
                RUN(c, begin, end, 1, 1);                                                          \
            else                                                                                   \
                RUN(c, begin, end, 0, 1);                                                          \
        } else {                                                                                   \
            if (c->inv)                                                                            \
                RUN(c, begin, end, 1, 0);                                                          \
            else                                                                                   \
                RUN(c, begin, end, 0, 0);                                                          \
        }                                                                                          \
    } while (0)

NTT_PA_RUN_DEF(CUZK_INLINE, )

#if defined(CUZK_IFMA)
/* nttp_pa_stage, 8 columns per vector (the tile width is a multiple of 8). */
CUZK_IFMA_INLINE void NTT_(nttp_pa_stage_v8)(const NTT_(nttp_pa_ctx) *c, NTT_FR_(t) *buf, size_t c0,
                                             unsigned t, int inv, int dit)
{
    NTT_(nttp_stage) s = NTT_(nttp_get_stage)(c->d, t);
    const unsigned lo = c->lo;
    const size_t rows = (size_t)1 << (c->s - lo + 1);
    const size_t hr = (size_t)1 << (t - lo);
    const size_t tile = c->tile;
    for (size_t rb = 0; rb < rows; rb += 2 * hr) {
        for (size_t r = rb; r < rb + hr; r++) {
            size_t j0 = ((r & (hr - 1)) << lo) + c0;
            NTT_FR_(t) *x = buf + r * tile, *y = x + hr * tile;
            for (size_t col = 0; col < tile; col += 8) {
                NTT_FR_(v8_t) w;
                NTT_(nttp_tw8)(&w, &s, j0 + col, inv);
                NTT_(nttp_bf8)(&x[col], &y[col], &w, inv, dit);
            }
        }
    }
}

NTT_PA_RUN_DEF(CUZK_IFMA_INLINE, _v8)

static CUZK_IFMA_TARGET void NTT_(nttp_pa_task_v8)(const NTT_(nttp_pa_ctx) *c, size_t begin,
                                                   size_t end)
{
    NTT_PA_DISPATCH(NTT_(nttp_pa_run_v8), c, begin, end);
}
#endif

static void NTT_(nttp_pa_task)(void *vctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const NTT_(nttp_pa_ctx) *c = vctx;
#if defined(CUZK_IFMA)
    if (c->tile % 8 == 0 && cuzk_ifma_enabled()) {
        NTT_(nttp_pa_task_v8)(c, begin, end);
        return;
    }
#endif
    NTT_PA_DISPATCH(NTT_(nttp_pa_run), c, begin, end);
}
#undef NTT_PA_RUN_DEF
#undef NTT_PA_DISPATCH

static void NTT_(nttp_phase_a)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, unsigned s, unsigned lo,
                               int inv, int dit, cuzk_pool *pool)
{
    NTT_(nttp_pa_ctx) c;
    c.d = d;
    c.a = a;
    c.s = s;
    c.lo = lo;
    c.tile = CUZK_MIN((size_t)NTT_TILE, (size_t)1 << lo);
    c.tiles_per_block = ((size_t)1 << lo) / c.tile;
    c.inv = inv;
    c.dit = dit;
    size_t nblocks = d->n >> (s + 1);
    cuzk_parallel_for(pool, nblocks * c.tiles_per_block, 1, NTT_(nttp_pa_task), &c);
}

static void NTT_(nttp_phase_b)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, unsigned b, int inv,
                               int dit, const NTT_(nttp_hook) *hook, cuzk_pool *pool)
{
    NTT_(nttp_pb_ctx) c = {d, a, b, inv, dit, hook};
    cuzk_parallel_for(pool, d->n >> b, 1, NTT_(nttp_pb_task), &c);
}

/* Block size for phase B: whole transform when small, else 2^12 but leaving
 * at least 8 blocks so both phases have parallel work. */
static unsigned NTT_(nttp_block_log)(unsigned L)
{
    if (L <= 10)
        return L;
    return CUZK_MIN((unsigned)NTT_BLOCK_LOG, L - 3);
}

/* Stages per phase-A super-stage: split the L-b outer stages evenly into
 * groups of at most NTT_KMAX. */
static unsigned NTT_(nttp_group)(unsigned L, unsigned b)
{
    unsigned outer = L - b;
    if (outer == 0)
        return 1;
    unsigned groups = (outer + NTT_KMAX - 1) / NTT_KMAX;
    return (outer + groups - 1) / groups;
}

static void NTT_(nttp_dif)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, int inv,
                           const NTT_(nttp_hook) *hook, cuzk_pool *pool)
{
    unsigned L = d->log_n;
    unsigned b = NTT_(nttp_block_log)(L);
    unsigned k = NTT_(nttp_group)(L, b);
    unsigned top = L; /* stages [b, top) still to do, from the top down */
    while (top > b) {
        unsigned kk = CUZK_MIN(k, top - b);
        NTT_(nttp_phase_a)(d, a, top - 1, top - kk, inv, 0, pool);
        top -= kk;
    }
    NTT_(nttp_phase_b)(d, a, b, inv, 0, hook, pool);
}

static void NTT_(nttp_dit)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, int inv,
                           const NTT_(nttp_hook) *hook, cuzk_pool *pool)
{
    unsigned L = d->log_n;
    unsigned b = NTT_(nttp_block_log)(L);
    unsigned k = NTT_(nttp_group)(L, b);
    NTT_(nttp_phase_b)(d, a, b, inv, 1, hook, pool);
    unsigned lo = b;
    while (lo < L) {
        unsigned kk = CUZK_MIN(k, L - lo);
        NTT_(nttp_phase_a)(d, a, lo + kk - 1, lo, inv, 1, pool);
        lo += kk;
    }
}

/* ---- bit reversal --------------------------------------------------------- */

#define NTT_BR_BITS 4 /* tiles of 16 x 16 elements (two 8 KiB tiles swapped) */

typedef struct {
    NTT_FR_(t) *a;
    unsigned L;
} NTT_(nttp_br_ctx);

static void NTT_(nttp_br_task)(void *vctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const NTT_(nttp_br_ctx) *c = vctx;
    const unsigned L = c->L, B = NTT_BR_BITS, M = L - 2 * B;
    const size_t T = (size_t)1 << B;
    size_t rv[1 << NTT_BR_BITS];
    for (size_t i = 0; i < T; i++)
        rv[i] = NTT_(nttp_rev)(i, B);
    NTT_FR_(t) *a = c->a;
    for (size_t mid = begin; mid < end; mid++) {
        size_t m2 = NTT_(nttp_rev)(mid, M);
        if (m2 < mid)
            continue; /* the pair is handled from the smaller side */
        for (size_t hi = 0; hi < T; hi++) {
            for (size_t lo = 0; lo < T; lo++) {
                size_t i = (hi << (L - B)) | (mid << B) | lo;
                size_t j = (rv[lo] << (L - B)) | (m2 << B) | rv[hi];
                if (mid != m2 || i < j) {
                    NTT_FR_(t) t = a[i];
                    a[i] = a[j];
                    a[j] = t;
                }
            }
        }
    }
}

void NTT_(bit_reverse)(NTT_FR_(t) *a, unsigned log_n, cuzk_pool *pool)
{
    if (log_n < 2 * NTT_BR_BITS) {
        size_t n = (size_t)1 << log_n;
        for (size_t i = 0; i < n; i++) {
            size_t j = NTT_(nttp_rev)(i, log_n);
            if (i < j) {
                NTT_FR_(t) t = a[i];
                a[i] = a[j];
                a[j] = t;
            }
        }
        return;
    }
    NTT_(nttp_br_ctx) c = {a, log_n};
    cuzk_parallel_for(pool, (size_t)1 << (log_n - 2 * NTT_BR_BITS), 16, NTT_(nttp_br_task), &c);
}

/* ---- geometric scaling a[i] *= c · x^i ------------------------------------ */

typedef struct {
    NTT_FR_(t) *a;
    NTT_FR_(t) c, x;
} NTT_(nttp_geo_ctx);

static void NTT_(nttp_geo_task)(void *vctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const NTT_(nttp_geo_ctx) *g = vctx;
    NTT_FR_(t) cur;
    uint64_t e = (uint64_t)begin;
    NTT_FR_(pow)(&cur, &g->x, &e, 1);
    NTT_FR_(mul_inl)(&cur, &cur, &g->c);
    for (size_t i = begin; i < end; i++) {
        NTT_FR_(mul_inl)(&g->a[i], &g->a[i], &cur);
        NTT_FR_(mul_inl)(&cur, &cur, &g->x);
    }
}

static void NTT_(nttp_geo_scale)(NTT_FR_(t) *a, size_t n, const NTT_FR_(t) *c, const NTT_FR_(t) *x,
                                 cuzk_pool *pool)
{
    NTT_(nttp_geo_ctx) g;
    g.a = a;
    g.c = *c;
    g.x = *x;
    cuzk_parallel_for(pool, n, NTT_SCALE_GRAIN, NTT_(nttp_geo_task), &g);
}

/* ---- domain --------------------------------------------------------------- */

unsigned NTT_(ntt_max_log)(void) { return NTT_FR_(P_TS_S); }

bool NTT_(ntt_root_of_unity)(NTT_FR_(t) *r, unsigned k) { return NTT_(ntt_root_of_unity_gen)(r, k, 5); }

bool NTT_(ntt_root_of_unity_gen)(NTT_FR_(t) *r, unsigned k, uint64_t g)
{
    if (k > NTT_FR_(P_TS_S))
        return false;
    /* e = (r - 1) >> k; r is odd so r - 1 only clears bit 0. */
    NTT_FR_(t) m = NTT_FR_(MODULUS);
    enum { NL = (int)(sizeof(NTT_FR_(t)) / sizeof(uint64_t)) };
    uint64_t e[NL];
    for (int i = 0; i < NL; i++)
        e[i] = m.l[i];
    e[0] -= 1;
    for (unsigned s = 0; s < k; s++) {
        for (int i = 0; i < NL - 1; i++)
            e[i] = (e[i] >> 1) | (e[i + 1] << 63);
        e[NL - 1] >>= 1;
    }
    NTT_FR_(t) gm;
    NTT_FR_(from_u64)(&gm, g);
    NTT_FR_(pow)(r, &gm, e, NL);
    return true;
}

typedef struct {
    NTT_FR_(t) *tw;
    NTT_FR_(t) w;
} NTT_(nttp_tw_ctx);

static void NTT_(nttp_tw_task)(void *vctx, size_t begin, size_t end, int worker)
{
    (void)worker;
    const NTT_(nttp_tw_ctx) *c = vctx;
    NTT_FR_(t) cur;
    uint64_t e = (uint64_t)begin;
    NTT_FR_(pow)(&cur, &c->w, &e, 1);
    for (size_t j = begin; j < end; j++) {
        c->tw[j] = cur;
        NTT_FR_(mul_inl)(&cur, &cur, &c->w);
    }
}

cuzk_status NTT_(ntt_domain_create)(NTT_(ntt_domain) **out, unsigned log_n, cuzk_pool *pool,
                                    cuzk_error *e)
{
    return NTT_(ntt_domain_create_gen)(out, log_n, 5, pool, e);
}

cuzk_status NTT_(ntt_domain_create_gen)(NTT_(ntt_domain) **out, unsigned log_n, uint64_t g, cuzk_pool *pool,
                                        cuzk_error *e)
{
    *out = NULL;
    { /* g^((r-1)/2) = -1: g is not a square, its roots are primitive */
        NTT_FR_(t) h, one, m1;
        NTT_(ntt_root_of_unity_gen)(&h, 1, g);
        NTT_FR_(set_one)(&one);
        NTT_FR_(neg)(&m1, &one);
        if (memcmp(&h, &m1, sizeof h))
            return cuzk_err(e, CUZK_ERR_USAGE, "ntt: %llu is a square modulo r: its powers are not primitive roots",
                            (unsigned long long)g);
    }
    if (log_n > NTT_FR_(P_TS_S))
        return cuzk_err(e, CUZK_ERR_UNSUPPORTED,
                        "ntt: domain 2^%u exceeds the 2-adicity 2^%u of the scalar field", log_n,
                        (unsigned)NTT_FR_(P_TS_S));
    if (log_n >= sizeof(size_t) * 8 - 6)
        return cuzk_err(e, CUZK_ERR_UNSUPPORTED, "ntt: domain 2^%u too large for this platform",
                        log_n);
    NTT_(ntt_domain) *d = cuzk_calloc(1, sizeof *d);
    if (!d)
        return cuzk_err(e, CUZK_ERR_NOMEM, "ntt: out of memory (domain)");
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    NTT_(ntt_root_of_unity_gen)(&d->omega, log_n, g);
    NTT_FR_(inv)(&d->omega_inv, &d->omega);
    NTT_FR_(t) nn;
    NTT_FR_(from_u64)(&nn, (uint64_t)d->n);
    NTT_FR_(inv)(&d->n_inv, &nn);
    if (log_n < NTT_FR_(P_TS_S))
        NTT_(ntt_root_of_unity_gen)(&d->omega_2n, log_n + 1, g);
    else
        NTT_FR_(set_zero)(&d->omega_2n);

    size_t half = d->n / 2;
    d->tw = cuzk_alloc(half ? half : 1, sizeof(NTT_FR_(t)));
    if (!d->tw) {
        NTT_(ntt_domain_free)(d);
        return cuzk_err(e, CUZK_ERR_NOMEM, "ntt: out of memory (2^%u twiddles)", log_n);
    }
    if (half) {
        NTT_(nttp_tw_ctx) tc = {d->tw, d->omega};
        cuzk_parallel_for(pool, half, 1 << 14, NTT_(nttp_tw_task), &tc);
    }
    /* Contiguous tables for stages t < min(SMALL, L-1); stage L-1 already is
     * contiguous in tw. */
    d->stw_stages = log_n >= 1 ? CUZK_MIN((unsigned)NTT_SMALL_STAGES, log_n - 1) : 0;
    size_t stw_len = (size_t)1 << d->stw_stages;
    d->stw = cuzk_alloc(stw_len, sizeof(NTT_FR_(t)));
    if (!d->stw) {
        NTT_(ntt_domain_free)(d);
        return cuzk_err(e, CUZK_ERR_NOMEM, "ntt: out of memory (stage twiddles)");
    }
    NTT_FR_(set_zero)(&d->stw[0]);
    for (unsigned t = 0; t < d->stw_stages; t++) {
        size_t h = (size_t)1 << t, st = (size_t)1 << (log_n - 1 - t);
        for (size_t j = 0; j < h; j++)
            d->stw[h + j] = d->tw[j * st];
    }
    *out = d;
    return CUZK_OK;
}

void NTT_(ntt_domain_free)(NTT_(ntt_domain) *d)
{
    if (!d)
        return;
    cuzk_free(d->tw);
    cuzk_free(d->stw);
    cuzk_free(d);
}

/* ---- transforms ------------------------------------------------------------- */

void NTT_(ntt_nr)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool)
{
    NTT_(nttp_dif)(d, a, 0, NULL, pool);
}

void NTT_(ntt)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool)
{
    NTT_(nttp_dif)(d, a, 0, NULL, pool);
    NTT_(bit_reverse)(a, d->log_n, pool);
}

void NTT_(intt)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool)
{
    NTT_(nttp_hook) hk;
    memset(&hk, 0, sizeof hk);
    hk.kind = NTTP_HOOK_CONST;
    hk.c = d->n_inv;
    NTT_(nttp_dif)(d, a, 1, &hk, pool);
    NTT_(bit_reverse)(a, d->log_n, pool);
}

void NTT_(intt_rn)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool)
{
    NTT_(nttp_hook) hk;
    memset(&hk, 0, sizeof hk);
    hk.kind = NTTP_HOOK_CONST;
    hk.c = d->n_inv;
    NTT_(nttp_dit)(d, a, 1, &hk, pool);
}

cuzk_status NTT_(ntt_coset_odd)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, cuzk_pool *pool,
                                cuzk_error *e)
{
    if (d->log_n >= NTT_FR_(P_TS_S))
        return cuzk_err(e, CUZK_ERR_UNSUPPORTED,
                        "ntt: odd-coset NTT needs w[%u], beyond the 2-adicity %u "
                        "(use ntt_coset with the snarkjs shift 25)",
                        d->log_n + 1, (unsigned)NTT_FR_(P_TS_S));
    /* g^bitrev(p) = lo[p_lo] · hi[p_hi] with p = p_hi·2^hb + p_lo:
     * bitrev_L(p) = bitrev_hb(p_lo)·2^(L-hb) + bitrev_(L-hb)(p_hi).
     * 1/n is folded into hi. */
    const unsigned L = d->log_n, hb = L / 2, ob = L - hb;
    const size_t nlo = (size_t)1 << hb, nhi = (size_t)1 << ob;
    NTT_FR_(t) *tab = cuzk_alloc(nlo + nhi, sizeof(NTT_FR_(t)));
    if (!tab)
        return cuzk_err(e, CUZK_ERR_NOMEM, "ntt: out of memory (coset tables)");
    NTT_FR_(t) *lo = tab, *hi = tab + nlo;
    NTT_FR_(t) step = d->omega_2n, cur;
    for (unsigned i = 0; i < ob; i++)
        NTT_FR_(sqr_inl)(&step, &step); /* g^(2^(L-hb)) */
    NTT_FR_(set_one)(&cur);
    for (size_t k = 0; k < nlo; k++) {
        lo[NTT_(nttp_rev)(k, hb)] = cur;
        NTT_FR_(mul_inl)(&cur, &cur, &step);
    }
    cur = d->n_inv;
    for (size_t k = 0; k < nhi; k++) {
        hi[NTT_(nttp_rev)(k, ob)] = cur;
        NTT_FR_(mul_inl)(&cur, &cur, &d->omega_2n);
    }
    NTT_(nttp_hook) hk;
    memset(&hk, 0, sizeof hk);
    hk.kind = NTTP_HOOK_BITREV_POW;
    hk.lo = lo;
    hk.hi = hi;
    hk.lo_bits = hb;
    NTT_(nttp_dif)(d, a, 1, &hk, pool); /* n·coefficients, bit-reversed; then ·g^i/n */
    NTT_(nttp_dit)(d, a, 0, NULL, pool); /* bit-reversed in, natural out */
    cuzk_free(tab);
    return CUZK_OK;
}

void NTT_(ntt_coset)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, const NTT_FR_(t) *shift,
                     cuzk_pool *pool)
{
    NTT_FR_(t) one;
    NTT_FR_(set_one)(&one);
    NTT_(nttp_geo_scale)(a, d->n, &one, shift, pool);
    NTT_(ntt)(d, a, pool);
}

void NTT_(intt_coset)(const NTT_(ntt_domain) *d, NTT_FR_(t) *a, const NTT_FR_(t) *shift,
                      cuzk_pool *pool)
{
    NTT_FR_(t) sinv;
    NTT_FR_(inv)(&sinv, shift);
    NTT_(nttp_dif)(d, a, 1, NULL, pool);
    NTT_(bit_reverse)(a, d->log_n, pool);
    NTT_(nttp_geo_scale)(a, d->n, &d->n_inv, &sinv, pool);
}

#if defined(CUZK_IFMA)
#endif
#undef NTT_BLOCK_LOG
#undef NTT_KMAX
#undef NTT_TILE
#undef NTT_SMALL_STAGES
#undef NTT_SCALE_GRAIN
#undef NTT_BR_BITS

#endif /* per-instance guard */

#undef NTT_
#undef NTT_P_
#undef NTT_FR_
#undef NTT_CURVE
