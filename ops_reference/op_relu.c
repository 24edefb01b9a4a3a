// SPDX-License-Identifier: Apache-2.0
//
// aten::relu.out: out = max(self, 0), with NaN passed through (PyTorch's
// relu is clamp_min(self, 0), which propagates NaN).
//
// Dtypes: every real dtype (uint8 included: it is returned unchanged);
// Bool and complex are NotSupported, as in PyTorch. The out dtype must
// equal self's (InvalidArgument).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

static int64_t relu_int(int64_t value, const void *state) {
  (void)state;
  return value > 0 ? value : 0;
}

static double relu_double(double value, const void *state) {
  (void)state;
  // `value < 0` is false for NaN, so NaN comes out unchanged.
  return value < 0.0 ? 0.0 : value;
}

static const etr_unary_fns_t kReluFns = {relu_int, relu_double, NULL};

// aten::relu.out
etr_error_t etr_ref_relu_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  etr_elementwise_spec_t spec = {self->dtype, self->dtype, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kReluFns, NULL);
}
