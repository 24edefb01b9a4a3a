// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::minimum.out for Float, Half and BFloat16 results with the
// layouts and broadcasts of binary/elementwise.h: NaN when either operand
// is NaN, else b < a ? b : a (the first operand on ties, so the
// sign of a zero result is the reference's). uint8 and int8..int64
// tensors of one dtype run binary/integer.h's typed loops. Everything
// else, and argument errors, go to the reference kernel
// (ops_reference/op_minimum.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::minimum.out
etr_error_t etr_opt_minimum_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  if (etr_binary_rows_memo_run(ctx)) {
    return ETR_OK;
  }
  bool handled = false;
  etr_error_t status = etr_int_arith(ctx, args, num_args, ETR_INT_MINIMUM,
                                     false, &handled);
  if (handled) {
    return status;
  }
  etr_binary_call_t call;
  if (num_args != 4 ||
      !etr_binary_probe(ctx, args, num_args, false, false, false, 2, &call)) {
    return etr_opt_fallback(etr_ref_minimum_out, ctx, args, num_args);
  }
  call.op = ETR_BINARY_MINIMUM;
  status = etr_binary_execute(ctx, &call, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_minimum_out, ctx, args, num_args);
}
