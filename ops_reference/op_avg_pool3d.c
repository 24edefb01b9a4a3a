// SPDX-License-Identifier: Apache-2.0
//
// aten::avg_pool3d.out: the average of each window of a [N, C, D, H, W] or
// [C, D, H, W] input.
//
// Arguments: (self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override?, out, return slot). kernel_size and
// padding hold one or three ints; stride one, three or none (the kernel
// size). The divisor is the override when given (0 is InvalidArgument),
// else the window clipped to the padded input with count_include_pad,
// else the number of input positions in the window. Output sizes,
// ceil_mode and the parameter and shape rules (InvalidArgument) are those
// of support/nn_pool.h.
//
// Dtypes: Float, Double and Long only (PyTorch's CPU kernel has no Half or
// BFloat16 here; NotSupported otherwise); out has self's dtype
// (InvalidArgument). Sums accumulate in double (int64 with wrap-around for
// Long, whose average truncates toward zero like ATen's integer division).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

// aten::avg_pool3d.out
etr_error_t etr_ref_avg_pool3d_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  etr_nn_pool_t pool = {.spatial = 3, .dilation = {1, 1, 1}};
  etr_nn_avg_options_t options = {.has_divisor = false};
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "kernel_size", 3, true,
                           NULL, pool.kernel));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 2, "stride", 3, true,
                           pool.kernel, pool.stride));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 3, "padding", 3, true, NULL,
                           pool.padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "ceil_mode", &pool.ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "count_include_pad",
                       &options.count_include_pad));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 6, "divisor_override",
                               &options.has_divisor, &options.divisor));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "out", &out));
  ETR_CHECK(ctx->diag, !options.has_divisor || options.divisor != 0,
            ETR_ERR_INVALID_ARGUMENT, "%s: divisor must be not zero",
            etr_op_name(ctx));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPE_BIT(ETR_FLOAT) |
                              ETR_DTYPE_BIT(ETR_DOUBLE) |
                              ETR_DTYPE_BIT(ETR_LONG)));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  int64_t sizes[5];
  ETR_TRY(etr_nn_pool_out_shape(ctx, self, &pool, sizes));
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in_view;
  etr_tensor_t out_view;
  etr_nn_batched_view(self, 5, &in_view);
  etr_nn_batched_view(out, 5, &out_view);
  etr_nn_avg_pool(&in_view, &pool, &options, &out_view);
  return ETR_OK;
}
