// SPDX-License-Identifier: Apache-2.0
//
// The bytewise microkernels (bitwise.h) for AArch64 Advanced SIMD: 16
// bytes a vector, two vectors a step, the last < 16 bytes one at a time.
#include <arm_neon.h>

#include "ops_optimized/bitwise/bitwise.h"

#define BYTES_KERNELS(name, INTRINSIC, OP)                                \
  static void name##_vv(size_t n, const uint8_t *a, const uint8_t *b,     \
                        uint8_t *y) {                                     \
    size_t i = 0;                                                         \
    for (; i + 32 <= n; i += 32) {                                        \
      uint8x16_t r0 = INTRINSIC(vld1q_u8(a + i), vld1q_u8(b + i));        \
      uint8x16_t r1 =                                                     \
          INTRINSIC(vld1q_u8(a + i + 16), vld1q_u8(b + i + 16));          \
      vst1q_u8(y + i, r0);                                                \
      vst1q_u8(y + i + 16, r1);                                           \
    }                                                                     \
    for (; i + 16 <= n; i += 16) {                                        \
      vst1q_u8(y + i, INTRINSIC(vld1q_u8(a + i), vld1q_u8(b + i)));       \
    }                                                                     \
    for (; i < n; ++i) {                                                  \
      y[i] = (uint8_t)(a[i] OP b[i]);                                     \
    }                                                                     \
  }                                                                       \
  static void name##_vp(size_t n, const uint8_t *a,                       \
                        const uint8_t *pattern, uint8_t *y) {             \
    const uint8x16_t p = vld1q_u8(pattern);                               \
    size_t i = 0;                                                         \
    for (; i + 32 <= n; i += 32) {                                        \
      uint8x16_t r0 = INTRINSIC(vld1q_u8(a + i), p);                      \
      uint8x16_t r1 = INTRINSIC(vld1q_u8(a + i + 16), p);                 \
      vst1q_u8(y + i, r0);                                                \
      vst1q_u8(y + i + 16, r1);                                           \
    }                                                                     \
    for (; i + 16 <= n; i += 16) {                                        \
      vst1q_u8(y + i, INTRINSIC(vld1q_u8(a + i), p));                     \
    }                                                                     \
    for (; i < n; ++i) {                                                  \
      y[i] = (uint8_t)(a[i] OP pattern[i % ETR_BYTES_PATTERN]);           \
    }                                                                     \
  }

BYTES_KERNELS(and, vandq_u8, &)
BYTES_KERNELS(or, vorrq_u8, |)
BYTES_KERNELS(xor, veorq_u8, ^)
#undef BYTES_KERNELS

const etr_bytes_kernels_t etr_bytes_neon = {
    .vv = {and_vv, or_vv, xor_vv},
    .vp = {and_vp, or_vp, xor_vp},
};
