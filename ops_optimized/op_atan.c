// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::atan.out for a Float, Half or BFloat16 self with an out of
// the same dtype, in any layout unary/unary_driver.h takes: out = atan(self) by
// two argument reductions and a Taylor polynomial in double
// (unary/vmath_trig.h), within the ULP bound
// ops_optimized/test/diff_elementwise_transcendental_test.c measures against
// the reference; special values (NaN, +-inf, -0.0, the domain's edges) as the
// reference. Half and BFloat16 are computed in fp32 and rounded once. Every
// other dtype (integers, whose result is Float; Double), out dtype and layout,
// and argument errors, go to the reference kernel (ops_reference/op_atan.c).
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"

// aten::atan.out
etr_error_t etr_opt_atan_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  bool handled = false;
  etr_error_t status =
      etr_unary_simple(ctx, args, num_args, ETR_UNARY_ATAN, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_atan_out, ctx, args, num_args);
}
