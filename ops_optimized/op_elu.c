// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::elu.out for a Float, Half or BFloat16 self with an out
// of the same dtype (unary/unary_driver.h layouts): x < 0 ?
// expm1(x * input_scale) * negcoef : x * scale, with the parameters
// rounded to float as the reference rounds them (negcoef = alpha * scale
// formed in float). The positive branch is exact; the negative one is
// within 2 ULP (expm1 of unary/vmath.h). Every other dtype and out,
// parameters that do not fit a float, and argument errors, go to the
// reference kernel (ops_reference/op_elu.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"

// aten::elu.out
etr_error_t etr_opt_elu_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  if (etr_unary_kept_run(ctx, args, 0, 4)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  etr_scalar_t alpha;
  etr_scalar_t scale;
  etr_scalar_t input_scale;
  if (num_args != 6 || !etr_unary_case(self, out) ||
      !etr_ew_scalar_arg(ctx, args, num_args, 1, &alpha) ||
      !etr_ew_scalar_arg(ctx, args, num_args, 2, &scale) ||
      !etr_ew_scalar_arg(ctx, args, num_args, 3, &input_scale) ||
      etr_check_scalar_fits(&probe, "alpha", &alpha, ETR_FLOAT) != ETR_OK ||
      etr_check_scalar_fits(&probe, "scale", &scale, ETR_FLOAT) != ETR_OK ||
      etr_check_scalar_fits(&probe, "input_scale", &input_scale,
                            ETR_FLOAT) != ETR_OK) {
    return etr_opt_fallback(etr_ref_elu_out, ctx, args, num_args);
  }
  etr_unary_params_t params = {0};
  float alpha_value = (float)alpha.as_double;
  params.poscoef = (float)scale.as_double;
  params.input_scale = (float)input_scale.as_double;
  params.negcoef = alpha_value * params.poscoef;
  bool handled = false;
  etr_error_t status =
      etr_unary_execute_kept(ctx, ETR_UNARY_ELU, &params, self, out, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_elu_out, ctx, args, num_args);
}
