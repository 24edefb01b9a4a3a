// SPDX-License-Identifier: Apache-2.0
//
// 2-D pooling microkernels (fp32, one table per ISA) and the drivers of
// the optimized max_pool2d_with_indices, avg_pool2d and
// _adaptive_avg_pool2d kernels.
//
// Contiguous (NCHW) inputs are vectorized across output columns: a row
// segment whose windows lie entirely inside the input (no padding, no
// ceil_mode overhang) runs `max_row`/`avg_row` (column stride 1 and 2
// vectorized, others in a scalar loop); the border outputs around it run
// the reference's per-window rules in portable C (pool_driver.c). A max
// pool without indices (the fused one) runs `max_planes_values` instead
// where the ISA has it: borders included, taps outside the input as -inf;
// an average, `avg_planes_values` (taps outside as +0.0).
// Channels-last (NHWC) inputs are vectorized across channels: each output
// pixel reduces the valid window pixels (clipped windows need no special
// case) with `max_pixel`/`avg_pixel`.
//
// Numerics: max is exact with ATen's cpu_max_pool rules (padding never
// wins; walking the window in row-major order a value replaces the current
// one when it is greater or NaN, so ties keep the first position and the
// last NaN wins; the index is h * W + w in the input plane; a dilated
// window that misses the input gives -inf and the index of its first tap
// at or after 0, as the reference). Averages sum
// the window in fp32 in row-major order and divide once by the divisor
// (ATen's: the override, or the padded or the valid window size): exact
// whenever the sums are (integer data), otherwise within gamma_{kh*kw}
// of the reference's double sum. Tails are masked: nothing past a row
// segment or a channel vector is touched.
#ifndef ETR_OPS_OPTIMIZED_POOL_POOL_H
#define ETR_OPS_OPTIMIZED_POOL_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"
#include "ops_reference/support/nn_pool.h"

// A pooling window: kernel size, column stride and dilations.
typedef struct etr_pool_window {
  size_t kernel_h;
  size_t kernel_w;
  size_t stride_w;
  size_t dilation_h;
  size_t dilation_w;
} etr_pool_window_t;

// `planes` contiguous height x width planes pooled into out_height x
// out_width ones: output (oh, ow)'s window covers rows oh * stride_h -
// pad_h + i * dilation_h and columns ow * stride_w - pad_w + j *
// dilation_w, those outside the plane skipped.
typedef struct etr_pool_planes {
  size_t planes;
  int64_t height, width, out_height, out_width;
  int64_t kernel_h, kernel_w;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
  int64_t dilation_h, dilation_w;
} etr_pool_planes_t;

// What an average over etr_pool_planes_t's windows divides by (ATen's
// avg_pool2d divisor): `divisor` when has_divisor, else the window's rows
// times its columns inside the padded plane (count_include_pad; the
// ceil_mode overhang past height + pad_h or width + pad_w not counted) or
// inside the plane.
typedef struct etr_pool_avg_rule {
  bool has_divisor;
  int64_t divisor;
  bool count_include_pad;
} etr_pool_avg_rule_t;

// avg_pool3d's 2x2x2 stride-2 windows over `volumes` contiguous
// depth x height x width volumes into out_depth x out_height x out_width
// ones, every window inside (2 out_size <= size in each dim): the
// reference's value, its eight taps summed in double from +0.0 in
// row-major order, times `inverse` when that is not 0
// (etr_reduce_exact_inverse of the divisor) else divided by `divisor`,
// rounded to float.
typedef struct etr_pool_volumes {
  size_t volumes;
  size_t depth, height, width;
  size_t out_depth, out_height, out_width;
  double divisor;
  double inverse;
} etr_pool_volumes_t;

// _adaptive_avg_pool3d when each dim's input size is a multiple of its
// output size, so that every window has the same extent (`kernel`, each
// in / out) and output o's window starts at its index times the extent:
// `outputs` windows (volumes x out_depth x out_height x out_width, in
// that row-major order) over contiguous depth x height x width volumes.
// Each output is its window's floats summed in double from +0.0 in
// row-major order (depth, row, column), divided by the window's size and
// rounded to float: the reference's value, bit for bit.
typedef struct etr_pool_uniform {
  size_t outputs;
  size_t depth, height, width;
  size_t out_depth, out_height, out_width;
  size_t kernel_depth, kernel_height, kernel_width;
} etr_pool_uniform_t;

