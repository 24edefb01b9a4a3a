// SPDX-License-Identifier: Apache-2.0
//
// quantized_decomposed::dequantize_per_tensor.out(input, float scale,
// int zero_point, int quant_min, int quant_max, ScalarType dtype, *,
// ScalarType? out_dtype=None, out): out = (input - zero_point) * scale,
// the difference exact, the product in float, rounded to out's dtype
// (support/quantize.h).
//
// Arguments, as ExecuTorch's kernel checks them (error codes instead of its
// aborts):
//   - input Byte, Char, Short, Int, UInt16 or Bits16 (NotSupported) and
//     equal to `dtype` (InvalidArgument);
//   - quant_min <= quant_max (InvalidArgument); they are metadata, values
//     outside them are dequantized as they are (PyTorch and ExecuTorch);
//   - out Float, Double, Half or BFloat16 (NotSupported; BFloat16 is
//     etref's extension: ExecuTorch 1.5 aborts, PyTorch rounds the Float
//     result); when out_dtype is given, out's dtype must equal it
//     (InvalidArgument);
//   - the zero point fits int32 (InvalidArgument).
// A Double out holds the float product widened, as ExecuTorch computes it
// (PyTorch's decomposition computes a Double out in double).
//
// quantized_decomposed::dequantize_per_tensor.Tensor_out takes scale
// (Double) and zero_point (Long) as one-element tensors (InvalidArgument
// otherwise, as ExecuTorch).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/quantize.h"
#include "ops_reference/support/shape.h"

// quantized_decomposed::dequantize_per_tensor.out
etr_error_t etr_ref_dequantize_per_tensor_out(etr_kernel_context_t *ctx,
                                              etr_evalue_t **args,
                                              size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_quant_params_t params = {ETR_QUANT_PER_TENSOR, 0.0, 0, 0, NULL, NULL};
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 1, "scale", &params.scale));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "zero_point",
                      &params.zero_point));
  ETR_TRY(etr_quant_check_dequantize_args(ctx, args, num_args, 3, input, &out));
  ETR_TRY(etr_quant_check_zero_point(ctx, params.zero_point));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_dequantize_tensor(input, out, &params);
  return ETR_OK;
}

// quantized_decomposed::dequantize_per_tensor.Tensor_out
etr_error_t etr_ref_dequantize_per_tensor_tensor_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *scale = NULL;
  etr_tensor_t *zero_point = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scale", &scale));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "zero_point", &zero_point));
  ETR_TRY(etr_quant_check_dequantize_args(ctx, args, num_args, 3, input, &out));
  ETR_TRY(etr_quant_check_param(ctx, "scale", scale, ETR_DOUBLE,
                                ETR_NUM_SCALAR_TYPES, 1));
  ETR_TRY(etr_quant_check_param(ctx, "zero_point", zero_point, ETR_LONG,
                                ETR_NUM_SCALAR_TYPES, 1));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_quant_params_t params = {ETR_QUANT_PER_TENSOR,
                               etr_quant_param_double(scale, 0),
                               etr_quant_param_int64(zero_point, 0),
                               0,
                               NULL,
                               NULL};
  ETR_TRY(etr_quant_check_zero_points(ctx, &params));
  etr_dequantize_tensor(input, out, &params);
  return ETR_OK;
}
