// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::_adaptive_avg_pool3d.out: a contiguous Float
// [N, C, D, H, W] or [C, D, H, W] input into a contiguous out runs the 3-D
// pooling driver (pool/pool3d.c): ATen's bins cached per dim, sums in
// double in the reference's order: bit-exact. Other dtypes and layouts,
// empty outs and argument errors go to the reference kernel
// (ops_reference/op_adaptive_avg_pool3d.c), whose dry run checks and
// resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::_adaptive_avg_pool3d.out
etr_error_t etr_opt_adaptive_avg_pool3d_out(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 4 || self == NULL || out == NULL ||
      self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_adaptive_avg_pool3d_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_adaptive_avg_pool3d_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  if (!etr_adaptive_avg_pool3d_run(self, out)) {
    return etr_opt_fallback(etr_ref_adaptive_avg_pool3d_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}
