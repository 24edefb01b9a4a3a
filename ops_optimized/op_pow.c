// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::pow.Tensor_Scalar_out for a Float, Half or BFloat16 self
// whose result dtype is its own (an Int, Double or Bool exponent), out of
// that dtype, for the exponents models use, each matching C's pow in
// double rounded to float as the reference computes it:
//   0 -> 1 (also for NaN), 1 -> x, 2 -> x * x, -1 -> 1 / x: exact;
//   0.5 -> sqrt(x), with pow's +0 at -0 and +inf at -inf: exact;
//   3 -> x^3 and -2 -> 1 / x^2 in double (x * x is exact there), -0.5 ->
//   1 / sqrt(x) in double with pow's specials: the double result is
//   within an ulp of pow's, so the float result is the reference's except
//   when the exact value lies within 2^-53 of a float rounding boundary
//   (never seen in testing; the tests allow 1 ULP).
// Any other finite exponent c: C's pow(x, c) with c in double, |x|^c =
// e^(c ln|x|) with ln|x| and the product in double (unary/vmath_explog.h's
// vf_pow_const), signs and special cases as C's: within 1 ULP (the ULP
// table of ops_optimized/test/diff_elementwise_transcendental_test.c).
// Infinite exponents, other dtypes and outs, and argument errors, go to
// the reference kernel (ops_reference/op_pow.c).
#include <math.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"

static const struct {
  double exponent;
  etr_unary_op_t op;
} kExponents[] = {
    {0.0, ETR_UNARY_POW_0},         {1.0, ETR_UNARY_POW_1},
    {2.0, ETR_UNARY_POW_2},         {3.0, ETR_UNARY_POW_3},
    {-1.0, ETR_UNARY_POW_MINUS_1},  {-2.0, ETR_UNARY_POW_MINUS_2},
    {0.5, ETR_UNARY_POW_HALF},      {-0.5, ETR_UNARY_POW_MINUS_HALF},
};

// aten::pow.Tensor_Scalar_out
etr_error_t etr_opt_pow_tensor_scalar_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  etr_scalar_t exponent;
  etr_scalar_type_t result;
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 4 && etr_unary_case(self, out) &&
      etr_ew_scalar_arg(ctx, args, num_args, 1, &exponent) &&
      etr_result_type_tensor_scalar(&probe, self, &exponent, &result) ==
          ETR_OK &&
      result == self->dtype) {
    etr_unary_op_t op = ETR_UNARY_POW_SCALAR;
    for (size_t i = 0; i < sizeof(kExponents) / sizeof(kExponents[0]);
         ++i) {
      if (exponent.as_double == kExponents[i].exponent) {
        op = kExponents[i].op;
        break;
      }
    }
    etr_unary_params_t params = {0};
    params.exponent = exponent.as_double;
    if (op != ETR_UNARY_POW_SCALAR || isfinite(exponent.as_double)) {
      status = etr_unary_execute(ctx, op, &params, self, out, &handled);
    }
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_pow_tensor_scalar_out, ctx, args,
                                    num_args);
}
