/* Per-curve part of the formats layer, written once and instantiated per
 * curve by fmt_curve.c: point validation, Fq decimal I/O and the r1cs
 * witness-satisfaction rows. Include with `#define FC_CURVE bn254` after the
 * curve's umbrella header; defines static functions and `<c>_fmt_ops` over the
 * description `<c>_curve_desc`. */

#define FC_(n) CUZK_NAME(FC_CURVE, n)

static int FC_(fmt_g1_check)(const void *pt, bool subgroup)
{
    const FC_(g1_affine_t) *p = pt;
    if (!FC_(fp_raw_is_canonical)(&p->x) || !FC_(fp_raw_is_canonical)(&p->y))
        return FMT_PT_RANGE;
    if (!FC_(g1_affine_is_on_curve)(p))
        return FMT_PT_CURVE;
    if (subgroup && !FC_(g1_affine_in_subgroup)(p))
        return FMT_PT_SUBGROUP;
    return FMT_PT_OK;
}

static int FC_(fmt_g2_check)(const void *pt, bool subgroup)
{
    const FC_(g2_affine_t) *p = pt;
    if (!FC_(fp_raw_is_canonical)(&p->x.c0) || !FC_(fp_raw_is_canonical)(&p->x.c1) ||
        !FC_(fp_raw_is_canonical)(&p->y.c0) || !FC_(fp_raw_is_canonical)(&p->y.c1))
        return FMT_PT_RANGE;
    if (!FC_(g2_affine_is_on_curve)(p))
        return FMT_PT_CURVE;
    if (subgroup && !FC_(g2_affine_in_subgroup)(p))
        return FMT_PT_SUBGROUP;
    return FMT_PT_OK;
}

#if defined(CUZK_IFMA)
/* y^2 == x^3 + b for 8 points at once (8-lane IFMA field arithmetic, the
 * same residues as the scalar code). Only a fast accept: false when any
 * coordinate is >= q (the vector code needs canonical inputs) or any lane
 * fails, infinity included; the caller then checks each point the scalar
 * way, which gives the exact point and reason. */
CUZK_IFMA_TARGET static bool FC_(g1_on_curve8)(const FC_(g1_affine_t) *p)
{
    const void *ptr[8];
    for (int k = 0; k < 8; k++) {
        if (!FC_(fp_raw_is_canonical)(&p[k].x) || !FC_(fp_raw_is_canonical)(&p[k].y))
            return false;
        ptr[k] = &p[k];
    }
    FC_(fp_v8_t) x, y, l, r, b;
    FC_(fp_v8_gather)(&x, ptr, offsetof(FC_(g1_affine_t), x));
    FC_(fp_v8_gather)(&y, ptr, offsetof(FC_(g1_affine_t), y));
    FC_(fp_v8_set1)(&b, &FC_(g1_B));
    FC_(fp_v8_sqr)(&l, &y);
    FC_(fp_v8_sqr)(&r, &x);
    FC_(fp_v8_mul)(&r, &r, &x);
    FC_(fp_v8_add)(&r, &r, &b);
    FC_(fp_v8_sub)(&l, &l, &r);
    return FC_(fp_v8_is_zero)(&l) == 0xff;
}

CUZK_IFMA_TARGET static bool FC_(g2_on_curve8)(const FC_(g2_affine_t) *p)
{
    const void *ptr[8];
    FC_(fp2_t) bb[8];
    for (int k = 0; k < 8; k++) {
        if (!FC_(fp_raw_is_canonical)(&p[k].x.c0) || !FC_(fp_raw_is_canonical)(&p[k].x.c1) ||
            !FC_(fp_raw_is_canonical)(&p[k].y.c0) || !FC_(fp_raw_is_canonical)(&p[k].y.c1))
            return false;
        ptr[k] = &p[k];
        bb[k] = FC_(g2_B);
    }
    FC_(fp2_v8_t) x, y, l, r, b;
    FC_(fp2_v8_gather)(&x, ptr, offsetof(FC_(g2_affine_t), x));
    FC_(fp2_v8_gather)(&y, ptr, offsetof(FC_(g2_affine_t), y));
    FC_(fp2_v8_from_array)(&b, bb);
    FC_(fp2_v8_sqr)(&l, &y);
    FC_(fp2_v8_sqr)(&r, &x);
    FC_(fp2_v8_mul)(&r, &r, &x);
    FC_(fp2_v8_add)(&r, &r, &b);
    FC_(fp2_v8_sub)(&l, &l, &r);
    return FC_(fp2_v8_is_zero)(&l) == 0xff;
}
#endif

