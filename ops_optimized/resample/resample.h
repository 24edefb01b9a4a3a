// SPDX-License-Identifier: Apache-2.0
//
// 2-D resampling microkernels (fp32, one table per ISA) and the drivers of
// the optimized upsample_nearest2d.vec and upsample_bilinear2d.vec kernels.
//
// Source indices and interpolation weights are computed once per output
// row and column exactly as the reference computes them (ATen's
// nearest_idx and area_pixel_compute_source_index in float op-math,
// taps.c), so every index matches the reference's. NCHW: each output row
// gathers from one input row (nearest; exact 2x upsampling duplicates
// pairs, repeated rows are copied) or blends two input rows with per-
// column taps (bilinear). NHWC: each output pixel copies (nearest) or
// blends four input pixels across the channels (bilinear).
//
// Numerics: nearest copies values (exact). Bilinear blends in fp32 in the
// reference's order, h0 (w0 a + w1 b) + h1 (w0 c + w1 d), with FMAs: a
// convex combination within 4 ulp of max |neighbour| of the reference's
// double blend; every product is formed, so NaN and infinities (0 * inf)
// propagate as in the reference. Tails are masked or scalar: nothing past
// a row or channel vector is touched; gathers are masked.
#ifndef ETR_OPS_OPTIMIZED_RESAMPLE_RESAMPLE_H
#define ETR_OPS_OPTIMIZED_RESAMPLE_RESAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"

typedef struct etr_resample_kernels {
  // dst[k] = src[index[k]], k < count.
  void (*gather_row)(const float *src, const int32_t *index, size_t count,
                     float *dst);
  // dst[2k] = dst[2k + 1] = src[k], k < count.
  void (*duplicate_row)(const float *src, size_t count, float *dst);
  // dst[k] = h0 (l0[k] r0[i0[k]] + l1[k] r0[i1[k]])
  //        + h1 (l0[k] r1[i0[k]] + l1[k] r1[i1[k]]), k < count.
  void (*bilinear_row)(const float *r0, const float *r1, float h0, float h1,
                       const int32_t *i0, const int32_t *i1, const float *l0,
                       const float *l1, size_t count, float *dst);
  // dst[k] = h0 (w0 a[k] + w1 b[k]) + h1 (w0 c[k] + w1 d[k]), k < count.
  void (*bilinear_pixel)(const float *a, const float *b, const float *c,
                         const float *d, float h0, float h1, float w0,
                         float w1, size_t count, float *dst);
  // bilinear_row in two passes, each rounded as bilinear_row rounds it:
  // dst[j count + k] = l0[k] r_j[i0[k]] + l1[k] r_j[i1[k]] for input rows
  // r_j = src + j src_stride, j < rows (their horizontal taps), and
  // dst[k] = h0 top[k] + h1 bottom[k] (two such rows blended), so that an
  // input row's taps serve every output row that reads it. NULL in a
  // table without them (the driver runs bilinear_row).
  void (*interp_rows)(const float *src, size_t src_stride, size_t rows,
                      const int32_t *i0, const int32_t *i1, const float *l0,
                      const float *l1, size_t count, float *dst);
  void (*blend_rows)(const float *top, const float *bottom, float h0,
                     float h1, size_t count, float *dst);
} etr_resample_kernels_t;

extern const etr_resample_kernels_t etr_resample_kernels_scalar;
extern const etr_resample_kernels_t etr_resample_kernels_avx2;
extern const etr_resample_kernels_t etr_resample_kernels_avx512;
extern const etr_resample_kernels_t etr_resample_kernels_neon;

// The table for `isa` (scalar when that ISA is not built in).
const etr_resample_kernels_t *etr_resample_kernels_for(etr_isa_t isa);

// One dim's resampling: input and output sizes and the scale factor when
// one was given (scale <= 0: none).
typedef struct etr_resample_axis {
  int64_t in;
  int64_t out;
  double scale;
} etr_resample_axis_t;

// The reference's nearest source index of output o (legacy "nearest").
int64_t etr_resample_nearest_index(const etr_resample_axis_t *axis,
                                   int64_t o);

// The reference's bilinear taps of output o: indices i0 <= i1 and weights
// l0 + l1 = 1 (computed in float op-math, as the reference does for
// Float).
typedef struct etr_resample_tap {
  int64_t i0;
  int64_t i1;
  float l0;
  float l1;
} etr_resample_tap_t;
etr_resample_tap_t etr_resample_linear_tap(const etr_resample_axis_t *axis,
                                           bool align_corners, int64_t o);

// Drivers: compute an already checked call (the reference's dry run
// validated the arguments and resized out) for a dense Float, Half or
// BFloat16 input (nearest: any dtype of 1, 2, 4 or 8 bytes), contiguous
// or channels-last, into an out of its dtype laid out alike; false, with
// nothing written, otherwise (the caller falls back). Scratch: the column
// tables (4 bytes per output column for nearest, 16 for bilinear) from
// ctx->temp, or the stack up to 1024 columns; for a Half or BFloat16
// bilinear also fp32 copies of a chunk of planes (NCHW) or images (NHWC)
// in and out (reduce.h's etr_stage_through_f32; false without room there
// for one).
bool etr_upsample_nearest2d_run(etr_kernel_context_t *ctx,
                                const etr_tensor_t *input,
                                const etr_resample_axis_t *axes,
                                etr_tensor_t *out);
bool etr_upsample_bilinear2d_run(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *input,
                                 const etr_resample_axis_t *axes,
                                 bool align_corners, etr_tensor_t *out);

// grid_sampler_2d (resample/grid_sample.c): contiguous Float input
// [N, C, H, W], grid [N, H_out, W_out, 2] and out, bilinear (mode 0) or
// nearest (mode 1), any padding mode, a checked call (the reference's dry
// run validated it and resized out). Each grid cell's pixel indices and
// weights are computed once with the reference's float op-math and reused
// for every channel; bit-exact. False, with nothing written, for bicubic
// and other dtypes or layouts.
bool etr_grid_sample_run(const etr_tensor_t *input, const etr_tensor_t *grid,
                         int64_t mode, int64_t padding, bool align_corners,
                         etr_tensor_t *out);

#endif  // ETR_OPS_OPTIMIZED_RESAMPLE_RESAMPLE_H
