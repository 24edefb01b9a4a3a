// SPDX-License-Identifier: Apache-2.0
//
// The fused convolution epilogue (conv.h), NEON: per row (out channel)
// fma(v, alpha, beta) then the two ordered selections of hardtanh/relu;
// the tail is scalar (nothing past `cols` is touched).
#include <arm_neon.h>
#include <math.h>

#include "ops_optimized/conv/conv.h"

void etr_conv_post_rows_neon(const etr_conv_post_t *post, size_t channel0,
                             float *c, ptrdiff_t stride, size_t rows,
                             size_t cols) {
  bool affine = post->scale != NULL;
  float32x4_t low = vdupq_n_f32(post->low);
  float32x4_t high = vdupq_n_f32(post->high);
  for (size_t r = 0; r < rows; ++r, c += stride) {
    float a = affine ? post->scale[channel0 + r] : 1.0f;
    float b = affine ? post->shift[channel0 + r] : 0.0f;
    float32x4_t alpha = vdupq_n_f32(a);
    float32x4_t beta = vdupq_n_f32(b);
    size_t j = 0;
    for (; j + 4 <= cols; j += 4) {
      float32x4_t v = vld1q_f32(c + j);
      if (affine) {
        v = vfmaq_f32(beta, v, alpha);
      }
      v = vbslq_f32(vcltq_f32(v, low), low, v);
      v = vbslq_f32(vcgtq_f32(v, high), high, v);
      vst1q_f32(c + j, v);
    }
    for (; j < cols; ++j) {
      float v = affine ? fmaf(c[j], a, b) : c[j];
      v = v < post->low ? post->low : v;
      c[j] = v > post->high ? post->high : v;
    }
  }
}
