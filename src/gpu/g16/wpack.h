/* DESIGN: the packed witness, the form in which a proof's witness crosses
 * the bus to the GPU.
 *
 * A Groth16 witness is mostly 0 and 1 (a Filecoin PoRep partition: 95 % of
 * its 130 M values), yet raw it is 32 bytes a value: 4.2 GB at 2^27, whose
 * copy into pinned memory and upload took ~180 ms of a 2.04 s proof (host
 * memory traffic of the copy, then the DMA). Packed, each value is a 2-bit
 * code (0: zero, 1: one, 2: the value follows), and only the other values
 * are kept whole; the GPU reads the packed form straight from pinned host
 * memory and expands it into the device witness (g16.h,
 * cuzk_gpu_g16_witness_expand). The values are the raw scalars (not
 * Montgomery form), so zero and one are the integers 0 and 1 on every curve.
 *
 * Layout, for n values in tiles of CUZK_WPACK_TILE:
 *   index = codes[round16(ceil(n / 4))] (value i: bits 2(i%4).. of byte i/4)
 *           tile_off[ceil(n / TILE)] (uint32: where the tile's first whole
 *           value is in `full`, in 32-byte units);
 *   full  = the whole values. Packing a range of tiles writes its whole values
 *           in order from the range's own first slot (full + 32 * b), so
 *           ranges pack independently (in parallel) into a buffer the size of
 *           the raw witness, and src may be that buffer itself (in place).
 *
 * Plain C, in every build: the CPU tests check it (tests/unit/test_wpack.c). */
#ifndef CUZK_GPU_WPACK_H
#define CUZK_GPU_WPACK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_WPACK_TILE 1024u /* values per tile (one block of the expand kernel) */

/* Tiles of n values (the last one may be partial). */
size_t cuzk_wpack_tiles(size_t n);

/* Bytes of the codes (rounded up to 16), and of the whole index (codes +
 * tile offsets), for n values. */
size_t cuzk_wpack_codes_bytes(size_t n);
size_t cuzk_wpack_index_bytes(size_t n);

/* Packs values [b, e) of src (n values of 32 bytes; b a multiple of
 * CUZK_WPACK_TILE, e one too or n) into `index` and `full` (laid out as
 * above, full at least 32 n bytes). src may equal full. n < 2^32. */
void cuzk_wpack_range(const void *src, size_t n, size_t b, size_t e, void *index, void *full);

/* The same from vals, the values [b, e) alone (e - b values of 32 bytes,
 * e.g. one tile converted into a small buffer). vals may equal full + 32 b. */
void cuzk_wpack_range_at(const void *vals, size_t n, size_t b, size_t e, void *index, void *full);

/* Value i of a packed witness into out (32 bytes): the reference reader
 * that the tests check the packer and the GPU expansion against. */
void cuzk_wpack_get(const void *index, const void *full, size_t n, size_t i, void *out);

#ifdef __cplusplus
}
#endif

#endif
