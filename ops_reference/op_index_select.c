// SPDX-License-Identifier: Apache-2.0
//
// aten::index_select.out: out = self with only the positions `index` lists
// along `dim`, in that order (out.size(dim) = index.numel()).
//
// index is an int64 or int32 tensor of rank 0 or 1 (InvalidArgument
// otherwise: "Index is supposed to be a vector"); its values must lie in
// [0, self.size(dim)) -- negative values do not wrap -- and are all checked
// before anything is written (InvalidArgument). A non-empty index into a
// dim of size 0 is InvalidArgument. A 0-dim self takes dim 0 / -1 and an
// index of exactly one element (0), giving a 0-dim out. Any dtype
// (uint16/32/64 and complex included); the out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// aten::index_select.out
etr_error_t etr_ref_index_select_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  etr_tensor_t *index = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "index", &index));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_movement_check_index_dtype(ctx, "index", index));
  ETR_CHECK(ctx->diag, index->dim <= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: index is supposed to be a vector, not of rank %d",
            etr_op_name(ctx), (int)index->dim);
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t count = etr_numel(index);
  int64_t size = self->dim > 0 ? self->sizes[dim] : 1;
  if (self->dim == 0) {
    ETR_CHECK(ctx->diag, count == 1, ETR_ERR_INVALID_ARGUMENT,
              "%s: index to scalar can have only 1 value, got %lld value(s)",
              etr_op_name(ctx), (long long)count);
  }
  ETR_CHECK(ctx->diag, count == 0 || size > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: self indexing axis dim should be positive",
            etr_op_name(ctx));
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < self->dim; ++d) {
    sizes[d] = d == dim ? count : self->sizes[d];
  }
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  int64_t index_stride = index->dim == 1 ? index->strides[0] : 0;
  for (int64_t k = 0; k < count; ++k) {
    int64_t position = etr_movement_load_index(index, k * index_stride);
    ETR_CHECK(ctx->diag, position >= 0 && position < size,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: index %lld is out of range for dimension %d of size %lld",
              etr_op_name(ctx), (long long)position, (int)dim,
              (long long)size);
  }
  if (self->dim == 0) {
    etr_copy_strided(out, self);
    return ETR_OK;
  }
  // One slice of self per index entry.
  for (int64_t k = 0; k < count; ++k) {
    int64_t position = etr_movement_load_index(index, k * index_stride);
    etr_tensor_t source;
    etr_tensor_t target;
    etr_slice_view(self, dim, position, 1, 1, &source);
    etr_slice_view(out, dim, k, 1, 1, &target);
    etr_copy_strided(&target, &source);
  }
  return ETR_OK;
}
