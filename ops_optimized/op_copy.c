// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::copy.out and aten::copy_ (the write-back of a mutated
// buffer), for a src of the destination's dtype: src broadcast to the
// destination's shape (stride-0 dims) and moved by the movement engine,
// which copies dense tensors with one memcpy and broadcasts rows with the
// fill microkernel. A src of another dtype (a conversion) and a src that
// partly overlaps the destination go to the reference kernel
// (ops_reference/op_copy.c), whose dry run also checks the arguments.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// Moves src broadcast to target's shape into target; false (nothing done)
// when the view overlaps target.
static bool move_broadcast(etr_kernel_context_t *ctx, etr_tensor_t *target,
                           const etr_tensor_t *src) {
  etr_tensor_t view;
  if (etr_broadcast_view(ctx, src, target->dim, target->sizes, &view) !=
          ETR_OK ||
      etr_move_overlaps(target, &view)) {
    return false;
  }
  if (!ctx->dry_run) {
    etr_move_tensor(target, &view);
  }
  return true;
}

// aten::copy.out
etr_error_t etr_opt_copy_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *src = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (!etr_move_same_dtype(src, out) ||
      etr_opt_check(etr_ref_copy_out, ctx, args, num_args) != ETR_OK ||
      !move_broadcast(ctx, out, src)) {
    return etr_opt_fallback(etr_ref_copy_out, ctx, args, num_args);
  }
  return ETR_OK;
}

// aten::copy_
etr_error_t etr_opt_copy_inplace(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *src = etr_opt_tensor_arg(args, num_args, 1);
  if (!etr_move_same_dtype(src, self) ||
      etr_opt_check(etr_ref_copy_inplace, ctx, args, num_args) != ETR_OK ||
      !move_broadcast(ctx, self, src)) {
    return etr_opt_fallback(etr_ref_copy_inplace, ctx, args, num_args);
  }
  args[3]->tag = ETR_TAG_TENSOR;  // the dry run checked the slot exists
  args[3]->u.as_tensor = self;
  return ETR_OK;
}
