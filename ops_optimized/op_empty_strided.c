// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::empty_strided.out: the reference's own code
// (ops_reference/op_empty_strided.c), shared on purpose. The op resizes out
// (its contents are unspecified, so nothing is written): there is no loop to
// vectorize and nothing a SIMD path could do faster, so the optimized
// library registers it (a method under --kernels optimized runs no less than
// the reference) and calls the reference directly, not through
// etr_opt_fallback: the coverage report lists it as shared
// (ops_optimized/tools/coverage_report.py SHARED_OPS).
#include "ops_reference/ops_reference.h"
#include "ops_optimized/ops_optimized.h"

// aten::empty_strided.out
etr_error_t etr_opt_empty_strided_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args,
                                      size_t num_args) {
  return etr_ref_empty_strided_out(ctx, args, num_args);
}
