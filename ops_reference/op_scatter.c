// SPDX-License-Identifier: Apache-2.0
//
// aten::scatter.src_out and aten::scatter.value_out: out = self, then
// out[index[i][j]][j] = src[i][j] (or = value) for dim 0, likewise for
// other dims.
//
// index is int64 or int32, of self's rank, no larger than self on every
// dim but `dim` and no larger than src anywhere (support/
// movement_scatter.h; no dtype or shape check when index is empty, as in
// ATen);
// its values must lie in [0, self.size(dim)) (InvalidArgument otherwise,
// checked before anything is written). Where several index entries name
// one element, the last along `dim` wins: that is ATen's serial CPU order
// (PyTorch documents the result as unspecified). src must have self's
// dtype; value is converted to it with PyTorch's checked conversion
// (support/movement_util.h), only when index is non-empty. Dtypes: every
// real dtype, Bool and complex (uint16/32/64: NotSupported); the out dtype
// must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_scatter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// Reads (self, dim, index) and out at `out_index`; checks the common part.
static etr_error_t read_common(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args, size_t out_index,
                               etr_tensor_t **self, int32_t *dim,
                               etr_tensor_t **index, etr_tensor_t **out) {
  int64_t dim_arg = 0;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "index", index));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, out_index, "out", out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", (*out)->dtype, (*self)->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", (*self)->dtype, ETR_DTYPES_ALL));
  return etr_normalize_dim(ctx, dim_arg, (*self)->dim, dim);
}

// aten::scatter.src_out
etr_error_t etr_ref_scatter_src_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  int32_t dim = 0;
  etr_tensor_t *index = NULL;
  etr_tensor_t *src = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(read_common(ctx, args, num_args, 4, &self, &dim, &index, &out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "src", &src));
  ETR_TRY(etr_movement_check_scatter(ctx, self, dim, index, src));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t self_view;
  etr_movement_nonempty_view(self, &self_view);
  ETR_TRY(etr_movement_check_index_bounds(ctx, index, dim,
                                          self_view.sizes[dim]));
  etr_movement_scatter(self, dim, index, src, NULL, ETR_MOVEMENT_ASSIGN, true,
                       out);
  return ETR_OK;
}

// aten::scatter.value_out
etr_error_t etr_ref_scatter_value_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  int32_t dim = 0;
  etr_tensor_t *index = NULL;
  etr_scalar_t value;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(read_common(ctx, args, num_args, 4, &self, &dim, &index, &out));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 3, "value", &value));
  ETR_TRY(etr_movement_check_scatter(ctx, self, dim, index, NULL));
  if (etr_numel(index) > 0) {
    // ATen converts the value inside its loop, with the checked Scalar
    // conversion (no one-element exception here).
    ETR_TRY(etr_movement_check_fill_value(ctx, "value", &value, self->dtype,
                                          0));
  }
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t self_view;
  etr_movement_nonempty_view(self, &self_view);
  ETR_TRY(etr_movement_check_index_bounds(ctx, index, dim,
                                          self_view.sizes[dim]));
  uint8_t element[16];
  etr_movement_store_scalar(out->dtype, element, &value);
  etr_movement_scatter(self, dim, index, NULL, element, ETR_MOVEMENT_ASSIGN,
                       true, out);
  return ETR_OK;
}
