// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::max_pool2d_with_indices.out: a dense Float input,
// contiguous [N, C, H, W] / [C, H, W] or channels-last, with outs laid out
// alike, runs the pooling driver (pool/pool.h): NCHW rows vectorized across
// output columns (stride 1 and 2; padding and ceil_mode borders by the
// reference's window rule), NHWC pixels across channels. Exact, with
// PyTorch's NaN and first-position rules. Other dtypes and layouts and
// argument errors go to the reference kernel
// (ops_reference/op_max_pool2d_with_indices.c), whose dry run checks and
// resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/pool.h"

// The kernel; `write_indices` false skips the indices (which the caller
// knows nobody reads) where the driver runs, not where the reference does.
static etr_error_t max_pool(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args, bool write_indices) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 6);
  etr_tensor_t *indices = etr_opt_tensor_arg(args, num_args, 7);
  if (num_args != 9 || self == NULL || out == NULL || indices == NULL ||
      self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_max_pool2d_with_indices_out, ctx, args,
                            num_args);
  }
  ETR_TRY(etr_reduce_check_reference(etr_ref_max_pool2d_with_indices_out,
                                     ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_pool_params_t p = {0};
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 1, "kernel_size", NULL,
                               p.kernel));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 2, "stride", p.kernel,
                               p.stride));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 3, "padding", NULL,
                               p.padding));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 4, "dilation", NULL,
                               p.dilation));
  if (!etr_max_pool2d_run(self, &p, out, write_indices ? indices : NULL)) {
    return etr_opt_fallback(etr_ref_max_pool2d_with_indices_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}

etr_error_t etr_pool_max2d_values_only(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  return max_pool(ctx, args, num_args, false);
}

// aten::max_pool2d_with_indices.out
etr_error_t etr_opt_max_pool2d_with_indices_out(etr_kernel_context_t *ctx,
                                                etr_evalue_t **args,
                                                size_t num_args) {
  return max_pool(ctx, args, num_args, true);
}
