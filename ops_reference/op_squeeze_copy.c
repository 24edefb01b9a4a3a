// SPDX-License-Identifier: Apache-2.0
//
// aten::squeeze_copy.dims_out: out = self without those of the listed dims
// whose size is 1 (listed dims of another size stay; a copy).
// aten::squeeze_copy.dim_out: the same for one dim.
//
// Dims wrap when negative; a dim out of range or listed twice is
// InvalidArgument. An empty list squeezes nothing. A 0-dim self accepts
// dim 0 / -1 and stays 0-dim. Any dtype; the out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::squeeze_copy.dims_out
etr_error_t etr_ref_squeeze_copy_dims_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "dim", &dims, &num_dims));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  uint32_t mask = 0;
  if (num_dims > 0) {
    ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, true, self->dim, &mask));
  }
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  int32_t dim = 0;
  for (int32_t i = 0; i < self->dim; ++i) {
    if (((mask >> i) & 1u) && self->sizes[i] == 1) {
      continue;
    }
    sizes[dim] = self->sizes[i];
    strides[dim] = self->strides[i];
    ++dim;
  }
  etr_tensor_t view;
  etr_make_view(self, 0, dim, sizes, strides, &view);
  ETR_TRY(etr_resize_out(ctx, out, view.dim, view.sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, &view);
  return ETR_OK;
}

// aten::squeeze_copy.dim_out
etr_error_t etr_ref_squeeze_copy_dim_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args,
                                         size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  int32_t squeezed = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &squeezed));
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  int32_t dim = 0;
  for (int32_t i = 0; i < self->dim; ++i) {
    if (i == squeezed && self->sizes[i] == 1) {
      continue;
    }
    sizes[dim] = self->sizes[i];
    strides[dim] = self->strides[i];
    ++dim;
  }
  etr_tensor_t view;
  etr_make_view(self, 0, dim, sizes, strides, &view);
  ETR_TRY(etr_resize_out(ctx, out, view.dim, view.sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, &view);
  return ETR_OK;
}
