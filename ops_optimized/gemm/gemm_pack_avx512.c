// SPDX-License-Identifier: Apache-2.0
//
// fp32 panel packing, AVX-512 (see gemm.h for the panel format).
//
// Rows contiguous along X (a row-major B): each k row is copied into every
// panel with masked 16-lane loads and stores, one source row at a time so
// the reads stream. Rows contiguous along K (a row-major A, a transposed
// weight): blocks of 16 x 16 are loaded (16 k from each of 16 columns),
// transposed in registers (4 shuffle stages, 64 shuffles) and stored as 16
// panel rows. Loads are masked to the block, so nothing past the source is
// read; lanes past the panel's columns come out zero (the padding).
#include <immintrin.h>

#include "ops_optimized/gemm/gemm.h"
#include "ops_optimized/gemm/transpose_avx512.h"

static inline __mmask16 first_lanes(size_t count) {
  return count >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << count) - 1u);
}

void etr_gemm_pack_rows_f32_avx512(const float *src, ptrdiff_t k_stride,
                                   size_t kc, size_t xc, size_t width,
                                   float *dst) {
  size_t panels = (xc + width - 1) / width;
  for (size_t k = 0; k < kc; ++k) {
    const float *row = src + (ptrdiff_t)k * k_stride;
    for (size_t p = 0; p < panels; ++p) {
      float *out = dst + p * kc * width + k * width;
      size_t x0 = p * width;
      for (size_t offset = 0; offset < width; offset += 16) {
        size_t valid = xc > x0 + offset ? xc - x0 - offset : 0;
        __m512 v = _mm512_maskz_loadu_ps(first_lanes(valid),
                                         row + x0 + offset);
        _mm512_mask_storeu_ps(out + offset, first_lanes(width - offset), v);
      }
    }
  }
}

void etr_gemm_pack_columns_f32_avx512(const float *src, ptrdiff_t x_stride,
                                      size_t kc, size_t xc, size_t width,
                                      float *dst) {
  size_t panels = (xc + width - 1) / width;
  for (size_t p = 0; p < panels; ++p) {
    float *panel = dst + p * kc * width;
    for (size_t offset = 0; offset < width; offset += 16) {
      size_t x0 = p * width + offset;
      size_t lanes = width - offset < 16 ? width - offset : 16;
      size_t columns = xc > x0 ? xc - x0 : 0;
      columns = columns < lanes ? columns : lanes;
      __mmask16 store_mask = first_lanes(lanes);
      for (size_t k = 0; k < kc; k += 16) {
        size_t depth = kc - k < 16 ? kc - k : 16;
        __mmask16 load_mask = first_lanes(depth);
        __m512 r[16];
#pragma GCC unroll 16
        for (size_t x = 0; x < 16; ++x) {
          r[x] = x < columns
                     ? _mm512_maskz_loadu_ps(
                           load_mask, src + (ptrdiff_t)(x0 + x) * x_stride +
                                          (ptrdiff_t)k)
                     : _mm512_setzero_ps();
        }
        etr_transpose16x16_avx512(r);
        float *out = panel + k * width + offset;
        if (depth == 16) {  // constant indices keep r[] in registers
#pragma GCC unroll 16
          for (size_t t = 0; t < 16; ++t) {
            _mm512_mask_storeu_ps(out + t * width, store_mask, r[t]);
          }
        } else {
          for (size_t t = 0; t < depth; ++t) {
            _mm512_mask_storeu_ps(out + t * width, store_mask, r[t]);
          }
        }
      }
    }
  }
}
