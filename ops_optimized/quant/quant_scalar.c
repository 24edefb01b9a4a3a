// SPDX-License-Identifier: Apache-2.0
//
// Quantize / dequantize microkernels in portable C (the arithmetic of
// quant.h, element by element), and the per-ISA selection of the tables.
#include <math.h>

#include "ops_optimized/quant/quant.h"

static inline float quantize_one(float x,
                                 const etr_quantize_f32_params_t *p) {
  float shifted = nearbyintf(x * p->inverse_scale) + p->zero_point;
  float q = shifted >= p->low ? shifted : p->low;  // NaN -> low
  return q <= p->high ? q : p->high;
}

static void quantize_s8_scalar(size_t n, const float *x, int8_t *y,
                               const etr_quantize_f32_params_t *params) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = (int8_t)quantize_one(x[i], params);
  }
}

static void quantize_u8_scalar(size_t n, const float *x, uint8_t *y,
                               const etr_quantize_f32_params_t *params) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = (uint8_t)quantize_one(x[i], params);
  }
}

static void dequantize_s8_scalar(size_t n, const int8_t *x, float *y,
                                 int32_t zero_point, float scale) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = (float)((int32_t)x[i] - zero_point) * scale;
  }
}

static void dequantize_u8_scalar(size_t n, const uint8_t *x, float *y,
                                 int32_t zero_point, float scale) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = (float)((int32_t)x[i] - zero_point) * scale;
  }
}

const etr_quant_kernels_t etr_quant_kernels_scalar = {
    quantize_s8_scalar, quantize_u8_scalar, dequantize_s8_scalar,
    dequantize_u8_scalar};

const etr_quant_kernels_t *etr_quant_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_quant_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_quant_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_quant_kernels_neon;
#endif
    default:
      return &etr_quant_kernels_scalar;
  }
}
