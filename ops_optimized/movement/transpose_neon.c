// SPDX-License-Identifier: Apache-2.0
//
// Transposes, NEON (see movement.h). Register tiles built from TRN1/TRN2
// butterflies, one round per element width up to 64 bits (after the round
// that pairs registers d apart, register i holds columns i, i+2d, ... of
// the rows that round joined, so after the last round register i is
// column i):
//   x32  4 x 4     (trn 32, trn 64)
//   x64  2 x 2     (trn 64)
//   x16  8 x 8     (trn 16, 32, 64)
//   x8   16 x 16   (trn 8, 16, 32, 64)
// Each tile writes 16 bytes per destination row, so row tiles run in
// groups of four per column group: every destination row gets a whole
// 64-byte line at once. The rows and columns no tile covers go to the
// portable kernel, so nothing outside the block is touched. Permutes move
// bits only.
#include <arm_neon.h>

#include "ops_optimized/movement/movement.h"

#define AT(base, offset) ((const char *)(base) + (offset))
#define OUT(base, offset) ((char *)(base) + (offset))

static void edges(etr_move_transpose_fn scalar, size_t element_size,
                  size_t rows, size_t columns, size_t full_rows,
                  size_t full_columns, const void *src, size_t src_stride,
                  void *dst, size_t dst_stride) {
  scalar(rows, columns - full_columns, AT(src, full_columns * element_size),
         src_stride, OUT(dst, full_columns * dst_stride), dst_stride);
  scalar(rows - full_rows, full_columns, AT(src, full_rows * src_stride),
         src_stride, OUT(dst, full_rows * element_size), dst_stride);
}

// One butterfly round on n registers at `width` bits, pairing i and i + d.
#define ROUND(v, n, d, trn1, trn2, to, from)                        \
  for (int i = 0; i < (n); ++i) {                                   \
    if ((i & (d)) == 0) {                                           \
      uint8x16_t low = from(trn1(to(v[i]), to(v[i + (d)])));        \
      uint8x16_t high = from(trn2(to(v[i]), to(v[i + (d)])));       \
      v[i] = low;                                                   \
      v[i + (d)] = high;                                            \
    }                                                               \
  }

static inline void tile_x32(const void *src, size_t src_stride, void *dst,
                            size_t dst_stride) {
  uint8x16_t v[4];
  for (int i = 0; i < 4; ++i) {
    v[i] = vld1q_u8((const uint8_t *)AT(src, i * src_stride));
  }
  ROUND(v, 4, 1, vtrn1q_u32, vtrn2q_u32, vreinterpretq_u32_u8,
        vreinterpretq_u8_u32)
  ROUND(v, 4, 2, vtrn1q_u64, vtrn2q_u64, vreinterpretq_u64_u8,
        vreinterpretq_u8_u64)
  for (int i = 0; i < 4; ++i) {
    vst1q_u8((uint8_t *)OUT(dst, i * dst_stride), v[i]);
  }
}

static void x32_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  size_t full_rows = rows / 4 * 4;
  size_t full_columns = columns / 4 * 4;
  for (size_t r0 = 0; r0 < full_rows; r0 += 16) {  // 64 B per dst row
    size_t r1 = full_rows - r0 < 16 ? full_rows : r0 + 16;
    for (size_t c = 0; c < full_columns; c += 4) {
      for (size_t r = r0; r < r1; r += 4) {
        tile_x32(AT(src, r * src_stride + c * 4), src_stride,
                 OUT(dst, c * dst_stride + r * 4), dst_stride);
      }
    }
  }
  edges(etr_move_transpose_x32_scalar, 4, rows, columns, full_rows,
        full_columns, src, src_stride, dst, dst_stride);
}

static inline void tile_x64(const void *src, size_t src_stride, void *dst,
                            size_t dst_stride) {
  uint8x16_t v[2];
  for (int i = 0; i < 2; ++i) {
    v[i] = vld1q_u8((const uint8_t *)AT(src, i * src_stride));
  }
  ROUND(v, 2, 1, vtrn1q_u64, vtrn2q_u64, vreinterpretq_u64_u8,
        vreinterpretq_u8_u64)
  for (int i = 0; i < 2; ++i) {
    vst1q_u8((uint8_t *)OUT(dst, i * dst_stride), v[i]);
  }
}

static void x64_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  size_t full_rows = rows / 2 * 2;
  size_t full_columns = columns / 2 * 2;
  for (size_t r0 = 0; r0 < full_rows; r0 += 8) {  // 64 B per dst row
    size_t r1 = full_rows - r0 < 8 ? full_rows : r0 + 8;
    for (size_t c = 0; c < full_columns; c += 2) {
      for (size_t r = r0; r < r1; r += 2) {
        tile_x64(AT(src, r * src_stride + c * 8), src_stride,
                 OUT(dst, c * dst_stride + r * 8), dst_stride);
      }
    }
  }
  edges(etr_move_transpose_x64_scalar, 8, rows, columns, full_rows,
        full_columns, src, src_stride, dst, dst_stride);
}

