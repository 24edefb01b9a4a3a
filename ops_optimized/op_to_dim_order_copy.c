// SPDX-License-Identifier: Apache-2.0
//
// Optimized dim_order_ops::_to_dim_order_copy.out, for the cases where
// self and out have the same dtype: a layout change (or plain copy) moved
// by the movement engine. Conversions between dtypes (fp32 <-> fp16/bf16
// and the rest) are left to the reference kernel
// (ops_reference/op_to_dim_order_copy.c), whose dry run also checks the
// arguments here; so is an out overlapping self.
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
  if (!etr_move_same_dtype(self, out) ||
      etr_move_validate(etr_ref_to_dim_order_copy_out, ctx, args,
                        num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_to_dim_order_copy_out, ctx, args,
                            num_args);
  }
  if (!ctx->dry_run) {
    etr_move_tensor(out, self);
  }
  return ETR_OK;
}
