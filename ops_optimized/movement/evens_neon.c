// SPDX-License-Identifier: Apache-2.0
//
// Evens, NEON: a de-interleaving load (ld2) splits even and odd elements;
// the evens are stored. The last steps go element by element, reading
// nothing past the last even element.
#include <arm_neon.h>

#include "ops_optimized/movement/movement.h"

void etr_move_evens_x32_neon(void *dst, const void *src, size_t count) {
  uint32_t *out = (uint32_t *)dst;
  const uint32_t *in = (const uint32_t *)src;
  size_t i = 0;
  for (; i + 4 < count; i += 4) {  // reads in[2i .. 2i + 7]
    vst1q_u32(out + i, vld2q_u32(in + 2 * i).val[0]);
  }
  etr_move_evens_x32_scalar(out + i, in + 2 * i, count - i);
}

void etr_move_evens_x64_neon(void *dst, const void *src, size_t count) {
  uint64_t *out = (uint64_t *)dst;
  const uint64_t *in = (const uint64_t *)src;
  size_t i = 0;
  for (; i + 2 < count; i += 2) {  // reads in[2i .. 2i + 3]
    vst1q_u64(out + i, vld2q_u64(in + 2 * i).val[0]);
  }
  etr_move_evens_x64_scalar(out + i, in + 2 * i, count - i);
}
