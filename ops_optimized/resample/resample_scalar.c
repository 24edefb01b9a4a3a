// SPDX-License-Identifier: Apache-2.0
//
// Resampling microkernels in portable C, and the per-ISA selection of the
// resample table. Semantics in resample.h.
#include <math.h>

#include "ops_optimized/resample/resample.h"

static void gather_row_scalar(const float *src, const int32_t *index,
                              size_t count, float *dst) {
  for (size_t k = 0; k < count; ++k) {
    dst[k] = src[index[k]];
  }
}

static void duplicate_row_scalar(const float *src, size_t count,
                                 float *dst) {
  for (size_t k = 0; k < count; ++k) {
    dst[2 * k] = src[k];
    dst[2 * k + 1] = src[k];
  }
}

static void bilinear_row_scalar(const float *r0, const float *r1, float h0,
                                float h1, const int32_t *i0,
                                const int32_t *i1, const float *l0,
                                const float *l1, size_t count, float *dst) {
  for (size_t k = 0; k < count; ++k) {
    float top = fmaf(l0[k], r0[i0[k]], l1[k] * r0[i1[k]]);
    float bottom = fmaf(l0[k], r1[i0[k]], l1[k] * r1[i1[k]]);
    dst[k] = fmaf(h0, top, h1 * bottom);
  }
}

static void bilinear_pixel_scalar(const float *a, const float *b,
                                  const float *c, const float *d, float h0,
                                  float h1, float w0, float w1, size_t count,
                                  float *dst) {
  for (size_t k = 0; k < count; ++k) {
    float top = fmaf(w0, a[k], w1 * b[k]);
    float bottom = fmaf(w0, c[k], w1 * d[k]);
    dst[k] = fmaf(h0, top, h1 * bottom);
  }
}

const etr_resample_kernels_t etr_resample_kernels_scalar = {
    .gather_row = gather_row_scalar,
    .duplicate_row = duplicate_row_scalar,
    .bilinear_row = bilinear_row_scalar,
    .bilinear_pixel = bilinear_pixel_scalar,
};

const etr_resample_kernels_t *etr_resample_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_resample_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_resample_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_resample_kernels_neon;
#endif
    default:
      return &etr_resample_kernels_scalar;
  }
}
