// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::max_pool3d_with_indices.out: a contiguous Float
// [N, C, D, H, W] or [C, D, H, W] input into contiguous outs runs the 3-D
// pooling driver (pool/pool3d.c): windows cached per dim, walked on fp32
// data with the reference's rules (NaN wins, ties keep the first position,
// a window that misses the input gives -inf and its first tap's index):
// bit-exact. Other dtypes and layouts and argument errors go to the
// reference kernel (ops_reference/op_max_pool3d_with_indices.c), whose dry
// run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::max_pool3d_with_indices.out
etr_error_t etr_opt_max_pool3d_with_indices_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 6);
  etr_tensor_t *indices = etr_opt_tensor_arg(args, num_args, 7);
  if (num_args != 9 || self == NULL || out == NULL || indices == NULL ||
      self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_max_pool3d_with_indices_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_max_pool3d_with_indices_out,
                        ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_nn_pool_t pool = {.spatial = 3};
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "kernel_size", 3, true,
                           NULL, pool.kernel));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 2, "stride", 3, true,
                           pool.kernel, pool.stride));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 3, "padding", 3, true, NULL,
                           pool.padding));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 4, "dilation", 3, true, NULL,
                           pool.dilation));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "ceil_mode", &pool.ceil_mode));
  if (!etr_max_pool3d_run(self, &pool, out, indices)) {
    return etr_opt_fallback(etr_ref_max_pool3d_with_indices_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}
