// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::scatter_add.out: out = self by the movement engine, then
// one pass over the index adding each src entry to its target
// (movement/scatter.c): O(numel(index)) against the reference's
// O(numel(self) * index.size(dim)), in the reference's order per target
// (fp32 sums rounded step by step: bit-exact). Float and Long, and Half
// and BFloat16 into a dense out (summed in an fp32 copy of out in
// ctx->temp and rounded back once, ATen's float accumulation: bit-exact);
// other dtypes, out-of-range index entries, outs overlapping an input and
// argument errors go to the reference kernel (ops_reference/
// op_scatter_add.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::scatter_add.out
etr_error_t etr_opt_scatter_add_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *index = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *src = etr_opt_tensor_arg(args, num_args, 3);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || !etr_move_same_dtype(self, out) || index == NULL ||
      src == NULL ||
      etr_opt_check(etr_ref_scatter_add_out, ctx, args, num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_scatter_add_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int32_t dim = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  if (!etr_move_scatter(ctx->temp, out, self, dim, index, src, NULL,
                        ETR_MOVEMENT_SUM, true)) {
    return etr_opt_fallback(etr_ref_scatter_add_out, ctx, args, num_args);
  }
  return ETR_OK;
}
