/* Constants of the four prime fields, as macros so that fp_inline.h can fold
 * them into immediates. Generated with Python (exact integer arithmetic) and
 * cross-checked by tests/unit/test_field.c. Per field <prefix>_P_*:
 *   MODULUS p; ONE = R mod p; R2 = R^2 mod p; INV = -p^-1 mod 2^64; BITS;
 *   TS_S, TS_T: p - 1 = 2^S·T with T odd; TS_TM1D2 = (T-1)/2;
 *   TS_ROOT = z^T (Montgomery) for the least quadratic non-residue z,
 *   a primitive 2^S-th root of unity used by Tonelli-Shanks;
 *   PM2 = p - 2 (Fermat inverse); PM1D2 = (p-1)/2 (Legendre symbol).
 * All limb arrays are little-endian 64-bit limbs. Every modulus has its top
 * limb below 2^63 - 1, which the carry-free Montgomery loop relies on. */
#ifndef CUZK_FIELD_PARAMS_H
#define CUZK_FIELD_PARAMS_H

/* bn254_fp: 254 bits, p - 1 = 2^1 * T, least non-residue 3 */
#define bn254_fp_P_MODULUS {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}
#define bn254_fp_P_ONE {0xd35d438dc58f0d9dULL, 0x0a78eb28f5c70b3dULL, 0x666ea36f7879462cULL, 0x0e0a77c19a07df2fULL}
#define bn254_fp_P_R2 {0xf32cfc5b538afa89ULL, 0xb5e71911d44501fbULL, 0x47ab1eff0a417ff6ULL, 0x06d89f71cab8351fULL}
#define bn254_fp_P_INV 0x87d20782e4866389ULL
#define bn254_fp_P_BITS 254
#define bn254_fp_P_TS_S 1
#define bn254_fp_P_TS_T {0x9e10460b6c3e7ea3ULL, 0xcbc0b548b438e546ULL, 0xdc2822db40c0ac2eULL, 0x183227397098d014ULL}
#define bn254_fp_P_TS_TM1D2 {0x4f082305b61f3f51ULL, 0x65e05aa45a1c72a3ULL, 0x6e14116da0605617ULL, 0x0c19139cb84c680aULL}
#define bn254_fp_P_TS_ROOT {0x68c3488912edefaaULL, 0x8d087f6872aabf4fULL, 0x51e1a24709081231ULL, 0x2259d6b14729c0faULL}
#define bn254_fp_P_PM2 {0x3c208c16d87cfd45ULL, 0x97816a916871ca8dULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}
#define bn254_fp_P_PM1D2 {0x9e10460b6c3e7ea3ULL, 0xcbc0b548b438e546ULL, 0xdc2822db40c0ac2eULL, 0x183227397098d014ULL}

/* bn254_fr: 254 bits, p - 1 = 2^28 * T, least non-residue 5 */
#define bn254_fr_P_MODULUS {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}
#define bn254_fr_P_ONE {0xac96341c4ffffffbULL, 0x36fc76959f60cd29ULL, 0x666ea36f7879462eULL, 0x0e0a77c19a07df2fULL}
#define bn254_fr_P_R2 {0x1bb8e645ae216da7ULL, 0x53fe3ab1e35c59e3ULL, 0x8c49833d53bb8085ULL, 0x0216d0b17f4e44a5ULL}
#define bn254_fr_P_INV 0xc2e1f593efffffffULL
#define bn254_fr_P_BITS 254
#define bn254_fr_P_TS_S 28
#define bn254_fr_P_TS_T {0x9b9709143e1f593fULL, 0x181585d2833e8487ULL, 0x131a029b85045b68ULL, 0x000000030644e72eULL}
#define bn254_fr_P_TS_TM1D2 {0xcdcb848a1f0fac9fULL, 0x0c0ac2e9419f4243ULL, 0x098d014dc2822db4ULL, 0x0000000183227397ULL}
#define bn254_fr_P_TS_ROOT {0x636e735580d13d9cULL, 0xa22bf3742445ffd6ULL, 0x56452ac01eb203d8ULL, 0x1860ef942963f9e7ULL}
#define bn254_fr_P_PM2 {0x43e1f593efffffffULL, 0x2833e84879b97091ULL, 0xb85045b68181585dULL, 0x30644e72e131a029ULL}
#define bn254_fr_P_PM1D2 {0xa1f0fac9f8000000ULL, 0x9419f4243cdcb848ULL, 0xdc2822db40c0ac2eULL, 0x183227397098d014ULL}

/* bls12_381_fp: 381 bits, p - 1 = 2^1 * T, least non-residue 2 */
#define bls12_381_fp_P_MODULUS {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL}
#define bls12_381_fp_P_ONE {0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}
#define bls12_381_fp_P_R2 {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL, 0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL}
#define bls12_381_fp_P_INV 0x89f3fffcfffcfffdULL
#define bls12_381_fp_P_BITS 381
#define bls12_381_fp_P_TS_S 1
#define bls12_381_fp_P_TS_T {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL}
#define bls12_381_fp_P_TS_TM1D2 {0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL}
#define bls12_381_fp_P_TS_ROOT {0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL, 0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}
#define bls12_381_fp_P_PM2 {0xb9feffffffffaaa9ULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL}
#define bls12_381_fp_P_PM1D2 {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL}

/* bls12_381_fr: 255 bits, p - 1 = 2^32 * T, least non-residue 5 */
#define bls12_381_fr_P_MODULUS {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL}
#define bls12_381_fr_P_ONE {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL}
#define bls12_381_fr_P_R2 {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL, 0x0748d9d99f59ff11ULL}
#define bls12_381_fr_P_INV 0xfffffffeffffffffULL
#define bls12_381_fr_P_BITS 255
#define bls12_381_fr_P_TS_S 32
#define bls12_381_fr_P_TS_T {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL, 0x299d7d483339d808ULL, 0x0000000073eda753ULL}
#define bls12_381_fr_P_TS_TM1D2 {0x7fff2dff7fffffffULL, 0x04d0ec02a9ded201ULL, 0x94cebea4199cec04ULL, 0x0000000039f6d3a9ULL}
#define bls12_381_fr_P_TS_ROOT {0x9cab6d5c0c17f47cULL, 0x1ce1e93dfd4b71e5ULL, 0x0d6db230471dd505ULL, 0x3f0ee990743a3b6aULL}
#define bls12_381_fr_P_PM2 {0xfffffffeffffffffULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL}
#define bls12_381_fr_P_PM1D2 {0x7fffffff80000000ULL, 0xa9ded2017fff2dffULL, 0x199cec0404d0ec02ULL, 0x39f6d3a994cebea4ULL}

#endif
