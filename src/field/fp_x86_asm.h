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

/* The macros below build the template of one asm statement. Each takes as
 * arguments the names of every asm operand it uses: a, b (registers holding
 * the factors' addresses), p (prefix of the modulus limb operands p0, p1, ...),
 * inv (-p^-1 mod 2^64), the scratch registers lo, hi, z and the accumulator
 * registers t0..tN; %rdx (mulx's implicit factor) is a fixed clobber. */
#define CUZK_ASM_S_(x) #x
#define CUZK_ASM_OP(x) "%[" CUZK_ASM_S_(x) "]"
#define CUZK_ASM_OP32(x) "%k[" CUZK_ASM_S_(x) "]"
#define CUZK_ASM_MEM(off, base) CUZK_ASM_S_(off) "(" CUZK_ASM_OP(base) ")"

/* first row: t = a·b[0] (schoolbook, one carry chain) */
#define CUZK_X4_MUL0(a, b, lo, t0, t1, t2, t3, t4)                                             \
    "movq " CUZK_ASM_MEM(0, b) ", %%rdx\n\t"                                                   \
    "mulxq " CUZK_ASM_MEM(0, a) ", " CUZK_ASM_OP(t0) ", " CUZK_ASM_OP(t1) "\n\t"               \
    "mulxq " CUZK_ASM_MEM(8, a) ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t2) "\n\t"               \
    "addq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t1) "\n\t"                                        \
    "mulxq " CUZK_ASM_MEM(16, a) ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t3) "\n\t"              \
    "adcq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t2) "\n\t"                                        \
    "mulxq " CUZK_ASM_MEM(24, a) ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t4) "\n\t"              \
    "adcq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t3) "\n\t"                                        \
    "adcq $0, " CUZK_ASM_OP(t4) "\n\t"

/* one product term: (hi:lo) = src·rdx; t_lo += lo (OF chain); t_hi += hi (CF chain) */
#define CUZK_X_TERM(src, lo, hi, tl, th)                                                       \
    "mulxq " src ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(hi) "\n\t"                              \
    "adoxq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(tl) "\n\t"                                       \
    "adcxq " CUZK_ASM_OP(hi) ", " CUZK_ASM_OP(th) "\n\t"

/* t += a·b[i], b[i] at byte offset boff (t4 is zero on entry) */
#define CUZK_X4_MULADD(boff, a, b, lo, hi, z, t0, t1, t2, t3, t4)                              \
    "movq " CUZK_ASM_MEM(boff, b) ", %%rdx\n\t"                                                \
    "xorl " CUZK_ASM_OP32(z) ", " CUZK_ASM_OP32(z) "\n\t"                                      \
    CUZK_X_TERM(CUZK_ASM_MEM(0, a), lo, hi, t0, t1)                                            \
    CUZK_X_TERM(CUZK_ASM_MEM(8, a), lo, hi, t1, t2)                                            \
    CUZK_X_TERM(CUZK_ASM_MEM(16, a), lo, hi, t2, t3)                                           \
    CUZK_X_TERM(CUZK_ASM_MEM(24, a), lo, hi, t3, t4)                                           \
    "adoxq " CUZK_ASM_OP(z) ", " CUZK_ASM_OP(t4) "\n\t"

