// SPDX-License-Identifier: Apache-2.0
//
// Reduction microkernels, NEON (aarch64 Advanced SIMD): 4 fp32 lanes, sums
// in 2-lane double accumulators, scalar tails (nothing past a row or a
// column block is touched). FMAX/FMIN propagate NaN, so the value-only
// extremum sees any NaN in its result and lets etr_reduce_extremum_fixup
// pick the first one (and the sign of a zero). Semantics in reduce.h.
#include <arm_neon.h>
#include <math.h>

#include "ops_optimized/reduce/reduce.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// --- sums in double -------------------------------------------------------

static void sum_rows_neon(size_t rows, size_t n, const float *x, double *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    float64x2_t a0 = vdupq_n_f64(0.0);
    float64x2_t a1 = a0;
    float64x2_t a2 = a0;
    float64x2_t a3 = a0;
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
      float32x4_t v0 = vld1q_f32(x + j);
      float32x4_t v1 = vld1q_f32(x + j + 4);
      a0 = vaddq_f64(a0, vcvt_f64_f32(vget_low_f32(v0)));
      a1 = vaddq_f64(a1, vcvt_high_f64_f32(v0));
      a2 = vaddq_f64(a2, vcvt_f64_f32(vget_low_f32(v1)));
      a3 = vaddq_f64(a3, vcvt_high_f64_f32(v1));
    }
    double total = vaddvq_f64(vaddq_f64(vaddq_f64(a0, a1), vaddq_f64(a2, a3)));
    for (; j < n; ++j) {
      total += (double)x[j];
    }
    y[o] = total;
  }
}

static void sum_cols_neon(size_t r, size_t n, size_t stride, const float *x,
                          double *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float64x2_t a0 = vdupq_n_f64(0.0);
    float64x2_t a1 = a0;
    const float *p = x + i;
    for (size_t j = 0; j < r; ++j, p += stride) {
      float32x4_t v = vld1q_f32(p);
      a0 = vaddq_f64(a0, vcvt_f64_f32(vget_low_f32(v)));
      a1 = vaddq_f64(a1, vcvt_high_f64_f32(v));
    }
    vst1q_f64(y + i, a0);
    vst1q_f64(y + i + 2, a1);
  }
  for (; i < n; ++i) {
    double total = 0.0;
    for (size_t j = 0; j < r; ++j) {
      total += (double)x[j * stride + i];
    }
    y[i] = total;
  }
}

ALWAYS_INLINE float64x2_t square_dev(float64x2_t acc, float64x2_t v,
                                     float64x2_t mean) {
  float64x2_t d = vsubq_f64(v, mean);
  return vfmaq_f64(acc, d, d);
}

static void sumsq_rows_neon(size_t rows, size_t n, const float *x,
                            const double *mean, double *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    float64x2_t mu = vdupq_n_f64(mean[o]);
    float64x2_t a0 = vdupq_n_f64(0.0);
    float64x2_t a1 = a0;
    size_t j = 0;
    for (; j + 4 <= n; j += 4) {
      float32x4_t v = vld1q_f32(x + j);
      a0 = square_dev(a0, vcvt_f64_f32(vget_low_f32(v)), mu);
      a1 = square_dev(a1, vcvt_high_f64_f32(v), mu);
    }
    double total = vaddvq_f64(vaddq_f64(a0, a1));
    for (; j < n; ++j) {
      double d = (double)x[j] - mean[o];
      total += d * d;
    }
    y[o] = total;
  }
}

