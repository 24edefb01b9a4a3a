// SPDX-License-Identifier: Apache-2.0
//
// fp32 relu, NEON: 4 lanes, 2 vectors per iteration, scalar tail. NaN and
// -0.0 lanes are kept (x < 0 is false for both, as PyTorch: relu(-0.0) is
// -0.0).
#include <arm_neon.h>

#include "ops_optimized/unary/unary.h"

void etr_f32_relu_neon(size_t n, const float *x, float *y) {
  const float32x4_t zero = vdupq_n_f32(0.0f);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    float32x4_t a = vld1q_f32(x + i);
    float32x4_t b = vld1q_f32(x + i + 4);
    vst1q_f32(y + i, vbslq_f32(vcltq_f32(a, zero), zero, a));
    vst1q_f32(y + i + 4, vbslq_f32(vcltq_f32(b, zero), zero, b));
  }
  for (; i < n; ++i) {
    y[i] = x[i] < 0.0f ? 0.0f : x[i];
  }
}
