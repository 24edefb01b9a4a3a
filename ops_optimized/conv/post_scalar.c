// SPDX-License-Identifier: Apache-2.0
//
// The fused convolution epilogue (conv.h, etr_conv_post_t), portable C,
// and the per-ISA selection. The arithmetic is the optimized batch norm's
// (norm/norm.h: y = fma(x, alpha, beta)) and hardtanh/relu's (x < low ?
// low : x, then x > high ? high : x), so a fused block writes the same bits
// as the three kernels run one after another.
#include <math.h>

#include "ops_optimized/conv/conv.h"

void etr_conv_post_rows_scalar(const etr_conv_post_t *post, size_t channel0,
                               float *c, ptrdiff_t stride, size_t rows,
                               size_t cols) {
  for (size_t r = 0; r < rows; ++r, c += stride) {
    float alpha = post->scale != NULL ? post->scale[channel0 + r] : 1.0f;
    float beta = post->shift != NULL ? post->shift[channel0 + r] : 0.0f;
    for (size_t j = 0; j < cols; ++j) {
      float v = c[j];
      if (post->scale != NULL) {
        v = fmaf(v, alpha, beta);
      }
      v = v < post->low ? post->low : v;
      v = v > post->high ? post->high : v;
      c[j] = v;
    }
  }
}

etr_conv_post_rows_fn etr_conv_post_rows_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_conv_post_rows_avx512;
    case ETR_ISA_AVX2:
      return etr_conv_post_rows_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return etr_conv_post_rows_neon;
#endif
    default:
      return etr_conv_post_rows_scalar;
  }
}

// etr_gemm_post_t.apply of an NCHW convolution: GEMM rows are out channels.
void etr_conv_post_gemm(const etr_gemm_post_t *gemm, float *c,
                        ptrdiff_t c_stride, size_t row0, size_t rows,
                        size_t cols) {
  const etr_conv_post_t *post = (const etr_conv_post_t *)gemm->state;
  post->rows(post, row0, c, c_stride, rows, cols);
}
