// SPDX-License-Identifier: Apache-2.0
//
// Shared pieces of the unary family's kernels (see unary_common.h).
#include "ops_reference/support/unary_common.h"

#include <math.h>

etr_error_t etr_unary_check_same_dtype(
    etr_kernel_context_t *ctx, const etr_tensor_t *self,
    const etr_tensor_t *out, const etr_unary_same_dtype_rule_t *rule) {
  if (rule->complex_refused_first) {
    ETR_CHECK(ctx->diag, !etr_scalar_type_is_complex(self->dtype),
              ETR_ERR_NOT_SUPPORTED,
              "%s: not supported for complex inputs (self is %s)",
              etr_op_name(ctx), etr_scalar_type_name(self->dtype));
  }
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  return etr_check_dtype(ctx, "self", self->dtype, rule->dtypes);
}

etr_error_t etr_unary_same_dtype_kernel(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args,
    const etr_unary_same_dtype_rule_t *rule, const etr_unary_fns_t *fns,
    const void *state) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_unary_check_same_dtype(ctx, self, out, rule));
  etr_elementwise_spec_t spec = {self->dtype, self->dtype, false};
  return etr_unary_elementwise(ctx, self, out, &spec, fns, state);
}

etr_error_t etr_unary_predicate_kernel(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args,
                                       const etr_unary_fns_t *fns) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, ETR_BOOL));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  etr_elementwise_spec_t spec = {self->dtype, ETR_BOOL, false};
  return etr_unary_elementwise(ctx, self, out, &spec, fns, NULL);
}

etr_complex_t etr_unary_complex_divide(etr_complex_t a, etr_complex_t b) {
  double abs_c = fabs(b.real);
  double abs_d = fabs(b.imag);
  etr_complex_t result;
  if (abs_c >= abs_d) {
    if (abs_c == 0.0 && abs_d == 0.0) {
      // Division by zero gives a complex infinity or NaN, part by part.
      result.real = a.real / abs_c;
      result.imag = a.imag / abs_d;
    } else {
      double ratio = b.imag / b.real;
      double scale = 1.0 / (b.real + b.imag * ratio);
      result.real = (a.real + a.imag * ratio) * scale;
      result.imag = (a.imag - a.real * ratio) * scale;
    }
  } else {
    double ratio = b.real / b.imag;
    double scale = 1.0 / (b.imag + b.real * ratio);
    result.real = (a.real * ratio + a.imag) * scale;
    result.imag = (a.imag * ratio - a.real) * scale;
  }
  return result;
}

etr_complex_t etr_unary_complex_log1p(etr_complex_t z) {
  etr_complex_t u = {z.real + 1.0, z.imag};
  if (u.real == 1.0 && u.imag == 0.0) {
    return z;
  }
  etr_complex_t log_u = etr_unary_from_c99(clog(etr_unary_to_c99(u)));
  etr_complex_t u_minus_one = {u.real - 1.0, u.imag};
  if (u_minus_one.real == z.real && u_minus_one.imag == z.imag) {
    return log_u;
  }
  etr_complex_t factor = etr_unary_complex_divide(z, u_minus_one);
  etr_complex_t result = {
      log_u.real * factor.real - log_u.imag * factor.imag,
      log_u.real * factor.imag + log_u.imag * factor.real};
  return result;
}

etr_complex_t etr_unary_complex_expm1(etr_complex_t z) {
  double half_sine = sin(z.imag / 2.0);
  etr_complex_t result = {
      expm1(z.real) * cos(z.imag) - 2.0 * half_sine * half_sine,
      exp(z.real) * sin(z.imag)};
  return result;
}
