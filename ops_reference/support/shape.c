// SPDX-License-Identifier: Apache-2.0
//
// Shape rules (see shape.h).
#include "ops_reference/support/shape.h"

#include <string.h>

#include "ops_reference/support/dtype.h"

int64_t etr_numel(const etr_tensor_t *tensor) {
  int64_t numel = 1;
  for (int32_t i = 0; i < tensor->dim; ++i) {
    if (tensor->sizes[i] == 0) {
      return 0;
    }
  }
  for (int32_t i = 0; i < tensor->dim; ++i) {
    numel = etr_saturating_mul(numel, tensor->sizes[i]);
  }
  return numel;
}

etr_error_t etr_normalize_dim(etr_kernel_context_t *ctx, int64_t dim,
                              int32_t rank, int32_t *out) {
  int64_t extent = rank > 0 ? rank : 1;
  ETR_CHECK(ctx->diag, dim >= -extent && dim < extent,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: dim %lld is out of range for a tensor of rank %d (expected "
            "a dim in [%lld, %lld])",
            etr_op_name(ctx), (long long)dim, (int)rank, (long long)-extent,
            (long long)extent - 1);
  *out = (int32_t)(dim < 0 ? dim + extent : dim);
  return ETR_OK;
}

etr_error_t etr_normalize_insert_dim(etr_kernel_context_t *ctx, int64_t dim,
                                     int32_t rank, int32_t *out) {
  return etr_normalize_dim(ctx, dim, rank + 1, out);
}

etr_error_t etr_dim_list_mask(etr_kernel_context_t *ctx, const int64_t *dims,
                              size_t num_dims, bool present, int32_t rank,
                              uint32_t *mask_out) {
  uint32_t all = rank >= 32 ? 0xffffffffu : ((1u << rank) - 1u);
  if (!present || num_dims == 0) {
    *mask_out = all;
    return ETR_OK;
  }
  uint32_t mask = 0;
  for (size_t i = 0; i < num_dims; ++i) {
    int32_t dim = 0;
    ETR_TRY(etr_normalize_dim(ctx, dims[i], rank, &dim));
    ETR_CHECK(ctx->diag, (mask & (1u << dim)) == 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: dim %d appears multiple times in the list of dims",
              etr_op_name(ctx), (int)dim);
    mask |= 1u << dim;
  }
  // A 0-dim tensor accepts dim 0/-1, which names no real dimension.
  *mask_out = mask & all;
  return ETR_OK;
}

etr_error_t etr_broadcast_shapes(etr_kernel_context_t *ctx, int32_t dim_a,
                                 const int64_t *sizes_a, int32_t dim_b,
                                 const int64_t *sizes_b, int32_t *dim_out,
                                 int64_t *sizes_out) {
  int32_t dim = dim_a > dim_b ? dim_a : dim_b;
  int64_t result[ETR_MAX_DIMS];
  for (int32_t i = 0; i < dim; ++i) {
    // Position i counted from the innermost dim.
    int32_t ia = dim_a - 1 - i;
    int32_t ib = dim_b - 1 - i;
    int64_t a = ia >= 0 ? sizes_a[ia] : 1;
    int64_t b = ib >= 0 ? sizes_b[ib] : 1;
    ETR_CHECK(ctx->diag, a == b || a == 1 || b == 1, ETR_ERR_INVALID_ARGUMENT,
              "%s: the size of tensor a (%lld) must match the size of "
              "tensor b (%lld) at non-singleton dimension %d",
              etr_op_name(ctx), (long long)a, (long long)b, (int)(dim - 1 - i));
    result[dim - 1 - i] = a == 1 ? b : a;
  }
  memcpy(sizes_out, result, sizeof(int64_t) * (size_t)dim);
  *dim_out = dim;
  return ETR_OK;
}

etr_error_t etr_broadcast_tensors_shape(etr_kernel_context_t *ctx,
                                        const etr_tensor_t *const *tensors,
                                        size_t count, int32_t *dim_out,
                                        int64_t *sizes_out) {
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  for (size_t i = 0; i < count; ++i) {
    ETR_TRY(etr_broadcast_shapes(ctx, dim, sizes, tensors[i]->dim,
                                 tensors[i]->sizes, &dim, sizes));
  }
  memcpy(sizes_out, sizes, sizeof(int64_t) * (size_t)dim);
  *dim_out = dim;
  return ETR_OK;
}

bool etr_can_broadcast_to(const etr_tensor_t *tensor, int32_t dim,
                          const int64_t *sizes) {
  if (tensor->dim > dim) {
    return false;
  }
  for (int32_t i = 0; i < tensor->dim; ++i) {
    int64_t from = tensor->sizes[tensor->dim - 1 - i];
    if (from != 1 && from != sizes[dim - 1 - i]) {
      return false;
    }
  }
  return true;
}

// Dim order of a view: dims sorted by decreasing stride, ties kept in
// order, so a dense view gets the dim order it would have been built with.
static void dim_order_from_strides(const etr_tensor_t *view,
                                   uint8_t *dim_order) {
  for (int32_t i = 0; i < view->dim; ++i) {
    dim_order[i] = (uint8_t)i;
  }
  for (int32_t i = 1; i < view->dim; ++i) {
    uint8_t current = dim_order[i];
    int32_t j = i - 1;
    while (j >= 0 && view->strides[dim_order[j]] < view->strides[current]) {
      dim_order[j + 1] = dim_order[j];
      --j;
    }
    dim_order[j + 1] = current;
  }
}

void etr_make_view(const etr_tensor_t *tensor, int64_t offset, int32_t dim,
                   const int64_t *sizes, const int64_t *strides,
                   etr_tensor_t *view) {
  etr_tensor_t result;
  memset(&result, 0, sizeof(result));
  result.dtype = tensor->dtype;
  result.dim = dim;
  for (int32_t i = 0; i < dim; ++i) {
    result.sizes[i] = sizes[i];
    result.strides[i] = strides[i];
  }
  dim_order_from_strides(&result, result.dim_order);
  result.data = tensor->data == NULL
                    ? NULL
                    : (char *)tensor->data +
                          offset * (int64_t)etr_scalar_type_size(tensor->dtype);
  result.capacity_bytes = 0;
  result.shape_dynamism = ETR_SHAPE_STATIC;
  *view = result;
}

etr_error_t etr_broadcast_view(etr_kernel_context_t *ctx,
                               const etr_tensor_t *tensor, int32_t dim,
                               const int64_t *sizes, etr_tensor_t *view) {
  ETR_CHECK(ctx->diag, etr_can_broadcast_to(tensor, dim, sizes),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: a tensor of rank %d cannot be broadcast to the result shape "
            "of rank %d",
            etr_op_name(ctx), (int)tensor->dim, (int)dim);
  int64_t strides[ETR_MAX_DIMS];
  for (int32_t i = 0; i < dim; ++i) {
    int32_t source = tensor->dim - dim + i;
    strides[i] = source >= 0 && tensor->sizes[source] != 1
                     ? tensor->strides[source]
                     : 0;
  }
  etr_make_view(tensor, 0, dim, sizes, strides, view);
  return ETR_OK;
}

etr_error_t etr_resize_out(etr_kernel_context_t *ctx, etr_tensor_t *out,
                           int32_t dim, const int64_t *sizes) {
  // Checked here first because core's etr_tensor_resize records such
  // sizes as InvalidProgram in the diag while returning InvalidArgument;
  // a kernel reports one code.
  ETR_CHECK(ctx->diag, dim >= 0 && dim <= ETR_MAX_DIMS,
            ETR_ERR_INVALID_ARGUMENT, "%s: out rank %d is outside 0..%d",
            etr_op_name(ctx), (int)dim, ETR_MAX_DIMS);
  int64_t bytes = (int64_t)etr_scalar_type_size(out->dtype);
  for (int32_t i = 0; i < dim; ++i) {
    ETR_CHECK(ctx->diag,
              sizes[i] >= 0 && etr_checked_mul(bytes, sizes[i], &bytes),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: out size %lld at dim %d is negative or too large",
              etr_op_name(ctx), (long long)sizes[i], (int)i);
  }
  etr_error_t status = etr_tensor_resize(out, dim, sizes, ctx->diag);
  if (status != ETR_OK) {
    etr_diag_prefix(ctx->diag, "%s: cannot resize out", etr_op_name(ctx));
  }
  return status;
}

etr_error_t etr_resize_out_like(etr_kernel_context_t *ctx, etr_tensor_t *out,
                                const etr_tensor_t *like) {
  return etr_resize_out(ctx, out, like->dim, like->sizes);
}

etr_error_t etr_check_rank(etr_kernel_context_t *ctx, const char *what,
                           const etr_tensor_t *tensor, int32_t dim) {
  ETR_CHECK(ctx->diag, tensor->dim == dim, ETR_ERR_INVALID_ARGUMENT,
            "%s: %s must have rank %d but has rank %d", etr_op_name(ctx),
            what, (int)dim, (int)tensor->dim);
  return ETR_OK;
}

etr_error_t etr_slice_bounds(etr_kernel_context_t *ctx, int64_t size,
                             bool has_start, int64_t start, bool has_end,
                             int64_t end, int64_t step, int64_t *start_out,
                             int64_t *length_out) {
  ETR_CHECK(ctx->diag, step > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: slice step must be positive, not %lld", etr_op_name(ctx),
            (long long)step);
  start = has_start ? start : 0;
  end = has_end ? end : size;
  if (start < 0) {
    start = start < -size ? 0 : start + size;
  }
  if (end < 0) {
    end = end < -size ? 0 : end + size;
  }
  start = start > size ? size : start;
  end = end > size ? size : (end < start ? start : end);
  *start_out = start;
  // (end - start + step - 1) / step without overflow for huge steps.
  *length_out = end == start ? 0 : 1 + (end - start - 1) / step;
  return ETR_OK;
}

void etr_slice_view(const etr_tensor_t *tensor, int32_t dim, int64_t start,
                    int64_t length, int64_t step, etr_tensor_t *view) {
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  for (int32_t i = 0; i < tensor->dim; ++i) {
    sizes[i] = tensor->sizes[i];
    strides[i] = tensor->strides[i];
  }
  sizes[dim] = length;
  // With fewer than two elements the step never moves the index, and the
  // product could overflow for a huge step.
  strides[dim] =
      length > 1 ? tensor->strides[dim] * step : tensor->strides[dim];
  // An empty view is never read, and its offset might not even be
  // representable (huge sizes next to a 0), so it starts at the base.
  bool empty = length == 0 || etr_numel(tensor) == 0;
  etr_make_view(tensor, empty ? 0 : start * tensor->strides[dim],
                tensor->dim, sizes, strides, view);
}

etr_error_t etr_check_dim_order_arg(etr_kernel_context_t *ctx,
                                    const int64_t *dim_order, size_t length,
                                    bool present, int32_t rank,
                                    const etr_tensor_t *out) {
  if (!present) {
    return ETR_OK;
  }
  ETR_CHECK(ctx->diag, length == (size_t)rank && out->dim == rank,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: dim_order has %zu entries for a tensor of rank %d",
            etr_op_name(ctx), length, (int)rank);
  for (size_t i = 0; i < length; ++i) {
    ETR_CHECK(ctx->diag, dim_order[i] == out->dim_order[i],
              ETR_ERR_INVALID_ARGUMENT,
              "%s: dim_order[%zu] is %lld but the out tensor's dim order "
              "has %d there",
              etr_op_name(ctx), i, (long long)dim_order[i],
              (int)out->dim_order[i]);
  }
  // out's dim order is a valid permutation, so dim_order is one as well.
  return ETR_OK;
}

void etr_diagonal_extent(const etr_tensor_t *self, int64_t offset,
                         int32_t dim1, int32_t dim2, int64_t *length,
                         int64_t *first) {
  int64_t size1 = self->sizes[dim1];
  int64_t size2 = self->sizes[dim2];
  *length = 0;
  *first = 0;
  if (offset >= 0) {
    if (offset < size2) {
      *length = size1 < size2 - offset ? size1 : size2 - offset;
      *first = offset * self->strides[dim2];
    }
  } else if (offset > -size1) {
    *length = size1 + offset < size2 ? size1 + offset : size2;
    *first = -offset * self->strides[dim1];
  }
  if (*length <= 0) {
    *length = 0;
    *first = 0;
  }
}
