// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::expand_copy.out: self broadcast to out's shape (the
// reference's dry run has checked `size` and resized out to it) and moved
// by the movement engine: expanded rows are memcpy'd from the same source
// row, expanded innermost dims are filled by the fill microkernel. Every
// dtype; an out overlapping self goes to the reference
// (ops_reference/op_expand_copy.c).
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::expand_copy.out
etr_error_t etr_opt_expand_copy_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  etr_tensor_t view;
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_expand_copy_out, ctx, args, num_args) != ETR_OK ||
      etr_broadcast_view(ctx, self, out->dim, out->sizes, &view) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_expand_copy_out, ctx, args, num_args);
  }
  if (!ctx->dry_run) {
    etr_move_tensor(out, &view);
  }
  return ETR_OK;
}
