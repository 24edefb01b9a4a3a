// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::leaky_relu.out for a Float, Half or BFloat16 self with an
// out of the same dtype (unary/unary_driver.h layouts): x > 0 ? x : x *
// slope, the slope rounded to float as the reference rounds it; exact
// (NaN stays NaN, -0.0 gives -0.0 * slope). Every other dtype and out, a
// slope that does not fit a float, and argument errors, go to the
// reference kernel (ops_reference/op_leaky_relu.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"

// aten::leaky_relu.out
etr_error_t etr_opt_leaky_relu_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  if (etr_unary_kept_run(ctx, args, 0, 2)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  etr_scalar_t slope;
  if (num_args != 4 || !etr_unary_case(self, out) ||
      !etr_ew_scalar_arg(ctx, args, num_args, 1, &slope) ||
      etr_check_scalar_fits(&probe, "negative_slope", &slope, ETR_FLOAT) !=
          ETR_OK) {
    return etr_opt_fallback(etr_ref_leaky_relu_out, ctx, args, num_args);
  }
  etr_unary_params_t params = {0};
  params.slope = (float)slope.as_double;
  bool handled = false;
  etr_error_t status = etr_unary_execute_kept(
      ctx, ETR_UNARY_LEAKY_RELU, &params, self, out, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_leaky_relu_out, ctx, args,
                                    num_args);
}
