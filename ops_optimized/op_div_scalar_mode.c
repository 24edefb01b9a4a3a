// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::div.Scalar_mode_out for Float, Half and BFloat16 results
// with an out of exactly that dtype, as the reference requires, in the
// layouts of binary/elementwise.h: rounding_mode None is true division
// (as div.Scalar_out), "trunc" is trunc(self / other) and "floor" ATen's
// div_floor_floating, both in float with the Scalar converted to float
// (not first rounded to Half), as the reference computes them: exact.
// "trunc" and "floor" on uint8 and int8..int64 selves whose result dtype
// is their own take binary/integer.h's loops (exact; a zero divisor is the
// reference's error). Other modes, everything else and argument errors go
// to the reference kernel (ops_reference/op_div_scalar_mode.c).
#include <string.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::div.Scalar_mode_out
etr_error_t etr_opt_div_scalar_mode_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  const char *mode = NULL;
  etr_binary_call_t call;
  etr_int_call_t int_call;
  bool handled = false;
  etr_error_t status = ETR_OK;
  bool known = num_args == 5 &&
               etr_arg_optional_string(&probe, args, num_args, 2,
                                       "rounding_mode", &mode) == ETR_OK &&
               (mode == NULL || strcmp(mode, "trunc") == 0 ||
                strcmp(mode, "floor") == 0);
  bool trunc_mode = known && mode != NULL && strcmp(mode, "trunc") == 0;
  if (known &&
      etr_binary_probe(ctx, args, num_args, true, true, false, 3, &call)) {
    call.op = mode == NULL   ? ETR_BINARY_DIV
              : trunc_mode ? ETR_BINARY_DIV_TRUNC
                           : ETR_BINARY_DIV_FLOOR;
    status = etr_binary_execute(ctx, &call, &handled);
  } else if (known && mode != NULL &&
             etr_int_probe(ctx, args, num_args, true, 3, &int_call)) {
    int_call.op = trunc_mode ? ETR_INT_DIV_TRUNC : ETR_INT_DIV_FLOOR;
    status = etr_int_execute(ctx, &int_call, &handled);
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_div_scalar_mode_out, ctx, args,
                                    num_args);
}
