// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::bitwise_not.out for a self and out of one dtype among
// Bool (a xor of the 0/1 bytes with 1) and uint8, int8, int16, int32,
// int64 (a xor with all ones): the bytewise kernels of bitwise/bitwise.h
// in the layouts binary/plan.h takes. Exact. Everything else, and argument
// errors, go to the reference kernel (ops_reference/op_bitwise_not.c).
#include <string.h>

#include "ops_optimized/bitwise/bitwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::bitwise_not.out
etr_error_t etr_opt_bitwise_not_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 3 && self != NULL && out != NULL &&
      out->dtype == self->dtype && etr_bytes_dtype(self->dtype)) {
    etr_bytes_call_t call = {.op = ETR_BYTES_XOR, .a = self, .b = NULL,
                             .out = out};
    memset(call.value, self->dtype == ETR_BOOL ? 0x01 : 0xff,
           self->dtype == ETR_BOOL ? 1 : sizeof(call.value));
    status = etr_bytes_execute(ctx, &call, &handled);
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_bitwise_not_out, ctx, args,
                                    num_args);
}