typedef struct etr_pool_kernels {
  // `count` outputs of one row of an NCHW plane (row width `width`): the
  // window of output k covers rows h0 + i * dilation_h and columns
  // w0 + k * stride_w + j * dilation_w, all inside the plane.
  // indices may be NULL.
  void (*max_row)(const float *plane, size_t width, size_t h0, size_t w0,
                  size_t count, const etr_pool_window_t *window, float *out,
                  int64_t *indices);
  // Same window (dilation 1), the fp32 sum divided by `divisor`; returns
  // whether every output is finite (the driver redoes the others in
  // double: an fp32 sum may overflow where the reference's does not).
  bool (*avg_row)(const float *plane, size_t width, size_t h0, size_t w0,
                  size_t count, const etr_pool_window_t *window,
                  float divisor, float *out);
  // One NHWC output pixel from the `count` window pixels at element
  // offsets[k] of `in` (row-major window order), plane positions
  // positions[k] for the indices (may be NULL).
  void (*max_pixel)(const float *in, size_t channels, const size_t *offsets,
                    const int32_t *positions, size_t count, float *out,
                    int64_t *indices);
  void (*avg_pixel)(const float *in, size_t channels, const size_t *offsets,
                    size_t count, float divisor, float *out);
  // 2x2 windows at stride 2 over `planes` contiguous height x width
  // planes into out_height x out_width ones, every window inside the input
  // (no padding, 2 out_height <= height, 2 out_width <= width); indices
  // may be NULL. The average returns whether every output is finite. NULL
  // in a table without them (the driver runs the row kernels).
  void (*max_planes_2x2s2)(const float *in, size_t planes, size_t height,
                           size_t width, size_t out_height, size_t out_width,
                           float *out, int64_t *indices);
  bool (*avg_planes_2x2s2)(const float *in, size_t planes, size_t height,
                           size_t width, size_t out_height, size_t out_width,
                           float divisor, float *out);
  // The max values of every window, without indices, borders included:
  // the taps outside the plane read as -inf, which never wins and leaves
  // -inf for a window that misses the plane, as the reference. False,
  // with nothing written, for a geometry it does not take (column strides
  // other than 1 and 2, rows of more than 1024 outputs, windows of more
  // than 16 columns). NULL in a table without it.
  bool (*max_planes_values)(const float *in, const etr_pool_planes_t *g,
                            float *out);
  // The averages of every window, borders included (dilation 1): each
  // window's taps inside the plane summed in fp32 in row-major order from
  // +0.0 (avg_row's sum of them) and divided once by `rule`'s divisor;
  // *finite tells whether every output is (the driver redoes the others
  // in double). False, with nothing written, for a geometry it does not
  // take (column strides other than 1 and 2, rows of more than 1024
  // outputs, windows of more than 16 columns, or one with no tap inside
  // the plane). NULL in a table without it.
  bool (*avg_planes_values)(const float *in, const etr_pool_planes_t *g,
                            const etr_pool_avg_rule_t *rule, float *out,
                            bool *finite);
  // etr_pool_volumes_t's windows (pool3d_<isa>.c; NULL: the 3-D driver
  // walks them).
  void (*avg_volumes_2x2x2s2)(const float *in, const etr_pool_volumes_t *v,
                              float *out);
  // max_pool2d backward's adds: target[index[i]] += grad[i] for i from
  // `first`, in order, in fp32, while the index is below `bound` (compared
  // unsigned: -1 stops it too); returns the first i it did not add
  // (`count` when it added them all). When two neighbours' indices are
  // equal (overlapping windows that found one maximum: a fifth of a 3x3
  // stride-2 pool's), the x86 tables add the second to the first's sum in
  // a register: a load of an element the store before it wrote waits on
  // that store. The scalar and NEON tables take etr_pool_add_at_scalar,
  // the plain loop.
  int64_t (*add_at)(float *target, const int64_t *index, const float *grad,
                    int64_t first, int64_t count, int64_t bound);
  // etr_pool_uniform_t's windows (pool3d_<isa>.c; NULL: the 3-D driver
  // walks them). The input has fewer than 2^31 elements.
  void (*adaptive_uniform)(const float *in, const etr_pool_uniform_t *u,
                           float *out);
} etr_pool_kernels_t;

