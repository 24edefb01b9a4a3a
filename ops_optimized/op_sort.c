// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::sort.values for Float self (any strides): each slice is
// gathered into a typed (value, index) array in ctx->temp and ordered by
// the same libstdc++ introsort the reference ports generically (sort/
// sort.h), so values and indices -- ties and NaNs included -- are the
// reference's bit for bit, without its per-access dtype dispatch. A slice
// of 64 or more distinct numbers (no NaN, not both zeros) has one sorted
// order whatever the algorithm: a sorting network (AVX-512, contiguous
// slices of up to 4096) or a radix sort takes it, and hands any other
// slice to the introsort. Other
// dtypes (integers may take ATen's stable radix path), empty inputs, no
// scratch and argument errors go to the reference kernel
// (ops_reference/op_sort.c), whose dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/sort/sort.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::sort.values
etr_error_t etr_opt_sort_values(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *values = etr_opt_tensor_arg(args, num_args, 3);
  etr_tensor_t *indices = etr_opt_tensor_arg(args, num_args, 4);
  if (num_args != 6 || self == NULL || values == NULL || indices == NULL ||
      self->dtype != ETR_FLOAT) {
    return etr_opt_fallback(etr_ref_sort_values, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_sort_values, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  int32_t dim = 0;
  bool descending = false;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "descending", &descending));
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  if (!etr_sort_f32_run(ctx, self, dim, descending, values, indices)) {
    return etr_opt_fallback(etr_ref_sort_values, ctx, args, num_args);
  }
  return ETR_OK;
}
