// SPDX-License-Identifier: Apache-2.0
//
// aten::ne.Tensor_out and aten::ne.Scalar_out:
// out = (self != other), elementwise with broadcasting.
//
// Both overloads are etr_comparison_kernel (support/compare.h), which
// documents the dtype rules: comparison in torch.result_type(self, other)
// (a Scalar wraps to that dtype as PyTorch casts it: int8 != 1000 compares
// with -24), IEEE NaN rules, a Bool result stored in any out dtype,
// complex (ComplexHalf included: a Half tensor next to a complex zero-dim
// tensor rounds both to ComplexHalf, so Half 1.0 != complex64 1.0001 is
// False) and uint16/32/64 supported (as eq).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/compare.h"

// aten::ne.Tensor_out
etr_error_t etr_ref_ne_tensor_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, false, ETR_COMPARE_NE);
}

// aten::ne.Scalar_out
etr_error_t etr_ref_ne_scalar_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return etr_comparison_kernel(ctx, args, num_args, true, ETR_COMPARE_NE);
}
