// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::logical_xor.out for Bool self, other and out: Bool tensors
// hold 0/1 bytes, so logical xor is the bytewise xor of bitwise/bitwise.h, on
// the layouts and broadcasts of binary/plan.h; and for Float, Half, BFloat16 or
// integer self and other of one dtype with a Bool out: their truth bytes (x !=
// 0, NaN true) first (bitwise/logical.c). Exact. Other dtypes, and argument
// errors, go to the reference kernel (ops_reference/op_logical_xor.c).
#include "ops_optimized/bitwise/bitwise.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::logical_xor.out
etr_error_t etr_opt_logical_xor_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  bool handled = false;
  etr_error_t status = etr_bytes_binary_op(ctx, args, num_args, ETR_BYTES_XOR,
                                           ETR_BYTES_LOGICAL, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_logical_xor_out, ctx, args,
                                    num_args);
}
