// SPDX-License-Identifier: Apache-2.0
//
// aten::grid_sampler_2d.out (torch.nn.functional.grid_sample on 4-D
// input): out[n, c, h, w] samples input[n, c] at the normalized location
// grid[n, h, w] = (x, y) in [-1, 1] (x along W, y along H).
//
// Locations are unnormalized to pixel coordinates as ATen's vectorized CPU
// kernel does: align_corners maps -1 and 1 to the centers of the corner
// pixels, (x + 1) * ((W - 1) / 2); otherwise to the outer edges,
// (x + 1) * (W / 2) - 0.5. Padding modes (1 border, 2 reflection) then
// clip the coordinate to [0, W - 1] (NaN clips to 0), reflection first
// folding it over the borders (align_corners: 0 and W - 1; otherwise -0.5
// and W - 0.5); 0 (zeros) keeps it and reads 0 outside the image.
// Interpolation modes:
//   0 bilinear  the four neighbours floor(x) .. floor(x) + 1, weighted by
//               distance; a neighbour outside the image reads 0 (its
//               weight still multiplies it, so a NaN or infinite location
//               gives NaN, as in PyTorch);
//   1 nearest   the pixel at round-half-to-even of (x, y), 0 outside;
//   2 bicubic   the 4x4 neighbours of floor(x), floor(y) with the cubic
//               convolution weights of A = -0.75 on the unpadded
//               coordinate; each neighbour's position is padded on its own
//               (clipped, reflected, or 0 outside for zeros).
// Coordinates are computed in the op-math type ATen uses (float for Half,
// BFloat16 and Float inputs, double for Double), rounding after every
// operation (support/nn_util.h), so nearest and floor choices match
// PyTorch bit for bit; the weighted sums are computed in double and
// rounded once. (PyTorch's Half/BFloat16 kernel rounds every intermediate
// to the 16-bit type; results agree within the Half/BFloat16 tolerance.)
//
// Arguments: (input, grid, interpolation_mode, padding_mode,
// align_corners, out, return slot). InvalidArgument unless input is 4-D
// [N, C, H, W] with H, W > 0 (N and C may be 0), grid is [N, H_out, W_out,
// 2] with input's N, the modes are 0..2 (PyTorch returns uninitialized
// memory for other values), and grid and out have input's dtype.
//
// Dtypes: Half, BFloat16, Float, Double (NotSupported otherwise).
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/shape.h"

