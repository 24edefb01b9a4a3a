// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::sqrt.out for a Float, Half or BFloat16 self with an out of
// the same dtype, in any layout unary/unary_driver.h takes: exact (float sqrt
// is correctly rounded, as the reference's double sqrt rounded to float is).
// Half and BFloat16 are computed in fp32 and rounded once. Every other dtype,
// out dtype and layout, and argument errors, go to the reference kernel
// (ops_reference/op_sqrt.c).
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"

// aten::sqrt.out
etr_error_t etr_opt_sqrt_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  bool handled = false;
  etr_error_t status =
      etr_unary_simple(ctx, args, num_args, ETR_UNARY_SQRT, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_sqrt_out, ctx, args, num_args);
}
