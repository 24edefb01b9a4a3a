// SPDX-License-Identifier: Apache-2.0
//
// Helpers of the "nn" kernel family (see nn_util.h).
#include "ops_reference/support/nn_util.h"

#include <stdio.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/shape.h"

etr_error_t etr_nn_read_ints(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, size_t index, const char *what,
                             int32_t count, bool allow_single,
                             const int64_t *fallback, int64_t *out) {
  const int64_t *items = NULL;
  size_t length = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, index, what, &items, &length));
  if (length == 0 && fallback != NULL) {
    for (int32_t i = 0; i < count; ++i) {
      out[i] = fallback[i];
    }
    return ETR_OK;
  }
  ETR_CHECK(ctx->diag,
            length == (size_t)count || (allow_single && length == 1),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: %s must be %sa list of %d ints, got %zu values",
            etr_op_name(ctx), what, allow_single ? "a single int or " : "",
            (int)count, length);
  for (int32_t i = 0; i < count; ++i) {
    out[i] = items[length == 1 ? 0 : i];
  }
  return ETR_OK;
}

etr_error_t etr_nn_read_output_mask(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, bool mask_out[3]) {
  const bool *items = NULL;
  size_t length = 0;
  ETR_TRY(etr_arg_bool_list(ctx, args, num_args, index, "output_mask", &items,
                            &length));
  ETR_CHECK(ctx->diag, length == 3, ETR_ERR_INVALID_ARGUMENT,
            "%s: output_mask must have 3 entries, got %zu", etr_op_name(ctx),
            length);
  for (int i = 0; i < 3; ++i) {
    mask_out[i] = items[i];
  }
  return ETR_OK;
}

etr_error_t etr_nn_arg_grad_out(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args,
                                size_t index, const char *what, bool wanted,
                                etr_tensor_t **out) {
  if (wanted) {
    return etr_arg_tensor(ctx, args, num_args, index, what, out);
  }
  etr_tensor_t *ignored = NULL;
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, index, what,
                                  &ignored));
  *out = NULL;
  return ETR_OK;
}

void etr_nn_batched_view(const etr_tensor_t *tensor, int32_t batched_rank,
                         etr_tensor_t *view) {
  if (tensor->dim == batched_rank) {
    etr_make_view(tensor, 0, tensor->dim, tensor->sizes, tensor->strides,
                  view);
    return;
  }
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  sizes[0] = 1;
  strides[0] = 0;
  for (int32_t d = 0; d < tensor->dim && d + 1 < ETR_MAX_DIMS; ++d) {
    sizes[d + 1] = tensor->sizes[d];
    strides[d + 1] = tensor->strides[d];
  }
  etr_make_view(tensor, 0, batched_rank, sizes, strides, view);
}

int64_t etr_nn_offset_of(const etr_tensor_t *tensor, int64_t flat) {
  int64_t offset = 0;
  for (int32_t d = tensor->dim - 1; d >= 0; --d) {
    int64_t size = tensor->sizes[d];
    if (size > 0) {
      offset += (flat % size) * tensor->strides[d];
      flat /= size;
    }
  }
  return offset;
}

static void describe_sizes(char *buffer, size_t capacity, int32_t dim,
                           const int64_t *sizes) {
  size_t used = (size_t)snprintf(buffer, capacity, "[");
  for (int32_t d = 0; d < dim && used < capacity; ++d) {
    used += (size_t)snprintf(buffer + used, capacity - used, "%s%lld",
                             d > 0 ? ", " : "", (long long)sizes[d]);
  }
  if (used < capacity) {
    snprintf(buffer + used, capacity - used, "]");
  }
}

etr_error_t etr_nn_check_shape(etr_kernel_context_t *ctx, const char *what,
                               const etr_tensor_t *tensor, int32_t dim,
                               const int64_t *sizes) {
  bool same = tensor->dim == dim;
  for (int32_t d = 0; same && d < dim; ++d) {
    same = tensor->sizes[d] == sizes[d];
  }
  if (!same) {
    char actual[160];
    char expected[160];
    describe_sizes(actual, sizeof(actual), tensor->dim, tensor->sizes);
    describe_sizes(expected, sizeof(expected), dim, sizes);
    return ETR_FAIL(ctx->diag, ETR_ERR_INVALID_ARGUMENT,
                    "%s: %s has shape %s but %s is expected",
                    etr_op_name(ctx), what, actual, expected);
  }
  return ETR_OK;
}

// Dense in the order `order` (outermost first), ignoring size-1 dims.
static bool dense_in_order(const etr_tensor_t *tensor, const int32_t *order) {
  int64_t expected = 1;
  for (int32_t i = tensor->dim - 1; i >= 0; --i) {
    int32_t d = order[i];
    if (tensor->sizes[d] == 1) {
      continue;
    }
    if (tensor->sizes[d] != 0 && tensor->strides[d] != expected) {
      return false;
    }
    expected *= tensor->sizes[d] > 0 ? tensor->sizes[d] : 1;
  }
  return true;
}

bool etr_nn_is_dense_suggested(const etr_tensor_t *tensor) {
  int32_t order[ETR_MAX_DIMS];
  for (int32_t d = 0; d < tensor->dim; ++d) {
    order[d] = d;
  }
  if (etr_numel(tensor) == 0 || dense_in_order(tensor, order)) {
    return true;
  }
  if (tensor->dim != 4 && tensor->dim != 5) {
    return false;
  }
  // N, spatial dims, C
  for (int32_t i = 1; i + 1 < tensor->dim; ++i) {
    order[i] = i + 1;
  }
  order[tensor->dim - 1] = 1;
  return dense_in_order(tensor, order);
}
