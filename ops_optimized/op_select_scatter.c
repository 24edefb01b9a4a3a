// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::select_scatter.out, for a src of self's dtype: out =
// self and then out[..., index, ...] along `dim` = src, both moved by the
// movement engine (the first is skipped when out is self, the in-place
// form). A src of another dtype and a src overlapping out go to the
// reference kernel (ops_reference/op_select_scatter.c), whose dry run also
// checks the arguments.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::select_scatter.out
etr_error_t etr_opt_select_scatter_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args,
                                       size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *src = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (!etr_move_same_dtype(self, out) || !etr_move_same_dtype(src, out) ||
      etr_opt_check(etr_ref_select_scatter_out, ctx, args, num_args) !=
          ETR_OK ||
      etr_move_overlaps(out, self) || etr_move_overlaps(out, src)) {
    return etr_opt_fallback(etr_ref_select_scatter_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int64_t index = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "index", &index));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  index = index < 0 ? index + self->sizes[dim] : index;
  etr_move_tensor(out, self);
  int64_t strides[ETR_MAX_DIMS];
  for (int32_t i = 0, target = 0; i < out->dim; ++i) {
    if (i != dim) {
      strides[target++] = out->strides[i];
    }
  }
  char *target = (char *)out->data;
  size_t element_size = etr_scalar_type_size(out->dtype);
  if (etr_numel(out) > 0) {
    target += index * out->strides[dim] * (int64_t)element_size;
  }
  etr_move_strided(element_size, src->dim, src->sizes, target, strides,
                   src->data, src->strides);
  return ETR_OK;
}
