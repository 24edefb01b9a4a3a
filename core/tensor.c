// SPDX-License-Identifier: Apache-2.0
//
// Tensor shape arithmetic (see tensor.h). Every size computation on values
// that may come from a program is overflow-checked.
#include "core/tensor.h"

#include <stdio.h>
#include <string.h>

int64_t etr_tensor_numel(const etr_tensor_t *tensor) {
  int64_t numel = 1;
  for (int32_t i = 0; i < tensor->dim; ++i) {
    numel *= tensor->sizes[i];
  }
  return numel;
}

size_t etr_tensor_nbytes(const etr_tensor_t *tensor) {
  return (size_t)etr_tensor_numel(tensor) *
         etr_scalar_type_size(tensor->dtype);
}

// Checks a shape: rank in range, no negative size, and neither the element
// count nor any dense stride (the product of the sizes with 0 counted as 1)
// overflows int64. `code` is the error to report (InvalidProgram for
// program data, InvalidArgument for caller-supplied shapes).
static etr_error_t check_shape(const int64_t *sizes, int32_t dim,
                               etr_error_t code, int64_t *numel_out,
                               etr_diag_t *diag) {
  ETR_CHECK(diag, dim >= 0 && dim <= ETR_MAX_DIMS, code,
            "tensor rank %d is outside 0..%d", (int)dim, ETR_MAX_DIMS);
  int64_t numel = 1;
  int64_t span = 1;
  for (int32_t i = 0; i < dim; ++i) {
    ETR_CHECK(diag, sizes[i] >= 0, code,
              "tensor size %lld at dim %d is negative", (long long)sizes[i],
              (int)i);
    int64_t extent = sizes[i] == 0 ? 1 : sizes[i];
    ETR_CHECK(diag, !__builtin_mul_overflow(span, extent, &span), code,
              "tensor shape overflows int64 at dim %d", (int)i);
    numel *= sizes[i];  // bounded by span
  }
  *numel_out = numel;
  return ETR_OK;
}

static etr_error_t check_nbytes(etr_scalar_type_t dtype, const int64_t *sizes,
                                int32_t dim, etr_error_t code,
                                size_t *nbytes_out, etr_diag_t *diag) {
  size_t element_size = etr_scalar_type_size(dtype);
  ETR_CHECK(diag, element_size != 0, code, "invalid scalar type %d",
            (int)dtype);
  int64_t numel = 0;
  ETR_TRY(check_shape(sizes, dim, code, &numel, diag));
  size_t nbytes = 0;
  ETR_CHECK(diag,
            (uint64_t)numel <= SIZE_MAX &&
                !__builtin_mul_overflow((size_t)numel, element_size, &nbytes),
            code, "tensor byte size overflows");
  *nbytes_out = nbytes;
  return ETR_OK;
}

etr_error_t etr_checked_numel(const int64_t *sizes, int32_t dim,
                              int64_t *numel_out, etr_diag_t *diag) {
  return check_shape(sizes, dim, ETR_ERR_INVALID_PROGRAM, numel_out, diag);
}

etr_error_t etr_checked_nbytes(etr_scalar_type_t dtype, const int64_t *sizes,
                               int32_t dim, size_t *nbytes_out,
                               etr_diag_t *diag) {
  return check_nbytes(dtype, sizes, dim, ETR_ERR_INVALID_PROGRAM, nbytes_out,
                      diag);
}

void etr_strides_from_dim_order(const int64_t *sizes, const uint8_t *dim_order,
                                int32_t dim, int64_t *strides_out) {
  int64_t stride = 1;
  for (int32_t i = dim - 1; i >= 0; --i) {
    uint8_t d = dim_order[i];
    strides_out[d] = stride;
    stride *= sizes[d] == 0 ? 1 : sizes[d];
  }
}

bool etr_dim_order_is_valid(const uint8_t *dim_order, int32_t dim) {
  if (dim < 0 || dim > ETR_MAX_DIMS) {
    return false;
  }
  bool seen[ETR_MAX_DIMS] = {false};
  for (int32_t i = 0; i < dim; ++i) {
    if (dim_order[i] >= dim || seen[dim_order[i]]) {
      return false;
    }
    seen[dim_order[i]] = true;
  }
  return true;
}

