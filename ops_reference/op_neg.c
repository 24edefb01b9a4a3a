// SPDX-License-Identifier: Apache-2.0
//
// aten::neg.out: out = -self.
//
// Dtypes: every real dtype and complex; Bool is NotSupported (PyTorch:
// "Negation, the `-` operator, on a bool tensor is not supported"). The
// out dtype must equal self's (InvalidArgument otherwise, as ATen's
// structured kernel requires). Integers wrap (-(-128) is -128 in int8).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

static int64_t neg_int(int64_t value, const void *state) {
  (void)state;
  return etr_wrapping_sub(0, value);
}

static double neg_double(double value, const void *state) {
  (void)state;
  return -value;
}

static etr_complex_t neg_complex(etr_complex_t value, const void *state) {
  (void)state;
  etr_complex_t result = {-value.real, -value.imag};
  return result;
}

static const etr_unary_fns_t kNegFns = {neg_int, neg_double, neg_complex};

// aten::neg.out
etr_error_t etr_ref_neg_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPES_REAL | ETR_DTYPES_COMPLEX));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  etr_elementwise_spec_t spec = {self->dtype, self->dtype, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kNegFns, NULL);
}
