// SPDX-License-Identifier: Apache-2.0
//
// aten::permute_copy.out: out = self with its dims reordered, out dim i
// being self dim dims[i] (a copy, not a view).
//
// `dims` must name every dim of self exactly once (negative dims wrap);
// otherwise InvalidArgument. Any dtype; the out dtype must equal self's.
// The kernel is a strided view of self (sizes and strides permuted) copied
// into out, so any input layout and any out layout work.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::permute_copy.out
etr_error_t etr_ref_permute_copy_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "dims", &dims, &num_dims));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_CHECK(ctx->diag, num_dims == (size_t)self->dim,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: number of dims (%zu) doesn't match the tensor's rank (%d)",
            etr_op_name(ctx), num_dims, (int)self->dim);
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  uint32_t seen = 0;
  for (size_t i = 0; i < num_dims; ++i) {
    int32_t source = 0;
    ETR_TRY(etr_normalize_dim(ctx, dims[i], self->dim, &source));
    ETR_CHECK(ctx->diag, (seen & (1u << source)) == 0,
              ETR_ERR_INVALID_ARGUMENT, "%s: dim %d is repeated in dims",
              etr_op_name(ctx), (int)source);
    seen |= 1u << source;
    sizes[i] = self->sizes[source];
    strides[i] = self->strides[source];
  }
  etr_tensor_t view;
  etr_make_view(self, 0, self->dim, sizes, strides, &view);
  ETR_TRY(etr_resize_out(ctx, out, view.dim, view.sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, &view);
  return ETR_OK;
}
