// SPDX-License-Identifier: Apache-2.0
//
// Softmax and normalization microkernels, NEON (aarch64 Advanced SIMD): 4
// lanes; tails go through a 4-float stack buffer (copied in and out), so
// nothing past n or a column block is read or written. exp is Cephes'
// expf polynomial after reducing by n ln 2 (ln 2 split in two), scaled by
// 2^n built in the exponent field (n in [-126, 127] after clamping);
// FMIN/FMAX propagate NaN, and inputs below ln(2^-126) give 0. Semantics in
// norm.h.
#include <arm_neon.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/norm/norm.h"

#define ALWAYS_INLINE static inline __attribute__((always_inline))

// The first `count` (<= 4) floats at p, zeros after them.
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

// Lanes [0, count) all ones.
ALWAYS_INLINE uint32x4_t lanes_below(size_t count) {
  static const uint32_t kIota[4] = {0, 1, 2, 3};
  return vcltq_u32(vld1q_u32(kIota), vdupq_n_u32((uint32_t)count));
}

ALWAYS_INLINE float32x4_t exp4(float32x4_t x) {
  const float32x4_t low = vdupq_n_f32(-87.3365402f);  // ln(2^-126)
  uint32x4_t underflow = vcltq_f32(x, low);
  x = vminq_f32(x, vdupq_n_f32(88.3762626f));
  x = vmaxq_f32(x, low);
  float32x4_t n = vrndnq_f32(vmulq_n_f32(x, 1.44269504088896341f));
  float32x4_t r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
  r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440e-4f));
  float32x4_t p = vdupq_n_f32(1.9875691500e-4f);
  p = vfmaq_f32(vdupq_n_f32(1.3981999507e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(8.3334519073e-3f), p, r);
  p = vfmaq_f32(vdupq_n_f32(4.1665795894e-2f), p, r);
  p = vfmaq_f32(vdupq_n_f32(1.6666665459e-1f), p, r);
  p = vfmaq_f32(vdupq_n_f32(5.0000001201e-1f), p, r);
  p = vfmaq_f32(vaddq_f32(r, vdupq_n_f32(1.0f)), p, vmulq_f32(r, r));
  int32x4_t exponent =
      vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23);
  float32x4_t y = vmulq_f32(p, vreinterpretq_f32_s32(exponent));
  return vreinterpretq_f32_u32(
      vbicq_u32(vreinterpretq_u32_f32(y), underflow));
}

static float max_neon(size_t n, const float *x) {
  float32x4_t m = vdupq_n_f32(x[0]);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    m = vmaxq_f32(m, vld1q_f32(x + i));  // NaN propagates
  }
  float result = vmaxvq_f32(m);
  for (; i < n; ++i) {
    result = isnan(x[i]) || isnan(result) ? NAN
                                          : (x[i] > result ? x[i] : result);
  }
  return result;
}

static float exp_sum_neon(size_t n, const float *x, float m, float *y) {
  float32x4_t mv = vdupq_n_f32(m);
  float32x4_t sum = vdupq_n_f32(0.0f);
  for (size_t i = 0; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    float32x4_t e = exp4(vsubq_f32(load_n(x + i, count), mv));
    e = vreinterpretq_f32_u32(
        vandq_u32(vreinterpretq_u32_f32(e), lanes_below(count)));
    store_n(y + i, count, e);
    sum = vaddq_f32(sum, e);
  }
  return vaddvq_f32(sum);
}

static float exp_sum_only_neon(size_t n, const float *x, float m) {
  float32x4_t mv = vdupq_n_f32(m);
  float32x4_t sum = vdupq_n_f32(0.0f);
  for (size_t i = 0; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    float32x4_t e = exp4(vsubq_f32(load_n(x + i, count), mv));
    sum = vaddq_f32(sum, vreinterpretq_f32_u32(vandq_u32(
                             vreinterpretq_u32_f32(e), lanes_below(count))));
  }
  return vaddvq_f32(sum);
}

static void scale_neon(size_t n, float *y, float s) {
  for (size_t i = 0; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    store_n(y + i, count, vmulq_n_f32(load_n(y + i, count), s));
  }
}

static void sub2_neon(size_t n, const float *x, float a, float b, float *y) {
  float32x4_t av = vdupq_n_f32(a);
  float32x4_t bv = vdupq_n_f32(b);
  for (size_t i = 0; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    float32x4_t v = load_n(x + i, count);
    store_n(y + i, count, vsubq_f32(vsubq_f32(v, av), bv));
  }
}

