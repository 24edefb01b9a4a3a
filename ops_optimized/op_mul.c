// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::mul.out and aten::mul.Scalar_out: out = self * other for
// Float, Half and BFloat16 results, in float (exact: the reference's
// double product rounds to the same float) with the layouts and
// broadcasts of binary/elementwise.h. As the reference, a one-element
// `other` of another dtype keeps its float value for Half/BFloat16
// results. uint8 and int8..int64 tensors of one dtype (and an integer
// Scalar other) run binary/integer.h's typed loops, in the same layouts:
// wrapping int64 products wrapped to the dtype, as the reference.
// Everything else, and argument errors, go to the reference kernels
// (ops_reference/op_mul.c).
// .out calls on dense Float tensors whose out already has the
// result shape try binary/dense.c first (no probe, no plan).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_error_t mul(etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args, bool scalar_other,
                       etr_kernel_fn reference) {
  bool handled = false;
  etr_error_t status =
      etr_int_arith(ctx, args, num_args, ETR_INT_MUL, scalar_other, &handled);
  if (handled) {
    return status;
  }
  etr_binary_call_t call;
  if (num_args != 4 || !etr_binary_probe(ctx, args, num_args, scalar_other,
                                         true, false, 2, &call)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  call.op = ETR_BINARY_MUL;
  status = etr_binary_execute(ctx, &call, &handled);
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::mul.out
etr_error_t etr_opt_mul_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  if (etr_binary_dense(ctx, args, num_args, ETR_BINARY_MUL)) {
    return ETR_OK;
  }
  return mul(ctx, args, num_args, false, etr_ref_mul_out);
}

// aten::mul.Scalar_out
etr_error_t etr_opt_mul_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  return mul(ctx, args, num_args, true, etr_ref_mul_scalar_out);
}
