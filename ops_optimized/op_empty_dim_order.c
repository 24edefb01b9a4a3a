// SPDX-License-Identifier: Apache-2.0
//
// Optimized dim_order_ops::_empty_dim_order.out: the reference kernel
// (ops_reference/op_empty_dim_order.c) resizes out and zero-fills it, so
// runs are deterministic (PyTorch leaves the contents uninitialized); here
// its dry run checks and resizes, and one fill zeroes the out (memset when
// dense: 64x1024 floats 417 us -> a few us, the reference storing element
// by element). Any dtype and layout; argument errors are the reference's
// (common/empty.h).
#include "ops_optimized/common/empty.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// dim_order_ops::_empty_dim_order.out
etr_error_t etr_opt_empty_dim_order_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  return etr_opt_empty(etr_ref_empty_dim_order_out, 2, ctx, args, num_args);
}
