// SPDX-License-Identifier: Apache-2.0
//
// quantized_decomposed::quantize_per_tensor.out(input, float scale,
// int zero_point, int quant_min, int quant_max, ScalarType dtype, *, out):
// out = clamp(nearbyint(input * (1.0f / (float)scale)) + zero_point,
// quant_min, quant_max) as `dtype` (support/quantize.h has the arithmetic
// to the bit, ties to even, saturation, NaN and infinities).
//
// These out variants are ExecuTorch's (kernels/quantized/quantized.yaml;
// PyTorch only has the functional ops). Arguments, as ExecuTorch checks
// them, but as error codes instead of its aborts:
//   - input Float, Double, Half or BFloat16 (NotSupported otherwise;
//     ExecuTorch 1.5 has no BFloat16 path, PyTorch converts BFloat16 to
//     Float, as etref does);
//   - dtype Byte, Char, Short, Int, UInt16 or Bits16 (NotSupported), the
//     out's dtype equal to it (InvalidArgument);
//   - quant_min and quant_max inside the dtype's range (InvalidArgument;
//     quant_min > quant_max is accepted: every value becomes quant_max);
//   - the zero point fits int32 (InvalidArgument).
// out is resized to input's shape; both are read and written through their
// own strides. A scale of 0 is not refused (PyTorch raises
// ZeroDivisionError; ExecuTorch multiplies by an infinite inverse, which
// saturates every non-zero value and sends 0 to quant_min as NaN does):
// etref computes what ExecuTorch computes.
//
// quantized_decomposed::quantize_per_tensor.Tensor_out takes scale and
// zero_point as one-element tensors: scale Double and zero_point Long,
// exactly one element each (InvalidArgument otherwise, as ExecuTorch).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/quantize.h"
#include "ops_reference/support/shape.h"

// quantized_decomposed::quantize_per_tensor.out
etr_error_t etr_ref_quantize_per_tensor_out(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_quant_params_t params = {ETR_QUANT_PER_TENSOR, 0.0, 0, 0, NULL, NULL};
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  etr_scalar_type_t dtype = ETR_CHAR;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 1, "scale", &params.scale));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "zero_point",
                      &params.zero_point));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "quant_max", &quant_max));
  ETR_TRY(etr_quant_arg_scalar_type(ctx, args, num_args, 5, "dtype", &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  ETR_TRY(etr_quant_check_zero_point(ctx, params.zero_point));
  ETR_TRY(etr_quant_check_quantize_args(ctx, input, quant_min, quant_max, dtype,
                                        out));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_quantize_tensor(input, out, &params, quant_min, quant_max);
  return ETR_OK;
}

// quantized_decomposed::quantize_per_tensor.Tensor_out
etr_error_t etr_ref_quantize_per_tensor_tensor_out(etr_kernel_context_t *ctx,
                                                   etr_evalue_t **args,
                                                   size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *scale = NULL;
  etr_tensor_t *zero_point = NULL;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  etr_scalar_type_t dtype = ETR_CHAR;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scale", &scale));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "zero_point", &zero_point));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "quant_max", &quant_max));
  ETR_TRY(etr_quant_arg_scalar_type(ctx, args, num_args, 5, "dtype", &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  ETR_TRY(etr_quant_check_param(ctx, "scale", scale, ETR_DOUBLE,
                                ETR_NUM_SCALAR_TYPES, 1));
  ETR_TRY(etr_quant_check_param(ctx, "zero_point", zero_point, ETR_LONG,
                                ETR_NUM_SCALAR_TYPES, 1));
  ETR_TRY(etr_quant_check_quantize_args(ctx, input, quant_min, quant_max, dtype,
                                        out));
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
  etr_quantize_tensor(input, out, &params, quant_min, quant_max);
  return ETR_OK;
}
