// SPDX-License-Identifier: Apache-2.0
//
// aten::eq.Tensor_out and aten::eq.Scalar_out:
// out = (self == other), elementwise with broadcasting.
//
// Both overloads are etr_comparison_kernel (support/compare.h), which
// documents the dtype rules: comparison in torch.result_type(self, other),
// a Bool result stored in any out dtype, complex supported.
// This file only names the predicate, so it is shorter than the usual
// op file on purpose.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/compare.h"

// aten::eq.Tensor_out
etr_error_t etr_ref_eq_tensor_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, false, ETR_COMPARE_EQ);
}

// aten::eq.Scalar_out
etr_error_t etr_ref_eq_scalar_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, true, ETR_COMPARE_EQ);
}