bool etr_dim_order_is_contiguous(const uint8_t *dim_order, int32_t dim) {
  for (int32_t i = 0; i < dim; ++i) {
    if (dim_order[i] != i) {
      return false;
    }
  }
  return true;
}

bool etr_dim_order_is_channels_last(const uint8_t *dim_order, int32_t dim) {
  if (dim == 4) {
    return dim_order[0] == 0 && dim_order[1] == 2 && dim_order[2] == 3 &&
           dim_order[3] == 1;
  }
  if (dim == 5) {
    return dim_order[0] == 0 && dim_order[1] == 2 && dim_order[2] == 3 &&
           dim_order[3] == 4 && dim_order[4] == 1;
  }
  return false;
}

etr_error_t etr_tensor_init_with_dim_order(etr_tensor_t *tensor,
                                           etr_scalar_type_t dtype,
                                           int32_t dim, const int64_t *sizes,
                                           const uint8_t *dim_order,
                                           void *data, size_t capacity_bytes,
                                           etr_diag_t *diag) {
  ETR_CHECK(diag, etr_scalar_type_is_valid((int)dtype),
            ETR_ERR_INVALID_ARGUMENT, "invalid scalar type %d", (int)dtype);
  ETR_CHECK(diag, dim >= 0 && dim <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "tensor rank %d is outside 0..%d", (int)dim, ETR_MAX_DIMS);
  ETR_CHECK(diag, etr_dim_order_is_valid(dim_order, dim),
            ETR_ERR_INVALID_ARGUMENT, "dim order is not a permutation");
  size_t nbytes = 0;
  ETR_TRY(check_nbytes(dtype, sizes, dim, ETR_ERR_INVALID_ARGUMENT, &nbytes,
                       diag));
  ETR_CHECK(diag, nbytes <= capacity_bytes, ETR_ERR_INVALID_ARGUMENT,
            "tensor needs %zu bytes but only %zu are available", nbytes,
            capacity_bytes);
  memset(tensor, 0, sizeof(*tensor));
  tensor->dtype = dtype;
  tensor->dim = dim;
  for (int32_t i = 0; i < dim; ++i) {
    tensor->sizes[i] = sizes[i];
    tensor->dim_order[i] = dim_order[i];
  }
  etr_strides_from_dim_order(tensor->sizes, tensor->dim_order, dim,
                             tensor->strides);
  tensor->data = data;
  tensor->capacity_bytes = capacity_bytes;
  tensor->shape_dynamism = ETR_SHAPE_DYNAMIC_BOUND;
  return ETR_OK;
}

etr_error_t etr_tensor_init(etr_tensor_t *tensor, etr_scalar_type_t dtype,
                            int32_t dim, const int64_t *sizes, void *data,
                            size_t capacity_bytes, etr_diag_t *diag) {
  uint8_t dim_order[ETR_MAX_DIMS];
  for (int i = 0; i < ETR_MAX_DIMS; ++i) {
    dim_order[i] = (uint8_t)i;
  }
  return etr_tensor_init_with_dim_order(tensor, dtype, dim, sizes, dim_order,
                                        data, capacity_bytes, diag);
}

etr_error_t etr_tensor_resize(etr_tensor_t *tensor, int32_t dim,
                              const int64_t *sizes, etr_diag_t *diag) {
  bool same_rank = dim == tensor->dim;
  if (same_rank) {
    bool same = true;
    for (int32_t i = 0; i < dim; ++i) {
      same = same && sizes[i] == tensor->sizes[i];
    }
    if (same) {
      return ETR_OK;
    }
  }
  ETR_CHECK(diag, tensor->shape_dynamism != ETR_SHAPE_STATIC,
            ETR_ERR_INVALID_ARGUMENT,
            "cannot resize a static-shape tensor to a different shape");
  ETR_CHECK(diag, dim >= 0 && dim <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "tensor rank %d is outside 0..%d", (int)dim, ETR_MAX_DIMS);
  bool default_order = etr_dim_order_is_contiguous(tensor->dim_order,
                                                   tensor->dim);
  ETR_CHECK(diag, same_rank || default_order, ETR_ERR_INVALID_ARGUMENT,
            "cannot change the rank (%d -> %d) of a tensor with a "
            "non-default dim order",
            (int)tensor->dim, (int)dim);
  size_t nbytes = 0;
  ETR_TRY(check_nbytes(tensor->dtype, sizes, dim, ETR_ERR_INVALID_ARGUMENT,
                       &nbytes, diag));
  ETR_CHECK(diag, nbytes <= tensor->capacity_bytes, ETR_ERR_INVALID_ARGUMENT,
            "resize needs %zu bytes but the tensor's memory holds %zu", nbytes,
            tensor->capacity_bytes);
  tensor->dim = dim;
  for (int32_t i = 0; i < dim; ++i) {
    tensor->sizes[i] = sizes[i];
    if (!same_rank) {
      tensor->dim_order[i] = (uint8_t)i;
    }
  }
  etr_strides_from_dim_order(tensor->sizes, tensor->dim_order, dim,
                             tensor->strides);
  return ETR_OK;
}

