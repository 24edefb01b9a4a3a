// SPDX-License-Identifier: Apache-2.0
//
// quantized_decomposed::quantize_per_channel.out(input, Tensor scales,
// Tensor zero_points, int axis, int quant_min, int quant_max,
// ScalarType dtype, *, out): quantize_per_tensor with the scale and zero
// point of each element's index along `axis` (support/quantize.h has the
// arithmetic).
//
// Arguments, as ExecuTorch checks them (error codes instead of aborts):
// `axis` in [-rank, rank) (InvalidArgument; negative counts from the end;
// a 0-dim input has no channel axis); scales a Double tensor and
// zero_points a Long tensor, each with input.size(axis) elements (read in
// row-major order whatever their shape, InvalidArgument otherwise); every
// zero point fits int32 (InvalidArgument); then the checks of
// quantize_per_tensor (input floating, dtype, bounds). Any axis, any
// strides: the channel of an element is its logical index along `axis`
// (ExecuTorch's kernel assumes contiguous memory).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/quantize.h"
#include "ops_reference/support/shape.h"

// quantized_decomposed::quantize_per_channel.out
etr_error_t etr_ref_quantize_per_channel_out(etr_kernel_context_t *ctx,
                                             etr_evalue_t **args,
                                             size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *scales = NULL;
  etr_tensor_t *zero_points = NULL;
  int64_t axis = 0;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  etr_scalar_type_t dtype = ETR_CHAR;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scales", &scales));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "zero_points",
                         &zero_points));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "axis", &axis));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 5, "quant_max", &quant_max));
  ETR_TRY(etr_quant_arg_scalar_type(ctx, args, num_args, 6, "dtype", &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "out", &out));
  ETR_CHECK(ctx->diag, input->dim >= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: a 0-dim input has no channel axis", etr_op_name(ctx));
  int32_t channel_axis = 0;
  ETR_TRY(etr_normalize_dim(ctx, axis, input->dim, &channel_axis));
  int64_t channels = input->sizes[channel_axis];
  ETR_TRY(etr_quant_check_param(ctx, "scales", scales, ETR_DOUBLE,
                                ETR_NUM_SCALAR_TYPES, channels));
  ETR_TRY(etr_quant_check_param(ctx, "zero_points", zero_points, ETR_LONG,
                                ETR_NUM_SCALAR_TYPES, channels));
  ETR_TRY(etr_quant_check_quantize_args(ctx, input, quant_min, quant_max,
                                        dtype, out));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_quant_params_t params = {ETR_QUANT_PER_CHANNEL, 0.0,    0,
                               channel_axis,          scales, zero_points};
  ETR_TRY(etr_quant_check_zero_points(ctx, &params));
  etr_quantize_tensor(input, out, &params, quant_min, quant_max);
  return ETR_OK;
}
