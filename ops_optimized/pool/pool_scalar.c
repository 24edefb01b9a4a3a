// SPDX-License-Identifier: Apache-2.0
//
// Pooling microkernels in portable C (the model for the SIMD files, which
// also call the row kernels for column strides above 2) and the per-ISA
// selection of the pool table. Semantics in pool.h.
#include <math.h>

#include "ops_optimized/pool/pool.h"

// ATen's cpu_max_pool rule: strictly greater, or NaN (so ties keep the
// first maximum and the last NaN of a window wins).
static inline bool replaces(float candidate, float best) {
  return candidate > best || isnan(candidate);
}

void etr_pool_max_row_scalar(const float *plane, size_t width, size_t h0,
                             size_t w0, size_t count,
                             const etr_pool_window_t *window, float *out,
                             int64_t *indices) {
  for (size_t k = 0; k < count; ++k) {
    size_t column = w0 + k * window->stride_w;
    float best = 0.0f;
    size_t best_index = 0;
    for (size_t i = 0; i < window->kernel_h; ++i) {
      size_t h = h0 + i * window->dilation_h;
      for (size_t j = 0; j < window->kernel_w; ++j) {
        size_t at = h * width + column + j * window->dilation_w;
        float v = plane[at];
        if ((i == 0 && j == 0) || replaces(v, best)) {
          best = v;
          best_index = at;
        }
      }
    }
    out[k] = best;
    if (indices != NULL) {
      indices[k] = (int64_t)best_index;
    }
  }
}

bool etr_pool_avg_row_scalar(const float *plane, size_t width, size_t h0,
                             size_t w0, size_t count,
                             const etr_pool_window_t *window, float divisor,
                             float *out) {
  bool finite = true;
  for (size_t k = 0; k < count; ++k) {
    size_t column = w0 + k * window->stride_w;
    float sum = 0.0f;
    for (size_t i = 0; i < window->kernel_h; ++i) {
      const float *row = plane + (h0 + i) * width + column;
      for (size_t j = 0; j < window->kernel_w; ++j) {
        sum += row[j];
      }
    }
    out[k] = sum / divisor;
    finite = finite && isfinite(out[k]);
  }
  return finite;
}

static void max_pixel_scalar(const float *in, size_t channels,
                             const size_t *offsets, const int32_t *positions,
                             size_t count, float *out, int64_t *indices) {
  for (size_t c = 0; c < channels; ++c) {
    float best = in[offsets[0] + c];
    size_t best_k = 0;
    for (size_t k = 1; k < count; ++k) {
      float v = in[offsets[k] + c];
      if (replaces(v, best)) {
        best = v;
        best_k = k;
      }
    }
    out[c] = best;
    if (indices != NULL) {
      indices[c] = positions[best_k];
    }
  }
}

static void avg_pixel_scalar(const float *in, size_t channels,
                             const size_t *offsets, size_t count,
                             float divisor, float *out) {
  for (size_t c = 0; c < channels; ++c) {
    float sum = 0.0f;
    for (size_t k = 0; k < count; ++k) {
      sum += in[offsets[k] + c];
    }
    out[c] = sum / divisor;
  }
}

int64_t etr_pool_add_at_scalar(float *target, const int64_t *index,
                                const float *grad, int64_t first,
                                int64_t count, int64_t bound) {
  int64_t i = first;
  for (; i < count; ++i) {
    uint64_t at = (uint64_t)index[i];
    if (at >= (uint64_t)bound) {
      break;
    }
    target[at] += grad[i];
  }
  return i;
}

const etr_pool_kernels_t etr_pool_kernels_scalar = {
    .max_row = etr_pool_max_row_scalar,
    .avg_row = etr_pool_avg_row_scalar,
    .max_pixel = max_pixel_scalar,
    .avg_pixel = avg_pixel_scalar,
    .add_at = etr_pool_add_at_scalar,
};

const etr_pool_kernels_t *etr_pool_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_pool_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_pool_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_pool_kernels_neon;
#endif
    default:
      return &etr_pool_kernels_scalar;
  }
}
