// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::_native_batch_norm_legit_no_training.out (inference
// batch norm, what every conv block of the CNN and MobileNetV2 runs): a
// dense Float, Half or BFloat16 input, contiguous (N, C, ...) or
// channels-last, into an out of the same dim order runs the batch-norm
// driver (norm/norm.h): per-channel alpha/beta in double rounded to fp32,
// then y = fma(x, alpha, beta) over contiguous planes (NCHW) or across the
// channels of each pixel (NHWC). With constant parameters alpha and beta
// come from load (ctx->state, fuse/prepack.c), and a vouched Float call
// (ctx->args_checked) makes the pass and nothing else. Other layouts,
// empty inputs and argument errors go to the reference kernel
// (ops_reference/op_native_batch_norm.c), whose dry run checks and
// resizes (out1/out2 to [0]) first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::_native_batch_norm_legit_no_training.out
etr_error_t etr_opt_native_batch_norm_legit_no_training_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  if (ctx->state != NULL && etr_batch_norm_kept_run(ctx, args, 0, 7)) {
    return ETR_OK;
  }
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  if (num_args != 11 || input == NULL ||
      !etr_reduce_is_f32_like(input->dtype)) {
    return etr_opt_fallback(etr_ref_native_batch_norm_legit_no_training_out,
                            ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_native_batch_norm_legit_no_training_out, ctx,
                        args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "out0", &out));
  if (ctx->state != NULL &&
      etr_batch_norm_run_packed(ctx, input, ctx->state, out)) {
    return ETR_OK;
  }
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  etr_tensor_t *running_mean = NULL;
  etr_tensor_t *running_var = NULL;
  double eps = 0.0;
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 1, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &bias));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "running_mean",
                         &running_mean));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "running_var",
                         &running_var));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 6, "eps", &eps));
  if (!etr_batch_norm_run(ctx, input, weight, bias, running_mean, running_var,
                          eps, out)) {
    return etr_opt_fallback(etr_ref_native_batch_norm_legit_no_training_out,
                            ctx, args, num_args);
  }
  return ETR_OK;
}