/* The first bad point of n (its reason), or 0: 8 at a time through the
 * vector fast accept where possible (no subgroup check), else one by one. */
static int FC_(fmt_g1_check_n)(const void *pts, size_t n, bool subgroup)
{
    const FC_(g1_affine_t) *p = pts;
    size_t i = 0;
#if defined(CUZK_IFMA)
    if (!subgroup && cuzk_ifma_enabled())
        for (; i + 8 <= n && FC_(g1_on_curve8)(p + i); i += 8)
            ;
#endif
    for (; i < n; i++) {
        int why = FC_(fmt_g1_check)(&p[i], subgroup);
        if (why)
            return why;
    }
    return FMT_PT_OK;
}

static int FC_(fmt_g2_check_n)(const void *pts, size_t n, bool subgroup)
{
    const FC_(g2_affine_t) *p = pts;
    size_t i = 0;
#if defined(CUZK_IFMA)
    if (!subgroup && cuzk_ifma_enabled())
        for (; i + 8 <= n && FC_(g2_on_curve8)(p + i); i += 8)
            ;
#endif
    for (; i < n; i++) {
        int why = FC_(fmt_g2_check)(&p[i], subgroup);
        if (why)
            return why;
    }
    return FMT_PT_OK;
}

static int FC_(fmt_fq_to_dec)(char *buf, size_t cap, const void *mont)
{
    return FC_(fp_to_dec)(buf, cap, (const FC_(fp_t) *)mont);
}

static int FC_(fmt_fq_from_dec)(void *mont, const char *s)
{
    /* Syntax first, so that "not a number" and ">= q" get different messages. */
    if (!fmt_is_decimal(s, SIZE_MAX)) /* leading zeros are fine, as for BigInt() */
        return FMT_DEC_SYNTAX;
    return FC_(fp_from_dec)((FC_(fp_t) *)mont, s) ? FMT_DEC_OK : FMT_DEC_RANGE;
}

static void FC_(fmt_fr_to_mont_vec)(void *out, const void *in, size_t n)
{
    FC_(fr_t) *o = out;
    const FC_(fr_t) *w = in;
    for (size_t i = 0; i < n; i++)
        FC_(fr_to_mont)(&o[i], &w[i]);
}

/* <M_row, w>: raw coefficient times Montgomery witness is the standard value
 * of coef·w (one Montgomery reduction cancels the R), so sums come out raw. */
static void FC_(fmt_lc)(FC_(fr_t) *acc, const cuzk_r1cs_matrix *m, size_t row, const FC_(fr_t) *wm)
{
    const FC_(fr_t) *coef = (const FC_(fr_t) *)m->coef.ptr;
    FC_(fr_set_zero)(acc);
    for (uint64_t k = m->row[row]; k < m->row[row + 1]; k++) {
        FC_(fr_t) t;
        FC_(fr_mul)(&t, &coef[k], &wm[m->wire[k]]);
        FC_(fr_add)(acc, acc, &t);
    }
}

static size_t FC_(fmt_r1cs_first_bad)(const cuzk_r1cs *r, const void *w_mont, size_t lo, size_t hi)
{
    const FC_(fr_t) *wm = w_mont;
    for (size_t i = lo; i < hi; i++) {
        FC_(fr_t) a, b, c, bm, ab;
        FC_(fmt_lc)(&a, &r->m[0], i, wm);
        FC_(fmt_lc)(&b, &r->m[1], i, wm);
        FC_(fmt_lc)(&c, &r->m[2], i, wm);
        FC_(fr_to_mont)(&bm, &b);
        FC_(fr_mul)(&ab, &a, &bm); /* raw a·b */
        if (!FC_(fr_eq)(&ab, &c))
            return i;
    }
    return hi;
}

static const fmt_ops FC_(fmt_ops) = {
    .desc = &FC_(curve_desc),
    .g1_check = FC_(fmt_g1_check),
    .g2_check = FC_(fmt_g2_check),
    .g1_check_n = FC_(fmt_g1_check_n),
    .g2_check_n = FC_(fmt_g2_check_n),
    .fq_to_dec = FC_(fmt_fq_to_dec),
    .fq_from_dec = FC_(fmt_fq_from_dec),
    .fr_to_mont_vec = FC_(fmt_fr_to_mont_vec),
    .r1cs_first_bad = FC_(fmt_r1cs_first_bad),
};

#undef FC_
#undef FC_CURVE
