// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::cat.out, for inputs that all have out's dtype: each
// input moved into its slice of out along `dim` by the movement engine
// (one memcpy per input when joining dim 0 of dense tensors, one per row
// otherwise; any input layout). Mixed dtypes (a promotion with
// conversions) and inputs overlapping out go to the reference kernel
// (ops_reference/op_cat.c), whose dry run also checks the arguments.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// PyTorch skips 1-D empty tensors whatever the other tensors' shapes.
static bool is_skipped(const etr_tensor_t *tensor) {
  return tensor->dim == 1 && tensor->sizes[0] == 0;
}

// True when args[0] is a tensor list of out's dtype, none overlapping out.
static bool inputs_movable(const etr_tensor_t *out, etr_evalue_t **args,
                           size_t num_args) {
  if (num_args != 4 || out == NULL || args[0] == NULL ||
      args[0]->tag != ETR_TAG_LIST_TENSOR) {
    return false;
  }
  for (size_t i = 0; i < args[0]->u.as_tensor_list.length; ++i) {
    const etr_tensor_t *tensor = etr_tensor_list_get(args[0], i);
    if (!etr_move_same_dtype(tensor, out) || etr_move_overlaps(out, tensor)) {
      return false;
    }
  }
  return true;
}

// aten::cat.out
etr_error_t etr_opt_cat_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (etr_move_validate(etr_ref_cat_out, ctx, args, num_args) != ETR_OK ||
      !inputs_movable(out, args, num_args)) {
    return etr_opt_fallback(etr_ref_cat_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim_arg = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  size_t count = args[0]->u.as_tensor_list.length;
  const etr_tensor_t *shape = NULL;  // the first tensor not skipped
  for (size_t i = 0; i < count && shape == NULL; ++i) {
    const etr_tensor_t *tensor = etr_tensor_list_get(args[0], i);
    shape = is_skipped(tensor) ? NULL : tensor;
  }
  if (shape == NULL) {
    return ETR_OK;  // out is an empty 1-D tensor
  }
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, shape->dim, &dim));
  int64_t start = 0;
  for (size_t i = 0; i < count; ++i) {
    const etr_tensor_t *tensor = etr_tensor_list_get(args[0], i);
    if (is_skipped(tensor)) {
      continue;
    }
    etr_tensor_t target;
    etr_slice_view(out, dim, start, tensor->sizes[dim], 1, &target);
    etr_move_tensor(&target, tensor);
    start += tensor->sizes[dim];
  }
  return ETR_OK;
}
