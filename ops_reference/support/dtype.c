// SPDX-License-Identifier: Apache-2.0
//
// Dtype rules (see dtype.h). The promotion rules follow c10/core/
// ScalarType.cpp (promoteTypes) and ATen's ResultTypeState
// (aten/src/ATen/native/TypeProperties.cpp); the test compares
// etr_promote_types with torch.promote_types over every pair.
#include "ops_reference/support/dtype.h"

#include <float.h>
#include <math.h>

const char *etr_op_name(const etr_kernel_context_t *ctx) {
  return ctx != NULL && ctx->op_name != NULL ? ctx->op_name : "kernel";
}

etr_dtype_kind_t etr_dtype_kind(etr_scalar_type_t type) {
  switch (type) {
    case ETR_BOOL:
      return ETR_KIND_BOOL;
    case ETR_BYTE:
    case ETR_CHAR:
    case ETR_SHORT:
    case ETR_INT:
    case ETR_LONG:
    case ETR_UINT16:
    case ETR_UINT32:
    case ETR_UINT64:
      return ETR_KIND_INTEGRAL;
    case ETR_HALF:
    case ETR_BFLOAT16:
    case ETR_FLOAT:
    case ETR_DOUBLE:
      return ETR_KIND_FLOATING;
    case ETR_COMPLEX_HALF:
    case ETR_COMPLEX_FLOAT:
    case ETR_COMPLEX_DOUBLE:
      return ETR_KIND_COMPLEX;
    default:
      return ETR_KIND_OTHER;
  }
}

etr_error_t etr_check_dtype(etr_kernel_context_t *ctx, const char *what,
                            etr_scalar_type_t type, etr_dtype_set_t set) {
  ETR_CHECK(ctx->diag, etr_dtype_in(type, set), ETR_ERR_NOT_SUPPORTED,
            "%s: %s has dtype %s, which this kernel does not support",
            etr_op_name(ctx), what, etr_scalar_type_name(type));
  return ETR_OK;
}

etr_error_t etr_check_dtype_equal(etr_kernel_context_t *ctx, const char *what,
                                  etr_scalar_type_t actual,
                                  etr_scalar_type_t expected) {
  ETR_CHECK(ctx->diag, actual == expected, ETR_ERR_INVALID_ARGUMENT,
            "%s: %s has dtype %s but %s is required", etr_op_name(ctx), what,
            etr_scalar_type_name(actual), etr_scalar_type_name(expected));
  return ETR_OK;
}

// Rank of a real dtype inside its category, used to pick the wider type.
static int integral_rank(etr_scalar_type_t type) {
  switch (type) {
    case ETR_CHAR:
      return 1;
    case ETR_SHORT:
      return 2;
    case ETR_INT:
      return 3;
    case ETR_LONG:
      return 4;
    default:
      return 0;  // Byte is handled apart (it is unsigned)
  }
}

static etr_scalar_type_t promote_integral(etr_scalar_type_t a,
                                          etr_scalar_type_t b) {
  if (a == ETR_BYTE || b == ETR_BYTE) {
    // uint8 with a signed type needs a signed type holding 0..255.
    etr_scalar_type_t other = a == ETR_BYTE ? b : a;
    return other == ETR_CHAR ? ETR_SHORT : other;
  }
  return integral_rank(a) >= integral_rank(b) ? a : b;
}

static etr_scalar_type_t promote_floating(etr_scalar_type_t a,
                                          etr_scalar_type_t b) {
  if (a == b) {
    return a;
  }
  if (a == ETR_DOUBLE || b == ETR_DOUBLE) {
    return ETR_DOUBLE;
  }
  // Half with BFloat16 (neither holds the other) or either with Float.
  return ETR_FLOAT;
}

static etr_scalar_type_t to_complex(etr_scalar_type_t value_type) {
  switch (value_type) {
    case ETR_HALF:
      return ETR_COMPLEX_HALF;
    case ETR_FLOAT:
      return ETR_COMPLEX_FLOAT;
    case ETR_DOUBLE:
      return ETR_COMPLEX_DOUBLE;
    default:
      return ETR_SCALAR_TYPE_UNDEFINED;
  }
}

