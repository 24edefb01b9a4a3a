// SPDX-License-Identifier: Apache-2.0
//
// aten::upsample_bilinear2d.vec_out: bilinear resize of a [N, C, H, W]
// input to [N, C, OH, OW] (output size and scale rules in
// support/nn_upsample.h), with ATen's area_pixel_compute_scale and
// area_pixel_compute_source_index along each dim:
//
//   scale = align_corners ? (H - 1) / (OH - 1)   (0 when OH == 1)
//         : scale factor given and > 0 ? 1 / factor : H / OH
//   src   = align_corners ? scale * o : max(scale * (o + 0.5) - 0.5, 0)
//   i0 = min(floor(src), H - 1), i1 = i0 + (i0 < H - 1), l1 = src - i0
//   (clamped to [0, 1]), l0 = 1 - l1;  OH == H copies (l1 = 0)
//
// and out = l0h (l0w x00 + l1w x01) + l1h (l0w x10 + l1w x11).
//
// Floating dtypes: scale and src are computed in ATen's op-math (float
// for Half, BFloat16 and Float, double for Double; support/nn_util.h),
// the blend in double, rounded once. (PyTorch stores the lambdas of a
// contiguous Half/BFloat16 input in that type, a relative error of up to
// 2^-9 in the weights, inside their tolerance.)
//
// Byte: ATen's separable uint8 kernel (the AVX2 kernel for C <= 4 and the
// generic one otherwise agree): each dim resized on its own, W first then
// H, through a uint8 intermediate, with int16 fixed-point weights:
// per dim, the window of output o is center = scale * (o + 0.5 - d)
// (d = 0.5 with align_corners, else 0; scale computed in double),
// xmin = max(int(center - 0.5 + d), 0), xsize = min(int(center + 1.5 +
// d), H) - xmin (at most 2), weights w_j = max(0, 1 - |j + xmin - center +
// 0.5 - d|) normalized to sum 1; they become int16 round(w * 2^p) with
// the largest p (< 22) keeping round(w_max * 2^(p+1)) below 2^15, and
// each pass computes clamp((2^(p-1) + sum w16_j x_j) >> p, 0, 255). A dim
// whose output size equals its input size is not resampled. Every output
// element is computed directly (the <= 2 intermediate values it needs are
// recomputed), so no scratch is used. (PyTorch 2.13's generic kernel, used
// for a contiguous input with more than 4 channels, has a bug when the
// output width is 1 and the height changes: every output row repeats row
// 0. This kernel gives what the AVX2 and channels-last paths give there.)
//
// Arguments: (input, output_size?, align_corners, scale_factors?, out,
// return slot). Dtypes: Byte, Half, BFloat16, Float, Double (PyTorch's
// CPU set; NotSupported otherwise); out has input's dtype
// (InvalidArgument). Any layout.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_upsample.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

// --- floating dtypes --------------------------------------------------------

typedef struct linear_tap {
  int64_t i0;
  int64_t i1;
  double l0;
  double l1;
} linear_tap_t;

static linear_tap_t linear_tap(const etr_nn_upsample_t *up, int s,
                               bool align_corners, bool single, int64_t o) {
  int64_t in = up->in[s];
  int64_t out = up->out[s];
  linear_tap_t tap = {o, o, 1.0, 0.0};
  if (out == in) {
    return tap;
  }
  double scale = 0.0;
  if (align_corners) {
    scale = out > 1 ? etr_nn_opmath(single, etr_nn_opmath(single, in - 1) /
                                                etr_nn_opmath(single, out - 1))
                    : 0.0;
  } else if (up->has_scale && up->scale[s] > 0.0) {
    scale = etr_nn_opmath(single, 1.0 / up->scale[s]);
  } else {
    scale = etr_nn_opmath(single, etr_nn_opmath(single, in) /
                                      etr_nn_opmath(single, out));
  }
  double src = 0.0;
  if (align_corners) {
    src = etr_nn_opmath(single, scale * etr_nn_opmath(single, o));
  } else {
    double shifted = etr_nn_opmath(single, etr_nn_opmath(single, o) + 0.5);
    src = etr_nn_opmath(single, etr_nn_opmath(single, scale * shifted) - 0.5);
    src = src < 0.0 ? 0.0 : src;
  }
  int64_t floor_src = (int64_t)floor(src);  // src in [0, in): no overflow
  tap.i0 = floor_src < in - 1 ? floor_src : in - 1;
  double l1 = etr_nn_opmath(single, src - (double)tap.i0);
  tap.l1 = l1 < 0.0 ? 0.0 : l1 > 1.0 ? 1.0 : l1;
  tap.l0 = 1.0 - tap.l1;
  tap.i1 = tap.i0 + (tap.i0 < in - 1 ? 1 : 0);
  return tap;
}

static double load(const etr_tensor_t *in, int64_t base, int64_t h,
                   int64_t w) {
  return etr_load_double(
      in->dtype,
      etr_element_at(in, base + h * in->strides[2] + w * in->strides[3]));
}

// --- Byte: ATen's separable fixed-point kernel -----------------------------

typedef struct byte_axis {
  double scale;
  double delta;  // align_corners_delta
  int64_t in;
  int64_t out;
  unsigned precision;
} byte_axis_t;

