// SPDX-License-Identifier: Apache-2.0
//
// Quantize / dequantize microkernels, AArch64 NEON: 8 elements a step; the
// tail goes through a stack buffer, so nothing past n is touched. FRINTN
// rounds half to even; FMAXNM returns the number when one operand is NaN,
// so NaN lands on low as in quant.h; the saturating narrows only narrow
// (every lane is already within [low, high]).
#include <arm_neon.h>
#include <string.h>

#include "ops_optimized/quant/quant.h"

static inline int32x4_t quantize_4(float32x4_t x,
                                   const etr_quantize_f32_params_t *p) {
  float32x4_t scaled = vmulq_f32(x, vdupq_n_f32(p->inverse_scale));
  float32x4_t shifted =
      vaddq_f32(vrndnq_f32(scaled), vdupq_n_f32(p->zero_point));
  float32x4_t clamped = vminnmq_f32(vmaxnmq_f32(shifted, vdupq_n_f32(p->low)),
                                    vdupq_n_f32(p->high));
  return vcvtq_s32_f32(clamped);
}

static inline int16x8_t quantize_8(const float *x,
                                   const etr_quantize_f32_params_t *p) {
  int32x4_t low = quantize_4(vld1q_f32(x), p);
  int32x4_t high = quantize_4(vld1q_f32(x + 4), p);
  return vcombine_s16(vqmovn_s32(low), vqmovn_s32(high));
}

static inline void quantize_s8_8(const float *x, int8_t *y,
                                 const etr_quantize_f32_params_t *p) {
  vst1_s8(y, vqmovn_s16(quantize_8(x, p)));
}

static inline void quantize_u8_8(const float *x, uint8_t *y,
                                 const etr_quantize_f32_params_t *p) {
  vst1_u8(y, vqmovun_s16(quantize_8(x, p)));
}

static inline void dequantize_words(int16x8_t q, float *y, int32_t zero_point,
                                    float scale) {
  int32x4_t zp = vdupq_n_s32(zero_point);
  float32x4_t s = vdupq_n_f32(scale);
  int32x4_t low = vsubq_s32(vmovl_s16(vget_low_s16(q)), zp);
  int32x4_t high = vsubq_s32(vmovl_s16(vget_high_s16(q)), zp);
  vst1q_f32(y, vmulq_f32(vcvtq_f32_s32(low), s));
  vst1q_f32(y + 4, vmulq_f32(vcvtq_f32_s32(high), s));
}

static inline void dequantize_s8_8(const int8_t *x, float *y,
                                   int32_t zero_point, float scale) {
  dequantize_words(vmovl_s8(vld1_s8(x)), y, zero_point, scale);
}

static inline void dequantize_u8_8(const uint8_t *x, float *y,
                                   int32_t zero_point, float scale) {
  dequantize_words(vreinterpretq_s16_u16(vmovl_u8(vld1_u8(x))), y,
                   zero_point, scale);
}

static void quantize_s8_neon(size_t n, const float *x, int8_t *y,
                             const etr_quantize_f32_params_t *params) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    quantize_s8_8(x + i, y + i, params);
  }
  if (i < n) {
    float in[8] = {0};
    int8_t out[8];
    memcpy(in, x + i, (n - i) * sizeof(float));
    quantize_s8_8(in, out, params);
    memcpy(y + i, out, n - i);
  }
}

static void quantize_u8_neon(size_t n, const float *x, uint8_t *y,
                             const etr_quantize_f32_params_t *params) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    quantize_u8_8(x + i, y + i, params);
  }
  if (i < n) {
    float in[8] = {0};
    uint8_t out[8];
    memcpy(in, x + i, (n - i) * sizeof(float));
    quantize_u8_8(in, out, params);
    memcpy(y + i, out, n - i);
  }
}

static void dequantize_s8_neon(size_t n, const int8_t *x, float *y,
                               int32_t zero_point, float scale) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    dequantize_s8_8(x + i, y + i, zero_point, scale);
  }
  if (i < n) {
    int8_t in[8] = {0};
    float out[8];
    memcpy(in, x + i, n - i);
    dequantize_s8_8(in, out, zero_point, scale);
    memcpy(y + i, out, (n - i) * sizeof(float));
  }
}

static void dequantize_u8_neon(size_t n, const uint8_t *x, float *y,
                               int32_t zero_point, float scale) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    dequantize_u8_8(x + i, y + i, zero_point, scale);
  }
  if (i < n) {
    uint8_t in[8] = {0};
    float out[8];
    memcpy(in, x + i, n - i);
    dequantize_u8_8(in, out, zero_point, scale);
    memcpy(y + i, out, (n - i) * sizeof(float));
  }
}

const etr_quant_kernels_t etr_quant_kernels_neon = {
    quantize_s8_neon, quantize_u8_neon, dequantize_s8_neon,
    dequantize_u8_neon};
