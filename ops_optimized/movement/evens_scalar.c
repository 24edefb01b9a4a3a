// SPDX-License-Identifier: Apache-2.0
//
// Evens (every other element of a row, packed), portable C; and the
// per-ISA selection.
#include <string.h>

#include "ops_optimized/movement/movement.h"

#define EVENS_SCALAR(bits, type)                                          \
  void etr_move_evens_x##bits##_scalar(void *dst, const void *src,        \
                                       size_t count) {                    \
    uint8_t *out = (uint8_t *)dst;                                        \
    const uint8_t *in = (const uint8_t *)src;                             \
    for (size_t i = 0; i < count; ++i) {                                  \
      type value;                                                         \
      memcpy(&value, in + 2 * i * sizeof(type), sizeof(type));           \
      memcpy(out + i * sizeof(type), &value, sizeof(type));               \
    }                                                                     \
  }
EVENS_SCALAR(32, uint32_t)
EVENS_SCALAR(64, uint64_t)
#undef EVENS_SCALAR

etr_move_evens_fn etr_move_evens_for(etr_isa_t isa, size_t element_size) {
  bool wide = element_size == 8;
  if (element_size != 4 && !wide) {
    return NULL;
  }
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return wide ? etr_move_evens_x64_avx512 : etr_move_evens_x32_avx512;
    case ETR_ISA_AVX2:
      return wide ? etr_move_evens_x64_avx2 : etr_move_evens_x32_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return wide ? etr_move_evens_x64_neon : etr_move_evens_x32_neon;
#endif
    default:
      return wide ? etr_move_evens_x64_scalar : etr_move_evens_x32_scalar;
  }
}
