// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::hardtanh.out for a Float, Half or BFloat16 self with an
// out of the same dtype (unary/unary_driver.h layouts): x < min_val ?
// min_val : x, then > max_val ? max_val : x, the limits rounded to self's
// dtype as the reference rounds them; exact (NaN x passes through, a NaN
// limit is never taken, ties keep x). Every other dtype and out, limits
// that do not fit the dtype, and argument errors, go to the reference
// kernel (ops_reference/op_hardtanh.c).
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"

// aten::hardtanh.out
etr_error_t etr_opt_hardtanh_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  if (etr_unary_kept_run(ctx, args, 0, 3)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  etr_scalar_t low;
  etr_scalar_t high;
  if (num_args != 5 || !etr_unary_case(self, out) ||
      !etr_ew_scalar_arg(ctx, args, num_args, 1, &low) ||
      !etr_ew_scalar_arg(ctx, args, num_args, 2, &high) ||
      etr_check_scalar_fits(&probe, "min_val", &low, self->dtype) != ETR_OK ||
      etr_check_scalar_fits(&probe, "max_val", &high, self->dtype) !=
          ETR_OK) {
    return etr_opt_fallback(etr_ref_hardtanh_out, ctx, args, num_args);
  }
  etr_unary_params_t params = {0};
  params.low = (float)etr_round_double(self->dtype, low.as_double);
  params.high = (float)etr_round_double(self->dtype, high.as_double);
  bool handled = false;
  etr_error_t status = etr_unary_execute_kept(ctx, ETR_UNARY_CLAMP, &params,
                                              self, out, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_hardtanh_out, ctx, args, num_args);
}
