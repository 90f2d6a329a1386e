/* Device (and host) elliptic-curve arithmetic for y^2 = x^3 + b (a = 0),
 * generic over the coordinate field F (fp<P> for G1, fp2<P> for G2).
 *
 * Layouts match curve/ec_decl.h byte for byte:
 *   affine {x, y}, infinity = (0, 0) (zkey convention);
 *   xyzz {X, Y, ZZ, ZZZ}, x = X/ZZ, y = Y/ZZZ, infinity iff ZZ = 0;
 *   jac {X, Y, Z}, infinity iff Z = 0.
 * Formulas are the EFD XYZZ ones (madd-2008-s, add-2008-s, dbl-2008-s-1,
 * mdbl-2008-s-1), made complete by explicit branches for infinity, P == Q and
 * P == -Q. Their Y3 = r (q - x3) - y ppp is one f_mul_sub: on G1 the two
 * products share one Montgomery reduction (gpu_field.cuh, fp_mul2_eo). */
#ifndef CUZK_GPU_EC_CUH
#define CUZK_GPU_EC_CUH

#include "gpu/field/gpu_field.cuh"

namespace cuzk_gpu {

template <class F> struct affine {
    F x, y;
};
template <class F> struct xyzz {
    F x, y, zz, zzz;
};
template <class F> struct jac {
    F x, y, z;
};

template <class F> CUZK_HD bool aff_is_inf(const affine<F> &p) { return f_is_zero(p.x) && f_is_zero(p.y); }
template <class F> CUZK_HD bool xyzz_is_inf(const xyzz<F> &p) { return f_is_zero(p.zz); }
template <class F> CUZK_HD void xyzz_set_inf(xyzz<F> &p)
{
    p.x = f_traits<F>::zero();
    p.y = f_traits<F>::zero();
    p.zz = f_traits<F>::zero();
    p.zzz = f_traits<F>::zero();
}

/* 2*(x, y) for an affine point (mdbl-2008-s-1); y != 0 on our curves.
 * Operands and result go by value: a reference passes the address of the
 * caller's accumulator to an out-of-line function, and the compiler then
 * keeps that accumulator in local memory for the whole kernel (G1 and G2
 * accumulate kernels). */
template <class F> CUZK_HD_NOINLINE xyzz<F> xyzz_dbl_affine(F x, F y)
{
    xyzz<F> r;
    F u = f_dbl(y);
    F v = f_sqr(u);
    F w = u * v;
    F s = x * v;
    F xx = f_sqr(x);
    F m = f_dbl(xx) + xx;
    F x3 = f_sqr(m) - f_dbl(s);
    F y3 = f_mul_sub(m, s - x3, w, y);
    r.x = x3;
    r.y = y3;
    r.zz = v;
    r.zzz = w;
    return r;
}

/* r = 2*p (dbl-2008-s-1). */
template <class F> CUZK_HD_NOINLINE void xyzz_dbl(xyzz<F> &r, const xyzz<F> &p)
{
    if (xyzz_is_inf(p)) {
        r = p;
        return;
    }
    F u = f_dbl(p.y);
    F v = f_sqr(u);
    F w = u * v;
    F s = p.x * v;
    F xx = f_sqr(p.x);
    F m = f_dbl(xx) + xx;
    F x3 = f_sqr(m) - f_dbl(s);
    F y3 = f_mul_sub(m, s - x3, w, p.y);
    r.zz = v * p.zz;
    r.zzz = w * p.zzz;
    r.x = x3;
    r.y = y3;
}

/* acc += (x, neg ? -y : y)  (madd-2008-s). Affine infinity is skipped. */
template <class F> CUZK_HD void xyzz_add_affine(xyzz<F> &acc, const affine<F> &q, bool neg)
{
    if (aff_is_inf(q)) return;
    F qy = f_cneg(q.y, neg);
    if (xyzz_is_inf(acc)) {
        acc.x = q.x;
        acc.y = qy;
        acc.zz = f_traits<F>::one();
        acc.zzz = f_traits<F>::one();
        return;
    }
    F u2 = q.x * acc.zz;
    F s2 = qy * acc.zzz;
    F p = u2 - acc.x;
    F r = s2 - acc.y;
    if (f_is_zero(p)) {
        if (f_is_zero(r)) {
            acc = xyzz_dbl_affine(q.x, qy);
        } else {
            xyzz_set_inf(acc);
        }
        return;
    }
    F pp = f_sqr(p);
    F ppp = p * pp;
    F qq = acc.x * pp;
    F x3 = f_sqr(r) - ppp - f_dbl(qq);
    F y3 = f_mul_sub(r, qq - x3, acc.y, ppp);
    acc.zz = acc.zz * pp;
    acc.zzz = acc.zzz * ppp;
    acc.x = x3;
    acc.y = y3;
}

/* acc += q (add-2008-s). xyzz_add_inl is the inline body, for kernels that
 * call it from one site in a hot loop; xyzz_add is the out-of-line one. */
template <class F> CUZK_HD void xyzz_add_inl(xyzz<F> &acc, const xyzz<F> &q)
{
    if (xyzz_is_inf(q)) return;
    if (xyzz_is_inf(acc)) {
        acc = q;
        return;
    }
    F u1 = acc.x * q.zz;
    F u2 = q.x * acc.zz;
    F s1 = acc.y * q.zzz;
    F s2 = q.y * acc.zzz;
    F p = u2 - u1;
    F r = s2 - s1;
    if (f_is_zero(p)) {
        if (f_is_zero(r)) {
            xyzz<F> a = acc;
            xyzz_dbl(acc, a);
        } else {
            xyzz_set_inf(acc);
        }
        return;
    }
    F pp = f_sqr(p);
    F ppp = p * pp;
    F qq = u1 * pp;
    F x3 = f_sqr(r) - ppp - f_dbl(qq);
    F y3 = f_mul_sub(r, qq - x3, s1, ppp);
    acc.zz = acc.zz * q.zz * pp;
    acc.zzz = acc.zzz * q.zzz * ppp;
    acc.x = x3;
    acc.y = y3;
}

template <class F> CUZK_HD_NOINLINE void xyzz_add(xyzz<F> &acc, const xyzz<F> &q) { xyzz_add_inl(acc, q); }

/* XYZZ -> Jacobian: (X*ZZ, Y*ZZZ, ZZ); ZZ^3 = ZZZ^2 makes this exact. */
template <class F> CUZK_HD void xyzz_to_jac(jac<F> &r, const xyzz<F> &p)
{
    if (xyzz_is_inf(p)) {
        r.x = f_traits<F>::one();
        r.y = f_traits<F>::one();
        r.z = f_traits<F>::zero();
        return;
    }
    r.x = p.x * p.zz;
    r.y = p.y * p.zzz;
    r.z = p.zz;
}

/* Curve types per curve and group. */
using bn254_fp = fp<bn254_fp_p>;
using bn254_fr = fp<bn254_fr_p>;
using bn254_fp2 = fp2<bn254_fp_p>;
using bls12_381_fp = fp<bls12_381_fp_p>;
using bls12_381_fr = fp<bls12_381_fr_p>;
using bls12_381_fp2 = fp2<bls12_381_fp_p>;

} /* namespace cuzk_gpu */

#endif
