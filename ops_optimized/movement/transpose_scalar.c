// SPDX-License-Identifier: Apache-2.0
//
// Transposes of 1/2/4/8-byte elements, portable C (see movement.h), the
// blocked walk every ISA's transpose uses, and the per-ISA selection of
// the transpose microkernel. Inside a block the portable kernels go in
// 16 x 16 tiles, writing the destination sequentially; the SIMD kernels
// call them for the edges their register tiles do not cover.
#include <string.h>

#include "ops_optimized/movement/movement.h"

#define TILE 16

// Blocks of BLOCK_BYTES x BLOCK_BYTES bytes' worth of elements: both sides
// then touch runs of 8 consecutive cache lines per row instead of one,
// which the hardware prefetchers follow, and a block pair (256 KiB at
// most) stays in L2. Large transposes (a linear weight, a feature map
// beyond L2) run near the DRAM roof this way; without blocking the
// register-tiled kernels wrote one line per destination row per pass and
// fell below the portable loop.
#define BLOCK_BYTES 512

void etr_move_transpose_blocks(etr_move_transpose_fn tiles,
                               size_t element_size, size_t rows,
                               size_t columns, const void *src,
                               size_t src_stride, void *dst,
                               size_t dst_stride) {
  size_t block = BLOCK_BYTES / element_size;
  const char *source = (const char *)src;
  char *target = (char *)dst;
  for (size_t r = 0; r < rows; r += block) {
    size_t block_rows = rows - r < block ? rows - r : block;
    for (size_t c = 0; c < columns; c += block) {
      size_t block_columns = columns - c < block ? columns - c : block;
      tiles(block_rows, block_columns,
            source + r * src_stride + c * element_size, src_stride,
            target + c * dst_stride + r * element_size, dst_stride);
    }
  }
}

#define DEFINE_SCALAR_TRANSPOSE(name, type)                                \
  static void name##_tiles(size_t rows, size_t columns, const void *src,   \
            size_t src_stride, void *dst, size_t dst_stride) {             \
    const char *source = (const char *)src;                                \
    char *target = (char *)dst;                                            \
    for (size_t r0 = 0; r0 < rows; r0 += TILE) {                           \
      size_t r1 = rows - r0 < TILE ? rows : r0 + TILE;                     \
      for (size_t c0 = 0; c0 < columns; c0 += TILE) {                      \
        size_t c1 = columns - c0 < TILE ? columns : c0 + TILE;             \
        for (size_t c = c0; c < c1; ++c) {                                 \
          char *out = target + c * dst_stride;                             \
          const char *in = source + c * sizeof(type);                      \
          for (size_t r = r0; r < r1; ++r) {                               \
            type value;                                                    \
            memcpy(&value, in + r * src_stride, sizeof(type));             \
            memcpy(out + r * sizeof(type), &value, sizeof(type));          \
          }                                                                \
        }                                                                  \
      }                                                                    \
    }                                                                      \
  }                                                                        \
  void name(size_t rows, size_t columns, const void *src,                  \
            size_t src_stride, void *dst, size_t dst_stride) {             \
    etr_move_transpose_blocks(name##_tiles, sizeof(type), rows, columns,   \
                              src, src_stride, dst, dst_stride);           \
  }

DEFINE_SCALAR_TRANSPOSE(etr_move_transpose_x8_scalar, uint8_t)
DEFINE_SCALAR_TRANSPOSE(etr_move_transpose_x16_scalar, uint16_t)
DEFINE_SCALAR_TRANSPOSE(etr_move_transpose_x32_scalar, uint32_t)
DEFINE_SCALAR_TRANSPOSE(etr_move_transpose_x64_scalar, uint64_t)

etr_move_transpose_fn etr_move_transpose_for(etr_isa_t isa,
                                             size_t element_size) {
  // [isa][log2 element size]
  static const etr_move_transpose_fn kScalar[4] = {
      etr_move_transpose_x8_scalar, etr_move_transpose_x16_scalar,
      etr_move_transpose_x32_scalar, etr_move_transpose_x64_scalar};
  const etr_move_transpose_fn *table = kScalar;
#if defined(__x86_64__)
  static const etr_move_transpose_fn kAvx2[4] = {
      etr_move_transpose_x8_avx2, etr_move_transpose_x16_avx2,
      etr_move_transpose_x32_avx2, etr_move_transpose_x64_avx2};
  // AVX2's 1/2/8-byte kernels are as fast (see transpose_avx512.c).
  static const etr_move_transpose_fn kAvx512[4] = {
      etr_move_transpose_x8_avx2, etr_move_transpose_x16_avx2,
      etr_move_transpose_x32_avx512, etr_move_transpose_x64_avx2};
  if (isa == ETR_ISA_AVX2) {
    table = kAvx2;
  } else if (isa == ETR_ISA_AVX512) {
    table = kAvx512;
  }
#endif
#if defined(__aarch64__)
  static const etr_move_transpose_fn kNeon[4] = {
      etr_move_transpose_x8_neon, etr_move_transpose_x16_neon,
      etr_move_transpose_x32_neon, etr_move_transpose_x64_neon};
  if (isa == ETR_ISA_NEON) {
    table = kNeon;
  }
#endif
  switch (element_size) {
    case 1:
      return table[0];
    case 2:
      return table[1];
    case 4:
      return table[2];
    case 8:
      return table[3];
    default:
      return NULL;
  }
}
