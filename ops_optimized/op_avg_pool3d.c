// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::avg_pool3d.out: a contiguous Float [N, C, D, H, W] or
// [C, D, H, W] input into a contiguous out runs the 3-D pooling driver
// (pool/pool3d.c): windows cached per dim, sums in double in the
// reference's order, ATen's divisor rules: bit-exact. Double, Long, other
// layouts and argument errors go to the reference kernel
// (ops_reference/op_avg_pool3d.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::avg_pool3d.out
etr_error_t etr_opt_avg_pool3d_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 7);
  if (num_args != 9 || self == NULL || out == NULL ||
      self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_avg_pool3d_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_avg_pool3d_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_nn_pool_t pool = {.spatial = 3, .dilation = {1, 1, 1}};
  bool count_include_pad = false;
  bool has_divisor = false;
  int64_t divisor = 0;
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "kernel_size", 3, true,
                           NULL, pool.kernel));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 2, "stride", 3, true,
                           pool.kernel, pool.stride));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 3, "padding", 3, true, NULL,
                           pool.padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "ceil_mode", &pool.ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "count_include_pad",
                       &count_include_pad));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 6, "divisor_override",
                               &has_divisor, &divisor));
  if (!etr_avg_pool3d_run(self, &pool, count_include_pad, has_divisor,
                          divisor, out)) {
    return etr_opt_fallback(etr_ref_avg_pool3d_out, ctx, args, num_args);
  }
  return ETR_OK;
}
