// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::select_copy.int_out: the reference's view of self
// without `dim` (at `index`) moved into out by the movement engine. Every
// dtype; arguments are checked by the reference kernel's dry run
// (ops_reference/op_select_copy.c), and an out overlapping self goes to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::select_copy.int_out
etr_error_t etr_opt_select_copy_int_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_select_copy_int_out, ctx, args, num_args) !=
          ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_select_copy_int_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int64_t index = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "index", &index));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  index = index < 0 ? index + self->sizes[dim] : index;
  int64_t strides[ETR_MAX_DIMS];
  for (int32_t i = 0, target = 0; i < self->dim; ++i) {
    if (i != dim) {
      strides[target++] = self->strides[i];
    }
  }
  const char *source = (const char *)self->data;
  size_t element_size = etr_scalar_type_size(self->dtype);
  if (etr_numel(self) > 0) {
    source += index * self->strides[dim] * (int64_t)element_size;
  }
  etr_move_strided(element_size, out->dim, out->sizes, out->data,
                   out->strides, source, strides);
  return ETR_OK;
}