extern const etr_pool_kernels_t etr_pool_kernels_scalar;
extern const etr_pool_kernels_t etr_pool_kernels_avx2;
extern const etr_pool_kernels_t etr_pool_kernels_avx512;
extern const etr_pool_kernels_t etr_pool_kernels_neon;

// The table for `isa` (scalar when that ISA is not built in).
const etr_pool_kernels_t *etr_pool_kernels_for(etr_isa_t isa);

int64_t etr_pool_add_at_scalar(float *target, const int64_t *index,
                                const float *grad, int64_t first,
                                int64_t count, int64_t bound);
int64_t etr_pool_add_at_avx2(float *target, const int64_t *index,
                             const float *grad, int64_t first,
                             int64_t count, int64_t bound);

// The portable row kernels (the SIMD files call them for strides > 2).
void etr_pool_max_row_scalar(const float *plane, size_t width, size_t h0,
                             size_t w0, size_t count,
                             const etr_pool_window_t *window, float *out,
                             int64_t *indices);
bool etr_pool_avg_row_scalar(const float *plane, size_t width, size_t h0,
                             size_t w0, size_t count,
                             const etr_pool_window_t *window, float divisor,
                             float *out);

// 2x2 windows at column stride 2 (dilation 1), the most common pool: the
// row kernels above send them to these (pool2x2_<isa>.c), which load each
// input row once and split even and odd columns. Same contract as
// max_row / avg_row.
static inline bool etr_pool_window_is_2x2s2(const etr_pool_window_t *w) {
  return w->kernel_h == 2 && w->kernel_w == 2 && w->stride_w == 2 &&
         w->dilation_h == 1 && w->dilation_w == 1;
}
void etr_pool_max_row_2x2s2_neon(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float *out, int64_t *indices);
bool etr_pool_avg_row_2x2s2_neon(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float divisor, float *out);
void etr_pool_max_row_2x2s2_avx2(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float *out, int64_t *indices);
bool etr_pool_avg_row_2x2s2_avx2(const float *plane, size_t width,
                                 size_t h0, size_t w0, size_t count,
                                 float divisor, float *out);
void etr_pool_max_planes_2x2s2_avx2(const float *in, size_t planes,
                                    size_t height, size_t width,
                                    size_t out_height, size_t out_width,
                                    float *out, int64_t *indices);
bool etr_pool_avg_planes_2x2s2_avx2(const float *in, size_t planes,
                                    size_t height, size_t width,
                                    size_t out_height, size_t out_width,
                                    float divisor, float *out);
void etr_pool_max_row_2x2s2_avx512(const float *plane, size_t width,
                                   size_t h0, size_t w0, size_t count,
                                   float *out, int64_t *indices);
bool etr_pool_avg_row_2x2s2_avx512(const float *plane, size_t width,
                                   size_t h0, size_t w0, size_t count,
                                   float divisor, float *out);
void etr_pool_max_planes_2x2s2_avx512(const float *in, size_t planes,
                                      size_t height, size_t width,
                                      size_t out_height, size_t out_width,
                                      float *out, int64_t *indices);
bool etr_pool_max_planes_values_avx512(const float *in,
                                       const etr_pool_planes_t *g,
                                       float *out);
bool etr_pool_avg_planes_values_avx512(const float *in,
                                       const etr_pool_planes_t *g,
                                       const etr_pool_avg_rule_t *rule,
                                       float *out, bool *finite);
bool etr_pool_avg_planes_2x2s2_avx512(const float *in, size_t planes,
                                      size_t height, size_t width,
                                      size_t out_height, size_t out_width,
                                      float divisor, float *out);
void etr_pool_avg_volumes_2x2x2s2_avx512(const float *in,
                                         const etr_pool_volumes_t *v,
                                         float *out);
