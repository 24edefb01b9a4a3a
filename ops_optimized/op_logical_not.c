// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::logical_not.out with a Bool out: a Bool self is a xor
// of its 0/1 bytes with 1 (bitwise/bitwise.h), a Float, Half or BFloat16
// self the comparison x == 0 (unary/predicate.h; -0.0 is zero, NaN is
// not), a uint8 or int8..int64 self the integer engine's x == 0
// (binary/integer.h), in the layouts binary/plan.h takes. Exact. Other
// dtypes and outs,
// and argument errors, go to the reference kernel
// (ops_reference/op_logical_not.c).
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/bitwise/bitwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/predicate.h"
#include "ops_reference/ops_reference.h"

// aten::logical_not.out
etr_error_t etr_opt_logical_not_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 3 && self != NULL && out != NULL &&
      out->dtype == ETR_BOOL) {
    if (self->dtype == ETR_BOOL) {
      etr_bytes_call_t call = {.op = ETR_BYTES_XOR, .a = self, .b = NULL,
                               .value = {1}, .out = out};
      status = etr_bytes_execute(ctx, &call, &handled);
    } else if (etr_int_dtype(self->dtype)) {
      const etr_int_call_t call = {.op = ETR_INT_COMPARE, .a = self,
                                   .value = 0, .alpha = 1,
                                   .compare = ETR_COMPARE_OP_EQ, .out = out};
      status = etr_int_execute(ctx, &call, &handled);
    } else {
      status = etr_predicate_execute(ctx, ETR_PREDICATE_IS_ZERO, self, out,
                                     &handled);
    }
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_logical_not_out, ctx, args,
                                    num_args);
}
