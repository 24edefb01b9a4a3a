// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::slice_scatter.out, for a src of self's dtype: out = self
// and then the slice of out = src, both moved by the movement engine (the
// first is skipped when out is self, the in-place form). A src of another
// dtype and a src overlapping out go to the reference kernel
// (ops_reference/op_slice_scatter.c), whose dry run also checks the
// arguments.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::slice_scatter.out
etr_error_t etr_opt_slice_scatter_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *src = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 6);
  if (!etr_move_same_dtype(self, out) || !etr_move_same_dtype(src, out) ||
      etr_opt_check(etr_ref_slice_scatter_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self) || etr_move_overlaps(out, src)) {
    return etr_opt_fallback(etr_ref_slice_scatter_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  bool has_start = false;
  int64_t start = 0;
  bool has_end = false;
  int64_t end = 0;
  int64_t step = 1;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 3, "start", &has_start,
                               &start));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 4, "end", &has_end, &end));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 5, "step", &step));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t first = 0;
  int64_t length = 0;
  ETR_TRY(etr_slice_bounds(ctx, self->sizes[dim], has_start, start, has_end,
                           end, step, &first, &length));
  etr_move_tensor(out, self);
  etr_tensor_t target;
  etr_slice_view(out, dim, first, length, step, &target);
  etr_move_tensor(&target, src);
  return ETR_OK;
}
