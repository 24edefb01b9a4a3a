// SPDX-License-Identifier: Apache-2.0
//
// quantized_decomposed::dequantize_per_channel.out(input, Tensor scales,
// Tensor? zero_points, int axis, int quant_min, int quant_max,
// ScalarType dtype, *, ScalarType? out_dtype=None, out):
// dequantize_per_tensor with the scale and zero point of each element's
// index along `axis`; no zero points means 0 (support/quantize.h has the
// arithmetic: the float product, rounded to out's dtype).
//
// Arguments, as ExecuTorch checks them (error codes instead of aborts):
// `axis` in [-rank, rank) (InvalidArgument; a 0-dim input has no channel
// axis); scales Double or Float with input.size(axis) elements
// (InvalidArgument); zero_points, when given, Long or Int with as many
// (InvalidArgument), each fitting int32 (InvalidArgument); then the checks
// of dequantize_per_tensor (input dtype, out dtype, quant_min <=
// quant_max). Where ExecuTorch 1.5 departs from that arithmetic, etref
// does not follow it: its 1-D path multiplies a Double out in double and
// rounds (in - zp) to Half before a Half product; it reads an Int
// zero_points tensor as int64 (out of bounds); and its int8 path aborts on
// a zero point outside [quant_min, quant_max].
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/quantize.h"
#include "ops_reference/support/shape.h"

// quantized_decomposed::dequantize_per_channel.out
etr_error_t etr_ref_dequantize_per_channel_out(etr_kernel_context_t *ctx,
                                               etr_evalue_t **args,
                                               size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *scales = NULL;
  etr_tensor_t *zero_points = NULL;
  int64_t axis = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 10));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scales", &scales));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "zero_points",
                                  &zero_points));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "axis", &axis));
  ETR_TRY(etr_quant_check_dequantize_args(ctx, args, num_args, 4, input,
                                          &out));
  ETR_CHECK(ctx->diag, input->dim >= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: a 0-dim input has no channel axis", etr_op_name(ctx));
  int32_t channel_axis = 0;
  ETR_TRY(etr_normalize_dim(ctx, axis, input->dim, &channel_axis));
  int64_t channels = input->sizes[channel_axis];
  ETR_TRY(etr_quant_check_param(ctx, "scales", scales, ETR_DOUBLE, ETR_FLOAT,
                                channels));
  if (zero_points != NULL) {
    ETR_TRY(etr_quant_check_param(ctx, "zero_points", zero_points, ETR_LONG,
                                  ETR_INT, channels));
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_quant_params_t params = {ETR_QUANT_PER_CHANNEL, 0.0,    0,
                               channel_axis,          scales, zero_points};
  ETR_TRY(etr_quant_check_zero_points(ctx, &params));
  etr_dequantize_tensor(input, out, &params);
  return ETR_OK;
}
