// SPDX-License-Identifier: Apache-2.0
//
// aten::min.dim_min: the minimum of self along `dim` and its index
// (ExecuTorch names the outs `min` and `min_indices`; they hold the values
// and the indices), keeping the dim as size 1 when `keepdim`.
//
// Arguments: (self, dim, keepdim, min, min_indices, return slot: a
// TensorList [min, min_indices]).
//
// Semantics of ATen's min.dim (measured on PyTorch 2.13): the first NaN
// wins, value and index; ties give the first index; the value is the
// winning element itself (support/reduce_extrema.h). A dim of size 0 is
// refused (InvalidArgument); a 0-dim self gives itself and index 0. A bad
// dim and outs too small are InvalidArgument.
//
// Dtypes: every real dtype and Bool; complex and uint16/32/64 are
// NotSupported. The values out must have self's dtype and the indices out
// must be Long (InvalidArgument). Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/reduce_extrema.h"
#include "ops_reference/support/shape.h"

// aten::min.dim_min
etr_error_t etr_ref_min_dim_min(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim = 0;
  bool keepdim = false;
  etr_tensor_t *values = NULL;
  etr_tensor_t *indices = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "min", &values));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "min_indices", &indices));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL_AND_BOOL));
  ETR_TRY(etr_check_dtype_equal(ctx, "min", values->dtype, self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "min_indices", indices->dtype, ETR_LONG));
  uint32_t mask = 0;
  ETR_TRY(etr_reduction_prepare(ctx, self, &dim, 1, true, keepdim, values,
                                &mask));
  ETR_TRY(etr_resize_out(ctx, indices, values->dim, values->sizes));
  ETR_TRY(etr_extremum_check_nonempty(ctx, "min", self, mask, true));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_extremum_reduce(self, mask, keepdim, false, values, indices);
  return ETR_OK;
}
