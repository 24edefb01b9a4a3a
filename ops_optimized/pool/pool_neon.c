// SPDX-License-Identifier: Apache-2.0
//
// Pooling microkernels, NEON (aarch64 Advanced SIMD): NCHW rows 4 output
// columns at a time (column stride 2 through vld2q when the 8 floats it
// reads are all inside the row segment, element by element otherwise),
// NHWC pixels 4 channels at a time; tails go through a 4-float stack
// buffer, so nothing past a row segment or a channel vector is read or
// written. Column strides above 2 use the portable row kernels. Semantics
// in pool.h.
#include <arm_neon.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

ALWAYS_INLINE float32x4_t load_n(const float *p, size_t count) {
  if (count >= 4) {
    return vld1q_f32(p);
  }
  float buffer[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  memcpy(buffer, p, count * sizeof(float));
  return vld1q_f32(buffer);
}

ALWAYS_INLINE void store_n(float *p, size_t count, float32x4_t v) {
  if (count >= 4) {
    vst1q_f32(p, v);
    return;
  }
  float buffer[4];
  vst1q_f32(buffer, v);
  memcpy(p, buffer, count * sizeof(float));
}

// p[k * stride] for the first `lanes` lanes (stride 1 or 2), others 0;
// `more` says the row segment continues past these lanes (so p[7] exists).
ALWAYS_INLINE float32x4_t load_columns(const float *p, size_t stride,
                                       size_t lanes, bool more) {
  if (stride == 1) {
    return load_n(p, lanes);
  }
  if (lanes == 4 && more) {
    return vld2q_f32(p).val[0];
  }
  float buffer[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (size_t k = 0; k < lanes; ++k) {
    buffer[k] = p[2 * k];
  }
  return vld1q_f32(buffer);
}

// ATen's rule: v > best, or v is NaN (the last NaN wins).
ALWAYS_INLINE uint32x4_t replaces(float32x4_t v, float32x4_t best) {
  return vorrq_u32(vcgtq_f32(v, best), vmvnq_u32(vceqq_f32(v, v)));
}

ALWAYS_INLINE void store_indices(int64_t *p, size_t count, uint32x4_t index) {
  int64_t buffer[4];
  vst1q_s64(buffer, vreinterpretq_s64_u64(vmovl_u32(vget_low_u32(index))));
  vst1q_s64(buffer + 2, vreinterpretq_s64_u64(vmovl_high_u32(index)));
  memcpy(p, buffer, count * sizeof(int64_t));
}

static void max_row_neon(const float *plane, size_t width, size_t h0,
                         size_t w0, size_t count,
                         const etr_pool_window_t *window, float *out,
                         int64_t *indices) {
  size_t stride = window->stride_w;
  if (etr_pool_window_is_2x2s2(window)) {
    etr_pool_max_row_2x2s2_neon(plane, width, h0, w0, count, out, indices);
    return;
  }
  if (stride > 2) {
    etr_pool_max_row_scalar(plane, width, h0, w0, count, window, out,
                            indices);
    return;
  }
  static const uint32_t kLanes[4] = {0, 1, 2, 3};
  uint32x4_t lane_offset = vmulq_n_u32(vld1q_u32(kLanes), (uint32_t)stride);
  for (size_t k = 0; k < count; k += 4) {
    size_t lanes = count - k < 4 ? count - k : 4;
    bool more = k + 4 < count;
    size_t column = w0 + k * stride;
    float32x4_t best = vdupq_n_f32(0.0f);
    uint32x4_t best_offset = vdupq_n_u32(0);
    for (size_t i = 0; i < window->kernel_h; ++i) {
      size_t row = (h0 + i * window->dilation_h) * width;
      for (size_t j = 0; j < window->kernel_w; ++j) {
        size_t offset = row + column + j * window->dilation_w;
        float32x4_t v = load_columns(plane + offset, stride, lanes, more);
        uint32x4_t m =
            (i == 0 && j == 0) ? vdupq_n_u32(~0u) : replaces(v, best);
        best = vbslq_f32(m, v, best);
        best_offset = vbslq_u32(m, vdupq_n_u32((uint32_t)offset), best_offset);
      }
    }
    store_n(out + k, lanes, best);
    if (indices != NULL) {
      store_indices(indices + k, lanes, vaddq_u32(best_offset, lane_offset));
    }
  }
}

static bool avg_row_neon(const float *plane, size_t width, size_t h0,
                         size_t w0, size_t count,
                         const etr_pool_window_t *window, float divisor,
                         float *out) {
  size_t stride = window->stride_w;
  if (etr_pool_window_is_2x2s2(window)) {
    return etr_pool_avg_row_2x2s2_neon(plane, width, h0, w0, count, divisor,
                                       out);
  }
  if (stride > 2) {
    return etr_pool_avg_row_scalar(plane, width, h0, w0, count, window,
                                   divisor, out);
  }
  float32x4_t d = vdupq_n_f32(divisor);
  // Lanes past `lanes` hold 0 / divisor, finite.
  uint32x4_t not_finite = vdupq_n_u32(0);
  const float32x4_t infinity = vdupq_n_f32(INFINITY);
  for (size_t k = 0; k < count; k += 4) {
    size_t lanes = count - k < 4 ? count - k : 4;
    bool more = k + 4 < count;
    const float *p = plane + h0 * width + w0 + k * stride;
    float32x4_t sum = vdupq_n_f32(0.0f);
    for (size_t i = 0; i < window->kernel_h; ++i, p += width) {
      for (size_t j = 0; j < window->kernel_w; ++j) {
        sum = vaddq_f32(sum, load_columns(p + j, stride, lanes, more));
      }
    }
    float32x4_t q = vdivq_f32(sum, d);
    not_finite = vorrq_u32(not_finite,
                           vmvnq_u32(vcltq_f32(vabsq_f32(q), infinity)));
    store_n(out + k, lanes, q);
  }
  return vmaxvq_u32(not_finite) == 0;
}

static void max_pixel_neon(const float *in, size_t channels,
                           const size_t *offsets, const int32_t *positions,
                           size_t count, float *out, int64_t *indices) {
  for (size_t c = 0; c < channels; c += 4) {
    size_t lanes = channels - c < 4 ? channels - c : 4;
    float32x4_t best = load_n(in + offsets[0] + c, lanes);
    uint32x4_t best_position = vdupq_n_u32((uint32_t)positions[0]);
    for (size_t k = 1; k < count; ++k) {
      float32x4_t v = load_n(in + offsets[k] + c, lanes);
      uint32x4_t m = replaces(v, best);
      best = vbslq_f32(m, v, best);
      best_position =
          vbslq_u32(m, vdupq_n_u32((uint32_t)positions[k]), best_position);
    }
    store_n(out + c, lanes, best);
    if (indices != NULL) {
      store_indices(indices + c, lanes, best_position);
    }
  }
}

static void avg_pixel_neon(const float *in, size_t channels,
                           const size_t *offsets, size_t count,
                           float divisor, float *out) {
  float32x4_t d = vdupq_n_f32(divisor);
  for (size_t c = 0; c < channels; c += 4) {
    size_t lanes = channels - c < 4 ? channels - c : 4;
    float32x4_t sum = vdupq_n_f32(0.0f);
    for (size_t k = 0; k < count; ++k) {
      sum = vaddq_f32(sum, load_n(in + offsets[k] + c, lanes));
    }
    store_n(out + c, lanes, vdivq_f32(sum, d));
  }
}

const etr_pool_kernels_t etr_pool_kernels_neon = {
    .max_row = max_row_neon,
    .avg_row = avg_row_neon,
    .max_pixel = max_pixel_neon,
    .avg_pixel = avg_pixel_neon,
    .add_at = etr_pool_add_at_scalar,
};
