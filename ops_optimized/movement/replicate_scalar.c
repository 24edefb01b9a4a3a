// SPDX-License-Identifier: Apache-2.0
//
// Replicate (`rows` copies of one row) and strided rows, portable C: one
// memcpy per row; and the per-ISA selection of both microkernels.
#include <string.h>

#include "ops_optimized/movement/movement.h"

void etr_move_replicate_scalar(void *dst, size_t dst_stride, size_t rows,
                               const void *src, size_t bytes) {
  uint8_t *out = (uint8_t *)dst;
  for (size_t r = 0; r < rows; ++r, out += dst_stride) {
    memcpy(out, src, bytes);
  }
}

void etr_move_rows_scalar(void *dst, size_t dst_stride, const void *src,
                          ptrdiff_t src_stride, size_t rows, size_t bytes) {
  uint8_t *out = (uint8_t *)dst;
  const uint8_t *in = (const uint8_t *)src;
  for (size_t r = 0; r < rows; ++r, out += dst_stride, in += src_stride) {
    memcpy(out, in, bytes);
  }
}

etr_move_rows_fn etr_move_rows_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_move_rows_avx512;
    case ETR_ISA_AVX2:
      return etr_move_rows_avx2;
#endif
    default:
      return etr_move_rows_scalar;
  }
}

etr_move_replicate_fn etr_move_replicate_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_move_replicate_avx512;
    case ETR_ISA_AVX2:
      return etr_move_replicate_avx2;
#endif
    default:
      return etr_move_replicate_scalar;
  }
}
