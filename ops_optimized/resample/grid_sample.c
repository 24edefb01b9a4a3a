// SPDX-License-Identifier: Apache-2.0
//
// grid_sampler_2d, bilinear and nearest (see resample.h): the reference
// recomputes a grid cell's location, pixel indices and weights for every
// channel; here each cell's are computed once (the reference's formulas,
// float op-math rounding after every step, so every discrete choice is
// the same) for a block of cells, then every channel is interpolated over
// the block with the cached indices and weights -- the same double
// products and sums in the same order, rounded once: bit-exact.
#include <math.h>
#include <string.h>

#include "ops_optimized/resample/resample.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

enum { kBilinear = 0, kNearest = 1 };
enum { kZeros = 0, kBorder = 1, kReflection = 2 };
enum { kBlock = 128 };  // grid cells per block (stack caches)

typedef struct axis {
  int64_t size;
  int padding;
  bool align_corners;
} axis_t;

// Float op-math: every intermediate rounded to fp32 (etr_nn_opmath).
static double op(double x) { return etr_nn_opmath(true, x); }

static double unnormalize(const axis_t *a, double coord) {
  double size = (double)a->size;
  if (a->align_corners) {
    return op(op(coord + 1.0) * op(op(size - 1.0) / 2.0));
  }
  return op(op(op(coord + 1.0) * op(size / 2.0)) - 0.5);
}

static double clip(const axis_t *a, double x) {
  double max_value = op((double)(a->size - 1));
  if (!(x > 0.0)) {
    return 0.0;
  }
  return x < max_value ? x : max_value;
}

static double reflect(const axis_t *a, double x) {
  double low = a->align_corners ? 0.0 : -0.5;
  double twice_span = a->align_corners ? op((double)(a->size - 1) * 2.0)
                                       : op((double)a->size * 2.0);
  if (a->align_corners && a->size <= 1) {
    return 0.0;
  }
  double magnitude = fabs(op(x - low));
  double flips = trunc(op(magnitude / twice_span));
  double extra = op(magnitude - op(flips * twice_span));
  double folded = op(twice_span - extra);
  double reflected = isnan(extra) || isnan(folded) ? NAN
                     : extra < folded             ? extra
                                                  : folded;
  return op(reflected + low);
}

static double pad_coordinate(const axis_t *a, double x) {
  if (a->padding == kBorder) {
    return clip(a, x);
  }
  if (a->padding == kReflection) {
    return clip(a, reflect(a, x));
  }
  return x;
}

static int64_t pixel(const axis_t *a, double x) {
  if (!(x >= 0.0 && x < (double)a->size)) {
    return -1;
  }
  return (int64_t)x;
}

// One cell's taps: plane offsets (-1: outside, reads 0) and weights.
typedef struct taps {
  int64_t at[4];
  double weight[4];
} taps_t;

static void cell_taps(const axis_t *ax, const axis_t *ay, int mode,
                      double gx, double gy, taps_t *t) {
  double x = pad_coordinate(ax, unnormalize(ax, gx));
  double y = pad_coordinate(ay, unnormalize(ay, gy));
  int64_t width = ax->size;
  if (mode == kNearest) {
    int64_t px = pixel(ax, nearbyint(x));
    int64_t py = pixel(ay, nearbyint(y));
    t->at[0] = px < 0 || py < 0 ? -1 : py * width + px;
    return;
  }
  double west = floor(x);
  double north = floor(y);
  double w = op(x - west);
  double e = op(1.0 - w);
  double n = op(y - north);
  double south = op(1.0 - n);
  int64_t pw = pixel(ax, west);
  int64_t pe = pixel(ax, west + 1.0);
  int64_t pn = pixel(ay, north);
  int64_t ps = pixel(ay, north + 1.0);
  t->at[0] = pw < 0 || pn < 0 ? -1 : pn * width + pw;
  t->at[1] = pe < 0 || pn < 0 ? -1 : pn * width + pe;
  t->at[2] = pw < 0 || ps < 0 ? -1 : ps * width + pw;
  t->at[3] = pe < 0 || ps < 0 ? -1 : ps * width + pe;
  t->weight[0] = south * e;
  t->weight[1] = south * w;
  t->weight[2] = n * e;
  t->weight[3] = n * w;
}

static inline double tap(const float *plane, int64_t at) {
  return at < 0 ? 0.0 : (double)plane[at];
}

bool etr_grid_sample_run(const etr_tensor_t *input, const etr_tensor_t *grid,
                         int64_t mode, int64_t padding, bool align_corners,
                         etr_tensor_t *out) {
  if (input->dtype != ETR_FLOAT || grid->dtype != ETR_FLOAT ||
      out->dtype != ETR_FLOAT || (mode != kBilinear && mode != kNearest) ||
      !etr_tensor_is_contiguous(input) || !etr_tensor_is_contiguous(grid) ||
      !etr_tensor_is_contiguous(out)) {
    return false;
  }
  int64_t batch = input->sizes[0];
  int64_t channels = input->sizes[1];
  axis_t ax = {input->sizes[3], (int)padding, align_corners};
  axis_t ay = {input->sizes[2], (int)padding, align_corners};
  int64_t plane = input->sizes[2] * input->sizes[3];
  int64_t cells = grid->sizes[1] * grid->sizes[2];
  const float *x = (const float *)input->data;
  const float *g = (const float *)grid->data;
  float *y = (float *)out->data;
  taps_t taps[kBlock];
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t first = 0; first < cells; first += kBlock) {
      int64_t count = cells - first < kBlock ? cells - first : kBlock;
      for (int64_t k = 0; k < count; ++k) {
        const float *cell = g + (n * cells + first + k) * 2;
        cell_taps(&ax, &ay, (int)mode, (double)cell[0], (double)cell[1],
                  &taps[k]);
      }
      for (int64_t c = 0; c < channels; ++c) {
        const float *source = x + (n * channels + c) * plane;
        float *target = y + (n * channels + c) * cells + first;
        if (mode == kNearest) {
          for (int64_t k = 0; k < count; ++k) {
            target[k] = (float)tap(source, taps[k].at[0]);
          }
          continue;
        }
        for (int64_t k = 0; k < count; ++k) {
          const taps_t *t = &taps[k];
          double value = tap(source, t->at[0]) * t->weight[0] +
                         tap(source, t->at[1]) * t->weight[1] +
                         tap(source, t->at[2]) * t->weight[2] +
                         tap(source, t->at[3]) * t->weight[3];
          target[k] = (float)value;
        }
      }
    }
  }
  return true;
}
