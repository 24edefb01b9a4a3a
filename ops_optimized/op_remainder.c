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
// go to the reference kernels (ops_reference/op_remainder.c). A dense Long
// self with a non-zero Int Scalar into an out already of its shape skips
// the probes (remainder_long_dense).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/common/dense.h"
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
             etr_int_probe(ctx, args, num_args, scalar_other, 2, &int_call)) {
    int_call.op = ETR_INT_REMAINDER;
    status = etr_int_execute(ctx, &int_call, &handled);
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

// The fast path of remainder.Scalar_out: valid by construction when it
// returns true (a dense Long self, a non-zero Int Scalar, so the result
// is Long and no ZeroDivisionError; a dense Long out already of self's
// shape, self itself or not overlapping it; common/dense.h). Python's
// remainder in int64: C's % adjusted toward the divisor's sign, x % -1 = 0
// (INT64_MIN % -1 would trap), as the reference. False leaves the call,
// untouched, to the general path.
static bool remainder_long_dense(etr_evalue_t **args, size_t num_args,
                                 bool dry_run) {
  int64_t divisor = 0;
  if (num_args != 4 || !etr_dense_int_arg(args, 1, &divisor) ||
      divisor == 0) {
    return false;
  }
  const etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 2);
  int64_t n = 0;
  int64_t out_numel = 0;
  if (self == NULL || out == NULL || self->dtype != ETR_LONG ||
      out->dtype != ETR_LONG ||
      !etr_dense_has_shape(out, self->dim, self->sizes) ||
      !etr_dense_row_major(self, &n) ||
      !etr_dense_row_major(out, &out_numel)) {
    return false;
  }
  size_t bytes = (size_t)n * sizeof(int64_t);
  if (self->data != out->data &&
      !etr_dense_disjoint(self->data, bytes, out->data, bytes)) {
    return false;
  }
  if (dry_run) {
    return true;
  }
  const int64_t *x = self->data;
  int64_t *y = out->data;
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = divisor == -1 ? 0 : x[i] % divisor;
    y[i] = r != 0 && ((r < 0) != (divisor < 0)) ? r + divisor : r;
  }
  return true;
}

// aten::remainder.Scalar_out
etr_error_t etr_opt_remainder_scalar_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args,
                                         size_t num_args) {
  if (remainder_long_dense(args, num_args, ctx->dry_run)) {
    return ETR_OK;
  }
  return remainder_kernel(ctx, args, num_args, true,
                          etr_ref_remainder_scalar_out);
}
