// SPDX-License-Identifier: Apache-2.0
//
// Optimized quantized_decomposed::dequantize_per_tensor.out and
// .Tensor_out: a Char or Byte input dequantized to a Float out, input and
// out dense with the same strides (contiguous or channels-last), runs the
// SIMD dequantize microkernels (quant/quant.h), bit-exact with the
// reference: (float)(q - zero_point) * (float)scale. Other out dtypes
// (Double, Half, BFloat16), other quantized dtypes (Short, Int, UInt16,
// Bits16), strided views, zero points past 2^30 and argument errors go to
// the reference kernel (ops_reference/op_dequantize_per_tensor.c), whose
// dry run checks the arguments and resizes out first.
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/quant/quant.h"
#include "ops_reference/ops_reference.h"

// quantized_decomposed::dequantize_per_tensor.out
etr_error_t etr_opt_dequantize_per_tensor_out(etr_kernel_context_t *ctx,
                                              etr_evalue_t **args,
                                              size_t num_args) {
  if (etr_opt_check(etr_ref_dequantize_per_tensor_out, ctx, args,
                    num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_dequantize_per_tensor_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *input = NULL;
  etr_tensor_t *out = NULL;
  etr_quant_params_t params = {ETR_QUANT_PER_TENSOR, 0.0, 0, 0, NULL, NULL};
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 1, "scale", &params.scale));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "zero_point",
                      &params.zero_point));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "out", &out));
  if (!etr_quant_run_dequantize(input, out, &params)) {
    return etr_opt_fallback(etr_ref_dequantize_per_tensor_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

// quantized_decomposed::dequantize_per_tensor.Tensor_out
etr_error_t etr_opt_dequantize_per_tensor_tensor_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  if (etr_opt_check(etr_ref_dequantize_per_tensor_tensor_out, ctx, args,
                    num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_dequantize_per_tensor_tensor_out, ctx,
                            args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *input = NULL;
  etr_tensor_t *scale = NULL;
  etr_tensor_t *zero_point = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scale", &scale));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "zero_point", &zero_point));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "out", &out));
  etr_quant_params_t params = {ETR_QUANT_PER_TENSOR,
                               etr_quant_param_double(scale, 0),
                               etr_quant_param_int64(zero_point, 0),
                               0,
                               NULL,
                               NULL};
  if (!etr_quant_run_dequantize(input, out, &params)) {
    return etr_opt_fallback(etr_ref_dequantize_per_tensor_tensor_out, ctx,
                            args, num_args);
  }
  return ETR_OK;
}
