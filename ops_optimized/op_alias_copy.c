// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::alias_copy.out: self moved into out by the movement
// engine (one memcpy when both are dense in the same dim order). Every
// dtype; arguments are checked by the reference kernel's dry run
// (ops_reference/op_alias_copy.c), and an out overlapping self goes to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::alias_copy.out
etr_error_t etr_opt_alias_copy_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_alias_copy_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_alias_copy_out, ctx, args, num_args);
  }
  if (!ctx->dry_run) {
    etr_move_tensor(out, self);
  }
  return ETR_OK;
}