// The window and normalized weights of output o along an axis.
static int64_t byte_window(const byte_axis_t *a, int64_t o, double *weights,
                           int64_t *xmin) {
  double center = a->scale * ((double)o + 0.5 - a->delta);
  int64_t first = (int64_t)(center - 1.0 + 0.5 + a->delta);
  first = first > 0 ? first : 0;
  int64_t last = (int64_t)(center + 1.0 + 0.5 + a->delta);
  last = last < a->in ? last : a->in;
  int64_t size = last - first;
  size = size < 0 ? 0 : size > 2 ? 2 : size;
  double total = 0.0;
  for (int64_t j = 0; j < size; ++j) {
    double x = (double)(j + first) - center + 0.5 - a->delta;
    double w = x < 0.0 ? (x > -1.0 ? 1.0 + x : 0.0) : (x < 1.0 ? 1.0 - x : 0.0);
    weights[j] = w;
    total += w;
  }
  if (total != 0.0) {
    for (int64_t j = 0; j < size; ++j) {
      weights[j] /= total;
    }
  }
  *xmin = first;
  return size;
}

static void byte_axis_init(byte_axis_t *a, const etr_nn_upsample_t *up, int s,
                           bool align_corners) {
  a->in = up->in[s];
  a->out = up->out[s];
  a->delta = align_corners ? 0.5 : 0.0;
  if (align_corners) {
    a->scale = a->out > 1 ? (double)(a->in - 1) / (double)(a->out - 1) : 0.0;
  } else if (up->has_scale && up->scale[s] > 0.0) {
    a->scale = 1.0 / up->scale[s];
  } else {
    a->scale = (double)a->in / (double)a->out;
  }
  double max_weight = 0.0;
  for (int64_t o = 0; a->out != a->in && o < a->out; ++o) {
    double weights[2];
    int64_t xmin = 0;
    int64_t size = byte_window(a, o, weights, &xmin);
    for (int64_t j = 0; j < size; ++j) {
      max_weight = weights[j] > max_weight ? weights[j] : max_weight;
    }
  }
  unsigned precision = 0;
  for (; precision < 22; ++precision) {
    int next = (int)(0.5 + max_weight * (double)(1 << (precision + 1)));
    if (next >= (1 << 15)) {
      break;
    }
  }
  a->precision = precision;
}

static int64_t byte_read_input(const etr_tensor_t *in, int64_t base,
                               int64_t h, int64_t w) {
  return etr_load_int64(
      in->dtype,
      etr_element_at(in, base + h * in->strides[2] + w * in->strides[3]));
}

// One pass along an axis: output o from `read(context, j)` = the value at
// input index j of that axis.
static int64_t byte_pass(const byte_axis_t *a, int64_t o,
                         int64_t (*read)(const void *, int64_t),
                         const void *context) {
  if (a->out == a->in) {
    return read(context, o);
  }
  double weights[2];
  int64_t xmin = 0;
  int64_t size = byte_window(a, o, weights, &xmin);
  int32_t acc = (int32_t)1 << (a->precision - 1);
  for (int64_t j = 0; j < size; ++j) {
    double v = weights[j] * (double)(1 << a->precision);
    int16_t w16 = (int16_t)(v < 0.0 ? v - 0.5 : v + 0.5);
    acc += (int32_t)read(context, xmin + j) * w16;
  }
  acc >>= a->precision;
  return acc < 0 ? 0 : acc > 255 ? 255 : acc;
}

typedef struct row_context {
  const etr_tensor_t *in;
  int64_t base;
  int64_t h;
} row_context_t;

static int64_t read_row(const void *context, int64_t w) {
  const row_context_t *c = context;
  return byte_read_input(c->in, c->base, c->h, w);
}

typedef struct column_context {
  const etr_tensor_t *in;
  int64_t base;
  const byte_axis_t *width;
  int64_t ow;
} column_context_t;

// Intermediate (horizontally resized) value at input row h, output col ow.
static int64_t read_column(const void *context, int64_t h) {
  const column_context_t *c = context;
  row_context_t row = {c->in, c->base, h};
  return byte_pass(c->width, c->ow, read_row, &row);
}

// aten::upsample_bilinear2d.vec_out
etr_error_t etr_ref_upsample_bilinear2d_vec_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *out = NULL;
  bool align_corners = false;
  etr_nn_upsample_t up;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "align_corners",
                       &align_corners));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "input", input->dtype,
                          ETR_DTYPES_FLOATING | ETR_DTYPE_BIT(ETR_BYTE)));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, input->dtype));
  int64_t sizes[4];
  ETR_TRY(etr_nn_upsample_prepare(ctx, args, num_args, 1, 3, input, &up,
                                  sizes));
  ETR_TRY(etr_resize_out(ctx, out, 4, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  bool is_byte = input->dtype == ETR_BYTE;
  bool single = input->dtype != ETR_DOUBLE;
  byte_axis_t height;
  byte_axis_t width;
  if (is_byte) {
    byte_axis_init(&height, &up, 0, align_corners);
    byte_axis_init(&width, &up, 1, align_corners);
  }
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const int64_t *index = iter.index;
    int64_t base = index[0] * input->strides[0] + index[1] * input->strides[1];
    void *target = etr_element_at(out, iter.offsets[0]);
    if (is_byte) {
      column_context_t column = {input, base, &width, index[3]};
      etr_store_int64(ETR_BYTE, target,
                      byte_pass(&height, index[2], read_column, &column));
      continue;
    }
    linear_tap_t th = linear_tap(&up, 0, align_corners, single, index[2]);
    linear_tap_t tw = linear_tap(&up, 1, align_corners, single, index[3]);
    double value =
        th.l0 * (tw.l0 * load(input, base, th.i0, tw.i0) +
                 tw.l1 * load(input, base, th.i0, tw.i1)) +
        th.l1 * (tw.l0 * load(input, base, th.i1, tw.i0) +
                 tw.l1 * load(input, base, th.i1, tw.i1));
    etr_store_double(out->dtype, target, value);
  }
  return ETR_OK;
}
