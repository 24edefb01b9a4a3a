// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::full.out and aten::full_like.out: fill_value converted to
// out's dtype exactly as the reference does (etr_store_double for a Double
// scalar, etr_store_int64 otherwise), then written to every element by the
// fill microkernel (memset when its bytes are all equal). Every dtype and
// layout; arguments, including the overflow check of the value, are
// checked by the reference kernels' dry run (ops_reference/op_full.c).
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/element.h"

static etr_error_t full(etr_kernel_fn reference, size_t value_index,
                        size_t out_index, etr_kernel_context_t *ctx,
                        etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, out_index);
  if (out == NULL ||
      etr_move_validate(reference, ctx, args, num_args) != ETR_OK) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_scalar_t value;
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, value_index, "fill_value",
                         &value));
  uint8_t element[16];
  if (value.kind == ETR_SCALAR_DOUBLE) {
    etr_store_double(out->dtype, element, value.as_double);
  } else {
    etr_store_int64(out->dtype, element, value.as_int);
  }
  etr_move_fill_tensor(out, element);
  return ETR_OK;
}

// aten::full.out
etr_error_t etr_opt_full_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  return full(etr_ref_full_out, 1, 2, ctx, args, num_args);
}

// aten::full_like.out
etr_error_t etr_opt_full_like_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  return full(etr_ref_full_like_out, 1, 3, ctx, args, num_args);
}
