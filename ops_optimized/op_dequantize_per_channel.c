// SPDX-License-Identifier: Apache-2.0
//
// Optimized quantized_decomposed::dequantize_per_channel.out: a Char or
// Byte input dequantized to a Float out with one scale and zero point per
// index along `axis`, input and out dense with the same strides, runs the
// SIMD dequantize microkernels on each run of elements sharing a channel
// (quant/quant.h), bit-exact with the reference. Channels-last inputs
// with the channel axis innermost in memory take the same path one
// element per run (correct, not fast). Other dtypes, strided views, zero
// points past 2^30 and argument errors go to the reference kernel
// (ops_reference/op_dequantize_per_channel.c), whose dry run checks the
// arguments and resizes out first.
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/quant/quant.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// quantized_decomposed::dequantize_per_channel.out
etr_error_t etr_opt_dequantize_per_channel_out(etr_kernel_context_t *ctx,
                                               etr_evalue_t **args,
                                               size_t num_args) {
  if (etr_opt_check(etr_ref_dequantize_per_channel_out, ctx, args,
                    num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_dequantize_per_channel_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *input = NULL;
  etr_tensor_t *scales = NULL;
  etr_tensor_t *zero_points = NULL;
  etr_tensor_t *out = NULL;
  int64_t axis = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "scales", &scales));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "zero_points",
                                  &zero_points));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "axis", &axis));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 8, "out", &out));
  int32_t channel_axis = 0;
  ETR_TRY(etr_normalize_dim(ctx, axis, input->dim, &channel_axis));
  etr_quant_params_t params = {ETR_QUANT_PER_CHANNEL, 0.0,    0,
                               channel_axis,          scales, zero_points};
  if (!etr_quant_run_dequantize(input, out, &params)) {
    return etr_opt_fallback(etr_ref_dequantize_per_channel_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}
