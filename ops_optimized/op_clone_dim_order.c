// SPDX-License-Identifier: Apache-2.0
//
// Optimized dim_order_ops::_clone_dim_order.out: self moved into out, laid
// out in out's dim order, by the movement engine (one memcpy for the same
// layout, transpose tiles for contiguous <-> channels-last). Every dtype;
// arguments are checked by the reference kernel's dry run
// (ops_reference/op_clone_dim_order.c), and an out overlapping self goes to
// the reference.
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// The fast path: valid by construction when it returns true (a Bool
// non_blocking, a dim_order that is None or out's, out already of self's
// shape; common/dense.h), then one memcpy. False leaves the call,
// untouched, to the general path.
// A vouched call repeats the first call's memcpy with no checks
// (etr_dense_copy_vouched).
static bool clone_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                        size_t num_args) {
  if (etr_dense_copy_vouched(ctx, args, 0, 3)) {
    return true;
  }
  if (num_args != 5 || args[1] == NULL || args[1]->tag != ETR_TAG_BOOL ||
      args[2] == NULL) {
    return false;
  }
  etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 3);
  if (self == NULL || out == NULL ||
      !etr_dense_has_shape(out, self->dim, self->sizes)) {
    return false;
  }
  if (args[2]->tag != ETR_TAG_NONE) {
    const etr_int_list_t *dim_order = etr_dense_int_list_arg(args, 2);
    if (dim_order == NULL || dim_order->length != (size_t)self->dim) {
      return false;
    }
    for (size_t i = 0; i < dim_order->length; ++i) {
      if (etr_dense_int_at(dim_order, i) != out->dim_order[i]) {
        return false;
      }
    }
  }
  return etr_dense_copy_reshaped(ctx, self, out);
}

// dim_order_ops::_clone_dim_order.out
etr_error_t etr_opt_clone_dim_order_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  if (clone_dense(ctx, args, num_args)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_clone_dim_order_out, ctx, args, num_args) !=
          ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_clone_dim_order_out, ctx, args,
                            num_args);
  }
  if (!ctx->dry_run) {
    etr_move_tensor(out, self);
  }
  return ETR_OK;
}
