// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::slice_copy.Tensor_out: the reference's slice view of
// self moved into out by the movement engine (memcpy per contiguous run; a
// step along the innermost dim becomes a strided loop). Every dtype;
// arguments are checked by the reference kernel's dry run
// (ops_reference/op_slice_copy.c), and an out overlapping self goes to it.
// A unit-step slice of a dense self into a dense out that already has the
// slice's shape skips both (slice_dense): one memcpy per outer index,
// and on an instruction's fixed arguments the vouched calls after the
// first skip its checks too.
#include <string.h>

#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/common/memo.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// How slice_dense copies: `outer` blocks of `block` bytes, the first
// `offset` bytes into self and each `pitch` bytes after the one before.
// Kept in ctx->memo on an instruction's fixed arguments, so a vouched
// call (ctx->args_checked: the same tensors, shapes and data pointers)
// only copies.
typedef struct slice_plan {
  uint32_t mark;  // SLICE_MEMO_MARK once kept
  int64_t outer;
  size_t block;
  size_t offset;
  size_t pitch;
} slice_plan_t;

enum { SLICE_MEMO_MARK = 0x736c6331 };  // "slc1"

_Static_assert(sizeof(slice_plan_t) <= ETR_KERNEL_MEMO_BYTES,
               "slice_plan_t must fit a kernel memo");

static void slice_copy(etr_evalue_t **args, const slice_plan_t *p) {
  const uint8_t *from =
      (const uint8_t *)args[0]->u.as_tensor->data + p->offset;
  uint8_t *to = args[5]->u.as_tensor->data;
  for (int64_t o = 0; o < p->outer; ++o) {
    etr_move_copy(to, from, p->block);
    to += p->block;
    from += p->pitch;
  }
}

// The fast path: valid by construction when it returns true (see
// common/dense.h), so nothing needs the reference's checks; false leaves
// the call, untouched, to the general path.
static bool slice_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                        size_t num_args) {
  const slice_plan_t *kept = etr_opt_vouched_memo(ctx, SLICE_MEMO_MARK);
  if (kept != NULL) {
    slice_copy(args, kept);
    return true;
  }
  if (num_args != 7) {
    return false;
  }
  etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 5);
  int64_t dim_arg = 0;
  int64_t step = 0;
  int32_t dim = 0;
  if (self == NULL || out == NULL || self->dtype != out->dtype ||
      !etr_dense_int_arg(args, 1, &dim_arg) ||
      !etr_dense_int_arg(args, 4, &step) || step != 1 ||
      !etr_dense_dim(dim_arg, self->dim, &dim)) {
    return false;
  }
  int64_t bounds[2] = {0, self->sizes[dim]};  // start, end
  for (int k = 0; k < 2; ++k) {
    const etr_evalue_t *arg = args[2 + k];
    if (arg == NULL || (arg->tag != ETR_TAG_INT && arg->tag != ETR_TAG_NONE)) {
      return false;
    }
    if (arg->tag == ETR_TAG_INT) {
      bounds[k] = arg->u.as_int;
    }
  }
  // etr_slice_bounds with step 1.
  int64_t size = self->sizes[dim];
  int64_t start = bounds[0];
  int64_t end = bounds[1];
  if (start < 0) {
    start = start < -size ? 0 : start + size;
  }
  if (end < 0) {
    end = end < -size ? 0 : end + size;
  }
  start = start > size ? size : start;
  end = end > size ? size : (end < start ? start : end);
  int64_t length = end - start;
  if (out->dim != self->dim || out->sizes[dim] != length) {
    return false;
  }
  for (int32_t d = 0; d < self->dim; ++d) {
    if (d != dim && out->sizes[d] != self->sizes[d]) {
      return false;
    }
  }
  int64_t self_numel = 0;
  int64_t out_numel = 0;
  if (!etr_dense_row_major(self, &self_numel) ||
      !etr_dense_row_major(out, &out_numel)) {
    return false;
  }
  size_t element = etr_scalar_type_size(self->dtype);
  if (!etr_dense_disjoint(self->data, (size_t)self_numel * element,
                          out->data, (size_t)out_numel * element)) {
    return false;
  }
  if (ctx->dry_run) {
    return true;
  }
  size_t inner = (size_t)etr_dense_product(self->sizes, dim + 1, self->dim) *
                 element;
  slice_plan_t plan = {
      .mark = SLICE_MEMO_MARK,
      .outer = etr_dense_product(self->sizes, 0, dim),
      .block = (size_t)length * inner,
      .offset = (size_t)start * inner,
      .pitch = (size_t)size * inner,
  };
  slice_copy(args, &plan);
  if (ctx->memo != NULL) {
    *(slice_plan_t *)ctx->memo = plan;
  }
  return true;
}

// aten::slice_copy.Tensor_out
etr_error_t etr_opt_slice_copy_tensor_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  if (slice_dense(ctx, args, num_args)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 5);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_slice_copy_tensor_out, ctx, args,
                    num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_slice_copy_tensor_out, ctx, args,
                            num_args);
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
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 2, "start", &has_start,
                               &start));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 3, "end", &has_end, &end));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 4, "step", &step));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  int64_t first = 0;
  int64_t length = 0;
  ETR_TRY(etr_slice_bounds(ctx, self->sizes[dim], has_start, start, has_end,
                           end, step, &first, &length));
  etr_tensor_t view;
  etr_slice_view(self, dim, first, length, step, &view);
  etr_move_tensor(out, &view);
  return ETR_OK;
}
