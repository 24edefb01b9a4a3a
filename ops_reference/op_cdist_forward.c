// SPDX-License-Identifier: Apache-2.0
//
// aten::_cdist_forward.out: out[..., i, j] = the p-norm distance between
// row i of x1 [..., R1, C] and row j of x2 [..., R2, C]; the batch dims
// (all but the last two) broadcast, so out is [broadcast batch, R1, R2].
//
// Distances (as ATen's cdist, measured on PyTorch 2.13), with d the
// differences of one pair of rows:
//   p = 0    the number of non-zero d (a NaN d makes it NaN);
//   p = 1    sum |d|;        p = 2    sqrt(sum d^2);
//   p = inf  max |d|, where NaN differences are ignored (ATen's scalar
//            std::max), 0 when every one is NaN;
//   other p  (sum |d|^p)^(1/p).
// C = 0 gives 0. Computed in double and rounded once to the dtype.
// compute_mode (None, 0, 1 or 2) only chooses, in PyTorch, whether p = 2
// goes through a matrix product (|x|^2 + |y|^2 - 2 x.y, clamped at 1e-30;
// mode 1 always, None/0 when R1 > 25 or R2 > 25): a faster and less
// accurate route (cancellation, sqrt(1e-30) instead of 0 for equal rows,
// NaN instead of inf for infinite inputs). The reference always evaluates
// the direct formula above, the exact value those modes approximate.
//
// Errors: x1 and x2 of rank < 2, different column counts or batch dims
// that do not broadcast, p < 0 or NaN, compute_mode outside 0..2, an out
// of another dtype or too small: InvalidArgument. Dtypes: Float and Double
// (Half, BFloat16, integral, Bool and complex are NotSupported); x2 must
// have x1's dtype (InvalidArgument). Any layout in and out.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// Distance between the rows at `a` and `b` (C elements, strides in
// elements) of a Float or Double tensor.
static double row_distance(const etr_tensor_t *x1, int64_t a, int64_t a_step,
                           const etr_tensor_t *x2, int64_t b, int64_t b_step,
                           int64_t columns, double p) {
  double total = 0.0;
  for (int64_t c = 0; c < columns; ++c) {
    double d = etr_load_double(x1->dtype, etr_element_at(x1, a + c * a_step)) -
               etr_load_double(x2->dtype, etr_element_at(x2, b + c * b_step));
    double magnitude = fabs(d);
    if (p == 0.0) {
      total += isnan(d) ? NAN : (d != 0.0 ? 1.0 : 0.0);
    } else if (p == 1.0) {
      total += magnitude;
    } else if (p == 2.0) {
      total += d * d;
    } else if (isinf(p)) {
      total = magnitude > total ? magnitude : total;  // ignores NaN
    } else {
      total += pow(magnitude, p);
    }
  }
  if (p == 0.0 || p == 1.0 || isinf(p)) {
    return total;
  }
  return p == 2.0 ? sqrt(total) : pow(total, 1.0 / p);
}

// aten::_cdist_forward.out
etr_error_t etr_ref_cdist_forward_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *x1 = NULL;
  etr_tensor_t *x2 = NULL;
  double p = 2.0;
  bool has_mode = false;
  int64_t mode = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "x1", &x1));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "x2", &x2));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 2, "p", &p));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 3, "compute_mode",
                               &has_mode, &mode));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  const etr_dtype_set_t kFloat = ETR_DTYPE_BIT(ETR_FLOAT) |
                                 ETR_DTYPE_BIT(ETR_DOUBLE);
  ETR_TRY(etr_check_dtype(ctx, "x1", x1->dtype, kFloat));
  ETR_TRY(etr_check_dtype(ctx, "x2", x2->dtype, kFloat));
  ETR_TRY(etr_check_dtype_equal(ctx, "x2", x2->dtype, x1->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, x1->dtype));
  ETR_CHECK(ctx->diag, x1->dim >= 2 && x2->dim >= 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: cdist only supports at least 2D tensors, X1 got: %dD, "
            "X2 got: %dD",
            etr_op_name(ctx), (int)x1->dim, (int)x2->dim);
  int64_t columns = x1->sizes[x1->dim - 1];
  ETR_CHECK(ctx->diag, x2->sizes[x2->dim - 1] == columns,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: X1 and X2 must have the same number of columns. X1: %lld "
            "X2: %lld",
            etr_op_name(ctx), (long long)columns,
            (long long)x2->sizes[x2->dim - 1]);
  ETR_CHECK(ctx->diag, p >= 0.0, ETR_ERR_INVALID_ARGUMENT,
            "%s: cdist only supports non-negative p values, got %g",
            etr_op_name(ctx), p);
  ETR_CHECK(ctx->diag, !has_mode || (mode >= 0 && mode <= 2),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: possible modes: 0, 1, 2, but was: %lld", etr_op_name(ctx),
            (long long)mode);
  int32_t batch_dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(etr_broadcast_shapes(ctx, x1->dim - 2, x1->sizes, x2->dim - 2,
                               x2->sizes, &batch_dim, sizes));
  int64_t rows1 = x1->sizes[x1->dim - 2];
  int64_t rows2 = x2->sizes[x2->dim - 2];
  sizes[batch_dim] = rows1;
  sizes[batch_dim + 1] = rows2;
  ETR_TRY(etr_resize_out(ctx, out, batch_dim + 2, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  // Broadcast views of the inputs over [batch..., rows, C].
  int64_t view_sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < batch_dim; ++d) {
    view_sizes[d] = sizes[d];
  }
  etr_tensor_t x1_view;
  etr_tensor_t x2_view;
  view_sizes[batch_dim] = rows1;
  view_sizes[batch_dim + 1] = columns;
  ETR_TRY(etr_broadcast_view(ctx, x1, batch_dim + 2, view_sizes, &x1_view));
  view_sizes[batch_dim] = rows2;
  ETR_TRY(etr_broadcast_view(ctx, x2, batch_dim + 2, view_sizes, &x2_view));
  // The iterator walks the batch dims only (it reads the first batch_dim
  // strides of each operand).
  const etr_tensor_t *operands[3] = {out, &x1_view, &x2_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, batch_dim, sizes, operands, 3);
  const int64_t *s1 = x1_view.strides + batch_dim;
  const int64_t *s2 = x2_view.strides + batch_dim;
  const int64_t *so = out->strides + batch_dim;
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    for (int64_t i = 0; i < rows1; ++i) {
      for (int64_t j = 0; j < rows2; ++j) {
        double distance = row_distance(
            &x1_view, iter.offsets[1] + i * s1[0], s1[1], &x2_view,
            iter.offsets[2] + j * s2[0], s2[1], columns, p);
        etr_store_double(out->dtype,
                         etr_element_at(out, iter.offsets[0] + i * so[0] +
                                                 j * so[1]),
                         distance);
      }
    }
  }
  return ETR_OK;
}
