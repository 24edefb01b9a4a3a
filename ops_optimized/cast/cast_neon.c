// SPDX-License-Identifier: Apache-2.0
//
// Float <-> int64 / int32 conversions, AArch64 NEON. NEON has no direct
// int64 -> float32 conversion and its float -> int conversions saturate
// (NaN to 0), unlike the reference, so each step checks its lanes: int64
// lanes within 2^53 go through double exactly (one rounding, to float),
// float lanes inside (-2^31, 2^31) or (-2^63, 2^63) truncate with FCVTZS;
// a step with any other lane, and the tails, use the portable
// conversions. Nothing past n is touched.
#include <arm_neon.h>

#include "ops_optimized/cast/cast.h"
#include "ops_reference/support/element.h"

static void i64_to_f32_neon(size_t n, const int64_t *x, float *y) {
  const uint64x2_t exact = vdupq_n_u64((uint64_t)1 << 53);
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    int64x2_t v = vld1q_s64(x + i);
    // |INT64_MIN| wraps to 2^63 as unsigned: outside, as it should be.
    uint64x2_t inside =
        vcleq_u64(vreinterpretq_u64_s64(vabsq_s64(v)), exact);
    if ((vgetq_lane_u64(inside, 0) & vgetq_lane_u64(inside, 1)) != 0) {
      vst1_f32(y + i, vcvt_f32_f64(vcvtq_f64_s64(v)));
    } else {
      y[i] = (float)x[i];
      y[i + 1] = (float)x[i + 1];
    }
  }
  for (; i < n; ++i) {
    y[i] = (float)x[i];
  }
}

static void i32_to_f32_neon(size_t n, const int32_t *x, float *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vst1q_f32(y + i, vcvtq_f32_s32(vld1q_s32(x + i)));
  }
  for (; i < n; ++i) {
    y[i] = (float)x[i];
  }
}

static void f32_to_i64_neon(size_t n, const float *x, int64_t *y) {
  const float64x2_t limit = vdupq_n_f64(9223372036854775808.0);
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    float64x2_t v = vcvt_f64_f32(vld1_f32(x + i));
    uint64x2_t inside = vcaltq_f64(v, limit);  // |v| < 2^63; NaN is not
    if ((vgetq_lane_u64(inside, 0) & vgetq_lane_u64(inside, 1)) != 0) {
      vst1q_s64(y + i, vcvtq_s64_f64(v));
    } else {
      y[i] = etr_double_to_int64((double)x[i]);
      y[i + 1] = etr_double_to_int64((double)x[i + 1]);
    }
  }
  for (; i < n; ++i) {
    y[i] = etr_double_to_int64((double)x[i]);
  }
}

static void f32_to_i32_neon(size_t n, const float *x, int32_t *y) {
  const float32x4_t limit = vdupq_n_f32(2147483648.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t v = vld1q_f32(x + i);
    uint32x4_t inside = vcaltq_f32(v, limit);
    if (vminvq_u32(inside) != 0) {
      vst1q_s32(y + i, vcvtq_s32_f32(v));
    } else {
      for (size_t j = i; j < i + 4; ++j) {
        y[j] = etr_cast_f32_to_i32_one(x[j]);
      }
    }
  }
  for (; i < n; ++i) {
    y[i] = etr_cast_f32_to_i32_one(x[i]);
  }
}

const etr_cast_kernels_t etr_cast_kernels_neon = {
    i64_to_f32_neon, i32_to_f32_neon, f32_to_i64_neon, f32_to_i32_neon};
