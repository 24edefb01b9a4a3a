// SPDX-License-Identifier: Apache-2.0
//
// Resampling microkernels, AVX2 + FMA: 8 outputs per step with masked
// gathers (vgatherdps reads only active lanes), duplication by unpacking 4
// inputs, masked or scalar tails, so nothing past a row or channel vector
// is touched. Semantics in resample.h.
#include <immintrin.h>

#include "ops_optimized/common/mask_avx2.h"
#include "ops_optimized/resample/resample.h"

static inline __m256i mask8(size_t count) {
  int32_t c = count >= 8 ? 8 : (int32_t)count;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(c),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

static inline __m256 gather(__m256i m, const float *base, __m256i index) {
  return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), base, index,
                                  _mm256_castsi256_ps(m), 4);
}

static void gather_row_avx2(const float *src, const int32_t *index,
                            size_t count, float *dst) {
  for (size_t k = 0; k < count; k += 8) {
    __m256i m = mask8(count - k);
    __m256i i = _mm256_maskload_epi32(index + k, m);
    etr_avx2_maskstore_ps(dst + k, m, gather(m, src, i));
  }
}

static void duplicate_row_avx2(const float *src, size_t count, float *dst) {
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    __m128 v = _mm_loadu_ps(src + k);
    __m256 pairs =
        _mm256_set_m128(_mm_unpackhi_ps(v, v), _mm_unpacklo_ps(v, v));
    _mm256_storeu_ps(dst + 2 * k, pairs);
  }
  for (; k < count; ++k) {
    dst[2 * k] = src[k];
    dst[2 * k + 1] = src[k];
  }
}

static void bilinear_row_avx2(const float *r0, const float *r1, float h0,
                              float h1, const int32_t *i0, const int32_t *i1,
                              const float *l0, const float *l1, size_t count,
                              float *dst) {
  __m256 hv0 = _mm256_set1_ps(h0);
  __m256 hv1 = _mm256_set1_ps(h1);
  for (size_t k = 0; k < count; k += 8) {
    __m256i m = mask8(count - k);
    __m256i a = _mm256_maskload_epi32(i0 + k, m);
    __m256i b = _mm256_maskload_epi32(i1 + k, m);
    __m256 w0 = _mm256_maskload_ps(l0 + k, m);
    __m256 w1 = _mm256_maskload_ps(l1 + k, m);
    __m256 top = _mm256_fmadd_ps(w0, gather(m, r0, a),
                                 _mm256_mul_ps(w1, gather(m, r0, b)));
    __m256 bottom = _mm256_fmadd_ps(w0, gather(m, r1, a),
                                    _mm256_mul_ps(w1, gather(m, r1, b)));
    etr_avx2_maskstore_ps(dst + k, m,
                        _mm256_fmadd_ps(hv0, top, _mm256_mul_ps(hv1, bottom)));
  }
}

static void bilinear_pixel_avx2(const float *a, const float *b,
                                const float *c, const float *d, float h0,
                                float h1, float w0, float w1, size_t count,
                                float *dst) {
  __m256 hv0 = _mm256_set1_ps(h0);
  __m256 hv1 = _mm256_set1_ps(h1);
  __m256 wv0 = _mm256_set1_ps(w0);
  __m256 wv1 = _mm256_set1_ps(w1);
  for (size_t k = 0; k < count; k += 8) {
    __m256i m = mask8(count - k);
    __m256 top = _mm256_fmadd_ps(
        wv0, _mm256_maskload_ps(a + k, m),
        _mm256_mul_ps(wv1, _mm256_maskload_ps(b + k, m)));
    __m256 bottom = _mm256_fmadd_ps(
        wv0, _mm256_maskload_ps(c + k, m),
        _mm256_mul_ps(wv1, _mm256_maskload_ps(d + k, m)));
    etr_avx2_maskstore_ps(dst + k, m,
                        _mm256_fmadd_ps(hv0, top, _mm256_mul_ps(hv1, bottom)));
  }
}

const etr_resample_kernels_t etr_resample_kernels_avx2 = {
    .gather_row = gather_row_avx2,
    .duplicate_row = duplicate_row_avx2,
    .bilinear_row = bilinear_row_avx2,
    .bilinear_pixel = bilinear_pixel_avx2,
};
