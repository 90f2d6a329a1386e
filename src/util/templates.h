/* The templates: headers of generic code compiled once per instance
 * (docs/ARCHITECTURE.md, "Generic code, compiled per curve").
 *
 * Conventions every template follows:
 *   - one parameter, the instance name (e.g. #define FP_PREFIX bn254_fr), from
 *     which it derives the rest through the instance's description in the
 *     layer's instance list (field/instances.h, curve/instances.h); an
 *     instantiation is one #define and one #include, and the parameter is
 *     #undef'd at the end;
 *   - a per-instance guard (util/tmpl_once.h): including a template twice for
 *     the same instance defines it once;
 *   - the macros a template uses internally start with its tag and are #undef'd
 *     at its end: TAG_(x) pastes the instance's name (FP_(mul) -> bn254_fr_mul
 *     for FP_PREFIX bn254_fr), TAG_P_(x) names a field of the instance's
 *     description, TAG_<ROLE>_(x) pastes a related instance's name
 *     (FP2_B_(mul): the base field's bn254_fp_mul). The header comment of each
 *     template lists the names it defines, with the instance visible;
 *   - no macro reads or writes a variable or jumps to a label it is not given
 *     as an argument.
 *
 * Template numbers (slots of the per-instance guard: at most 8 instances per
 * template, instance ids 0..7 in the instance lists), one per template header: */
#ifndef CUZK_UTIL_TEMPLATES_H
#define CUZK_UTIL_TEMPLATES_H

#define CUZK_TMPL_SLOT(tmpl, id) ((tmpl)*8 + (id))

/* field/ (instances: field/instances.h) */
#define CUZK_TMPL_FP_DECL 0
#define CUZK_TMPL_FP_IMPL 1
#define CUZK_TMPL_FP_INLINE 2
#define CUZK_TMPL_FP_IFMA_INLINE 3
#define CUZK_TMPL_FP_INV_VT 4
#define CUZK_TMPL_FP2_DECL 5
#define CUZK_TMPL_FP2_IMPL 6
#define CUZK_TMPL_FP2_INLINE 7
#define CUZK_TMPL_FP2_IFMA_INLINE 8
#define CUZK_TMPL_FP2_INV_VT 9
#define CUZK_TMPL_TOWER_DECL 10
#define CUZK_TMPL_TOWER_IMPL 11

/* curve/ (instances: curve/instances.h) */
#define CUZK_TMPL_EC_DECL 12
#define CUZK_TMPL_EC_IMPL 13
#define CUZK_TMPL_PAIRING_DECL 14
#define CUZK_TMPL_PAIRING_IMPL 15

/* poly/ and msm/ (instances: curve/instances.h) */
#define CUZK_TMPL_NTT_DECL 16
#define CUZK_TMPL_NTT_IMPL 17
#define CUZK_TMPL_MSM_DECL 18
#define CUZK_TMPL_MSM_IMPL 19

/* groth16/ development tools (instances: the curves of curve/instances.h) */
#define CUZK_TMPL_SETUP_IMPL 20
#define CUZK_TMPL_GEN_IMPL 21
#define CUZK_TMPL_POREP_IMPL 30

/* tests/unit/<layer>_test_impl.h (instances: those of field/ and curve/) */
#define CUZK_TMPL_TEST_FIELD 22
#define CUZK_TMPL_TEST_FP2 23
#define CUZK_TMPL_TEST_IFMA 24
#define CUZK_TMPL_TEST_EC 25
#define CUZK_TMPL_TEST_MSM 26
#define CUZK_TMPL_TEST_NTT 27
#define CUZK_TMPL_TEST_PAIRING 28
#define CUZK_TMPL_TEST_SETUP 29

#endif
