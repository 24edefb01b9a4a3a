// SPDX-License-Identifier: Apache-2.0
//
// aten::as_strided_copy.out: out = a copy of the view of self's memory with
// the given sizes, strides (in elements) and storage offset.
//
// Memory model: etref tensors have no separate storage offset, so self's
// storage starts at self->data and a missing storage_offset is 0 (PyTorch
// uses self.storage_offset(), which is where data points). The storage
// is the memory self's own elements span: numel elements for a dense self,
// 1 + sum(stride * (size - 1)) for a strided one (what PyTorch's storage
// holds for a freshly made tensor), never more than capacity_bytes. Like
// PyTorch, the view addresses raw memory, so a channels-last self is read
// in its memory order.
//
// Checks, all InvalidArgument as PyTorch's RuntimeErrors: size and stride
// of different lengths (or more than ETR_MAX_DIMS entries), a negative
// size, a negative stride ("Negative strides are not supported"), a
// negative storage offset, and a view reaching past the storage
// (storage_offset + 1 + sum(stride * (size - 1)) elements, computed
// without overflow); a view with no elements is never out of bounds. Any
// dtype; the out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// Elements of memory a tensor's own elements span (0 when it has none).
static int64_t storage_elements(const etr_tensor_t *tensor) {
  if (etr_numel(tensor) == 0) {
    return 0;
  }
  int64_t extent = 1;
  for (int32_t i = 0; i < tensor->dim; ++i) {
    int64_t step = 0;
    if (!etr_checked_mul(tensor->strides[i], tensor->sizes[i] - 1, &step) ||
        !etr_checked_add(extent, step, &extent)) {
      return 0;  // not a tensor any program can hold; nothing is readable
    }
  }
  size_t element_size = etr_scalar_type_size(tensor->dtype);
  if (tensor->capacity_bytes > 0 && element_size > 0 &&
      (uint64_t)extent > tensor->capacity_bytes / element_size) {
    extent = (int64_t)(tensor->capacity_bytes / element_size);
  }
  return extent;
}

// aten::as_strided_copy.out
etr_error_t etr_ref_as_strided_copy_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *sizes = NULL;
  size_t num_sizes = 0;
  const int64_t *strides = NULL;
  size_t num_strides = 0;
  bool has_offset = false;
  int64_t offset = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "size", &sizes,
                           &num_sizes));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 2, "stride", &strides,
                           &num_strides));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 3, "storage_offset",
                               &has_offset, &offset));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_CHECK(ctx->diag, num_sizes == num_strides, ETR_ERR_INVALID_ARGUMENT,
            "%s: mismatch in length of strides and shape (%zu sizes, %zu "
            "strides)",
            etr_op_name(ctx), num_sizes, num_strides);
  ETR_CHECK(ctx->diag, num_sizes <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: %zu dims is more than %d", etr_op_name(ctx), num_sizes,
            ETR_MAX_DIMS);
  offset = has_offset ? offset : 0;
  ETR_CHECK(ctx->diag, offset >= 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: invalid storage offset %lld", etr_op_name(ctx),
            (long long)offset);
  bool empty = false;
  for (size_t i = 0; i < num_sizes; ++i) {
    ETR_CHECK(ctx->diag, sizes[i] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: size[%zu] is negative (%lld)", etr_op_name(ctx), i,
              (long long)sizes[i]);
    ETR_CHECK(ctx->diag, strides[i] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: negative strides are not supported (stride[%zu] is %lld)",
              etr_op_name(ctx), i, (long long)strides[i]);
    empty = empty || sizes[i] == 0;
  }
  if (!empty) {
    // offset + 1 + sum(stride * (size - 1)) elements must lie in storage.
    int64_t needed = 1;
    bool ok = etr_checked_add(needed, offset, &needed);
    for (size_t i = 0; i < num_sizes && ok; ++i) {
      int64_t step = 0;
      ok = etr_checked_mul(strides[i], sizes[i] - 1, &step) &&
           etr_checked_add(needed, step, &needed);
    }
    int64_t available = storage_elements(self);
    ETR_CHECK(ctx->diag, ok && needed <= available, ETR_ERR_INVALID_ARGUMENT,
              "%s: the view (sizes, strides and storage offset %lld) is out "
              "of bounds for a storage of %lld elements",
              etr_op_name(ctx), (long long)offset, (long long)available);
  }
  ETR_TRY(etr_resize_out(ctx, out, (int32_t)num_sizes, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t view;
  etr_make_view(self, empty ? 0 : offset, (int32_t)num_sizes, sizes, strides,
                &view);
  etr_copy_strided(out, &view);
  return ETR_OK;
}
