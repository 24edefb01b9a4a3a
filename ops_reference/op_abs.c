// SPDX-License-Identifier: Apache-2.0
//
// aten::abs.out: out = |self|.
//
// Real dtypes (int8..int64, uint8, Half, BFloat16, Float, Double): the out
// dtype must equal self's (InvalidArgument), and Bool and uint16/32/64 are
// NotSupported (PyTorch: "abs_cpu" not implemented), checked after the out
// dtype as ATen does. Integers wrap (abs(-128) in int8 is -128); abs(-0.0)
// is +0.0 and NaN stays NaN.
//
// Complex self gives the real magnitude hypot(re, im), as ATen's
// unary_op_impl_with_complex_to_float_out: a real out must be a floating
// dtype the value type can be cast to (ComplexFloat -> Half, BFloat16,
// Float, Double; an integral or Bool out is InvalidArgument), while a
// complex out must be self's own dtype and gets |z| + 0i.
#include <math.h>
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t abs_int(int64_t value, const void *state) {
  (void)state;
  return value < 0 ? etr_wrapping_sub(0, value) : value;
}

static double abs_double(double value, const void *state) {
  (void)state;
  return fabs(value);
}

static etr_complex_t abs_complex(etr_complex_t value, const void *state) {
  (void)state;
  etr_complex_t result = {hypot(value.real, value.imag), 0.0};
  return result;
}

static const etr_unary_fns_t kAbsFns = {abs_int, abs_double, abs_complex};

static const etr_unary_same_dtype_rule_t kAbsRule = {ETR_DTYPES_REAL, false};

// aten::abs.out
etr_error_t etr_ref_abs_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  if (!etr_dtype_in(self->dtype, ETR_DTYPES_COMPLEX)) {
    return etr_unary_same_dtype_kernel(ctx, args, num_args, &kAbsRule,
                                       &kAbsFns, NULL);
  }
  etr_scalar_type_t value_type = etr_complex_value_type(self->dtype);
  if (etr_scalar_type_is_complex(out->dtype)) {
    ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  } else {
    ETR_TRY(etr_check_can_cast(ctx, value_type, out->dtype));
  }
  // The magnitude is rounded to the value type (Float for ComplexFloat)
  // before it is stored, as ATen computes it in that type and then copies.
  etr_elementwise_spec_t spec = {
      self->dtype,
      etr_scalar_type_is_complex(out->dtype) ? self->dtype : value_type,
      false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kAbsFns, NULL);
}
