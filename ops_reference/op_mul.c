// SPDX-License-Identifier: Apache-2.0
//
// aten::mul.out and aten::mul.Scalar_out: out = self * other.
//
// Dtypes: the result dtype is torch.result_type(self, other) (a Scalar
// `other` takes part as a Python number); every real dtype, Bool (where
// multiplication is logical and), complex and uint16/32/64 (which PyTorch
// multiplies, though it does not add them). The out dtype must be one
// the result can be cast to (InvalidArgument otherwise). Integers wrap;
// floating types are computed in double and rounded to the result dtype; a
// single-element `other` of another dtype keeps its float value when the
// result is Half or BFloat16, as ATen's mul kernel reads it.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

static int64_t mul_int(int64_t a, int64_t b, const void *state) {
  (void)state;
  return etr_wrapping_mul(a, b);
}

static double mul_double(double a, double b, const void *state) {
  (void)state;
  return a * b;
}

static etr_complex_t mul_complex(etr_complex_t a, etr_complex_t b,
                                 const void *state) {
  (void)state;
  etr_complex_t result = {a.real * b.real - a.imag * b.imag,
                          a.real * b.imag + a.imag * b.real};
  return result;
}

static const etr_binary_fns_t kMulFns = {mul_int, mul_double, mul_complex};

static etr_error_t mul_tensors(etr_kernel_context_t *ctx,
                               const etr_tensor_t *self,
                               const etr_tensor_t *other,
                               etr_scalar_type_t result, etr_tensor_t *out) {
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  etr_elementwise_spec_t spec = {result, result, true};
  return etr_binary_elementwise(ctx, self, other, out, &spec, &kMulFns, NULL);
}

// aten::mul.out
etr_error_t etr_ref_mul_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_tensors(ctx, self, other, &result));
  return mul_tensors(ctx, self, other, result, out);
}

// aten::mul.Scalar_out
etr_error_t etr_ref_mul_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t other;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_tensor_scalar(ctx, self, &other, &result));
  etr_tensor_t other_tensor;
  uint64_t storage = 0;
  etr_scalar_to_tensor(&other, &other_tensor, &storage);
  return mul_tensors(ctx, self, &other_tensor, result, out);
}
