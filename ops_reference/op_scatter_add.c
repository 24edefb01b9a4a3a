// SPDX-License-Identifier: Apache-2.0
//
// aten::scatter_add.out: out = self, then out[index[i][j]][j] += src[i][j]
// for dim 0, likewise for other dims.
//
// Shapes, index dtype (int64 or int32) and bounds as aten::scatter.src_out
// (support/movement_scatter.h), all InvalidArgument; src must have self's
// dtype. Repeated index entries all add up, in increasing order along
// `dim`; sums run in ATen's op-math type (float for Half, BFloat16 and
// Float with one rounding to Half/BFloat16 at the end, double for Double,
// wrapping int64 for integers, "or" for Bool). Dtypes: every real dtype,
// Bool and complex (uint16/32/64: NotSupported); the out dtype must equal
// self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_scatter.h"
#include "ops_reference/support/shape.h"

// aten::scatter_add.out
etr_error_t etr_ref_scatter_add_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  etr_tensor_t *index = NULL;
  etr_tensor_t *src = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "index", &index));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "src", &src));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  ETR_TRY(etr_movement_check_scatter(ctx, self, dim, index, src));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t self_view;
  etr_movement_nonempty_view(self, &self_view);
  ETR_TRY(etr_movement_check_index_bounds(ctx, index, dim,
                                          self_view.sizes[dim]));
  etr_movement_scatter(self, dim, index, src, NULL, ETR_MOVEMENT_SUM, true,
                       out);
  return ETR_OK;
}
