// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::div.out, aten::div.Scalar_out and aten::div.out_mode with
// rounding_mode None (true division): out =
// self / other for Float, Half and BFloat16 results, in float (exact: the
// reference's double quotient of two floats rounds to the same float;
// division by zero gives +-inf or NaN as IEEE), with the layouts and
// broadcasts of binary/elementwise.h. As the reference, a one-element
// `other` of another dtype keeps its float value for Half/BFloat16
// results. Integral operands (whose quotient is Float), the "trunc" and
// "floor" modes, everything else and argument errors go to the reference
// kernels (ops_reference/op_div.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// `out_index` is 2, or 3 after div.out_mode's rounding_mode.
static etr_error_t div_true(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args, bool scalar_other,
                            size_t out_index, etr_kernel_fn reference) {
  etr_binary_call_t call;
  if (num_args != out_index + 2 ||
      !etr_binary_probe(ctx, args, num_args, scalar_other, true, false,
                        out_index, &call)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  call.op = ETR_BINARY_DIV;
  bool handled = false;
  etr_error_t status = etr_binary_execute(ctx, &call, &handled);
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::div.out
etr_error_t etr_opt_div_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  return div_true(ctx, args, num_args, false, 2, etr_ref_div_out);
}

// aten::div.Scalar_out
etr_error_t etr_opt_div_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  return div_true(ctx, args, num_args, true, 2, etr_ref_div_scalar_out);
}

// aten::div.out_mode
etr_error_t etr_opt_div_out_mode(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  if (num_args != 5 || args[2] == NULL || args[2]->tag != ETR_TAG_NONE) {
    return etr_opt_fallback(etr_ref_div_out_mode, ctx, args, num_args);
  }
  return div_true(ctx, args, num_args, false, 3, etr_ref_div_out_mode);
}
