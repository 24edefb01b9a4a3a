// SPDX-License-Identifier: Apache-2.0
//
// Drivers of the optimized 2-D pooling kernels (see pool.h). NCHW: per
// plane and output row, the outputs whose windows lie inside the input go
// to the row microkernels, the others (padding, ceil_mode overhang) are
// computed here one window at a time with the reference's rules, unless
// the ISA's planes kernel (a max without indices, an average) takes every
// window of the planes at once. NHWC:
// per output pixel, the valid window pixels in row-major order go to the
// pixel microkernels. Half and BFloat16 are staged through fp32 in
// ctx->temp (exact both ways for a max; an average is rounded once more,
// as ATen's float accumulation for those dtypes is): chunks of NCHW planes
// or whole NHWC images, converted in, pooled by the Float path, converted
// out.
#include <math.h>
#include <string.h>

#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

enum { kMaxWindow = 256 };  // window pixels handled on the stack (NHWC)

typedef struct geometry {
  size_t batch;
  size_t channels;
  int64_t height;
  int64_t width;
  int64_t out_height;
  int64_t out_width;
  bool channels_last;
} geometry_t;

// Input and outs must be dense and laid out alike (contiguous 3-D/4-D or
// channels-last 4-D), the input and first out Float, Half or BFloat16 of
// one dtype; sizes must keep plane indices in int32.
static bool geometry_of(const etr_tensor_t *self, etr_tensor_t *const *outs,
                        size_t num_outs, geometry_t *g) {
  if (!etr_reduce_is_f32_like(self->dtype) ||
      outs[0]->dtype != self->dtype || (self->dim != 3 && self->dim != 4) ||
      etr_numel(self) == 0 || !etr_tensor_is_dense(self)) {
    return false;
  }
  bool contiguous = etr_dim_order_is_contiguous(self->dim_order, self->dim);
  bool channels_last =
      self->dim == 4 && etr_dim_order_is_channels_last(self->dim_order, 4);
  if (!contiguous && !channels_last) {
    return false;
  }
  for (size_t i = 0; i < num_outs; ++i) {
    etr_tensor_t *out = outs[i];
    if (out == NULL) {
      continue;
    }
    if (out->dim != self->dim || !etr_tensor_is_dense(out) ||
        memcmp(out->dim_order, self->dim_order, (size_t)self->dim) != 0 ||
        etr_numel(out) == 0) {
      return false;
    }
  }
  int32_t d = self->dim;
  g->batch = d == 4 ? (size_t)self->sizes[0] : 1;
  g->channels = (size_t)self->sizes[d - 3];
  g->height = self->sizes[d - 2];
  g->width = self->sizes[d - 1];
  g->out_height = outs[0]->sizes[d - 2];
  g->out_width = outs[0]->sizes[d - 1];
  g->channels_last = channels_last && !contiguous;
  return g->height * g->width < INT32_MAX;
}

// ATen's window of output (oh, ow): [h_start, h_end) x [w_start, w_end)
// clipped to the input, and the avg_pool2d divisor.
typedef struct window_bounds {
  int64_t h_start, h_end, w_start, w_end;
  int64_t divisor;
} window_bounds_t;

static window_bounds_t avg_bounds(const etr_pool_params_t *p,
                                  const geometry_t *g, int64_t oh,
                                  int64_t ow) {
  window_bounds_t b;
  b.h_start = oh * p->stride[0] - p->padding[0];
  b.w_start = ow * p->stride[1] - p->padding[1];
  b.h_end = b.h_start + p->kernel[0];
  b.w_end = b.w_start + p->kernel[1];
  int64_t h_pad_end = g->height + p->padding[0];
  int64_t w_pad_end = g->width + p->padding[1];
  b.h_end = b.h_end < h_pad_end ? b.h_end : h_pad_end;
  b.w_end = b.w_end < w_pad_end ? b.w_end : w_pad_end;
  int64_t padded = (b.h_end - b.h_start) * (b.w_end - b.w_start);
  b.h_start = b.h_start > 0 ? b.h_start : 0;
  b.w_start = b.w_start > 0 ? b.w_start : 0;
  b.h_end = b.h_end < g->height ? b.h_end : g->height;
  b.w_end = b.w_end < g->width ? b.w_end : g->width;
  b.divisor = p->has_divisor        ? p->divisor
              : p->count_include_pad ? padded
                                     : (b.h_end - b.h_start) *
                                           (b.w_end - b.w_start);
  return b;
}

