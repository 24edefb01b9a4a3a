// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::index_select.out: the slices of self the index lists,
// gathered into out by etr_move_index_select (whole rows with memcpy when
// both are dense, typed element moves for a selection along the innermost
// dim, a strided move per slice otherwise). Every dtype; arguments are
// checked by the reference kernel's dry run
// (ops_reference/op_index_select.c). An index out of range (reported by
// the reference, which checks every entry before writing) and an out
// overlapping self go to the reference.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::index_select.out
etr_error_t etr_opt_index_select_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *index = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_index_select_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_index_select_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->dim > 0 ? self->sizes[dim] : 1;
  if (!etr_move_indices_in_range(index, size, false)) {
    return etr_opt_fallback(etr_ref_index_select_out, ctx, args, num_args);
  }
  if (self->dim == 0) {
    etr_move_tensor(out, self);  // the one entry is 0
    return ETR_OK;
  }
  etr_move_index_select(out, self, dim, index, false);
  return ETR_OK;
}