etr_scalar_type_t etr_complex_value_type(etr_scalar_type_t type) {
  switch (type) {
    case ETR_COMPLEX_HALF:
      return ETR_HALF;
    case ETR_COMPLEX_FLOAT:
      return ETR_FLOAT;
    case ETR_COMPLEX_DOUBLE:
      return ETR_DOUBLE;
    default:
      return type;
  }
}

static bool is_barebones_unsigned(etr_scalar_type_t type) {
  return type == ETR_UINT16 || type == ETR_UINT32 || type == ETR_UINT64;
}

etr_scalar_type_t etr_promote_types(etr_scalar_type_t a, etr_scalar_type_t b) {
  if (!etr_scalar_type_is_valid((int)a) || !etr_scalar_type_is_valid((int)b)) {
    return ETR_SCALAR_TYPE_UNDEFINED;
  }
  if (a == b) {
    return a;
  }
  etr_dtype_kind_t kind_a = etr_dtype_kind(a);
  etr_dtype_kind_t kind_b = etr_dtype_kind(b);
  if (kind_a == ETR_KIND_OTHER || kind_b == ETR_KIND_OTHER) {
    return ETR_SCALAR_TYPE_UNDEFINED;
  }
  if (is_barebones_unsigned(a) || is_barebones_unsigned(b)) {
    // PyTorch promotes uint16..64 only to a floating type.
    if (kind_a == ETR_KIND_FLOATING) {
      return a;
    }
    return kind_b == ETR_KIND_FLOATING ? b : ETR_SCALAR_TYPE_UNDEFINED;
  }
  if (kind_a == ETR_KIND_BOOL) {
    return b;
  }
  if (kind_b == ETR_KIND_BOOL) {
    return a;
  }
  if (kind_a == ETR_KIND_COMPLEX || kind_b == ETR_KIND_COMPLEX) {
    etr_scalar_type_t value_a = etr_complex_value_type(a);
    etr_scalar_type_t value_b = etr_complex_value_type(b);
    // An integral partner does not widen the complex value type.
    if (etr_dtype_kind(value_a) != ETR_KIND_FLOATING) {
      return b;
    }
    if (etr_dtype_kind(value_b) != ETR_KIND_FLOATING) {
      return a;
    }
    return to_complex(promote_floating(value_a, value_b));
  }
  if (kind_a == ETR_KIND_FLOATING && kind_b == ETR_KIND_FLOATING) {
    return promote_floating(a, b);
  }
  if (kind_a == ETR_KIND_FLOATING) {
    return a;
  }
  if (kind_b == ETR_KIND_FLOATING) {
    return b;
  }
  return promote_integral(a, b);
}

etr_error_t etr_promote_types_checked(etr_kernel_context_t *ctx,
                                      etr_scalar_type_t a,
                                      etr_scalar_type_t b,
                                      etr_scalar_type_t *out) {
  etr_scalar_type_t result = etr_promote_types(a, b);
  ETR_CHECK(ctx->diag, result != ETR_SCALAR_TYPE_UNDEFINED,
            ETR_ERR_INVALID_ARGUMENT, "%s: cannot promote %s and %s",
            etr_op_name(ctx), etr_scalar_type_name(a),
            etr_scalar_type_name(b));
  *out = result;
  return ETR_OK;
}

etr_scalar_type_t etr_scalar_dtype(const etr_scalar_t *scalar) {
  switch (scalar->kind) {
    case ETR_SCALAR_BOOL:
      return ETR_BOOL;
    case ETR_SCALAR_DOUBLE:
      return ETR_DOUBLE;
    case ETR_SCALAR_INT:
    default:
      return ETR_LONG;
  }
}

void etr_result_type_init(etr_result_type_t *state) {
  state->dim_result = ETR_SCALAR_TYPE_UNDEFINED;
  state->zero_dim_result = ETR_SCALAR_TYPE_UNDEFINED;
  state->wrapped_result = ETR_SCALAR_TYPE_UNDEFINED;
  state->failed = false;
}

