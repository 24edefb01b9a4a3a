// SPDX-License-Identifier: Apache-2.0
//
// aten::div.out, aten::div.Scalar_out and aten::div.out_mode.
//
// True division (div.out, div.Scalar_out, and div.out_mode with
// rounding_mode None): the result dtype is torch.result_type(self, other),
// with integral and Bool results promoted to the default dtype Float
// (uint16/32/64 included); complex is supported (numpy's scaled complex
// division, as c10::complex). Division by zero follows IEEE (inf, nan).
//
// rounding_mode "trunc" / "floor": the result dtype is torch.result_type
// without the float promotion; every real result dtype, not Bool or
// complex (NotSupported, like PyTorch's "div_floor_cpu not implemented for
// 'Bool'"); integer division by zero is PyTorch's ZeroDivisionError
// (InvalidArgument). Floating floor division is ATen's div_floor_floating
// (fmod based, so -0.0 and inf come out as in PyTorch). Any other mode
// string is InvalidArgument.
#include <math.h>
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/iter.h"

static double div_true_double(double a, double b, const void *state) {
  (void)state;
  return a / b;
}

// c10::complex division (numpy's algorithm, avoiding overflow in c^2+d^2).
static etr_complex_t div_true_complex(etr_complex_t x, etr_complex_t y,
                                      const void *state) {
  (void)state;
  double a = x.real, b = x.imag, c = y.real, d = y.imag;
  etr_complex_t result;
  if (fabs(c) >= fabs(d)) {
    if (c == 0.0 && d == 0.0) {
      result.real = a / fabs(c);
      result.imag = b / fabs(d);
      return result;
    }
    double ratio = d / c;
    double scale = 1.0 / (c + d * ratio);
    result.real = (a + b * ratio) * scale;
    result.imag = (b - a * ratio) * scale;
  } else {
    double ratio = c / d;
    double scale = 1.0 / (d + c * ratio);
    result.real = (a * ratio + b) * scale;
    result.imag = (b * ratio - a) * scale;
  }
  return result;
}

static const etr_binary_fns_t kTrueDivFns = {NULL, div_true_double,
                                             div_true_complex};

// Integer quotients; the caller has ruled out b == 0 (the guard only keeps
// a bug from becoming a trap). INT64_MIN / -1 wraps.
static int64_t div_trunc_int(int64_t a, int64_t b, const void *state) {
  (void)state;
  if (b == -1) {
    return etr_wrapping_sub(0, a);
  }
  return b != 0 ? a / b : 0;
}

static int64_t div_floor_int(int64_t a, int64_t b, const void *state) {
  int64_t quotient = div_trunc_int(a, b, state);
  int64_t remainder = b == -1 || b == 0 ? 0 : a % b;
  return remainder != 0 && ((a < 0) != (b < 0)) ? quotient - 1 : quotient;
}

// Float, Half and BFloat16 results are computed in float, as ATen does
// (its op-math type): in double, trunc(1.0f / 0.1f) would be 9, not 10.
// `state` points to a bool: compute in float.
static double div_trunc_double(double a, double b, const void *state) {
  if (*(const bool *)state) {
    return truncf((float)a / (float)b);
  }
  return trunc(a / b);
}

// ATen's div_floor_floating, in float.
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

// ATen's div_floor_floating.
static double div_floor_double(double a, double b, const void *state) {
  if (*(const bool *)state) {
    return div_floor_float((float)a, (float)b);
  }
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

static const etr_binary_fns_t kTruncDivFns = {div_trunc_int, div_trunc_double,
                                              NULL};
static const etr_binary_fns_t kFloorDivFns = {div_floor_int, div_floor_double,
                                              NULL};

static etr_error_t div_true(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                            const etr_tensor_t *other, etr_scalar_type_t common,
                            etr_tensor_t *out) {
  etr_scalar_type_t result = etr_to_floating(common);
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  etr_elementwise_spec_t spec = {result, result, true};
  return etr_binary_elementwise(ctx, self, other, out, &spec, &kTrueDivFns,
                                NULL);
}

// InvalidArgument (ZeroDivisionError) when an integral divisor has a zero
// once converted to the result dtype (a Long 256 divides an int8 as 0).
static etr_error_t check_no_zero_divisor(etr_kernel_context_t *ctx,
                                         const etr_tensor_t *other,
                                         etr_scalar_type_t result) {
  const etr_tensor_t *operands[1] = {other};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, other->dim, other->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    ETR_CHECK(ctx->diag,
              etr_wrap_int64(result,
                             etr_load_int64(other->dtype,
                                            etr_element_at(
                                                other, iter.offsets[0]))) !=
                  0,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: ZeroDivisionError (integer division by zero)",
              etr_op_name(ctx));
  }
  return ETR_OK;
}

static etr_error_t div_rounding(etr_kernel_context_t *ctx,
                                const etr_tensor_t *self,
                                const etr_tensor_t *other,
                                etr_scalar_type_t result, bool floor_mode,
                                etr_tensor_t *out) {
  // PyTorch dispatches on the common dtype, so Bool operands are fine as
  // long as the other one makes the result integral or floating.
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype(ctx, "the result", result, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  if (etr_dtype_kind(result) == ETR_KIND_INTEGRAL && !ctx->dry_run) {
    ETR_TRY(check_no_zero_divisor(ctx, other, result));
  }
  etr_elementwise_spec_t spec = {result, result, false};
  bool in_float = result == ETR_FLOAT || result == ETR_HALF ||
                  result == ETR_BFLOAT16;
  return etr_binary_elementwise(ctx, self, other, out, &spec,
                                floor_mode ? &kFloorDivFns : &kTruncDivFns,
                                &in_float);
}

// aten::div.out
etr_error_t etr_ref_div_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, ETR_DTYPES_NUMERIC));
  etr_scalar_type_t common;
  ETR_TRY(etr_result_type_tensors(ctx, self, other, &common));
  return div_true(ctx, self, other, common, out);
}

// aten::div.Scalar_out
etr_error_t etr_ref_div_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t other;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  etr_scalar_type_t common;
  ETR_TRY(etr_result_type_tensor_scalar(ctx, self, &other, &common));
  etr_tensor_t other_tensor;
  uint64_t storage = 0;
  etr_scalar_to_tensor(&other, &other_tensor, &storage);
  return div_true(ctx, self, &other_tensor, common, out);
}

// aten::div.out_mode
etr_error_t etr_ref_div_out_mode(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  const char *mode = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "other", &other));
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
  etr_scalar_type_t common;
  ETR_TRY(etr_result_type_tensors(ctx, self, other, &common));
  if (mode == NULL) {
    ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
    ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, ETR_DTYPES_NUMERIC));
    return div_true(ctx, self, other, common, out);
  }
  return div_rounding(ctx, self, other, common, strcmp(mode, "floor") == 0,
                      out);
}
