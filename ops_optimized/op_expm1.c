// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::expm1.out for a Float, Half or BFloat16 self with an out of
// the same dtype, in any layout unary/unary_driver.h takes: out = e^self - 1
// (vmath.h's vf_expm1: 2^n expm1(r) + (2^n - 1), no cancellation), within the
// ULP bound ops_optimized/test/diff_elementwise_transcendental_test.c measures
// against the reference; special values (NaN, +-inf, -0.0, the domain's edges)
// as the reference. Half and BFloat16 are computed in fp32 and rounded once.
// Every other dtype (integers, whose result is Float; Double), out dtype and
// layout, and argument errors, go to the reference kernel
// (ops_reference/op_expm1.c).
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"

// aten::expm1.out
etr_error_t etr_opt_expm1_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  bool handled = false;
  etr_error_t status =
      etr_unary_simple(ctx, args, num_args, ETR_UNARY_EXPM1, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_expm1_out, ctx, args, num_args);
}
