// SPDX-License-Identifier: Apache-2.0
//
// Optimized dim_order_ops::_empty_dim_order.out: the reference's own code
// (ops_reference/op_empty_dim_order.c), shared on purpose. The op resizes
// out in a dim order (its contents are unspecified, so nothing is written):
// there is no loop to vectorize and nothing a SIMD path could do faster, so
// the optimized library registers it (a method under --kernels optimized
// runs no less than the reference) and calls the reference directly, not
// through etr_opt_fallback: the coverage report lists it as shared
// (ops_optimized/tools/coverage_report.py SHARED_OPS).
#include "ops_reference/ops_reference.h"
#include "ops_optimized/ops_optimized.h"

// dim_order_ops::_empty_dim_order.out
etr_error_t etr_opt_empty_dim_order_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  return etr_ref_empty_dim_order_out(ctx, args, num_args);
}
