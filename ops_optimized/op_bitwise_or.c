// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::bitwise_or.Tensor_out and aten::bitwise_or.Scalar_out
// when self, other and out share one dtype among Bool, uint8, int8, int16,
// int32 and int64 (for a Scalar other, when the result dtype is self's:
// an integer Scalar wraps to it as in the reference): the bytewise
// kernels of bitwise/bitwise.h on the layouts and broadcasts of
// binary/plan.h (same shape, bias-style, per-channel, channels-last,
// 0-dim). Exact. Everything else, and argument errors, go to the
// reference kernels (ops_reference/op_bitwise_or.c).
#include "ops_optimized/bitwise/bitwise.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_error_t bitwise(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, etr_bytes_form_t form,
                           etr_kernel_fn reference) {
  bool handled = false;
  etr_error_t status =
      etr_bytes_binary_op(ctx, args, num_args, ETR_BYTES_OR, form, &handled);
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::bitwise_or.Tensor_out
etr_error_t etr_opt_bitwise_or_tensor_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  return bitwise(ctx, args, num_args, ETR_BYTES_TENSOR,
                 etr_ref_bitwise_or_tensor_out);
}

// aten::bitwise_or.Scalar_out
etr_error_t etr_opt_bitwise_or_scalar_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  return bitwise(ctx, args, num_args, ETR_BYTES_SCALAR,
                 etr_ref_bitwise_or_scalar_out);
}
