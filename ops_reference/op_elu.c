// SPDX-License-Identifier: Apache-2.0
//
// aten::elu.out: out = scale * self where self >= 0 (or NaN), else
// alpha * scale * (exp(self * input_scale) - 1).
//
// Dtypes: Half, BFloat16, Float, Double; the out dtype must equal self's
// (InvalidArgument); every other dtype is NotSupported ("elu_cpu" not
// implemented), checked after the out dtype as ATen does.
//
// Parameters: as ATen's elu kernel (aten/src/ATen/native/cpu/Elu.h), the
// Scalars are converted to the op-math type (Float for Half, BFloat16 and
// Float; Double for Double) with c10's overflow check (InvalidArgument:
// alpha = 1e300 cannot be a float), and negcoef = alpha * scale is formed
// in that type; the element is x < 0 ? expm1(x * input_scale) * negcoef :
// x * scale, evaluated here in double and rounded once to self's dtype.
// -0.0 and NaN take the positive branch (-0.0 * scale, NaN).
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

typedef struct elu_state {
  double negcoef;      // alpha * scale
  double poscoef;      // scale
  double negiptcoef;   // input_scale
} elu_state_t;

static double elu_double(double x, const void *state) {
  const elu_state_t *s = state;
  return x < 0.0 ? expm1(x * s->negiptcoef) * s->negcoef : x * s->poscoef;
}

static const etr_unary_fns_t kEluFns = {NULL, elu_double, NULL};

static const etr_unary_same_dtype_rule_t kEluRule = {ETR_DTYPES_FLOATING,
                                                    false};

// aten::elu.out
etr_error_t etr_ref_elu_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t alpha;
  etr_scalar_t scale;
  etr_scalar_t input_scale;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "alpha", &alpha));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 2, "scale", &scale));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 3, "input_scale",
                         &input_scale));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_unary_check_same_dtype(ctx, self, out, &kEluRule));

  etr_scalar_type_t opmath = self->dtype == ETR_DOUBLE ? ETR_DOUBLE
                                                       : ETR_FLOAT;
  ETR_TRY(etr_check_scalar_fits(ctx, "alpha", &alpha, opmath));
  ETR_TRY(etr_check_scalar_fits(ctx, "scale", &scale, opmath));
  ETR_TRY(etr_check_scalar_fits(ctx, "input_scale", &input_scale, opmath));
  double alpha_value = etr_round_double(opmath, alpha.as_double);
  elu_state_t state;
  state.poscoef = etr_round_double(opmath, scale.as_double);
  state.negiptcoef = etr_round_double(opmath, input_scale.as_double);
  state.negcoef = etr_round_double(opmath, alpha_value * state.poscoef);
  etr_elementwise_spec_t spec = {self->dtype, self->dtype, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kEluFns, &state);
}
