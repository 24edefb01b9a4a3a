// SPDX-License-Identifier: Apache-2.0
//
// Fill, NEON: the element is repeated into a 16-byte pattern (element
// sizes 1, 2, 4, 8, 16 divide it) and stored four registers per
// iteration; the last bytes come from the pattern with a memcpy, so
// nothing past the end is written. Other element sizes use the portable
// kernel.
#include <arm_neon.h>
#include <string.h>

#include "ops_optimized/movement/movement.h"

void etr_move_fill_neon(void *dst, size_t count, size_t element_size,
                        const void *element) {
  if (element_size == 0 || element_size > 16 || 16 % element_size != 0) {
    etr_move_fill_scalar(dst, count, element_size, element);
    return;
  }
  uint8_t pattern[16];
  for (size_t i = 0; i < 16; i += element_size) {
    memcpy(pattern + i, element, element_size);
  }
  const uint8x16_t value = vld1q_u8(pattern);
  uint8_t *out = (uint8_t *)dst;
  size_t total = count * element_size;
  size_t i = 0;
  for (; i + 64 <= total; i += 64) {
    vst1q_u8(out + i, value);
    vst1q_u8(out + i + 16, value);
    vst1q_u8(out + i + 32, value);
    vst1q_u8(out + i + 48, value);
  }
  for (; i + 16 <= total; i += 16) {
    vst1q_u8(out + i, value);
  }
  // i is a multiple of 16, so the pattern starts over here.
  memcpy(out + i, pattern, total - i);
}
