// SPDX-License-Identifier: Apache-2.0
//
// Replicate (`rows` copies of one row), portable C: one memcpy per row;
// and the per-ISA selection of the replicate microkernel.
#include <string.h>

#include "ops_optimized/movement/movement.h"

void etr_move_replicate_scalar(void *dst, size_t dst_stride, size_t rows,
                               const void *src, size_t bytes) {
  uint8_t *out = (uint8_t *)dst;
  for (size_t r = 0; r < rows; ++r, out += dst_stride) {
    memcpy(out, src, bytes);
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
