// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::split_with_sizes_copy.out: each piece, a slice view of
// self along `dim`, moved into its out tensor by the movement engine (one
// memcpy per piece when splitting dim 0 of a dense tensor, one per row
// otherwise). Every dtype, when every out has self's dtype; arguments
// are checked by the reference kernel's dry run
// (ops_reference/op_split_with_sizes_copy.c), and outs overlapping self go
// to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// True when args[3] is a tensor list whose tensors all have self's dtype
// and do not overlap it.
static bool outs_movable(const etr_tensor_t *self, etr_evalue_t **args,
                         size_t num_args) {
  if (num_args != 5 || args[3] == NULL ||
      args[3]->tag != ETR_TAG_LIST_TENSOR) {
    return false;
  }
  for (size_t i = 0; i < args[3]->u.as_tensor_list.length; ++i) {
    const etr_tensor_t *out = etr_tensor_list_get(args[3], i);
    if (!etr_move_same_dtype(self, out) || etr_move_overlaps(out, self)) {
      return false;
    }
  }
  return true;
}

// aten::split_with_sizes_copy.out
etr_error_t etr_opt_split_with_sizes_copy_out(etr_kernel_context_t *ctx,
                                              etr_evalue_t **args,
                                              size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  if (self == NULL ||
      etr_move_validate(etr_ref_split_with_sizes_copy_out, ctx, args,
                        num_args) != ETR_OK ||
      !outs_movable(self, args, num_args)) {
    return etr_opt_fallback(etr_ref_split_with_sizes_copy_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *split_sizes = NULL;
  size_t num_splits = 0;
  int64_t dim_arg = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "split_sizes",
                           &split_sizes, &num_splits));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t start = 0;
  for (size_t i = 0; i < num_splits; ++i) {
    etr_tensor_t view;
    etr_slice_view(self, dim, start, split_sizes[i], 1, &view);
    etr_move_tensor(etr_tensor_list_get(args[3], i), &view);
    start += split_sizes[i];
  }
  return ETR_OK;
}
