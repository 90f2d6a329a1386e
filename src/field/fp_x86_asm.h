/* x86-64 Montgomery multiplication with MULX/ADCX/ADOX (BMI2 + ADX: Intel
 * Broadwell+, AMD Zen+). Two independent carry chains (CF for the high
 * halves, OF for the low halves) per row, the CIOS "no-carry" schedule of
 * fp_inline.h, fully unrolled for 4 and 6 limbs with register renaming
 * instead of shifting the accumulator. Disabled by CUZK_PORTABLE.
 *
 * Row notation: t0..tN are N+1 accumulator registers; after a reduction step
 * t0 is zero and becomes the top register of the next row. */
#ifndef CUZK_FIELD_FP_X86_ASM_H
#define CUZK_FIELD_FP_X86_ASM_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(CUZK_PORTABLE)
#define CUZK_FP_ASM 1

#define CUZK_ASM_S_(x) #x
#define CUZK_ASM_OP(x) "%[" CUZK_ASM_S_(x) "]"

/* first row: t = a·b[0] (schoolbook, one carry chain) */
#define CUZK_X_MUL0_(j, lo, hi) "mulxq " #j "(%[a]), " lo ", " hi "\n\t"
#define CUZK_X4_MUL0(t0, t1, t2, t3, t4)                                                       \
    "movq 0(%[b]), %%rdx\n\t"                                                                  \
    "mulxq 0(%[a]), " CUZK_ASM_OP(t0) ", " CUZK_ASM_OP(t1) "\n\t"                              \
    "mulxq 8(%[a]), %[lo], " CUZK_ASM_OP(t2) "\n\t"                                            \
    "addq %[lo], " CUZK_ASM_OP(t1) "\n\t"                                                      \
    "mulxq 16(%[a]), %[lo], " CUZK_ASM_OP(t3) "\n\t"                                           \
    "adcq %[lo], " CUZK_ASM_OP(t2) "\n\t"                                                      \
    "mulxq 24(%[a]), %[lo], " CUZK_ASM_OP(t4) "\n\t"                                           \
    "adcq %[lo], " CUZK_ASM_OP(t3) "\n\t"                                                      \
    "adcq $0, " CUZK_ASM_OP(t4) "\n\t"

/* one product term: (hi:lo) = src·rdx; t_lo += lo (OF chain); t_hi += hi (CF chain) */
#define CUZK_X_TERM(src, tl, th)                                                               \
    "mulxq " src ", %[lo], %[hi]\n\t"                                                          \
    "adoxq %[lo], " CUZK_ASM_OP(tl) "\n\t"                                                     \
    "adcxq %[hi], " CUZK_ASM_OP(th) "\n\t"

/* t += a·b[i]  (t4 is zero on entry) */
#define CUZK_X4_MULADD(boff, t0, t1, t2, t3, t4)                                               \
    "movq " boff "(%[b]), %%rdx\n\t"                                                           \
    "xorl %k[z], %k[z]\n\t"                                                                    \
    CUZK_X_TERM("0(%[a])", t0, t1) CUZK_X_TERM("8(%[a])", t1, t2)                              \
    CUZK_X_TERM("16(%[a])", t2, t3) CUZK_X_TERM("24(%[a])", t3, t4)                            \
    "adoxq %[z], " CUZK_ASM_OP(t4) "\n\t"

/* m = t0·inv; t += m·p, after which t0 = 0 */
#define CUZK_X4_RED(t0, t1, t2, t3, t4)                                                        \
    "movq " CUZK_ASM_OP(t0) ", %%rdx\n\t"                                                      \
    "imulq %[inv], %%rdx\n\t"                                                                  \
    "xorl %k[z], %k[z]\n\t"                                                                    \
    CUZK_X_TERM("%[p0]", t0, t1) CUZK_X_TERM("%[p1]", t1, t2)                                  \
    CUZK_X_TERM("%[p2]", t2, t3) CUZK_X_TERM("%[p3]", t3, t4)                                  \
    "adoxq %[z], " CUZK_ASM_OP(t4) "\n\t"

