// SPDX-License-Identifier: Apache-2.0
//
// 3-D pooling drivers (see pool.h): avg_pool3d, max_pool3d_with_indices
// and _adaptive_avg_pool3d on contiguous Float [N, C, D, H, W] (or
// unbatched [C, D, H, W]) tensors. The per-dim windows (ATen's rules,
// support/nn_pool.h) are computed once per output coordinate and dim
// instead of once per output element, and windows are walked with plain
// pointer arithmetic on fp32 data in the reference's row-major order:
// sums in double divided once, maxima with the reference's NaN and
// first-position rules, indices d * H * W + h * W + w -- bit-exact. Max
// pooling's 2x2x2 stride-2 windows inside the input take the 2-D table's
// 2x2 stride-2 kernel on each depth slice instead (max_pool3d_2x2x2; 16
// channels of 16 x 32 x 32, AMD Zen 5: 0.87 ms -> 47 us); average
// pooling's, the table's avg_volumes_2x2x2s2 (the same double sums, eight
// or four windows a step). Adaptive pooling whose output sizes divide the
// input's (windows of one extent) takes the table's adaptive_uniform
// where it has one (AVX-512: 64 windows a step, their elements gathered;
// 16 channels of 16 x 32 x 32 into 4 x 4 x 4, Zen 5: 136 -> 77 us).
#include <math.h>
#include <stdint.h>

#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

enum { kMaxOut = 1024 };  // output positions per dim with cached windows

typedef struct geometry3d {
  int64_t planes;  // N * C
  int64_t in[3];   // D, H, W
  int64_t out[3];
} geometry3d_t;

static bool geometry_of(const etr_tensor_t *self, const etr_tensor_t *out,
                        geometry3d_t *g) {
  if (self->dtype != ETR_FLOAT || out->dtype != ETR_FLOAT ||
      (self->dim != 4 && self->dim != 5) || out->dim != self->dim ||
      !etr_tensor_is_contiguous(self) || !etr_tensor_is_contiguous(out) ||
      etr_numel(out) == 0) {
    return false;
  }
  int32_t first = self->dim - 3;
  g->planes = etr_numel(self) /
              (self->sizes[first] * self->sizes[first + 1] *
               self->sizes[first + 2]);
  for (int s = 0; s < 3; ++s) {
    g->in[s] = self->sizes[first + s];
    g->out[s] = out->sizes[first + s];
    if (g->out[s] > kMaxOut) {
      return false;
    }
  }
  return true;
}

// Window tables: for dim s and output o, [start, end) and a tap count.
typedef struct windows {
  int64_t start[3][kMaxOut];
  int64_t end[3][kMaxOut];
  int64_t padded[3][kMaxOut];
} windows_t;

// Whether every window is 2x2x2 at stride 2 and inside the input.
static bool windows_2x2x2s2(const geometry3d_t *g, const etr_nn_pool_t *pool) {
  for (int s = 0; s < 3; ++s) {
    if (pool->kernel[s] != 2 || pool->stride[s] != 2 ||
        pool->padding[s] != 0 || pool->dilation[s] != 1 ||
        2 * g->out[s] > g->in[s]) {
      return false;
    }
  }
  return true;
}

