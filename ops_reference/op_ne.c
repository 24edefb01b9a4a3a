// SPDX-License-Identifier: Apache-2.0
//
// aten::ne.Tensor_out and aten::ne.Scalar_out:
// out = (self != other), elementwise with broadcasting.
//
// Both overloads are etr_comparison_kernel (support/compare.h), which
// documents the dtype rules: comparison in torch.result_type(self, other)
// (a Scalar wraps to that dtype as PyTorch casts it: int8 != 1000 compares
// with -24), IEEE NaN rules, a Bool result stored in any out dtype,
// complex and uint16/32/64 supported (as eq).
//
// One case is handled here rather than by compare.c, which refuses it:
// a compared dtype of ComplexHalf (a Half tensor next to a complex
// zero-dim tensor), which PyTorch's ne accepts and computes by rounding
// both operands to ComplexHalf (Half 1.0 != complex64 1.0001 is False).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/compare.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

static etr_complex_t not_equal_complex(etr_complex_t a, etr_complex_t b,
                                       const void *state) {
  (void)state;
  etr_complex_t result = {a.real != b.real || a.imag != b.imag, 0.0};
  return result;
}

// True when args are two tensors whose torch.result_type is ComplexHalf
// (asked without recording anything: compare.c reports the other cases).
static bool compares_in_complex_half(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  if (num_args != 4 || args[0] == NULL || args[1] == NULL ||
      args[0]->tag != ETR_TAG_TENSOR || args[1]->tag != ETR_TAG_TENSOR) {
    return false;
  }
  etr_kernel_context_t quiet = *ctx;
  quiet.diag = NULL;
  etr_scalar_type_t common;
  return etr_result_type_tensors(&quiet, args[0]->u.as_tensor,
                                 args[1]->u.as_tensor, &common) == ETR_OK &&
         common == ETR_COMPLEX_HALF;
}

// aten::ne.Tensor_out
etr_error_t etr_ref_ne_tensor_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  if (!compares_in_complex_half(ctx, args, num_args)) {
    return etr_comparison_kernel(ctx, args, num_args, false, ETR_COMPARE_NE);
  }
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  static const etr_binary_fns_t kNotEqual = {NULL, NULL, not_equal_complex};
  etr_elementwise_spec_t spec = {ETR_COMPLEX_HALF, ETR_BOOL, false};
  return etr_binary_elementwise(ctx, self, other, out, &spec, &kNotEqual,
                                NULL);
}

// aten::ne.Scalar_out
etr_error_t etr_ref_ne_scalar_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, true, ETR_COMPARE_NE);
}
