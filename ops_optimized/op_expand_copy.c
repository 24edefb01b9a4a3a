// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::expand_copy.out: self broadcast to out's shape (the
// reference's dry run has checked `size` and resized out to it) and moved
// by the movement engine: expanded rows are memcpy'd from the same source
// row, expanded innermost dims are filled by the fill microkernel; an
// expand that broadcasts nothing is one copy. Every dtype; an out
// overlapping self goes to the reference (ops_reference/op_expand_copy.c).
// What a call works out is kept for the instruction's vouched calls.
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// A broadcasting expand's move is kept in ctx->memo for the
// instruction's vouched calls (the same tensors and shapes): no view or
// plan again.
enum { EXPAND_MEMO_MARK = 0x65787031 };  // "exp1"

// aten::expand_copy.out
etr_error_t etr_opt_expand_copy_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  if (etr_dense_copy_vouched(ctx, args, 0, 3)) {
    return ETR_OK;
  }
  if (etr_move_memo_run(ctx, EXPAND_MEMO_MARK, args, 3, 0)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_expand_copy_out, ctx, args, num_args) != ETR_OK) {
    return etr_opt_fallback(etr_ref_expand_copy_out, ctx, args, num_args);
  }
  // An expand that broadcasts nothing (out of self's element count: the
  // transformer's [1, 4, 16, 16] -> [1, 4, 16, 16] before its bmm) is a
  // copy, kept for the vouched calls: about 140 ns a call went to the
  // broadcast view and the move engine's plan around a 4 KiB copy.
  if (etr_tensor_numel(self) == etr_tensor_numel(out) &&
      etr_dense_copy_reshaped(ctx, self, out)) {
    return ETR_OK;
  }
  etr_tensor_t view;
  if (etr_broadcast_view(ctx, self, out->dim, out->sizes, &view) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_expand_copy_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_move_strided_memo(ctx, EXPAND_MEMO_MARK,
                        etr_scalar_type_size(out->dtype), out->dim,
                        out->sizes, out->data, out->strides, view.data,
                        view.strides);
  return ETR_OK;
}
