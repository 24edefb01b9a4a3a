// SPDX-License-Identifier: Apache-2.0
//
// aten::remainder.Tensor_out and aten::remainder.Scalar_out: Python's
// modulus, out = self - floor(self / other) * other, whose sign follows
// the divisor.
//
// Dtypes: the result dtype is torch.result_type(self, other); every real
// dtype (Bool and complex are NotSupported, as PyTorch's "remainder_cpu
// not implemented for 'Bool'"); the out dtype may be any the result can
// be cast to (InvalidArgument otherwise). An integral remainder by zero is
// PyTorch's ZeroDivisionError (InvalidArgument). Floating values use
// ATen's formula: m = fmod(a, b), plus b when m is non-zero and its sign
// differs from b's (so a zero divisor gives NaN). PyTorch's vectorized
// fmod returns NaN where |a / b| overflows the dtype on some machines and
// element positions; the exact value is kept here, as in op_fmod.c
// (ops_reference/golden/golden_artifacts.h).
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/iter.h"

static int64_t remainder_int(int64_t a, int64_t b, const void *state) {
  (void)state;
  if (b == -1 || b == 0) {
    // -1 also avoids INT64_MIN % -1, which traps; 0 is ruled out by the
    // caller (the guard keeps a bug from becoming a trap).
    return 0;
  }
  int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

static double remainder_double(double a, double b, const void *state) {
  (void)state;
  double m = fmod(a, b);
  return m != 0.0 && ((b < 0.0) != (m < 0.0)) ? m + b : m;
}

static const etr_binary_fns_t kRemainderFns = {remainder_int,
                                               remainder_double, NULL};

static etr_error_t remainder_tensors(etr_kernel_context_t *ctx,
                                     const etr_tensor_t *self,
                                     const etr_tensor_t *other,
                                     etr_scalar_type_t result,
                                     etr_tensor_t *out) {
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype(ctx, "the result", result, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  if (etr_dtype_kind(result) == ETR_KIND_INTEGRAL && !ctx->dry_run) {
    const etr_tensor_t *operands[1] = {other};
    etr_strided_iter_t iter;
    etr_strided_iter_init(&iter, other->dim, other->sizes, operands, 1);
    for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
      // Checked in the result dtype: a Long 256 divides an int8 as 0.
      ETR_CHECK(ctx->diag,
                etr_wrap_int64(result,
                               etr_load_int64(other->dtype,
                                              etr_element_at(
                                                  other, iter.offsets[0]))) !=
                    0,
                ETR_ERR_INVALID_ARGUMENT,
                "%s: ZeroDivisionError (integer remainder by zero)",
                etr_op_name(ctx));
    }
  }
  etr_elementwise_spec_t spec = {result, result, false};
  return etr_binary_elementwise(ctx, self, other, out, &spec, &kRemainderFns,
                                NULL);
}

// aten::remainder.Tensor_out
etr_error_t etr_ref_remainder_tensor_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args,
                                         size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_tensors(ctx, self, other, &result));
  return remainder_tensors(ctx, self, other, result, out);
}

// aten::remainder.Scalar_out
etr_error_t etr_ref_remainder_scalar_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args,
                                         size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t other;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "other", &other));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_tensor_scalar(ctx, self, &other, &result));
  etr_tensor_t other_tensor;
  uint64_t storage = 0;
  etr_scalar_to_tensor(&other, &other_tensor, &storage);
  return remainder_tensors(ctx, self, &other_tensor, result, out);
}