static void sumsq_cols_neon(size_t r, size_t n, size_t stride,
                            const float *x, const double *mean, double *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float64x2_t mu0 = vld1q_f64(mean + i);
    float64x2_t mu1 = vld1q_f64(mean + i + 2);
    float64x2_t a0 = vdupq_n_f64(0.0);
    float64x2_t a1 = a0;
    const float *p = x + i;
    for (size_t j = 0; j < r; ++j, p += stride) {
      float32x4_t v = vld1q_f32(p);
      a0 = square_dev(a0, vcvt_f64_f32(vget_low_f32(v)), mu0);
      a1 = square_dev(a1, vcvt_high_f64_f32(v), mu1);
    }
    vst1q_f64(y + i, a0);
    vst1q_f64(y + i + 2, a1);
  }
  for (; i < n; ++i) {
    double total = 0.0;
    for (size_t j = 0; j < r; ++j) {
      double d = (double)x[j * stride + i] - mean[i];
      total += d * d;
    }
    y[i] = total;
  }
}

// --- max / min --------------------------------------------------------------

// Lanes where v replaces best in a sequential scan: best not NaN and v
// better or NaN (!(v <= best) holds for NaN).
ALWAYS_INLINE uint32x4_t replaces(float32x4_t v, float32x4_t best,
                                  bool is_max) {
  uint32x4_t ordered = vceqq_f32(best, best);
  uint32x4_t better = is_max ? vmvnq_u32(vcleq_f32(v, best))
                             : vmvnq_u32(vcgeq_f32(v, best));
  return vandq_u32(ordered, better);
}

ALWAYS_INLINE bool scalar_replaces(float v, float best, bool is_max) {
  return !isnan(best) && (isnan(v) || (is_max ? v > best : v < best));
}

ALWAYS_INLINE float extremum_value(size_t n, const float *x, bool is_max) {
  float32x4_t a0 = vdupq_n_f32(x[0]);
  float32x4_t a1 = a0;
  size_t j = 0;
  for (; j + 8 <= n; j += 8) {
    float32x4_t v0 = vld1q_f32(x + j);
    float32x4_t v1 = vld1q_f32(x + j + 4);
    a0 = is_max ? vmaxq_f32(a0, v0) : vminq_f32(a0, v0);
    a1 = is_max ? vmaxq_f32(a1, v1) : vminq_f32(a1, v1);
  }
  float32x4_t a = is_max ? vmaxq_f32(a0, a1) : vminq_f32(a0, a1);
  float result = is_max ? vmaxvq_f32(a) : vminvq_f32(a);  // NaN propagates
  for (; j < n; ++j) {
    float v = x[j];
    result = isnan(v) || isnan(result) ? NAN
             : is_max                  ? (v > result ? v : result)
                                       : (v < result ? v : result);
  }
  if (isnan(result) || result == 0.0f) {
    return etr_reduce_extremum_fixup(n, x, result, isnan(result));
  }
  return result;
}

// One set of 4 lanes, each keeping the first occurrence of its best from
// (x[0], 0); merged, then the tail scanned in order.
ALWAYS_INLINE void extremum_index(size_t n, const float *x, bool is_max,
                                  float *value, int64_t *index) {
  float32x4_t best = vdupq_n_f32(x[0]);
  uint32x4_t best_index = vdupq_n_u32(0);
  static const uint32_t kLanes[4] = {0, 1, 2, 3};
  uint32x4_t cur = vld1q_u32(kLanes);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    float32x4_t v = vld1q_f32(x + j);
    uint32x4_t m = replaces(v, best, is_max);
    best = vbslq_f32(m, v, best);
    best_index = vbslq_u32(m, cur, best_index);
    cur = vaddq_u32(cur, vdupq_n_u32(4));
  }
  float values[4];
  int32_t indices[4];
  vst1q_f32(values, best);
  vst1q_s32(indices, vreinterpretq_s32_u32(best_index));
  float winner;
  int64_t winner_index;
  etr_reduce_merge_candidates(4, values, indices, is_max, &winner,
                              &winner_index);
  for (; j < n; ++j) {
    if (scalar_replaces(x[j], winner, is_max)) {
      winner = x[j];
      winner_index = (int64_t)j;
    }
  }
  *value = winner;
  *index = winner_index;
}

