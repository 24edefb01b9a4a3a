// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::clamp.out and aten::clamp.Tensor_out for Float, Half and
// BFloat16 results with an out of that dtype; exact.
//
// clamp.out (Scalar bounds): the bounds are checked and rounded to the
// result dtype as the reference does; x < min -> min, then x > max -> max
// (NaN x kept, ties keep x, min > max gives max), through the unary
// driver. A NaN bound (which makes every element NaN) goes to the
// reference, as do other dtypes and argument errors
// (ops_reference/op_clamp.c).
//
// clamp.Tensor_out: ternary/ternary_driver.c, with the tensor bounds
// broadcast against self (NaN bounds included).
#include <math.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/ternary/ternary.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"

// Reads an optional Scalar bound; false when it is neither None nor a
// Scalar that fits `result`.
static bool read_bound(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args, size_t index, bool *present,
                       etr_scalar_t *bound) {
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  return etr_arg_optional_scalar(&probe, args, num_args, index, "bound",
                                 present, bound) == ETR_OK;
}

// aten::clamp.out
etr_error_t etr_opt_clamp_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  if (etr_unary_kept_run(ctx, args, 0, 3)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  bool has_min = false;
  bool has_max = false;
  etr_scalar_t min;
  etr_scalar_t max;
  if (num_args != 5 || !etr_unary_case(self, out) ||
      !read_bound(ctx, args, num_args, 1, &has_min, &min) ||
      !read_bound(ctx, args, num_args, 2, &has_max, &max) ||
      (!has_min && !has_max)) {
    return etr_opt_fallback(etr_ref_clamp_out, ctx, args, num_args);
  }
  etr_result_type_t promotion;
  etr_result_type_init(&promotion);
  etr_result_type_add_tensor(&promotion, self);
  if (has_min) {
    etr_result_type_add_scalar(&promotion, &min);
  }
  if (has_max) {
    etr_result_type_add_scalar(&promotion, &max);
  }
  etr_scalar_type_t result;
  etr_unary_params_t params = {-INFINITY, INFINITY, 0, 0, 0, 0, 0.0, 0.0};
  bool ok = etr_result_type_get(&probe, &promotion, &result) == ETR_OK &&
            result == self->dtype;
  if (ok && has_min) {
    ok = etr_check_scalar_fits(&probe, "min", &min, result) == ETR_OK;
    params.low = (float)etr_round_double(result, min.as_double);
  }
  if (ok && has_max) {
    ok = etr_check_scalar_fits(&probe, "max", &max, result) == ETR_OK;
    params.high = (float)etr_round_double(result, max.as_double);
  }
  if (!ok || isnan(params.low) || isnan(params.high)) {
    return etr_opt_fallback(etr_ref_clamp_out, ctx, args, num_args);
  }
  bool handled = false;
  etr_error_t status = etr_unary_execute_kept(ctx, ETR_UNARY_CLAMP, &params,
                                              self, out, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_clamp_out, ctx, args, num_args);
}

// aten::clamp.Tensor_out
etr_error_t etr_opt_clamp_tensor_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  bool handled = false;
  etr_error_t status =
      etr_clamp_tensor_execute(ctx, args, num_args, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_clamp_tensor_out, ctx, args,
                                    num_args);
}