enum { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum { kZeros = 0, kBorder = 1, kReflection = 2 };

// One spatial axis: ATen's ComputeLocation for a size, padding mode and
// align_corners, in float (single) or double op-math.
typedef struct axis {
  int64_t size;
  int padding;
  bool align_corners;
  bool single;
} axis_t;

static double op(const axis_t *a, double x) {
  return etr_nn_opmath(a->single, x);
}

static double unnormalize(const axis_t *a, double coord) {
  double size = (double)a->size;
  if (a->align_corners) {
    return op(a, op(a, coord + 1.0) * op(a, op(a, size - 1.0) / 2.0));
  }
  return op(a, op(a, op(a, coord + 1.0) * op(a, size / 2.0)) - 0.5);
}

// Clamp to [0, size - 1] with NaN going to 0.
static double clip(const axis_t *a, double x) {
  double max_value = op(a, (double)(a->size - 1));
  if (!(x > 0.0)) {
    return 0.0;  // also NaN
  }
  return x < max_value ? x : max_value;
}

static double reflect(const axis_t *a, double x) {
  double low = a->align_corners ? 0.0 : -0.5;
  double twice_span = a->align_corners ? op(a, (double)(a->size - 1) * 2.0)
                                       : op(a, (double)a->size * 2.0);
  if (a->align_corners && a->size <= 1) {
    return 0.0;
  }
  double magnitude = fabs(op(a, x - low));
  double flips = trunc(op(a, magnitude / twice_span));
  double extra = op(a, magnitude - op(a, flips * twice_span));
  double folded = op(a, twice_span - extra);
  // minimum() of ATen's vectors propagates NaN.
  double reflected = isnan(extra) || isnan(folded) ? NAN
                     : extra < folded             ? extra
                                                  : folded;
  return op(a, reflected + low);
}

// compute_coordinates: the padding applied to an unnormalized coordinate.
static double pad_coordinate(const axis_t *a, double x) {
  if (a->padding == kBorder) {
    return clip(a, x);
  }
  if (a->padding == kReflection) {
    return clip(a, reflect(a, x));
  }
  return x;
}

// The integer pixel index of a (floored or rounded) coordinate, or -1 when
// it lies outside the image (NaN and infinities included).
static int64_t pixel(const axis_t *a, double x) {
  if (!(x >= 0.0 && x < (double)a->size)) {
    return -1;
  }
  return (int64_t)x;
}

typedef struct sampler {
  const etr_tensor_t *input;
  axis_t axes[2];  // W (x), H (y)
  int mode;
} sampler_t;

static double value_at(const sampler_t *s, int64_t base, int64_t px,
                       int64_t py) {
  if (px < 0 || py < 0) {
    return 0.0;
  }
  const etr_tensor_t *in = s->input;
  return etr_load_double(in->dtype,
                         etr_element_at(in, base + py * in->strides[2] +
                                                px * in->strides[3]));
}

static void cubic_coefficients(double t, double *c) {
  const double a = -0.75;
  double x = t + 1.0;
  c[0] = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
  x = t;
  c[1] = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  x = 1.0 - t;
  c[2] = ((a + 2.0) * x - (a + 3.0)) * x * x + 1.0;
  x = 2.0 - t;
  c[3] = ((a * x - 5.0 * a) * x + 8.0 * a) * x - 4.0 * a;
}

static double sample(const sampler_t *s, int64_t base, double gx, double gy) {
  const axis_t *ax = &s->axes[0];
  const axis_t *ay = &s->axes[1];
  if (s->mode == kBicubic) {
    double x = unnormalize(ax, gx);
    double y = unnormalize(ay, gy);
    double fx = floor(x);
    double fy = floor(y);
    double cx[4];
    double cy[4];
    cubic_coefficients(op(ax, x - fx), cx);
    cubic_coefficients(op(ay, y - fy), cy);
    double sum = 0.0;
    for (int j = 0; j < 4; ++j) {
      int64_t py = pixel(ay, pad_coordinate(ay, op(ay, fy + (j - 1))));
      double row = 0.0;
      for (int i = 0; i < 4; ++i) {
        int64_t px = pixel(ax, pad_coordinate(ax, op(ax, fx + (i - 1))));
        row += cx[i] * value_at(s, base, px, py);
      }
      sum += cy[j] * row;
    }
    return sum;
  }
  double x = pad_coordinate(ax, unnormalize(ax, gx));
  double y = pad_coordinate(ay, unnormalize(ay, gy));
  if (s->mode == kNearest) {
    return value_at(s, base, pixel(ax, nearbyint(x)), pixel(ay, nearbyint(y)));
  }
  double west = floor(x);
  double north = floor(y);
  double w = op(ax, x - west);
  double e = op(ax, 1.0 - w);
  double n = op(ay, y - north);
  double south = op(ay, 1.0 - n);
  int64_t pw = pixel(ax, west);
  int64_t pe = pixel(ax, west + 1.0);
  int64_t pn = pixel(ay, north);
  int64_t ps = pixel(ay, north + 1.0);
  return value_at(s, base, pw, pn) * (south * e) +
         value_at(s, base, pe, pn) * (south * w) +
         value_at(s, base, pw, ps) * (n * e) +
         value_at(s, base, pe, ps) * (n * w);
}

// aten::grid_sampler_2d.out
etr_error_t etr_ref_grid_sampler_2d_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *grid = NULL;
  etr_tensor_t *out = NULL;
  int64_t mode = 0;
  int64_t padding = 0;
  bool align_corners = false;
  ETR_TRY(etr_check_num_args(ctx, num_args, 7));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "grid", &grid));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "interpolation_mode", &mode));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "padding_mode", &padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "align_corners",
                       &align_corners));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "input", input->dtype, ETR_DTYPES_FLOATING));
  ETR_TRY(etr_check_dtype_equal(ctx, "grid", grid->dtype, input->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, input->dtype));
  ETR_CHECK(ctx->diag, mode >= 0 && mode <= 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: interpolation_mode must be 0, 1 or 2, got %lld",
            etr_op_name(ctx), (long long)mode);
  ETR_CHECK(ctx->diag, padding >= 0 && padding <= 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: padding_mode must be 0, 1 or 2, got %lld", etr_op_name(ctx),
            (long long)padding);
  ETR_CHECK(ctx->diag,
            input->dim == 4 && grid->dim == 4 &&
                grid->sizes[0] == input->sizes[0] && grid->sizes[3] == 2,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a 4-D input and a [N, H_out, W_out, 2] grid of the "
            "same batch size",
            etr_op_name(ctx));
  ETR_CHECK(ctx->diag, input->sizes[2] > 0 && input->sizes[3] > 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected input to have non-empty spatial dimensions",
            etr_op_name(ctx));
  int64_t sizes[4] = {input->sizes[0], input->sizes[1], grid->sizes[1],
                      grid->sizes[2]};
  ETR_TRY(etr_resize_out(ctx, out, 4, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  bool single = input->dtype != ETR_DOUBLE;
  sampler_t s = {.input = input, .mode = (int)mode};
  s.axes[0] = (axis_t){input->sizes[3], (int)padding, align_corners, single};
  s.axes[1] = (axis_t){input->sizes[2], (int)padding, align_corners, single};
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const int64_t *index = iter.index;
    int64_t cell = index[0] * grid->strides[0] + index[2] * grid->strides[1] +
                   index[3] * grid->strides[2];
    double gx = etr_load_double(grid->dtype, etr_element_at(grid, cell));
    double gy = etr_load_double(
        grid->dtype, etr_element_at(grid, cell + grid->strides[3]));
    int64_t base = index[0] * input->strides[0] + index[1] * input->strides[1];
    etr_store_double(out->dtype, etr_element_at(out, iter.offsets[0]),
                     sample(&s, base, gx, gy));
  }
  return ETR_OK;
}
