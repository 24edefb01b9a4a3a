// SPDX-License-Identifier: Apache-2.0
//
// Resampling microkernels, NEON (aarch64 Advanced SIMD): 4 outputs per
// step; NEON has no gather, so NCHW rows gather their lanes element by
// element into registers and blend them with vector FMAs; duplication
// zips 4 inputs into 8 outputs; tails are scalar or go through a 4-float
// stack buffer, so nothing past a row or a channel vector is touched.
// Semantics in resample.h.
#include <arm_neon.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/resample/resample.h"

static inline float32x4_t gather4(const float *base, const int32_t *index) {
  float lanes[4] = {base[index[0]], base[index[1]], base[index[2]],
                    base[index[3]]};
  return vld1q_f32(lanes);
}

static void gather_row_neon(const float *src, const int32_t *index,
                            size_t count, float *dst) {
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    vst1q_f32(dst + k, gather4(src, index + k));
  }
  for (; k < count; ++k) {
    dst[k] = src[index[k]];
  }
}

static void duplicate_row_neon(const float *src, size_t count, float *dst) {
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    float32x4_t v = vld1q_f32(src + k);
    vst1q_f32(dst + 2 * k, vzip1q_f32(v, v));
    vst1q_f32(dst + 2 * k + 4, vzip2q_f32(v, v));
  }
  for (; k < count; ++k) {
    dst[2 * k] = src[k];
    dst[2 * k + 1] = src[k];
  }
}

static void bilinear_row_neon(const float *r0, const float *r1, float h0,
                              float h1, const int32_t *i0, const int32_t *i1,
                              const float *l0, const float *l1, size_t count,
                              float *dst) {
  float32x4_t hv0 = vdupq_n_f32(h0);
  float32x4_t hv1 = vdupq_n_f32(h1);
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    float32x4_t w0 = vld1q_f32(l0 + k);
    float32x4_t w1 = vld1q_f32(l1 + k);
    float32x4_t top = vfmaq_f32(vmulq_f32(w1, gather4(r0, i1 + k)), w0,
                                gather4(r0, i0 + k));
    float32x4_t bottom = vfmaq_f32(vmulq_f32(w1, gather4(r1, i1 + k)), w0,
                                   gather4(r1, i0 + k));
    vst1q_f32(dst + k, vfmaq_f32(vmulq_f32(hv1, bottom), hv0, top));
  }
  for (; k < count; ++k) {
    float top = fmaf(l0[k], r0[i0[k]], l1[k] * r0[i1[k]]);
    float bottom = fmaf(l0[k], r1[i0[k]], l1[k] * r1[i1[k]]);
    dst[k] = fmaf(h0, top, h1 * bottom);
  }
}

static inline float32x4_t load_n(const float *p, size_t count) {
  if (count >= 4) {
    return vld1q_f32(p);
  }
  float buffer[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  memcpy(buffer, p, count * sizeof(float));
  return vld1q_f32(buffer);
}

static void bilinear_pixel_neon(const float *a, const float *b,
                                const float *c, const float *d, float h0,
                                float h1, float w0, float w1, size_t count,
                                float *dst) {
  float32x4_t hv0 = vdupq_n_f32(h0);
  float32x4_t hv1 = vdupq_n_f32(h1);
  float32x4_t wv0 = vdupq_n_f32(w0);
  float32x4_t wv1 = vdupq_n_f32(w1);
  for (size_t k = 0; k < count; k += 4) {
    size_t lanes = count - k < 4 ? count - k : 4;
    float32x4_t top = vfmaq_f32(vmulq_f32(wv1, load_n(b + k, lanes)), wv0,
                                load_n(a + k, lanes));
    float32x4_t bottom = vfmaq_f32(vmulq_f32(wv1, load_n(d + k, lanes)), wv0,
                                   load_n(c + k, lanes));
    float32x4_t y = vfmaq_f32(vmulq_f32(hv1, bottom), hv0, top);
    if (lanes == 4) {
      vst1q_f32(dst + k, y);
    } else {
      float buffer[4];
      vst1q_f32(buffer, y);
      memcpy(dst + k, buffer, lanes * sizeof(float));
    }
  }
}

const etr_resample_kernels_t etr_resample_kernels_neon = {
    .gather_row = gather_row_neon,
    .duplicate_row = duplicate_row_neon,
    .bilinear_row = bilinear_row_neon,
    .bilinear_pixel = bilinear_pixel_neon,
};