static inline void tile_x16(const void *src, size_t src_stride, void *dst,
                            size_t dst_stride) {
  uint8x16_t v[8];
  for (int i = 0; i < 8; ++i) {
    v[i] = vld1q_u8((const uint8_t *)AT(src, i * src_stride));
  }
  ROUND(v, 8, 1, vtrn1q_u16, vtrn2q_u16, vreinterpretq_u16_u8,
        vreinterpretq_u8_u16)
  ROUND(v, 8, 2, vtrn1q_u32, vtrn2q_u32, vreinterpretq_u32_u8,
        vreinterpretq_u8_u32)
  ROUND(v, 8, 4, vtrn1q_u64, vtrn2q_u64, vreinterpretq_u64_u8,
        vreinterpretq_u8_u64)
  for (int i = 0; i < 8; ++i) {
    vst1q_u8((uint8_t *)OUT(dst, i * dst_stride), v[i]);
  }
}

static void x16_tiles(size_t rows, size_t columns,
                      const void *src, size_t src_stride,
                      void *dst, size_t dst_stride) {
  size_t full_rows = rows / 8 * 8;
  size_t full_columns = columns / 8 * 8;
  for (size_t r0 = 0; r0 < full_rows; r0 += 32) {  // 64 B per dst row
    size_t r1 = full_rows - r0 < 32 ? full_rows : r0 + 32;
    for (size_t c = 0; c < full_columns; c += 8) {
      for (size_t r = r0; r < r1; r += 8) {
        tile_x16(AT(src, r * src_stride + c * 2), src_stride,
                 OUT(dst, c * dst_stride + r * 2), dst_stride);
      }
    }
  }
  edges(etr_move_transpose_x16_scalar, 2, rows, columns, full_rows,
        full_columns, src, src_stride, dst, dst_stride);
}

#define SAME(x) (x)

static inline void tile_x8(const void *src, size_t src_stride, void *dst,
                           size_t dst_stride) {
  uint8x16_t v[16];
  for (int i = 0; i < 16; ++i) {
    v[i] = vld1q_u8((const uint8_t *)AT(src, i * src_stride));
  }
  ROUND(v, 16, 1, vtrn1q_u8, vtrn2q_u8, SAME, SAME)
  ROUND(v, 16, 2, vtrn1q_u16, vtrn2q_u16, vreinterpretq_u16_u8,
        vreinterpretq_u8_u16)
  ROUND(v, 16, 4, vtrn1q_u32, vtrn2q_u32, vreinterpretq_u32_u8,
        vreinterpretq_u8_u32)
  ROUND(v, 16, 8, vtrn1q_u64, vtrn2q_u64, vreinterpretq_u64_u8,
        vreinterpretq_u8_u64)
  for (int i = 0; i < 16; ++i) {
    vst1q_u8((uint8_t *)OUT(dst, i * dst_stride), v[i]);
  }
}

static void x8_tiles(size_t rows, size_t columns,
                     const void *src, size_t src_stride,
                     void *dst, size_t dst_stride) {
  size_t full_rows = rows / 16 * 16;
  size_t full_columns = columns / 16 * 16;
  for (size_t r0 = 0; r0 < full_rows; r0 += 64) {  // 64 B per dst row
    size_t r1 = full_rows - r0 < 64 ? full_rows : r0 + 64;
    for (size_t c = 0; c < full_columns; c += 16) {
      for (size_t r = r0; r < r1; r += 16) {
        tile_x8(AT(src, r * src_stride + c), src_stride,
                OUT(dst, c * dst_stride + r), dst_stride);
      }
    }
  }
  edges(etr_move_transpose_x8_scalar, 1, rows, columns, full_rows,
        full_columns, src, src_stride, dst, dst_stride);
}

void etr_move_transpose_x8_neon(size_t rows, size_t columns,
                                const void *src, size_t src_stride,
                                void *dst, size_t dst_stride) {
  etr_move_transpose_blocks(x8_tiles, 1, rows, columns, src, src_stride,
                            dst, dst_stride);
}

void etr_move_transpose_x16_neon(size_t rows, size_t columns,
                                 const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride) {
  etr_move_transpose_blocks(x16_tiles, 2, rows, columns, src, src_stride,
                            dst, dst_stride);
}

void etr_move_transpose_x32_neon(size_t rows, size_t columns,
                                 const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride) {
  etr_move_transpose_blocks(x32_tiles, 4, rows, columns, src, src_stride,
                            dst, dst_stride);
}

void etr_move_transpose_x64_neon(size_t rows, size_t columns,
                                 const void *src, size_t src_stride,
                                 void *dst, size_t dst_stride) {
  etr_move_transpose_blocks(x64_tiles, 8, rows, columns, src, src_stride,
                            dst, dst_stride);
}
