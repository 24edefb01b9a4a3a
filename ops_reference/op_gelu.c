// SPDX-License-Identifier: Apache-2.0
//
// aten::gelu.out: the Gaussian error linear unit.
//
//   approximate "none": out = x/2 * (1 + erf(x / sqrt(2)))
//   approximate "tanh": out = x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))
//
// exactly the formulas of ATen's GeluKernel, evaluated in double and
// rounded to self's dtype. Dtypes: Half, BFloat16, Float, Double (others
// NotSupported, as in PyTorch); the out dtype must equal self's
// (InvalidArgument). Any other `approximate` string is InvalidArgument.
#include <math.h>
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

// M_SQRT1_2 and M_SQRT2 * M_2_SQRTPI / 2 (not in strict C11's math.h).
static const double kSqrtHalf = 0.70710678118654752440;
static const double kSqrtTwoOverPi = 0.79788456080286535588;

static double gelu_erf(double x, const void *state) {
  (void)state;
  return x * 0.5 * (1.0 + erf(x * kSqrtHalf));
}

static double gelu_tanh(double x, const void *state) {
  (void)state;
  const double beta = kSqrtTwoOverPi;
  const double kappa = 0.044715;
  double inner = beta * (x + kappa * x * x * x);
  return 0.5 * x * (1.0 + tanh(inner));
}

static const etr_unary_fns_t kGeluErfFns = {NULL, gelu_erf, NULL};
static const etr_unary_fns_t kGeluTanhFns = {NULL, gelu_tanh, NULL};

// aten::gelu.out
etr_error_t etr_ref_gelu_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = NULL;
  const char *approximate = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_string(ctx, args, num_args, 1, "approximate", &approximate));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  bool use_tanh = strcmp(approximate, "tanh") == 0;
  ETR_CHECK(ctx->diag, use_tanh || strcmp(approximate, "none") == 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: approximate argument must be either none or tanh, not '%s'",
            etr_op_name(ctx), approximate);
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_FLOATING));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  etr_elementwise_spec_t spec = {self->dtype, self->dtype, false};
  return etr_unary_elementwise(ctx, self, out, &spec,
                               use_tanh ? &kGeluTanhFns : &kGeluErfFns, NULL);
}
