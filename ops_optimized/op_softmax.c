// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::_softmax.out: a dense Float, Half or BFloat16 self into
// an out of its dtype and dim order (in place included) runs the softmax
// driver (norm/norm.h): rows when the dim is innermost in memory (the
// attention case), columns vectorized across the kept inner dim otherwise;
// fp32 exp and sums, Half/BFloat16 through fp32. Other dtypes and layouts,
// empty inputs and argument errors go to the reference kernel
// (ops_reference/op_softmax.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/norm/norm.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::_softmax.out
etr_error_t etr_opt_softmax_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || self == NULL || out == NULL ||
      !etr_reduce_is_f32_like(self->dtype) || out->dtype != self->dtype) {
    return etr_opt_fallback(etr_ref_softmax_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_softmax_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int32_t dim = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  if (!etr_softmax_run(ctx, self, dim, false, out)) {
    return etr_opt_fallback(etr_ref_softmax_out, ctx, args, num_args);
  }
  return ETR_OK;
}