/* m = t0·inv; t += m·p, after which t0 = 0 */
#define CUZK_X4_RED(p, inv, lo, hi, z, t0, t1, t2, t3, t4)                                     \
    "movq " CUZK_ASM_OP(t0) ", %%rdx\n\t"                                                      \
    "imulq " CUZK_ASM_OP(inv) ", %%rdx\n\t"                                                    \
    "xorl " CUZK_ASM_OP32(z) ", " CUZK_ASM_OP32(z) "\n\t"                                      \
    CUZK_X_TERM(CUZK_ASM_OP(p##0), lo, hi, t0, t1)                                             \
    CUZK_X_TERM(CUZK_ASM_OP(p##1), lo, hi, t1, t2)                                             \
    CUZK_X_TERM(CUZK_ASM_OP(p##2), lo, hi, t2, t3)                                             \
    CUZK_X_TERM(CUZK_ASM_OP(p##3), lo, hi, t3, t4)                                             \
    "adoxq " CUZK_ASM_OP(z) ", " CUZK_ASM_OP(t4) "\n\t"

/* out[0..3] = a·b·2^-256 mod p, not fully reduced (< 2p). */
CUZK_INLINE void cuzk_x4_mont_mul(uint64_t out[4], const uint64_t *a, const uint64_t *b,
                                  const uint64_t *P, const uint64_t *inv)
{
    uint64_t A, B, C, D, E, lo, hi, z;
    __asm__(CUZK_X4_MUL0(a, b, lo, A, B, C, D, E)
            CUZK_X4_RED(p, inv, lo, hi, z, A, B, C, D, E)
            CUZK_X4_MULADD(8, a, b, lo, hi, z, B, C, D, E, A)
            CUZK_X4_RED(p, inv, lo, hi, z, B, C, D, E, A)
            CUZK_X4_MULADD(16, a, b, lo, hi, z, C, D, E, A, B)
            CUZK_X4_RED(p, inv, lo, hi, z, C, D, E, A, B)
            CUZK_X4_MULADD(24, a, b, lo, hi, z, D, E, A, B, C)
            CUZK_X4_RED(p, inv, lo, hi, z, D, E, A, B, C)
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

#define CUZK_X6_MUL0(a, b, lo, t0, t1, t2, t3, t4, t5, t6)                                     \
    "movq " CUZK_ASM_MEM(0, b) ", %%rdx\n\t"                                                   \
    "mulxq " CUZK_ASM_MEM(0, a) ", " CUZK_ASM_OP(t0) ", " CUZK_ASM_OP(t1) "\n\t"               \
    "mulxq " CUZK_ASM_MEM(8, a) ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t2) "\n\t"               \
    "addq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t1) "\n\t"                                        \
    "mulxq " CUZK_ASM_MEM(16, a) ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t3) "\n\t"              \
    "adcq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t2) "\n\t"                                        \
    "mulxq " CUZK_ASM_MEM(24, a) ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t4) "\n\t"              \
    "adcq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t3) "\n\t"                                        \
    "mulxq " CUZK_ASM_MEM(32, a) ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t5) "\n\t"              \
    "adcq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t4) "\n\t"                                        \
    "mulxq " CUZK_ASM_MEM(40, a) ", " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t6) "\n\t"              \
    "adcq " CUZK_ASM_OP(lo) ", " CUZK_ASM_OP(t5) "\n\t"                                        \
    "adcq $0, " CUZK_ASM_OP(t6) "\n\t"

#define CUZK_X6_MULADD(boff, a, b, lo, hi, z, t0, t1, t2, t3, t4, t5, t6)                      \
    "movq " CUZK_ASM_MEM(boff, b) ", %%rdx\n\t"                                                \
    "xorl " CUZK_ASM_OP32(z) ", " CUZK_ASM_OP32(z) "\n\t"                                      \
    CUZK_X_TERM(CUZK_ASM_MEM(0, a), lo, hi, t0, t1)                                            \
    CUZK_X_TERM(CUZK_ASM_MEM(8, a), lo, hi, t1, t2)                                            \
    CUZK_X_TERM(CUZK_ASM_MEM(16, a), lo, hi, t2, t3)                                           \
    CUZK_X_TERM(CUZK_ASM_MEM(24, a), lo, hi, t3, t4)                                           \
    CUZK_X_TERM(CUZK_ASM_MEM(32, a), lo, hi, t4, t5)                                           \
    CUZK_X_TERM(CUZK_ASM_MEM(40, a), lo, hi, t5, t6)                                           \
    "adoxq " CUZK_ASM_OP(z) ", " CUZK_ASM_OP(t6) "\n\t"

#define CUZK_X6_RED(p, inv, lo, hi, z, t0, t1, t2, t3, t4, t5, t6)                             \
    "movq " CUZK_ASM_OP(t0) ", %%rdx\n\t"                                                      \
    "imulq " CUZK_ASM_OP(inv) ", %%rdx\n\t"                                                    \
    "xorl " CUZK_ASM_OP32(z) ", " CUZK_ASM_OP32(z) "\n\t"                                      \
    CUZK_X_TERM(CUZK_ASM_OP(p##0), lo, hi, t0, t1)                                             \
    CUZK_X_TERM(CUZK_ASM_OP(p##1), lo, hi, t1, t2)                                             \
    CUZK_X_TERM(CUZK_ASM_OP(p##2), lo, hi, t2, t3)                                             \
    CUZK_X_TERM(CUZK_ASM_OP(p##3), lo, hi, t3, t4)                                             \
    CUZK_X_TERM(CUZK_ASM_OP(p##4), lo, hi, t4, t5)                                             \
    CUZK_X_TERM(CUZK_ASM_OP(p##5), lo, hi, t5, t6)                                             \
    "adoxq " CUZK_ASM_OP(z) ", " CUZK_ASM_OP(t6) "\n\t"

CUZK_INLINE void cuzk_x6_mont_mul(uint64_t out[6], const uint64_t *a, const uint64_t *b,
                                  const uint64_t *P, const uint64_t *inv)
{
    uint64_t A, B, C, D, E, F, G, lo, hi, z;
    __asm__(CUZK_X6_MUL0(a, b, lo, A, B, C, D, E, F, G)
            CUZK_X6_RED(p, inv, lo, hi, z, A, B, C, D, E, F, G)
            CUZK_X6_MULADD(8, a, b, lo, hi, z, B, C, D, E, F, G, A)
            CUZK_X6_RED(p, inv, lo, hi, z, B, C, D, E, F, G, A)
            CUZK_X6_MULADD(16, a, b, lo, hi, z, C, D, E, F, G, A, B)
            CUZK_X6_RED(p, inv, lo, hi, z, C, D, E, F, G, A, B)
            CUZK_X6_MULADD(24, a, b, lo, hi, z, D, E, F, G, A, B, C)
            CUZK_X6_RED(p, inv, lo, hi, z, D, E, F, G, A, B, C)
            CUZK_X6_MULADD(32, a, b, lo, hi, z, E, F, G, A, B, C, D)
            CUZK_X6_RED(p, inv, lo, hi, z, E, F, G, A, B, C, D)
            CUZK_X6_MULADD(40, a, b, lo, hi, z, F, G, A, B, C, D, E)
            CUZK_X6_RED(p, inv, lo, hi, z, F, G, A, B, C, D, E)
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

#undef CUZK_ASM_S_
#undef CUZK_ASM_OP
#undef CUZK_ASM_OP32
#undef CUZK_ASM_MEM
#undef CUZK_X4_MUL0
#undef CUZK_X_TERM
#undef CUZK_X4_MULADD
#undef CUZK_X4_RED
#undef CUZK_X6_MUL0
#undef CUZK_X6_MULADD
#undef CUZK_X6_RED

#endif /* x86-64 */
#endif
