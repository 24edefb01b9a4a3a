// SPDX-License-Identifier: Apache-2.0
//
// Optimized quantized_decomposed::quantize_per_tensor.out and .Tensor_out:
// a Float input quantized to Char or Byte, input and out dense with the
// same strides (contiguous or channels-last), runs the SIMD quantize
// microkernels (quant/quant.h), bit-exact with the reference: the float
// product, round half to even, the zero point added in float, NaN to
// quant_min, clamped. Other dtypes (Half, BFloat16, Double inputs; Short,
// Int, UInt16 outs), strided views and argument errors go to the reference
// kernel (ops_reference/op_quantize_per_tensor.c), whose dry run checks
// the arguments and resizes out first.
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/quant/quant.h"
#include "ops_reference/ops_reference.h"

// quantized_decomposed::quantize_per_tensor.out
etr_error_t etr_opt_quantize_per_tensor_out(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args) {
  if (etr_opt_check(etr_ref_quantize_per_tensor_out, ctx, args,
                    num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_quantize_per_tensor_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *input = NULL;
  etr_tensor_t *out = NULL;
  etr_quant_params_t params = {ETR_QUANT_PER_TENSOR, 0.0, 0, 0, NULL, NULL};
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 1, "scale", &params.scale));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "zero_point",
                      &params.zero_point));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "quant_max", &quant_max));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  if (!etr_quant_run_quantize(input, out, &params, quant_min, quant_max)) {
    return etr_opt_fallback(etr_ref_quantize_per_tensor_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

// quantized_decomposed::quantize_per_tensor.Tensor_out
etr_error_t etr_opt_quantize_per_tensor_tensor_out(etr_kernel_context_t *ctx,
                                                   etr_evalue_t **args,
                                                   size_t num_args) {
  if (etr_opt_check(etr_ref_quantize_per_tensor_tensor_out, ctx, args,
                    num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_quantize_per_tensor_tensor_out, ctx,
                            args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *input = NULL;
  etr_tensor_t *scale = NULL;
  etr_tensor_t *zero_point = NULL;
  etr_tensor_t *out = NULL;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scale", &scale));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "zero_point", &zero_point));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "quant_max", &quant_max));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  // The dry run checked one element each; the zero point's int32 range is
  // checked after it (the driver refuses one outside, and the reference
  // then reports it).
  etr_quant_params_t params = {ETR_QUANT_PER_TENSOR,
                               etr_quant_param_double(scale, 0),
                               etr_quant_param_int64(zero_point, 0),
                               0,
                               NULL,
                               NULL};
  if (!etr_quant_run_quantize(input, out, &params, quant_min, quant_max)) {
    return etr_opt_fallback(etr_ref_quantize_per_tensor_tensor_out, ctx,
                            args, num_args);
  }
  return ETR_OK;
}