// Promotion that treats UNDEFINED as "no operand yet".
static etr_scalar_type_t promote_skip_undefined(etr_scalar_type_t a,
                                                etr_scalar_type_t b,
                                                bool *failed) {
  if (a == ETR_SCALAR_TYPE_UNDEFINED) {
    return b;
  }
  if (b == ETR_SCALAR_TYPE_UNDEFINED) {
    return a;
  }
  etr_scalar_type_t result = etr_promote_types(a, b);
  if (result == ETR_SCALAR_TYPE_UNDEFINED) {
    *failed = true;
  }
  return result;
}

void etr_result_type_add_tensor(etr_result_type_t *state,
                                const etr_tensor_t *tensor) {
  etr_scalar_type_t *group =
      tensor->dim > 0 ? &state->dim_result : &state->zero_dim_result;
  *group = promote_skip_undefined(*group, tensor->dtype, &state->failed);
}

void etr_result_type_add_scalar(etr_result_type_t *state,
                                const etr_scalar_t *scalar) {
  etr_scalar_type_t type = etr_scalar_dtype(scalar);
  if (type == ETR_DOUBLE) {
    type = ETR_FLOAT;  // a Python float enters as the default dtype
  }
  state->wrapped_result =
      promote_skip_undefined(state->wrapped_result, type, &state->failed);
}

// ATen's combine_categories: `lower` (a lower-priority group) only matters
// when its category is above that of `higher`.
static etr_scalar_type_t combine_categories(etr_scalar_type_t higher,
                                            etr_scalar_type_t lower,
                                            bool *failed) {
  if (higher == ETR_SCALAR_TYPE_UNDEFINED) {
    return lower;
  }
  if (lower == ETR_SCALAR_TYPE_UNDEFINED) {
    return higher;
  }
  etr_dtype_kind_t kind_higher = etr_dtype_kind(higher);
  etr_dtype_kind_t kind_lower = etr_dtype_kind(lower);
  if (kind_higher == ETR_KIND_COMPLEX) {
    return higher;
  }
  if (kind_lower == ETR_KIND_COMPLEX) {
    // Keep the value type of a floating `higher`: Float + 1j -> ComplexFloat.
    if (kind_higher == ETR_KIND_FLOATING) {
      return to_complex(higher == ETR_BFLOAT16 ? ETR_FLOAT : higher);
    }
    return lower;
  }
  if (kind_higher == ETR_KIND_FLOATING) {
    return higher;
  }
  if (kind_higher == ETR_KIND_BOOL || kind_lower == ETR_KIND_FLOATING) {
    return promote_skip_undefined(higher, lower, failed);
  }
  return higher;
}

etr_error_t etr_result_type_get(etr_kernel_context_t *ctx,
                                const etr_result_type_t *state,
                                etr_scalar_type_t *out) {
  bool failed = state->failed;
  etr_scalar_type_t result = combine_categories(
      state->dim_result,
      combine_categories(state->zero_dim_result, state->wrapped_result,
                         &failed),
      &failed);
  ETR_CHECK(ctx->diag, !failed && result != ETR_SCALAR_TYPE_UNDEFINED,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: the operand dtypes cannot be promoted to a common dtype",
            etr_op_name(ctx));
  *out = result;
  return ETR_OK;
}

etr_error_t etr_result_type_tensors(etr_kernel_context_t *ctx,
                                    const etr_tensor_t *a,
                                    const etr_tensor_t *b,
                                    etr_scalar_type_t *out) {
  etr_result_type_t state;
  etr_result_type_init(&state);
  etr_result_type_add_tensor(&state, a);
  etr_result_type_add_tensor(&state, b);
  return etr_result_type_get(ctx, &state, out);
}

etr_error_t etr_result_type_tensor_scalar(etr_kernel_context_t *ctx,
                                          const etr_tensor_t *a,
                                          const etr_scalar_t *b,
                                          etr_scalar_type_t *out) {
  etr_result_type_t state;
  etr_result_type_init(&state);
  etr_result_type_add_tensor(&state, a);
  etr_result_type_add_scalar(&state, b);
  return etr_result_type_get(ctx, &state, out);
}

