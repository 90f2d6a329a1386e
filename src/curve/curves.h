/* The supported curves: the one list. Every per-curve table and every
 * "which curve" choice is derived from it (X-macro):
 *
 *   CUZK_CURVES(X) expands X(id, ENUM) once per curve, in enum order, where
 *     id   is the curve's code prefix: bn254_fr_mul, bls12_381_g1_jac_add, ... and
 *          the names of its per-curve objects (<id>_curve_desc, <id>_curve_ops,
 *          <id>_fmt_ops, <id>_setup_build_raw, <id>_gen_run, ...);
 *     ENUM is its cuzk_curve value (include/cuzk/cuzk.h).
 *
 * Derived from it: the descriptions (curve/curve_desc.c), the host operations
 * (curve/curve_ops.c), the file-format checks (formats/fmt_curve.c), the dev
 * setup and PoRep key (groth16/setup.c), the generators (groth16/gen.c) and
 * the GPU operations (gpu/ec/curve_ops.cu). Each of those builds its table with
 * a switch over this list, so a curve added here but not instantiated at one
 * of those places fails to compile there, naming the missing object.
 *
 * Adding a curve: one line here, its enum value in cuzk.h, and its arithmetic:
 * fields and groups in field/instances.h and curve/instances.h (with their
 * constants), the per-curve .c files (field/<id>_fields.c, curve/<id>_groups.c,
 * curve/<id>_pairing.c, poly/ntt_<id>.c, msm/msm_<id>.c), its description in
 * curve/curve_desc.c, and one `#define <TAG>_CURVE <id>` + `#include` per
 * template at the places above; then regenerate src/names.tags
 * (docs/ARCHITECTURE.md "Finding a per-curve function"). Plain preprocessor:
 * read by C and CUDA. */
#ifndef CUZK_CURVE_CURVES_H
#define CUZK_CURVE_CURVES_H

#define CUZK_CURVES(X)              \
    X(bn254, CUZK_CURVE_BN254)      \
    X(bls12_381, CUZK_CURVE_BLS12_381)

/* The number of curves. */
#define CUZK_CURVE_COUNT_ONE_(id, e) +1
#define CUZK_N_CURVES (0 CUZK_CURVES(CUZK_CURVE_COUNT_ONE_))

#endif
