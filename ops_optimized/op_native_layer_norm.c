// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::native_layer_norm.out: a contiguous Float, Half or
// BFloat16 input normalized over its trailing dims, with contiguous
// weight/bias (or none) and contiguous outs, runs the layer-norm driver
// (norm/norm.h): row statistics in double, normalization in fp32 with the
// mean split in two floats (rows with extreme statistics in double, as the
// reference), Half/BFloat16 through fp32. Other layouts, empty inputs and
// argument errors go to the reference kernel
// (ops_reference/op_native_layer_norm.c), whose dry run checks first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::native_layer_norm.out
etr_error_t etr_opt_native_layer_norm_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  if (num_args != 9 || input == NULL ||
      !etr_reduce_is_f32_like(input->dtype)) {
    return etr_opt_fallback(etr_ref_native_layer_norm_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_native_layer_norm_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *shape = NULL;
  size_t count = 0;
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  double eps = 0.0;
  etr_tensor_t *outs[3] = {NULL, NULL, NULL};
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "normalized_shape", &shape,
                           &count));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 3, "bias", &bias));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 4, "eps", &eps));
  for (size_t i = 0; i < 3; ++i) {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5 + i, "out", &outs[i]));
  }
  int32_t axis = input->dim - (int32_t)count;
  if (!etr_layer_norm_run(ctx, input, axis, weight, bias, eps, outs[0],
                          outs[1], outs[2])) {
    return etr_opt_fallback(etr_ref_native_layer_norm_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}
