// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::scatter.src_out and aten::scatter.value_out: out = self
// by the movement engine, then one pass over the index writing each entry
// (movement/scatter.c): O(numel(index)) against the reference's
// O(numel(self) * index.size(dim)), same order (the last write wins),
// bit-exact for every dtype and layout. Out-of-range index entries, outs
// overlapping an input and argument errors go to the reference kernel
// (ops_reference/op_scatter.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

static etr_error_t scatter(etr_kernel_fn reference, bool has_src,
                           etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *index = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || !etr_move_same_dtype(self, out) || index == NULL ||
      etr_opt_check(reference, ctx, args, num_args) != ETR_OK) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int32_t dim = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  etr_tensor_t *src = NULL;
  uint8_t element[16] = {0};
  if (has_src) {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "src", &src));
  } else {
    etr_scalar_t value;
    ETR_TRY(etr_arg_scalar(ctx, args, num_args, 3, "value", &value));
    etr_movement_store_scalar(out->dtype, element, &value);
  }
  if (!etr_move_scatter(ctx->temp, out, self, dim, index, src, element,
                        ETR_MOVEMENT_ASSIGN, true)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  return ETR_OK;
}

// aten::scatter.src_out
etr_error_t etr_opt_scatter_src_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  return scatter(etr_ref_scatter_src_out, true, ctx, args, num_args);
}

// aten::scatter.value_out
etr_error_t etr_opt_scatter_value_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  return scatter(etr_ref_scatter_value_out, false, ctx, args, num_args);
}
