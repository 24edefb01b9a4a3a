// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::relu.out: a contiguous Float input into a Float out with
// the default dim order runs the fp32 relu microkernel of the active ISA;
// every other dtype and layout goes to the reference kernel
// (ops_reference/op_relu.c), which also reports argument errors.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::relu.out
etr_error_t etr_opt_relu_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args != 3 || !etr_opt_is_contiguous_f32(self) || out == NULL ||
      out->dtype != ETR_FLOAT ||
      !etr_dim_order_is_contiguous(out->dim_order, out->dim)) {
    return etr_opt_fallback(etr_ref_relu_out, ctx, args, num_args);
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
