// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::amin.out: the minimum of a dense Float, Half, BFloat16 or
// integer (uint8, int8..int64: reduce/integer.c) self over dims forming one run
// in memory order, in their logical order, runs the reduction driver
// (reduce/reduce.h), exact and with PyTorch's rules: NaN wins, ties keep the
// first element (the sign of a zero result is the first zero's). Other dtypes,
// layouts, empty inputs and argument errors go to the reference kernel
// (ops_reference/op_amin.c), whose dry run checks and resizes before we
// compute.
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::amin.out
etr_error_t etr_opt_amin_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  bool handled = false;
  etr_error_t status =
      etr_reduce_extremum_call(ctx, args, num_args, ETR_REDUCE_MIN,
                               ETR_REDUCE_FORM_VALUES, etr_ref_amin_out,
                               &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_amin_out, ctx, args, num_args);
}
