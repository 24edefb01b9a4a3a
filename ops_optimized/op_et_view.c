// SPDX-License-Identifier: Apache-2.0
//
// Optimized executorch_prim::et_view.default: the reference's own code
// (core/prim_ops.c), shared on purpose. The op points out at self's memory
// with new sizes: no element is read or written, so there is nothing a
// SIMD path could do faster; the optimized library registers it (a method
// under --kernels optimized runs no less than the reference) and calls the
// reference directly, not through etr_opt_fallback: the coverage report
// lists it as shared (ops_optimized/tools/coverage_report.py SHARED_OPS).
#include "core/prim_ops.h"
#include "ops_optimized/ops_optimized.h"

// executorch_prim::et_view.default
etr_error_t etr_opt_et_view(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  return etr_prim_et_view(ctx, args, num_args);
}
