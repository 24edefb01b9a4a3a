// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::split_with_sizes_copy.out: each piece, a slice view of
// self along `dim`, moved into its out tensor by the movement engine (one
// memcpy per piece when splitting dim 0 of a dense tensor, one per row
// otherwise). Every dtype, when every out has self's dtype; arguments
// are checked by the reference kernel's dry run
// (ops_reference/op_split_with_sizes_copy.c), and outs overlapping self go
// to it. A dense self split into dense outs that already have the pieces'
// shapes skips both (split_dense): one memcpy per piece and outer index,
// and once its checks passed on an instruction's fixed arguments, the
// vouched calls after it skip them too.
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// True when args[3] is a tensor list whose tensors all have self's dtype
// and do not overlap it.
static bool outs_movable(const etr_tensor_t *self, etr_evalue_t **args,
                         size_t num_args) {
  if (num_args != 5 || args[3] == NULL ||
      args[3]->tag != ETR_TAG_LIST_TENSOR) {
    return false;
  }
  for (size_t i = 0; i < args[3]->u.as_tensor_list.length; ++i) {
    const etr_tensor_t *out = etr_tensor_list_get(args[3], i);
    if (!etr_move_same_dtype(self, out) || etr_move_overlaps(out, self)) {
      return false;
    }
  }
  return true;
}

// How split_dense copies: `outer` blocks of `inner` bytes per unit of
// the split dim, `pitch` bytes apart in self. Kept in ctx->memo on an
// instruction's fixed arguments, so a vouched call (ctx->args_checked:
// the same tensors, shapes and data pointers) only copies.
typedef struct split_plan {
  uint32_t mark;  // SPLIT_MEMO_MARK once kept
  int64_t outer;
  size_t inner;
  size_t pitch;
} split_plan_t;

enum { SPLIT_MEMO_MARK = 0x73706c31 };  // "spl1"

_Static_assert(sizeof(split_plan_t) <= ETR_KERNEL_MEMO_BYTES,
               "split_plan_t must fit a kernel memo");

// (args[1]'s items were proven Ints before the plan was made.)
static void split_copy(etr_evalue_t **args, const split_plan_t *p) {
  const etr_int_list_t *split_sizes = &args[1]->u.as_int_list;
  const etr_tensor_list_t *outs = &args[3]->u.as_tensor_list;
  const uint8_t *from = args[0]->u.as_tensor->data;
  for (size_t i = 0; i < outs->length; ++i) {
    size_t block = (size_t)etr_dense_int_at(split_sizes, i) * p->inner;
    uint8_t *to = outs->items[i]->u.as_tensor->data;
    for (int64_t o = 0; o < p->outer; ++o) {
      etr_move_copy(to + (size_t)o * block, from + (size_t)o * p->pitch,
                    block);
    }
    from += block;
  }
}

// The fast path: valid by construction when it returns true (see
// common/dense.h): split sizes that are Ints, non-negative and add up to
// self's size along `dim`, one out per piece with self's dtype and the
// piece's shape, every tensor dense and non-empty, no out overlapping
// self. False leaves the call, untouched, to the general path.
static bool split_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                        size_t num_args) {
  const split_plan_t *kept = etr_opt_vouched_memo(ctx, SPLIT_MEMO_MARK);
  if (kept != NULL) {
    split_copy(args, kept);
    return true;
  }
  if (num_args != 5 || args[3] == NULL ||
      args[3]->tag != ETR_TAG_LIST_TENSOR) {
    return false;
  }
  etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  const etr_int_list_t *split_sizes = etr_dense_int_list_arg(args, 1);
  const etr_tensor_list_t *outs = &args[3]->u.as_tensor_list;
  int64_t dim_arg = 0;
  int32_t dim = 0;
  int64_t self_numel = 0;
  if (self == NULL || split_sizes == NULL ||
      split_sizes->length != outs->length ||
      !etr_dense_int_arg(args, 2, &dim_arg) ||
      !etr_dense_dim(dim_arg, self->dim, &dim) ||
      !etr_dense_row_major(self, &self_numel)) {
    return false;
  }
  size_t element = etr_scalar_type_size(self->dtype);
  size_t self_bytes = (size_t)self_numel * element;
  int64_t left = self->sizes[dim];
  for (size_t i = 0; i < outs->length; ++i) {
    int64_t piece = etr_dense_int_at(split_sizes, i);
    const etr_evalue_t *item = outs->items[i];
    if (piece < 0 || piece > left || item == NULL ||
        item->tag != ETR_TAG_TENSOR) {
      return false;
    }
    left -= piece;
    const etr_tensor_t *out = item->u.as_tensor;
    int64_t numel = 0;
    if (out->dtype != self->dtype || out->dim != self->dim ||
        out->sizes[dim] != piece || !etr_dense_row_major(out, &numel) ||
        !etr_dense_disjoint(out->data, (size_t)numel * element, self->data,
                            self_bytes)) {
      return false;
    }
    for (int32_t d = 0; d < self->dim; ++d) {
      if (d != dim && out->sizes[d] != self->sizes[d]) {
        return false;
      }
    }
  }
  if (left != 0) {
    return false;
  }
  if (ctx->dry_run) {
    return true;
  }
  split_plan_t plan = {.mark = SPLIT_MEMO_MARK};
  plan.outer = etr_dense_product(self->sizes, 0, dim);
  plan.inner =
      (size_t)etr_dense_product(self->sizes, dim + 1, self->dim) * element;
  plan.pitch = (size_t)self->sizes[dim] * plan.inner;
  split_copy(args, &plan);
  if (ctx->memo != NULL) {
    *(split_plan_t *)ctx->memo = plan;
  }
  return true;
}

// aten::split_with_sizes_copy.out
etr_error_t etr_opt_split_with_sizes_copy_out(etr_kernel_context_t *ctx,
                                              etr_evalue_t **args,
                                              size_t num_args) {
  if (split_dense(ctx, args, num_args)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  if (self == NULL ||
      etr_opt_check(etr_ref_split_with_sizes_copy_out, ctx, args,
                    num_args) != ETR_OK ||
      !outs_movable(self, args, num_args)) {
    return etr_opt_fallback(etr_ref_split_with_sizes_copy_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *split_sizes = NULL;
  size_t num_splits = 0;
  int64_t dim_arg = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "split_sizes",
                           &split_sizes, &num_splits));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim", &dim_arg));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t start = 0;
  for (size_t i = 0; i < num_splits; ++i) {
    etr_tensor_t view;
    etr_slice_view(self, dim, start, split_sizes[i], 1, &view);
    etr_move_tensor(etr_tensor_list_get(args[3], i), &view);
    start += split_sizes[i];
  }
  return ETR_OK;
}
