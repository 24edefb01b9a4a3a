// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::scatter_reduce.two_out: out = self by the movement
// engine, then one pass over the index combining each src entry into its
// target (movement/scatter.c; with include_self = false a first pass sets
// the targets to the reduction's identity): O(numel(index)) against the
// reference's O(numel(self) * index.size(dim)), in the reference's order
// per target, bit-exact. sum, prod, amax and amin (and the legacy max,
// min) on Float and Long, and on Half and BFloat16 into a dense out (in an
// fp32 copy of out in ctx->temp, rounded back once: ATen's float
// accumulation); mean, other dtypes, out-of-range index entries,
// outs overlapping an input and argument errors go to the reference
// kernel (ops_reference/op_scatter_reduce.c), whose dry run checks and
// resizes first.
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::scatter_reduce.two_out
etr_error_t etr_opt_scatter_reduce_two_out(etr_kernel_context_t *ctx,
                                           etr_evalue_t **args,
                                           size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *index = etr_opt_tensor_arg(args, num_args, 2);
  etr_tensor_t *src = etr_opt_tensor_arg(args, num_args, 3);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 6);
  if (num_args != 8 || !etr_move_same_dtype(self, out) || index == NULL ||
      src == NULL ||
      etr_opt_check(etr_ref_scatter_reduce_two_out, ctx, args,
                    num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_scatter_reduce_two_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int32_t dim = 0;
  const char *name = NULL;
  bool include_self = true;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  ETR_TRY(etr_arg_string(ctx, args, num_args, 4, "reduce", &name));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "include_self",
                       &include_self));
  etr_movement_reduce_t reduce = ETR_MOVEMENT_MEAN;  // not taken
  if (strcmp(name, "sum") == 0) {
    reduce = ETR_MOVEMENT_SUM;
  } else if (strcmp(name, "prod") == 0) {
    reduce = ETR_MOVEMENT_PROD;
  } else if (strcmp(name, "amax") == 0 || strcmp(name, "max") == 0) {
    reduce = ETR_MOVEMENT_AMAX;
  } else if (strcmp(name, "amin") == 0 || strcmp(name, "min") == 0) {
    reduce = ETR_MOVEMENT_AMIN;
  }
  if (!etr_move_scatter(ctx->temp, out, self, dim, index, src, NULL, reduce,
                        include_self)) {
    return etr_opt_fallback(etr_ref_scatter_reduce_two_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}
