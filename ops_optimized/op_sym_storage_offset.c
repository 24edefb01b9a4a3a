// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::sym_storage_offset: the reference's own code
// (core/prim_ops.c), shared on purpose. The op answers 0 (etref tensors
// carry no storage offset): there is no loop to vectorize and nothing a SIMD
// path could do faster, so the optimized library registers it (a method
// under --kernels optimized runs no less than the reference) and calls the
// reference directly, not through etr_opt_fallback: the coverage report
// lists it as shared (ops_optimized/tools/coverage_report.py SHARED_OPS).
#include "core/prim_ops.h"
#include "ops_optimized/ops_optimized.h"

// aten::sym_storage_offset
etr_error_t etr_opt_sym_storage_offset(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args,
                                       size_t num_args) {
  return etr_prim_sym_storage_offset(ctx, args, num_args);
}
