// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::add.out and aten::add.Scalar_out: out = self + alpha *
// other for Float, Half and BFloat16 results (binary/elementwise.h: same
// shape, a 0-dim or Scalar operand, bias-style and per-channel
// broadcasts, contiguous or channels-last). alpha 1 (or -1) adds (or
// subtracts) in float; any other alpha computes a + alpha * b in double
// and rounds once, as the reference. uint8 and int8..int64 tensors of one
// dtype with an integer alpha (and an integer Scalar other) run
// binary/integer.h's typed loops, in the same layouts: a + alpha * b in
// wrapping int64 op-math, wrapped to the dtype, as the reference.
// Everything else, and argument errors, go to the reference kernels
// (ops_reference/op_add.c).
// .out calls on dense Float or Long tensors whose out already has the
// result shape try binary/dense.c first (no probe, no plan).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_error_t add(etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args, bool scalar_other,
                       etr_kernel_fn reference) {
  bool handled = false;
  etr_error_t status =
      etr_int_arith(ctx, args, num_args, ETR_INT_ADD, scalar_other, &handled);
  if (handled) {
    return status;
  }
  etr_binary_call_t call;
  if (num_args != 5 ||
      !etr_binary_probe(ctx, args, num_args, scalar_other, false, false, 3,
                        &call) ||
      !etr_binary_alpha(ctx, args, num_args, false, &call)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  status = etr_binary_execute(ctx, &call, &handled);
  return handled ? status : etr_opt_fallback(reference, ctx, args, num_args);
}

// aten::add.out
etr_error_t etr_opt_add_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  if (etr_binary_dense(ctx, args, num_args, ETR_BINARY_ADD)) {
    return ETR_OK;
  }
  return add(ctx, args, num_args, false, etr_ref_add_out);
}

// aten::add.Scalar_out
etr_error_t etr_opt_add_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  return add(ctx, args, num_args, true, etr_ref_add_scalar_out);
}