// The in-bounds taps of the max window of output (oh, ow), as the
// reference walks them: rows first[0] + i * dilation (i < taps[0]), columns
// likewise.
static void max_taps(const etr_pool_params_t *p, const geometry_t *g,
                     int64_t oh, int64_t ow, int64_t *first,
                     int64_t *taps) {
  if (p->dilation[0] == 1 && p->dilation[1] == 1) {
    // etr_nn_max_window's answer without its divisions by the dilation
    // (the left border column of ResNet's 3x3 pool on 112x112 spent a
    // quarter of the op's time here, four idivs an output).
    const int64_t o[2] = {oh, ow};
    const int64_t in[2] = {g->height, g->width};
    for (int s = 0; s < 2; ++s) {
      const int64_t start = o[s] * p->stride[s] - p->padding[s];
      const int64_t stop = start + p->kernel[s];
      const int64_t limit = stop < in[s] ? stop : in[s];
      first[s] = start < 0 ? 0 : start;
      taps[s] = first[s] < limit ? limit - first[s] : 0;
    }
    return;
  }
  etr_nn_pool_t pool = {.spatial = 2};
  for (int s = 0; s < 2; ++s) {
    pool.kernel[s] = p->kernel[s];
    pool.stride[s] = p->stride[s];
    pool.padding[s] = p->padding[s];
    pool.dilation[s] = p->dilation[s];
  }
  etr_nn_max_window(&pool, 0, oh, g->height, &first[0], &taps[0]);
  etr_nn_max_window(&pool, 1, ow, g->width, &first[1], &taps[1]);
}

// The index ATen reports for a window that misses the input: its first
// tap at or after 0 in each dim (int64 arithmetic, wrapping).
static int64_t empty_window_index(const geometry_t *g, const int64_t *first) {
  return (int64_t)((uint64_t)first[0] * (uint64_t)g->width +
                   (uint64_t)first[1]);
}

// The reference's max window, one output (any window position).
static void max_one(const float *plane, const geometry_t *g,
                    const etr_pool_params_t *p, int64_t oh, int64_t ow,
                    float *out, int64_t *index) {
  int64_t first[2];
  int64_t taps[2];
  max_taps(p, g, oh, ow, first, taps);
  float best = -INFINITY;
  int64_t best_index = empty_window_index(g, first);
  bool found = false;
  for (int64_t i = 0; i < taps[0]; ++i) {
    int64_t h = first[0] + i * p->dilation[0];
    for (int64_t j = 0; j < taps[1]; ++j) {
      int64_t w = first[1] + j * p->dilation[1];
      float v = plane[h * g->width + w];
      if (!found || v > best || isnan(v)) {
        best = v;
        best_index = h * g->width + w;
        found = true;
      }
    }
  }
  *out = best;
  if (index != NULL) {
    *index = best_index;
  }
}

// The reference's average, one output (any window position; element
// stride `channels` for NHWC), summed in double and rounded once.
static void avg_one(const float *image, size_t channels, const geometry_t *g,
                    const etr_pool_params_t *p, int64_t oh, int64_t ow,
                    float *out) {
  window_bounds_t b = avg_bounds(p, g, oh, ow);
  if (b.h_start >= b.h_end || b.w_start >= b.w_end) {
    *out = 0.0f;
    return;
  }
  double sum = 0.0;
  for (int64_t h = b.h_start; h < b.h_end; ++h) {
    for (int64_t w = b.w_start; w < b.w_end; ++w) {
      sum += (double)image[(size_t)(h * g->width + w) * channels];
    }
  }
  *out = (float)(sum / (double)b.divisor);
}