bool etr_avg_pool3d_run(const etr_tensor_t *self, const etr_nn_pool_t *pool,
                        bool count_include_pad, bool has_divisor,
                        int64_t divisor, etr_tensor_t *out) {
  geometry3d_t g;
  if (!geometry_of(self, out, &g)) {
    return false;
  }
  const etr_pool_kernels_t *k = etr_pool_kernels_for(etr_isa_active());
  if (k->avg_volumes_2x2x2s2 != NULL && windows_2x2x2s2(&g, pool) &&
      (!has_divisor || divisor != 0)) {
    // No padding: the window's padded and inside counts are both 8.
    const int64_t by = has_divisor ? divisor : 8;
    const etr_pool_volumes_t v = {
        (size_t)g.planes,     (size_t)g.in[0],  (size_t)g.in[1],
        (size_t)g.in[2],      (size_t)g.out[0], (size_t)g.out[1],
        (size_t)g.out[2],     (double)by,       etr_reduce_exact_inverse(by)};
    k->avg_volumes_2x2x2s2((const float *)self->data, &v, (float *)out->data);
    return true;
  }
  static _Thread_local windows_t w;
  for (int s = 0; s < 3; ++s) {
    for (int64_t o = 0; o < g.out[s]; ++o) {
      etr_nn_avg_window(pool, s, o, g.in[s], &w.start[s][o], &w.end[s][o],
                        &w.padded[s][o]);
    }
  }
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;
  int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  int64_t hw = g.in[1] * g.in[2];
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x + p * in_plane;
    for (int64_t od = 0; od < g.out[0]; ++od) {
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          int64_t d0 = w.start[0][od], d1 = w.end[0][od];
          int64_t h0 = w.start[1][oh], h1 = w.end[1][oh];
          int64_t w0 = w.start[2][ow], w1 = w.end[2][ow];
          float *target = y++;
          if (d0 >= d1 || h0 >= h1 || w0 >= w1) {
            *target = 0.0f;
            continue;
          }
          double sum = 0.0;
          for (int64_t d = d0; d < d1; ++d) {
            for (int64_t h = h0; h < h1; ++h) {
              const float *row = plane + d * hw + h * g.in[2];
              for (int64_t k = w0; k < w1; ++k) {
                sum += (double)row[k];
              }
            }
          }
          int64_t padded = etr_saturating_mul(
              etr_saturating_mul(w.padded[0][od], w.padded[1][oh]),
              w.padded[2][ow]);
          int64_t inside = (d1 - d0) * (h1 - h0) * (w1 - w0);
          int64_t by = has_divisor         ? divisor
                       : count_include_pad ? padded
                                           : inside;
          *target = (float)(sum / (double)by);
        }
      }
    }
  }
  return true;
}

// 2x2x2 windows at stride 2, every window inside the input: each depth
// slice of a window is the 2-D table's 2x2 stride-2 kernel (greater or
// NaN replaces, in row-major order), the second slice then replaces the
// first by that same rule -- the reference's walk over the eight taps,
// split after four. The first slice's results go straight to the outs,
// the second's to `scratch` (out_h * out_w values and indices). False
// when the table has no such kernel or the geometry differs.
static bool max_pool3d_2x2x2(const geometry3d_t *g,
                             const etr_nn_pool_t *pool, const float *x,
                             float *y, int64_t *index_out, float *scratch,
                             int64_t *scratch_index) {
  const etr_pool_kernels_t *k = etr_pool_kernels_for(etr_isa_active());
  if (!windows_2x2x2s2(g, pool) || k->max_planes_2x2s2 == NULL) {
    return false;
  }
  const int64_t hw = g->in[1] * g->in[2];
  const int64_t out_hw = g->out[1] * g->out[2];
  for (int64_t p = 0; p < g->planes; ++p) {
    const float *volume = x + p * g->in[0] * hw;
    for (int64_t od = 0; od < g->out[0]; ++od) {
      const float *slice = volume + 2 * od * hw;
      k->max_planes_2x2s2(slice, 1, (size_t)g->in[1], (size_t)g->in[2],
                          (size_t)g->out[1], (size_t)g->out[2], y,
                          index_out);
      k->max_planes_2x2s2(slice + hw, 1, (size_t)g->in[1], (size_t)g->in[2],
                          (size_t)g->out[1], (size_t)g->out[2], scratch,
                          scratch_index);
      const int64_t first = 2 * od * hw;
      for (int64_t i = 0; i < out_hw; ++i) {
        if (scratch[i] > y[i] || isnan(scratch[i])) {
          y[i] = scratch[i];
          index_out[i] = scratch_index[i] + first + hw;
        } else {
          index_out[i] += first;
        }
      }
      y += out_hw;
      index_out += out_hw;
    }
  }
  return true;
}

