// SPDX-License-Identifier: Apache-2.0
//
// aten::le.Tensor_out and aten::le.Scalar_out:
// out = (self <= other), elementwise with broadcasting.
//
// Both overloads are etr_comparison_kernel (support/compare.h), which
// documents the dtype rules: comparison in torch.result_type(self, other)
// (a Scalar wraps to that dtype as PyTorch casts it: int8 <= 1000 compares
// with -24), IEEE NaN rules, a Bool result stored in any out dtype,
// complex and uint16/32/64 NotSupported (as gt/lt).
// This file only names the predicate, so it is shorter than the usual
// op file on purpose, like op_eq.c, op_gt.c and op_lt.c.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/compare.h"

// aten::le.Tensor_out
etr_error_t etr_ref_le_tensor_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, false, ETR_COMPARE_LE);
}

// aten::le.Scalar_out
etr_error_t etr_ref_le_scalar_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, true, ETR_COMPARE_LE);
}
