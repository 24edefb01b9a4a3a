// SPDX-License-Identifier: Apache-2.0
//
// aten::clamp.out: out = min(max(self, min), max) with optional bounds.
//
// Dtypes: the result dtype is torch.result_type(self, min, max) (the
// bounds take part as Python numbers, so an int tensor clamped to 0.5 is
// Float and a Bool tensor clamped to ints is Long); the out dtype must
// equal it (InvalidArgument, like ATen's "Found dtype Long but expected
// Float"). Every real dtype and Bool; complex is NotSupported. The bounds
// are converted to the result dtype with c10's overflow check
// (InvalidArgument: an int8 tensor cannot be clamped to 1000). At least
// one bound is required. NaN in self or in a bound gives NaN; when
// min > max every element becomes max.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

typedef struct clamp_state {
  bool has_min;
  bool has_max;
  int64_t min_int;
  int64_t max_int;
  double min_double;
  double max_double;
} clamp_state_t;

static int64_t clamp_int(int64_t value, const void *state) {
  const clamp_state_t *s = state;
  if (s->has_min && value < s->min_int) {
    value = s->min_int;
  }
  if (s->has_max && value > s->max_int) {
    value = s->max_int;
  }
  return value;
}

static double clamp_double(double value, const void *state) {
  const clamp_state_t *s = state;
  if (isnan(value)) {
    return value;
  }
  if (s->has_min) {
    value = isnan(s->min_double) || value < s->min_double ? s->min_double
                                                          : value;
  }
  if (s->has_max) {
    value = isnan(s->max_double) || value > s->max_double ? s->max_double
                                                          : value;
  }
  return value;
}

static const etr_unary_fns_t kClampFns = {clamp_int, clamp_double, NULL};

// aten::clamp.out
etr_error_t etr_ref_clamp_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t min;
  etr_scalar_t max;
  clamp_state_t state = {false, false, 0, 0, 0.0, 0.0};
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_scalar(ctx, args, num_args, 1, "min",
                                  &state.has_min, &min));
  ETR_TRY(etr_arg_optional_scalar(ctx, args, num_args, 2, "max",
                                  &state.has_max, &max));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_CHECK(ctx->diag, state.has_min || state.has_max,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: at least one of 'min' or 'max' must not be None",
            etr_op_name(ctx));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL_AND_BOOL));

  etr_result_type_t promotion;
  etr_result_type_init(&promotion);
  etr_result_type_add_tensor(&promotion, self);
  if (state.has_min) {
    etr_result_type_add_scalar(&promotion, &min);
  }
  if (state.has_max) {
    etr_result_type_add_scalar(&promotion, &max);
  }
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_get(ctx, &promotion, &result));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, result));
  if (state.has_min) {
    ETR_TRY(etr_check_scalar_fits(ctx, "min", &min, result));
    state.min_int = min.as_int;
    state.min_double = etr_round_double(result, min.as_double);
  }
  if (state.has_max) {
    ETR_TRY(etr_check_scalar_fits(ctx, "max", &max, result));
    state.max_int = max.as_int;
    state.max_double = etr_round_double(result, max.as_double);
  }
  etr_elementwise_spec_t spec = {result, result, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kClampFns, &state);
}
