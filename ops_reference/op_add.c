// SPDX-License-Identifier: Apache-2.0
//
// aten::add.out and aten::add.Scalar_out: out = self + alpha * other.
//
// Dtypes: the result dtype is torch.result_type(self, other) (a Scalar
// `other` takes part as a Python number); every real dtype, Bool (where
// addition is logical or) and ComplexFloat/ComplexDouble. The out dtype
// must be one the result can be cast to. Arithmetic is done in the result
// dtype's op-math type as ATen does: int64 with wrap-around for integers,
// double then rounded for floating types (alpha rounded to float first
// unless the result is Double). Unlike mul and div, ATen's add rounds a
// single-element `other` to Half/BFloat16 before adding (checked against
// PyTorch 2.13: Half 1024 + float 1.4998779 gives 1026, not 1025).
//
// alpha follows ATen's alpha_check: a Bool alpha needs a Bool result, and
// a floating alpha needs a floating or complex result (InvalidArgument).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

typedef struct add_state {
  int64_t alpha_int;
  double alpha_double;
} add_state_t;

static int64_t add_int(int64_t a, int64_t b, const void *state) {
  const add_state_t *s = state;
  return etr_wrapping_add(a, etr_wrapping_mul(s->alpha_int, b));
}

static double add_double(double a, double b, const void *state) {
  const add_state_t *s = state;
  return a + s->alpha_double * b;
}

static etr_complex_t add_complex(etr_complex_t a, etr_complex_t b,
                                 const void *state) {
  const add_state_t *s = state;
  etr_complex_t result = {a.real + s->alpha_double * b.real,
                          a.imag + s->alpha_double * b.imag};
  return result;
}

static const etr_binary_fns_t kAddFns = {add_int, add_double, add_complex};

// ATen's alpha_check, then alpha in the op-math type of `result`.
static etr_error_t prepare_alpha(etr_kernel_context_t *ctx,
                                 etr_scalar_type_t result,
                                 const etr_scalar_t *alpha,
                                 add_state_t *state) {
  ETR_CHECK(ctx->diag, alpha->kind != ETR_SCALAR_BOOL || result == ETR_BOOL,
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
  state->alpha_int = alpha->as_int;
  etr_scalar_type_t opmath =
      etr_complex_value_type(result) == ETR_DOUBLE ? ETR_DOUBLE : ETR_FLOAT;
  state->alpha_double = etr_round_double(opmath, alpha->as_double);
  return ETR_OK;
}

// Shared by both overloads once `other` is a tensor.
static etr_error_t add_tensors(etr_kernel_context_t *ctx,
                               const etr_tensor_t *self,
                               const etr_tensor_t *other,
                               etr_scalar_type_t result,
                               const etr_scalar_t *alpha, etr_tensor_t *out) {
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  add_state_t state;
  ETR_TRY(prepare_alpha(ctx, result, alpha, &state));
  etr_elementwise_spec_t spec = {result, result, false};
  return etr_binary_elementwise(ctx, self, other, out, &spec, &kAddFns,
                                &state);
}

// aten::add.out
etr_error_t etr_ref_add_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
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
  return add_tensors(ctx, self, other, result, &alpha, out);
}

// aten::add.Scalar_out
etr_error_t etr_ref_add_scalar_out(etr_kernel_context_t *ctx,
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
  return add_tensors(ctx, self, &other_tensor, result, &alpha, out);
}
