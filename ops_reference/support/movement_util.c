// SPDX-License-Identifier: Apache-2.0
//
// Shared pieces of the data-movement kernels (see movement_util.h).
#include "ops_reference/support/movement_util.h"

#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"

etr_error_t etr_movement_check_fill_value(etr_kernel_context_t *ctx,
                                          const char *what,
                                          const etr_scalar_t *scalar,
                                          etr_scalar_type_t dtype,
                                          int64_t numel) {
  if (numel == 1 && (dtype == ETR_HALF || dtype == ETR_BFLOAT16)) {
    return ETR_OK;  // ATen's one-element fill does not check
  }
  return etr_check_scalar_fits(ctx, what, scalar, dtype);
}

void etr_movement_store_scalar(etr_scalar_type_t dtype, void *element,
                               const etr_scalar_t *scalar) {
  if (scalar->kind == ETR_SCALAR_DOUBLE) {
    etr_store_double(dtype, element, scalar->as_double);
  } else {
    etr_store_int64(dtype, element, scalar->as_int);
  }
}

void etr_movement_fill(etr_tensor_t *tensor, const void *element) {
  const etr_tensor_t *operands[1] = {tensor};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, tensor->dim, tensor->sizes, operands, 1);
  size_t size = etr_scalar_type_size(tensor->dtype);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    memcpy(etr_element_at(tensor, iter.offsets[0]), element, size);
  }
}

etr_error_t etr_movement_check_index_dtype(etr_kernel_context_t *ctx,
                                           const char *what,
                                           const etr_tensor_t *tensor) {
  ETR_CHECK(ctx->diag, tensor->dtype == ETR_LONG || tensor->dtype == ETR_INT,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: %s must be an int64 or int32 tensor, not %s",
            etr_op_name(ctx), what, etr_scalar_type_name(tensor->dtype));
  return ETR_OK;
}

int64_t etr_movement_load_index(const etr_tensor_t *tensor, int64_t offset) {
  return etr_load_int64(tensor->dtype, etr_element_at(tensor, offset));
}

etr_error_t etr_movement_check_sizes(etr_kernel_context_t *ctx,
                                     const char *what, const int64_t *sizes,
                                     size_t length) {
  ETR_CHECK(ctx->diag, length <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: %s has %zu entries, more than %d", etr_op_name(ctx), what,
            length, ETR_MAX_DIMS);
  for (size_t i = 0; i < length; ++i) {
    ETR_CHECK(ctx->diag, sizes[i] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: %s[%zu] is negative (%lld)", etr_op_name(ctx), what, i,
              (long long)sizes[i]);
  }
  return ETR_OK;
}
