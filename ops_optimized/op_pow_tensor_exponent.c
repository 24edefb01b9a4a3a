// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::pow.Tensor_Tensor_out for Float, Half and BFloat16
// results (binary/elementwise.h's layouts and broadcasts): C's pow as
// binary/binary.h's POW computes it (e^(y ln|x|) in double, C's signs and
// special cases), within the ULP bound
// ops_optimized/test/diff_elementwise_transcendental_test.c measures.
//
// Optimized aten::pow.Scalar_out (a Scalar base, a Tensor exponent) for a
// Float, Half or BFloat16 exponent whose result dtype is its own, out of
// that dtype, and a base that, rounded to that dtype as the reference
// rounds it, is finite, positive and not 1: base^y = e^(y ln base), ln
// base once in double (libm), y ln base rounded once in double, e^z from
// a float hi + lo split (unary/vmath_explog.h), within the ULP bound
// ops_optimized/test/diff_elementwise_transcendental_test.c measures; y =
// +-inf, NaN and +-0 as C's pow; other bases (1, 0, negative, infinite)
// are the reference's.
// For both: other dtypes and outs, and argument errors, go to the
// reference kernels (ops_reference/op_pow_tensor_exponent.c).
#include <math.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"

// aten::pow.Tensor_Tensor_out
etr_error_t etr_opt_pow_tensor_tensor_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_binary_call_t call;
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 4 &&
      etr_binary_probe(ctx, args, num_args, false, false, false, 2, &call)) {
    call.op = ETR_BINARY_POW;
    status = etr_binary_execute(ctx, &call, &handled);
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_pow_tensor_tensor_out, ctx, args,
                                    num_args);
}

// aten::pow.Scalar_out
etr_error_t etr_opt_pow_scalar_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *exponent = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  etr_scalar_t base;
  etr_scalar_type_t result;
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 4 && etr_unary_case(exponent, out) &&
      etr_ew_scalar_arg(ctx, args, num_args, 0, &base) &&
      base.kind != ETR_SCALAR_BOOL &&
      etr_result_type_tensor_scalar(&probe, exponent, &base, &result) ==
          ETR_OK &&
      result == exponent->dtype) {
    double rounded = etr_round_double(result, base.as_double);
    if (rounded > 0.0 && rounded != 1.0 && isfinite(rounded)) {
      etr_unary_params_t params = {0};
      params.log_base = log(rounded);
      status = etr_unary_execute(ctx, ETR_UNARY_EXP_SCALED, &params,
                                 exponent, out, &handled);
    }
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_pow_scalar_out, ctx, args,
                                    num_args);
}
