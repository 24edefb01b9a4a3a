// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::permute_copy.out: the reference's view (self's sizes and
// strides permuted) moved into out by the movement engine, which turns a
// 2-D transpose (the weight transpose `linear` exports), NCHW <-> NHWC and
// other permutations into transpose-microkernel tiles and contiguous runs
// into memcpy. Every dtype (a move keeps bytes); arguments are checked by
// the reference kernel's dry run (ops_reference/op_permute_copy.c), and an
// out overlapping self goes to the reference.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// A permutation's move is kept in ctx->memo: an instruction's vouched
// calls (the same tensors, strides and dims) make it with no checks or
// planning (the transformer's [1, 4, 16, 16] head transposes spent about
// two thirds of their 120 ns there).
enum { PERMUTE_MEMO_MARK = 0x70726d31 };  // "prm1"

// aten::permute_copy.out
etr_error_t etr_opt_permute_copy_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  if (etr_move_memo_run(ctx, PERMUTE_MEMO_MARK, args, 2, 0)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_permute_copy_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_permute_copy_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *dims = NULL;
  size_t count = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "dims", &dims, &count));
  int64_t strides[ETR_MAX_DIMS];
  for (size_t i = 0; i < count; ++i) {
    int32_t source = 0;
    ETR_TRY(etr_normalize_dim(ctx, dims[i], self->dim, &source));
    strides[i] = self->strides[source];
  }
  etr_move_strided_memo(ctx, PERMUTE_MEMO_MARK,
                        etr_scalar_type_size(out->dtype), out->dim,
                        out->sizes, out->data, out->strides, self->data,
                        strides);
  return ETR_OK;
}
