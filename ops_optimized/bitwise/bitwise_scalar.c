// SPDX-License-Identifier: Apache-2.0
//
// The bytewise microkernels (bitwise.h) in portable C, and the per-ISA
// selection of them.
#include "ops_optimized/bitwise/bitwise.h"

#define BYTES_KERNELS(name, OP)                                           \
  static void name##_vv(size_t n, const uint8_t *a, const uint8_t *b,     \
                        uint8_t *y) {                                     \
    for (size_t i = 0; i < n; ++i) {                                      \
      y[i] = (uint8_t)(a[i] OP b[i]);                                     \
    }                                                                     \
  }                                                                       \
  static void name##_vp(size_t n, const uint8_t *a,                       \
                        const uint8_t *pattern, uint8_t *y) {             \
    for (size_t i = 0; i < n; ++i) {                                      \
      y[i] = (uint8_t)(a[i] OP pattern[i % ETR_BYTES_PATTERN]);           \
    }                                                                     \
  }

BYTES_KERNELS(and, &)
BYTES_KERNELS(or, |)
BYTES_KERNELS(xor, ^)
#undef BYTES_KERNELS

_Static_assert(ETR_BYTES_NUM_OPS == 3, "the table lists every op in order");
const etr_bytes_kernels_t etr_bytes_scalar = {
    .vv = {and_vv, or_vv, xor_vv},
    .vp = {and_vp, or_vp, xor_vp},
};

const etr_bytes_kernels_t *etr_bytes_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_bytes_avx512;
    case ETR_ISA_AVX2:
      return &etr_bytes_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_bytes_neon;
#endif
    default:
      return &etr_bytes_scalar;
  }
}
