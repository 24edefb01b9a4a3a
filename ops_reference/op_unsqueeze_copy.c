// SPDX-License-Identifier: Apache-2.0
//
// aten::unsqueeze_copy.out: out = self with a dim of size 1 inserted at
// position `dim` (a copy).
//
// `dim` ranges over [-rank-1, rank] (negative counts from the end of the
// result); InvalidArgument outside it. Any dtype; the out dtype must equal
// self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::unsqueeze_copy.out
etr_error_t etr_ref_unsqueeze_copy_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args,
                                       size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_CHECK(ctx->diag, self->dim < ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: the result would have more than %d dims", etr_op_name(ctx),
            ETR_MAX_DIMS);
  int32_t position = 0;
  ETR_TRY(etr_normalize_insert_dim(ctx, dim_arg, self->dim, &position));
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  for (int32_t i = 0, source = 0; i < self->dim + 1; ++i) {
    if (i == position) {
      sizes[i] = 1;
      strides[i] = 0;  // never stepped along
    } else {
      sizes[i] = self->sizes[source];
      strides[i] = self->strides[source];
      ++source;
    }
  }
  etr_tensor_t view;
  etr_make_view(self, 0, self->dim + 1, sizes, strides, &view);
  ETR_TRY(etr_resize_out(ctx, out, view.dim, view.sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, &view);
  return ETR_OK;
}