static void extremum_rows_neon(size_t rows, size_t n, const float *x,
                               bool is_max, float *values, int64_t *indices) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    if (indices == NULL) {
      values[o] = is_max ? extremum_value(n, x, true)
                         : extremum_value(n, x, false);
      continue;
    }
    float value;
    if (is_max) {
      extremum_index(n, x, true, &value, &indices[o]);
    } else {
      extremum_index(n, x, false, &value, &indices[o]);
    }
    if (values != NULL) {
      values[o] = value;
    }
  }
}

// Columns: each lane scans its column in order; blocks of 4 columns, the
// last columns one at a time.
ALWAYS_INLINE void extremum_cols_body(size_t r, size_t n, size_t stride,
                                      const float *x, bool is_max,
                                      float *values, int64_t *indices) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float32x4_t best = vld1q_f32(x + i);
    uint32x4_t best_row = vdupq_n_u32(0);
    const float *p = x + i + stride;
    for (size_t j = 1; j < r; ++j, p += stride) {
      float32x4_t v = vld1q_f32(p);
      uint32x4_t m = replaces(v, best, is_max);
      best = vbslq_f32(m, v, best);
      best_row = vbslq_u32(m, vdupq_n_u32((uint32_t)j), best_row);
    }
    if (values != NULL) {
      vst1q_f32(values + i, best);
    }
    if (indices != NULL) {
      vst1q_s64(indices + i,
                vreinterpretq_s64_u64(vmovl_u32(vget_low_u32(best_row))));
      vst1q_s64(indices + i + 2,
                vreinterpretq_s64_u64(vmovl_high_u32(best_row)));
    }
  }
  for (; i < n; ++i) {
    float best = x[i];
    size_t best_row = 0;
    for (size_t j = 1; j < r; ++j) {
      float v = x[j * stride + i];
      if (scalar_replaces(v, best, is_max)) {
        best = v;
        best_row = j;
      }
    }
    if (values != NULL) {
      values[i] = best;
    }
    if (indices != NULL) {
      indices[i] = (int64_t)best_row;
    }
  }
}

static void extremum_cols_neon(size_t r, size_t n, size_t stride,
                               const float *x, bool is_max, float *values,
                               int64_t *indices) {
  if (is_max) {
    extremum_cols_body(r, n, stride, x, true, values, indices);
  } else {
    extremum_cols_body(r, n, stride, x, false, values, indices);
  }
}

// --- any ---------------------------------------------------------------------

static void any_rows_neon(size_t rows, size_t n, const float *x, bool *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    bool any = false;
    size_t j = 0;
    for (; j + 4 <= n && !any; j += 4) {
      // Lanes that are not +-0 (NaN included).
      uint32x4_t nonzero = vmvnq_u32(vceqzq_f32(vld1q_f32(x + j)));
      any = vmaxvq_u32(nonzero) != 0;
    }
    for (; j < n && !any; ++j) {
      any = x[j] != 0.0f;
    }
    y[o] = any;
  }
}

static void any_cols_neon(size_t r, size_t n, size_t stride, const float *x,
                          bool *y) {
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    uint32x4_t any = vdupq_n_u32(0);
    for (size_t j = 0; j < r; ++j) {
      float32x4_t v = vld1q_f32(x + j * stride + i);
      any = vorrq_u32(any, vmvnq_u32(vceqzq_f32(v)));
    }
    uint32_t lanes[4];
    vst1q_u32(lanes, any);
    for (size_t k = 0; k < 4; ++k) {
      y[i + k] = lanes[k] != 0;
    }
  }
  for (; i < n; ++i) {
    bool any = false;
    for (size_t j = 0; j < r && !any; ++j) {
      any = x[j * stride + i] != 0.0f;
    }
    y[i] = any;
  }
}

static void any_rows_u8_neon(size_t rows, size_t n, const uint8_t *x,
                             bool *y) {
  for (size_t o = 0; o < rows; ++o, x += n) {
    bool any = false;
    size_t j = 0;
    for (; j + 16 <= n && !any; j += 16) {
      any = vmaxvq_u8(vld1q_u8(x + j)) != 0;
    }
    for (; j < n && !any; ++j) {
      any = x[j] != 0;
    }
    y[o] = any;
  }
}

