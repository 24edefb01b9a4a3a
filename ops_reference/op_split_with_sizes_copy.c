// SPDX-License-Identifier: Apache-2.0
//
// aten::split_with_sizes_copy.out: splits self along `dim` into pieces of
// split_sizes[i] and copies piece i into out[i].
//
// Arguments: (self, split_sizes, dim, out: Tensor[], return slot: the same
// TensorList; the schema returns nothing). The sizes must be non-negative
// and sum to self's size at `dim`, and `out` must hold one tensor per
// size; InvalidArgument otherwise, and for a bad dim or a 0-dim self.
// Every out tensor is resized to its piece's shape. Any dtype; every out
// dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::split_with_sizes_copy.out
etr_error_t etr_ref_split_with_sizes_copy_out(etr_kernel_context_t *ctx,
                                              etr_evalue_t **args,
                                              size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *split_sizes = NULL;
  size_t num_splits = 0;
  int64_t dim_arg = 0;
  etr_evalue_t *outs = NULL;
  size_t num_outs = 0;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "split_sizes",
                           &split_sizes, &num_splits));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor_list(ctx, args, num_args, 3, "out", &outs,
                              &num_outs));
  ETR_CHECK(ctx->diag, self->dim > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: split expects at least a 1-dimensional tensor",
            etr_op_name(ctx));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  ETR_CHECK(ctx->diag, num_outs == num_splits, ETR_ERR_INVALID_ARGUMENT,
            "%s: %zu split sizes but %zu out tensors", etr_op_name(ctx),
            num_splits, num_outs);
  int64_t total = 0;
  for (size_t i = 0; i < num_splits; ++i) {
    ETR_CHECK(ctx->diag, split_sizes[i] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: split_sizes[%zu] is negative (%lld)", etr_op_name(ctx), i,
              (long long)split_sizes[i]);
    // Compared before adding, so absurd sizes cannot overflow the sum.
    ETR_CHECK(ctx->diag, split_sizes[i] <= self->sizes[dim] - total,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: split_sizes add up to more than the size %lld of dim %d",
              etr_op_name(ctx), (long long)self->sizes[dim], (int)dim);
    total += split_sizes[i];
    const etr_tensor_t *piece = etr_tensor_list_get(outs, i);
    ETR_TRY(etr_check_dtype_equal(ctx, "out", piece->dtype, self->dtype));
  }
  ETR_CHECK(ctx->diag, total == self->sizes[dim], ETR_ERR_INVALID_ARGUMENT,
            "%s: split_sizes add up to %lld but dim %d has size %lld",
            etr_op_name(ctx), (long long)total, (int)dim,
            (long long)self->sizes[dim]);
  // Resize every piece first so a dry run sees them all.
  for (int pass = 0; pass < 2; ++pass) {
    int64_t start = 0;
    for (size_t i = 0; i < num_splits; ++i) {
      etr_tensor_t *out = etr_tensor_list_get(outs, i);
      etr_tensor_t view;
      etr_slice_view(self, dim, start, split_sizes[i], 1, &view);
      if (pass == 0) {
        ETR_TRY(etr_resize_out(ctx, out, view.dim, view.sizes));
      } else {
        etr_copy_strided(out, &view);
      }
      start += split_sizes[i];
    }
    if (ctx->dry_run) {
      return ETR_OK;  // shapes checked and outs resized; no data touched
    }
  }
  return ETR_OK;
}
