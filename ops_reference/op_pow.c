// SPDX-License-Identifier: Apache-2.0
//
// aten::pow.Tensor_Scalar_out: out = self ** exponent.
//
// Dtypes: the result dtype is torch.result_type(self, exponent) (so an int
// tensor to the power 2 stays integral, to 2.5 becomes Float, and a Bool
// tensor to an int power is Long); every real dtype, Bool and complex. The
// out dtype may be any the result can be cast to (InvalidArgument
// otherwise). Integral results are computed exactly by repeated squaring
// with wrap-around; a negative integral exponent is InvalidArgument
// ("Integers to negative integer powers are not allowed"). Floating
// results use C's pow in double (so 0 ** 0 = 1 and a negative base to a
// fractional power is NaN), complex ones cpow.
#include <complex.h>
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"

typedef struct pow_state {
  int64_t exponent_int;
  double exponent_double;
} pow_state_t;

static int64_t pow_int(int64_t base, const void *state) {
  const pow_state_t *s = state;
  int64_t result = 1;
  for (int64_t exponent = s->exponent_int; exponent > 0; exponent >>= 1) {
    if (exponent & 1) {
      result = etr_wrapping_mul(result, base);
    }
    base = etr_wrapping_mul(base, base);
  }
  return result;
}

static double pow_double(double base, const void *state) {
  const pow_state_t *s = state;
  return pow(base, s->exponent_double);
}

static etr_complex_t pow_complex(etr_complex_t base, const void *state) {
  const pow_state_t *s = state;
  double _Complex result = cpow(ETR_TO_C99_COMPLEX(base), s->exponent_double);
  etr_complex_t out = {creal(result), cimag(result)};
  return out;
}

static const etr_unary_fns_t kPowFns = {pow_int, pow_double, pow_complex};

// aten::pow.Tensor_Scalar_out
etr_error_t etr_ref_pow_tensor_scalar_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t exponent;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "exponent", &exponent));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_ALL));
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_tensor_scalar(ctx, self, &exponent, &result));
  ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  etr_dtype_kind_t kind = etr_dtype_kind(result);
  bool integral = kind == ETR_KIND_INTEGRAL || kind == ETR_KIND_BOOL;
  ETR_CHECK(ctx->diag, !integral || exponent.as_int >= 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: Integers to negative integer powers are not allowed",
            etr_op_name(ctx));
  pow_state_t state = {exponent.as_int, exponent.as_double};
  etr_elementwise_spec_t spec = {result, result, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kPowFns, &state);
}