// An fp32 window sum overflowed (a double one may not): the NCHW
// average's non-finite outputs again, in double.
static void redo_not_finite(const float *in, const geometry_t *g,
                            const etr_pool_params_t *p, float *out) {
  size_t plane_size = (size_t)(g->height * g->width);
  size_t out_plane = (size_t)(g->out_height * g->out_width);
  for (size_t plane = 0; plane < g->batch * g->channels; ++plane) {
    for (int64_t oh = 0; oh < g->out_height; ++oh) {
      for (int64_t ow = 0; ow < g->out_width; ++ow) {
        float *y = out + plane * out_plane + (size_t)(oh * g->out_width + ow);
        if (!isfinite(*y)) {
          avg_one(in + plane * plane_size, 1, g, p, oh, ow, y);
        }
      }
    }
  }
}

// Outputs [lo, hi) of a row whose windows are inside the input along
// columns (rows checked by the caller).
static void interior_columns(const etr_pool_params_t *p, const geometry_t *g,
                             int64_t *lo, int64_t *hi) {
  int64_t span = (p->kernel[1] - 1) * p->dilation[1];
  *lo = (p->padding[1] + p->stride[1] - 1) / p->stride[1];
  int64_t last = g->width - 1 - span + p->padding[1];
  *hi = last < 0 ? 0 : last / p->stride[1] + 1;
  *hi = *hi < g->out_width ? *hi : g->out_width;
  *lo = *lo < *hi ? *lo : *hi;
}

// 2x2 windows at stride 2 with every window inside the input: the whole
// tensor in one call of the planes kernel, when the table has one. False
// when not taken.
static bool pool_nchw_2x2s2(const etr_pool_kernels_t *k, const float *in,
                            const geometry_t *g, const etr_pool_params_t *p,
                            bool is_max, float *out, int64_t *indices) {
  bool taken = k->max_planes_2x2s2 != NULL && k->avg_planes_2x2s2 != NULL &&
               p->kernel[0] == 2 && p->kernel[1] == 2 && p->stride[0] == 2 &&
               p->stride[1] == 2 && p->padding[0] == 0 &&
               p->padding[1] == 0 && p->dilation[0] == 1 &&
               p->dilation[1] == 1 && 2 * g->out_height <= g->height &&
               2 * g->out_width <= g->width;
  if (!taken) {
    return false;
  }
  size_t planes = g->batch * g->channels;
  if (is_max) {
    k->max_planes_2x2s2(in, planes, (size_t)g->height, (size_t)g->width,
                        (size_t)g->out_height, (size_t)g->out_width, out,
                        indices);
    return true;
  }
  float divisor = (float)(p->has_divisor ? p->divisor : 4);
  if (!k->avg_planes_2x2s2(in, planes, (size_t)g->height, (size_t)g->width,
                           (size_t)g->out_height, (size_t)g->out_width,
                           divisor, out)) {
    redo_not_finite(in, g, p, out);
  }
  return true;
}

// The window rows inside the input of output row oh, for its interior
// columns (`column` one of them): the first row (*h0) and how many
// (*taps, dilation apart), and for an average (divisor != NULL) the
// divisor of those columns' windows, the same for each. False when no
// window row is inside (the per-output rules handle those).
static bool clip_rows(const etr_pool_params_t *p, const geometry_t *g,
                      int64_t oh, int64_t column, int64_t *h0, size_t *taps,
                      float *divisor) {
  if (divisor == NULL) {
    int64_t first[2];
    int64_t count[2];
    max_taps(p, g, oh, column, first, count);
    *h0 = first[0];
    *taps = (size_t)(count[0] > 0 ? count[0] : 0);
    return count[0] > 0;
  }
  window_bounds_t b = avg_bounds(p, g, oh, column);
  *h0 = b.h_start;
  *taps = (size_t)(b.h_end > b.h_start ? b.h_end - b.h_start : 0);
  *divisor = (float)b.divisor;
  return b.h_end > b.h_start;
}

