// SPDX-License-Identifier: Apache-2.0
//
// fp32 relu, AVX2: 8 lanes (streaming stores for an out that streams,
// common/stream.h); the tail is a masked
// load and store, so nothing past n is touched. NaN and -0.0 lanes are
// kept (x < 0 is false for both, as in PyTorch, whose relu(-0.0) is -0.0).
#include <immintrin.h>
#include <stdint.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/common/stream.h"
#include "ops_optimized/unary/unary.h"

void etr_f32_relu_avx2(size_t n, const float *x, float *y) {
  const __m256 zero = _mm256_setzero_ps();
  size_t i = 0;
  if (etr_stream_out(n, 1)) {  // streaming stores (common/stream.h)
    for (size_t head = etr_stream_head(y, 32); i < head; ++i) {
      y[i] = x[i] < 0.0f ? 0.0f : x[i];
    }
    for (; i + 8 <= n; i += 8) {
      __m256 v = _mm256_loadu_ps(x + i);
      __m256 negative = _mm256_cmp_ps(v, zero, _CMP_LT_OQ);
      _mm256_stream_ps(y + i, _mm256_blendv_ps(v, zero, negative));
    }
    _mm_sfence();
  }
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_loadu_ps(x + i);
    __m256 negative = _mm256_cmp_ps(v, zero, _CMP_LT_OQ);
    _mm256_storeu_ps(y + i, _mm256_blendv_ps(v, zero, negative));
  }
  if (i < n) {
    int32_t remaining = (int32_t)(n - i);
    __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(remaining), lanes);
    __m256 v = _mm256_maskload_ps(x + i, mask);
    __m256 negative = _mm256_cmp_ps(v, zero, _CMP_LT_OQ);
    etr_avx2_maskstore_ps(y + i, mask, _mm256_blendv_ps(v, zero, negative));
  }
}