bool etr_can_cast(etr_scalar_type_t from, etr_scalar_type_t to) {
  etr_dtype_kind_t kind_from = etr_dtype_kind(from);
  etr_dtype_kind_t kind_to = etr_dtype_kind(to);
  if (kind_from == ETR_KIND_COMPLEX && kind_to != ETR_KIND_COMPLEX) {
    return false;
  }
  if (kind_from == ETR_KIND_FLOATING &&
      (kind_to == ETR_KIND_INTEGRAL || kind_to == ETR_KIND_BOOL)) {
    return false;
  }
  if (kind_from != ETR_KIND_BOOL && kind_to == ETR_KIND_BOOL) {
    return false;
  }
  return true;
}

etr_error_t etr_check_can_cast(etr_kernel_context_t *ctx,
                               etr_scalar_type_t result,
                               etr_scalar_type_t out) {
  ETR_CHECK(ctx->diag, etr_can_cast(result, out), ETR_ERR_INVALID_ARGUMENT,
            "%s: result type %s can't be cast to the desired output type %s",
            etr_op_name(ctx), etr_scalar_type_name(result),
            etr_scalar_type_name(out));
  return ETR_OK;
}

etr_scalar_type_t etr_to_floating(etr_scalar_type_t type) {
  etr_dtype_kind_t kind = etr_dtype_kind(type);
  return kind == ETR_KIND_BOOL || kind == ETR_KIND_INTEGRAL ? ETR_FLOAT : type;
}

// Largest value of an integral or floating dtype (0 when it has none here).
static double max_of(etr_scalar_type_t type) {
  switch (type) {
    case ETR_BYTE:
      return 255.0;
    case ETR_CHAR:
      return 127.0;
    case ETR_SHORT:
      return 32767.0;
    case ETR_INT:
      return 2147483647.0;
    case ETR_LONG:
      return 9223372036854775807.0;
    case ETR_UINT16:
      return 65535.0;
    case ETR_UINT32:
      return 4294967295.0;
    case ETR_UINT64:
      return 18446744073709551615.0;
    case ETR_HALF:
    case ETR_COMPLEX_HALF:
      return 65504.0;
    case ETR_BFLOAT16:
      return 3.3895313892515355e38;
    case ETR_FLOAT:
    case ETR_COMPLEX_FLOAT:
      return FLT_MAX;
    default:
      return DBL_MAX;
  }
}

etr_error_t etr_check_scalar_fits(etr_kernel_context_t *ctx, const char *what,
                                  const etr_scalar_t *scalar,
                                  etr_scalar_type_t type) {
  etr_dtype_kind_t kind = etr_dtype_kind(type);
  bool fits = true;
  double limit = max_of(type);
  if (kind == ETR_KIND_BOOL) {
    fits = true;  // c10 converts any value to Bool as "!= 0"
  } else if (kind == ETR_KIND_FLOATING || kind == ETR_KIND_COMPLEX) {
    double value = scalar->as_double;
    fits = isinf(value) || isnan(value) || fabs(value) <= limit;
  } else if (kind == ETR_KIND_INTEGRAL) {
    bool is_unsigned = etr_scalar_type_is_unsigned(type);
    if (scalar->kind == ETR_SCALAR_DOUBLE) {
      // c10's overflows<To, double>: value < lowest() || value > max(),
      // with an unsigned type's lowest() 0, so -0.5 and -2.5 do not fit
      // uint8 (-0.0 does).
      double value = scalar->as_double;
      double lowest = is_unsigned ? 0.0 : -limit - 1.0;
      fits = !isnan(value) && value >= lowest && value <= limit;
    } else if (type != ETR_LONG && type != ETR_UINT64) {
      // c10's overflows<To, int64_t> lets a negative integer wrap into an
      // unsigned type when -value <= max (-1 into uint8 is 255). Narrower
      // than int64: the int64 value converts to double exactly enough to
      // compare with these small limits.
      double lowest = is_unsigned ? -limit : -limit - 1.0;
      double value = (double)scalar->as_int;
      fits = value >= lowest && value <= limit;
    }
  }
  ETR_CHECK(ctx->diag, fits, ETR_ERR_INVALID_ARGUMENT,
            "%s: %s cannot be converted to type %s without overflow",
            etr_op_name(ctx), what, etr_scalar_type_name(type));
  return ETR_OK;
}
