// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::native_group_norm.out: a contiguous Float, Half or
// BFloat16 input seen as [N, C, HxW] with contiguous outs runs the
// group-norm driver (norm/norm.h): each (n, group) block's statistics in
// double, normalization per channel plane in fp32 with the mean split in
// two floats (blocks with extreme statistics in double, as the
// reference). A channels-last input with an out laid out alike runs the
// same arithmetic image by image: each group's statistics down the
// columns of its channels, then every pixel's channels in one pass.
// Other layouts, empty inputs and argument errors go to the reference
// kernel (ops_reference/op_native_group_norm.c), whose dry run checks and
// resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::native_group_norm.out
etr_error_t etr_opt_native_group_norm_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  if (num_args != 12 || input == NULL ||
      !etr_reduce_is_f32_like(input->dtype)) {
    return etr_opt_fallback(etr_ref_native_group_norm_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_native_group_norm_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  int64_t sizes[4];  // N, C, HxW, group
  double eps = 0.0;
  etr_tensor_t *outs[3] = {NULL, NULL, NULL};
  static const char *const kNames[4] = {"N", "C", "HxW", "group"};
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 1, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &bias));
  for (size_t i = 0; i < 4; ++i) {
    ETR_TRY(etr_arg_int(ctx, args, num_args, 3 + i, kNames[i], &sizes[i]));
  }
  ETR_TRY(etr_arg_double(ctx, args, num_args, 7, "eps", &eps));
  for (size_t i = 0; i < 3; ++i) {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 8 + i, "out", &outs[i]));
  }
  if (!etr_group_norm_run(ctx, input, weight, bias, sizes[0], sizes[1],
                          sizes[2], sizes[3], eps, outs[0], outs[1],
                          outs[2])) {
    return etr_opt_fallback(etr_ref_native_group_norm_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}
