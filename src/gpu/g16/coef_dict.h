/* DESIGN: the coefficient values of a key's A and B matrices, each distinct
 * value stored once.
 *
 * A coefficient record is a signal index and a 32-byte value, but a circuit
 * has few distinct values (a Filecoin PoRep-shaped circuit: ±1 and powers of
 * two, 35 in 443 M records; bit decompositions 2^0..2^253): with a table of
 * the distinct values, a record's value is a 4-byte index. Where the
 * coefficients are streamed (2^27 on an H100: 14.85 GiB a proof, the abc
 * phase 300 ms of bus for 18 ms of kernels) the records cross the bus at 8
 * bytes instead of 36. The table is used only when it is small enough that
 * the records and the table take no more room, on the host or the device,
 * than the raw records the memory plans count (at most `max` values: the
 * caller passes the bound).
 *
 * Plain C, in every build: the CPU tests check it (tests/unit/test_coef_dict.c). */
#ifndef CUZK_GPU_COEF_DICT_H
#define CUZK_GPU_COEF_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_COEF_DICT_MAX (1u << 20) /* distinct values a table holds at most (32 MiB) */

typedef struct cuzk_coef_dict {
    uint8_t *values;   /* n x 32 bytes, in the order first seen */
    uint32_t n;
    uint32_t *slots;   /* open addressing: index + 1, 0 empty */
    uint32_t mask;     /* slots - 1 */
} cuzk_coef_dict;

/* The table of the distinct values among count 32-byte values (value i at
 * value + i * stride). False, with nothing held, when there are more than
 * max (or CUZK_COEF_DICT_MAX) of them or memory runs out. */
bool cuzk_coef_dict_build(cuzk_coef_dict *d, const uint8_t *value, size_t stride, size_t count, uint32_t max);

/* The index of a value the table holds; UINT32_MAX for one it does not. */
uint32_t cuzk_coef_dict_find(const cuzk_coef_dict *d, const uint8_t *v);

void cuzk_coef_dict_free(cuzk_coef_dict *d);

#ifdef __cplusplus
}
#endif

#endif
