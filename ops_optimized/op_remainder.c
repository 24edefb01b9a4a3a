// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::remainder.Tensor_out and aten::remainder.Scalar_out for
// Float, Half and BFloat16 results (binary/elementwise.h: same shape, a
// 0-dim or Scalar operand, bias-style and per-channel broadcasts,
// contiguous or channels-last): ATen's m = fmod(a, b), plus b when m != 0
// and its sign is not b's (binary/binary.h), exact against the reference:
// fmod is exact and m + b rounds innocuously twice. Integer results,
// everything else and argument errors go to the reference kernels
// (ops_reference/op_remainder.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_error_t remainder_kernel(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    bool scalar_other,
                                    etr_kernel_fn reference) {
  etr_binary_call_t call;
  if (num_args != 4 || !etr_binary_probe(ctx, args, num_args, scalar_other,
                                         false, false, 2, &call)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  call.op = ETR_BINARY_REMAINDER;
  bool handled = false;
  etr_error_t status = etr_binary_execute(ctx, &call, &handled);
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
