// SPDX-License-Identifier: Apache-2.0
//
// Optimized dim_order_ops::_to_dim_order_copy.out: when self and out have the
// same dtype, a copy (or layout change) moved by the movement engine; when they
// convert between Float and Long, Int, Bool, Half or BFloat16 with the same
// dense layout (contiguous or channels-last), the conversion microkernels of
// cast/cast.h, bit-exact with the reference's element conversions. Other
// conversions, other layout pairs, an out overlapping self and argument
// errors are left to the reference kernel
// (ops_reference/op_to_dim_order_copy.c), whose dry run checks the arguments
// and resizes out first.
#include "ops_optimized/cast/cast.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// dim_order_ops::_to_dim_order_copy.out
etr_error_t etr_opt_to_dim_order_copy_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (self == NULL || out == NULL ||
      etr_opt_check(etr_ref_to_dim_order_copy_out, ctx, args, num_args) !=
          ETR_OK) {
    return etr_opt_fallback(etr_ref_to_dim_order_copy_out, ctx, args, num_args);
  }
  if (etr_move_same_dtype(self, out)) {
    if (etr_move_overlaps(out, self)) {
      return etr_opt_fallback(etr_ref_to_dim_order_copy_out, ctx, args,
                              num_args);
    }
    if (!ctx->dry_run) {
      etr_move_tensor(out, self);
    }
    return ETR_OK;
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  if (!etr_cast_run(self, out)) {
    return etr_opt_fallback(etr_ref_to_dim_order_copy_out, ctx, args, num_args);
  }
  return ETR_OK;
}
