// SPDX-License-Identifier: Apache-2.0
//
// fp32 <-> Half/BFloat16 conversions, NEON: 4 elements per step (FCVT for
// Half, which rounds to nearest even and keeps NaNs quiet with their upper
// payload bits, like etr_float_to_half; integer rounding for BFloat16),
// scalar tails (core's conversions), so nothing past n is touched.
#include <arm_neon.h>

#include "core/scalar_type.h"
#include "ops_optimized/reduce/reduce.h"

static void f16_to_f32_neon(size_t n, const uint16_t *x, float *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1q_f32(y + i, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(x + i))));
  }
  for (; i < n; ++i) {
    y[i] = etr_half_to_float(x[i]);
  }
}

static void bf16_to_f32_neon(size_t n, const uint16_t *x, float *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1q_f32(y + i, vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(x + i), 16)));
  }
  for (; i < n; ++i) {
    y[i] = etr_bfloat16_to_float(x[i]);
  }
}

static void f32_to_f16_neon(size_t n, const float *x, uint16_t *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1_u16(y + i, vreinterpret_u16_f16(vcvt_f16_f32(vld1q_f32(x + i))));
  }
  for (; i < n; ++i) {
    y[i] = etr_float_to_half(x[i]);
  }
}

static void f32_to_bf16_neon(size_t n, const float *x, uint16_t *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t v = vld1q_f32(x + i);
    uint32x4_t bits = vreinterpretq_u32_f32(v);
    uint32x4_t upper = vshrq_n_u32(bits, 16);
    uint32x4_t lsb = vandq_u32(upper, vdupq_n_u32(1));
    uint32x4_t rounded = vshrq_n_u32(
        vaddq_u32(bits, vaddq_u32(lsb, vdupq_n_u32(0x7fff))), 16);
    uint32x4_t quiet = vorrq_u32(upper, vdupq_n_u32(0x40));
    uint32x4_t is_nan = vmvnq_u32(vceqq_f32(v, v));
    vst1_u16(y + i, vmovn_u32(vbslq_u32(is_nan, quiet, rounded)));
  }
  for (; i < n; ++i) {
    y[i] = etr_float_to_bfloat16(x[i]);
  }
}

const etr_convert_kernels_t etr_convert_kernels_neon = {
    .f16_to_f32 = f16_to_f32_neon,
    .bf16_to_f32 = bf16_to_f32_neon,
    .f32_to_f16 = f32_to_f16_neon,
    .f32_to_bf16 = f32_to_bf16_neon,
};
