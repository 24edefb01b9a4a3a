// SPDX-License-Identifier: Apache-2.0
//
// 2x2 stride-2 pooling rows, NEON: 4 outputs take the 8 input columns of
// each of the two rows with one vld2q_f32 (which splits even and odd
// columns), so each tap is one register with no reload (the general row
// kernel in pool_neon.c gathers the stride-2 columns). The last count % 4
// outputs, whose 8 columns may run past the row segment, use the portable
// row kernel. Max takes the reference's tap (greater, or NaN, replaces)
// through the same two-level tree as pool2x2_avx512.c; the average sums
// the taps in row-major order from +0.0. Semantics in pool.h.
#include <arm_neon.h>
#include <math.h>

#include "ops_optimized/pool/pool.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// ATen's rule: v > best, or v is NaN.
ALWAYS_INLINE uint32x4_t replaces(float32x4_t v, float32x4_t best) {
  return vorrq_u32(vcgtq_f32(v, best), vmvnq_u32(vceqq_f32(v, v)));
}

void etr_pool_max_row_2x2s2_neon(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float *out, int64_t *indices) {
  static const uint32_t kLanes[4] = {0, 2, 4, 6};
  const float *top = plane + h0 * width + w0;
  uint32x4_t corner = vaddq_u32(vld1q_u32(kLanes),
                                vdupq_n_u32((uint32_t)(h0 * width + w0)));
  const uint32x4_t one = vdupq_n_u32(1);
  const uint32x4_t below = vdupq_n_u32((uint32_t)width);
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    float32x4x2_t r0 = vld2q_f32(top + 2 * k);
    float32x4x2_t r1 = vld2q_f32(top + width + 2 * k);
    uint32x4_t top_right = replaces(r0.val[1], r0.val[0]);
    uint32x4_t bottom_right = replaces(r1.val[1], r1.val[0]);
    float32x4_t upper = vbslq_f32(top_right, r0.val[1], r0.val[0]);
    float32x4_t lower = vbslq_f32(bottom_right, r1.val[1], r1.val[0]);
    uint32x4_t down = replaces(lower, upper);
    uint32x4_t right = vbslq_u32(down, bottom_right, top_right);
    vst1q_f32(out + k, vbslq_f32(down, lower, upper));
    if (indices != NULL) {
      uint32x4_t index = vaddq_u32(
          corner, vaddq_u32(vandq_u32(down, below), vandq_u32(right, one)));
      vst1q_s64(indices + k,
                vreinterpretq_s64_u64(vmovl_u32(vget_low_u32(index))));
      vst1q_s64(indices + k + 2,
                vreinterpretq_s64_u64(vmovl_high_u32(index)));
    }
    corner = vaddq_u32(corner, vdupq_n_u32(8));
  }
  if (k < count) {
    const etr_pool_window_t window = {2, 2, 2, 1, 1};
    etr_pool_max_row_scalar(plane, width, h0, w0 + 2 * k, count - k,
                            &window, out + k,
                            indices != NULL ? indices + k : NULL);
  }
}

bool etr_pool_avg_row_2x2s2_neon(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float divisor, float *out) {
  const float *top = plane + h0 * width + w0;
  const float32x4_t d = vdupq_n_f32(divisor);
  const float32x4_t infinity = vdupq_n_f32(INFINITY);
  uint32x4_t not_finite = vdupq_n_u32(0);
  size_t k = 0;
  for (; k + 4 <= count; k += 4) {
    float32x4x2_t r0 = vld2q_f32(top + 2 * k);
    float32x4x2_t r1 = vld2q_f32(top + width + 2 * k);
    float32x4_t sum = vaddq_f32(vdupq_n_f32(0.0f), r0.val[0]);
    sum = vaddq_f32(sum, r0.val[1]);
    sum = vaddq_f32(sum, r1.val[0]);
    sum = vaddq_f32(sum, r1.val[1]);
    float32x4_t q = vdivq_f32(sum, d);
    not_finite = vorrq_u32(not_finite,
                           vmvnq_u32(vcltq_f32(vabsq_f32(q), infinity)));
    vst1q_f32(out + k, q);
  }
  bool finite = vmaxvq_u32(not_finite) == 0;
  if (k < count) {
    const etr_pool_window_t window = {2, 2, 2, 1, 1};
    finite &= etr_pool_avg_row_scalar(plane, width, h0, w0 + 2 * k,
                                      count - k, &window, divisor, out + k);
  }
  return finite;
}