static void any_cols_u8_neon(size_t r, size_t n, size_t stride,
                             const uint8_t *x, bool *y) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    uint8x16_t any = vdupq_n_u8(0);
    for (size_t j = 0; j < r; ++j) {
      any = vorrq_u8(any, vld1q_u8(x + j * stride + i));
    }
    // 1 where any byte was non-zero.
    vst1q_u8((uint8_t *)(y + i), vminq_u8(any, vdupq_n_u8(1)));
  }
  for (; i < n; ++i) {
    bool any = false;
    for (size_t j = 0; j < r && !any; ++j) {
      any = x[j * stride + i] != 0;
    }
    y[i] = any;
  }
}

static inline uint32x4_t topk_enter4(float32x4_t v, float32x4_t bound,
                                     int test) {
  switch (test) {
    case ETR_TOPK_ABOVE:
      return vmvnq_u32(vcleq_f32(v, bound));
    case ETR_TOPK_BELOW:
      return vcltq_f32(v, bound);
    default:
      return vceqq_f32(v, v);
  }
}

static size_t topk_first_entering_neon(size_t first, size_t n,
                                       const float *x, float bound,
                                       bool largest) {
  const int test = etr_topk_test(bound, largest);
  if (test < 0) {
    return n;
  }
  const float32x4_t b = vdupq_n_f32(bound);
  size_t i = first;
  for (; i + 8 <= n; i += 8) {
    uint32x4_t m = vorrq_u32(topk_enter4(vld1q_f32(x + i), b, test),
                             topk_enter4(vld1q_f32(x + i + 4), b, test));
    if (vmaxvq_u32(m) != 0) {
      break;  // the scalar loop below finds the lane
    }
  }
  while (i < n && !etr_topk_enters(x[i], bound, largest)) {
    ++i;
  }
  return i;
}

// Each lane counts its non-zero elements (less the compare's all-ones is
// plus one), in blocks short enough that no lane wraps.
static size_t count_nonzero_neon(size_t n, const float *x) {
  size_t count = 0;
  size_t i = 0;
  const float32x4_t zero = vdupq_n_f32(0.0f);
  while (i + 4 <= n) {
    size_t end = n - i > ((size_t)1 << 20) ? i + ((size_t)1 << 20) : n;
    uint32x4_t acc = vdupq_n_u32(0);
    for (; i + 4 <= end; i += 4) {
      acc = vsubq_u32(acc, vmvnq_u32(vceqq_f32(vld1q_f32(x + i), zero)));
    }
    count += vaddvq_u32(acc);
  }
  return count + etr_reduce_count_nonzero_scalar(n - i, x + i);
}

const etr_reduce_kernels_t etr_reduce_kernels_neon = {
    .sum_rows = sum_rows_neon,
    .sum_cols = sum_cols_neon,
    .sumsq_rows = sumsq_rows_neon,
    .sumsq_cols = sumsq_cols_neon,
    .extremum_rows = extremum_rows_neon,
    .extremum_cols = extremum_cols_neon,
    .any_rows = any_rows_neon,
    .any_cols = any_cols_neon,
    .any_rows_u8 = any_rows_u8_neon,
    .any_cols_u8 = any_cols_u8_neon,
    .topk_first_entering = topk_first_entering_neon,
    .count_nonzero = count_nonzero_neon,
    .nonzero_positions = etr_reduce_nonzero_positions_scalar,
    .count_nonzero_u8 = etr_reduce_count_nonzero_u8_scalar,
    .nonzero_positions_u8 = etr_reduce_nonzero_positions_u8_scalar,
    .accumulate_f64 = etr_reduce_accumulate_f64_scalar,
    .round_f64 = etr_reduce_round_f64_scalar,
    .int_block = etr_reduce_int_block_scalar,
};
