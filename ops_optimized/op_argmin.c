// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::argmin.out: the index of the minimum of a dense Float, Half,
// BFloat16 or integer (uint8, int8..int64: reduce/integer.c) self along one
// dim, or in the flattened self (dim None, row-major contiguous self only: the
// flat index is then the memory index), runs the reduction driver
// (reduce/reduce.h), exact with PyTorch's rules (the first NaN wins; ties give
// the first index). Other dtypes, layouts, empty inputs and argument errors go
// to the reference kernel (ops_reference/op_argmin.c), whose dry run checks and
// resizes first.
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::argmin.out
etr_error_t etr_opt_argmin_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  bool handled = false;
  etr_error_t status =
      etr_reduce_extremum_call(ctx, args, num_args, ETR_REDUCE_MIN,
                               ETR_REDUCE_FORM_INDICES, etr_ref_argmin_out,
                               &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_argmin_out, ctx, args, num_args);
}
