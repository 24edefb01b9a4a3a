// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::fmod.Tensor_out and aten::fmod.Scalar_out for Float,
// Half and BFloat16 results (binary/elementwise.h: same shape, a 0-dim or
// Scalar operand, bias-style and per-channel broadcasts, contiguous or
// channels-last): C's fmod, exact (binary/binary_kernels.h's vf_fmod: a
// float quotient and one fused step, fmodf for lanes whose quotient
// reaches 2^23), so bit for bit the reference's; x fmod 0 and inf fmod y
// are NaN, x fmod inf is x, the sign is x's. uint8 and int8..int64
// operands of one dtype take binary/integer.h's loops (exact; a zero
// divisor is the reference's error). Everything else and argument errors
// go to the reference kernels (ops_reference/op_fmod.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_error_t fmod_kernel(etr_kernel_context_t *ctx,
                               etr_evalue_t **args, size_t num_args,
                               bool scalar_other, etr_kernel_fn reference) {
  etr_binary_call_t call;
  etr_int_call_t int_call;
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 4 && etr_binary_probe(ctx, args, num_args, scalar_other,
                                        false, false, 2, &call)) {
    call.op = ETR_BINARY_FMOD;
    status = etr_binary_execute(ctx, &call, &handled);
  } else if (num_args == 4 &&
             etr_int_probe(ctx, args, num_args, scalar_other, 2, &int_call)) {
    int_call.op = ETR_INT_FMOD;
    status = etr_int_execute(ctx, &int_call, &handled);
  }
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::fmod.Tensor_out
etr_error_t etr_opt_fmod_tensor_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  return fmod_kernel(ctx, args, num_args, false, etr_ref_fmod_tensor_out);
}

// aten::fmod.Scalar_out
etr_error_t etr_opt_fmod_scalar_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  return fmod_kernel(ctx, args, num_args, true, etr_ref_fmod_scalar_out);
}
