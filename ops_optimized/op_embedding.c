// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::embedding.out: out[i..., :] = weight[indices[i...], :],
// one memcpy per row when weight and out are dense (the embedding lookup
// of language models), a strided move per row otherwise
// (etr_move_index_select with out read as [numel(indices), D]). Every
// dtype; arguments are checked by the reference kernel's dry run
// (ops_reference/op_embedding.c). An index out of range (reported by the
// reference before anything is written), an out that cannot be read as
// rows (strided, with a multi-dim index) and an out overlapping weight go
// to the reference.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::embedding.out
etr_error_t etr_opt_embedding_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *weight = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *indices = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 5);
  if (!etr_move_same_dtype(weight, out) ||
      etr_opt_check(etr_ref_embedding_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, weight)) {
    return etr_opt_fallback(etr_ref_embedding_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  // out as [count, D] rows, in the row-major order of indices.
  int64_t rows[2] = {etr_numel(indices), weight->sizes[1]};
  int64_t strides[2];
  if (!etr_move_indices_in_range(indices, weight->sizes[0], false) ||
      !etr_move_reshape_strides(out, 2, rows, strides)) {
    return etr_opt_fallback(etr_ref_embedding_out, ctx, args, num_args);
  }
  etr_tensor_t view;
  etr_make_view(out, 0, 2, rows, strides, &view);
  etr_move_index_select(&view, weight, 0, indices, false);
  return ETR_OK;
}
