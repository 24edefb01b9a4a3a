// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::min.dim_min: the minimum of a dense Float, Half, BFloat16 or
// integer (uint8, int8..int64: reduce/integer.c) self along one dim and its
// index (a Long out) runs the reduction driver (reduce/reduce.h): rows when the
// dim is innermost in memory, columns otherwise, exact with PyTorch's rules
// (the first NaN wins, value and index; ties give the first index). Other
// dtypes, layouts, empty inputs and argument errors go to the reference kernel
// (ops_reference/op_min.c), whose dry run checks and resizes first.
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::min.dim_min
etr_error_t etr_opt_min_dim_min(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  bool handled = false;
  etr_error_t status =
      etr_reduce_extremum_call(ctx, args, num_args, ETR_REDUCE_MIN,
                               ETR_REDUCE_FORM_BOTH, etr_ref_min_dim_min,
                               &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_min_dim_min, ctx, args, num_args);
}
