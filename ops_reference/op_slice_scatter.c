// SPDX-License-Identifier: Apache-2.0
//
// aten::slice_scatter.out: out = self, except that out[..., start:end:step,
// ...] along `dim` is src.
//
// The slice follows Python's rules (see aten::slice_copy); src must have
// exactly the slice's shape (InvalidArgument otherwise, as are a bad dim,
// a 0-dim self and a non-positive step). Any dtype; the out dtype must
// equal self's, and src is converted to it.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::slice_scatter.out
etr_error_t etr_ref_slice_scatter_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *src = NULL;
  int64_t dim_arg = 0;
  bool has_start = false;
  int64_t start = 0;
  bool has_end = false;
  int64_t end = 0;
  int64_t step = 1;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "src", &src));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 3, "start", &has_start,
                               &start));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 4, "end", &has_end, &end));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 5, "step", &step));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "src", src->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_CHECK(ctx->diag, self->dim > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: slice() cannot be applied to a 0-dim tensor",
            etr_op_name(ctx));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t first = 0;
  int64_t length = 0;
  ETR_TRY(etr_slice_bounds(ctx, self->sizes[dim], has_start, start, has_end,
                           end, step, &first, &length));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  etr_tensor_t target;
  etr_slice_view(out, dim, first, length, step, &target);
  ETR_CHECK(ctx->diag, etr_tensor_same_shape(&target, src),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: src must have the shape of the slice it replaces",
            etr_op_name(ctx));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, self);
  etr_copy_strided(&target, src);
  return ETR_OK;
}
