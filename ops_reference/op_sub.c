// SPDX-License-Identifier: Apache-2.0
//
// aten::sub.out and aten::sub.Scalar_out: out = self - alpha * other.
//
// Dtypes and numerics as aten::add (op_add.c): result dtype is
// torch.result_type(self, other), every real dtype and complex; the out
// dtype must accept the result. PyTorch refuses Bool operands outright
// ("use the ^ or logical_xor() operator instead"), so any Bool self or
// other is NotSupported here. alpha follows ATen's alpha_check
// (InvalidArgument for a floating alpha with an integral result).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

typedef struct sub_state {
  int64_t alpha_int;
  double alpha_double;
} sub_state_t;

static int64_t sub_int(int64_t a, int64_t b, const void *state) {
  const sub_state_t *s = state;
  return etr_wrapping_sub(a, etr_wrapping_mul(s->alpha_int, b));
}

static double sub_double(double a, double b, const void *state) {
  const sub_state_t *s = state;
  return a - s->alpha_double * b;
}

static etr_complex_t sub_complex(etr_complex_t a, etr_complex_t b,
                                 const void *state) {
  const sub_state_t *s = state;
  etr_complex_t result = {a.real - s->alpha_double * b.real,
                          a.imag - s->alpha_double * b.imag};
  return result;
}

static const etr_binary_fns_t kSubFns = {sub_int, sub_double, sub_complex};

static etr_error_t sub_tensors(etr_kernel_context_t *ctx,
                               const etr_tensor_t *self,
                               const etr_tensor_t *other,
                               etr_scalar_type_t result,
                               const etr_scalar_t *alpha, etr_tensor_t *out) {
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPES_REAL | ETR_DTYPES_COMPLEX));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype,
                          ETR_DTYPES_REAL | ETR_DTYPES_COMPLEX));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  ETR_CHECK(ctx->diag, alpha->kind != ETR_SCALAR_BOOL,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: Boolean alpha only supported for Boolean results",
            etr_op_name(ctx));
  etr_dtype_kind_t kind = etr_dtype_kind(result);
  ETR_CHECK(ctx->diag,
            kind == ETR_KIND_FLOATING || kind == ETR_KIND_COMPLEX ||
                alpha->kind != ETR_SCALAR_DOUBLE,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: for integral input tensors, argument alpha must not be a "
            "floating point number",
            etr_op_name(ctx));
  sub_state_t state;
  state.alpha_int = alpha->as_int;
  state.alpha_double = etr_round_double(
      etr_complex_value_type(result) == ETR_DOUBLE ? ETR_DOUBLE : ETR_FLOAT,
      alpha->as_double);
  etr_elementwise_spec_t spec = {result, result, false};
  return etr_binary_elementwise(ctx, self, other, out, &spec, &kSubFns,
                                &state);
}

// aten::sub.out
etr_error_t etr_ref_sub_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_scalar_t alpha;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 2, "alpha", &alpha));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_tensors(ctx, self, other, &result));
  return sub_tensors(ctx, self, other, result, &alpha, out);
}

// aten::sub.Scalar_out
etr_error_t etr_ref_sub_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t other;
  etr_scalar_t alpha;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 2, "alpha", &alpha));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_tensor_scalar(ctx, self, &other, &result));
  etr_tensor_t other_tensor;
  uint64_t storage = 0;
  etr_scalar_to_tensor(&other, &other_tensor, &storage);
  return sub_tensors(ctx, self, &other_tensor, result, &alpha, out);
}