bool etr_max_pool3d_run(const etr_tensor_t *self, const etr_nn_pool_t *pool,
                        etr_tensor_t *out, etr_tensor_t *indices) {
  geometry3d_t g;
  if (indices->dtype != ETR_LONG || !etr_tensor_is_contiguous(indices) ||
      !geometry_of(self, out, &g)) {
    return false;
  }
  // The second slices' results: planes of up to 4096 outputs (larger ones
  // take the walk below).
  static _Thread_local float slice_values[4096];
  static _Thread_local int64_t slice_indices[4096];
  if (g.out[1] * g.out[2] <= 4096 &&
      max_pool3d_2x2x2(&g, pool, (const float *)self->data,
                       (float *)out->data, (int64_t *)indices->data,
                       slice_values, slice_indices)) {
    return true;
  }
  static _Thread_local windows_t w;  // start = first tap, end = tap count
  for (int s = 0; s < 3; ++s) {
    for (int64_t o = 0; o < g.out[s]; ++o) {
      etr_nn_max_window(pool, s, o, g.in[s], &w.start[s][o], &w.end[s][o]);
    }
  }
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;
  int64_t *index_out = (int64_t *)indices->data;
  int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  int64_t hw = g.in[1] * g.in[2];
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x + p * in_plane;
    for (int64_t od = 0; od < g.out[0]; ++od) {
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          int64_t first[3] = {w.start[0][od], w.start[1][oh], w.start[2][ow]};
          int64_t taps[3] = {w.end[0][od], w.end[1][oh], w.end[2][ow]};
          float best = -INFINITY;
          int64_t best_index = 0;
          bool found = false;
          for (int64_t td = 0; td < taps[0]; ++td) {
            int64_t d = first[0] + td * pool->dilation[0];
            for (int64_t th = 0; th < taps[1]; ++th) {
              int64_t h = first[1] + th * pool->dilation[1];
              const float *row = plane + d * hw + h * g.in[2];
              for (int64_t tw = 0; tw < taps[2]; ++tw) {
                int64_t col = first[2] + tw * pool->dilation[2];
                float value = row[col];
                if (!found || value > best || isnan(value)) {
                  best = value;
                  best_index = d * hw + h * g.in[2] + col;
                  found = true;
                }
              }
            }
          }
          if (!found) {  // a dilated window that misses the input
            best = -INFINITY;
            best_index =
                (int64_t)(((uint64_t)first[0] * (uint64_t)g.in[1] +
                           (uint64_t)first[1]) *
                              (uint64_t)g.in[2] +
                          (uint64_t)first[2]);
          }
          *y++ = best;
          *index_out++ = best_index;
        }
      }
    }
  }
  return true;
}

bool etr_adaptive_avg_pool3d_run(const etr_tensor_t *self,
                                 etr_tensor_t *out) {
  geometry3d_t g;
  if (!geometry_of(self, out, &g)) {
    return false;
  }
  static _Thread_local windows_t w;
  for (int s = 0; s < 3; ++s) {
    for (int64_t o = 0; o < g.out[s]; ++o) {
      w.start[s][o] = etr_nn_adaptive_start(o, g.out[s], g.in[s]);
      w.end[s][o] = etr_nn_adaptive_end(o, g.out[s], g.in[s]);
    }
  }
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;
  int64_t in_plane = g.in[0] * g.in[1] * g.in[2];
  int64_t hw = g.in[1] * g.in[2];
  const etr_pool_kernels_t *k = etr_pool_kernels_for(etr_isa_active());
  bool uniform = g.out[0] > 0 && g.out[1] > 0 && g.out[2] > 0;
  for (int s = 0; s < 3 && uniform; ++s) {
    uniform = g.in[s] % g.out[s] == 0;
  }
  if (k->adaptive_uniform != NULL && uniform && g.planes > 0 &&
      in_plane <= INT32_MAX / g.planes) {
    etr_pool_uniform_t u = {
        (size_t)(g.planes * g.out[0] * g.out[1] * g.out[2]),
        (size_t)g.in[0],
        (size_t)g.in[1],
        (size_t)g.in[2],
        (size_t)g.out[0],
        (size_t)g.out[1],
        (size_t)g.out[2],
        (size_t)(g.in[0] / g.out[0]),
        (size_t)(g.in[1] / g.out[1]),
        (size_t)(g.in[2] / g.out[2]),
    };
    k->adaptive_uniform(x, &u, y);
    return true;
  }
  for (int64_t p = 0; p < g.planes; ++p) {
    const float *plane = x + p * in_plane;
    for (int64_t od = 0; od < g.out[0]; ++od) {
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          int64_t d0 = w.start[0][od], d1 = w.end[0][od];
          int64_t h0 = w.start[1][oh], h1 = w.end[1][oh];
          int64_t w0 = w.start[2][ow], w1 = w.end[2][ow];
          double sum = 0.0;
          for (int64_t d = d0; d < d1; ++d) {
            for (int64_t h = h0; h < h1; ++h) {
              const float *row = plane + d * hw + h * g.in[2];
              for (int64_t k = w0; k < w1; ++k) {
                sum += (double)row[k];
              }
            }
          }
          int64_t count = (d1 - d0) * (h1 - h0) * (w1 - w0);
          *y++ = (float)(sum / (double)count);
        }
      }
    }
  }
  return true;
}
