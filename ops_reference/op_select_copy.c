// SPDX-License-Identifier: Apache-2.0
//
// aten::select_copy.int_out: out = self[..., index, ...] along `dim`,
// which removes that dim (a copy).
//
// `index` wraps when negative; outside [-size, size) it is
// InvalidArgument (PyTorch's IndexError), as are a bad dim and a 0-dim
// self. Any dtype; the out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::select_copy.int_out
etr_error_t etr_ref_select_copy_int_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  int64_t index = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "index", &index));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_CHECK(ctx->diag, self->dim > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: select() cannot be applied to a 0-dim tensor",
            etr_op_name(ctx));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->sizes[dim];
  ETR_CHECK(ctx->diag, index >= -size && index < size,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: index %lld is out of range for dimension %d of size %lld",
            etr_op_name(ctx), (long long)index, (int)dim, (long long)size);
  index = index < 0 ? index + size : index;
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  for (int32_t i = 0, target = 0; i < self->dim; ++i) {
    if (i != dim) {
      sizes[target] = self->sizes[i];
      strides[target] = self->strides[i];
      ++target;
    }
  }
  etr_tensor_t view;
  int64_t offset = etr_numel(self) == 0 ? 0 : index * self->strides[dim];
  etr_make_view(self, offset, self->dim - 1, sizes, strides, &view);
  ETR_TRY(etr_resize_out(ctx, out, view.dim, view.sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, &view);
  return ETR_OK;
}
