// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::le.Tensor_out and aten::le.Scalar_out: out = (self <=
// other) into a Bool out, comparing Float, Half or BFloat16 values (the
// result dtype of the operands; a Scalar is rounded to it first) with the
// layouts and broadcasts of binary/elementwise.h. IEEE comparisons: NaN
// compares false except for !=. uint8 and int8..int64 operands of one
// dtype (an integer Scalar wrapped to it, as the reference converts it)
// into a Bool out run binary/integer.h's typed loops. Other dtypes and
// outs, and argument errors, go to the reference kernels
// (ops_reference/op_le.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_error_t compare(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, bool scalar_other,
                           etr_kernel_fn reference) {
  bool handled = false;
  etr_error_t status = etr_int_compare(ctx, args, num_args,
                                       ETR_COMPARE_OP_LE, scalar_other,
                                       &handled);
  if (handled) {
    return status;
  }
  etr_binary_call_t call;
  if (num_args != 4 || !etr_binary_probe(ctx, args, num_args, scalar_other,
                                         false, true, 2, &call)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  call.compare_op = ETR_COMPARE_OP_LE;
  status = etr_binary_execute(ctx, &call, &handled);
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::le.Tensor_out
etr_error_t etr_opt_le_tensor_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return compare(ctx, args, num_args, false, etr_ref_le_tensor_out);
}

// aten::le.Scalar_out
etr_error_t etr_opt_le_scalar_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  if (etr_compare_dense_scalar(args, num_args, ETR_COMPARE_OP_LE,
                               ctx->dry_run)) {
    return ETR_OK;
  }
  return compare(ctx, args, num_args, true, etr_ref_le_scalar_out);
}
