// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::floor.out for a Float, Half or BFloat16 self with an out of
// the same dtype, in any layout unary/unary_driver.h takes: out = the largest
// integral value not above self. Exact; -0.0, infinities and NaN as the
// reference. Half and BFloat16 are computed in fp32 and rounded once. A uint8
// or int8..int64 self with an out of its dtype is copied (x ^ 0 by bitwise/'s
// byte engine, in the layouts binary/plan.h takes), as the reference copies
// integers. Every other dtype, out dtype and layout, and argument errors, go to
// the reference kernel (ops_reference/op_floor.c).
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"

// aten::floor.out
etr_error_t etr_opt_floor_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  bool handled = false;
  etr_error_t status =
      etr_unary_rounding(ctx, args, num_args, ETR_UNARY_FLOOR, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_floor_out, ctx, args, num_args);
}
