// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::fill.Scalar_out: the value converted to out's dtype
// exactly as the reference does (etr_movement_store_scalar), then written
// to every element by the fill microkernel (memset when its bytes are all
// equal). Every dtype and layout; arguments, including the overflow check
// of the value, are checked by the reference kernel's dry run
// (ops_reference/op_fill.c).
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/movement_util.h"

// aten::fill.Scalar_out
etr_error_t etr_opt_fill_scalar_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (out == NULL ||
      etr_opt_check(etr_ref_fill_scalar_out, ctx, args, num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_fill_scalar_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_scalar_t value;
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "value", &value));
  uint8_t element[16];
  etr_movement_store_scalar(out->dtype, element, &value);
  etr_move_fill_tensor(out, element);
  return ETR_OK;
}
