// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::remainder.Tensor_out and aten::remainder.Scalar_out for
// Float, Half and BFloat16 results (binary/elementwise.h: same shape, a
// 0-dim or Scalar operand, bias-style and per-channel broadcasts,
// contiguous or channels-last): ATen's m = fmod(a, b), plus b when m != 0
// and its sign is not b's (binary/binary.h), exact against the reference:
// fmod is exact and m + b rounds innocuously twice. uint8 and int8..int64
// operands of one dtype take binary/integer.h's loops (exact; a zero
// divisor is the reference's error). Everything else and argument errors
// go to the reference kernels (ops_reference/op_remainder.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_error_t remainder_kernel(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    bool scalar_other,
                                    etr_kernel_fn reference) {
  etr_binary_call_t call;
  etr_int_call_t int_call;
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 4 && etr_binary_probe(ctx, args, num_args, scalar_other,
                                        false, false, 2, &call)) {
    call.op = ETR_BINARY_REMAINDER;
    status = etr_binary_execute(ctx, &call, &handled);
  } else if (num_args == 4 &&
             etr_int_division_probe(ctx, args, num_args, scalar_other, 2,
                                    &int_call)) {
    int_call.op = ETR_INT_REMAINDER;
    status = etr_int_division_execute(ctx, &int_call, &handled);
  }
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::remainder.Tensor_out
etr_error_t etr_opt_remainder_tensor_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args,
                                         size_t num_args) {
  return remainder_kernel(ctx, args, num_args, false,
                          etr_ref_remainder_tensor_out);
}

// aten::remainder.Scalar_out
etr_error_t etr_opt_remainder_scalar_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args,
                                         size_t num_args) {
  return remainder_kernel(ctx, args, num_args, true,
                          etr_ref_remainder_scalar_out);
}
