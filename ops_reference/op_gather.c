// SPDX-License-Identifier: Apache-2.0
//
// aten::gather.out: out[i][j][k] = self[index[i][j][k]][j][k] (for dim 0;
// likewise for other dims), with out of index's shape.
//
// index is int64 or int32 (PyTorch 2.13 accepts both), of self's rank
// (a 0-dim tensor counts as rank 1), no larger than self on every dim but
// `dim` (support/movement_scatter.h; an empty index is not checked at
// all, as in ATen); its values must lie in
// [0, self.size(dim)) -- negative values do not wrap. Violations are
// InvalidArgument and nothing is read out of bounds: every index is
// checked before anything is written. sparse_grad only matters for
// gradients. Dtypes: every real dtype, Bool and complex (PyTorch refuses
// uint16/32/64: NotSupported); the out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/movement_scatter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// aten::gather.out
etr_error_t etr_ref_gather_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  etr_tensor_t *index = NULL;
  bool sparse_grad = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "index", &index));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 3, "sparse_grad", &sparse_grad));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  ETR_TRY(etr_movement_check_gather(ctx, self, dim, index));
  ETR_TRY(etr_resize_out_like(ctx, out, index));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t self_view;
  etr_movement_nonempty_view(self, &self_view);
  ETR_TRY(etr_movement_check_index_bounds(ctx, index, dim,
                                          self_view.sizes[dim]));
  etr_tensor_t out_view;
  etr_tensor_t index_view;
  etr_movement_nonempty_view(out, &out_view);
  etr_movement_nonempty_view(index, &index_view);
  const etr_tensor_t *operands[2] = {&out_view, &index_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, index_view.dim, index_view.sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t position = etr_movement_load_index(index, iter.offsets[1]);
    int64_t source = 0;
    for (int32_t d = 0; d < self_view.dim; ++d) {
      source += (d == dim ? position : iter.index[d]) * self_view.strides[d];
    }
    etr_convert_element(out->dtype, etr_element_at(out, iter.offsets[0]),
                        self->dtype, etr_element_at(self, source));
  }
  return ETR_OK;
}