static void pool_nchw(const etr_pool_kernels_t *k, const float *in,
                      const geometry_t *g, const etr_pool_params_t *p,
                      bool is_max, float *out, int64_t *indices) {
  if (pool_nchw_2x2s2(k, in, g, p, is_max, out, indices)) {
    return;
  }
  // Values only: borders and interior in one vector loop, where the ISA
  // has one.
  const etr_pool_planes_t planes = {
      g->batch * g->channels, g->height,     g->width,
      g->out_height,          g->out_width,  p->kernel[0],
      p->kernel[1],           p->stride[0],  p->stride[1],
      p->padding[0],          p->padding[1], p->dilation[0],
      p->dilation[1]};
  if (is_max && indices == NULL && k->max_planes_values != NULL &&
      k->max_planes_values(in, &planes, out)) {
    return;
  }
  const etr_pool_avg_rule_t rule = {p->has_divisor, p->divisor,
                                    p->count_include_pad};
  bool finite = true;
  if (!is_max && k->avg_planes_values != NULL &&
      k->avg_planes_values(in, &planes, &rule, out, &finite)) {
    if (!finite) {
      redo_not_finite(in, g, p, out);
    }
    return;
  }
  etr_pool_window_t window = {(size_t)p->kernel[0], (size_t)p->kernel[1],
                              (size_t)p->stride[1], (size_t)p->dilation[0],
                              (size_t)p->dilation[1]};
  int64_t lo = 0;
  int64_t hi = 0;
  interior_columns(p, g, &lo, &hi);
  int64_t span_h = (p->kernel[0] - 1) * p->dilation[0];
  float interior_divisor =
      (float)(p->has_divisor ? p->divisor : p->kernel[0] * p->kernel[1]);
  size_t plane_size = (size_t)(g->height * g->width);
  size_t out_plane = (size_t)(g->out_height * g->out_width);
  for (size_t plane = 0; plane < g->batch * g->channels; ++plane) {
    const float *x = in + plane * plane_size;
    for (int64_t oh = 0; oh < g->out_height; ++oh) {
      size_t row = plane * out_plane + (size_t)(oh * g->out_width);
      int64_t h0 = oh * p->stride[0] - p->padding[0];
      bool rows_inside = h0 >= 0 && h0 + span_h < g->height;
      // A row whose windows reach into the padding or past the ceil_mode
      // edge still runs its interior columns through the row kernel, on
      // the window rows inside the input (padding never wins a max and
      // adds nothing to a sum; the average keeps its divisor).
      etr_pool_window_t row_window = window;
      float row_divisor = interior_divisor;
      bool clipped_rows = !rows_inside && lo < hi &&
                          clip_rows(p, g, oh, lo, &h0, &row_window.kernel_h,
                                    is_max ? NULL : &row_divisor);
      int64_t first = rows_inside || clipped_rows ? lo : g->out_width;
      int64_t last = rows_inside || clipped_rows ? hi : g->out_width;
      for (int64_t ow = 0; ow < g->out_width; ++ow) {
        if (ow == first && last > first) {
          size_t w0 = (size_t)(first * p->stride[1] - p->padding[1]);
          if (is_max) {
            k->max_row(x, (size_t)g->width, (size_t)h0, w0,
                       (size_t)(last - first), &row_window, out + row + first,
                       indices != NULL ? indices + row + first : NULL);
          } else {
            // An fp32 window sum that overflowed (a finite double sum
            // may not): redo the row's non-finite outputs in double. The
            // kernel reports them, so the common row is not read back
            // (scalar loads right behind masked vector stores stall).
            if (!k->avg_row(x, (size_t)g->width, (size_t)h0, w0,
                            (size_t)(last - first), &row_window,
                            row_divisor, out + row + first)) {
              for (int64_t i = first; i < last; ++i) {
                if (!isfinite(out[row + i])) {
                  avg_one(x, 1, g, p, oh, i, out + row + i);
                }
              }
            }
          }
          ow = last - 1;
          continue;
        }
        if (is_max) {
          max_one(x, g, p, oh, ow, out + row + ow,
                  indices != NULL ? indices + row + ow : NULL);
        } else {
          avg_one(x, 1, g, p, oh, ow, out + row + ow);
        }
      }
    }
  }
}

