// SPDX-License-Identifier: Apache-2.0
//
// aten::embedding.out: out[i..., :] = weight[indices[i...], :], of shape
// indices.shape + [weight.size(1)].
//
// weight must be 2-D and indices an int64 or int32 tensor of any rank
// (0-dim included); InvalidArgument otherwise. Every index must lie in
// [0, weight.size(0)): a negative or too large index is InvalidArgument
// ("index out of range in self") and is never read; the check covers all
// indices before anything is written. padding_idx, scale_grad_by_freq and
// sparse only affect the gradient: PyTorch's forward ignores them (any
// padding_idx is accepted). Any weight dtype (PyTorch accepts every
// dtype); the out dtype must equal weight's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// aten::embedding.out
etr_error_t etr_ref_embedding_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *weight = NULL;
  etr_tensor_t *indices = NULL;
  int64_t padding_idx = -1;
  bool scale_grad_by_freq = false;
  bool sparse = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 7));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "weight", &weight));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "indices", &indices));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "padding_idx", &padding_idx));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "scale_grad_by_freq",
                       &scale_grad_by_freq));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "sparse", &sparse));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, weight->dtype));
  ETR_TRY(etr_check_dtype(ctx, "weight", weight->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_movement_check_index_dtype(ctx, "indices", indices));
  ETR_CHECK(ctx->diag, weight->dim == 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: 'weight' must be 2-D, not of rank %d", etr_op_name(ctx),
            (int)weight->dim);
  ETR_CHECK(ctx->diag, indices->dim < ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: indices of rank %d leave no room for the embedding dim",
            etr_op_name(ctx), (int)indices->dim);
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t i = 0; i < indices->dim; ++i) {
    sizes[i] = indices->sizes[i];
  }
  sizes[indices->dim] = weight->sizes[1];
  ETR_TRY(etr_resize_out(ctx, out, indices->dim + 1, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  int64_t rows = weight->sizes[0];
  const etr_tensor_t *index_operand[1] = {indices};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, indices->dim, indices->sizes, index_operand, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t index = etr_movement_load_index(indices, iter.offsets[0]);
    ETR_CHECK(ctx->diag, index >= 0 && index < rows, ETR_ERR_INVALID_ARGUMENT,
              "%s: index %lld is out of range for a weight of %lld rows",
              etr_op_name(ctx), (long long)index, (long long)rows);
  }
  // Row by row: out[i..., :] is a 1-D view of out, weight[index, :] of
  // weight.
  int64_t columns = weight->sizes[1];
  etr_strided_iter_init(&iter, indices->dim, indices->sizes, index_operand, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t index = etr_movement_load_index(indices, iter.offsets[0]);
    int64_t out_offset = 0;
    for (int32_t i = 0; i < indices->dim; ++i) {
      out_offset += iter.index[i] * out->strides[i];
    }
    etr_tensor_t source;
    etr_tensor_t target;
    etr_make_view(weight, index * weight->strides[0], 1, &columns,
                  &weight->strides[1], &source);
    etr_make_view(out, out_offset, 1, &columns, &out->strides[indices->dim],
                  &target);
    etr_copy_strided(&target, &source);
  }
  return ETR_OK;
}