void etr_pool_avg_volumes_2x2x2s2_avx2(const float *in,
                                       const etr_pool_volumes_t *v,
                                       float *out);
void etr_pool_adaptive_uniform_avx512(const float *in,
                                      const etr_pool_uniform_t *u,
                                      float *out);

// ---------------------------------------------------------------------------
// Drivers: compute an already checked call (the reference's dry run
// validated the arguments and resized the outs); false, with nothing
// written, for a case they do not handle (the caller falls back). Float,
// Half or BFloat16 input and out of one dtype (the latter two staged
// through fp32 in `temp`, ctx->temp: false without room there for one
// plane, or one image for NHWC); NCHW (3-D or 4-D contiguous) or 4-D
// channels-last, outs laid out like the input.

typedef struct etr_pool_params {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  bool ceil_mode;
  // avg_pool2d only
  bool count_include_pad;
  bool has_divisor;
  int64_t divisor;
} etr_pool_params_t;

// Whether `p` is the CNNs' 2x2 window with stride 2, no padding (kernel,
// stride and padding only), and `self` (3-D or 4-D, at least 1 x 2 x 2 in
// its last three dims) pooled by it in floor mode has the shape `t` has:
// the case where the pooling kernels skip the reference's dry run, whose
// checks all pass there and whose resize changes nothing.
bool etr_pool_is_2x2s2(const etr_pool_params_t *p);
bool etr_pool_halves(const etr_tensor_t *self, const etr_tensor_t *t);

// `indices` NULL: the values only (a caller whose indices nobody reads,
// fuse/fuse.c, through etr_pool_max2d_values_only).
bool etr_max_pool2d_run(etr_arena_t *temp, const etr_tensor_t *self,
                        const etr_pool_params_t *p, etr_tensor_t *out,
                        etr_tensor_t *indices);
// aten::max_pool2d_with_indices.out that does not write its indices where
// the optimized kernel runs (op_max_pool2d_with_indices.c): bound by
// fuse/fuse.c to calls whose indices nothing reads.
etr_error_t etr_pool_max2d_values_only(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args);

bool etr_avg_pool2d_run(etr_arena_t *temp, const etr_tensor_t *self,
                        const etr_pool_params_t *p, etr_tensor_t *out);
// Global (1x1) and evenly dividing output sizes.
bool etr_adaptive_avg_pool2d_run(etr_arena_t *temp, const etr_tensor_t *self,
                                 int64_t out_h, int64_t out_w,
                                 etr_tensor_t *out);

// 1-D pooling (pool/pool1d.c): contiguous [N, C, L] or [C, L] tensors
// seen as [.., 1, L] and run by the 2-D drivers above, as ATen
// does; same numerics, same cases taken (adaptive: L divisible by the
// output size).
bool etr_avg_pool1d_run(etr_arena_t *temp, const etr_tensor_t *self,
                        int64_t kernel, int64_t stride, int64_t padding,
                        bool ceil_mode,
                        bool count_include_pad, etr_tensor_t *out);
bool etr_adaptive_avg_pool1d_run(etr_arena_t *temp, const etr_tensor_t *self,
                                 int64_t output_size, etr_tensor_t *out);

// 3-D pooling (pool/pool3d.c): contiguous Float [N, C, D, H, W] or
// [C, D, H, W] input and outs (indices Long), a checked call; per-dim
// windows cached (up to 1024 outputs per dim), windows walked on fp32 data
// in the reference's order: bit-exact. False, with nothing written, for
// other dtypes, layouts and sizes.
bool etr_avg_pool3d_run(const etr_tensor_t *self, const etr_nn_pool_t *pool,
                        bool count_include_pad, bool has_divisor,
                        int64_t divisor, etr_tensor_t *out);
bool etr_max_pool3d_run(const etr_tensor_t *self, const etr_nn_pool_t *pool,
                        etr_tensor_t *out, etr_tensor_t *indices);
bool etr_adaptive_avg_pool3d_run(const etr_tensor_t *self,
                                 etr_tensor_t *out);

#endif  // ETR_OPS_OPTIMIZED_POOL_POOL_H
