// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::atan2.out for Float, Half and BFloat16 results
// (binary/elementwise.h: same shape, a 0-dim operand, bias-style and
// per-channel broadcasts, contiguous or channels-last): C's atan2 computed
// in double from the float operands (unary/vmath_trig.h: the smaller
// magnitude over the larger, two argument reductions, a Taylor polynomial)
// and rounded once, within the ULP bound
// ops_optimized/test/diff_elementwise_transcendental_test.c measures;
// signed zeros and infinities as C's. Integer operands (whose result is
// Float), everything else and argument errors go to the reference kernel
// (ops_reference/op_atan2.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::atan2.out
etr_error_t etr_opt_atan2_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  etr_binary_call_t call;
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 4 &&
      etr_binary_probe(ctx, args, num_args, false, false, false, 2, &call)) {
    call.op = ETR_BINARY_ATAN2;
    status = etr_binary_execute(ctx, &call, &handled);
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_atan2_out, ctx, args, num_args);
}
