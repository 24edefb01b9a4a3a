// SPDX-License-Identifier: Apache-2.0
//
// Fill (count copies of one element), portable C, and the per-ISA
// selection of the fill microkernel. An element whose bytes are all equal
// (zero, -1, a Bool) is a memset; any other pattern is written once and
// then doubled with memcpy from the part already written (a few dozen
// calls for any count, each copying from cache), capped at 4 KiB per copy
// so the source stays in L1.
#include <string.h>

#include "ops_optimized/movement/movement.h"

#define DOUBLING_CAP 4096

void etr_move_fill_scalar(void *dst, size_t count, size_t element_size,
                          const void *element) {
  if (count == 0) {
    return;
  }
  const uint8_t *bytes = (const uint8_t *)element;
  bool uniform = true;
  for (size_t i = 1; i < element_size && uniform; ++i) {
    uniform = bytes[i] == bytes[0];
  }
  size_t total = count * element_size;
  if (uniform) {
    memset(dst, bytes[0], total);
    return;
  }
  uint8_t *out = (uint8_t *)dst;
  memcpy(out, element, element_size);
  size_t filled = element_size;
  while (filled < total) {
    size_t chunk = filled < DOUBLING_CAP ? filled
                                         : DOUBLING_CAP / element_size *
                                               element_size;
    if (chunk > total - filled) {
      chunk = total - filled;
    }
    memcpy(out + filled, out, chunk);
    filled += chunk;
  }
}

etr_move_fill_fn etr_move_fill_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_move_fill_avx512;
    case ETR_ISA_AVX2:
      return etr_move_fill_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return etr_move_fill_neon;
#endif
    default:
      return etr_move_fill_scalar;
  }
}
