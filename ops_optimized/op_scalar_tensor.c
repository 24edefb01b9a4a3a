// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::scalar_tensor.out: the reference's own code
// (ops_reference/op_scalar_tensor.c), shared on purpose. The op writes one
// element (a dtype conversion of the scalar): there is no loop to vectorize
// and nothing a SIMD path could do faster, so the optimized library
// registers it (a method under --kernels optimized runs no less than the
// reference) and calls the reference directly, not through etr_opt_fallback:
// the coverage report lists it as shared
// (ops_optimized/tools/coverage_report.py SHARED_OPS).
#include "ops_reference/ops_reference.h"
#include "ops_optimized/ops_optimized.h"

// aten::scalar_tensor.out
etr_error_t etr_opt_scalar_tensor_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args,
                                      size_t num_args) {
  return etr_ref_scalar_tensor_out(ctx, args, num_args);
}
