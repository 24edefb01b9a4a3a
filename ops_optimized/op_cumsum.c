// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::cumsum.out: a dense Float, Half, BFloat16, Long or Int
// self into an out of the same dtype and dim order runs the scan driver
// (scan/scan.h; Half and BFloat16 staged through fp32, within one ulp):
// scans along a dim with others inside it in memory vectorized across
// those (double accumulators, the reference's order: bit-exact), scans
// along the innermost dim four rows at a time, integers wrapping. Dtype
// conversions, other layouts and argument errors go to the reference
// kernel (ops_reference/op_cumsum.c), whose dry run checks and resizes
// first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/scan/scan.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::cumsum.out
etr_error_t etr_opt_cumsum_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || self == NULL || out == NULL ||
      out->dtype != self->dtype) {
    return etr_opt_fallback(etr_ref_cumsum_out, ctx, args, num_args);
  }
  ETR_TRY(
      etr_opt_check(etr_ref_cumsum_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int32_t dim = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  if (!etr_cumsum_run(ctx->temp, self, dim, out)) {
    return etr_opt_fallback(etr_ref_cumsum_out, ctx, args, num_args);
  }
  return ETR_OK;
}
