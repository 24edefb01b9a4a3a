// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::_native_batch_norm_legit.out and .no_stats_out (batch
// norm with batch statistics, what a model exported in training mode
// runs): a dense Float input, contiguous (N, C, ...) or channels-last,
// with Float parameters, into an out of the same dim order runs the
// training driver (norm/batch_norm_train.c): per-channel sums and squared
// deviations in double with the reduction microkernels, then the
// inference driver's fma pass; save_mean, save_invstd and the running
// statistics update use the reference's formulas. .out in evaluation
// (training = false) is the inference driver on the running statistics.
// Other dtypes and layouts, more than 1024 channels, empty inputs and
// argument errors go to the reference kernel
// (ops_reference/op_native_batch_norm_legit.c), whose dry run checks and
// resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// The arguments after the reference's dry run accepted them; the running
// statistics are NULL for .no_stats_out.
typedef struct legit_args {
  etr_tensor_t *input;
  etr_tensor_t *weight;
  etr_tensor_t *bias;
  etr_tensor_t *running_mean;
  etr_tensor_t *running_var;
  bool training;
  double momentum;
  double eps;
  etr_tensor_t *outs[3];
} legit_args_t;

static etr_error_t read_args(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, bool has_stats,
                             legit_args_t *a) {
  size_t at = has_stats ? 5 : 3;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &a->input));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 1, "weight",
                                  &a->weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &a->bias));
  a->running_mean = NULL;
  a->running_var = NULL;
  if (has_stats) {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "running_mean",
                           &a->running_mean));
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "running_var",
                           &a->running_var));
  }
  ETR_TRY(etr_arg_bool(ctx, args, num_args, at, "training", &a->training));
  ETR_TRY(etr_arg_double(ctx, args, num_args, at + 1, "momentum",
                         &a->momentum));
  ETR_TRY(etr_arg_double(ctx, args, num_args, at + 2, "eps", &a->eps));
  for (size_t i = 0; i < 3; ++i) {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, at + 3 + i, "out",
                           &a->outs[i]));
  }
  return ETR_OK;
}

static etr_error_t run(etr_kernel_fn reference, bool has_stats,
                       etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args) {
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  if (num_args != (has_stats ? 12u : 10u) || input == NULL ||
      input->dtype != ETR_FLOAT) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(reference, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  legit_args_t a;
  ETR_TRY(read_args(ctx, args, num_args, has_stats, &a));
  bool done =
      a.training
          ? etr_batch_norm_train_run(ctx, a.input, a.weight, a.bias,
                                     a.running_mean, a.running_var,
                                     a.momentum, a.eps, a.outs[0], a.outs[1],
                                     a.outs[2])
          : etr_batch_norm_run(ctx, a.input, a.weight, a.bias,
                               a.running_mean, a.running_var, a.eps,
                               a.outs[0]);
  if (!done) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  return ETR_OK;
}

// aten::_native_batch_norm_legit.out
etr_error_t etr_opt_native_batch_norm_legit_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  return run(etr_ref_native_batch_norm_legit_out, true, ctx, args,
             num_args);
}

// aten::_native_batch_norm_legit.no_stats_out
etr_error_t etr_opt_native_batch_norm_legit_no_stats_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  return run(etr_ref_native_batch_norm_legit_no_stats_out, false, ctx, args,
             num_args);
}
