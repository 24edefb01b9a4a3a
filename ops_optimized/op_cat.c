// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::cat.out, for inputs that all have out's dtype: each
// input moved into its slice of out along `dim` by the movement engine
// (one memcpy per input when joining dim 0 of dense tensors, one per row
// otherwise; any input layout). Mixed dtypes (a promotion with
// conversions) and inputs overlapping out go to the reference kernel
// (ops_reference/op_cat.c), whose dry run also checks the arguments.
// Dense inputs of out's dtype and exact shape into a dense out skip both
// (cat_dense): one memcpy per input and outer index, and on an
// instruction's fixed arguments the vouched calls after the first skip
// its checks too.
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
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

// How cat_dense copies: for each of `outer` indices, every input's
// block of (its size along `dim`) x `inner` bytes in turn. Kept in
// ctx->memo on an instruction's fixed arguments, so a vouched call
// (ctx->args_checked: the same tensors, shapes and data pointers) only
// copies.
typedef struct cat_plan {
  uint32_t mark;  // CAT_MEMO_MARK once kept
  int32_t dim;
  int64_t outer;
  size_t inner;
} cat_plan_t;

enum { CAT_MEMO_MARK = 0x63617431 };  // "cat1"

_Static_assert(sizeof(cat_plan_t) <= ETR_KERNEL_MEMO_BYTES,
               "cat_plan_t must fit a kernel memo");

static void cat_copy(etr_evalue_t **args, const cat_plan_t *p) {
  const etr_tensor_list_t *list = &args[0]->u.as_tensor_list;
  uint8_t *to = args[2]->u.as_tensor->data;
  for (int64_t o = 0; o < p->outer; ++o) {
    for (size_t i = 0; i < list->length; ++i) {
      const etr_tensor_t *tensor = list->items[i]->u.as_tensor;
      size_t block = (size_t)tensor->sizes[p->dim] * p->inner;
      etr_move_copy(to, (const uint8_t *)tensor->data + (size_t)o * block,
                    block);
      to += block;
    }
  }
}

// The fast path: valid by construction when it returns true (see
// common/dense.h): every input a non-empty dense tensor of out's real
// dtype and rank, matching out's sizes off `dim`, their sizes along `dim`
// adding up to out's, none overlapping out. False leaves the call,
// untouched, to the general path.
static bool cat_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                      size_t num_args) {
  const cat_plan_t *kept = etr_opt_vouched_memo(ctx, CAT_MEMO_MARK);
  if (kept != NULL) {
    cat_copy(args, kept);
    return true;
  }
  if (num_args != 4 || args[0] == NULL ||
      args[0]->tag != ETR_TAG_LIST_TENSOR) {
    return false;
  }
  const etr_tensor_list_t *list = &args[0]->u.as_tensor_list;
  etr_tensor_t *out = etr_dense_tensor_arg(args, 2);
  int64_t dim_arg = 0;
  int32_t dim = 0;
  int64_t out_numel = 0;
  if (list->length == 0 || out == NULL ||
      (ETR_DTYPE_BIT(out->dtype) & ETR_DTYPES_REAL_AND_BOOL) == 0 ||
      !etr_dense_int_arg(args, 1, &dim_arg) ||
      !etr_dense_dim(dim_arg, out->dim, &dim) ||
      !etr_dense_row_major(out, &out_numel)) {
    return false;
  }
  size_t element = etr_scalar_type_size(out->dtype);
  size_t out_bytes = (size_t)out_numel * element;
  int64_t along = 0;
  for (size_t i = 0; i < list->length; ++i) {
    const etr_evalue_t *item = list->items[i];
    if (item == NULL || item->tag != ETR_TAG_TENSOR) {
      return false;
    }
    const etr_tensor_t *tensor = item->u.as_tensor;
    int64_t numel = 0;
    if (tensor->dtype != out->dtype || tensor->dim != out->dim ||
        !etr_dense_row_major(tensor, &numel) ||
        !etr_dense_disjoint(tensor->data, (size_t)numel * element, out->data,
                            out_bytes)) {
      return false;
    }
    for (int32_t d = 0; d < out->dim; ++d) {
      if (d != dim && tensor->sizes[d] != out->sizes[d]) {
        return false;
      }
    }
    along += tensor->sizes[dim];
  }
  if (along != out->sizes[dim]) {
    return false;
  }
  if (ctx->dry_run) {
    return true;
  }
  cat_plan_t plan = {
      .mark = CAT_MEMO_MARK,
      .dim = dim,
      .outer = etr_dense_product(out->sizes, 0, dim),
      .inner =
          (size_t)etr_dense_product(out->sizes, dim + 1, out->dim) * element,
  };
  cat_copy(args, &plan);
  if (ctx->memo != NULL) {
    *(cat_plan_t *)ctx->memo = plan;
  }
  return true;
}

// aten::cat.out
etr_error_t etr_opt_cat_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  if (cat_dense(ctx, args, num_args)) {
    return ETR_OK;
  }
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (etr_opt_check(etr_ref_cat_out, ctx, args, num_args) != ETR_OK ||
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
