// SPDX-License-Identifier: Apache-2.0
//
// quantized_decomposed::quantize_per_token.out(input, Tensor scales,
// Tensor zero_points, int quant_min, int quant_max, ScalarType dtype, *,
// out): quantize_per_tensor with the scale and zero point of each
// element's token (its row-major index over every dim but the last), as
// ExecuTorch's runtime computes it (a per-channel quantize of the input
// viewed as [tokens, last]; support/quantize.h has the arithmetic).
// PyTorch's decomposition differs: it adds the zero point before rounding
// and multiplies by 1 / scales in the scales' dtype (double for the
// Double scales choose_qparams_per_token_asymmetric returns).
//
// Arguments, as ExecuTorch checks them (error codes instead of aborts):
// input of rank >= 1 (InvalidArgument); scales Double and zero_points Long,
// one per token, read in row-major order whatever their shape
// (InvalidArgument); every zero point fits int32 (InvalidArgument); then
// the checks of quantize_per_tensor (input floating, dtype, bounds).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/quantize.h"
#include "ops_reference/support/shape.h"

// quantized_decomposed::quantize_per_token.out
etr_error_t etr_ref_quantize_per_token_out(etr_kernel_context_t *ctx,
                                           etr_evalue_t **args,
                                           size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *scales = NULL;
  etr_tensor_t *zero_points = NULL;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  etr_scalar_type_t dtype = ETR_CHAR;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scales", &scales));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "zero_points",
                         &zero_points));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "quant_max", &quant_max));
  ETR_TRY(etr_quant_arg_scalar_type(ctx, args, num_args, 5, "dtype", &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  int64_t tokens = 0;
  ETR_TRY(etr_quant_token_count(ctx, input, &tokens));
  ETR_TRY(etr_quant_check_param(ctx, "scales", scales, ETR_DOUBLE,
                                ETR_NUM_SCALAR_TYPES, tokens));
  ETR_TRY(etr_quant_check_param(ctx, "zero_points", zero_points, ETR_LONG,
                                ETR_NUM_SCALAR_TYPES, tokens));
  ETR_TRY(etr_quant_check_quantize_args(ctx, input, quant_min, quant_max,
                                        dtype, out));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_quant_params_t params = {ETR_QUANT_PER_TOKEN, 0.0, 0, 0, scales,
                               zero_points};
  ETR_TRY(etr_quant_check_zero_points(ctx, &params));
  etr_quantize_tensor(input, out, &params, quant_min, quant_max);
  return ETR_OK;
}
