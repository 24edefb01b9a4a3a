// SPDX-License-Identifier: Apache-2.0
//
// aten::hardtanh.out: out = min(max(self, min_val), max_val) (ReLU6 is
// hardtanh(0, 6)).
//
// As ATen's hardtanh_out: Bool is NotSupported (complex too); for integral
// self the limits are truncated to integers first ("boundaries not causing
// type promotion") and uint8 refuses negative limits (InvalidArgument);
// the limits must fit self's dtype (c10's overflow check); the out dtype
// must equal self's. NaN in self passes through.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

typedef struct hardtanh_state {
  int64_t min_int;
  int64_t max_int;
  double min_double;
  double max_double;
} hardtanh_state_t;

static int64_t hardtanh_int(int64_t value, const void *state) {
  const hardtanh_state_t *s = state;
  value = value < s->min_int ? s->min_int : value;
  return value > s->max_int ? s->max_int : value;
}

static double hardtanh_double(double value, const void *state) {
  const hardtanh_state_t *s = state;
  if (isnan(value)) {
    return value;
  }
  value = value < s->min_double ? s->min_double : value;
  return value > s->max_double ? s->max_double : value;
}

static const etr_unary_fns_t kHardtanhFns = {hardtanh_int, hardtanh_double,
                                             NULL};

// A Scalar limit as an integer Scalar (toLong truncates toward zero).
static etr_scalar_t truncated(const etr_scalar_t *limit) {
  etr_scalar_t result = *limit;
  if (limit->kind == ETR_SCALAR_DOUBLE) {
    result.kind = ETR_SCALAR_INT;
    result.as_int = etr_double_to_int64(limit->as_double);
    result.as_double = (double)result.as_int;
  }
  return result;
}

// aten::hardtanh.out
etr_error_t etr_ref_hardtanh_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t min;
  etr_scalar_t max;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "min_val", &min));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 2, "max_val", &max));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  if (etr_dtype_kind(self->dtype) == ETR_KIND_INTEGRAL) {
    min = truncated(&min);
    max = truncated(&max);
    ETR_CHECK(ctx->diag,
              self->dtype != ETR_BYTE || (min.as_int >= 0 && max.as_int >= 0),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: cannot do hardtanh on an unsigned type with negative "
              "limits",
              etr_op_name(ctx));
  }
  ETR_TRY(etr_check_scalar_fits(ctx, "min_val", &min, self->dtype));
  ETR_TRY(etr_check_scalar_fits(ctx, "max_val", &max, self->dtype));
  hardtanh_state_t state = {min.as_int, max.as_int,
                            etr_round_double(self->dtype, min.as_double),
                            etr_round_double(self->dtype, max.as_double)};
  etr_elementwise_spec_t spec = {self->dtype, self->dtype, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kHardtanhFns, &state);
}