static void pool_nhwc(const etr_pool_kernels_t *k, const float *in,
                      const geometry_t *g, const etr_pool_params_t *p,
                      bool is_max, float *out, int64_t *indices) {
  size_t offsets[kMaxWindow];
  int32_t positions[kMaxWindow];
  size_t c = g->channels;
  for (size_t n = 0; n < g->batch; ++n) {
    const float *image = in + n * (size_t)(g->height * g->width) * c;
    for (int64_t oh = 0; oh < g->out_height; ++oh) {
      for (int64_t ow = 0; ow < g->out_width; ++ow) {
        size_t at = ((n * (size_t)g->out_height + (size_t)oh) *
                         (size_t)g->out_width + (size_t)ow) * c;
        size_t count = 0;
        int64_t divisor = 1;
        if (is_max) {
          int64_t first[2];
          int64_t taps[2];
          max_taps(p, g, oh, ow, first, taps);
          for (int64_t i = 0; i < taps[0]; ++i) {
            int64_t h = first[0] + i * p->dilation[0];
            for (int64_t j = 0; j < taps[1]; ++j) {
              int64_t w = first[1] + j * p->dilation[1];
              positions[count] = (int32_t)(h * g->width + w);
              offsets[count++] = (size_t)(h * g->width + w) * c;
            }
          }
          if (count == 0) {  // the window misses the input
            for (size_t i = 0; i < c; ++i) {
              out[at + i] = -INFINITY;
              if (indices != NULL) {
                indices[at + i] = empty_window_index(g, first);
              }
            }
            continue;
          }
          k->max_pixel(image, c, offsets, positions, count, out + at,
                       indices != NULL ? indices + at : NULL);
          continue;
        }
        window_bounds_t b = avg_bounds(p, g, oh, ow);
        for (int64_t h = b.h_start; h < b.h_end; ++h) {
          for (int64_t w = b.w_start; w < b.w_end; ++w) {
            offsets[count++] = (size_t)(h * g->width + w) * c;
          }
        }
        divisor = b.divisor;
        if (count == 0) {
          memset(out + at, 0, c * sizeof(float));
          continue;
        }
        k->avg_pixel(image, c, offsets, count, (float)divisor, out + at);
        for (size_t i = 0; i < c; ++i) {
          if (!isfinite(out[at + i])) {  // fp32 overflow: redo in double
            avg_one(image + i, c, g, p, oh, ow, out + at + i);
          }
        }
      }
    }
  }
}

// The Float path of a 2-D pool (max_pool2d or avg_pool2d).
static bool pool_run(const etr_tensor_t *self, const etr_pool_params_t *p,
                     bool is_max, etr_tensor_t *out, etr_tensor_t *indices) {
  etr_tensor_t *outs[2] = {out, indices};
  geometry_t g;
  if (self->dtype != ETR_FLOAT ||
      !geometry_of(self, outs, indices != NULL ? 2 : 1, &g) ||
      p->kernel[0] * p->kernel[1] > kMaxWindow) {
    return false;
  }
  const etr_pool_kernels_t *k = etr_pool_kernels_for(etr_isa_active());
  int64_t *index_data = indices != NULL ? (int64_t *)indices->data : NULL;
  if (g.channels_last) {
    pool_nhwc(k, (const float *)self->data, &g, p, is_max,
              (float *)out->data, index_data);
  } else {
    pool_nchw(k, (const float *)self->data, &g, p, is_max,
              (float *)out->data, index_data);
  }
  return true;
}

bool etr_pool_is_2x2s2(const etr_pool_params_t *p) {
  return p->kernel[0] == 2 && p->kernel[1] == 2 && p->stride[0] == 2 &&
         p->stride[1] == 2 && p->padding[0] == 0 && p->padding[1] == 0;
}

