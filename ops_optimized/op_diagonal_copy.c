// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::diagonal_copy.out: the reference's view of self (the two
// dims removed, the diagonal appended as the last dim with the sum of
// their strides) moved into out by the movement engine. Every dtype;
// arguments are checked by the reference kernel's dry run
// (ops_reference/op_diagonal_copy.c), and an out overlapping self goes to
// it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// The diagonal view (the arguments are valid).
static void diagonal_view(const etr_tensor_t *self, etr_evalue_t **args,
                          size_t num_args, etr_kernel_context_t *ctx,
                          etr_tensor_t *view) {
  int64_t offset = 0;
  int64_t dim1_arg = 0;
  int64_t dim2_arg = 1;
  int32_t dim1 = 0;
  int32_t dim2 = 0;
  etr_arg_int(ctx, args, num_args, 1, "offset", &offset);
  etr_arg_int(ctx, args, num_args, 2, "dim1", &dim1_arg);
  etr_arg_int(ctx, args, num_args, 3, "dim2", &dim2_arg);
  etr_normalize_dim(ctx, dim1_arg, self->dim, &dim1);
  etr_normalize_dim(ctx, dim2_arg, self->dim, &dim2);
  int64_t size1 = self->sizes[dim1];
  int64_t size2 = self->sizes[dim2];
  int64_t length = 0;
  int64_t first = 0;
  if (offset >= 0) {
    if (offset < size2) {
      length = size1 < size2 - offset ? size1 : size2 - offset;
      first = offset * self->strides[dim2];
    }
  } else if (offset > -size1) {
    length = size1 + offset < size2 ? size1 + offset : size2;
    first = -offset * self->strides[dim1];
  }
  if (length <= 0) {
    length = 0;
    first = 0;
  }
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  int32_t dim = 0;
  for (int32_t i = 0; i < self->dim; ++i) {
    if (i != dim1 && i != dim2) {
      sizes[dim] = self->sizes[i];
      strides[dim++] = self->strides[i];
    }
  }
  sizes[dim] = length;
  strides[dim++] = self->strides[dim1] + self->strides[dim2];
  etr_make_view(self, etr_numel(self) == 0 ? 0 : first, dim, sizes, strides,
                view);
}

// aten::diagonal_copy.out
etr_error_t etr_opt_diagonal_copy_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  etr_tensor_t view;
  if (!etr_move_same_dtype(self, out) ||
      etr_move_validate(etr_ref_diagonal_copy_out, ctx, args, num_args) !=
          ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_diagonal_copy_out, ctx, args, num_args);
  }
  if (!ctx->dry_run) {
    diagonal_view(self, args, num_args, ctx, &view);
    etr_move_tensor(out, &view);
  }
  return ETR_OK;
}
