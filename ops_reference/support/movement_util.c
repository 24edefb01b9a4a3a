// SPDX-License-Identifier: Apache-2.0
//
// Shared pieces of the data-movement kernels (see movement_util.h).
#include "ops_reference/support/movement_util.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"

// Range of an integral dtype as int64 (UInt64's max does not fit: it is
// handled by the callers, where every int64 fits).
static void integral_range(etr_scalar_type_t dtype, int64_t *lowest,
                           int64_t *highest) {
  switch (dtype) {
    case ETR_BYTE:
      *lowest = 0;
      *highest = UINT8_MAX;
      return;
    case ETR_CHAR:
      *lowest = INT8_MIN;
      *highest = INT8_MAX;
      return;
    case ETR_SHORT:
      *lowest = INT16_MIN;
      *highest = INT16_MAX;
      return;
    case ETR_INT:
      *lowest = INT32_MIN;
      *highest = INT32_MAX;
      return;
    case ETR_UINT16:
      *lowest = 0;
      *highest = UINT16_MAX;
      return;
    case ETR_UINT32:
      *lowest = 0;
      *highest = UINT32_MAX;
      return;
    case ETR_LONG:
    case ETR_UINT64:
    default:
      *lowest = INT64_MIN;
      *highest = INT64_MAX;
      return;
  }
}

// Largest finite value of a floating (or complex) dtype.
static double floating_max(etr_scalar_type_t dtype) {
  switch (etr_complex_value_type(dtype)) {
    case ETR_HALF:
      return 65504.0;
    case ETR_BFLOAT16:
      return 3.3895313892515355e38;
    case ETR_FLOAT:
      return FLT_MAX;
    default:
      return DBL_MAX;
  }
}

static bool int_fits(int64_t value, etr_scalar_type_t dtype) {
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  if (kind == ETR_KIND_FLOATING || kind == ETR_KIND_COMPLEX) {
    // Only Half's range is narrower than int64's.
    return etr_complex_value_type(dtype) != ETR_HALF ||
           (value >= -65504 && value <= 65504);
  }
  if (kind != ETR_KIND_INTEGRAL || dtype == ETR_LONG || dtype == ETR_UINT64) {
    return true;
  }
  int64_t lowest = 0;
  int64_t highest = 0;
  integral_range(dtype, &lowest, &highest);
  if (etr_scalar_type_is_unsigned(dtype)) {
    lowest = -highest;  // c10 lets negative integers wrap into unsigned types
  }
  return value >= lowest && value <= highest;
}

static bool double_fits(double value, etr_scalar_type_t dtype) {
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  if (kind == ETR_KIND_FLOATING || kind == ETR_KIND_COMPLEX) {
    double limit = floating_max(dtype);
    return isinf(value) || isnan(value) || (value >= -limit && value <= limit);
  }
  if (kind != ETR_KIND_INTEGRAL) {
    return true;
  }
  // c10 compares the double with the limits converted to double, so 2^63
  // still "fits" int64 (and then converts to INT64_MIN, as on x86).
  double lowest = 0.0;
  double highest = 0.0;
  if (dtype == ETR_UINT64) {
    highest = 18446744073709551616.0;
  } else {
    int64_t low = 0;
    int64_t high = 0;
    integral_range(dtype, &low, &high);
    lowest = (double)low;
    highest = (double)high;
  }
  return !isnan(value) && value >= lowest && value <= highest;
}

etr_error_t etr_movement_check_fill_value(etr_kernel_context_t *ctx,
                                          const char *what,
                                          const etr_scalar_t *scalar,
                                          etr_scalar_type_t dtype,
                                          int64_t numel) {
  bool fits = true;
  if (numel == 1 && (dtype == ETR_HALF || dtype == ETR_BFLOAT16)) {
    fits = true;  // ATen's one-element fill does not check
  } else if (scalar->kind == ETR_SCALAR_INT) {
    fits = int_fits(scalar->as_int, dtype);
  } else if (scalar->kind == ETR_SCALAR_DOUBLE) {
    fits = double_fits(scalar->as_double, dtype);
  }
  ETR_CHECK(ctx->diag, fits, ETR_ERR_INVALID_ARGUMENT,
            "%s: %s cannot be converted to type %s without overflow",
            etr_op_name(ctx), what, etr_scalar_type_name(dtype));
  return ETR_OK;
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