bool etr_pool_halves(const etr_tensor_t *self, const etr_tensor_t *t) {
  int32_t d = self->dim;
  if ((d != 3 && d != 4) || t->dim != d || self->sizes[d - 3] < 1 ||
      self->sizes[d - 2] < 2 || self->sizes[d - 1] < 2) {
    return false;
  }
  for (int32_t i = 0; i < d; ++i) {
    if (t->sizes[i] != (i < d - 2 ? self->sizes[i] : self->sizes[i] / 2)) {
      return false;
    }
  }
  return true;
}

// The Float path of _adaptive_avg_pool2d.
static bool adaptive_run(const etr_tensor_t *self, int64_t out_h,
                         int64_t out_w, etr_tensor_t *out) {
  etr_tensor_t *outs[1] = {out};
  geometry_t g;
  if (self->dtype != ETR_FLOAT || !geometry_of(self, outs, 1, &g) ||
      out_h <= 0 || out_w <= 0 || g.height % out_h != 0 ||
      g.width % out_w != 0) {
    return false;
  }
  if (out_h == 1 && out_w == 1) {
    // Global average: a mean over H, W (rows for NCHW, columns for NHWC),
    // summed in double like the reference.
    const etr_reduce_kernels_t *r = etr_reduce_kernels_for(etr_isa_active());
    size_t hw = (size_t)(g.height * g.width);
    const float *x = (const float *)self->data;
    float *y = (float *)out->data;
    double sums[256];
    size_t planes = g.channels_last ? g.channels : g.batch * g.channels;
    size_t images = g.channels_last ? g.batch : 1;
    for (size_t n = 0; n < images; ++n) {
      for (size_t first = 0; first < planes; first += 256) {
        size_t count = planes - first < 256 ? planes - first : 256;
        if (g.channels_last) {
          r->sum_cols(hw, count, g.channels, x + n * hw * g.channels + first,
                      sums);
        } else {
          r->sum_rows(count, hw, x + first * hw, sums);
        }
        for (size_t i = 0; i < count; ++i) {
          y[n * planes + first + i] = (float)(sums[i] / (double)hw);
        }
      }
    }
    return true;
  }
  // Output cells tile the input exactly: an average pool with kernel =
  // stride = the cell size, no padding, every divisor the cell size.
  etr_pool_params_t p = {
      .kernel = {g.height / out_h, g.width / out_w},
      .stride = {g.height / out_h, g.width / out_w},
      .padding = {0, 0},
      .dilation = {1, 1},
      .count_include_pad = true,
  };
  return pool_run(self, &p, false, out, NULL);
}

// ---------------------------------------------------------------------------
// Half and BFloat16: staged through fp32.

typedef enum pool_kind { POOL_MAX, POOL_AVG, POOL_ADAPTIVE } pool_kind_t;

typedef struct pool_job {
  pool_kind_t kind;
  const etr_pool_params_t *p;  // POOL_MAX, POOL_AVG
  int64_t out_h, out_w;        // POOL_ADAPTIVE
} pool_job_t;

// `count` units (NCHW planes or NHWC images) of `t`'s geometry as a 4-D
// tensor of `dtype` at `data`: [1, count, h, w] contiguous, or [count, c,
// h, w] channels-last.
static etr_tensor_t unit_view(const etr_tensor_t *t, const geometry_t *g,
                              size_t count, etr_scalar_type_t dtype,
                              void *data) {
  etr_tensor_t v = *t;
  int32_t d = t->dim;
  v.dtype = dtype;
  v.dim = 4;
  v.sizes[0] = g->channels_last ? (int64_t)count : 1;
  v.sizes[1] = g->channels_last ? (int64_t)g->channels : (int64_t)count;
  v.sizes[2] = t->sizes[d - 2];
  v.sizes[3] = t->sizes[d - 1];
  static const uint8_t kNchw[4] = {0, 1, 2, 3};
  static const uint8_t kNhwc[4] = {0, 2, 3, 1};
  memcpy(v.dim_order, g->channels_last ? kNhwc : kNchw, 4);
  etr_strides_from_dim_order(v.sizes, v.dim_order, 4, v.strides);
  v.data = data;
  v.capacity_bytes =
      (size_t)etr_tensor_numel(&v) * etr_scalar_type_size(dtype);
  return v;
}