/* out[0..3] = a·b·2^-256 mod p, not fully reduced (< 2p). */
CUZK_INLINE void cuzk_x4_mont_mul(uint64_t out[4], const uint64_t *a, const uint64_t *b,
                                  const uint64_t *P, const uint64_t *inv)
{
    uint64_t A, B, C, D, E, lo, hi, z;
    __asm__(CUZK_X4_MUL0(A, B, C, D, E) CUZK_X4_RED(A, B, C, D, E)
            CUZK_X4_MULADD("8", B, C, D, E, A) CUZK_X4_RED(B, C, D, E, A)
            CUZK_X4_MULADD("16", C, D, E, A, B) CUZK_X4_RED(C, D, E, A, B)
            CUZK_X4_MULADD("24", D, E, A, B, C) CUZK_X4_RED(D, E, A, B, C)
            : [A] "=&r"(A), [B] "=&r"(B), [C] "=&r"(C), [D] "=&r"(D), [E] "=&r"(E),
              [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
            : [a] "r"(a), [b] "r"(b), [p0] "m"(P[0]), [p1] "m"(P[1]), [p2] "m"(P[2]),
              [p3] "m"(P[3]), [inv] "m"(*inv), "m"(*(const uint64_t(*)[4])a),
              "m"(*(const uint64_t(*)[4])b)
            : "rdx", "cc");
    out[0] = E;
    out[1] = A;
    out[2] = B;
    out[3] = C;
}

#define CUZK_X6_MUL0(t0, t1, t2, t3, t4, t5, t6)                                               \
    "movq 0(%[b]), %%rdx\n\t"                                                                  \
    "mulxq 0(%[a]), " CUZK_ASM_OP(t0) ", " CUZK_ASM_OP(t1) "\n\t"                              \
    "mulxq 8(%[a]), %[lo], " CUZK_ASM_OP(t2) "\n\t"                                            \
    "addq %[lo], " CUZK_ASM_OP(t1) "\n\t"                                                      \
    "mulxq 16(%[a]), %[lo], " CUZK_ASM_OP(t3) "\n\t"                                           \
    "adcq %[lo], " CUZK_ASM_OP(t2) "\n\t"                                                      \
    "mulxq 24(%[a]), %[lo], " CUZK_ASM_OP(t4) "\n\t"                                           \
    "adcq %[lo], " CUZK_ASM_OP(t3) "\n\t"                                                      \
    "mulxq 32(%[a]), %[lo], " CUZK_ASM_OP(t5) "\n\t"                                           \
    "adcq %[lo], " CUZK_ASM_OP(t4) "\n\t"                                                      \
    "mulxq 40(%[a]), %[lo], " CUZK_ASM_OP(t6) "\n\t"                                           \
    "adcq %[lo], " CUZK_ASM_OP(t5) "\n\t"                                                      \
    "adcq $0, " CUZK_ASM_OP(t6) "\n\t"

#define CUZK_X6_MULADD(boff, t0, t1, t2, t3, t4, t5, t6)                                       \
    "movq " boff "(%[b]), %%rdx\n\t"                                                           \
    "xorl %k[z], %k[z]\n\t"                                                                    \
    CUZK_X_TERM("0(%[a])", t0, t1) CUZK_X_TERM("8(%[a])", t1, t2)                              \
    CUZK_X_TERM("16(%[a])", t2, t3) CUZK_X_TERM("24(%[a])", t3, t4)                            \
    CUZK_X_TERM("32(%[a])", t4, t5) CUZK_X_TERM("40(%[a])", t5, t6)                            \
    "adoxq %[z], " CUZK_ASM_OP(t6) "\n\t"

#define CUZK_X6_RED(t0, t1, t2, t3, t4, t5, t6)                                                \
    "movq " CUZK_ASM_OP(t0) ", %%rdx\n\t"                                                      \
    "imulq %[inv], %%rdx\n\t"                                                                  \
    "xorl %k[z], %k[z]\n\t"                                                                    \
    CUZK_X_TERM("%[p0]", t0, t1) CUZK_X_TERM("%[p1]", t1, t2)                                  \
    CUZK_X_TERM("%[p2]", t2, t3) CUZK_X_TERM("%[p3]", t3, t4)                                  \
    CUZK_X_TERM("%[p4]", t4, t5) CUZK_X_TERM("%[p5]", t5, t6)                                  \
    "adoxq %[z], " CUZK_ASM_OP(t6) "\n\t"

CUZK_INLINE void cuzk_x6_mont_mul(uint64_t out[6], const uint64_t *a, const uint64_t *b,
                                  const uint64_t *P, const uint64_t *inv)
{
    uint64_t A, B, C, D, E, F, G, lo, hi, z;
    __asm__(CUZK_X6_MUL0(A, B, C, D, E, F, G) CUZK_X6_RED(A, B, C, D, E, F, G)
            CUZK_X6_MULADD("8", B, C, D, E, F, G, A) CUZK_X6_RED(B, C, D, E, F, G, A)
            CUZK_X6_MULADD("16", C, D, E, F, G, A, B) CUZK_X6_RED(C, D, E, F, G, A, B)
            CUZK_X6_MULADD("24", D, E, F, G, A, B, C) CUZK_X6_RED(D, E, F, G, A, B, C)
            CUZK_X6_MULADD("32", E, F, G, A, B, C, D) CUZK_X6_RED(E, F, G, A, B, C, D)
            CUZK_X6_MULADD("40", F, G, A, B, C, D, E) CUZK_X6_RED(F, G, A, B, C, D, E)
            : [A] "=&r"(A), [B] "=&r"(B), [C] "=&r"(C), [D] "=&r"(D), [E] "=&r"(E),
              [F] "=&r"(F), [G] "=&r"(G), [lo] "=&r"(lo), [hi] "=&r"(hi), [z] "=&r"(z)
            : [a] "r"(a), [b] "r"(b), [p0] "m"(P[0]), [p1] "m"(P[1]), [p2] "m"(P[2]),
              [p3] "m"(P[3]), [p4] "m"(P[4]), [p5] "m"(P[5]), [inv] "m"(*inv),
              "m"(*(const uint64_t(*)[6])a), "m"(*(const uint64_t(*)[6])b)
            : "rdx", "cc");
    out[0] = G;
    out[1] = A;
    out[2] = B;
    out[3] = C;
    out[4] = D;
    out[5] = E;
}

#endif /* x86-64 */
#endif
