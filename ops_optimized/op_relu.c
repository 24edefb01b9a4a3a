// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::relu.out: a contiguous Float input into a Float out with
// the default dim order runs the fp32 relu microkernel of the active ISA;
// a contiguous Half or BFloat16 one relu on its bits (etr_relu_16bit); Half
// and BFloat16 views (and Float views) with an out of self's dtype run the
// unary driver's clamp with limits 0 and +inf (unary/unary_driver.h:
// staged through fp32, which a relu leaves exact), x < 0 ? 0 : x as the
// reference's, so NaN and -0.0 pass through. uint8 and int8..int64 run
// binary/integer.h's maximum with 0 (in the layouts plan.h takes). Every
// other dtype and layout goes to the reference kernel
// (ops_reference/op_relu.c), which also reports argument errors.
#include <math.h>

#include "ops_optimized/binary/integer.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::relu.out
etr_error_t etr_opt_relu_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args != 3 || out == NULL) {
    return etr_opt_fallback(etr_ref_relu_out, ctx, args, num_args);
  }
  if (!etr_opt_is_contiguous_f32(self) || out->dtype != ETR_FLOAT ||
      !etr_dim_order_is_contiguous(out->dim_order, out->dim)) {
    if (self != NULL && etr_int_dtype(self->dtype) &&
        out->dtype == self->dtype) {
      // max(x, 0): the reference's x > 0 ? x : 0 on integers.
      const etr_int_call_t call = {.op = ETR_INT_MAXIMUM, .a = self,
                                   .value = 0, .alpha = 1, .out = out};
      bool handled = false;
      etr_error_t status = etr_int_execute(ctx, &call, &handled);
      return handled ? status
                     : etr_opt_fallback(etr_ref_relu_out, ctx, args, num_args);
    }
    if (!etr_unary_case(self, out)) {
      return etr_opt_fallback(etr_ref_relu_out, ctx, args, num_args);
    }
    if (self->dtype != ETR_FLOAT && etr_tensor_is_contiguous(self) &&
        etr_dim_order_is_contiguous(out->dim_order, out->dim)) {
      ETR_TRY(etr_resize_out(ctx, out, self->dim, self->sizes));
      if (!ctx->dry_run) {
        etr_relu_16bit((size_t)etr_tensor_numel(self),
                       (const uint16_t *)self->data, (uint16_t *)out->data,
                       self->dtype == ETR_HALF ? 0x7c00 : 0x7f80);
      }
      return ETR_OK;
    }
    const etr_unary_params_t params = {.low = 0.0f, .high = INFINITY};
    bool handled = false;
    etr_error_t status =
        etr_unary_execute(ctx, ETR_UNARY_CLAMP, &params, self, out, &handled);
    return handled ? status
                   : etr_opt_fallback(etr_ref_relu_out, ctx, args, num_args);
  }
  ETR_TRY(etr_resize_out(ctx, out, self->dim, self->sizes));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_f32_relu_for(etr_isa_active())((size_t)etr_tensor_numel(self),
                                     (const float *)self->data,
                                     (float *)out->data);
  return ETR_OK;
}
