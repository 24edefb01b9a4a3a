// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::native_dropout.out in training: a contiguous Float input,
// out and Bool mask; the keep decisions come from draws the active ISA's
// kernel computes in parallel lanes (random/random.h), compared and
// scaled with the reference's double arithmetic, so the mask, the values
// and the generator's final state are exactly the reference's for every
// seed. Evaluation (a copy), other dtypes and layouts and argument errors
// go to the reference kernel (ops_reference/op_native_dropout.c), whose
// dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/random/random.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::native_dropout.out
etr_error_t etr_opt_native_dropout_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *input = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  etr_tensor_t *mask = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || input == NULL || out == NULL || mask == NULL ||
      input->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_native_dropout_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_native_dropout_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  double p = 0.5;
  bool has_train = false;
  bool train = true;
  ETR_TRY(etr_arg_double(ctx, args, num_args, 1, "p", &p));
  ETR_TRY(etr_arg_optional_bool(ctx, args, num_args, 2, "train", &has_train,
                                &train));
  train = has_train ? train : true;
  if (!train || etr_numel(input) == 0 ||
      !etr_random_dropout_run(ctx, input, p, out, mask)) {
    return etr_opt_fallback(etr_ref_native_dropout_out, ctx, args, num_args);
  }
  return ETR_OK;
}
