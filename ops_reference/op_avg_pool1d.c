// SPDX-License-Identifier: Apache-2.0
//
// aten::avg_pool1d.out: the average of each window of a [N, C, L] or
// [C, L] input. ATen computes it as avg_pool2d over a [.., 1, L] view, so
// its rules are avg_pool2d's with a window of height 1: output length and
// ceil_mode as in support/nn_pool.h, divisor the window clipped to the
// padded input with count_include_pad, else the number of input positions
// in it (there is no divisor_override).
//
// Arguments: (self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, out, return slot). kernel_size and padding hold
// exactly one int; stride one int or none (the kernel size); anything
// else is InvalidArgument, as are the shape rules of support/nn_pool.h (a
// [C, L] input needs C > 0, a [N, C, L] one C, L > 0).
//
// Dtypes: Half, BFloat16, Float, Double and Long (PyTorch's CPU set;
// NotSupported otherwise); out has self's dtype (InvalidArgument). Sums
// accumulate in double (int64 for Long, whose average truncates toward
// zero).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

// aten::avg_pool1d.out
etr_error_t etr_ref_avg_pool1d_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  etr_nn_pool_t pool = {.spatial = 1, .dilation = {1}};
  etr_nn_avg_options_t options = {.has_divisor = false};
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "kernel_size", 1, false,
                           NULL, pool.kernel));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 2, "stride", 1, false,
                           pool.kernel, pool.stride));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 3, "padding", 1, false, NULL,
                           pool.padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "ceil_mode", &pool.ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "count_include_pad",
                       &options.count_include_pad));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPES_FLOATING | ETR_DTYPE_BIT(ETR_LONG)));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  int64_t sizes[3];
  ETR_TRY(etr_nn_pool_out_shape(ctx, self, &pool, sizes));
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in_view;
  etr_tensor_t out_view;
  etr_nn_batched_view(self, 3, &in_view);
  etr_nn_batched_view(out, 3, &out_view);
  etr_nn_avg_pool(&in_view, &pool, &options, &out_view);
  return ETR_OK;
}
