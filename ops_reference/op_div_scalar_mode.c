// SPDX-License-Identifier: Apache-2.0
//
// aten::div.Scalar_mode_out: out = self / other with a Scalar divisor and
// an optional rounding mode (None, "trunc" or "floor"; any other string
// is InvalidArgument). The other div overloads are op_div.c; this one
// lives apart so it could be added without editing that file.
//
// PyTorch has no kernel of its own for this overload: the out variant is
// generated around the functional div.Scalar_mode, which divides by the
// Scalar as a wrapped number and then copies into `out`, so `out` must
// have exactly the result dtype (InvalidArgument otherwise, PyTorch's
// "Expected out tensor to have dtype float, but got long int instead"),
// not merely one the result can be cast to.
//
// rounding_mode None: true division, div.Scalar_out's semantics (that
// kernel does the work once the out dtype is checked): the result dtype is
// torch.result_type(self, other) with integral and Bool promoted to Float;
// complex supported.
//
// "trunc" / "floor": the result dtype is torch.result_type(self, other)
// (int8 // 2 stays Int8, int8 // 2.5 is Float, a Bool tensor // 2 is
// Long); Bool, complex and uint16/32/64 results are NotSupported
// ("div_floor_cpu not implemented for 'Bool'").
//   * integers: the divisor is converted to the result dtype as PyTorch
//     casts it (int8 // 1000 divides by -24, int8 // 256 by 0); a zero
//     divisor is ZeroDivisionError (InvalidArgument) when self has
//     elements; the quotient wraps (int8 -128 // -1 is -128).
//   * floating: computed in ATen's op-math type exactly as its CPU kernel
//     does with a scalar divisor: Half, BFloat16 and Float in float (the
//     divisor is the Scalar converted to float, not first rounded to Half),
//     Double in double; "trunc" is trunc(a / b), "floor" is ATen's
//     div_floor_floating (fmod based; x // 0 is the IEEE quotient, inf // 3
//     is NaN). These modes are discontinuous, so the precision of the
//     quotient is visible: Half 1.0 // 0.1 is 9 while 1.0 trunc-div 0.1 is
//     10 (1.0f / 0.1f rounds to 10.0f). This is the one place the family
//     departs from "compute in double, round once", on purpose.
#include <math.h>
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/shape.h"

typedef struct div_scalar_state {
  bool floor_mode;
  int64_t divisor_int;    // integral results: the divisor in the result dtype
  float divisor_float;    // Half, BFloat16, Float results
  double divisor_double;  // Double results
  bool in_double;         // the result is Double
} div_scalar_state_t;

// c10::div_floor_integer and truncation; b != 0 was checked, and b == -1
// is negation so that INT64_MIN / -1 wraps instead of trapping.
static int64_t div_scalar_int(int64_t a, const void *state) {
  const div_scalar_state_t *s = state;
  int64_t b = s->divisor_int;
  if (b == 0) {
    return 0;
  }
  if (b == -1) {
    return etr_wrapping_sub(0, a);
  }
  int64_t quotient = a / b;
  if (s->floor_mode && a % b != 0 && ((a < 0) != (b < 0))) {
    quotient -= 1;
  }
  return quotient;
}

// ATen's div_floor_floating in float arithmetic (C evaluates float
// expressions in float on the targets etref supports: FLT_EVAL_METHOD 0).
static float div_floor_float(float a, float b) {
  if (b == 0.0f) {
    return a / b;
  }
  float mod = fmodf(a, b);
  float quotient = (a - mod) / b;
  if (mod != 0.0f && (b < 0.0f) != (mod < 0.0f)) {
    quotient -= 1.0f;
  }
  if (quotient == 0.0f) {
    return copysignf(0.0f, a / b);
  }
  float floored = floorf(quotient);
  return quotient - floored > 0.5f ? floored + 1.0f : floored;
}

// The same in double.
static double div_floor_double(double a, double b) {
  if (b == 0.0) {
    return a / b;
  }
  double mod = fmod(a, b);
  double quotient = (a - mod) / b;
  if (mod != 0.0 && (b < 0.0) != (mod < 0.0)) {
    quotient -= 1.0;
  }
  if (quotient == 0.0) {
    return copysign(0.0, a / b);
  }
  double floored = floor(quotient);
  return quotient - floored > 0.5 ? floored + 1.0 : floored;
}

static double div_scalar_double(double a, const void *state) {
  const div_scalar_state_t *s = state;
  if (s->in_double) {
    return s->floor_mode ? div_floor_double(a, s->divisor_double)
                         : trunc(a / s->divisor_double);
  }
  float a_float = (float)a;  // exact: `a` already holds a value of the dtype
  return s->floor_mode ? div_floor_float(a_float, s->divisor_float)
                       : truncf(a_float / s->divisor_float);
}

static const etr_unary_fns_t kDivScalarFns = {div_scalar_int,
                                              div_scalar_double, NULL};

// c10's Scalar -> float conversion (an Int goes straight to float).
static float scalar_to_float(const etr_scalar_t *scalar) {
  return scalar->kind == ETR_SCALAR_DOUBLE ? (float)scalar->as_double
                                           : (float)scalar->as_int;
}

// aten::div.Scalar_mode_out
etr_error_t etr_ref_div_scalar_mode_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t other;
  const char *mode = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_optional_string(ctx, args, num_args, 2, "rounding_mode",
                                  &mode));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_CHECK(ctx->diag,
            mode == NULL || strcmp(mode, "trunc") == 0 ||
                strcmp(mode, "floor") == 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: div expected rounding_mode to be one of None, 'trunc', or "
            "'floor' but found '%s'",
            etr_op_name(ctx), mode);
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  etr_scalar_type_t common;
  ETR_TRY(etr_result_type_tensor_scalar(ctx, self, &other, &common));

  if (mode == NULL) {
    ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype,
                                  etr_to_floating(common)));
    etr_evalue_t *div_args[4] = {args[0], args[1], args[3], args[4]};
    return etr_ref_div_scalar_out(ctx, div_args, 4);
  }

  ETR_TRY(etr_check_dtype(ctx, "the result", common, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, common));
  div_scalar_state_t state;
  memset(&state, 0, sizeof(state));
  state.floor_mode = strcmp(mode, "floor") == 0;
  if (etr_dtype_kind(common) == ETR_KIND_INTEGRAL) {
    state.divisor_int = etr_wrap_int64(common, other.as_int);
    ETR_CHECK(ctx->diag, state.divisor_int != 0 || etr_numel(self) == 0,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: ZeroDivisionError (integer division by zero)",
              etr_op_name(ctx));
  } else {
    state.in_double = common == ETR_DOUBLE;
    state.divisor_double = other.as_double;
    state.divisor_float = scalar_to_float(&other);
  }
  etr_elementwise_spec_t spec = {common, common, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kDivScalarFns, &state);
}
