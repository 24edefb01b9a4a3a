// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::sign.out for a Float, Half or BFloat16 self with an out of
// the same dtype, in any layout unary/unary_driver.h takes: out = (0 < self) -
// (self < 0), so NaN and -0.0 give +0. Exact; -0.0, infinities and NaN as the
// reference. Half and BFloat16 are computed in fp32 and rounded once. uint8 and
// int8..int64 take the typed loops of binary/integer.h; Bool is copied
// (sign(True) is True) by bitwise/'s byte engine. Every other dtype, out dtype
// and layout, and argument errors, go to the reference kernel
// (ops_reference/op_sign.c).
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/bitwise/bitwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"

// aten::sign.out
etr_error_t etr_opt_sign_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 3 && self != NULL && out != NULL &&
      out->dtype == self->dtype && self->dtype == ETR_BOOL) {
    // sign(True) is True: a copy (x ^ 0 on the bytes).
    etr_bytes_call_t copy = {.op = ETR_BYTES_XOR, .a = self, .out = out};
    status = etr_bytes_execute(ctx, &copy, &handled);
  } else if (num_args == 3 && self != NULL && out != NULL) {
    status = etr_int_sign_execute(ctx, self, out, &handled);
  }
  if (!handled) {
    status = etr_unary_simple(ctx, args, num_args, ETR_UNARY_SIGN, &handled);
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_sign_out, ctx, args, num_args);
}
