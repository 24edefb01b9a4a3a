// SPDX-License-Identifier: Apache-2.0
//
// quantized_decomposed::dequantize_per_token.out(input, Tensor scales,
// Tensor zero_points, int quant_min, int quant_max, ScalarType dtype,
// ScalarType output_dtype, *, out): dequantize_per_tensor with the scale
// and zero point of each element's token (its row-major index over every
// dim but the last), as ExecuTorch's runtime computes it (a per-channel
// dequantize of the input viewed as [tokens, last]: the float product,
// rounded to out's dtype; support/quantize.h).
//
// Arguments, as ExecuTorch checks them (error codes instead of aborts):
// input of rank >= 1 (InvalidArgument); scales Double or Float and
// zero_points Long or Int, one per token (InvalidArgument), each zero
// point fitting int32 (InvalidArgument); output_dtype a ScalarType equal
// to out's dtype; then the checks of dequantize_per_tensor (input dtype,
// out floating, quant_min <= quant_max).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/quantize.h"
#include "ops_reference/support/shape.h"

// quantized_decomposed::dequantize_per_token.out
etr_error_t etr_ref_dequantize_per_token_out(etr_kernel_context_t *ctx,
                                             etr_evalue_t **args,
                                             size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *scales = NULL;
  etr_tensor_t *zero_points = NULL;
  etr_scalar_type_t output_dtype = ETR_FLOAT;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scales", &scales));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "zero_points",
                         &zero_points));
  ETR_TRY(etr_quant_arg_scalar_type(ctx, args, num_args, 6, "output_dtype",
                                    &output_dtype));
  // quant_min, quant_max, dtype, output_dtype (as out_dtype), out.
  ETR_TRY(etr_quant_check_dequantize_args(ctx, args, num_args, 3, input,
                                          &out));
  int64_t tokens = 0;
  ETR_TRY(etr_quant_token_count(ctx, input, &tokens));
  ETR_TRY(etr_quant_check_param(ctx, "scales", scales, ETR_DOUBLE, ETR_FLOAT,
                                tokens));
  ETR_TRY(etr_quant_check_param(ctx, "zero_points", zero_points, ETR_LONG,
                                ETR_INT, tokens));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_quant_params_t params = {ETR_QUANT_PER_TOKEN, 0.0, 0, 0, scales,
                               zero_points};
  ETR_TRY(etr_quant_check_zero_points(ctx, &params));
  etr_dequantize_tensor(input, out, &params);
  return ETR_OK;
}
