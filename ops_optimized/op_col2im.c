// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::col2im.out (fold): a contiguous Float self into a
// contiguous out runs fold/fold.h: each channel's column rows are added,
// tap by tap in the reference's order, into a double plane that is
// rounded once into out -- O(C kh kw L) work instead of the reference's
// per-output search over the taps, bit-exact. Other dtypes and layouts,
// no scratch arena, and argument errors go to the reference kernel
// (ops_reference/op_col2im.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/fold/fold.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/nn_util.h"

// aten::col2im.out
etr_error_t etr_opt_col2im_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  if (num_args != 8 || self == NULL || self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_col2im_out, ctx, args, num_args);
  }
  ETR_TRY(
      etr_opt_check(etr_ref_col2im_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_fold_params_t f;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "output_size", 2, false,
                           NULL, f.output));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 2, "kernel_size", 2, false,
                           NULL, f.kernel));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 3, "dilation", 2, false, NULL,
                           f.dilation));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 4, "padding", 2, false, NULL,
                           f.padding));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 5, "stride", 2, false, NULL,
                           f.stride));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  if (!etr_col2im_run(ctx, self, &f, out)) {
    return etr_opt_fallback(etr_ref_col2im_out, ctx, args, num_args);
  }
  return ETR_OK;
}
