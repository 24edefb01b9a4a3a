// SPDX-License-Identifier: Apache-2.0
//
// aten::leaky_relu.out: out = self where self > 0, else self *
// negative_slope.
//
// Dtypes: Half, BFloat16, Float, Double; the out dtype must equal self's
// (InvalidArgument); every other dtype is NotSupported ("leaky_relu_cpu"
// not implemented), checked after the out dtype as ATen does. The slope is
// converted to the op-math type (Float for Half, BFloat16 and Float;
// Double for Double) with c10's overflow check (InvalidArgument: a slope
// of 1e300 cannot be a float), and the product is rounded once to self's
// dtype. NaN stays NaN; -0.0 gives -0.0 * slope.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static double leaky_relu_double(double x, const void *state) {
  const double *slope = state;
  return x > 0.0 ? x : x * *slope;
}

static const etr_unary_fns_t kLeakyReluFns = {NULL, leaky_relu_double,
                                              NULL};

static const etr_unary_same_dtype_rule_t kLeakyReluRule = {
    ETR_DTYPES_FLOATING, false};

// aten::leaky_relu.out
etr_error_t etr_ref_leaky_relu_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t negative_slope;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "negative_slope",
                         &negative_slope));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_unary_check_same_dtype(ctx, self, out, &kLeakyReluRule));
  etr_scalar_type_t opmath = self->dtype == ETR_DOUBLE ? ETR_DOUBLE
                                                       : ETR_FLOAT;
  ETR_TRY(etr_check_scalar_fits(ctx, "negative_slope", &negative_slope,
                                opmath));
  double slope = etr_round_double(opmath, negative_slope.as_double);
  etr_elementwise_spec_t spec = {self->dtype, self->dtype, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kLeakyReluFns,
                               &slope);
}
