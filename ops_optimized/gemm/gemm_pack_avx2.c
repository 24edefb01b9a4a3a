// SPDX-License-Identifier: Apache-2.0
//
// Packing with unit stride along X (gemm.h), AVX2: each k row of a panel
// is whole vectors of 8 (the AVX2 kernel's 16-wide B panels), loaded with
// a lane mask at the matrix's right edge (vmaskmovps never reads the
// masked-out lanes, which come back zero: the panel's padding). The
// scalar version copies with a memcpy call per 16-float panel row, whose
// call cost was 4% of MobileNetV2's fused run on a Zen 2 (1x1 layers with
// few input channels pack B for every product). Widths that are not
// multiples of 8 take the scalar version.
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/gemm/gemm.h"

void etr_gemm_pack_rows_f32_avx2(const float *src, ptrdiff_t stride,
                                 size_t kc, size_t xc, size_t width,
                                 float *dst) {
  if (width % 8 != 0) {
    etr_gemm_pack_rows_f32_scalar(src, stride, kc, xc, width, dst);
    return;
  }
  const size_t panels = (xc + width - 1) / width;
  for (size_t p = 0; p < panels; ++p) {
    const size_t x0 = p * width;
    float *panel = dst + p * kc * width;
    for (size_t offset = 0; offset < width; offset += 8) {
      const size_t valid = xc > x0 + offset ? xc - x0 - offset : 0;
      const float *in = src + x0 + offset;
      float *out = panel + offset;
      if (valid >= 8) {
        for (size_t k = 0; k < kc; ++k) {
          _mm256_storeu_ps(out + k * width,
                           _mm256_loadu_ps(in + (ptrdiff_t)k * stride));
        }
      } else if (valid > 0) {
        const __m256i mask = etr_avx2_first_lanes((int64_t)valid);
        for (size_t k = 0; k < kc; ++k) {
          _mm256_storeu_ps(out + k * width,
                           _mm256_maskload_ps(in + (ptrdiff_t)k * stride,
                                              mask));
        }
      } else {
        for (size_t k = 0; k < kc; ++k) {
          _mm256_storeu_ps(out + k * width, _mm256_setzero_ps());
        }
      }
    }
  }
}
