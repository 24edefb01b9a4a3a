// SPDX-License-Identifier: Apache-2.0
//
// aten::gt.Tensor_out and aten::gt.Scalar_out:
// out = (self > other), elementwise with broadcasting.
//
// Both overloads are etr_comparison_kernel (support/compare.h), which
// documents the dtype rules: comparison in torch.result_type(self, other),
// a Bool result stored in any out dtype, complex NotSupported.
// This file only names the predicate, so it is shorter than the usual
// op file on purpose.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/compare.h"

// aten::gt.Tensor_out
etr_error_t etr_ref_gt_tensor_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, false, ETR_COMPARE_GT);
}

// aten::gt.Scalar_out
etr_error_t etr_ref_gt_scalar_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, true, ETR_COMPARE_GT);
}