bool etr_tensor_is_dense(const etr_tensor_t *tensor) {
  int64_t expected[ETR_MAX_DIMS];
  etr_strides_from_dim_order(tensor->sizes, tensor->dim_order, tensor->dim,
                             expected);
  for (int32_t i = 0; i < tensor->dim; ++i) {
    // A dimension of extent 1 (or any dimension of an empty tensor) never
    // moves the index, so its stride does not matter.
    if (tensor->sizes[i] > 1 && tensor->strides[i] != expected[i]) {
      return false;
    }
  }
  return true;
}

bool etr_tensor_is_contiguous(const etr_tensor_t *tensor) {
  if (etr_tensor_numel(tensor) == 0) {
    return true;
  }
  int64_t expected = 1;
  for (int32_t i = tensor->dim - 1; i >= 0; --i) {
    if (tensor->sizes[i] != 1 && tensor->strides[i] != expected) {
      return false;
    }
    expected *= tensor->sizes[i];
  }
  return true;
}

bool etr_tensor_same_shape(const etr_tensor_t *a, const etr_tensor_t *b) {
  if (a->dim != b->dim) {
    return false;
  }
  for (int32_t i = 0; i < a->dim; ++i) {
    if (a->sizes[i] != b->sizes[i]) {
      return false;
    }
  }
  return true;
}

int64_t etr_tensor_offset(const etr_tensor_t *tensor, const int64_t *index) {
  int64_t offset = 0;
  for (int32_t i = 0; i < tensor->dim; ++i) {
    offset += index[i] * tensor->strides[i];
  }
  return offset;
}

bool etr_index_next(int64_t *index, const int64_t *sizes, int32_t dim) {
  for (int32_t i = dim - 1; i >= 0; --i) {
    if (++index[i] < sizes[i]) {
      return true;
    }
    index[i] = 0;
  }
  return false;
}

void etr_tensor_describe(const etr_tensor_t *tensor, char *buffer,
                         size_t capacity) {
  if (capacity == 0) {
    return;
  }
  size_t used = 0;
  int written = snprintf(buffer, capacity, "%s[",
                         etr_scalar_type_name(tensor->dtype));
  for (int32_t i = 0; written >= 0 && i < tensor->dim; ++i) {
    used += (size_t)written;
    if (used >= capacity) {
      return;
    }
    written = snprintf(buffer + used, capacity - used, i ? ", %lld" : "%lld",
                       (long long)tensor->sizes[i]);
  }
  if (written < 0) {
    return;
  }
  used += (size_t)written;
  if (used >= capacity) {
    return;
  }
  if (!etr_dim_order_is_contiguous(tensor->dim_order, tensor->dim)) {
    written = snprintf(buffer + used, capacity - used, "] dim_order(");
    for (int32_t i = 0; written >= 0 && i < tensor->dim; ++i) {
      used += (size_t)written;
      if (used >= capacity) {
        return;
      }
      written = snprintf(buffer + used, capacity - used, i ? ",%d" : "%d",
                         (int)tensor->dim_order[i]);
    }
    if (written >= 0 && used + (size_t)written < capacity) {
      snprintf(buffer + used + (size_t)written,
               capacity - used - (size_t)written, ")");
    }
    return;
  }
  snprintf(buffer + used, capacity - used, "]");
}
