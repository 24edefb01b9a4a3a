// SPDX-License-Identifier: Apache-2.0
//
// aten::slice_copy.Tensor_out: out = self[..., start:end:step, ...] along
// `dim` (a copy).
//
// start and end are optional (None = from the beginning / to the end),
// wrap when negative and are clamped to the dim's size, as Python slicing
// does; step must be positive. InvalidArgument for a bad dim, a 0-dim
// self or a non-positive step. Any dtype; the out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::slice_copy.Tensor_out
etr_error_t etr_ref_slice_copy_tensor_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  bool has_start = false;
  int64_t start = 0;
  bool has_end = false;
  int64_t end = 0;
  int64_t step = 1;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 7));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 2, "start", &has_start,
                               &start));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 3, "end", &has_end, &end));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "step", &step));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_CHECK(ctx->diag, self->dim > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: slice() cannot be applied to a 0-dim tensor",
            etr_op_name(ctx));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t first = 0;
  int64_t length = 0;
  ETR_TRY(etr_slice_bounds(ctx, self->sizes[dim], has_start, start, has_end,
                           end, step, &first, &length));
  etr_tensor_t view;
  etr_slice_view(self, dim, first, length, step, &view);
  ETR_TRY(etr_resize_out(ctx, out, view.dim, view.sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, &view);
  return ETR_OK;
}