static bool run_f32(const pool_job_t *job, const etr_tensor_t *self,
                    etr_tensor_t *out, etr_tensor_t *indices) {
  switch (job->kind) {
    case POOL_MAX: return pool_run(self, job->p, true, out, indices);
    case POOL_AVG: return pool_run(self, job->p, false, out, NULL);
    default: return adaptive_run(self, job->out_h, job->out_w, out);
  }
}

typedef struct staged_pool {
  const pool_job_t *job;
  const etr_tensor_t *self;
  etr_tensor_t *out;
  etr_tensor_t *indices;
  const geometry_t *g;
} staged_pool_t;

// One chunk of a staged pool (etr_stage_fn_t): the Float path on its fp32
// units, the indices written in place (positions within a plane, the same
// in a chunk). The Float path decides on the geometry alone, the same for
// every chunk, so it refuses at the first one or never.
static bool pool_chunk(void *state, size_t first, size_t count,
                       const float *x, float *y) {
  const staged_pool_t *st = (const staged_pool_t *)state;
  // The input view is only read.
  etr_tensor_t xs = unit_view(st->self, st->g, count, ETR_FLOAT, (void *)x);
  etr_tensor_t ys = unit_view(st->out, st->g, count, ETR_FLOAT, y);
  if (st->indices == NULL) {
    return run_f32(st->job, &xs, &ys, NULL);
  }
  size_t out_unit = (size_t)etr_tensor_numel(&ys) / count;
  etr_tensor_t is = unit_view(st->indices, st->g, count, ETR_LONG,
                              (int64_t *)st->indices->data + first * out_unit);
  return run_f32(st->job, &xs, &ys, &is);
}

// A Half or BFloat16 pool: chunks of units (NCHW planes or NHWC images)
// staged through fp32 (etr_stage_through_f32). False, with nothing
// written, without room in `temp` or for a case the Float path does not
// take.
static bool run_staged(etr_arena_t *temp, const pool_job_t *job,
                       const etr_tensor_t *self, etr_tensor_t *out,
                       etr_tensor_t *indices) {
  etr_tensor_t *outs[2] = {out, indices};
  geometry_t g;
  if (!geometry_of(self, outs, indices != NULL ? 2 : 1, &g)) {
    return false;
  }
  size_t units = g.channels_last ? g.batch : g.batch * g.channels;
  staged_pool_t state = {job, self, out, indices, &g};
  return etr_stage_through_f32(
      temp, self->dtype, units, (size_t)etr_tensor_numel(self) / units,
      (size_t)etr_tensor_numel(out) / units, self->data, out->data,
      pool_chunk, &state);
}

bool etr_max_pool2d_run(etr_arena_t *temp, const etr_tensor_t *self,
                        const etr_pool_params_t *p, etr_tensor_t *out,
                        etr_tensor_t *indices) {
  if (indices != NULL && indices->dtype != ETR_LONG) {
    return false;
  }
  const pool_job_t job = {POOL_MAX, p, 0, 0};
  return self->dtype == ETR_FLOAT ? pool_run(self, p, true, out, indices)
                                  : run_staged(temp, &job, self, out, indices);
}

bool etr_avg_pool2d_run(etr_arena_t *temp, const etr_tensor_t *self,
                        const etr_pool_params_t *p, etr_tensor_t *out) {
  const pool_job_t job = {POOL_AVG, p, 0, 0};
  return self->dtype == ETR_FLOAT ? pool_run(self, p, false, out, NULL)
                                  : run_staged(temp, &job, self, out, NULL);
}

bool etr_adaptive_avg_pool2d_run(etr_arena_t *temp, const etr_tensor_t *self,
                                 int64_t out_h, int64_t out_w,
                                 etr_tensor_t *out) {
  const pool_job_t job = {POOL_ADAPTIVE, NULL, out_h, out_w};
  return self->dtype == ETR_FLOAT ? adaptive_run(self, out_h, out_w, out)
                                  : run_staged(temp, &job, self, out, NULL);
}
