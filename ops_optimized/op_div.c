// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::div.out, aten::div.Scalar_out and aten::div.out_mode with
// rounding_mode None (true division): out =
// self / other for Float, Half and BFloat16 results, in float (exact: the
// reference's double quotient of two floats rounds to the same float;
// division by zero gives +-inf or NaN as IEEE), with the layouts and
// broadcasts of binary/elementwise.h. As the reference, a one-element
// `other` of another dtype keeps its float value for Half/BFloat16
// results. div.out_mode's "trunc" and "floor" modes on Float, Half and
// BFloat16 results compute in float as the reference (and ATen) does:
// trunc(self / other), and ATen's div_floor_floating (binary/binary.h),
// exact; on uint8 and int8..int64 operands of one dtype the modes take
// binary/integer.h's loops (exact; a zero divisor is the reference's
// error). Integral operands of true division (whose quotient is Float),
// everything else and argument errors go to the reference kernels
// (ops_reference/op_div.c).
#include <string.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// `out_index` is 2, or 3 after div.out_mode's rounding_mode; `op` DIV,
// DIV_TRUNC or DIV_FLOOR. True division rounds a one-element `other` of
// another dtype to float (the op-math type), the modes to the result
// dtype, as the reference.
static etr_error_t div_true(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args, bool scalar_other,
                            size_t out_index, etr_binary_op_t op,
                            etr_kernel_fn reference) {
  etr_binary_call_t call;
  if (num_args != out_index + 2 ||
      !etr_binary_probe(ctx, args, num_args, scalar_other,
                        op == ETR_BINARY_DIV, false, out_index, &call)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  call.op = op;
  bool handled = false;
  etr_error_t status = etr_binary_execute(ctx, &call, &handled);
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::div.out
etr_error_t etr_opt_div_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  // Dense Float operands of out's shape or one element (hardsigmoid's
  // divide by 6 on a squeeze-excite's [1, C, 1, 1]): the full probe and
  // plan cost 200 ns more than the division.
  if (etr_binary_dense(ctx, args, num_args, ETR_BINARY_DIV)) {
    return ETR_OK;
  }
  return div_true(ctx, args, num_args, false, 2, ETR_BINARY_DIV,
                  etr_ref_div_out);
}

// aten::div.Scalar_out
etr_error_t etr_opt_div_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  return div_true(ctx, args, num_args, true, 2, ETR_BINARY_DIV,
                  etr_ref_div_scalar_out);
}

// aten::div.out_mode
etr_error_t etr_opt_div_out_mode(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  const char *mode = NULL;
  if (num_args != 5 ||
      etr_arg_optional_string(&probe, args, num_args, 2, "rounding_mode",
                              &mode) != ETR_OK ||
      (mode != NULL && strcmp(mode, "trunc") != 0 &&
       strcmp(mode, "floor") != 0)) {
    return etr_opt_fallback(etr_ref_div_out_mode, ctx, args, num_args);
  }
  bool trunc_mode = mode != NULL && strcmp(mode, "trunc") == 0;
  etr_int_call_t int_call;
  if (mode != NULL &&
      etr_int_probe(ctx, args, num_args, false, 3, &int_call)) {
    int_call.op = trunc_mode ? ETR_INT_DIV_TRUNC : ETR_INT_DIV_FLOOR;
    bool handled = false;
    etr_error_t status = etr_int_execute(ctx, &int_call, &handled);
    return handled ? status
                   : etr_opt_fallback(etr_ref_div_out_mode, ctx, args,
                                      num_args);
  }
  etr_binary_op_t op = mode == NULL   ? ETR_BINARY_DIV
                       : trunc_mode ? ETR_BINARY_DIV_TRUNC
                                    : ETR_BINARY_DIV_FLOOR;
  return div_true(ctx, args, num_args, false, 3, op, etr_ref_div_out_mode);
}
