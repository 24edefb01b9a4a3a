// SPDX-License-Identifier: Apache-2.0
//
// aten::select_scatter.out: out = self, except that out[..., index, ...]
// along `dim` (the slice select() would return) is src.
//
// `index` wraps when negative; outside [-size, size) is InvalidArgument
// (PyTorch's IndexError), as are a bad dim and a 0-dim self ("select()
// cannot be applied to a 0-dim tensor"). src must have exactly the
// selected slice's shape (no broadcasting; InvalidArgument otherwise) and
// may have any dtype: it is converted to self's, as PyTorch's copy_ does.
// Any self dtype; the out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::select_scatter.out
etr_error_t etr_ref_select_scatter_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args,
                                       size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *src = NULL;
  int64_t dim_arg = 0;
  int64_t index = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "src", &src));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "index", &index));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "src", src->dtype, ETR_DTYPES_NUMERIC));
  ETR_CHECK(ctx->diag, self->dim > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: select() cannot be applied to a 0-dim tensor",
            etr_op_name(ctx));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->sizes[dim];
  ETR_CHECK(ctx->diag, index >= -size && index < size,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: index %lld out of range for dimension %d of size %lld",
            etr_op_name(ctx), (long long)index, (int)dim, (long long)size);
  index = index < 0 ? index + size : index;
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  // The selected slice of out, without the selected dim.
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  for (int32_t i = 0, target = 0; i < out->dim; ++i) {
    if (i != dim) {
      sizes[target] = out->sizes[i];
      strides[target] = out->strides[i];
      ++target;
    }
  }
  etr_tensor_t slice;
  etr_make_view(out, etr_numel(out) == 0 ? 0 : index * out->strides[dim],
                out->dim - 1, sizes, strides, &slice);
  ETR_CHECK(ctx->diag, etr_tensor_same_shape(&slice, src),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected src to have a size equal to the slice of self",
            etr_op_name(ctx));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, self);
  etr_copy_strided(&slice, src);
  return ETR_OK;
}