// One block of up to 4 columns at a time (see the AVX-512 file).
static void softmax_cols_neon(size_t r, size_t n, size_t stride,
                              const float *x, float *y, bool log) {
  for (size_t i = 0; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    float32x4_t m = load_n(x + i, count);
    for (size_t j = 1; j < r; ++j) {
      m = vmaxq_f32(m, load_n(x + j * stride + i, count));
    }
    float32x4_t sum = vdupq_n_f32(0.0f);
    for (size_t j = 0; j < r; ++j) {
      float32x4_t e = exp4(vsubq_f32(load_n(x + j * stride + i, count), m));
      if (!log) {
        store_n(y + j * stride + i, count, e);
      }
      sum = vaddq_f32(sum, e);
    }
    if (log) {
      float sums[4];
      vst1q_f32(sums, sum);
      for (int lane = 0; lane < 4; ++lane) {
        sums[lane] = logf(sums[lane]);
      }
      float32x4_t log_sum = vld1q_f32(sums);
      for (size_t j = 0; j < r; ++j) {
        float32x4_t v = load_n(x + j * stride + i, count);
        store_n(y + j * stride + i, count,
                vsubq_f32(vsubq_f32(v, m), log_sum));
      }
    } else {
      float32x4_t inverse = vdivq_f32(vdupq_n_f32(1.0f), sum);
      for (size_t j = 0; j < r; ++j) {
        float *p = y + j * stride + i;
        store_n(p, count, vmulq_f32(load_n(p, count), inverse));
      }
    }
  }
}

static void normalize_neon(size_t n, const float *x, float mean_hi,
                           float mean_lo, float scale, float shift,
                           float *y) {
  float32x4_t hi = vdupq_n_f32(mean_hi);
  float32x4_t lo = vdupq_n_f32(mean_lo);
  float32x4_t sv = vdupq_n_f32(scale);
  float32x4_t tv = vdupq_n_f32(shift);
  for (size_t i = 0; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    float32x4_t d = vsubq_f32(vsubq_f32(load_n(x + i, count), hi), lo);
    store_n(y + i, count, vfmaq_f32(tv, d, sv));
  }
}

static void normalize_affine_neon(size_t n, const float *x, float mean_hi,
                                  float mean_lo, float rstd, const float *w,
                                  const float *b, float *y) {
  float32x4_t hi = vdupq_n_f32(mean_hi);
  float32x4_t lo = vdupq_n_f32(mean_lo);
  for (size_t i = 0; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    float32x4_t d = vsubq_f32(vsubq_f32(load_n(x + i, count), hi), lo);
    float32x4_t t = vmulq_n_f32(d, rstd);
    float32x4_t wv = w != NULL ? load_n(w + i, count) : vdupq_n_f32(1.0f);
    float32x4_t bv = b != NULL ? load_n(b + i, count) : vdupq_n_f32(0.0f);
    store_n(y + i, count, vfmaq_f32(bv, t, wv));
  }
}

static void affine_neon(size_t n, const float *x, float alpha, float beta,
                        float *y) {
  float32x4_t av = vdupq_n_f32(alpha);
  float32x4_t bv = vdupq_n_f32(beta);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    vst1q_f32(y + i, vfmaq_f32(bv, vld1q_f32(x + i), av));
    vst1q_f32(y + i + 4, vfmaq_f32(bv, vld1q_f32(x + i + 4), av));
  }
  for (; i < n; i += 4) {
    size_t count = n - i < 4 ? n - i : 4;
    store_n(y + i, count, vfmaq_f32(bv, load_n(x + i, count), av));
  }
}

static void affine_channels_neon(size_t pixels, size_t c, const float *x,
                                 const float *alpha, const float *beta,
                                 float *y) {
  for (size_t p = 0; p < pixels; ++p, x += c, y += c) {
    for (size_t i = 0; i < c; i += 4) {
      size_t count = c - i < 4 ? c - i : 4;
      store_n(y + i, count,
              vfmaq_f32(load_n(beta + i, count), load_n(x + i, count),
                        load_n(alpha + i, count)));
    }
  }
}

static void affine_planes_neon(size_t c, size_t inner, const float *x,
                               const float *alpha, const float *beta,
                               float *y) {
  for (size_t k = 0; k < c; ++k) {
    affine_neon(inner, x + k * inner, alpha[k], beta[k], y + k * inner);
  }
}

const etr_norm_kernels_t etr_norm_kernels_neon = {
    .max = max_neon,
    .exp_sum = exp_sum_neon,
    .exp_sum_only = exp_sum_only_neon,
    .scale = scale_neon,
    .sub2 = sub2_neon,
    .softmax_cols = softmax_cols_neon,
    .normalize = normalize_neon,
    .normalize_affine = normalize_affine_neon,
    .affine = affine_neon,
    .affine_channels = affine_channels_neon,
    .affine_planes = affine_planes_neon,
    .bn_params = etr_norm_bn_params_scalar,
    .ln_backward_sums = etr_norm_ln_backward_sums_scalar,
    .ln_backward_dx = etr_norm_ln_backward_dx_scalar,
    .ln_backward_columns = etr_norm_ln_backward_columns_scalar,
};
